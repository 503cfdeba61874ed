#!/usr/bin/env bash
# The cluster test: Isthmus on a real Flink session cluster, set up as README.md tells a user.
# A JobManager and a TaskManager (1 TM, 2 slots) run as separate JDK 25 processes, started as
# Flink's scripts start them, with a lib/ assembled from Maven Central (ci/cluster/pom.xml; no
# flink-dist is served) and Flink's default env.java.opts.all with --enable-native-access appended.
# Two setups, each on its own cluster:
#   cluster-lib: lib/ holds the isthmus-flink-runtime bundle and iceberg-flink-runtime-2.1; the
#                job jar holds only its main.
#   job-jar:     lib/ holds neither; the shaded job jar holds Isthmus and Iceberg.
# In each, ci/cluster/batch.sql writes 10,000 rows through a strict isthmus-iceberg catalog and
# reads them back, then upserts a tenth of them into a table with a primary key (aggregates
# checked against numbers computed here); the DataStream job example.DataStreamCopy copies the
# table with the native source and sink; the data files must say Isthmus wrote them; and
# ci/cluster/stream.sql reads the table natively in a job that keeps running while the script
# reads its native metrics from the REST API, then cancels it.
# The job jars are the consumer projects of iceberg-native-sink/runtime/src/it, built by the
# Maven invoker at verify.
# Usage: ci/cluster-test.sh            builds (tests skipped, consumer projects run) first
#        ISTHMUS_SKIP_BUILD=1 ci/cluster-test.sh   reuses the last `mvn verify`
set -euo pipefail
cd "$(dirname "$0")/.."
source ci/env.sh
root=$PWD

if [ "${ISTHMUS_SKIP_BUILD:-0}" != "1" ]; then
    echo "cluster-test: building (unit tests skipped, consumer projects run) ..."
    log=$(mktemp)
    if ! mvn -B -ntp -DskipTests -DskipITs=false verify >"$log" 2>&1; then
        cat "$log"
        exit 1
    fi
    rm -f "$log"
fi

runtime=$root/iceberg-native-sink/runtime/target
bundle=$(ls "$runtime"/isthmus-flink-runtime-*.jar 2>/dev/null | grep -v /original- | head -n 1 || true)
thin_jar=$runtime/it/cluster-lib/target/isthmus-cluster-lib-1.jar
fat_jar=$runtime/it/job-jar/target/isthmus-job-jar-1.jar
for jar in "$bundle" "$thin_jar" "$fat_jar"; do
    if [ ! -f "$jar" ]; then
        echo "cluster-test: missing ${jar:-the isthmus-flink-runtime bundle}; run 'mvn verify' first" >&2
        exit 1
    fi
done
# The consumer projects run after the bundle is packaged: a job jar older than the bundle is
# left from an earlier build (one that skipped them, as -DskipTests does) and would test old code.
for jar in "$thin_jar" "$fat_jar"; do
    if [ "$jar" -ot "$bundle" ]; then
        echo "cluster-test: $jar is older than $bundle; run 'mvn verify' without -DskipTests first" >&2
        exit 1
    fi
done

echo "cluster-test: assembling the cluster's lib/ from Maven Central (ci/cluster/pom.xml) ..."
mvn -B -ntp -q -f ci/cluster/pom.xml package
jars=$root/ci/cluster/target
work=$jars/run
rm -rf "$work"
mkdir -p "$work"
warehouses=$(mktemp -d)

