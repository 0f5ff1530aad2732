#!/usr/bin/env bash
# Everything CI checks for the inspector, from a clean clone: Chromium (Debian's package,
# installed with apt-get when /usr/bin/chromium is missing), the pinned dev dependencies
# (npm ci), a type check, the reproducibility of the committed assets (a fresh build must
# equal server/inspector-dist/ byte for byte), the server binary that embeds them, and the
# browser tests (headless Chromium with SwiftShader WebGL): the page against `--demo`,
# and a short 20k-node load run that prints the per-frame update time. Run from anywhere.
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

echo "== type check"
npm run check

echo "== the committed assets are what the sources build"
npm run verify

# The binary embeds server/inspector-dist/ (include_bytes!), so it is built after the
# check above; `.ci/run` has built the workspace already, so this is quick there.
if [ -z "${CANOPY_BIN:-}" ]; then
  echo "== cargo build -p canopy-server --bin canopy"
  (cd .. && cargo build -p canopy-server --bin canopy --locked)
fi

echo "== browser tests"
PERF_SECONDS="${PERF_SECONDS:-8}" npm test

echo "== inspector CI done in $(( $(date +%s) - start )) s"
