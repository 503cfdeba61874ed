//! Writer properties: Iceberg's table properties (and parquet-java's own
//! keys where Iceberg passes those through), parsed from key/value strings with
//! Iceberg's defaults.
//!
//! Unknown keys are ignored, because callers forward a table's whole property
//! map and most of it concerns other layers; a known key with a bad value is an
//! error naming the key.

use std::collections::HashMap;

use crate::compression::Codec;
use crate::error::{Error, Result};

/// `write.parquet.page-version`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageVersion {
    V1,
    V2,
}

/// Everything that shapes the file, with Iceberg's defaults.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriterOptions {
    /// `write.parquet.compression-codec`, default zstd (Iceberg's default for
    /// tables created since 1.4).
    pub(crate) codec: Codec,
    /// `write.parquet.compression-level`; 0 is the codec's default (zstd 3,
    /// gzip 6, brotli 1).
    pub(crate) level: i32,
    /// `write.parquet.row-group-size-bytes`, default 128 MiB.
    pub(crate) row_group_size: u64,
    /// `write.parquet.page-size-bytes`, default 1 MiB.
    pub(crate) page_size: usize,
    /// `write.parquet.page-row-limit`, default 20000.
    pub(crate) page_row_limit: usize,
    /// `write.parquet.dict-size-bytes`, default 2 MiB.
    pub(crate) dictionary_size: usize,
    /// `parquet.enable.dictionary`, default true.
    pub(crate) dictionary: bool,
    /// `parquet.enable.dictionary#<column>` overrides.
    pub(crate) column_dictionary: HashMap<String, bool>,
    /// `write.parquet.stats-enabled.column.<column>` overrides (default on).
    pub(crate) column_statistics: HashMap<String, bool>,
    /// `write.parquet.page-version`, default v1.
    pub(crate) page_version: PageVersion,
    /// `write.parquet.row-group-check-min-record-count` / `-max-`: how often
    /// the buffered size is compared with the row group size, as in Iceberg.
    pub(crate) row_group_check_min: u64,
    pub(crate) row_group_check_max: u64,
    /// `isthmus.overwrite`: path mode replaces an existing file.
    pub(crate) overwrite: bool,
    /// `isthmus.compression-threads`: helper threads that compress pages
    /// alongside the caller's thread (0: the caller compresses every page).
    /// The file is the same whatever the number.
    pub(crate) compression_threads: usize,
}

impl Default for WriterOptions {
    fn default() -> Self {
        WriterOptions {
            codec: Codec::Zstd,
            level: 0,
            row_group_size: 128 * 1024 * 1024,
            page_size: 1024 * 1024,
            page_row_limit: 20_000,
            dictionary_size: 2 * 1024 * 1024,
            dictionary: true,
            column_dictionary: HashMap::new(),
            column_statistics: HashMap::new(),
            page_version: PageVersion::V1,
            row_group_check_min: 100,
            row_group_check_max: 10_000,
            overwrite: false,
            compression_threads: 0,
        }
    }
}

/// Largest page or dictionary the writer accepts as a limit: page sizes are
/// Thrift i32s, and dictionary offsets are kept in 32 bits.
const MAX_PAGE_LIMIT: u64 = 1 << 30;

pub(crate) const CODEC_KEY: &str = "write.parquet.compression-codec";
pub(crate) const LEVEL_KEY: &str = "write.parquet.compression-level";
pub(crate) const ROW_GROUP_SIZE_KEY: &str = "write.parquet.row-group-size-bytes";
pub(crate) const PAGE_SIZE_KEY: &str = "write.parquet.page-size-bytes";
pub(crate) const PAGE_ROW_LIMIT_KEY: &str = "write.parquet.page-row-limit";
pub(crate) const DICT_SIZE_KEY: &str = "write.parquet.dict-size-bytes";
pub(crate) const PAGE_VERSION_KEY: &str = "write.parquet.page-version";
pub(crate) const DICTIONARY_KEY: &str = "parquet.enable.dictionary";
pub(crate) const COLUMN_DICTIONARY_PREFIX: &str = "parquet.enable.dictionary#";
pub(crate) const COLUMN_STATS_PREFIX: &str = "write.parquet.stats-enabled.column.";
pub(crate) const CHECK_MIN_KEY: &str = "write.parquet.row-group-check-min-record-count";
pub(crate) const CHECK_MAX_KEY: &str = "write.parquet.row-group-check-max-record-count";
pub(crate) const OVERWRITE_KEY: &str = "isthmus.overwrite";
pub(crate) const COMPRESSION_THREADS_KEY: &str = "isthmus.compression-threads";
/// Most helper threads one writer may have.
const MAX_COMPRESSION_THREADS: u64 = 64;

