/*
 * isthmus.h - the contract between the Isthmus Rust core (libisthmus.so) and its callers.
 *
 * This header is the single source of truth for the C ABI. The Java bindings in
 * ffm-bindings are generated from it; the Rust exports are checked against it at
 * test time (rust-core/ffi/tests/header_contract.rs). Change it deliberately: any change
 * to a signature, a struct or a constant's meaning bumps ISTHMUS_ABI_VERSION.
 *
 * Conventions that hold for every function unless its comment says otherwise:
 *
 * Errors.   A fallible function returns an int32_t status: ISTHMUS_OK (0) or one of
 *           the ISTHMUS_ERR_* codes. Its last parameter is an `isthmus_error *`
 *           owned by the caller; when it is not NULL and the call fails, the library
 *           fills it with the code and a UTF-8 message (truncated on a character
 *           boundary to fit). On success it is left untouched. Passing NULL is
 *           allowed and only loses the message. Out-parameters are written only on
 *           success.
 * Panics.   No Rust panic crosses this boundary. Every export catches unwinding and
 *           reports it as ISTHMUS_ERR_INTERNAL with the panic message and location.
 * Memory.   The library never frees memory it did not allocate, and never keeps a
 *           pointer it was given past the return of the call that received it, except
 *           Arrow structs a function documents as moved in (the library then calls
 *           their release callback later; see "Arrow exchange" below).
 *           Pointers returned by the library point to static storage unless stated.
 * Pointers. A NULL pointer with a non-zero length is ISTHMUS_ERR_INVALID_ARGUMENT;
 *           a NULL pointer with a zero length means an empty buffer.
 * Threads.  Every function may be called from any thread, concurrently, unless its
 *           comment says otherwise. Results never depend on earlier calls; scratch memory
 *           (compression contexts) may be cached per thread until the thread exits.
 * Buffers.  Input and output buffers of one call must not overlap
 *           (ISTHMUS_ERR_INVALID_ARGUMENT). After a failed call the contents of its
 *           output buffers are unspecified.
 */
#ifndef ISTHMUS_H
#define ISTHMUS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Version of this contract. The Java loader refuses a library whose
 * isthmus_abi_version() differs from the value its bindings were generated with. */
#define ISTHMUS_ABI_VERSION 10

/* ---------------------------------------------------------------- status codes */

#define ISTHMUS_OK 0
/* A NULL pointer, an out-of-range enum value or an inconsistent length. */
#define ISTHMUS_ERR_INVALID_ARGUMENT 1
/* An output buffer cannot hold the result; nothing useful was written. */
#define ISTHMUS_ERR_BUFFER_TOO_SMALL 2
/* Input bytes are malformed (bad compressed stream, corrupt file structure). */
#define ISTHMUS_ERR_CORRUPT_DATA 3
/* Valid input that this build does not implement. */
#define ISTHMUS_ERR_UNSUPPORTED 4
/* An operating-system I/O call failed. */
#define ISTHMUS_ERR_IO 5
/* An allocation failed or a size exceeds what the library will allocate. */
#define ISTHMUS_ERR_OUT_OF_MEMORY 6
/* A bug in the library: a caught Rust panic, or a broken internal invariant. */
#define ISTHMUS_ERR_INTERNAL 7

/* Bytes available for an error message, including its terminating NUL. */
#define ISTHMUS_ERROR_MESSAGE_CAPACITY 1024

/* Error details, allocated and owned by the caller, written by a failing call. */
typedef struct isthmus_error {
    /* The status the call returned. */
    int32_t code;
    /* Length of message in bytes, excluding the terminating NUL. */
    uint32_t message_length;
    /* NUL-terminated UTF-8 text. */
    char message[ISTHMUS_ERROR_MESSAGE_CAPACITY];
} isthmus_error;

/* ---------------------------------------------------------------- library */

/* Returns ISTHMUS_ABI_VERSION as compiled into the library. Never fails. */
uint32_t isthmus_abi_version(void);

/* Returns the library's semantic version ("0.1.0"), a static NUL-terminated string. */
const char *isthmus_version(void);

/* Returns a static NUL-terminated description of every struct declared in this header,
 * as the Rust side lays it out: one line per struct,
 *     name size align field@offset field@offset ...
 * Tests compare it with the C compiler's and the Java bindings' view of this header. */
const char *isthmus_layout_manifest(void);

/* Panics inside the library on purpose with `message` (NUL-terminated UTF-8, may be
 * NULL), to prove that panics become ISTHMUS_ERR_INTERNAL. Always returns
 * ISTHMUS_ERR_INTERNAL; the library stays usable afterwards. */
int32_t isthmus_debug_panic(const char *message, isthmus_error *error);

/* ---------------------------------------------------------------- codecs */

/* Compression codecs, numbered as Parquet's CompressionCodec enum. LZO (3) is not
 * implemented. LZ4_HADOOP is Hadoop's framing of LZ4 blocks (Parquet's deprecated
 * LZ4); LZ4_RAW is a single LZ4 block. GZIP writes one gzip member and reads any
 * number of concatenated members. */
#define ISTHMUS_CODEC_UNCOMPRESSED 0
#define ISTHMUS_CODEC_SNAPPY 1
#define ISTHMUS_CODEC_GZIP 2
#define ISTHMUS_CODEC_BROTLI 4
#define ISTHMUS_CODEC_LZ4_HADOOP 5
#define ISTHMUS_CODEC_ZSTD 6
#define ISTHMUS_CODEC_LZ4_RAW 7

