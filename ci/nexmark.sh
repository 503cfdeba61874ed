#!/usr/bin/env bash
# The Nexmark benchmark on Iceberg tables, stock against native: builds the benchmarks jar (tests
# skipped), writes the input tables once per seed and size, runs the cells, then renders the
# report section and chart from the raw observations.
# Usage: ci/nexmark.sh [--events N] [--queries all|q0,q5,...] [--modes heap/off|all|heap/off,rocksdb/on]
#        [--parallelism N] [--pairs N] [--warehouse DIR] [--results CSV] [--seed N]
# Cells already in the results CSV are skipped: rerun the same command to resume.
# ISTHMUS_SKIP_BUILD=1 reuses the last build.
set -euo pipefail
cd "$(dirname "$0")/.."
source ci/env.sh
isthmus_build_benchmarks
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# The heap is committed and touched up front: grown as the joins' state grows, its fresh pages
# made run times of q23 spread by 1.7x within a leg (docs/nexmark.md, Results).
# shellcheck disable=SC2086
java $ISTHMUS_JVM_FLAGS -Xmx12g -Xms12g -XX:+AlwaysPreTouch -cp jmh/target/benchmarks.jar dev.isthmus.bench.nexmark.Nexmark "$@" 2>&1 | tee "$log"

# The report: its section, chart and numbers as JSON, all recomputed from the CSV. Results under
# docs/benchmarks/ are published into docs/nexmark.md (ci/nexmark-report.py --check --markdown
# docs/nexmark.md checks them); others get their report beside the CSV.
results=$(sed -n 's/^nexmark: results //p' "$log" | tail -n 1)
dir=$(dirname "$results")
name=$(basename "$results" .csv)
markdown="$dir/$name.md"
if [[ "$(cd -- "$dir" >/dev/null && pwd -P)" == "$(pwd -P)/docs/benchmarks" ]]; then
    markdown=docs/nexmark.md
fi
python3 ci/nexmark-report.py "$results" --markdown "$markdown" --section "$name" \
    --svg "$dir/$name.svg" --json "$dir/$name.json"
echo "nexmark: report in $markdown (section $name), chart $dir/$name.svg"
