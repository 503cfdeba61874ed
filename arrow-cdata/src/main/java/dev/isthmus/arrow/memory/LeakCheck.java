package dev.isthmus.arrow.memory;

import dev.isthmus.ffm.NativeArrowStats;

/**
 * The check every test that touches Arrow memory ends with: nothing Java allocated is still
 * live, no Java-owned array is unreleased, and the native library holds no array and no buffer
 * memory either (scan pools included).
 */
public final class LeakCheck {
    private LeakCheck() {}

    /**
     * @throws AssertionError describing every leak found
     */
    public static void assertNoLeaks() {
        StringBuilder leaks = new StringBuilder();
        MemoryTracker root = MemoryTracker.root();
        if (root.liveBytes() != 0 || root.liveArrays() != 0) {
            leaks.append(root);
            for (MemoryTracker child : root.children()) {
                if (child.liveBytes() != 0 || child.liveArrays() != 0) {
                    leaks.append("\n  ").append(child);
                }
            }
        }
        NativeArrowStats stats = NativeArrowStats.read();
        if (stats.exportedLive() != 0 || stats.importedLive() != 0 || stats.allocatedBytes() != 0) {
            leaks.append(leaks.isEmpty() ? "" : "\n")
                    .append("native library still holds ")
                    .append(stats);
        }
        if (!leaks.isEmpty()) {
            throw new AssertionError("Arrow memory leaked:\n" + leaks);
        }
    }
}
