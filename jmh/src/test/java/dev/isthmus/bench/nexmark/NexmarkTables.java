package dev.isthmus.bench.nexmark;

import java.time.ZoneOffset;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

/**
 * A streaming table environment with {@code person}, {@code auction} and {@code bid} as the harness
 * declares them (the upstream view columns, {@code dateTime} a rowtime attribute), fed by bounded
 * {@code datagen} tables whose ids fall in a small range, so that the joins match.
 */
final class NexmarkTables {
    static final int ROWS = 50;

    private NexmarkTables() {}

    /** A streaming, UTC environment of parallelism 1 without tables. */
    static StreamTableEnvironment empty() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env, EnvironmentSettings.inStreamingMode());
        tEnv.getConfig().setLocalTimeZone(ZoneOffset.UTC);
        return tEnv;
    }

    static StreamTableEnvironment environment() {
        StreamTableEnvironment tEnv = empty();
        tEnv.executeSql("CREATE TEMPORARY TABLE person (id BIGINT, name STRING, emailAddress STRING, creditCard STRING,"
                + " city STRING, state STRING, `dateTime` TIMESTAMP(3), extra STRING, " + WATERMARK + ") WITH ("
                + datagen("id") + ")");
        tEnv.executeSql(
                "CREATE TEMPORARY TABLE auction (id BIGINT, itemName STRING, description STRING, initialBid BIGINT,"
                        + " reserve BIGINT, `dateTime` TIMESTAMP(3), expires TIMESTAMP(3), seller BIGINT, category BIGINT,"
                        + " extra STRING, " + WATERMARK + ") WITH (" + datagen("id", "seller", "category") + ")");
        tEnv.executeSql("CREATE TEMPORARY TABLE bid (auction BIGINT, bidder BIGINT, price BIGINT, channel STRING,"
                + " url STRING, `dateTime` TIMESTAMP(3), extra STRING, " + WATERMARK + ") WITH ("
                + datagen("auction", "bidder") + ", 'fields.price.min' = '0', 'fields.price.max' = '20000000')");
        return tEnv;
    }

    /** The sink of {@code script}, created as the harness would, but as a blackhole. */
    static void createBlackholeSink(StreamTableEnvironment tEnv, String table, QueryScript script) {
        tEnv.executeSql(
                "CREATE TEMPORARY TABLE " + table + " (" + script.sinkSchema() + ") WITH ('connector' = 'blackhole')");
    }

    private static final String WATERMARK = "WATERMARK FOR `dateTime` AS `dateTime` - INTERVAL '4' SECOND";

    private static String datagen(String... smallIds) {
        StringBuilder options = new StringBuilder(
                "'connector' = 'datagen', 'number-of-rows' = '" + ROWS + "'," + " 'fields.dateTime.max-past' = '10 s'");
        for (String id : smallIds) {
            options.append(", 'fields.")
                    .append(id)
                    .append(".min' = '0', 'fields.")
                    .append(id)
                    .append(".max' = '20'");
        }
        return options.toString();
    }
}
