#!/usr/bin/env bash
# Builds the Canopy runtime image and runs it, without any image registry.
# .ci/run calls it after the tests; it runs the same by hand, as root, on Debian
# bookworm (the binaries it packs are the host's, linked against bookworm's glibc).
#
# What it does, in order:
#   1. installs what is missing from Debian: docker.io (engine and client 20.10),
#      docker-compose (1.29, the Compose that bookworm packages and that works with
#      that engine; bookworm has no `docker compose` v2 plugin) and mmdebstrap;
#   2. uses the running dockerd, or starts one (and stops it at the end). One it starts
#      leaves the host's firewall and forwarding alone (--iptables=false,
#      --ip-forward=false): the containers only talk to each other on their bridge and
#      to the host through the loopback port, so they need neither, and they cannot
#      reach anything outside;
#   3. makes a base image from Debian packages: mmdebstrap builds a minimal bookworm
#      rootfs (essential packages plus ca-certificates, curl for the health check and
#      passwd for useradd; no docs, man pages or locales) and `docker import` loads it;
#   4. builds the runtime image on it with docker/Dockerfile's `prebuilt` target from
#      the debug binaries the tests already built (stripped). A release build would
#      add several minutes of compiling to CI for an image that is thrown away; the
#      Dockerfile, its runtime stage and its health check are the same either way;
#   5. checks the image: the container's HEALTHCHECK reports healthy (docker inspect),
#      the server runs as a non-root user (uid 10001, read from the host), persists
#      to its volume (CANOPY_DATA_DIR=/data: locked, and a room survives `docker kill`
#      and `docker start`), and it refuses to listen on 0.0.0.0 without an admin token;
#   6. `docker-compose up` of docker/compose.yaml with docker/compose.ci.yaml on top:
#      the server container and a short load test against it, which must pass;
#   7. removes what it made (containers, the compose network and volume, both images,
#      the staged binaries) and stops the dockerd it started, also on failure (trap).
#
# `docker-ci.sh prepare` does only the slow, network-bound part: steps 1 and the rootfs
# of step 3, into target/docker-ci/rootfs.tar, which a later run imports instead of
# building it again. .ci/run starts it in the background beside the Rust builds.
# DOCKER_CI_PREBUILT=1 packs the binaries already in target/debug (the test step built
# them) instead of asking cargo, whose feature set for two packages differs from the
# workspace's and would build them again.
#
# Exit status: non-zero when a step or a check fails; the failing step says why, with
# the container's log where there is one.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"

# Debian's client, the engine's own version: a newer docker CLI elsewhere on PATH
# (/usr/local/bin here) would want buildx for `docker build`.
DOCKER=/usr/bin/docker
COMPOSE=/usr/bin/docker-compose
export DOCKER_BUILDKIT=0 # the classic builder: no registry look-ups for local bases
export COMPOSE_DOCKER_CLI_BUILD=0

RUN_ID="canopy-ci-$$"
BASE_IMAGE="$RUN_ID-base:bookworm"
IMAGE="$RUN_ID:debug"
TARGET_DIR="${CARGO_TARGET_DIR:-target}"
STAGE=docker/prebuilt
ROOTFS_CACHE="$TARGET_DIR/docker-ci/rootfs.tar"
TOKEN="ci-admin-token-$$-$RANDOM"

started=$SECONDS
step() { printf '== docker-ci [%3ds]: %s\n' "$((SECONDS - started))" "$*"; }
fail() {
  printf 'docker-ci: FAILED: %s\n' "$*" >&2
  exit 1
}
# Prints a container's log (for a failure message), never failing itself.
show_log() {
  printf -- '--- log of %s:\n' "$1" >&2
  "$DOCKER" logs --tail 50 "$1" >&2 2>&1 || true
  printf -- '---\n' >&2
}

