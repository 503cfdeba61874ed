#!/usr/bin/env bash
# Runs JMH benchmarks and keeps the raw JSON under docs/benchmarks/.
# Usage: ci/bench.sh NAME [JMH arguments, e.g. a benchmark regex]
#   ci/bench.sh codecs 'CodecBenchmark|StockZstdBenchmark'
set -euo pipefail
cd "$(dirname "$0")/.."
source ci/env.sh
name="${1:?usage: ci/bench.sh NAME [JMH arguments]}"
shift
mvn -B -ntp -q -Pbench -DskipTests package
out="docs/benchmarks/$(date -u +%Y-%m-%d)-$name.json"
# shellcheck disable=SC2086
java $ISTHMUS_JVM_FLAGS -jar jmh/target/benchmarks.jar -rf json -rff "$out" "$@"
echo "raw results: $out"
