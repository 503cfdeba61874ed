#!/usr/bin/env bash
# Where a Nexmark query's time goes, per leg: one warm-up and one measured pair of QUERY under
# Java Flight Recorder, then the CPU samples of each measured run summed by Flink task (thread
# names without their subtask suffix) and by what the hottest frames belong to.
# Usage: ci/nexmark-profile.sh QUERY [--events N] [--warehouse DIR]   (the benchmarks jar must exist:
# ci/nexmark.sh builds it). Writes /tmp/isthmus-nexmark-profile/QUERY.{jfr,log,txt}.
set -euo pipefail
cd "$(dirname "$0")/.."
source ci/env.sh
query=$1
shift
out=/tmp/isthmus-nexmark-profile
mkdir -p "$out"
rm -f "$out/$query.csv"
# shellcheck disable=SC2086
java $ISTHMUS_JVM_FLAGS -Xmx12g -Xms12g -XX:+AlwaysPreTouch -XX:StartFlightRecording=filename="$out/$query.jfr",settings=profile \
    -cp jmh/target/benchmarks.jar dev.isthmus.bench.nexmark.Nexmark --queries "$query" --pairs 1 \
    --results "$out/$query.csv" "$@" >"$out/$query.log" 2>&1
jfr print --events jdk.ExecutionSample,jdk.NativeMethodSample --stack-depth 12 "$out/$query.jfr" \
    | python3 ci/nexmark-profile.py "$out/$query.log" | tee "$out/$query.txt"
