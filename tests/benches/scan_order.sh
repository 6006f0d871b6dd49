#!/usr/bin/env bash
# The cost of rows' positions (a table's stored rows end with one; an ad hoc read of one table
# orders by it; UPDATE/DELETE through an index look the rows up again to learn theirs): loads
# 1M rows, then times plain scans, a filtered scan, point reads and point updates through the
# primary key, and a view over the table, and prints the server's peak RSS. Run it for two
# release binaries, interleaved, to compare them:
#   tests/benches/scan_order.sh target/release/kpg 7001
# It writes its input to /tmp/bench/scan.csv on first use.
set -e
BIN=$1; PORT=$2
mkdir -p /tmp/bench
if [ ! -f /tmp/bench/scan.csv ]; then
  python3 -c "
for i in range(1000000):
    x = (i * 7919) % 100003
    print(f'{i},{i % 1000},name-{i * 31 % 1000003},{x // 100}.{x % 100:02d}')" > /tmp/bench/scan.csv
fi
python3 -c "
for i in range(200):
    print(f'SELECT * FROM big WHERE id = {i * 4999};')" > /tmp/bench/points.sql
python3 -c "
for i in range(200):
    print(f'UPDATE big SET g = g + 1 WHERE id = {i * 4999};')" > /tmp/bench/updates.sql
rm -rf /tmp/bench/data-$PORT
$BIN --listen 127.0.0.1:$PORT --data-dir /tmp/bench/data-$PORT > /tmp/bench/log-$PORT 2>&1 &
PID=$!
sleep 3
P="psql -h 127.0.0.1 -p $PORT -d kpg -X -q -A -t"
t() {
  local s=$(date +%s.%N)
  eval "$2" > /dev/null
  local e=$(date +%s.%N)
  printf "%-12s %6.2f s\n" "$1" $(echo "$e - $s" | bc)
}
$P -c "CREATE TABLE big (id int PRIMARY KEY, g int, s text, x numeric(12,2))"
t copy_in "$P -c \"\\copy big FROM '/tmp/bench/scan.csv' WITH (FORMAT csv)\""
$P -c "SELECT count(*) FROM big" > /dev/null
t scan_all "$P -c 'COPY (SELECT * FROM big) TO STDOUT'"
t scan_cols "$P -c 'COPY (SELECT id, x FROM big WHERE x > 10) TO STDOUT'"
t filter_agg "$P -c 'SELECT count(*), sum(x) FROM big WHERE g < 500'"
t points "$P -f /tmp/bench/points.sql"
t updates "$P -f /tmp/bench/updates.sql"
t view "$P -c 'CREATE MATERIALIZED VIEW v AS SELECT g, count(*), sum(x) FROM big GROUP BY g' -c 'SELECT count(*) FROM v'"
grep -h VmHWM /proc/$PID/status
kill $PID; wait $PID 2>/dev/null || true