/* Writes to *out_bound the largest size isthmus_codec_compress can produce for
 * `input_size` bytes with `codec`.
 * Errors: INVALID_ARGUMENT (unknown codec, NULL out_bound, an input_size the codec cannot
 *         compress in one call: above 4 GiB for snappy, about 2 GiB for LZ4_RAW),
 *         UNSUPPORTED (LZO). */
int32_t isthmus_codec_max_compressed_size(int32_t codec, uint64_t input_size,
                                          uint64_t *out_bound, isthmus_error *error);

/* Compresses input[0, input_size) into output[0, output_capacity) and writes the
 * compressed length to *out_written.
 * `level` is the codec's own level: zstd -131072..22, gzip 1..9, brotli 1..11; 0 means the
 * codec's default (zstd 3 as in parquet-java, gzip 6, brotli 1 as in arrow-rs), so gzip's
 * level 0 (stored) and brotli's quality 0 are not reachable. Codecs without levels
 * (snappy, lz4, uncompressed) ignore it.
 * An output_capacity of isthmus_codec_max_compressed_size(...) always suffices.
 * Errors: INVALID_ARGUMENT (unknown codec, out-of-range level, NULL pointers),
 *         BUFFER_TOO_SMALL, UNSUPPORTED (LZO), OUT_OF_MEMORY. */
int32_t isthmus_codec_compress(int32_t codec, int32_t level,
                               const uint8_t *input, uint64_t input_size,
                               uint8_t *output, uint64_t output_capacity,
                               uint64_t *out_written, isthmus_error *error);

/* Decompresses input[0, input_size) into output[0, output_capacity) and writes the
 * decompressed length to *out_written. Parquet pages know their uncompressed size,
 * so callers pass exactly that capacity; a stream that would exceed it fails with
 * BUFFER_TOO_SMALL rather than being cut.
 * Errors: INVALID_ARGUMENT, BUFFER_TOO_SMALL, CORRUPT_DATA, UNSUPPORTED (LZO),
 *         OUT_OF_MEMORY. */
int32_t isthmus_codec_decompress(int32_t codec,
                                 const uint8_t *input, uint64_t input_size,
                                 uint8_t *output, uint64_t output_capacity,
                                 uint64_t *out_written, isthmus_error *error);

/* ---------------------------------------------------------------- Arrow C Data Interface */

/* The Arrow C Data Interface, verbatim from the Arrow specification
 * (https://arrow.apache.org/docs/format/CDataInterface.html). Ownership follows the
 * specification: the consumer of a struct calls its release callback exactly once,
 * after which release is NULL. docs/ownership.md says who that is in each direction. */
#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE

#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4

struct ArrowSchema {
    const char *format;
    const char *name;
    const char *metadata;
    int64_t flags;
    int64_t n_children;
    struct ArrowSchema **children;
    struct ArrowSchema *dictionary;
    void (*release)(struct ArrowSchema *);
    void *private_data;
};

struct ArrowArray {
    int64_t length;
    int64_t null_count;
    int64_t offset;
    int64_t n_buffers;
    int64_t n_children;
    const void **buffers;
    struct ArrowArray **children;
    struct ArrowArray *dictionary;
    void (*release)(struct ArrowArray *);
    void *private_data;
};

#endif /* ARROW_C_DATA_INTERFACE */

/* ---------------------------------------------------------------- Arrow exchange */

/* Arrow structs crossing this boundary follow docs/ownership.md. In brief: a struct the
 * library fills (an "out" struct, allocated by the caller) belongs to the caller, who calls
 * its release callback exactly once, from any thread. A struct the caller passes in with a
 * non-NULL release is moved into the library: on return, success or not, the caller's
 * struct has release == NULL and the library calls the original release exactly once,
 * possibly later and from another thread. */

/* Counters of the Arrow data the library holds, for leak checks and metrics. */
typedef struct isthmus_arrow_stats {
    /* Arrays (top-level) the library exported whose release has not been called yet. */
    int64_t exported_live;
    /* Arrays the library has exported since it was loaded. */
    int64_t exported_total;
    /* Bytes of the buffers behind exported arrays not yet released, counting children a
     * consumer moved out of a released parent; a buffer shared by two exports counts twice. */
    int64_t exported_bytes_live;
    /* Arrays moved into the library that it has not released yet. */
    int64_t imported_live;
    /* Arrays moved into the library since it was loaded. */
    int64_t imported_total;
    /* Bytes of Arrow buffers the library has allocated and not freed: those behind live
     * exports, and those a scan's pool keeps for its next batches (freed with the pool,
     * see isthmus_scan_hold_memory). Zero when nothing the library built is alive. */
    int64_t allocated_bytes;
} isthmus_arrow_stats;

/* Writes the current counters to *out. Errors: INVALID_ARGUMENT (NULL out). */
int32_t isthmus_arrow_stats_get(isthmus_arrow_stats *out, isthmus_error *error);

/* Moves `array`/`schema` into the library, validates them completely against the Arrow
 * C Data Interface (format strings, buffer counts and sizes, offsets, dictionary indices,
 * child lengths), and exports a deep copy in library-owned memory into the caller's
 * `out_array`/`out_schema`, which the caller must release. The input is released before
 * return. Used to prove that both directions of the exchange agree.
 * Errors: INVALID_ARGUMENT (NULL pointers, an input already released, an invalid array,
 *         naming the field path and what is wrong), UNSUPPORTED (a format the library
 *         does not implement), OUT_OF_MEMORY. On error nothing is written to the out
 *         structs. */
int32_t isthmus_arrow_echo(struct ArrowArray *array, struct ArrowSchema *schema,
                           struct ArrowArray *out_array, struct ArrowSchema *out_schema,
                           isthmus_error *error);

