// Reads Parquet files with Iceberg's own reader (parquet-java underneath, page checksums
// verified) and prints each file's row count and a hash of its rows, so that a file the
// encoder wrote can be checked against one Iceberg wrote for the same rows:
//   /usr/lib/jvm/temurin-25-jdk-amd64/bin/java -cp jmh/target/benchmarks.jar \
//       rust-core/tests/data/ParquetJavaRead.java a.parquet b.parquet ...
// Equal hashes mean equal rows in equal order. The Iceberg schema is derived from each
// file's Parquet schema (field ids included).

import java.io.File;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.parquet.ParquetSchemaUtil;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.schema.MessageType;

public class ParquetJavaRead {
    public static void main(String[] args) throws Exception {
        for (String path : args) {
            MessageType type;
            try (ParquetFileReader reader = ParquetFileReader.open(HadoopInputFile.fromPath(
                    new org.apache.hadoop.fs.Path(new File(path).getAbsolutePath()),
                    new org.apache.hadoop.conf.Configuration()))) {
                type = reader.getFooter().getFileMetaData().getSchema();
            }
            Schema schema = ParquetSchemaUtil.convert(type);
            long rows = 0;
            long hash = 1125899906842597L;
            try (CloseableIterable<Record> records = Parquet.read(org.apache.iceberg.Files.localInput(new File(path)))
                    .project(schema)
                    .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(schema, fileSchema))
                    .set("parquet.page.verify-checksum.enabled", "true")
                    .build()) {
                for (Record record : records) {
                    for (int i = 0; i < record.size(); i++) {
                        hash = 31 * hash + text(record.get(i)).hashCode();
                    }
                    rows++;
                }
            }
            System.out.printf("%s: %d rows, hash %016x%n", path, rows, hash);
        }
    }

    /** A value's content as text (arrays and buffers by their bytes, not their identity). */
    static String text(Object value) {
        if (value instanceof byte[] bytes) {
            return java.util.Arrays.toString(bytes);
        }
        if (value instanceof java.nio.ByteBuffer buffer) {
            byte[] bytes = new byte[buffer.remaining()];
            buffer.duplicate().get(bytes);
            return java.util.Arrays.toString(bytes);
        }
        if (value instanceof Float f && f.isNaN() || value instanceof Double d && d.isNaN()) {
            return "NaN";
        }
        return String.valueOf(value);
    }
}
