//! Helpers of the decoder's tests: a mutation harness that feeds damaged
//! encodings to a decoder ([`fuzz`]), a minimal Parquet writer ([`writer`]),
//! scans of in-memory files ([`scan`]), the canonical text of Arrow values
//! ([`render`]) and Thrift structs as trees of fields ([`thrift_tree`]).

pub mod render;
pub mod scan;
pub mod thrift_tree;
pub mod writer;

use crate::error::{Result, Status};

pub use super::rng::Rng;

/// Which statuses a decoder may fail with on damaged input.
fn acceptable(status: Status) -> bool {
    matches!(status, Status::CorruptData | Status::Unsupported)
}

/// Damages `valid` in many ways and decodes each result: every prefix, then
/// `cases` random mutations (byte replacements, bit flips, insertions,
/// deletions, runs of 0x00/0xFF). Decoding must not panic, and failures must
/// be CORRUPT_DATA or UNSUPPORTED. Returns how many mutants decoded without
/// error, so callers can check that the harness exercised both outcomes.
pub fn fuzz(valid: &[u8], cases: usize, seed: u64, decode: impl Fn(&[u8]) -> Result<()>) -> usize {
    let check = |input: &[u8], what: &str| -> bool {
        match decode(input) {
            Ok(()) => true,
            Err(e) => {
                assert!(acceptable(e.status()), "{what}: unexpected status {e}");
                false
            }
        }
    };
    let mut ok = 0;
    for len in 0..valid.len() {
        ok += usize::from(check(&valid[..len], "truncation"));
    }
    let mut rng = Rng::new(seed);
    let mut input = Vec::with_capacity(valid.len() + 16);
    for _ in 0..cases {
        input.clear();
        input.extend_from_slice(valid);
        for _ in 0..1 + rng.below(4) {
            if input.is_empty() {
                input.push(rng.byte());
                continue;
            }
            let at = rng.below(input.len());
            match rng.below(6) {
                0 => input[at] = rng.byte(),
                1 => input[at] ^= 1 << rng.below(8),
                2 => input.insert(at, rng.byte()),
                3 => {
                    input.remove(at);
                }
                4 => {
                    let end = (at + 1 + rng.below(8)).min(input.len());
                    input[at..end].fill(0xff);
                }
                _ => {
                    let end = (at + 1 + rng.below(8)).min(input.len());
                    input[at..end].fill(0);
                }
            }
        }
        ok += usize::from(check(&input, "mutation"));
    }
    ok
}
