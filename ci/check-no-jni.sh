#!/usr/bin/env bash
# Isthmus crosses into native code only through Java's FFM API. Fails if any project source
# declares a native method, loads a library the JNI way, or uses JNI's C API. Competitor
# libraries measured in jmh/ may use JNI internally; our own sources never do.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
report() {
    echo "JNI found: $1" >&2
    echo "$2" >&2
    status=1
}
java_sources=$(git ls-files --cached --others --exclude-standard -- '*.java')
c_sources=$(git ls-files --cached --others --exclude-standard -- '*.c' '*.h' '*.cc' '*.cpp' '*.rs')
if [ -n "$java_sources" ]; then
    hits=$(echo "$java_sources" | xargs grep -nHE '^\s*([a-z]+\s+)*native\s+[A-Za-z_<][^;=]*\(' || true)
    [ -z "$hits" ] || report "native methods" "$hits"
    hits=$(echo "$java_sources" | xargs grep -nHE 'System\s*\.\s*(loadLibrary|load)\s*\(|Runtime\.getRuntime\(\)\s*\.\s*(loadLibrary|load)\s*\(' || true)
    [ -z "$hits" ] || report "System.load/loadLibrary" "$hits"
fi
if [ -n "$c_sources" ]; then
    hits=$(echo "$c_sources" | xargs grep -nHE 'jni\.h|JNIEnv|JNIEXPORT|Java_[A-Za-z0-9_]+\s*\(' || true)
    [ -z "$hits" ] || report "JNI C API" "$hits"
fi
if [ "$status" -eq 0 ]; then
    echo "check-no-jni: OK ($(echo "$java_sources" | grep -c . || true) Java and $(echo "$c_sources" | grep -c . || true) native sources, no JNI)"
fi
exit "$status"
