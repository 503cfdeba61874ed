package dev.isthmus.arrow.flink.vector;

import static java.lang.constant.ConstantDescs.CD_Object;
import static java.lang.constant.ConstantDescs.CD_boolean;
import static java.lang.constant.ConstantDescs.CD_byte;
import static java.lang.constant.ConstantDescs.CD_int;
import static java.lang.constant.ConstantDescs.CD_long;
import static java.lang.constant.ConstantDescs.CD_void;

import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassHierarchyResolver;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.Label;
import java.lang.classfile.TypeKind;
import java.lang.constant.ClassDesc;
import java.lang.constant.MethodTypeDesc;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.AccessFlag;
import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Generates, per row shape, a {@link RowWriter}: one loop over the rows that writes each field
 * with the {@link BinaryRowLayout} call its code names, its slot offset and null bit as constants. A
 * loop written for the row type is what makes row-at-a-time writing cheaper than the transposer's
 * column-at-a-time passes (which a general row loop, dispatching on each field's kind per row,
 * is not); Flink's own code generation makes the same trade for its projections.
 *
 * <p>Classes are hidden classes in this package, kept per shape for the life of this class's
 * loader, so every reader of a shape shares one class, compiled once by the JIT. Shapes past
 * {@link #MAX_SHAPES}, and rows wider than {@link #MAX_FIELDS} (whose loop would pass the JIT's
 * limit on the methods it compiles), get no writer: the transposer's passes write them.
 */
final class RowWriterGenerator {
    /** A field written from its slot value. */
    static final int SLOT = 1;
    /** A string field: offsets and bytes. */
    static final int STRING = 2;
    /** Timestamps wider than millis, from raw values in milli-, micro- or nanoseconds. */
    static final int TIMESTAMP_MILLIS = 3;

    static final int TIMESTAMP_MICROS = 4;
    static final int TIMESTAMP_NANOS = 5;
    /** Added to a field's code when its rows may be null. */
    static final int NULLABLE = 8;

    static final int MAX_FIELDS = 128;
    static final int MAX_SHAPES = 256;

    private static final ConcurrentHashMap<Shape, RowWriter> WRITERS = new ConcurrentHashMap<>();

    private static final ClassDesc SELF =
            ClassDesc.of(RowWriterGenerator.class.getPackageName() + ".GeneratedRowWriter");
    private static final ClassDesc WRITER = RowWriter.class.describeConstable().orElseThrow();
    private static final ClassDesc COLUMNS =
            HeapColumns.class.describeConstable().orElseThrow();
    private static final ClassDesc FIELDS =
            BinaryRowLayout.class.describeConstable().orElseThrow();
    private static final ClassDesc BYTES = CD_byte.arrayType();
    private static final ClassDesc INTS = CD_int.arrayType();
    private static final MethodTypeDesc WRITE = MethodTypeDesc.of(CD_int, COLUMNS, CD_int, BYTES, INTS);
    private static final MethodTypeDesc WORD = MethodTypeDesc.of(CD_void, BYTES, CD_int, CD_long);
    private static final MethodTypeDesc SET_NULL = MethodTypeDesc.of(CD_void, BYTES, CD_int, CD_int, CD_int, CD_int);
    private static final MethodTypeDesc STRING_FIELD =
            MethodTypeDesc.of(CD_int, BYTES, CD_int, CD_int, CD_int, BYTES, INTS, CD_int, CD_int);
    private static final MethodTypeDesc TIMESTAMP_FIELD =
            MethodTypeDesc.of(CD_int, BYTES, CD_int, CD_int, CD_int, CD_long, CD_long, CD_long);

    private RowWriterGenerator() {}

