package dev.isthmus.arrow.cdata;

import dev.isthmus.ffm.gen.ArrowArray;
import dev.isthmus.ffm.gen.ArrowSchema;
import java.lang.foreign.MemorySegment;

/** The two struct types an export fills, and where each keeps its release fields. */
enum ExportKind {
    ARRAY {
        @Override
        long sizeof() {
            return ArrowArray.sizeof();
        }

        @Override
        MemorySegment release(MemorySegment struct) {
            return ArrowArray.release(struct);
        }

        @Override
        void release(MemorySegment struct, MemorySegment callback) {
            ArrowArray.release(struct, callback);
        }

        @Override
        MemorySegment privateData(MemorySegment struct) {
            return ArrowArray.private_data(struct);
        }
    },
    SCHEMA {
        @Override
        long sizeof() {
            return ArrowSchema.sizeof();
        }

        @Override
        MemorySegment release(MemorySegment struct) {
            return ArrowSchema.release(struct);
        }

        @Override
        void release(MemorySegment struct, MemorySegment callback) {
            ArrowSchema.release(struct, callback);
        }

        @Override
        MemorySegment privateData(MemorySegment struct) {
            return ArrowSchema.private_data(struct);
        }
    };

    abstract long sizeof();

    abstract MemorySegment release(MemorySegment struct);

    abstract void release(MemorySegment struct, MemorySegment callback);

    abstract MemorySegment privateData(MemorySegment struct);

    /** The struct behind a pointer the native side passed (FFM gives it zero length). */
    @SuppressWarnings("restricted") // the pointer is one of our structs, of this kind's size
    MemorySegment at(MemorySegment pointer) {
        return pointer.reinterpret(sizeof());
    }
}
