package dev.isthmus.bench.nexmark;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The witness fails a run that did not take its leg's path, whatever else it did right. */
class WitnessTest {
    private static final String NATIVE_PLAN = "\"contents\" : \"Source: IsthmusIcebergSource"
            + " default_catalog.default_database.bid_src\" ... IsthmusIcebergWriter ... IsthmusIcebergCommitter";
    private static final String STOCK_PLAN = "\"contents\" : \"Source: bid_src[1]\" ... IcebergStreamWriter";
    private static final NativeCounters NATIVE_COUNTS = new NativeCounters(4, 0, 1000, 0);
    private static final NativeCounters NO_COUNTS = new NativeCounters(0, 0, 0, 0);

    private static OutputCheck.Files files(String dataWriter, String deleteWriter) {
        return new OutputCheck.Files(
                Map.of(dataWriter, 4),
                deleteWriter == null ? Map.of() : Map.of(deleteWriter, 4),
                4,
                1000,
                deleteWriter == null ? 0 : 4);
    }

    private static String check(
            Leg leg, NexmarkQuery query, String plan, NativeCounters counters, OutputCheck.Files files) {
        QueryRun.Result run = new QueryRun.Result(null, 0, 1, plan, counters, JobTimeline.UNKNOWN);
        return String.join("; ", Witness.check(leg, query, run, files));
    }

    @Test
    void runsThatTookTheirPathPass() {
        assertThat(check(Leg.NATIVE, NexmarkQuery.Q0, NATIVE_PLAN, NATIVE_COUNTS, files("isthmus", null)))
                .isEmpty();
        assertThat(check(Leg.NATIVE, NexmarkQuery.Q18, NATIVE_PLAN, NATIVE_COUNTS, files("isthmus", "parquet-mr")))
                .isEmpty();
        assertThat(check(Leg.STOCK, NexmarkQuery.Q0, STOCK_PLAN, NO_COUNTS, files("parquet-mr", null)))
                .isEmpty();
    }

    @Test
    void aNativeRunFailsOnAnyFallbackOrForeignFile() {
        assertThat(check(
                        Leg.NATIVE,
                        NexmarkQuery.Q0,
                        NATIVE_PLAN,
                        new NativeCounters(3, 1, 1000, 0),
                        files("isthmus", null)))
                .contains("1 source tasks fell back");
        assertThat(check(
                        Leg.NATIVE,
                        NexmarkQuery.Q0,
                        NATIVE_PLAN,
                        new NativeCounters(4, 0, 1000, 2),
                        files("isthmus", null)))
                .contains("2 writers fell back");
        assertThat(check(Leg.NATIVE, NexmarkQuery.Q0, NATIVE_PLAN, NO_COUNTS, files("isthmus", null)))
                .contains("no native read task");
        assertThat(check(Leg.NATIVE, NexmarkQuery.Q0, NATIVE_PLAN, NATIVE_COUNTS, files("parquet-mr", null)))
                .contains("data files by {parquet-mr=4}");
        assertThat(check(Leg.NATIVE, NexmarkQuery.Q18, NATIVE_PLAN, NATIVE_COUNTS, files("isthmus", "isthmus")))
                .contains("delete files by {isthmus=4}");
    }

    @Test
    void aNativeRunFailsWhenThePlanReadsAnInputOrWritesWithoutIsthmus() {
        assertThat(check(Leg.NATIVE, NexmarkQuery.Q20, NATIVE_PLAN, NATIVE_COUNTS, files("isthmus", null)))
                .contains("the plan reads auction without IsthmusIcebergSource");
        assertThat(check(
                        Leg.NATIVE,
                        NexmarkQuery.Q0,
                        NATIVE_PLAN.replace("IsthmusIcebergWriter", "IcebergStreamWriter"),
                        NATIVE_COUNTS,
                        files("isthmus", null)))
                .contains("no IsthmusIcebergWriter");
    }

    @Test
    void aStockRunFailsOnAnyTraceOfIsthmus() {
        assertThat(check(Leg.STOCK, NexmarkQuery.Q0, STOCK_PLAN, NATIVE_COUNTS, files("parquet-mr", null)))
                .contains("native read tasks");
        assertThat(check(Leg.STOCK, NexmarkQuery.Q0, NATIVE_PLAN, NO_COUNTS, files("parquet-mr", null)))
                .contains("the plan has Isthmus operators");
        assertThat(check(Leg.STOCK, NexmarkQuery.Q0, STOCK_PLAN, NO_COUNTS, files("isthmus", null)))
                .contains("data files by {isthmus=4}");
    }

    @Test
    void aRunWithoutOutputFails() {
        OutputCheck.Files none = new OutputCheck.Files(Map.of(), Map.of(), 0, 0, 0);
        assertThat(check(Leg.NATIVE, NexmarkQuery.Q0, NATIVE_PLAN, NATIVE_COUNTS, none))
                .contains("no data file");
        assertThat(check(Leg.STOCK, NexmarkQuery.Q0, STOCK_PLAN, NO_COUNTS, none))
                .contains("no data file");
    }
}
