#!/usr/bin/env bash
# Runs every test of the workspace: unit tests of each crate and the end-to-end tests in
# tests/, which start the kpg binary (target/debug/kpg) and a real PostgreSQL on free ports.
# Installs missing system packages and Rust first (see scripts/setup-env.sh).
#
#   ./scripts/test.sh                    # everything
#   ./scripts/test.sh -p kpg-tests       # extra arguments go to `cargo test`
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

source scripts/setup-env.sh

# Log level of the kpg processes the end-to-end tests start (their stderr is kept in a file and
# printed when a test fails).
export RUST_LOG="${RUST_LOG:-info}"
export RUST_BACKTRACE="${RUST_BACKTRACE:-1}"

# The end-to-end tests run the binaries (kpg; kpg-tpch for tests/tpch_loader.rs), so build them
# first; tests never build them themselves.
cargo build --bin kpg --bin kpg-tpch
cargo test --workspace "$@"
