//! The CRC-32 of page checksums: the IEEE/zlib polynomial, computed over the
//! page bytes that follow the header (compressed, as stored).
//!
//! zlib is linked statically for GZIP already, and its `crc32` (a braided
//! table implementation, a few GB/s) handles short inputs and CPUs without
//! carry-less multiplication; it takes `uInt` lengths, so longer inputs are fed
//! in pieces. On x86-64 with PCLMULQDQ, pages are folded 64 bytes at a time with
//! carry-less multiplies instead (Intel's "Fast CRC Computation for Generic
//! Polynomials Using PCLMULQDQ", the method of Linux and zlib-ng), several
//! times faster: checksums are checked by default, on every page.

use std::os::raw::{c_uint, c_ulong};

extern "C" {
    fn crc32(crc: c_ulong, buf: *const u8, len: c_uint) -> c_ulong;
}

/// Extends `crc` (the value for the bytes so far; 0 to start) with `data`.
pub(crate) fn crc32_update(crc: u32, data: &[u8]) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if data.len() >= folding::MIN_LEN && folding::available() {
        // SAFETY: the CPU supports the instructions, checked just above.
        return unsafe { folding::update(crc, data) };
    }
    zlib_update(crc, data)
}

fn zlib_update(crc: u32, data: &[u8]) -> u32 {
    let mut crc = c_ulong::from(crc);
    for chunk in data.chunks(c_uint::MAX as usize) {
        // SAFETY: the pointer and length describe `chunk`, which zlib only reads.
        crc = unsafe { crc32(crc, chunk.as_ptr(), chunk.len() as c_uint) };
    }
    // zlib keeps the CRC in the low 32 bits of its unsigned long.
    crc as u32
}

#[cfg(target_arch = "x86_64")]
mod folding {
    use std::arch::x86_64::*;

    /// Shorter inputs are not worth the setup.
    pub(super) const MIN_LEN: usize = 128;

    // x^k mod P(x) for the bit-reflected IEEE polynomial, as in the paper:
    // folding 4 x 128 bits (K1, K2), 128 bits (K3, K4), 64 to 32 (K5), and
    // the Barrett reduction's P(x) and mu = x^64 / P(x).
    const K1: i64 = 0x1_5444_2bd4;
    const K2: i64 = 0x1_c6e4_1596;
    const K3: i64 = 0x1_7519_97d0;
    const K4: i64 = 0x0_ccaa_009e;
    const K5: i64 = 0x1_63cd_6124;
    const P_X: i64 = 0x1_db71_0641;
    const MU: i64 = 0x1_f701_1641;

    pub(super) fn available() -> bool {
        is_x86_feature_detected!("pclmulqdq") && is_x86_feature_detected!("sse4.1")
    }

    /// # Safety
    /// The CPU supports PCLMULQDQ and SSE4.1.
    #[target_feature(enable = "pclmulqdq,sse4.1")]
    pub(super) unsafe fn update(crc: u32, data: &[u8]) -> u32 {
        let blocks = data.len() / 16;
        if blocks < 4 {
            return super::zlib_update(crc, data);
        }
        let load = |i: usize| {
            let block: &[u8; 16] = data[i * 16..i * 16 + 16].try_into().unwrap_or(&[0; 16]);
            // SAFETY: an unaligned load of exactly the 16 bytes of `block`.
            unsafe { _mm_loadu_si128(block.as_ptr().cast()) }
        };
        // The running value enters as the complement, as in every CRC-32 update.
        let mut x3 = _mm_xor_si128(load(0), _mm_cvtsi32_si128(!crc as i32));
        let (mut x2, mut x1, mut x0) = (load(1), load(2), load(3));
        let k1k2 = _mm_set_epi64x(K2, K1);
        let mut next = 4;
        while next + 4 <= blocks {
            x3 = fold(x3, load(next), k1k2);
            x2 = fold(x2, load(next + 1), k1k2);
            x1 = fold(x1, load(next + 2), k1k2);
            x0 = fold(x0, load(next + 3), k1k2);
            next += 4;
        }
        let k3k4 = _mm_set_epi64x(K4, K3);
        let mut x = fold(fold(fold(x3, x2, k3k4), x1, k3k4), x0, k3k4);
        while next < blocks {
            x = fold(x, load(next), k3k4);
            next += 1;
        }
        // 128 bits to 64, then to 32 with the Barrett reduction (bit-reflected).
        let low32 = _mm_set_epi32(0, 0, 0, !0);
        x = _mm_xor_si128(_mm_clmulepi64_si128(x, k3k4, 0x10), _mm_srli_si128(x, 8));
        x = _mm_xor_si128(
            _mm_clmulepi64_si128(_mm_and_si128(x, low32), _mm_set_epi64x(0, K5), 0x00),
            _mm_srli_si128(x, 4),
        );
        let pu = _mm_set_epi64x(MU, P_X);
        let t1 = _mm_clmulepi64_si128(_mm_and_si128(x, low32), pu, 0x10);
        let t2 = _mm_clmulepi64_si128(_mm_and_si128(t1, low32), pu, 0x00);
        let folded = !(_mm_extract_epi32(_mm_xor_si128(x, t2), 1) as u32);
        super::zlib_update(folded, &data[blocks * 16..])
    }

    /// `a` folded over 128 bits onto `b` with the key pair `keys`.
    #[inline]
    #[target_feature(enable = "pclmulqdq,sse4.1")]
    fn fold(a: __m128i, b: __m128i, keys: __m128i) -> __m128i {
        let low = _mm_clmulepi64_si128(a, keys, 0x00);
        let high = _mm_clmulepi64_si128(a, keys, 0x11);
        _mm_xor_si128(_mm_xor_si128(b, low), high)
    }
}

pub(crate) fn crc32_of(data: &[u8]) -> u32 {
    crc32_update(0, data)
}

/// Compares a page's stored checksum (the header's signed `crc` field) with its
/// bytes.
pub(crate) fn verify_page_crc(expected: i32, page: &[u8]) -> crate::error::Result<()> {
    let actual = crc32_of(page);
    if actual == expected as u32 {
        return Ok(());
    }
    Err(crate::error::Error::corrupt_data(format!(
        "page checksum mismatch: header says {:#010x}, the {} page bytes give {actual:#010x}",
        expected as u32,
        page.len()
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_length_and_split_agrees_with_zlib() {
        let data: Vec<u8> = (0..5000u32)
            .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
            .collect();
        for len in (0..600).chain([1023, 1024, 1025, 4096, 4999, 5000]) {
            let slice = &data[..len];
            assert_eq!(crc32_of(slice), zlib_update(0, slice), "length {len}");
            let half = len / 3;
            assert_eq!(
                crc32_update(crc32_update(0, &slice[..half]), &slice[half..]),
                zlib_update(0, slice),
                "length {len} split at {half}"
            );
        }
        assert_eq!(crc32_of(&[0xff; 1000]), zlib_update(0, &[0xff; 1000]));
    }
}
