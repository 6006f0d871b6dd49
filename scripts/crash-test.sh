#!/usr/bin/env bash
# The crash test of issue 18 at full length: kpg is SIGKILLed 20 times (KPG_CRASH_KILLS, default
# here 20; CI runs the test's own default of 5) under a mixed load and checked after each restart
# against PostgreSQL. Pass KPG_CRASH_SEED=<seed> to replay a run's statements.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --bin kpg
KPG_CRASH_KILLS="${KPG_CRASH_KILLS:-20}" cargo test -p kpg-tests --test crash -- --nocapture "$@"