    /** A row's field codes: what the generated loop writes for each field. */
    private record Shape(int[] codes) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Shape s && Arrays.equals(codes, s.codes);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(codes);
        }
    }

    /**
     * The writer for rows whose fields have {@code codes} (one per field, as this class's
     * constants), or {@code null} when there is none to have (see the class comment).
     */
    static RowWriter writer(int[] codes) {
        if (codes.length > MAX_FIELDS) {
            return null;
        }
        Shape shape = new Shape(codes.clone());
        RowWriter writer = WRITERS.get(shape);
        if (writer != null || WRITERS.size() >= MAX_SHAPES) {
            return writer;
        }
        return WRITERS.computeIfAbsent(shape, s -> define(s.codes()));
    }

    private static RowWriter define(int[] codes) {
        MethodHandles.Lookup lookup = MethodHandles.lookup();
        // Stack maps are computed from this package's classes as this class's loader sees them
        // (a Flink job's user-code loader, say), not the system loader the default would ask.
        byte[] bytes = ClassFile.of(
                        ClassFile.ClassHierarchyResolverOption.of(ClassHierarchyResolver.ofClassLoading(lookup)))
                .build(
                        SELF,
                        type -> type.withFlags(AccessFlag.FINAL, AccessFlag.SYNTHETIC)
                                .withInterfaceSymbols(WRITER)
                                .withMethodBody(
                                        "<init>",
                                        MethodTypeDesc.of(CD_void),
                                        ClassFile.ACC_PUBLIC,
                                        code -> code.aload(0)
                                                .invokespecial(CD_Object, "<init>", MethodTypeDesc.of(CD_void))
                                                .return_())
                                .withMethodBody(
                                        "write",
                                        WRITE,
                                        ClassFile.ACC_PUBLIC | ClassFile.ACC_FINAL,
                                        code -> writeLoop(code, codes)));
        try {
            MethodHandles.Lookup hidden = lookup.defineHiddenClass(bytes, true);
            return (RowWriter) hidden.findConstructor(hidden.lookupClass(), MethodType.methodType(void.class))
                    .invoke();
        } catch (Throwable e) {
            throw new IllegalStateException(
                    "could not define the row writer for field codes " + Arrays.toString(codes), e);
        }
    }

    /**
     * {@code int write(HeapColumns columns, int count, byte[] rows, int[] starts)}: writes rows
     * {@code 0..count)} back to back from offset 0, their starts and the end in {@code starts},
     * and returns the end.
     */
    private static void writeLoop(CodeBuilder code, int[] codes) {
        int columns = 1;
        int count = 2;
        int rows = 3;
        int starts = 4;
        int arity = codes.length;
        int nullBytes = BinaryRowLayout.nullBytes(arity);
        int fixedSize = BinaryRowLayout.fixedSize(arity);

        // Each field's arrays in locals, so that the loop reads no field of the columns object.
        int[] values = new int[arity];
        int[] nulls = new int[arity];
        int[] offsets = new int[arity];
        int[] spans = new int[arity];
        int[] bases = new int[arity];
        for (int c = 0; c < arity; c++) {
            int kind = codes[c] & ~NULLABLE;
            if ((codes[c] & NULLABLE) != 0) {
                nulls[c] = loadArray(code, columns, "nulls", CD_boolean.arrayType(), c);
            }
            if (kind == STRING) {
                offsets[c] = loadArray(code, columns, "offsets", INTS, c);
                spans[c] = loadArray(code, columns, "spans", BYTES, c);
                bases[c] = code.allocateLocal(TypeKind.INT);
                code.aload(columns)
                        .getfield(COLUMNS, "bases", INTS)
                        .loadConstant(c)
                        .iaload()
                        .istore(bases[c]);
            } else {
                values[c] = loadArray(code, columns, "values", CD_long.arrayType(), c);
            }
        }

        int k = code.allocateLocal(TypeKind.INT);
        int cursor = code.allocateLocal(TypeKind.INT);
        int at = code.allocateLocal(TypeKind.INT);
        int var = code.allocateLocal(TypeKind.INT);
        Label loop = code.newLabel();
        Label end = code.newLabel();
        code.iconst_0().istore(k).iconst_0().istore(cursor);
        code.labelBinding(loop);
        code.iload(k).iload(count).if_icmpge(end);
        code.iload(cursor).istore(at);
        code.aload(starts).iload(k).iload(at).iastore();
        for (int word = 0; word < nullBytes; word += 8) {
            code.aload(rows).iload(at).loadConstant(word).iadd().lconst_0().invokestatic(FIELDS, "word", WORD);
        }
        code.iload(at).loadConstant(fixedSize).iadd().istore(var);

        for (int c = 0; c < arity; c++) {
            int slot = BinaryRowLayout.slot(nullBytes, c);
            Label next = code.newLabel();
            if ((codes[c] & NULLABLE) != 0) {
                Label present = code.newLabel();
                code.aload(nulls[c]).iload(k).baload().ifeq(present);
                code.aload(rows)
                        .iload(at)
                        .loadConstant(slot)
                        .loadConstant(BinaryRowLayout.nullByte(c))
                        .loadConstant(BinaryRowLayout.nullMask(c))
                        .invokestatic(FIELDS, "setNull", SET_NULL);
                code.goto_(next);
                code.labelBinding(present);
            }
            switch (codes[c] & ~NULLABLE) {
                case SLOT ->
                    code.aload(rows)
                            .iload(at)
                            .loadConstant(slot)
                            .iadd()
                            .aload(values[c])
                            .iload(k)
                            .laload()
                            .invokestatic(FIELDS, "word", WORD);
                case STRING ->
                    code.aload(rows)
                            .iload(at)
                            .loadConstant(slot)
                            .iload(var)
                            .aload(spans[c])
                            .aload(offsets[c])
                            .iload(k)
                            .iload(bases[c])
                            .invokestatic(FIELDS, "string", STRING_FIELD)
                            .istore(var);
                case TIMESTAMP_MILLIS, TIMESTAMP_MICROS, TIMESTAMP_NANOS -> {
                    long perMilli = switch (codes[c] & ~NULLABLE) {
                        case TIMESTAMP_MILLIS -> 1L;
                        case TIMESTAMP_MICROS -> 1_000L;
                        default -> 1_000_000L;
                    };
                    code.aload(rows)
                            .iload(at)
                            .loadConstant(slot)
                            .iload(var)
                            .aload(values[c])
                            .iload(k)
                            .laload()
                            .loadConstant(perMilli)
                            .loadConstant(1_000_000L / perMilli)
                            .invokestatic(FIELDS, "timestamp", TIMESTAMP_FIELD)
                            .istore(var);
                }
                default -> throw new IllegalArgumentException("field " + c + " has no writer code: " + codes[c]);
            }
            code.labelBinding(next);
        }
        code.iload(var).istore(cursor);
        code.iinc(k, 1).goto_(loop);
        code.labelBinding(end);
        code.aload(starts).iload(count).iload(cursor).iastore();
        code.iload(cursor).ireturn();
    }

    private static int loadArray(CodeBuilder code, int columns, String field, ClassDesc type, int index) {
        int local = code.allocateLocal(TypeKind.REFERENCE);
        code.aload(columns)
                .getfield(COLUMNS, field, type.arrayType())
                .loadConstant(index)
                .aaload()
                .astore(local);
        return local;
    }
}
