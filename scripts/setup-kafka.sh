#!/usr/bin/env bash
# Resolves the Apache Kafka broker (KRaft, one node) that the Kafka tests start: its jars from
# Maven Central (scripts/kafka/pom.xml) into the local Maven repository, and their classpath
# into target/kafka/classpath.txt (kept between runs, resolved again when the pom changes).
# Needs a JDK (17 or later) and Maven; scripts/setup-env.sh installs them on Debian. The tests
# run this script themselves; its last line is the classpath file's absolute path.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

dir="$PWD/target/kafka"
mkdir -p "$dir"
classpath="$dir/classpath.txt"
stamp="$dir/pom.sha256"
sum=$(sha256sum scripts/kafka/pom.xml | cut -d' ' -f1)
if [ ! -s "$classpath" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$sum" ]; then
    echo "setup-kafka: resolving the Kafka broker's jars (scripts/kafka/pom.xml)" >&2
    mvn -q -B -f scripts/kafka/pom.xml dependency:build-classpath \
        -Dmdep.outputFile="$classpath" >&2
    echo "$sum" > "$stamp"
fi
echo "$classpath"
