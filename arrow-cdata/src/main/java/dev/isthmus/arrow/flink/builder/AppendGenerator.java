package dev.isthmus.arrow.flink.builder;

import static java.lang.constant.ConstantDescs.CD_Object;
import static java.lang.constant.ConstantDescs.CD_boolean;
import static java.lang.constant.ConstantDescs.CD_int;
import static java.lang.constant.ConstantDescs.CD_void;

import dev.isthmus.arrow.builder.ListBuilder;
import dev.isthmus.arrow.builder.MapBuilder;
import dev.isthmus.arrow.builder.StructBuilder;
import java.lang.classfile.Attributes;
import java.lang.classfile.ClassBuilder;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassHierarchyResolver;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.Label;
import java.lang.classfile.TypeKind;
import java.lang.classfile.attribute.CodeAttribute;
import java.lang.constant.ClassDesc;
import java.lang.constant.MethodTypeDesc;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.AccessFlag;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntConsumer;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RowData;

/**
 * Generates, per tree of {@link FieldWriter}s, one method that appends a whole row: the writers of
 * plain values called through their own final classes, and the structs, lists and maps around
 * them unrolled into the method (a struct's fields in line, a list's or map's entries in a loop),
 * so the JIT compiles a row's appends as one unit, every call site seeing one class. Code written
 * by hand for one row type builds the nested benchmark's batches 1.27-1.30x faster than the
 * field writers' calls through their interface do ({@code NestedBenchmark.encodeRowsToArrowByHand},
 * {@code docs/benchmarks.md}); this is that code, written for any row type.
 *
 * <p>The generated method does what the writers' own {@code write} methods do, in the same order,
 * and throws what they throw. Classes are hidden classes in this package, kept per shape
 * (the writers' classes and the structs' arities) for the life of this class's loader, so every
 * appender of a shape shares one class, compiled once. Shapes past {@link #MAX_SHAPES}, shapes
 * whose method would be longer than {@link #MAX_CODE_BYTES} (HotSpot's {@code HugeMethodLimit}:
 * the JIT never compiles a longer method, so it would stay interpreted) and shapes whose class
 * could not be defined get none: the appender calls its writers one by one.
 */
final class AppendGenerator {
    /** Appends one row; made by {@link #forWriters}. */
    interface RowAppend {
        void append(RowData row);
    }

    static final int MAX_CODE_BYTES = 8000;
    static final int MAX_SHAPES = 256;

    private static final ConcurrentHashMap<List<Object>, Definition> DEFINITIONS = new ConcurrentHashMap<>();
    private static final System.Logger LOG = System.getLogger(AppendGenerator.class.getName());

    private static final ClassDesc SELF = ClassDesc.of(AppendGenerator.class.getPackageName() + ".GeneratedRowAppend");
    private static final ClassDesc APPEND = desc(RowAppend.class);
    private static final ClassDesc ROW = desc(RowData.class);
    private static final ClassDesc ARRAY = desc(ArrayData.class);
    private static final ClassDesc MAP = desc(MapData.class);
    private static final ClassDesc STRUCT = desc(StructBuilder.class);
    private static final ClassDesc LIST = desc(ListBuilder.class);
    private static final ClassDesc MAP_BUILDER = desc(MapBuilder.class);
    private static final MethodTypeDesc NO_ARGS = MethodTypeDesc.of(CD_void);
    private static final MethodTypeDesc IS_NULL = MethodTypeDesc.of(CD_boolean, CD_int);
    private static final MethodTypeDesc GET_ROW = MethodTypeDesc.of(ROW, CD_int, CD_int);
    private static final MethodTypeDesc GET_ARRAY = MethodTypeDesc.of(ARRAY, CD_int);
    private static final MethodTypeDesc GET_MAP = MethodTypeDesc.of(MAP, CD_int);
    private static final MethodTypeDesc SIZE = MethodTypeDesc.of(CD_int);
    private static final MethodTypeDesc ENTRIES = MethodTypeDesc.of(ARRAY);
    private static final MethodTypeDesc WRITE_ROW = MethodTypeDesc.of(CD_void, ROW, CD_int);
    private static final MethodTypeDesc WRITE_ARRAY = MethodTypeDesc.of(CD_void, ARRAY, CD_int);

    private AppendGenerator() {}

    /**
     * The append of a row whose fields the top-level {@code writers} write in order, or {@code
     * null} when there is none to have (see the class comment).
     */
    static RowAppend forWriters(FieldWriter[] writers) {
        List<Object> nodes = new ArrayList<>();
        List<ClassDesc> types = new ArrayList<>();
        List<Object> shape = new ArrayList<>();
        for (FieldWriter writer : writers) {
            collect(writer, nodes, types, shape);
        }
        Definition definition = DEFINITIONS.get(shape);
        if (definition == null) {
            if (DEFINITIONS.size() >= MAX_SHAPES) {
                return null;
            }
            definition = DEFINITIONS.computeIfAbsent(List.copyOf(shape), s -> define(writers, types));
        }
        return definition.instance(nodes.toArray());
    }