/* Computes the canonical checksum of the logical values of `array` (defined in
 * docs/arrow-checksum.md: FNV-1a 64 over a per-value serialisation in which a dictionary
 * array hashes like its decoded values) and writes it to *out_checksum. Borrows the
 * structs: ownership stays with the caller. The array is validated as by
 * isthmus_arrow_echo first.
 * Errors: as isthmus_arrow_echo. */
int32_t isthmus_arrow_checksum(const struct ArrowArray *array, const struct ArrowSchema *schema,
                               uint64_t *out_checksum, isthmus_error *error);

/* ---------------------------------------------------------------- Parquet decoding */

/* Reading Parquet data files (docs/decoder.md). An isthmus_file is a file's parsed
 * footer; an isthmus_scan reads projected columns of it into Arrow batches.
 *
 * Bytes.     A file opened by path is read by the library with positional reads. A
 *            file opened from footer bytes is read through the caller: when a scan
 *            needs a row group's column chunks, isthmus_scan_next reports
 *            ISTHMUS_SCAN_STATE_NEED_RANGES and isthmus_scan_ranges hands out file
 *            ranges with library-owned buffers for the caller to fill.
 * Errors.    Damaged files fail with ISTHMUS_ERR_CORRUPT_DATA, valid features this
 *            build lacks with ISTHMUS_ERR_UNSUPPORTED (the caller may fall back to
 *            another reader), failing reads with ISTHMUS_ERR_IO. Messages name the file
 *            (its path, or the display name given), and where it applies the row
 *            group, the column's dotted path and the page (counted from 0 within the
 *            column chunk, the dictionary page included), e.g.
 *            "bids.parquet: row group 0, column 'url', page 3: dictionary index 70000
 *            out of range (dictionary has 412 entries)".
 * Types.     Parquet types map to Arrow types as docs/decoder.md tabulates: e.g. INT96
 *            to timestamp ns "UTC", TIME(MILLIS) to time64 us, UUID to w:16, decimals to
 *            decimal128. Every Arrow field with a Parquet field id carries it as the
 *            metadata entry "PARQUET:field_id" (decimal text). */

typedef struct isthmus_file isthmus_file;
typedef struct isthmus_scan isthmus_scan;
/* A hold on the memory of a scan's batches. A released batch's value buffers go back to
 * the scan's pool, from which its next batches take theirs, as do the buffers its readers
 * decompress pages and read the file through, and those isthmus_scan_ranges hands out,
 * once the readers are done with a row group. The pool is the scan's own, or shared with
 * other scans (isthmus_scan_options.memory); it frees a batch's memory only once every
 * scan using it is closed, every batch released and every hold released. So while a consumer
 * holds it, the memory of a released batch stays mapped: a view of it that the consumer
 * cannot invalidate at once (Java's shared arenas, docs/ownership.md) reads whatever a
 * later batch wrote there, never freed memory. */
typedef struct isthmus_scan_memory isthmus_scan_memory;

/* Options of isthmus_scan_open's flags. */
/* Output a string or binary top-level column as an Arrow dictionary array (int32
 * indices, utf8/binary values) when every data page of every selected column chunk is
 * dictionary-encoded according to the chunks' encoding_stats; decided once per scan,
 * so the schema is the same for every batch. Each batch carries its row group's
 * dictionary. */
#define ISTHMUS_SCAN_FLAG_KEEP_DICTIONARIES 1
/* Do not verify page checksums (verified by default wherever a page has one). */
#define ISTHMUS_SCAN_FLAG_SKIP_CRC 2

/* What isthmus_scan_next produced. */
#define ISTHMUS_SCAN_STATE_END 0
#define ISTHMUS_SCAN_STATE_BATCH 1
#define ISTHMUS_SCAN_STATE_NEED_RANGES 2

/* A file as a whole. */
typedef struct isthmus_file_info {
    int64_t num_rows;
    int64_t file_size;
    uint32_t num_row_groups;
    /* Leaf columns (for isthmus_file_column and isthmus_file_column_chunk). */
    uint32_t num_columns;
    /* Top-level fields (the children of isthmus_file_schema's struct). */
    uint32_t num_fields;
} isthmus_file_info;

/* One row group, for pruning and for splitting a file between readers. */
typedef struct isthmus_row_group_info {
    int64_t num_rows;
    /* The index in the file of the row group's first row. */
    int64_t first_row;
    /* From the first byte of its first column chunk to the end of its last. */
    int64_t byte_offset;
    int64_t byte_length;
    /* Its column chunks' stored bytes, and the footer's total_byte_size. */
    int64_t compressed_size;
    int64_t uncompressed_size;
} isthmus_row_group_info;

/* One leaf column of the schema. The strings belong to the file and stay valid until
 * isthmus_file_close. */
