/*
 * isthmus.h - the contract between the Isthmus Rust core (libisthmus.so) and its callers.
 *
 * This header is the single source of truth for the C ABI. The Java bindings in
 * ffm-bindings are generated from it; the Rust exports are checked against it at
 * test time (rust-core/tests/header_contract.rs). Change it deliberately: any change
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
#define ISTHMUS_ABI_VERSION 2

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

#ifdef __cplusplus
}
#endif

#endif /* ISTHMUS_H */
