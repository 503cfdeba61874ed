#!/usr/bin/env bash
# The main job: builds everything (tests skipped) and runs dev.isthmus.bench.MainJob.
# Usage: ci/main-job.sh [--rows N] [--parallelism N] [--warehouse DIR] [--seed N] [--no-object-reuse]
#        [--row-format columnar|binary] [--rounds N]
# ISTHMUS_SKIP_BUILD=1 reuses the last build.
set -euo pipefail
cd "$(dirname "$0")/.."
source ci/env.sh
isthmus_build_benchmarks
# shellcheck disable=SC2086
exec java $ISTHMUS_JVM_FLAGS -cp jmh/target/benchmarks.jar dev.isthmus.bench.MainJob "$@"
