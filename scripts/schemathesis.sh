#!/usr/bin/env bash
# Runs schemathesis against the OpenAPI document of a live Canopy server: every route,
# with schema-valid and schema-invalid requests, checking for 5xx answers and answers
# outside the documented schema.
#
# What it does, in order:
#   1. builds the server (`cargo build -p canopy-server --bin canopy`);
#   2. creates its own Python virtual environment (.venv-schemathesis at the repository
#      root, git-ignored) and installs schemathesis from PyPI into it, once;
#   3. starts the server on a free loopback port (127.0.0.1:7890 unless taken), creates
#      the rooms `arena` and `lobby` and a few nodes in `arena`, so that room- and
#      node-scoped routes are exercised against real state and not only against 404s
#      (schemathesis cannot know room ids: they reach it through a dictionary bound to
#      the `room` and `id` path parameters in the generated config, with some
#      probability left for random values);
#   4. runs `schemathesis run --checks all` with a bounded number of examples per
#      operation and a time budget: first every operation except `DELETE /rooms/{room}`,
#      then that one alone, so that deleting the seeded rooms does not turn the rest of
#      the run into 404s;
#   5. stops the server (trap, also on failure or Ctrl-C).
#
# Accepted refusals. `positive_data_acceptance` (ST202) expects every schema-valid request
# to succeed, but the contract (docs/protocol.md) refuses some on purpose, for reasons JSON
# Schema cannot state; the config below therefore also accepts these statuses for it:
#   - 400 `invalid_value`: numbers that JSON Schema's `format: float` does not bound
#     (1e308 reads as an infinite f32, which is refused like any non-finite number), a
#     zero ray `dir`, `min > max` in a box, a quaternion shorter than 1e-6, a negative
#     extent item;
#   - 400 `unknown_node` inside a batch (docs/protocol.md §3: 404 for a read, 400 in a batch);
#   - 400 `bad_request` for an integer written with a fraction (`196.0`): JSON Schema
#     counts it as an integer, the server's JSON reader (serde) does not;
#   - 404 `unknown_room`/`unknown_node`, 409 `duplicate_id`/`cycle`/`room_exists`:
#     answers about the state, not the request's shape;
#   - 413 `too_large`: the server's documented limits (flags), such as `k` above the
#     nearest-query limit, which the schema does not hard-code.
# Every other check runs as it is: 5xx, responses outside the schema, wrong content
# types and schema-violating requests that are accepted all fail the run.
#
# Exit status: schemathesis's (non-zero when a check failed). Reports (JUnit and the
# NDJSON event log) go to target/schemathesis/.
#
# Knobs (environment): SCHEMATHESIS_MAX_EXAMPLES (default 100 per operation),
# SCHEMATHESIS_MAX_TIME (seconds for the main pass, default 300; schemathesis keeps
# fuzzing until the budget is spent), SCHEMATHESIS_SEED,
# CANOPY_SCHEMATHESIS_PORT (default 7890), SCHEMATHESIS_VERSION (a pip requirement
# specifier, default ">=4.0,<5": the config and flags below are schemathesis 4's).
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"

max_examples="${SCHEMATHESIS_MAX_EXAMPLES:-100}"
max_time="${SCHEMATHESIS_MAX_TIME:-300}"
port="${CANOPY_SCHEMATHESIS_PORT:-7890}"
version="${SCHEMATHESIS_VERSION:->=4.0,<5}"
venv="$repo/.venv-schemathesis"
out="$repo/target/schemathesis"
mkdir -p "$out"

echo "== building the server"
cargo build -p canopy-server --bin canopy
target_dir="$(cargo metadata --format-version 1 --no-deps |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')"
server_bin="$target_dir/debug/canopy"

echo "== schemathesis in $venv"
if [[ ! -x "$venv/bin/schemathesis" ]]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --upgrade pip
    "$venv/bin/pip" install --quiet "schemathesis$version"
fi
"$venv/bin/schemathesis" --version