typedef struct isthmus_column_info {
    /* The column's path from below the root, names joined with '.'. */
    const char *path;
    /* The Arrow format string of the leaf's type, or NULL if this build cannot decode
     * the column (its scan would fail with UNSUPPORTED). */
    const char *arrow_format;
    /* The Parquet field id (Iceberg's), valid when has_field_id is 1. */
    int32_t field_id;
    int32_t has_field_id;
    /* Parquet's Type: 0 BOOLEAN, 1 INT32, 2 INT64, 3 INT96, 4 FLOAT, 5 DOUBLE,
     * 6 BYTE_ARRAY, 7 FIXED_LEN_BYTE_ARRAY. */
    int32_t physical_type;
    /* The width of FIXED_LEN_BYTE_ARRAY values, 0 for other types. */
    int32_t type_length;
    /* The LogicalType annotation as its union member id (1 STRING, 2 MAP, 3 LIST,
     * 4 ENUM, 5 DECIMAL, 6 DATE, 7 TIME, 8 TIMESTAMP, 10 INTEGER, 11 UNKNOWN, 12 JSON,
     * 13 BSON, 14 UUID, 15 FLOAT16, 16 VARIANT, 17 GEOMETRY, 18 GEOGRAPHY, or a newer
     * id), 0 for none; arrow_format carries its parameters. */
    int32_t logical_type;
    /* The legacy ConvertedType (0 UTF8 ... 21 INTERVAL), -1 for none. */
    int32_t converted_type;
    /* Decimal precision and scale (logical or converted), 0 for other columns. */
    int32_t precision;
    int32_t scale;
    int16_t max_definition_level;
    int16_t max_repetition_level;
    /* 0 REQUIRED, 1 OPTIONAL, 2 REPEATED. */
    int32_t repetition;
} isthmus_column_info;

/* One column chunk of one row group. min_value/max_value point into memory owned by
 * the file, valid until isthmus_file_close; they are Parquet's statistics bytes (the
 * PLAIN encoding of the value, without a length prefix for byte arrays), reported only
 * from the statistics' min_value/max_value fields (the deprecated min/max are ignored)
 * and only when the column's sort order is one the format defines. */
typedef struct isthmus_column_chunk_info {
    /* The chunk's first byte (its dictionary page, else its first data page). */
    int64_t byte_offset;
    int64_t compressed_size;
    int64_t uncompressed_size;
    int64_t data_page_offset;
    /* -1 when the chunk has no dictionary page. */
    int64_t dictionary_page_offset;
    /* Level entries, nulls included (rows, for a column without repetition). */
    int64_t num_values;
    /* -1 when the statistics do not say. */
    int64_t null_count;
    /* NULL when unknown; see above. */
    const uint8_t *min_value;
    const uint8_t *max_value;
    uint32_t min_length;
    uint32_t max_length;
    /* Parquet's CompressionCodec: the ISTHMUS_CODEC_* ids, 3 for LZO. */
    int32_t codec;
    /* Bit e set for each Parquet Encoding e (below 32) the chunk lists. */
    uint32_t encodings;
    /* 1 if every data page is dictionary-encoded per the chunk's encoding_stats, 0 if
     * not, -1 without encoding_stats. */
    int32_t all_dictionary;
    /* Whether min_value / max_value are the exact extremes: 1, 0, or -1 unknown. */
    int32_t min_is_exact;
    int32_t max_is_exact;
} isthmus_column_chunk_info;

/* What and how to scan. Read only during isthmus_scan_open; nothing is kept. */
typedef struct isthmus_scan_options {
    /* Top-level Iceberg field ids, in output order (num_field_ids of them). */
    const int32_t *field_ids;
    /* NULL, or a struct with one child per field id (borrowed, not released): the
     * output names, the types of ids the file lacks (all-null columns: schema
     * evolution), and wider types to widen to (int to long, float to double, a larger
     * decimal precision). Fields nested in structs, lists and maps carry their ids as
     * the metadata entry "PARQUET:field_id" (ABI 9): a struct's fields are then matched
     * to the file's by id where the file's have ids, so renamed, reordered and dropped
     * fields read as this schema says, a struct listing only some of its fields reads
     * only their leaves, and a field the file's struct lacks (added later) reads as
     * nulls (CORRUPT_DATA if required; UNSUPPORTED if the file has none of them).
     * Where the file's nested fields have no ids they are matched by position, and
     * must have this schema's shape. */
    const struct ArrowSchema *expected_schema;
    /* NULL for every row group in file order, else num_row_groups indices, read in
     * this order. */
    const uint32_t *row_groups;
    /* Rows of the selection to skip before the first batch (to resume a scan). */
    int64_t first_row;
    uint32_t num_field_ids;
    uint32_t num_row_groups;
    /* Rows per batch at most; 0 for 8192. A batch never spans row groups. */
    uint32_t batch_size;
    /* ISTHMUS_SCAN_FLAG_* bits. */
    uint32_t flags;
    /* The largest uncompressed page, in bytes, the scan allocates for (ABI 6); 0 for
     * ISTHMUS_SCAN_DEFAULT_MAX_PAGE_SIZE. A page declaring more fails the scan with
     * ISTHMUS_ERR_CORRUPT_DATA naming the page, before anything is allocated for it (no
     * writer makes pages near the default; a damaged header claims them).
     * Whatever the limit, a page declaring more than its codec can produce from its
     * stored bytes is ISTHMUS_ERR_CORRUPT_DATA. */
    uint64_t max_page_size;
    /* NULL (with length 0), or a table's name mapping for files without field ids
     * (ABI 7): for each field id in order, the names the mapping gives it, each
     * NUL-terminated UTF-8, the id's list ended by an empty name (a lone NUL when the
     * mapping does not cover the id); mapped_names_length bytes in all, which must
     * hold exactly num_field_ids lists (else INVALID_ARGUMENT). Used only when no
     * top-level field of the file has an id (Iceberg's readers apply a mapping when no
     * field at any depth has one; callers pass it only for such files): a field id
     * then reads the top-level field whose name its list holds, or is missing (a null
     * column, or CORRUPT_DATA if required). The fields nested in it, which have no ids
     * either, are matched by position, where Iceberg matches them by name: callers
     * check that they line up. Without a mapping such a file is UNSUPPORTED. */
    const uint8_t *mapped_names;
    uint64_t mapped_names_length;
    /* NULL for a pool of the scan's own, or a hold (borrowed: the scan takes its own
     * reference, and the caller may release the hold at once) whose pool the scan takes
     * its memory from and gives it back to (ABI 10). Scans of a run of small files, each
     * opened with a hold taken on the first, then reuse the memory the earlier scans'
     * released batches and finished readers gave back, instead of faulting fresh pages
     * in for every file; the pool keeps it until the last of them lets it go (but for a
     * range buffer a larger range replaced).
     * Scans sharing a pool may run on different threads at once. */
    const isthmus_scan_memory *memory;
} isthmus_scan_options;