impl WriterOptions {
    /// Parses `key = value` pairs over the defaults; later pairs win.
    pub fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Result<Self> {
        let mut options = WriterOptions::default();
        for (key, value) in pairs {
            options.set(key, value)?;
        }
        options.check()?;
        Ok(options)
    }

    /// Applies one property; unknown keys are ignored.
    pub(crate) fn set(&mut self, key: &str, value: &str) -> Result<()> {
        let bad = |what: &str| Error::invalid_argument(format!("option {key} = '{value}': {what}"));
        let trimmed = value.trim();
        match key {
            CODEC_KEY => self.codec = parse_codec(trimmed).map_err(|e| bad(&e))?,
            LEVEL_KEY => {
                self.level = if trimmed.is_empty() {
                    0
                } else {
                    trimmed
                        .parse()
                        .map_err(|_| bad("expected an integer level"))?
                }
            }
            ROW_GROUP_SIZE_KEY => {
                self.row_group_size = positive(trimmed, i64::MAX as u64).map_err(|e| bad(&e))?
            }
            PAGE_SIZE_KEY => {
                self.page_size = positive(trimmed, MAX_PAGE_LIMIT).map_err(|e| bad(&e))? as usize
            }
            PAGE_ROW_LIMIT_KEY => {
                self.page_row_limit =
                    positive(trimmed, i32::MAX as u64).map_err(|e| bad(&e))? as usize
            }
            DICT_SIZE_KEY => {
                self.dictionary_size =
                    positive(trimmed, MAX_PAGE_LIMIT).map_err(|e| bad(&e))? as usize
            }
            PAGE_VERSION_KEY => {
                self.page_version = match trimmed.to_ascii_lowercase().as_str() {
                    "v1" => PageVersion::V1,
                    "v2" => PageVersion::V2,
                    _ => return Err(bad("expected v1 or v2")),
                }
            }
            DICTIONARY_KEY => self.dictionary = boolean(trimmed).map_err(|e| bad(&e))?,
            CHECK_MIN_KEY => {
                self.row_group_check_min =
                    positive(trimmed, i32::MAX as u64).map_err(|e| bad(&e))?
            }
            CHECK_MAX_KEY => {
                self.row_group_check_max =
                    positive(trimmed, i32::MAX as u64).map_err(|e| bad(&e))?
            }
            OVERWRITE_KEY => self.overwrite = boolean(trimmed).map_err(|e| bad(&e))?,
            COMPRESSION_THREADS_KEY => {
                self.compression_threads = match trimmed.parse::<u64>() {
                    Ok(n) if n <= MAX_COMPRESSION_THREADS => n as usize,
                    _ => return Err(bad(&format!("expected 0..={MAX_COMPRESSION_THREADS}"))),
                }
            }
            _ => {
                if let Some(column) = key.strip_prefix(COLUMN_DICTIONARY_PREFIX) {
                    let enabled = boolean(trimmed).map_err(|e| bad(&e))?;
                    self.column_dictionary.insert(column.to_owned(), enabled);
                } else if let Some(column) = key.strip_prefix(COLUMN_STATS_PREFIX) {
                    let enabled = boolean(trimmed).map_err(|e| bad(&e))?;
                    self.column_statistics.insert(column.to_owned(), enabled);
                }
            }
        }
        Ok(())
    }

    /// Checks what single keys cannot: the level against the codec, and the
    /// row group check bounds against each other.
    pub(crate) fn check(&self) -> Result<()> {
        if self.row_group_check_max < self.row_group_check_min {
            return Err(Error::invalid_argument(format!(
                "option {CHECK_MAX_KEY} ({}) is below {CHECK_MIN_KEY} ({})",
                self.row_group_check_max, self.row_group_check_min
            )));
        }
        // Compressing nothing resolves the level exactly as every page will.
        let mut out = vec![0u8; self.codec.max_compressed_len(0)?.max(64)];
        self.codec
            .compress(self.level, &[], &mut out)
            .map_err(|e| e.context(format_args!("option {LEVEL_KEY} = {}", self.level)))?;
        Ok(())
    }

    /// Whether `column` (a top-level field name) is dictionary-encoded.
    pub(crate) fn dictionary_for(&self, column: &str) -> bool {
        self.column_dictionary
            .get(column)
            .copied()
            .unwrap_or(self.dictionary)
    }

