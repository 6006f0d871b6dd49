#!/usr/bin/env bash
# The cost of SQL-equal classes (render/classes.rs): installs views that group, deduplicate,
# subtract and join 1M rows, timing each CREATE plus the first read of the view, and prints the
# server's peak RSS. Run it for two release binaries, interleaved, to compare them:
#   python3 -c '...' > /tmp/bench/big.csv   (the generator is below)
#   tests/benches/classes.sh target/release/kpg 7001
# big.csv: for i in 0..1M: i, i % 1000, x with two decimals, the same x with its trailing zero
# dropped (x = i * 7919 % 100003 hundredths):
#   python3 -c "import sys
#   for i in range(1000000):
#     x = (i * 7919) % 100003; print(f'{i},{i%1000},{x//100}.{x%100:02d},{x//100}.{x%100}')" \
#     > /tmp/bench/big.csv
BIN=$1; PORT=$2
rm -rf /tmp/bench/data-$PORT
$BIN --listen 127.0.0.1:$PORT --data-dir /tmp/bench/data-$PORT > /tmp/bench/log-$PORT 2>&1 &
PID=$!
sleep 3
P="psql -h 127.0.0.1 -p $PORT -d kpg -X -q -A -t"
$P -c "CREATE TABLE big (id int, g int, x numeric(12,2), y numeric)"
$P -c "\copy big FROM '/tmp/bench/big.csv' WITH (FORMAT csv)"
$P -c "SELECT count(*) FROM big" > /dev/null
t() { local s=$(date +%s.%N); $P -c "$1" > /dev/null; $P -c "$2" >/dev/null; local e=$(date +%s.%N); printf "%-12s %6.2f s\n" "$3" $(echo "$e - $s" | bc); }
t "CREATE MATERIALIZED VIEW d AS SELECT DISTINCT g, x FROM big" "SELECT count(*) FROM d" distinct
t "CREATE MATERIALIZED VIEW gx AS SELECT x, count(*), sum(id) FROM big GROUP BY x" "SELECT count(*) FROM gx" group_num
t "CREATE MATERIALIZED VIEW gy AS SELECT y, count(*), sum(id) FROM big GROUP BY y" "SELECT count(*) FROM gy" group_unscaled
t "CREATE MATERIALIZED VIEW gg AS SELECT g, count(*), sum(x) FROM big GROUP BY g" "SELECT count(*) FROM gg" group_int
t "CREATE MATERIALIZED VIEW mm AS SELECT x, min(id) FROM big GROUP BY x" "SELECT count(*) FROM mm" min_num
t "CREATE MATERIALIZED VIEW ex AS SELECT x FROM big EXCEPT SELECT x FROM big WHERE g < 500" "SELECT count(*) FROM ex" except
t "CREATE MATERIALIZED VIEW jn AS SELECT a.id FROM big a JOIN big b ON a.id = b.id" "SELECT count(*) FROM jn" join_int
grep -h VmHWM /proc/$PID/status
kill $PID; wait $PID 2>/dev/null
