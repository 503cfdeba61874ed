package dev.isthmus.iceberg.source;

/**
 * A task's delete files hold more than the reader may keep for one data file; the task falls
 * back to Iceberg's reader, or fails in strict mode.
 */
final class DeleteLimitException extends RuntimeException {
    private final String refusal;

    /**
     * @param refusal why the task is not read natively, naming the option to raise
     * @param message the detail: the data or delete file and the limit
     */
    DeleteLimitException(String refusal, String message) {
        super(message);
        this.refusal = refusal;
    }

    String refusal() {
        return refusal;
    }
}
