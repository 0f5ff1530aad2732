#!/usr/bin/env bash
# Everything CI checks for the inspector, from a clean clone: the pinned dev dependencies
# (npm ci), a type check, the reproducibility of the committed assets (a fresh build must
# equal server/inspector-dist/ byte for byte), and the browser tests (headless Chromium
# with SwiftShader WebGL): the page against `--demo`, and a short 20k-node load run that
# prints the per-frame update time. `npm test`'s pretest provisions the server binary
# that embeds the assets and Chromium (scripts/test-services.mjs). Run from anywhere.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)

echo "== npm ci"
npm ci --no-audit --no-fund

echo "== type check"
npm run check

echo "== the committed assets are what the sources build"
npm run verify

echo "== browser tests"
PERF_SECONDS="${PERF_SECONDS:-8}" npm test

echo "== inspector CI done in $(( $(date +%s) - start )) s"
