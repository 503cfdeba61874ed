package dev.isthmus.ffm;

/** Loads the library in a JVM a test starts with chosen flags, and prints what happened. */
public final class NativeAccessProbe {
    private NativeAccessProbe() {}

    public static void main(String[] args) {
        try {
            NativeLibrary.require();
            System.out.println("loaded " + NativeLibrary.version());
        } catch (NativeLibraryException e) {
            Throwable root = e;
            while (root.getCause() != null) {
                root = root.getCause();
            }
            System.out.println("NativeLibraryException: " + e.getMessage() + " (root cause "
                    + root.getClass().getSimpleName() + ")");
        }
    }
}