    /**
     * What the generated code holds of a writer, in the order it reads them: a plain value's writer,
     * or the builder of a struct, list or map followed by what its children hold; {@code types}
     * gets the type of the field that holds each. The shape names each writer's class, and each
     * struct's arity.
     */
    private static void collect(FieldWriter writer, List<Object> nodes, List<ClassDesc> types, List<Object> shape) {
        shape.add(writer.getClass());
        switch (writer) {
            case FieldWriters.RowWriter row -> {
                nodes.add(row.out());
                types.add(STRUCT);
                shape.add(row.fields().length);
                for (FieldWriter field : row.fields()) {
                    collect(field, nodes, types, shape);
                }
            }
            case FieldWriters.ArrayWriter array -> {
                nodes.add(array.out());
                types.add(LIST);
                collect(array.element(), nodes, types, shape);
            }
            case FieldWriters.MapWriter map -> {
                nodes.add(map.out());
                types.add(MAP_BUILDER);
                collect(map.key(), nodes, types, shape);
                collect(map.value(), nodes, types, shape);
            }
            default -> {
                nodes.add(writer);
                types.add(desc(writer.getClass()));
            }
        }
    }

    /** A generated class's constructor, which takes the nodes; null for a shape that has none. */
    private record Definition(MethodHandle constructor) {
        RowAppend instance(Object[] nodes) {
            if (constructor == null) {
                return null;
            }
            try {
                return (RowAppend) constructor.invoke(nodes);
            } catch (Throwable e) {
                throw new IllegalStateException("could not make the generated row append", e);
            }
        }
    }

    /**
     * The class for the shape of {@code writers}, or a definition without one. Generating is only
     * a speed-up: a shape whose class cannot be built or defined is logged and appended field by
     * field.
     */
    private static Definition define(FieldWriter[] writers, List<ClassDesc> types) {
        MethodHandles.Lookup lookup = MethodHandles.lookup();
        try {
            // Stack maps are computed from the classes as this class's loader sees them (a Flink
            // job's user-code loader, say), not the system loader the default would ask.
            ClassFile classFile = ClassFile.of(
                    ClassFile.ClassHierarchyResolverOption.of(ClassHierarchyResolver.ofClassLoading(lookup)));
            byte[] bytes = classFile.build(SELF, type -> new Emitter(type, writers, types).emit());
            int length = classFile.parse(bytes).methods().stream()
                    .filter(method -> method.methodName().equalsString("append"))
                    .flatMap(method -> method.findAttribute(Attributes.code()).stream())
                    .mapToInt(CodeAttribute::codeLength)
                    .sum();
            if (length > MAX_CODE_BYTES) {
                return new Definition(null);
            }
            MethodHandles.Lookup hidden = lookup.defineHiddenClass(bytes, true);
            return new Definition(
                    hidden.findConstructor(hidden.lookupClass(), MethodType.methodType(void.class, Object[].class)));
        } catch (ReflectiveOperationException | IllegalArgumentException | LinkageError e) {
            // The class file's own limits (a method past 64 KiB) and what defining it may meet;
            // anything else is a fault of this class, and surfaces.
            LOG.log(
                    System.Logger.Level.WARNING,
                    "no generated row append for a row of " + writers.length + " fields; appending them one by one",
                    e);
            return new Definition(null);
        }
    }

    private static ClassDesc desc(Class<?> type) {
        return type.describeConstable().orElseThrow();
    }

    /** Writes the class: a final field per node, the constructor that fills them, and the append. */
    private static final class Emitter {
        private final ClassBuilder type;
        private final FieldWriter[] writers;
        /** Each node's field type, by index. */
        private final List<ClassDesc> fields;
        /** The next node the method's code takes. */
        private int next;

        Emitter(ClassBuilder type, FieldWriter[] writers, List<ClassDesc> fields) {
            this.type = type;
            this.writers = writers;
            this.fields = fields;
        }

        void emit() {
            type.withFlags(AccessFlag.FINAL, AccessFlag.SYNTHETIC).withInterfaceSymbols(APPEND);
            type.withMethodBody(
                    "append", MethodTypeDesc.of(CD_void, ROW), ClassFile.ACC_PUBLIC | ClassFile.ACC_FINAL, code -> {
                        // The API may run this twice (again with long jumps, should short ones
                        // not reach).
                        next = 0;
                        for (int i = 0; i < writers.length; i++) {
                            value(code, writers[i], 1, true, i, -1);
                        }
                        code.return_();
                    });
            for (int i = 0; i < fields.size(); i++) {
                type.withField(field(i), fields.get(i), ClassFile.ACC_PRIVATE | ClassFile.ACC_FINAL);
            }
            type.withMethodBody(
                    "<init>", MethodTypeDesc.of(CD_void, CD_Object.arrayType()), ClassFile.ACC_PUBLIC, code -> {
                        code.aload(0).invokespecial(CD_Object, "<init>", NO_ARGS);
                        for (int i = 0; i < fields.size(); i++) {
                            code.aload(0)
                                    .aload(1)
                                    .loadConstant(i)
                                    .aaload()
                                    .checkcast(fields.get(i))
                                    .putfield(SELF, field(i), fields.get(i));
                        }
                        code.return_();
                    });
        }

