#!/usr/bin/env bash
# Style gates, so that style never needs a review comment: rustfmt's layout and clippy's lints,
# warnings as errors, over both crates of the rust-core workspace and all their targets (tests,
# benches). Clippy runs twice: over every target, where the test and bench builds turn on
# isthmus-core's test-support feature, and over the libraries alone, built as a release is,
# without it, so that code only the tests call shows up as dead code.
set -euo pipefail
cd "$(dirname "$0")/../rust-core"
for tool in fmt clippy; do
    if ! cargo "$tool" --version >/dev/null 2>&1; then
        echo "cargo $tool is required (the Rust toolchain's rustfmt and clippy components)" >&2
        exit 1
    fi
done
cargo fmt --all --check
cargo clippy --workspace --all-targets --locked --quiet -- -D warnings
cargo clippy --workspace --lib --locked --quiet -- -D warnings
echo "style: rustfmt and clippy clean"
