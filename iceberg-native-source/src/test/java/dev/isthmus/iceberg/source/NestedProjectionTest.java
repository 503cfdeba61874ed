package dev.isthmus.iceberg.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class NestedProjectionTest {
    /** Structs two deep and a list, also read end to end by {@code NativeIcebergSourceTest}. */
    static final Schema PLACES = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(
                    2,
                    "info",
                    Types.StructType.of(
                            Types.NestedField.optional(3, "city", Types.StringType.get()),
                            Types.NestedField.optional(
                                    4,
                                    "geo",
                                    Types.StructType.of(
                                            Types.NestedField.required(5, "lat", Types.DoubleType.get()),
                                            Types.NestedField.optional(6, "lon", Types.DoubleType.get()))),
                            Types.NestedField.required(7, "zip", Types.IntegerType.get()))),
            Types.NestedField.optional(8, "tags", Types.ListType.ofOptional(9, Types.StringType.get())));

    @Test
    void theReadSchemaKeepsThePathsFieldsInTheTablesOrder() {
        NestedProjection projection = NestedProjection.of(
                PLACES, List.of(List.of("info", "geo", "lat"), List.of("id"), List.of("info", "city")));
        Schema expected = new Schema(
                Types.NestedField.optional(
                        2,
                        "info",
                        Types.StructType.of(
                                Types.NestedField.optional(3, "city", Types.StringType.get()),
                                Types.NestedField.optional(
                                        4,
                                        "geo",
                                        Types.StructType.of(
                                                Types.NestedField.required(5, "lat", Types.DoubleType.get()))))),
                Types.NestedField.required(1, "id", Types.LongType.get()));
        assertEquals(expected.asStruct(), projection.readSchema().asStruct());
        assertEquals(
                List.of("info_geo_lat", "id", "info_city"), projection.rowType().getFieldNames());
    }

    @Test
    void aWholeStructAndAFieldOfItReadTheWholeStruct() {
        NestedProjection projection = NestedProjection.of(PLACES, List.of(List.of("info", "city"), List.of("info")));
        assertEquals(PLACES.select("info").asStruct(), projection.readSchema().asStruct());
    }

    @Test
    void rowsOfTheReadSchemaAreFlattenedWithNullsBelowNullStructs() {
        NestedProjection projection = NestedProjection.of(
                PLACES, List.of(List.of("info", "geo", "lon"), List.of("id"), List.of("info", "city")));
        // The read schema: info{city, geo{lon}}, id.
        RowData withGeo =
                GenericRowData.of(GenericRowData.of(StringData.fromString("Oslo"), GenericRowData.of(10.5)), 7L);
        RowData flat = projection.row(withGeo);
        assertEquals(10.5, flat.getDouble(0));
        assertEquals(7L, flat.getLong(1));
        assertEquals("Oslo", flat.getString(2).toString());
        RowData nullGeo =
                projection.row(GenericRowData.of(GenericRowData.of(StringData.fromString("Bergen"), null), 8L));
        assertEquals(true, nullGeo.isNullAt(0));
        assertEquals("Bergen", nullGeo.getString(2).toString());
        RowData nullInfo = projection.row(GenericRowData.of(null, 9L));
        assertEquals(true, nullInfo.isNullAt(0));
        assertEquals(true, nullInfo.isNullAt(2));
        assertEquals(9L, nullInfo.getLong(1));
    }

    @Test
    void pathsThatNameNoFieldOrGoThroughANonStructAreRefusedByName() {
        IllegalArgumentException missing = assertThrows(
                IllegalArgumentException.class, () -> NestedProjection.of(PLACES, List.of(List.of("info", "country"))));
        assertEquals("cannot project info.country: the table has no field info.country", missing.getMessage());
        IllegalArgumentException list = assertThrows(
                IllegalArgumentException.class, () -> NestedProjection.of(PLACES, List.of(List.of("tags", "element"))));
        assertEquals("cannot project tags.element: tags is not a struct", list.getMessage());
    }
}