# Flink's default env.java.opts.all (flink-dist's conf/config.yaml), kept as it ships.
flink_java_opts="--add-exports=java.base/sun.net.util=ALL-UNNAMED --add-exports=java.rmi/sun.rmi.registry=ALL-UNNAMED --add-exports=jdk.compiler/com.sun.tools.javac.api=ALL-UNNAMED --add-exports=jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED --add-exports=jdk.compiler/com.sun.tools.javac.parser=ALL-UNNAMED --add-exports=jdk.compiler/com.sun.tools.javac.tree=ALL-UNNAMED --add-exports=jdk.compiler/com.sun.tools.javac.util=ALL-UNNAMED --add-exports=java.security.jgss/sun.security.krb5=ALL-UNNAMED --add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.net=ALL-UNNAMED --add-opens=java.base/java.io=ALL-UNNAMED --add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/java.lang.reflect=ALL-UNNAMED --add-opens=java.base/java.text=ALL-UNNAMED --add-opens=java.base/java.time=ALL-UNNAMED --add-opens=java.base/java.util=ALL-UNNAMED --add-opens=java.base/java.util.concurrent=ALL-UNNAMED --add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED --add-opens=java.base/java.util.concurrent.locks=ALL-UNNAMED"
# What README.md says to append to it.
isthmus_java_opts="--enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow"

# The numbers batch.sql's aggregate must give, computed here from the same definition of the rows.
expected=$(seq 0 9999 | awk '{ n++; id += $1; qty += ($1 * 7) % 100;
    if ($1 % 10 != 0) { labels++; seen["k" ($1 % 13)] = 1 } }
    END { distinct = 0; for (k in seen) distinct++; printf "+I[%d, %d, %d, %d, %d]", n, id, qty, labels, distinct }')
