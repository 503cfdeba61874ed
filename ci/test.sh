#!/usr/bin/env bash
# The test command: the style gates (ci/check-style.sh), the C API's one caller layer
# (ci/check-c-api-callers.sh), the Rust core's layering (ci/check-rust-layers.sh), every check
# and test of every module
# (cargo test, JUnit, the contract checks, the no-JNI check, the Nexmark report's test and its
# check of docs/nexmark.md against the raw runs, the consumer projects), then the cluster test
# (ci/cluster-test.sh) on the jars that build made. Usage: ci/test.sh [extra Maven arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
source ci/env.sh
bash ci/check-no-jni.sh
bash ci/check-style.sh
bash ci/check-c-api-callers.sh
bash ci/check-rust-layers.sh
bash ci/nexmark-report-test.sh
python3 ci/nexmark-report.py --check --markdown docs/nexmark.md
mvn -B -ntp verify "$@"
ISTHMUS_SKIP_BUILD=1 exec bash ci/cluster-test.sh