        private static String field(int index) {
            return "n" + index;
        }

        /** Takes the next node's field, which holds a {@code fieldType}, and returns its index. */
        private int node(ClassDesc fieldType) {
            if (!fields.get(next).equals(fieldType)) {
                throw new IllegalStateException("node " + next + " is a " + fields.get(next) + ", not a " + fieldType);
            }
            return next++;
        }

        private void loadNode(CodeBuilder code, int node) {
            code.aload(0).getfield(SELF, field(node), fields.get(node));
        }

        /**
         * Appends the value at {@code index} of the row or array in local {@code owner}: the
         * constant {@code index}, or the int in local {@code indexLocal} when that is not -1.
         */
        private void value(
                CodeBuilder code, FieldWriter writer, int owner, boolean ownerIsRow, int index, int indexLocal) {
            ClassDesc ownerType = ownerIsRow ? ROW : ARRAY;
            Runnable position = () -> {
                code.aload(owner);
                if (indexLocal < 0) {
                    code.loadConstant(index);
                } else {
                    code.iload(indexLocal);
                }
            };
            switch (writer) {
                case FieldWriters.RowWriter row ->
                    nested(code, position, ownerType, STRUCT, "append", () -> {
                        int nested = code.allocateLocal(TypeKind.REFERENCE);
                        position.run();
                        code.loadConstant(row.fields().length)
                                .invokeinterface(ownerType, "getRow", GET_ROW)
                                .astore(nested);
                        for (int i = 0; i < row.fields().length; i++) {
                            value(code, row.fields()[i], nested, true, i, -1);
                        }
                    });
                case FieldWriters.ArrayWriter array ->
                    nested(code, position, ownerType, LIST, "endList", () -> {
                        int elements = code.allocateLocal(TypeKind.REFERENCE);
                        position.run();
                        code.invokeinterface(ownerType, "getArray", GET_ARRAY).astore(elements);
                        loop(code, elements, ARRAY, i -> value(code, array.element(), elements, false, 0, i));
                    });
                case FieldWriters.MapWriter map ->
                    nested(code, position, ownerType, MAP_BUILDER, "endMap", () -> {
                        int entries = code.allocateLocal(TypeKind.REFERENCE);
                        int keys = code.allocateLocal(TypeKind.REFERENCE);
                        int values = code.allocateLocal(TypeKind.REFERENCE);
                        position.run();
                        code.invokeinterface(ownerType, "getMap", GET_MAP).astore(entries);
                        code.aload(entries)
                                .invokeinterface(MAP, "keyArray", ENTRIES)
                                .astore(keys);
                        code.aload(entries)
                                .invokeinterface(MAP, "valueArray", ENTRIES)
                                .astore(values);
                        loop(code, entries, MAP, i -> {
                            value(code, map.key(), keys, false, 0, i);
                            value(code, map.value(), values, false, 0, i);
                        });
                    });
                default -> {
                    ClassDesc writerType = desc(writer.getClass());
                    int node = node(writerType);
                    loadNode(code, node);
                    position.run();
                    code.invokevirtual(writerType, "write", ownerIsRow ? WRITE_ROW : WRITE_ARRAY);
                }
            }
        }

        /**
         * A struct, list or map: a null goes to its builder's {@code appendNull()}; a present value
         * has {@code body} append its children, then the builder's {@code end} closes it.
         */
        private void nested(
                CodeBuilder code,
                Runnable position,
                ClassDesc ownerType,
                ClassDesc builder,
                String end,
                Runnable body) {
            int out = node(builder);
            Label present = code.newLabel();
            Label done = code.newLabel();
            position.run();
            code.invokeinterface(ownerType, "isNullAt", IS_NULL).ifeq(present);
            loadNode(code, out);
            code.invokevirtual(builder, "appendNull", NO_ARGS).goto_(done);
            code.labelBinding(present);
            body.run();
            loadNode(code, out);
            code.invokevirtual(builder, end, NO_ARGS);
            code.labelBinding(done);
        }

        /** {@code for (int i = 0; i < sized.size(); i++) body(i)}, the size read once. */
        private void loop(CodeBuilder code, int sized, ClassDesc sizedType, IntConsumer body) {
            int size = code.allocateLocal(TypeKind.INT);
            int i = code.allocateLocal(TypeKind.INT);
            Label test = code.newLabel();
            Label end = code.newLabel();
            code.aload(sized).invokeinterface(sizedType, "size", SIZE).istore(size);
            code.iconst_0().istore(i);
            code.labelBinding(test);
            code.iload(i).iload(size).if_icmpge(end);
            body.accept(i);
            code.iinc(i, 1).goto_(test);
            code.labelBinding(end);
        }
    }
}