# The upsert raises qty by 1000 for the ids below 1000.
expected_upsert=$(seq 0 9999 | awk '{ n++; qty += ($1 * 7) % 100 + ($1 < 1000 ? 1000 : 0) }
    END { printf "+I[%d, %d]", n, qty }')
expected_copy="copied 10000 $(seq 0 9999 | awk '{ id += $1 } END { print id }')"
expected_rows=10000

cluster_dir=""
pids=()

print_logs() {
    [ -n "$cluster_dir" ] || return 0
    for file in "$cluster_dir"/log/*; do
        [ -f "$file" ] || continue
        echo "----- $file (last 200 lines)"
        tail -n 200 "$file"
    done
}

stop_cluster() {
    local pid
    for pid in "${pids[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    for pid in "${pids[@]}"; do
        for _ in $(seq 1 60); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.5
        done
        kill -9 "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    pids=()
}

finish() {
    local status=$?
    if [ "$status" -ne 0 ]; then
        echo "cluster-test: FAILED" >&2
        print_logs >&2
    fi
    stop_cluster
    rm -rf "$warehouses"
    exit "$status"
}
trap finish EXIT

fail() {
    echo "cluster-test: $*" >&2
    exit 1
}

# A port nothing listens on (the test may run beside other clusters on the same machine), other
# than the one given. It is taken below the kernel's ephemeral range: a port there can be held by
# any outgoing connection (the first cluster's, closing), which no listen check sees and which
# makes the bind fail.
free_port() {
    local port low
    read -r low _ </proc/sys/net/ipv4/ip_local_port_range
    while :; do
        port=$((10000 + RANDOM % (low - 10000)))
        if [ "$port" != "${1:-}" ] && ! (exec 3<>"/dev/tcp/localhost/$port") 2>/dev/null; then
            echo "$port"
            return
        fi
    done
}

rest() {
    curl -sf --max-time 10 "http://localhost:$rest_port$1"
}

# make_cluster NAME JAR...: a cluster directory with lib/ (the Flink jars and the given ones),
# conf/config.yaml and conf/log4j.properties.
make_cluster() {
    cluster_dir=$work/$1
    shift
    mkdir -p "$cluster_dir"/{lib,conf,log,tmp}
    # Hard links where the file system allows them: the same jars, without copying ~200 MB.
    cp -l "$jars"/lib/*.jar "$@" "$cluster_dir/lib/" 2>/dev/null || cp "$jars"/lib/*.jar "$@" "$cluster_dir/lib/"
    rest_port=$(free_port)
    rpc_port=$(free_port "$rest_port")
    cat >"$cluster_dir/conf/config.yaml" <<EOF
env.java.opts.all: $flink_java_opts $isthmus_java_opts
jobmanager.bind-host: localhost
jobmanager.rpc.address: localhost
jobmanager.rpc.port: $rpc_port
jobmanager.memory.process.size: 1024m
taskmanager.bind-host: localhost
taskmanager.host: localhost
taskmanager.numberOfTaskSlots: 2
taskmanager.memory.process.size: 1536m
taskmanager.memory.managed.fraction: 0.2
parallelism.default: 2
rest.address: localhost
rest.bind-address: localhost
rest.port: $rest_port
io.tmp.dirs: $cluster_dir/tmp
web.tmpdir: $cluster_dir/tmp
# A failing job fails the test at once instead of restarting.
restart-strategy.type: none
# The REST API's metrics are at most this old (milliseconds; 10 s by default).
metrics.fetcher.update-interval: 1000
EOF
    cat >"$cluster_dir/conf/log4j.properties" <<'EOF'
rootLogger.level = INFO
rootLogger.appenderRef.file.ref = MainAppender
appender.main.name = MainAppender
appender.main.type = File
appender.main.fileName = ${sys:log.file}
appender.main.layout.type = PatternLayout
appender.main.layout.pattern = %d{yyyy-MM-dd HH:mm:ss,SSS} %-5p %-60c %x - %m%n
EOF
}

# The JVM options every Flink process gets from the configuration, as Flink's scripts read them.
java_opts_all() {
    sed -n 's/^env\.java\.opts\.all: //p' "$cluster_dir/conf/config.yaml"
}

# bash_java_utils COMMAND: Flink's memory calculation; line 1 the JVM options, line 2 the dynamic
# properties.
bash_java_utils() {
    local log=$cluster_dir/log/bash-java-utils-$1.out
    java -classpath "$cluster_dir/lib/*" org.apache.flink.runtime.util.bash.BashJavaUtils "$1" \
        --configDir "$cluster_dir/conf" >"$log" 2>&1 || true
    sed -n 's/^BASH_JAVA_UTILS_EXEC_RESULT://p' "$log"
}

# start_process NAME CLASS RESOURCE_COMMAND
start_process() {
    local name=$1 class=$2 params jvm dynamic
    params=$(bash_java_utils "$3")
    jvm=$(sed -n 1p <<<"$params")
    dynamic=$(sed -n 2p <<<"$params")
    [ -n "$jvm" ] || fail "BashJavaUtils $3 gave no JVM options (log/bash-java-utils-$3.out)"
    # shellcheck disable=SC2046,SC2086
    java $jvm $(java_opts_all) -Dlog.file="$cluster_dir/log/$name.log" \
        -Dlog4j.configurationFile="file:$cluster_dir/conf/log4j.properties" \
        -classpath "$cluster_dir/lib/*" "$class" --configDir "$cluster_dir/conf" $dynamic \
        >"$cluster_dir/log/$name.out" 2>&1 &
    pids+=($!)
}

start_cluster() {
    echo "cluster-test: starting $(basename "$cluster_dir") (REST on localhost:$rest_port) ..."
    start_process jobmanager org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint GET_JM_RESOURCE_PARAMS
    start_process taskmanager org.apache.flink.runtime.taskexecutor.TaskManagerRunner GET_TM_RESOURCE_PARAMS
    local overview=""
    for _ in $(seq 1 120); do
        overview=$(rest /overview || true)
        if grep -q '"taskmanagers":1,' <<<"$overview" && grep -q '"slots-total":2,' <<<"$overview"; then
            return
        fi
        for pid in "${pids[@]}"; do
            kill -0 "$pid" 2>/dev/null || fail "a cluster process exited while starting"
        done
        sleep 1
    done
    fail "the cluster did not show 1 TaskManager with 2 slots within 120 s: ${overview:-no answer}"
}

# flink_run LOG ARG...: flink run ARG..., as Flink's bin/flink runs it. The client's heap is
# JVM_ARGS's, as in bin/flink. A job that stalls fails the test after 10 minutes instead of
# holding CI.
flink_run() {
    local log=$1
    shift
    # shellcheck disable=SC2046
    if ! FLINK_CONF_DIR=$cluster_dir/conf FLINK_LIB_DIR=$cluster_dir/lib \
        timeout 600 java -Xmx512m $(java_opts_all) -Dlog.file="$cluster_dir/log/$log.log" \
            -Dlog4j.configurationFile="file:$cluster_dir/conf/log4j.properties" \
            -classpath "$cluster_dir/lib/*" org.apache.flink.client.cli.CliFrontend \
            run "$@" >"$cluster_dir/log/$log.out" 2>&1; then
        fail "flink run $* failed (log/$log.out)"
    fi
}

# submit LOG JAR MODE SCRIPT [FLINK RUN OPTION...]: a SQL script through example.SqlScript.
submit() {
    local log=$1 jar=$2 mode=$3 script=$4
    shift 4
    flink_run "$log" "$@" -c example.SqlScript "$jar" "$mode" "$script" "warehouse=$warehouse"
}

metric_sum() {
    local value
    value=$(curl -sf --max-time 10 -G "http://localhost:$rest_port/jobs/$1/vertices/$2/subtasks/metrics" \
        --data-urlencode "get=$3" --data-urlencode "agg=sum" | grep -o '"sum":[0-9.E+-]*' | cut -d: -f2 || true)
    if [ -n "$value" ]; then
        printf '%.0f\n' "$value"
    fi
}

# run_checks NAME JAR: the batch job, the files, the streaming job and its metrics.
run_checks() {
    local name=$1 jar=$2 result files isthmus_files job vertex metrics prefix rows=0 tasks fallback state
    warehouse=$warehouses/$name
    mkdir -p "$warehouse"

    submit "$name-batch" "$jar" batch "$root/ci/cluster/batch.sql"
    result=$(sed -n 's/^row //p' "$cluster_dir/log/$name-batch.out" | sed -n 1p)
    [ "$result" = "$expected" ] || fail "$name: the aggregate read back is '$result', expected '$expected'"
    echo "cluster-test: $name: wrote and read back $result (COUNT, SUM(id), SUM(qty), COUNT(label), COUNT(DISTINCT label))"
    result=$(sed -n 's/^row //p' "$cluster_dir/log/$name-batch.out" | sed -n 2p)
    [ "$result" = "$expected_upsert" ] || fail "$name: after the upserts the table holds '$result', expected '$expected_upsert'"
    echo "cluster-test: $name: upserted, the table holds $result (COUNT, SUM(qty))"

    flink_run "$name-datastream" -c example.DataStreamCopy "$jar" "file://$warehouse" events copied
    result=$(grep '^copied ' "$cluster_dir/log/$name-datastream.out" || true)
    [ "$result" = "$expected_copy" ] || fail "$name: the DataStream copy printed '$result', expected '$expected_copy'"
    echo "cluster-test: $name: the DataStream job $result (rows, SUM(id))"

    # The footer's created_by names the writer: Isthmus's library, not parquet-java ("parquet-mr").
    # The tables without delete files (Iceberg writes those of the upserted table with parquet-java).
    local tables="$warehouse/db/events $warehouse/db/copied"
    # shellcheck disable=SC2086
    files=$(find $tables -name '*.parquet' | wc -l)
    # shellcheck disable=SC2086
    isthmus_files=$({ find $tables -name '*.parquet' -exec grep -laF 'isthmus version' {} + || true; } | wc -l)
    [ "$files" -gt 0 ] || fail "$name: no Parquet data file in $tables"
    [ "$isthmus_files" -eq "$files" ] || fail "$name: $isthmus_files of $files data files were written by Isthmus"
    # shellcheck disable=SC2086
    if { find $tables -name '*.parquet' -exec grep -laF 'parquet-mr' {} + || true; } | grep -q .; then
        fail "$name: a data file was written by parquet-java"
    fi
    echo "cluster-test: $name: $files data files, each written by Isthmus"

    submit "$name-stream" "$jar" streaming "$root/ci/cluster/stream.sql" -d
    job=$(sed -n 's/^job //p' "$cluster_dir/log/$name-stream.out" | tail -n 1)
    [ -n "$job" ] || fail "$name: the streaming job's id is not in the client's output"
    vertex=""
    for _ in $(seq 1 120); do
        for candidate in $(rest "/jobs/$job" | grep -o '"id":"[0-9a-f]\{32\}"' | cut -d'"' -f4 | sort -u); do
            metrics=$(rest "/jobs/$job/vertices/$candidate/subtasks/metrics" || true)
            prefix=$(grep -o '"id":"[^"]*\.isthmus\.rows"' <<<"$metrics" | head -n 1 | cut -d'"' -f4 || true)
            if [ -n "$prefix" ]; then
                vertex=$candidate
                prefix=${prefix%.rows}
                break
            fi
        done
        if [ -n "$vertex" ]; then
            rows=$(metric_sum "$job" "$vertex" "$prefix.rows")
            [ "${rows:-0}" -ge "$expected_rows" ] && break
        fi
        state=$(rest "/jobs/$job" | grep -o '"state":"[A-Z]*"' | head -n 1 || true)
        case "$state" in *FAILED*|*CANCELED*|*FINISHED*) fail "$name: the streaming read ended: $state" ;; esac
        sleep 1
    done
    [ -n "$vertex" ] || fail "$name: no vertex of job $job has the source's isthmus metrics"
    rest "/jobs/$job/vertices/$vertex" | grep -q '"name":"Source: IsthmusIcebergSource ' \
        || fail "$name: the native scan's vertex is not named IsthmusIcebergSource"
    tasks=$(metric_sum "$job" "$vertex" "$prefix.nativeTasks")
    fallback=$(metric_sum "$job" "$vertex" "$prefix.fallbackTasks")
    curl -sf --max-time 10 -X PATCH "http://localhost:$rest_port/jobs/$job?mode=cancel" >/dev/null || true
    [ "${rows:-0}" -eq "$expected_rows" ] || fail "$name: the native source counted ${rows:-no} rows, expected $expected_rows"
    [ "${tasks:-0}" -gt 0 ] || fail "$name: the native source counted ${tasks:-no} native tasks"
    [ "${fallback:-1}" -eq 0 ] || fail "$name: the native source fell back to Iceberg's reader for ${fallback:-?} tasks"
    echo "cluster-test: $name: the streaming read's metrics ($prefix): rows=$rows nativeTasks=$tasks fallbackTasks=$fallback"
    # Without native access JDK 25 warns on standard error at a JVM's first restricted call
    # (Isthmus's, or Hadoop's loading its own library): no warning, so the appended flag reached
    # the JobManager, the TaskManager and the client.
    if grep -lF 'WARNING: A restricted method' "$cluster_dir"/log/*.out; then
        fail "$name: a JVM ran without native access enabled (the files above)"
    fi
    for _ in $(seq 1 60); do
        state=$(rest "/jobs/$job" | grep -o '"state":"[A-Z]*"' | head -n 1 || true)
        [ "$state" = '"state":"CANCELED"' ] && return
        sleep 0.5
    done
    fail "$name: the streaming read was not cancelled: $state"
}

start=$SECONDS
make_cluster cluster-lib "$bundle" "$jars"/iceberg/*.jar
start_cluster
run_checks cluster-lib "$thin_jar"
stop_cluster

make_cluster job-jar
start_cluster
run_checks job-jar "$fat_jar"
stop_cluster
cluster_dir=""

echo "cluster-test: OK, both setups in $((SECONDS - start)) s"