/* The default of isthmus_scan_options.max_page_size: 256 MiB. */
#define ISTHMUS_SCAN_DEFAULT_MAX_PAGE_SIZE 268435456

/* A file range a scan needs, and the library-owned buffer to fill with it. */
typedef struct isthmus_range {
    int64_t offset;
    int64_t length;
    /* length writable bytes, valid until the next isthmus_scan_next or
     * isthmus_scan_close on the scan; after that its memory may be freed, or handed out
     * again to this scan or another sharing its pool. */
    uint8_t *buffer;
} isthmus_range;

/* Opens a local file: reads and checks its footer (both magics, the footer's length,
 * the Thrift metadata, every column chunk's byte range) and writes the handle to
 * *out_file. The file stays open until isthmus_file_close. `path` is NUL-terminated
 * UTF-8 (or bytes, on Linux); it names the file in errors.
 * Errors: INVALID_ARGUMENT (NULL pointers), IO (cannot open or read), CORRUPT_DATA,
 *         UNSUPPORTED (an encrypted footer, external column chunks), OUT_OF_MEMORY. */
int32_t isthmus_file_open_path(const char *path, isthmus_file **out_file, isthmus_error *error);

/* Reads the footer's length from `tail`, the file's last 8 bytes (tail_size must be
 * 8, unless file_size is below 12, which is CORRUPT_DATA whatever the tail), and checks
 * it and the trailing magic against file_size. The footer is then the *out_length
 * bytes that precede the tail. No file is open yet, so messages name none.
 * Errors: INVALID_ARGUMENT, CORRUPT_DATA (a file too short, not PAR1, a length that
 *         does not fit), UNSUPPORTED (an encrypted footer, magic PARE). */
int32_t isthmus_footer_length(const uint8_t *tail, uint64_t tail_size, uint64_t file_size,
                              uint32_t *out_length, isthmus_error *error);

/* Opens a file from its footer bytes (footer_size bytes, as isthmus_footer_length
 * delimits them), which are copied; the file's bytes then come from the caller (see
 * isthmus_scan_ranges). display_name (NUL-terminated, may be NULL for "") names the
 * file in errors. The leading magic cannot be checked this way.
 * Errors: INVALID_ARGUMENT, CORRUPT_DATA, UNSUPPORTED, OUT_OF_MEMORY. */
int32_t isthmus_file_open_footer(const uint8_t *footer, uint64_t footer_size, uint64_t file_size,
                                 const char *display_name, isthmus_file **out_file,
                                 isthmus_error *error);

/* Closes a file handle; NULL is ignored. Scans opened on it stay usable (they keep
 * what they need), but pointers from isthmus_file_column and
 * isthmus_file_column_chunk become invalid. Must be called exactly once per handle,
 * after every other call on it has returned. */
void isthmus_file_close(isthmus_file *file);

/* The functions below on an isthmus_file only read it: any thread, concurrently. */

/* Writes the file's totals to *out. Errors: INVALID_ARGUMENT (NULL pointers). */
int32_t isthmus_file_get_info(const isthmus_file *file, isthmus_file_info *out, isthmus_error *error);

/* Writes row group `row_group` to *out.
 * Errors: INVALID_ARGUMENT (NULL pointers, row_group out of range). */
int32_t isthmus_file_row_group(const isthmus_file *file, uint32_t row_group,
                               isthmus_row_group_info *out, isthmus_error *error);

/* Writes leaf column `column` (schema order) to *out.
 * Errors: INVALID_ARGUMENT (NULL pointers, column out of range). */
int32_t isthmus_file_column(const isthmus_file *file, uint32_t column, isthmus_column_info *out,
                            isthmus_error *error);

/* Writes the chunk of leaf column `column` in row group `row_group` to *out.
 * Errors: INVALID_ARGUMENT (NULL pointers, indices out of range). */
int32_t isthmus_file_column_chunk(const isthmus_file *file, uint32_t row_group, uint32_t column,
                                  isthmus_column_chunk_info *out, isthmus_error *error);

/* Decodes the dictionary page of leaf column `column` in row group `row_group`, for
 * pruning a row group by the values its dictionary holds (docs/decoder.md). The caller
 * does the I/O: `bytes` holds `size` bytes of the file from the chunk's
 * dictionary_page_offset on (isthmus_file_column_chunk), at least the whole dictionary
 * page (its header and stored body; [dictionary_page_offset, data_page_offset) is that
 * page for the writers Iceberg uses) and at most the chunk's compressed_size. The bytes
 * are read only during the call. The page header, its sizes against `size` and the
 * chunk's metadata, its CRC (when it has one), the decompression and the value count
 * against the decompressed bytes are checked as a scan checks them.
 * On success the entries, in dictionary order and without nulls, are exported into the
 * caller's out_array/out_schema, which the caller releases (each exactly once; they stay
 * valid after isthmus_file_close): an array of the Arrow type a scan without an expected
 * schema gives the column (isthmus_column_info.arrow_format; e.g. int32, utf8, w:16,
 * decimal128), in a field named after the leaf with its "PARQUET:field_id" metadata.
 * Whether the dictionary covers every value of the chunk (every data page dictionary-
 * encoded) is the caller's to decide from isthmus_column_chunk_info (all_dictionary,
 * encodings); this function reads only the dictionary page.
 * Errors: INVALID_ARGUMENT (NULL pointers, indices out of range, a chunk without a
 *         dictionary page, more bytes than the chunk has), CORRUPT_DATA (a damaged page
 *         header, a page that exceeds `size`, a CRC mismatch, a stream that does not
 *         decompress to the declared size, more values than the page's bytes can hold,
 *         a first page that is not a dictionary page, invalid UTF-8 in a string column;
 *         messages name the file, row group, column and page), UNSUPPORTED (a column
 *         this build cannot decode, LZO, a dictionary-encoded BOOLEAN column, a
 *         dictionary page in an encoding other than PLAIN or PLAIN_DICTIONARY),
 *         OUT_OF_MEMORY. On error nothing is written to the out structs. */
