package dev.isthmus.arrow.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.isthmus.arrow.types.ArrowField;
import dev.isthmus.arrow.types.ArrowFormat;
import dev.isthmus.arrow.types.ArrowType;
import java.util.List;
import java.util.stream.Stream;
import org.apache.flink.table.types.logical.BinaryType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimeType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class TypeMappingTest {

    static Stream<Arguments> primitives() {
        return Stream.of(
                Arguments.of(Types.BooleanType.get(), "b", "BOOLEAN"),
                Arguments.of(Types.IntegerType.get(), "i", "INT"),
                Arguments.of(Types.LongType.get(), "l", "BIGINT"),
                Arguments.of(Types.FloatType.get(), "f", "FLOAT"),
                Arguments.of(Types.DoubleType.get(), "g", "DOUBLE"),
                Arguments.of(Types.DecimalType.of(9, 2), "d:9,2", "DECIMAL(9, 2)"),
                Arguments.of(Types.DecimalType.of(38, 10), "d:38,10", "DECIMAL(38, 10)"),
                Arguments.of(Types.DateType.get(), "tdD", "DATE"),
                Arguments.of(Types.TimeType.get(), "ttu", "TIME(0)"),
                Arguments.of(Types.TimestampType.withoutZone(), "tsu:", "TIMESTAMP(6)"),
                Arguments.of(Types.TimestampType.withZone(), "tsu:UTC", "TIMESTAMP_LTZ(6)"),
                Arguments.of(Types.TimestampNanoType.withoutZone(), "tsn:", "TIMESTAMP(9)"),
                Arguments.of(Types.TimestampNanoType.withZone(), "tsn:UTC", "TIMESTAMP_LTZ(9)"),
                Arguments.of(Types.StringType.get(), "u", "STRING"),
                Arguments.of(Types.UUIDType.get(), "w:16", "BINARY(16)"),
                Arguments.of(Types.FixedType.ofLength(7), "w:7", "BINARY(7)"),
                Arguments.of(Types.BinaryType.get(), "z", "BYTES"),
                Arguments.of(Types.UnknownType.get(), "n", "NULL"));
    }

    @ParameterizedTest
    @MethodSource("primitives")
    void everyIcebergPrimitiveHasOneArrowAndOneFlinkType(Type iceberg, String arrowFormat, String flink) {
        ArrowField arrow = TypeMapping.toArrow("c", iceberg, true);
        assertEquals(arrowFormat, ArrowFormat.render(arrow.type()));
        assertEquals(arrow.type(), ArrowFormat.parse(arrowFormat));
        assertEquals(flink, TypeMapping.toFlink(iceberg, true).asSummaryString());

        // The sink lays out Flink rows with the Arrow type the source reads for the same column.
        LogicalType flinkType = TypeMapping.toFlink(iceberg, true);
        assertEquals(arrow, TypeMapping.toArrow("c", flinkType));
    }

    @Test
    void nullabilityFollowsIcebergOptionality() {
        assertFalse(TypeMapping.toArrow(Types.NestedField.required(1, "id", Types.LongType.get()))
                .nullable());
        assertFalse(TypeMapping.toFlink(Types.LongType.get(), false).isNullable());
        assertTrue(TypeMapping.toArrow(Types.NestedField.optional(1, "id", Types.LongType.get()))
                .nullable());
    }

    @Test
    void nestedTypesMapStructurally() {
        Schema schema = new Schema(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.optional(
                        2,
                        "point",
                        Types.StructType.of(
                                Types.NestedField.required(3, "x", Types.DoubleType.get()),
                                Types.NestedField.optional(4, "label", Types.StringType.get()))),
                Types.NestedField.optional(5, "tags", Types.ListType.ofOptional(6, Types.StringType.get())),
                Types.NestedField.optional(
                        7, "scores", Types.MapType.ofRequired(8, 9, Types.StringType.get(), Types.IntegerType.get())));
        ArrowField batch = TypeMapping.toArrow(schema);
        assertEquals(new ArrowType.Struct(), batch.type());
        assertEquals(
                List.of("id", "point", "tags", "scores"),
                batch.children().stream().map(ArrowField::name).toList());
        ArrowField point = batch.child(1);
        assertEquals(
                List.of("x", "label"),
                point.children().stream().map(ArrowField::name).toList());
        assertFalse(point.child(0).nullable());
        ArrowField tags = batch.child(2);
        assertEquals(new ArrowType.List(false), tags.type());
        assertEquals(TypeMapping.LIST_ELEMENT, tags.child(0).name());
        assertTrue(tags.child(0).nullable());
        ArrowField scores = batch.child(3);
        ArrowField entries = scores.child(0);
        assertEquals(TypeMapping.MAP_ENTRIES, entries.name());
        assertFalse(entries.child(0).nullable(), "map keys are never null");
        assertFalse(entries.child(1).nullable(), "required map values");

        RowType flink = (RowType) TypeMapping.toFlink(schema.asStruct(), false);
        assertEquals(batch, TypeMapping.toArrow("", flink));
    }

    @Test
    void flinkTypesWithoutIcebergCounterpartsStillMap() {
        assertEquals(
                "ttu",
                ArrowFormat.render(TypeMapping.toArrow("t", new TimeType(3)).type()));
        assertEquals(
                "tsu:",
                ArrowFormat.render(
                        TypeMapping.toArrow("t", new TimestampType(3)).type()));
        assertEquals(
                "tsu:UTC",
                ArrowFormat.render(
                        TypeMapping.toArrow("t", new LocalZonedTimestampType(0)).type()));
        assertEquals(
                "u",
                ArrowFormat.render(TypeMapping.toArrow("s", new VarCharType(10)).type()));
        assertEquals(
                "z",
                ArrowFormat.render(
                        TypeMapping.toArrow("b", new VarBinaryType(10)).type()));
        assertEquals(
                "w:3",
                ArrowFormat.render(TypeMapping.toArrow("b", new BinaryType(3)).type()));
    }

    @Test
    void unmappableTypesAreNamed() {
        var e = assertThrows(
                UnsupportedOperationException.class, () -> TypeMapping.toArrow("v", Types.VariantType.get(), true));
        assertTrue(e.getMessage().contains("variant"), e.getMessage());
    }

    @Test
    void formatStringsRoundTrip() {
        for (String format : List.of(
                "n",
                "b",
                "c",
                "C",
                "s",
                "S",
                "i",
                "I",
                "l",
                "L",
                "f",
                "g",
                "d:5,0",
                "d:38,38",
                "tdD",
                "tdm",
                "tts",
                "ttm",
                "ttu",
                "ttn",
                "tss:",
                "tsm:Europe/Paris",
                "tsu:UTC",
                "tsn:",
                "u",
                "U",
                "z",
                "Z",
                "w:1",
                "+s",
                "+l",
                "+L",
                "+m")) {
            assertEquals(format, ArrowFormat.render(ArrowFormat.parse(format)), format);
        }
        assertEquals(new ArrowType.Decimal(10, 3), ArrowFormat.parse("d:10,3,128"));
        for (String bad : List.of("", "x", "d:10", "d:10,3,256", "w:", "w:0", "tsx:", "ts", "d:39,1", "+w:3")) {
            assertThrows(IllegalArgumentException.class, () -> ArrowFormat.parse(bad), bad);
        }
    }
}
