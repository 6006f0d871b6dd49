#!/usr/bin/env bash
# Sets up what is missing (system packages, Rust), builds kpg in release mode and starts it on
# 127.0.0.1:6875 with 2 timely worker threads. Then, in another terminal:
#
#   psql -h 127.0.0.1 -p 6875 -U kpg kpg
#
# Environment: KPG_LISTEN (default 127.0.0.1:6875), KPG_WORKERS (default 2),
# KPG_DATA_DIR (default ./kpg-data). Stop the server with Ctrl-C.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

source scripts/setup-env.sh

cargo build --release --bin kpg
bin="${CARGO_TARGET_DIR:-target}/release/kpg"

listen="${KPG_LISTEN:-127.0.0.1:6875}"
# --demo starts the streaming TPC-H demo: the built-in TPC-H load generator, its primary-key
# indexes and a few views over it (README, "A psql walkthrough").
args=(--listen "$listen" --workers "${KPG_WORKERS:-2}" --data-dir "${KPG_DATA_DIR:-./kpg-data}" --demo)

echo "starting kpg on $listen; connect with: psql -h ${listen%:*} -p ${listen##*:} -U kpg kpg" >&2
export RUST_LOG="${RUST_LOG:-info}"
exec "$bin" "${args[@]}"
