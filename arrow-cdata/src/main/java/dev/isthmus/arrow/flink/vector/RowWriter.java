package dev.isthmus.arrow.flink.vector;

/**
 * Writes binary rows from a {@link HeapColumns}: a loop generated for one row shape by
 * {@link RowWriterGenerator} (a hidden class of this package, so this interface need not be public).
 */
interface RowWriter {
    /**
     * Writes rows {@code 0..count)} back to back into {@code rows} from offset 0, which must have
     * room for them; each row's start, and the end after the last, go to {@code starts}.
     *
     * @return the end of the last row
     */
    int write(HeapColumns columns, int count, byte[] rows, int[] starts);
}
