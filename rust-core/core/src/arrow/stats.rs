//! Counters of the Arrow data crossing the boundary (`isthmus_arrow_stats`), for
//! leak checks and metrics. Each counter is exact on its own; a snapshot of all
//! five is not atomic, which metrics and quiescent leak checks do not need.

use std::sync::atomic::{AtomicI64, Ordering};

static EXPORTED_LIVE: AtomicI64 = AtomicI64::new(0);
static EXPORTED_TOTAL: AtomicI64 = AtomicI64::new(0);
static EXPORTED_BYTES_LIVE: AtomicI64 = AtomicI64::new(0);
static IMPORTED_LIVE: AtomicI64 = AtomicI64::new(0);
static IMPORTED_TOTAL: AtomicI64 = AtomicI64::new(0);

/// The counters at one moment; the fields mean what `isthmus_arrow_stats`'s do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ArrowStats {
    pub exported_live: i64,
    pub exported_total: i64,
    pub exported_bytes_live: i64,
    pub imported_live: i64,
    pub imported_total: i64,
}

pub fn snapshot() -> ArrowStats {
    let get = |counter: &AtomicI64| counter.load(Ordering::Relaxed);
    ArrowStats {
        exported_live: get(&EXPORTED_LIVE),
        exported_total: get(&EXPORTED_TOTAL),
        exported_bytes_live: get(&EXPORTED_BYTES_LIVE),
        imported_live: get(&IMPORTED_LIVE),
        imported_total: get(&IMPORTED_TOTAL),
    }
}

pub(crate) fn array_exported() {
    EXPORTED_LIVE.fetch_add(1, Ordering::Relaxed);
    EXPORTED_TOTAL.fetch_add(1, Ordering::Relaxed);
}

pub(crate) fn exported_array_released() {
    EXPORTED_LIVE.fetch_sub(1, Ordering::Relaxed);
}

/// Buffer bytes handed out with one exported struct (or taken back on its release).
pub(crate) fn exported_bytes(bytes: usize, released: bool) {
    // Saturating is symmetric: the same sum is converted on export and release.
    let bytes = i64::try_from(bytes).unwrap_or(i64::MAX);
    let delta = if released { -bytes } else { bytes };
    EXPORTED_BYTES_LIVE.fetch_add(delta, Ordering::Relaxed);
}

pub(crate) fn array_imported() {
    IMPORTED_LIVE.fetch_add(1, Ordering::Relaxed);
    IMPORTED_TOTAL.fetch_add(1, Ordering::Relaxed);
}

pub(crate) fn imported_array_released() {
    IMPORTED_LIVE.fetch_sub(1, Ordering::Relaxed);
}
