#!/usr/bin/env bash
# The streaming TPC-H demo on a bare machine, one command:
#
#   scripts/demo-tpch.sh [--generator] [--scale-factor F] [--rate ROWS_PER_S] [--debug]
#
# Sets up what is missing (scripts/setup-env.sh; scripts/setup-kafka.sh for the broker's jars),
# builds kpg and kpg-tpch (release; --debug: the dev profile), starts a single-node Kafka
# (KRaft, as the tests start it) and kpg, creates the 8 relations as Kafka CSV sources, their
# seven primary-key indexes and the demo's views (kpg-tpch setup), starts the loader (kpg-tpch
# load: one topic per relation, at --rate rows/s), then prints a live line per view every second
# (kpg-tpch watch) until Ctrl-C, and stops everything it started. Everything lives in a fresh
# temporary directory (logs included), removed at the end (KPG_DEMO_KEEP=1 keeps it).
#
# --generator reads the relations from kpg's built-in TPC-H load generator instead (no Kafka,
# no loader; one order and its line items change every tick of 100 ms).
#
# Environment: KPG_DEMO_PORT (kpg, default 6875), KAFKA_DEMO_PORT (broker, default 9092; the
# controller takes the next port), KPG_WORKERS (default 2).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

generator=false
scale_factor=""
rate=5000
profile=release
while [ $# -gt 0 ]; do
    case "$1" in
        --generator) generator=true ;;
        --scale-factor) scale_factor="$2"; shift ;;
        --rate) rate="$2"; shift ;;
        --debug) profile=debug ;;
        -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
        *) echo "demo-tpch: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done

source scripts/setup-env.sh

# The same build as the Dockerfile's.
if [ "$profile" = release ]; then
    cargo build --release --bin kpg --bin kpg-tpch
else
    cargo build --bin kpg --bin kpg-tpch
fi
bin="${CARGO_TARGET_DIR:-$PWD/target}/$profile"

port="${KPG_DEMO_PORT:-6875}"
kafka_port="${KAFKA_DEMO_PORT:-9092}"
controller_port=$((kafka_port + 1))
broker="127.0.0.1:$kafka_port"
work=$(mktemp -d "${TMPDIR:-/tmp}/kpg-demo-tpch.XXXXXX")
pids=()
# The broker, kpg and the loader run in sessions of their own (setsid), so that Ctrl-C reaches
# only the watcher and this script, which then stops them in order.

stop_all() {
    trap - EXIT INT TERM
    echo "demo-tpch: stopping" >&2
    # In reverse order of starting: the loader, kpg, the broker.
    for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
        kill -TERM "${pids[i]}" 2>/dev/null || true
        for _ in $(seq 100); do
            kill -0 "${pids[i]}" 2>/dev/null || break
            sleep 0.1
        done
        kill -KILL "${pids[i]}" 2>/dev/null || true
        wait "${pids[i]}" 2>/dev/null || true
    done
    if [ "${KPG_DEMO_KEEP:-0}" = 1 ]; then
        echo "demo-tpch: logs and data kept in $work" >&2
    else
        rm -rf "$work"
    fi
}
trap stop_all EXIT
trap 'exit 130' INT TERM

if ! $generator; then
    classpath=$(cat "$(scripts/setup-kafka.sh | tail -n 1)")
    mkdir -p "$work/kafka"
    cat > "$work/kafka/server.properties" <<EOF
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$controller_port
listeners=PLAINTEXT://127.0.0.1:$kafka_port,CONTROLLER://127.0.0.1:$controller_port
advertised.listeners=PLAINTEXT://127.0.0.1:$kafka_port
controller.listener.names=CONTROLLER
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=$work/kafka/logs
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=false
num.partitions=1
EOF
    java_cmd=(java -Xmx1g -XX:+UseSerialGC -cp "$classpath")
    "${java_cmd[@]}" kafka.tools.StorageTool format -t kpgdemoclusterAAAAAAAA \
        -c "$work/kafka/server.properties" > "$work/kafka/format.log" 2>&1
    echo "demo-tpch: starting Kafka on $broker (log $work/kafka/kafka.log)" >&2
    setsid "${java_cmd[@]}" kafka.Kafka "$work/kafka/server.properties" > "$work/kafka/kafka.log" 2>&1 &
    pids+=($!)
    for _ in $(seq 600); do
        (exec 3<>"/dev/tcp/127.0.0.1/$kafka_port") 2>/dev/null && break
        kill -0 "${pids[0]}" 2>/dev/null || { tail -n 30 "$work/kafka/kafka.log" >&2; exit 1; }
        sleep 0.1
    done
fi

echo "demo-tpch: starting kpg on 127.0.0.1:$port (log $work/kpg.log)" >&2
RUST_LOG="${RUST_LOG:-info}" setsid "$bin/kpg" --listen "127.0.0.1:$port" \
    --workers "${KPG_WORKERS:-2}" --data-dir "$work/kpg-data" > "$work/kpg.log" 2>&1 &
pids+=($!)

if $generator; then
    "$bin/kpg-tpch" setup --port "$port" --generator \
        --scale-factor "${scale_factor:-0.1}" --tick 100ms
else
    "$bin/kpg-tpch" setup --port "$port" --broker "$broker"
    setsid "$bin/kpg-tpch" load --broker "$broker" --scale-factor "${scale_factor:-0.1}" \
        --rate "$rate" > >(trap '' INT; exec sed -u 's/^/[loader] /') 2>&1 &
    pids+=($!)
fi

echo "demo-tpch: watching the views (Ctrl-C stops); meanwhile: psql -h 127.0.0.1 -p $port -U kpg kpg" >&2
"$bin/kpg-tpch" watch --port "$port" || true
