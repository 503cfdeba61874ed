package dev.isthmus.ffm;

import dev.isthmus.ffm.gen.isthmus_arrow_stats;
import dev.isthmus.ffm.gen.isthmus_h;
import java.lang.foreign.MemorySegment;

/**
 * The native library's own count of the Arrow arrays it holds ({@code isthmus_arrow_stats}), and
 * the bytes of Arrow buffers it has allocated (live exports and scan pools).
 */
public record NativeArrowStats(
        long exportedLive,
        long exportedTotal,
        long exportedBytesLive,
        long importedLive,
        long importedTotal,
        long allocatedBytes) {

    public static NativeArrowStats read() {
        try (NativeCall call = NativeCall.open()) {
            MemorySegment stats = isthmus_arrow_stats.allocate(call.arena());
            call.check(isthmus_h.isthmus_arrow_stats_get(stats, call.error()));
            return new NativeArrowStats(
                    isthmus_arrow_stats.exported_live(stats),
                    isthmus_arrow_stats.exported_total(stats),
                    isthmus_arrow_stats.exported_bytes_live(stats),
                    isthmus_arrow_stats.imported_live(stats),
                    isthmus_arrow_stats.imported_total(stats),
                    isthmus_arrow_stats.allocated_bytes(stats));
        }
    }
}
