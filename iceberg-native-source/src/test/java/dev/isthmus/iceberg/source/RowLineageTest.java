package dev.isthmus.iceberg.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import org.apache.flink.table.data.columnar.vector.LongColumnVector;
import org.junit.jupiter.api.Test;

/** The lineage columns keep a value the file holds and fill in the rest, as Iceberg's readers do. */
class RowLineageTest {
    /** A decoded column of a file rewritten with lineage: every third row has no value. */
    private static final LongColumnVector DECODED = new LongColumnVector() {
        @Override
        public boolean isNullAt(int i) {
            return i % 3 == 0;
        }

        @Override
        public long getLong(int i) {
            return 1_000 + i;
        }
    };

    @Test
    void rowIdsAreTheFilesValueElseTheFirstRowIdPlusThePosition() {
        LongColumnVector ids = RowLineage.rowId(500).over(DECODED, 40);
        for (int i = 0; i < 7; i++) {
            assertFalse(ids.isNullAt(i));
            assertEquals(i % 3 == 0 ? 500 + 40 + i : 1_000 + i, ids.getLong(i), "row " + i);
        }
    }

    @Test
    void lastUpdatedIsTheFilesValueElseItsSequenceNumber() {
        LongColumnVector sequence = RowLineage.lastUpdated(9).over(DECODED, 40);
        for (int i = 0; i < 7; i++) {
            assertFalse(sequence.isNullAt(i));
            assertEquals(i % 3 == 0 ? 9 : 1_000 + i, sequence.getLong(i), "row " + i);
        }
    }
}