    /// Whether `column` gets min/max statistics.
    pub(crate) fn statistics_for(&self, column: &str) -> bool {
        self.column_statistics.get(column).copied().unwrap_or(true)
    }
}

/// Iceberg's codec names (parquet-java's `CompressionCodecName`, case-insensitive).
/// Iceberg's "lz4" is parquet-java's LZ4, the deprecated Hadoop-framed codec.
fn parse_codec(name: &str) -> Result<Codec, String> {
    Ok(match name.to_ascii_lowercase().as_str() {
        "zstd" => Codec::Zstd,
        "snappy" => Codec::Snappy,
        "gzip" => Codec::Gzip,
        "lz4" => Codec::Lz4Hadoop,
        "lz4_raw" => Codec::Lz4Raw,
        "brotli" => Codec::Brotli,
        "uncompressed" | "none" => Codec::Uncompressed,
        "lzo" => return Err("LZO is not supported".into()),
        _ => {
            return Err("expected zstd, snappy, gzip, lz4, lz4_raw, brotli or uncompressed".into())
        }
    })
}

fn positive(text: &str, max: u64) -> Result<u64, String> {
    match text.parse::<u64>() {
        Ok(n) if n > 0 && n <= max => Ok(n),
        Ok(_) => Err(format!("expected a value in 1..={max}")),
        Err(_) => Err("expected a positive integer".into()),
    }
}

fn boolean(text: &str) -> Result<bool, String> {
    match text.to_ascii_lowercase().as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err("expected true or false".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Status;

    #[test]
    fn defaults_are_icebergs() {
        let options = WriterOptions::from_pairs([]).unwrap();
        assert_eq!(options, WriterOptions::default());
        assert_eq!(options.codec, Codec::Zstd);
        assert_eq!(options.row_group_size, 134_217_728);
        assert_eq!(options.page_size, 1_048_576);
        assert_eq!(options.page_row_limit, 20_000);
        assert_eq!(options.dictionary_size, 2_097_152);
        assert_eq!(options.page_version, PageVersion::V1);
    }

    #[test]
    fn properties_are_parsed() {
        let options = WriterOptions::from_pairs([
            (CODEC_KEY, "LZ4"),
            (LEVEL_KEY, ""),
            (PAGE_VERSION_KEY, "v2"),
            (DICTIONARY_KEY, "false"),
            ("parquet.enable.dictionary#name", "true"),
            ("write.parquet.stats-enabled.column.blob", "false"),
            ("write.target-file-size-bytes", "whatever"),
            (ROW_GROUP_SIZE_KEY, "1000"),
        ])
        .unwrap();
        assert_eq!(options.codec, Codec::Lz4Hadoop);
        assert_eq!(options.page_version, PageVersion::V2);
        assert!(!options.dictionary_for("other"));
        assert!(options.dictionary_for("name"));
        assert!(!options.statistics_for("blob"));
        assert!(options.statistics_for("name"));
        assert_eq!(options.row_group_size, 1000);
    }

    #[test]
    fn bad_values_name_the_key() {
        let cases = [
            (
                CODEC_KEY,
                "lzo",
                "option write.parquet.compression-codec = 'lzo': LZO is not supported",
            ),
            (CODEC_KEY, "foo", "expected zstd, snappy"),
            (
                PAGE_SIZE_KEY,
                "0",
                "option write.parquet.page-size-bytes = '0': expected a value in 1..=",
            ),
            (PAGE_SIZE_KEY, "-5", "expected a positive integer"),
            (PAGE_VERSION_KEY, "v3", "expected v1 or v2"),
            (DICTIONARY_KEY, "yes", "expected true or false"),
            (LEVEL_KEY, "x", "expected an integer level"),
        ];
        for (key, value, message) in cases {
            let err = WriterOptions::from_pairs([(key, value)]).unwrap_err();
            assert_eq!(err.status(), Status::InvalidArgument);
            assert!(err.message().contains(message), "{key}={value}: {err}");
        }
        let err = WriterOptions::from_pairs([(CODEC_KEY, "zstd"), (LEVEL_KEY, "99")]).unwrap_err();
        assert!(
            err.message()
                .starts_with("option write.parquet.compression-level = 99"),
            "{err}"
        );
        let err =
            WriterOptions::from_pairs([(CHECK_MIN_KEY, "50"), (CHECK_MAX_KEY, "10")]).unwrap_err();
        assert!(err.message().contains("is below"), "{err}");
    }
}
