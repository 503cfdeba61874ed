//! A std-only bench harness (crates.io is out of reach, so no criterion): each
//! case runs for a warm-up, then in timed samples of a calibrated number of
//! iterations, and prints the median and the spread of the samples' time per
//! iteration with the throughput it implies. Timings print; nothing asserts on
//! them.
//!
//! `cargo bench` (in `rust-core/`) runs every case; `cargo bench -- NAME` the
//! cases whose name contains NAME. The benches reach the encodings through
//! isthmus-core's `test-support` feature, which the crate's dev-dependency on
//! itself turns on; `cargo bench -p isthmus-core --features test-support` says
//! so explicitly. `ISTHMUS_BENCH_SAMPLES` (default 15) sets the samples.

use std::hint::black_box;
use std::time::{Duration, Instant};

/// How long a sample should take; iterations per sample are calibrated to it.
const SAMPLE: Duration = Duration::from_millis(100);

pub struct Bench {
    filter: Option<String>,
    samples: usize,
}

impl Bench {
    /// The harness for this process: its filter from the command line (cargo
    /// passes `--bench`, which is not one).
    pub fn from_args() -> Bench {
        let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
        let samples = std::env::var("ISTHMUS_BENCH_SAMPLES")
            .ok()
            .and_then(|s| s.parse().ok())
            .filter(|&n: &usize| n > 0)
            .unwrap_or(15);
        Bench { filter, samples }
    }

    /// Times `f`, which handles `bytes` bytes per call (0 for none to report).
    pub fn run<T>(&self, name: &str, bytes: usize, mut f: impl FnMut() -> T) {
        if self.filter.as_deref().is_some_and(|f| !name.contains(f)) {
            return;
        }
        let mut iterations = 1u64;
        // Warm-up and calibration: double until one sample lasts long enough.
        loop {
            let start = Instant::now();
            for _ in 0..iterations {
                black_box(f());
            }
            if start.elapsed() >= SAMPLE || iterations >= 1 << 30 {
                break;
            }
            iterations *= 2;
        }
        let mut per_iteration: Vec<f64> = (0..self.samples)
            .map(|_| {
                let start = Instant::now();
                for _ in 0..iterations {
                    black_box(f());
                }
                start.elapsed().as_nanos() as f64 / iterations as f64
            })
            .collect();
        per_iteration.sort_by(f64::total_cmp);
        let median = per_iteration[per_iteration.len() / 2];
        let throughput = if bytes > 0 {
            format!("{:>9.1} MB/s", bytes as f64 / median * 1e3)
        } else {
            String::new()
        };
        println!(
            "{name:<44} {:>12} per iteration ({} to {}) {throughput}",
            format_ns(median),
            format_ns(per_iteration[0]),
            format_ns(per_iteration[per_iteration.len() - 1]),
        );
    }
}

fn format_ns(ns: f64) -> String {
    if ns >= 1e6 {
        format!("{:.2} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.2} us", ns / 1e3)
    } else {
        format!("{ns:.1} ns")
    }
}
