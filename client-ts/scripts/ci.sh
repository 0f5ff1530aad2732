#!/usr/bin/env bash
# Everything CI needs for the TypeScript client, from a clean clone: the pinned dev
# dependencies (npm ci), the build, the bundle-size check, and every test (node:test:
# codecs against the golden vectors, the SDK against a real server, and the SDK in
# headless Chromium). `npm test`'s pretest builds the package and provisions the server
# binary and Chromium (scripts/test-services.mjs). Run from anywhere.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)

echo "== npm ci"
npm ci --no-audit --no-fund

echo "== build"
npm run build

echo "== bundle size"
npm run size

echo "== tests"
npm test

echo "== client-ts CI done in $(( $(date +%s) - start )) s"
