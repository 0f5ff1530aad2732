#!/usr/bin/env bash
# The Debian packages CI needs, installed in one apt-get run when any is missing:
# chromium (the TypeScript client's and the inspector's browser tests), and docker.io,
# docker-compose, mmdebstrap and binutils (the Docker checks, scripts/docker-ci.sh).
# .ci/run starts it in the background at the beginning, beside the Rust builds, since
# it waits on the network rather than the CPU. `ci-packages.sh docker` or
# `ci-packages.sh browser` installs one group only. Needs root. Idempotent.
set -euo pipefail

group="${1:-all}"
missing=()
if [[ $group == all || $group == browser ]]; then
  [[ -x /usr/bin/chromium ]] || missing+=(chromium)
fi
if [[ $group == all || $group == docker ]]; then
  [[ -x /usr/bin/docker && -x /usr/sbin/dockerd ]] || missing+=(docker.io)
  [[ -x /usr/bin/docker-compose ]] || missing+=(docker-compose)
  command -v mmdebstrap >/dev/null 2>&1 || missing+=(mmdebstrap)
  command -v strip >/dev/null 2>&1 || missing+=(binutils)
fi
if ((${#missing[@]} == 0)); then
  echo "ci-packages: all present"
  exit 0
fi
[[ $(id -u) -eq 0 ]] || { echo "ci-packages: needs root to install ${missing[*]}" >&2; exit 1; }
echo "ci-packages: apt-get install ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "ci-packages: installed ${missing[*]}"
