package dev.isthmus.bindgen;

import java.util.List;

/**
 * What the parser understood of a header: C types with their x86_64 Linux (LP64, System V)
 * sizes and alignments, and the declarations to bind, in source order.
 */
public final class Model {

    private Model() {}

    public record Header(String fileName, List<Decl> decls) {}

    public sealed interface CType permits Scalar, Pointer, Array, FunctionType, StructRef, Struct {

        default long size() {
            return switch (this) {
                case Scalar s -> s.size;
                case Pointer _ -> 8;
                case Array a -> a.element().size() * a.length();
                case Struct s -> s.size();
                case FunctionType _, StructRef _ -> throw new IllegalStateException("no size: " + this);
            };
        }

        default long align() {
            return switch (this) {
                case Scalar s -> s.size;
                case Pointer _ -> 8;
                case Array a -> a.element().align();
                case Struct s -> s.align();
                case FunctionType _, StructRef _ -> throw new IllegalStateException("no alignment: " + this);
            };
        }
    }

    /** C arithmetic types and void, with the layout constant jextract maps each to. */
    public enum Scalar implements CType {
        VOID(0, null, "void"),
        BOOL(1, "C_BOOL", "boolean"),
        CHAR(1, "C_CHAR", "byte"),
        SHORT(2, "C_SHORT", "short"),
        INT(4, "C_INT", "int"),
        LONG(8, "C_LONG", "long"),
        LONG_LONG(8, "C_LONG_LONG", "long"),
        FLOAT(4, "C_FLOAT", "float"),
        DOUBLE(8, "C_DOUBLE", "double");

        private final long size;
        public final String layout;
        public final String carrier;

        Scalar(long size, String layout, String carrier) {
            this.size = size;
            this.layout = layout;
            this.carrier = carrier;
        }
    }

    public record Pointer(CType target) implements CType {}

    public record Array(CType element, long length) implements CType {}

    public record FunctionType(CType returnType, List<Param> params) implements CType {}

    /** A struct named by its tag where only its address matters (it may still be incomplete). */
    public record StructRef(String tag) implements CType {}

    public record Param(String name, CType type) {}

    public sealed interface Decl permits Constant, Function, Struct, Typedef {
        int line();
    }

    /** An integer {@code #define}; {@code isLong} when C gives it a 64-bit type. */
    public record Constant(String name, long value, boolean isLong, String cText, int line) implements Decl {}

    public record Function(String name, FunctionType type, String cText, int line) implements Decl {}

    public record Field(String name, CType type, long offset, String cText) {}

    /** A complete struct; {@code name} is its tag, or its typedef name when it has no tag. */
    public record Struct(String name, List<Field> fields, long size, long align, String cText, int line)
            implements CType, Decl {

        /** Lays the fields out as a C compiler does: each at its natural alignment, the whole padded to the largest. */
        static Struct layOut(String name, List<Field> unplaced, String cText, int line) {
            long offset = 0;
            long align = 1;
            var fields = new java.util.ArrayList<Field>();
            for (Field f : unplaced) {
                long a = f.type().align();
                offset = alignUp(offset, a);
                fields.add(new Field(f.name(), f.type(), offset, f.cText()));
                offset += f.type().size();
                align = Math.max(align, a);
            }
            return new Struct(name, List.copyOf(fields), alignUp(offset, align), align, cText, line);
        }

        private static long alignUp(long value, long align) {
            return (value + align - 1) / align * align;
        }
    }

    /** A typedef that is not simply a struct's own tag repeated. */
    public record Typedef(String name, CType type, String cText, int line) implements Decl {}
}
