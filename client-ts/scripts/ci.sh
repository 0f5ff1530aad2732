#!/usr/bin/env bash
# Everything CI needs for the TypeScript client, from a clean clone: Chromium (Debian's
# package, installed with apt-get when /usr/bin/chromium is missing), the pinned dev
# dependencies (npm ci), the build, the bundle-size check, the server binary the tests
# start, and every test (node:test: codecs against the golden vectors, the SDK against a
# real server, and the SDK in headless Chromium). Run from anywhere.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)

if [ ! -x /usr/bin/chromium ]; then
  echo "== apt-get install chromium"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq chromium >/dev/null
fi

echo "== npm ci"
npm ci --no-audit --no-fund

echo "== build"
npm run build

echo "== bundle size"
npm run size

# The server the integration tests start. `.ci/run` has built the workspace already,
# so this is quick there; CANOPY_BIN points elsewhere to test another build.
if [ -z "${CANOPY_BIN:-}" ]; then
  echo "== cargo build -p canopy-server --bin canopy"
  (cd .. && cargo build -p canopy-server --bin canopy --locked)
fi

echo "== tests"
npm test

echo "== client-ts CI done in $(( $(date +%s) - start )) s"
