#!/usr/bin/env bash
# Runs legs of the JMH benchmarks in turn within each fork (dev.isthmus.bench.PairedShots) and
# keeps the raw rounds under docs/benchmarks/. PAIRED_JVM_FLAGS (heap size and the like) go to
# every fork, not to the parent, which only starts them. ISTHMUS_SKIP_BUILD=1 runs the jar
# already built.
# Usage: ci/paired.sh NAME [--forks N] [--warmup N] [--rounds N] [--against LEG]... CLASS.METHOD...
#   ci/paired.sh nested-encode NestedBenchmark.encodeIcebergFlinkWriter NestedBenchmark.encodeIsthmus
set -euo pipefail
cd "$(dirname "$0")/.."
source ci/env.sh
name="${1:?usage: ci/paired.sh NAME [PairedShots arguments] CLASS.METHOD...}"
shift
isthmus_build_benchmarks
out="docs/benchmarks/$(date -u +%Y-%m-%d)-$name.json"
# shellcheck disable=SC2086
java $ISTHMUS_JVM_FLAGS -cp jmh/target/benchmarks.jar dev.isthmus.bench.PairedShots \
    --out "$out" ${PAIRED_JVM_FLAGS:+--jvm-args "$PAIRED_JVM_FLAGS"} "$@"
