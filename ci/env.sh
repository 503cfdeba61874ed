# Sourced by the ci/ scripts: selects a JDK 25 for Maven and the JVMs it starts.
# Honours a JAVA_HOME that already is a JDK 25; otherwise looks in /usr/lib/jvm.

isthmus_java_major() {
    "$1/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = //p'
}

if [ -z "${JAVA_HOME:-}" ] || [ ! -x "$JAVA_HOME/bin/java" ] || [ "$(isthmus_java_major "$JAVA_HOME")" != "25" ]; then
    for candidate in /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/*25*; do
        if [ -x "$candidate/bin/java" ] && [ "$(isthmus_java_major "$candidate")" = "25" ]; then
            export JAVA_HOME="$candidate"
            break
        fi
    done
fi
if [ -z "${JAVA_HOME:-}" ] || [ "$(isthmus_java_major "$JAVA_HOME")" != "25" ]; then
    echo "Isthmus needs a JDK 25: set JAVA_HOME to one (expected at /usr/lib/jvm/temurin-25-jdk-amd64)." >&2
    exit 1
fi
export PATH="$JAVA_HOME/bin:$PATH"
# Maven's own Guava uses sun.misc.Unsafe, which JDK 25 warns about on every run.
export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"

# The libzstd the native library compresses with, once ci/fetch-zstd.sh has fetched it
# (rust-core/core/build.rs); the version is what its Rust test expects the build to link.
ISTHMUS_ZSTD_CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/isthmus/libzstd-1.5.7"
if [ -z "${ISTHMUS_ZSTD_COMPRESSOR:-}" ] && [ -f "$ISTHMUS_ZSTD_CACHE/libzstd.a" ]; then
    export ISTHMUS_ZSTD_COMPRESSOR="$ISTHMUS_ZSTD_CACHE/libzstd.a"
    export ISTHMUS_ZSTD_COMPRESSOR_VERSION=10507
fi

# The flags every JVM running Isthmus needs (see README.md).
ISTHMUS_JVM_FLAGS="--enable-native-access=ALL-UNNAMED --add-opens=java.base/java.nio=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow"

# Builds jmh/target/benchmarks.jar (tests skipped) unless ISTHMUS_SKIP_BUILD=1, showing Maven's
# output only when the build fails.
isthmus_build_benchmarks() {
    if [ "${ISTHMUS_SKIP_BUILD:-0}" = "1" ]; then
        return
    fi
    echo "building (tests skipped) ..."
    local log
    log=$(mktemp)
    if ! mvn -B -ntp -Pbench -DskipTests package >"$log" 2>&1; then
        cat "$log"
        rm -f "$log"
        exit 1
    fi
    rm -f "$log"
}
