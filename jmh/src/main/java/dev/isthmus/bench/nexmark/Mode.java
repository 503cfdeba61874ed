package dev.isthmus.bench.nexmark;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A cell's runtime settings besides the query: the state backend, and whether Flink's mini-batch
 * (2 s or 50,000 rows, whichever comes first) buffers input for the aggregates and joins.
 */
record Mode(String stateBackend, boolean miniBatch) {
    static final Mode DEFAULT = new Mode("heap", false);

    Mode {
        if (!stateBackend.equals("heap") && !stateBackend.equals("rocksdb")) {
            throw new IllegalArgumentException("state backend must be heap or rocksdb, not '" + stateBackend + "'");
        }
    }

    /** {@code heap/off}, {@code rocksdb/on}, ...; the CSV and the report use this form. */
    @Override
    public String toString() {
        return stateBackend + "/" + (miniBatch ? "on" : "off");
    }

    static Mode parse(String text) {
        String[] parts = text.trim().toLowerCase(Locale.ROOT).split("/");
        if (parts.length != 2 || !(parts[1].equals("on") || parts[1].equals("off"))) {
            throw new IllegalArgumentException("a mode is <heap|rocksdb>/<on|off> (mini-batch), not '" + text + "'");
        }
        return new Mode(parts[0], parts[1].equals("on"));
    }

    /** A comma-separated list of modes, or {@code all} for the four. */
    static List<Mode> parseList(String text) {
        if (text.trim().equalsIgnoreCase("all")) {
            return List.of(DEFAULT, new Mode("heap", true), new Mode("rocksdb", false), new Mode("rocksdb", true));
        }
        List<Mode> modes = new ArrayList<>();
        for (String part : text.split(",")) {
            modes.add(parse(part));
        }
        return modes;
    }

    /** Flink's name for the backend. */
    String flinkStateBackend() {
        return stateBackend.equals("heap") ? "hashmap" : "rocksdb";
    }
}