# A free loopback port: the requested one if nobody listens there, else one the kernel
# picks.
port="$(python3 - "$port" <<'EOF'
import socket, sys
want = int(sys.argv[1])
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
try:
    s.bind(("127.0.0.1", want))
except OSError:
    s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])
s.close()
EOF
)"
base="http://127.0.0.1:$port"

server_pid=""
cleanup() {
    if [[ -n "$server_pid" ]] && kill -0 "$server_pid" 2>/dev/null; then
        kill "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
}
trap cleanup EXIT INT TERM

echo "== starting the server on $base (log: $out/server.log)"
# Open (no admin token) on loopback, as the contract allows; the generous room limit
# keeps `POST /rooms` with random ids from hitting the room cap during the run; in
# memory, so that the run leaves no ./canopy-data behind (nor needs its lock).
env -u CANOPY_ADMIN_TOKEN "$server_bin" --addr "127.0.0.1:$port" \
    --max-rooms 100000 --in-memory >"$out/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 100); do
    if curl -fsS "$base/healthz" >/dev/null 2>&1; then
        break
    fi
    if ! kill -0 "$server_pid" 2>/dev/null; then
        echo "the server exited early:" >&2
        cat "$out/server.log" >&2
        exit 1
    fi
    sleep 0.1
done
curl -fsS "$base/healthz" >/dev/null

echo "== seeding rooms and nodes"
post() {
    curl -fsS -X POST -H 'content-type: application/json' -d "$2" "$base$1" >/dev/null
}
post /rooms '{"id":"arena"}'
post /rooms '{"id":"lobby","tick_hz":60}'
post /rooms/arena/edits '{"ops":[
    {"op":"add","id":0,"local":{"t":[0,0,0]},"extent":[1,1,1]},
    {"op":"add","id":1,"parent":0,"local":{"t":[2,0,0],"s":0.5},"extent":[0.5,0.5,0.5],"mask":1},
    {"op":"add","id":2,"parent":1,"local":{"r":[0,0,0.7071068,0.7071068]},"extent":[1,2,3]},
    {"op":"add","id":3,"local":{"t":[-5,1,0]},"extent":[0,0,0],"mask":2}]}'
curl -fsS "$base/openapi.json" >"$out/openapi.json"

# The config binds the `room` and `id` path parameters to the seeded values most of the
# time; the rest of the time schemathesis generates its own (unknown rooms and nodes).
config="$out/schemathesis.toml"
cat >"$config" <<EOF
[dictionaries.rooms]
values = ["arena", "lobby"]

[dictionaries.nodes]
values = [0, 1, 2, 3]

[parameters]
"path.room" = { dictionary = "rooms", probability = 0.8 }
"path.id" = { dictionary = "nodes", probability = 0.7 }

# Schema-valid requests that the contract refuses on purpose; see "Accepted refusals" at
# the top of this script.
[checks.positive_data_acceptance]
expected-statuses = ["2xx", "400", "404", "409", "413"]
EOF

run_pass() {
    local name="$1" seconds="$2"
    shift 2
    echo "== schemathesis: $name"
    # From inside $out, so that schemathesis's example database (.schemathesis/) stays
    # out of the work tree.
    (cd "$out" && "$venv/bin/schemathesis" --config-file "$config" run "$base/openapi.json" \
        --checks all \
        --max-examples "$max_examples" \
        --max-time "$seconds" \
        --request-timeout 10 \
        --workers 2 \
        ${SCHEMATHESIS_SEED:+--seed "$SCHEMATHESIS_SEED"} \
        --report junit,ndjson --report-dir "$out/$name" \
        --no-color \
        "$@")
}

status=0
run_pass main "$max_time" --exclude-operation-id delete_room || status=$?
# One operation with a string parameter: a short budget covers it.
run_pass delete 30 --include-operation-id delete_room || status=$?

if grep -q 'panicked' "$out/server.log"; then
    echo "the server panicked during the run (see $out/server.log)" >&2
    status=1
fi
echo "== done (exit status $status)"
exit "$status"