work=$(mktemp -d)
dockerd_pid=""
compose_up=""
cleanup() {
  local rc=$?
  set +e
  step "cleaning up"
  if [[ -n "$compose_up" ]]; then
    "$COMPOSE" -p "$RUN_ID" -f docker/compose.yaml -f docker/compose.ci.yaml \
      down --volumes --remove-orphans --timeout 5 >/dev/null 2>&1
  fi
  if [[ -x "$DOCKER" ]] && "$DOCKER" info >/dev/null 2>&1; then
    local ids
    ids=$("$DOCKER" ps -aq --filter "label=canopy-ci=$RUN_ID")
    [[ -n "$ids" ]] && "$DOCKER" rm -f -v $ids >/dev/null 2>&1
    "$DOCKER" rmi -f "$IMAGE" "$BASE_IMAGE" >/dev/null 2>&1
  fi
  find "$STAGE" -mindepth 1 ! -name .gitignore -delete 2>/dev/null
  if [[ -n "$dockerd_pid" ]]; then
    kill -TERM "$dockerd_pid" 2>/dev/null
    for _ in $(seq 1 30); do kill -0 "$dockerd_pid" 2>/dev/null || break; sleep 1; done
    if kill -0 "$dockerd_pid" 2>/dev/null; then
      printf 'docker-ci: dockerd (pid %s) did not stop in 30 s; killing it\n' "$dockerd_pid" >&2
      kill -KILL "$dockerd_pid" 2>/dev/null
    fi
    step "stopped the dockerd this run started"
  fi
  rm -rf "$work"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Whether a rootfs tarball made earlier is there to import (a file, not empty).
have_rootfs() {
  [[ -f "$ROOTFS_CACHE" && -s "$ROOTFS_CACHE" ]]
}

# The minimal bookworm rootfs the base image is made of, into $ROOTFS_CACHE.
make_rootfs() {
  rm -rf "$ROOTFS_CACHE"
  # tmpfs for the rootfs when there is one: the unpacking is I/O-bound otherwise.
  mm_tmp=/dev/shm
  [[ -d $mm_tmp && -w $mm_tmp ]] || mm_tmp="$work"
  # merged-usr hook: makes the /usr symlinks itself instead of installing usrmerge,
  # which would bring perl (50 MB) into the image.
  # --format=tar: mmdebstrap otherwise guesses the format from the file name, and the
  # ".part" of the name it writes first would make it a directory.
  rm -rf "$ROOTFS_CACHE.part"
  TMPDIR="$mm_tmp" mmdebstrap --quiet --variant=essential --format=tar \
    --include=ca-certificates,curl,passwd \
    --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
    --aptopt='APT::Install-Recommends "false"' \
    --dpkgopt='path-exclude=/usr/share/man/*' \
    --dpkgopt='path-exclude=/usr/share/info/*' \
    --dpkgopt='path-exclude=/usr/share/doc/*' \
    --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    --dpkgopt='path-exclude=/usr/share/locale/*' \
    bookworm "$ROOTFS_CACHE.part" \
    "deb http://deb.debian.org/debian bookworm main" \
    "deb http://deb.debian.org/debian bookworm-updates main" \
    "deb http://deb.debian.org/debian-security bookworm-security main" \
    >"$work/mmdebstrap.log" 2>&1 \
    || { tail -30 "$work/mmdebstrap.log" >&2; fail "mmdebstrap"; }
  mv "$ROOTFS_CACHE.part" "$ROOTFS_CACHE"
}

[[ $(id -u) -eq 0 ]] || fail "needs root (dockerd, mmdebstrap)"

# --- 1. packages -------------------------------------------------------------------
bash scripts/ci-packages.sh docker >"$work/apt.log" 2>&1 \
  || { tail -20 "$work/apt.log" >&2; fail "installing the Docker packages (scripts/ci-packages.sh docker)"; }
step "$("$DOCKER" --version); $("$COMPOSE" version --short 2>/dev/null | sed 's/^/docker-compose /'); mmdebstrap $(mmdebstrap --version | awk '{print $2}')"

mkdir -p "$(dirname "$ROOTFS_CACHE")"
if [[ "${1:-}" == prepare ]]; then
  have_rootfs || make_rootfs
  step "prepared: $ROOTFS_CACHE"
  exit 0
fi

# --- 2. dockerd --------------------------------------------------------------------
if "$DOCKER" info >/dev/null 2>&1; then
  step "using the running dockerd"
else
  step "starting dockerd"
  /usr/sbin/dockerd --iptables=false --ip-forward=false >"$work/dockerd.log" 2>&1 &
  dockerd_pid=$!
  for _ in $(seq 1 60); do
    "$DOCKER" info >/dev/null 2>&1 && break
    kill -0 "$dockerd_pid" 2>/dev/null || { tail -20 "$work/dockerd.log" >&2; fail "dockerd exited"; }
    sleep 0.5
  done
  "$DOCKER" info >/dev/null 2>&1 || { tail -20 "$work/dockerd.log" >&2; fail "dockerd did not answer within 30 s"; }
fi

# --- 3. base image -----------------------------------------------------------------
step "mmdebstrap: minimal bookworm rootfs -> docker import $BASE_IMAGE"
if ! have_rootfs; then
  make_rootfs
else
  step "using the rootfs made earlier ($ROOTFS_CACHE)"
fi
"$DOCKER" import --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  "$ROOTFS_CACHE" "$BASE_IMAGE" >/dev/null || fail "docker import"
step "base image: $("$DOCKER" image inspect -f '{{.Size}}' "$BASE_IMAGE" | awk '{printf "%.1f MB", $1/1e6}')"

# --- 4. runtime image from the tests' binaries ---------------------------------------
if [[ "${DOCKER_CI_PREBUILT:-}" == 1 ]]; then
  step "staging the stripped debug binaries the tests built"
else
  step "cargo build (debug) and staging stripped binaries"
  cargo build --locked -p canopy-server -p canopy-loadtest --bin canopy --bin canopy-loadtest >"$work/cargo.log" 2>&1 \
    || { tail -30 "$work/cargo.log" >&2; fail "cargo build"; }
fi
for bin in canopy canopy-loadtest; do
  [[ -x "$TARGET_DIR/debug/$bin" ]] || fail "$TARGET_DIR/debug/$bin missing after cargo build"
  strip -o "$STAGE/$bin" "$TARGET_DIR/debug/$bin" || fail "strip $bin"
done
step "docker build --target prebuilt -> $IMAGE"
"$DOCKER" build --quiet -f docker/Dockerfile --target prebuilt \
  --build-arg RUNTIME_IMAGE="$BASE_IMAGE" --label "canopy-ci=$RUN_ID" -t "$IMAGE" . \
  >"$work/build.log" 2>&1 || { tail -30 "$work/build.log" >&2; fail "docker build"; }
step "image: $("$DOCKER" image inspect -f '{{.Size}}' "$IMAGE" | awk '{printf "%.1f MB", $1/1e6}') (debug binaries, stripped)"

# --- 5. the container on its own ----------------------------------------------------
# With an admin token, as in production: 0.0.0.0 inside the container is allowed.
# The health check is the image's command; only its interval is shortened.
c="$RUN_ID-token"
step "container with an admin token: waiting for its HEALTHCHECK"
# (The client warns that IPv4 forwarding is off: true, and nothing here needs it.)
"$DOCKER" run -d --name "$c" --label "canopy-ci=$RUN_ID" \
  -e CANOPY_ADMIN_TOKEN="$TOKEN" -e CANOPY_LOG=warn \
  --health-interval 1s --health-start-period 30s "$IMAGE" >/dev/null 2>"$work/run.err" \
  || { cat "$work/run.err" >&2; fail "docker run $IMAGE"; }
t0=$SECONDS
health=""
for _ in $(seq 1 60); do
  health=$("$DOCKER" inspect -f '{{if .State.Health}}{{.State.Health.Status}}{{end}}' "$c")
  running=$("$DOCKER" inspect -f '{{.State.Running}}' "$c")
  [[ "$health" == healthy || "$running" != true ]] && break
  sleep 0.5
done
if [[ "$health" != healthy ]]; then
  show_log "$c"
  "$DOCKER" inspect -f '{{json .State.Health}}' "$c" >&2 || true
  fail "the container's health check did not report healthy within 30 s (status: ${health:-none}, running: $running)"
fi
step "health: $health after $((SECONDS - t0)) s"

# The uid the kernel runs the server as, read on the host (no user namespaces here).
pid=$("$DOCKER" inspect -f '{{.State.Pid}}' "$c")
uids=$(awk '/^Uid:/ {print $2, $3, $4, $5}' "/proc/$pid/status")
user=$("$DOCKER" inspect -f '{{.Config.User}}' "$c")
[[ "$uids" == "10001 10001 10001 10001" ]] \
  || fail "the server runs with uids '$uids' (real, effective, saved, fs), expected 10001"
step "process: uid 10001 (real, effective, saved, fs), image user $user: not root"
# The data directory (CANOPY_DATA_DIR, the image's volume) must be writable by that user.
"$DOCKER" exec "$c" sh -c 'f="$CANOPY_DATA_DIR/.ci-write-test" && touch "$f" && rm "$f"' \
  || fail "the server's user cannot write to \$CANOPY_DATA_DIR in the container"
step "data directory $("$DOCKER" exec "$c" sh -c 'echo "$CANOPY_DATA_DIR"'): writable by that user"

# Persistence is on in the image: the server holds the lock of $CANOPY_DATA_DIR (the
# image's volume), and a room it created (201) is back after a kill -9 and a restart of
# the same container (same volume).
"$DOCKER" exec "$c" sh -c 'test -f "$CANOPY_DATA_DIR/LOCK"' \
  || { show_log "$c"; fail "no LOCK in \$CANOPY_DATA_DIR: the server in the image does not persist there"; }
in_c() { "$DOCKER" exec -e TOKEN="$TOKEN" "$c" sh -c "$1"; }
auth='-H "Authorization: Bearer $TOKEN"'
in_c "curl -fsS -o /dev/null $auth -H 'content-type: application/json' -d '{\"id\":\"kept\",\"tick_hz\":7}' http://127.0.0.1:7878/rooms" \
  || { show_log "$c"; fail "POST /rooms in the container"; }
"$DOCKER" kill "$c" >/dev/null || fail "docker kill"
"$DOCKER" start "$c" >/dev/null || fail "docker start after the kill"
for _ in $(seq 1 60); do
  in_c 'curl -fsS -o /dev/null http://127.0.0.1:7878/healthz' 2>/dev/null && break
  sleep 0.5
done
kept=$(in_c "curl -sS $auth http://127.0.0.1:7878/rooms/kept" 2>&1) || true
grep -q '"tick_hz":7' <<<"$kept" \
  || { show_log "$c"; fail "after docker kill and start, GET /rooms/kept answered: $kept"; }
step "persistence: room \`kept\` (tick_hz 7) back after docker kill (SIGKILL) and start"
"$DOCKER" rm -f -v "$c" >/dev/null

# Without a token on 0.0.0.0 (the image's CANOPY_ADDR), the server must refuse to start.
c="$RUN_ID-open"
step "container without a token on 0.0.0.0: must refuse to start"
set +e
out=$(timeout 60 "$DOCKER" run --name "$c" --label "canopy-ci=$RUN_ID" "$IMAGE" 2>&1)
rc=$?
set -e
"$DOCKER" rm -f -v "$c" >/dev/null 2>&1 || true
if [[ $rc -eq 0 || $rc -eq 124 ]] || ! grep -q "refusing to listen on 0.0.0.0:7878 without an admin token" <<<"$out"; then
  printf -- '--- output:\n%s\n---\n' "$out" >&2
  fail "expected the server to exit non-zero with 'refusing to listen on 0.0.0.0:7878 without an admin token' (exit $rc)"
fi
step "refused (exit $rc): $(grep -o 'refusing to listen on [^:]*:[0-9]* without an admin token' <<<"$out")"

# --- 6. docker-compose: server and load test ----------------------------------------
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
step "docker-compose up: server + load test (compose.yaml + compose.ci.yaml, port $port)"
compose_up=1
set +e
CANOPY_IMAGE="$IMAGE" CANOPY_PORT="$port" "$COMPOSE" --ansi never -p "$RUN_ID" \
  -f docker/compose.yaml -f docker/compose.ci.yaml \
  up --no-build --exit-code-from loadtest 2>&1 | tee "$work/compose.log"
rc=${PIPESTATUS[0]}
set -e
[[ $rc -eq 0 ]] || fail "docker-compose: the load test exited $rc (its report is above)"
grep -q "loadtest_1 exited with code 0" "$work/compose.log" \
  || fail "docker-compose returned 0 but the load test's exit was not seen"
step "load test passed"

step "ok"