int32_t isthmus_file_dictionary(const isthmus_file *file, uint32_t row_group, uint32_t column,
                                const uint8_t *bytes, uint64_t size,
                                struct ArrowArray *out_array, struct ArrowSchema *out_schema,
                                isthmus_error *error);

/* Exports the file's schema as an Arrow struct of its top-level fields (field ids as
 * "PARQUET:field_id" metadata) into the caller's out_schema, which the caller releases.
 * Errors: INVALID_ARGUMENT, UNSUPPORTED (a field this build cannot represent; its
 *         name and why), OUT_OF_MEMORY. */
int32_t isthmus_file_schema(const isthmus_file *file, struct ArrowSchema *out_schema,
                            isthmus_error *error);

/* Opens a scan of `file` as `options` say and writes it to *out_scan. Everything that
 * can be refused is refused here, before any data is read: a projected field this build
 * cannot decode (UNSUPPORTED, naming the field id and why, so the caller can fall back),
 * a selected column chunk in a codec this build lacks (LZO: UNSUPPORTED), ids the file lacks without an expected schema to type them, a required field the file
 * lacks, or a type the file's column cannot be widened to (UNSUPPORTED). Files whose
 * fields carry no field ids are UNSUPPORTED (they need a name mapping). Projecting flat
 * fields of a file that also has nested ones works.
 * The scan holds a reference to the file's metadata; it may outlive the file handle.
 * Errors: INVALID_ARGUMENT, CORRUPT_DATA (the file lacks a field the expected schema
 * says is required), UNSUPPORTED, OUT_OF_MEMORY. */
int32_t isthmus_scan_open(const isthmus_file *file, const isthmus_scan_options *options,
                          isthmus_scan **out_scan, isthmus_error *error);

/* Exports the schema every batch of the scan has: a struct of the projected fields.
 * The caller releases out_schema.
 * Errors: INVALID_ARGUMENT, OUT_OF_MEMORY. */
int32_t isthmus_scan_schema(const isthmus_scan *scan, struct ArrowSchema *out_schema,
                            isthmus_error *error);

/* Advances the scan and writes what it produced to *out_state:
 *   ISTHMUS_SCAN_STATE_BATCH: the next batch, a struct array of at least one row in the
 *       schema of isthmus_scan_schema, was exported into out_array, which the caller
 *       releases (any thread; it stays valid after the scan closes);
 *   ISTHMUS_SCAN_STATE_NEED_RANGES: a file opened from its footer needs the next row
 *       group's bytes: call isthmus_scan_ranges, fill every range, call next again;
 *   ISTHMUS_SCAN_STATE_END: no more rows.
 * out_array is written only for BATCH. After an error other than INVALID_ARGUMENT the
 * scan cannot continue; later calls fail with the same status, repeating the error
 * (ABI 6).
 * A scan may be used from any thread, but by one at a time: a call made while
 * another is running on the same scan fails with INVALID_ARGUMENT.
 * Errors: INVALID_ARGUMENT, CORRUPT_DATA, UNSUPPORTED, IO, OUT_OF_MEMORY. */
int32_t isthmus_scan_next(isthmus_scan *scan, struct ArrowArray *out_array, int32_t *out_state,
                          isthmus_error *error);

/* After NEED_RANGES: writes the number of ranges the scan needs to *out_count and, if
 * `capacity` is at least that, the ranges to ranges[0..count) (call with capacity 0 to
 * learn the count). Each range's buffer must be filled completely with the file's bytes
 * [offset, offset + length) before the next isthmus_scan_next. Ranges do not overlap;
 * adjacent column chunks are merged into one range. A buffer holds zeros when handed out;
 * it may have held an earlier row group's range, of this scan or another sharing its pool
 * (isthmus_scan_memory).
 * Errors: INVALID_ARGUMENT (NULL pointers, no ranges pending, the scan in use). */
int32_t isthmus_scan_ranges(isthmus_scan *scan, isthmus_range *ranges, uint32_t capacity,
                            uint32_t *out_count, isthmus_error *error);

/* Closes a scan; NULL is ignored. Range buffers handed out and not yet taken by
 * isthmus_scan_next are freed; the other buffers it took from its pool (batch values,
 * pages, read windows, ranges) go back to it, and the pool is freed once no scan,
 * exported batch or hold uses it (isthmus_scan_memory); the rest is freed.
 * Batches it exported stay valid. Must be called exactly once, after every other call
 * on the scan has returned. */
void isthmus_scan_close(isthmus_scan *scan);

/* Takes a hold on the pool of the scan's batches, past and future (shared with other scans
 * when it was opened with isthmus_scan_options.memory, or is later passed there); release it
 * with isthmus_scan_memory_release (any thread, also after isthmus_scan_close).
 * Errors: INVALID_ARGUMENT (NULL pointers, the scan in use). */
