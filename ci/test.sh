#!/usr/bin/env bash
# The test command: every check and test of every module (cargo test, JUnit, the contract
# checks, the no-JNI check). Usage: ci/test.sh [extra Maven arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
source ci/env.sh
bash ci/check-no-jni.sh
exec mvn -B -ntp verify "$@"
