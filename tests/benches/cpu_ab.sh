#!/usr/bin/env bash
# CPU cost of a release kpg binary on TPC-H (how the allocator was chosen, issue 17): the
# built-in load generator at SF 0.1 until lineitem has all its rows, then Q1, Q3 and Q9 as
# materialized views until each answers, 1 worker; prints kpg's CPU time (utime + stime) of each
# phase, wall times and RSS at the end. CPU time is less sensitive than wall time to a shared,
# loaded machine. Run it for two binaries, alternating, several times:
#   tests/benches/cpu_ab.sh /tmp/kpg-a; tests/benches/cpu_ab.sh /tmp/kpg-b; ...
set -euo pipefail
BIN=$1; PORT=${2:-16876}; D=$(mktemp -d)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
"$BIN" --listen 127.0.0.1:$PORT --data-dir "$D/data" --workers 1 > "$D/log" 2>&1 &
KP=$!
trap 'kill $KP 2>/dev/null; wait $KP 2>/dev/null; rm -rf "$D"' EXIT
P="psql -h 127.0.0.1 -p $PORT -U kpg -d kpg -Atq"
until $P -c 'select 1' > /dev/null 2>&1; do sleep 0.2; done
cpu() { awk '{print ($14+$15)/100}' /proc/$KP/stat; }
c0=$(cpu); t0=$(date +%s.%N)
$P -c "CREATE SOURCE tpch FROM LOAD GENERATOR TPCH (SCALE FACTOR 0.1, TICK INTERVAL '1h') FOR ALL TABLES"
until [ "$($P -c 'select count(*) from lineitem' 2>/dev/null)" = "600572" ]; do sleep 0.5; done
c1=$(cpu); t1=$(date +%s.%N)
for q in 01 03 09; do
  sql=$(grep -v '^ *--' "$ROOT/tpch/queries/q$q.sql")
  $P -c "CREATE MATERIALIZED VIEW q$q AS $sql"
  $P -c "select count(*) from q$q" > /dev/null
done
c2=$(cpu); t2=$(date +%s.%N)
rss=$(awk '/VmRSS/ {printf "%.0f", $2/1024}' /proc/$KP/status)
echo "$BIN: generator cpu $(echo "$c1-$c0" | bc) s (wall $(echo "$t1-$t0" | bc)) | views cpu $(echo "$c2-$c1" | bc) s (wall $(echo "$t2-$t1" | bc)) | rss $rss MiB"