int32_t isthmus_scan_hold_memory(const isthmus_scan *scan, isthmus_scan_memory **out_memory,
                                 isthmus_error *error);

/* Releases a hold; NULL is ignored. The last release of the pool (hold, batch or scan)
 * frees its memory. */
void isthmus_scan_memory_release(isthmus_scan_memory *memory);

/* ---------------------------------------------------------------- Parquet encoding */

/* Writing Parquet data files for Iceberg tables (docs/encoder.md): Arrow batches in, a
 * file with the schema, encodings and statistics Iceberg's Java writer (parquet-java)
 * produces for the same table out, and the numbers Iceberg's Metrics and DataFile need.
 *
 * Schema.    An ArrowSchema whose format is "+s" and whose children are the table's
 *            columns, each with its Iceberg field id as the metadata entry
 *            "PARQUET:field_id" (decimal text). Types: b, i, l, f, g, d:P,S, tdD, ttu,
 *            tsu: (timestamp), tsu:<any zone> (timestamptz), tsn: / tsn:<zone> (nanos),
 *            u / U (string), z / Z (binary), w:L (fixed), and w:16 with the metadata
 *            entry "ARROW:extension:name" = "arrow.uuid" (uuid). A non-nullable field
 *            is a required column. Columns may nest structs (+s), lists (+l, +L) and
 *            maps (+m) of these; every field under them carries its own id too (a
 *            map's entries struct excepted), and they are laid out as Iceberg's writer
 *            lays them out (lists as list/element, maps as key_value/key/value). Types
 *            Iceberg does not have fail with UNSUPPORTED when the writer is opened.
 *            The struct's own metadata entries become the footer's key/value metadata
 *            (Iceberg puts "iceberg.schema" there).
 * Options.   Parallel arrays of NUL-terminated UTF-8 keys and values: Iceberg's table
 *            property names with Iceberg's defaults (write.parquet.compression-codec
 *            zstd|snappy|gzip|lz4|lz4_raw|brotli|uncompressed, ...-compression-level,
 *            ...-row-group-size-bytes 128 MiB, ...-page-size-bytes 1 MiB,
 *            ...-page-row-limit 20000, ...-dict-size-bytes 2 MiB, ...-page-version
 *            v1|v2, ...-row-group-check-min/max-record-count,
 *            write.parquet.stats-enabled.column.<name>), parquet-java's
 *            parquet.enable.dictionary and parquet.enable.dictionary#<name>, and
 *            isthmus.overwrite and isthmus.compression-threads (helper threads that
 *            compress pages, default 0: the caller compresses; the file is the same
 *            either way).
 *            Other keys are ignored, so a table's whole property map
 *            may be passed; a bad value of a known key is INVALID_ARGUMENT naming it.
 * Output.    A path writer writes a hidden temporary file next to the path and moves it
 *            to the path only when isthmus_writer_close succeeds; any failure, abort or
 *            free before that deletes it. A buffered writer keeps finished byte ranges
 *            (the magic, then a row group at a time, then page index and footer) until
 *            the caller takes them with isthmus_writer_take_output and writes them in
 *            order wherever it likes; at most one row group is buffered in between.
 * Failure.   A failing isthmus_writer_write (an array that does not match the schema, a
 *            null in a required column or in a required field nested in one, named by
 *            its path, a decimal beyond its precision, an I/O error)
 *            fails the writer: its partial output is discarded (temporary file deleted,
 *            untaken bytes dropped) and every later write, take_output and close reports
 *            the original error again. Nothing a failed writer produced may be committed.
 * Threads.   A writer may move between threads but takes one call at a time: a call
 *            that finds it busy on another thread fails with INVALID_ARGUMENT instead of
 *            waiting. Its helper threads (isthmus.compression-threads) live from open to
 *            close, abort or free. A result is immutable and may be read from any thread. */

typedef struct isthmus_writer isthmus_writer;
typedef struct isthmus_write_result isthmus_write_result;

/* Opens a writer of the local file `path` (NUL-terminated). `schema` is borrowed: it is
 * read during the call and stays the caller's to release. `option_keys` and
 * `option_values` hold `option_count` strings each (both may be NULL when the count is
 * 0). On success *out_writer is a new writer the caller frees with isthmus_writer_free.
 * Errors: INVALID_ARGUMENT (NULL pointers, a released or invalid schema, a missing or
 *         non-integer field id, duplicate names or ids, bad option values), UNSUPPORTED
 *         (non-Iceberg types), IO (the path exists and isthmus.overwrite is
 *         not true, or the temporary file cannot be created). */
int32_t isthmus_writer_open_path(const char *path, const struct ArrowSchema *schema,
                                 const char *const *option_keys,
                                 const char *const *option_values, uint32_t option_count,
                                 isthmus_writer **out_writer, isthmus_error *error);

/* Opens a writer whose bytes the caller takes with isthmus_writer_take_output; otherwise
 * as isthmus_writer_open_path. */
int32_t isthmus_writer_open_buffered(const struct ArrowSchema *schema,
                                     const char *const *option_keys,
                                     const char *const *option_values,
                                     uint32_t option_count, isthmus_writer **out_writer,
                                     isthmus_error *error);

/* Appends the rows of `array`, a struct array of the writer's columns, which is moved
 * into the library (released before return, success or not; see "Arrow exchange").
 * `schema` may be NULL; if given it is borrowed and its column types must equal the
 * writer's. The array is validated completely against the writer's schema first.
 * Errors: INVALID_ARGUMENT (NULL writer or array, a released or invalid array naming the
 *         column and the problem, a type that differs from the writer's, null rows of
 *         the struct itself, a null in a required column, a decimal value beyond its
 *         precision, a byte array beyond 2 GiB, the writer busy, closed, aborted or
 *         failed), IO, OUT_OF_MEMORY.
 *         Any error but a NULL or busy writer fails the writer (see "Failure"). */
int32_t isthmus_writer_write(isthmus_writer *writer, struct ArrowArray *array,
                             const struct ArrowSchema *schema, isthmus_error *error);

/* Buffered writers: writes the next finished byte range to *out_data / *out_length
 * (NULL and 0 when none is waiting: call until the length is 0 after each write and
 * after close). The bytes belong to the writer and stay valid until the next
 * isthmus_writer_take_output, isthmus_writer_abort or isthmus_writer_free on it.
 * Errors: INVALID_ARGUMENT (NULL pointers, a path writer, the writer busy, aborted or
 *         failed). */
int32_t isthmus_writer_take_output(isthmus_writer *writer, const uint8_t **out_data,
                                   uint64_t *out_length, isthmus_error *error);

/* Writes to *out_bytes_written the bytes of the file so far (written, or produced and
 * waiting to be taken), and to *out_estimated_length that plus the current row group's
 * buffered pages, as Iceberg's ParquetWriter.length() estimates a file for rolling at
 * write.target-file-size-bytes. The estimate may wait for pages being compressed on
 * helper threads; a failure there fails the writer (see "Failure").
 * Errors: INVALID_ARGUMENT (NULL pointers, the writer busy), OUT_OF_MEMORY, INTERNAL. */
int32_t isthmus_writer_size(const isthmus_writer *writer, uint64_t *out_bytes_written,
                            uint64_t *out_estimated_length, isthmus_error *error);

/* Completes the file: the last row group, the page index, the footer; a path writer's
 * file is then moved to its path. On success *out_result is a new result the caller
 * frees with isthmus_write_result_free; a buffered writer's remaining bytes are then
 * waiting to be taken. The writer itself stays allocated until isthmus_writer_free.
 * Errors: INVALID_ARGUMENT (NULL pointers, the writer busy, closed, aborted or failed),
 *         IO (the file cannot be written or moved; it is deleted). */
int32_t isthmus_writer_close(isthmus_writer *writer, isthmus_write_result **out_result,
                             isthmus_error *error);

/* Gives the file up: a path writer's temporary file is deleted, a buffered writer's
 * untaken bytes are dropped. Does nothing on a closed or aborted writer.
 * Errors: INVALID_ARGUMENT (NULL writer, the writer busy). */
int32_t isthmus_writer_abort(isthmus_writer *writer, isthmus_error *error);

/* Frees a writer, aborting it first unless it was closed; NULL is ignored. Must be called
 * exactly once, after every other call on the writer has returned. */
void isthmus_writer_free(isthmus_writer *writer);

/* Writes the file's row count, its size in bytes and its number of columns (leaf columns
 * in schema order, which index the functions below).
 * Errors: INVALID_ARGUMENT (NULL pointers). */
int32_t isthmus_write_result_file(const isthmus_write_result *result,
                                  uint64_t *out_record_count, uint64_t *out_file_size,
                                  uint32_t *out_column_count, isthmus_error *error);

/* Writes the row groups' start offsets (Iceberg's split offsets), ascending, to
 * *out_offsets (owned by the result, valid until isthmus_write_result_free; NULL when
 * the file has no row group) and their number to *out_count.
 * Errors: INVALID_ARGUMENT (NULL pointers). */
int32_t isthmus_write_result_split_offsets(const isthmus_write_result *result,
                                           const int64_t **out_offsets, uint32_t *out_count,
                                           isthmus_error *error);

/* One column's counts for Iceberg's Metrics: its field id, value count (nulls included),
 * null count, NaN count (floats and doubles; -1 for other types) and the compressed
 * bytes of its column chunks (Iceberg's column size).
 * Errors: INVALID_ARGUMENT (NULL pointers, a column index out of range). */
int32_t isthmus_write_result_column(const isthmus_write_result *result, uint32_t column,
                                    int32_t *out_field_id, int64_t *out_value_count,
                                    int64_t *out_null_count, int64_t *out_nan_count,
                                    int64_t *out_compressed_size, isthmus_error *error);

/* One column's lower and upper bounds over the whole file: the min and max values in the
 * PLAIN encoding of the column's Parquet type without a length prefix (little-endian
 * INT32/INT64/FLOAT/DOUBLE, 1 byte for BOOLEAN, the bytes of strings and binaries,
 * big-endian two's complement for FIXED_LEN_BYTE_ARRAY decimals), untruncated. Floats
 * and doubles leave NaN out (ordered as Java's Float.compare, -0.0 below +0.0), as
 * Iceberg's metrics do. An absent bound (no non-null value, or statistics disabled for
 * a column other than a float or double: Iceberg's writer tracks those bounds itself) is
 * NULL with length 0; a present one is never NULL, even when empty. The
 * bytes belong to the result and stay valid until isthmus_write_result_free.
 * Errors: INVALID_ARGUMENT (NULL pointers, a column index out of range). */
int32_t isthmus_write_result_column_bounds(const isthmus_write_result *result,
                                           uint32_t column, const uint8_t **out_min,
                                           uint64_t *out_min_length, const uint8_t **out_max,
                                           uint64_t *out_max_length, isthmus_error *error);

/* Frees a result; NULL is ignored. */
void isthmus_write_result_free(isthmus_write_result *result);

#ifdef __cplusplus
}
#endif

#endif /* ISTHMUS_H */
