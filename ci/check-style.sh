#!/usr/bin/env bash
# Style gates, so that style never needs a review comment: rustfmt's layout and clippy's lints,
# warnings as errors, over the library and its tests.
set -euo pipefail
cd "$(dirname "$0")/../rust-core"
for tool in fmt clippy; do
    if ! cargo "$tool" --version >/dev/null 2>&1; then
        echo "cargo $tool is required (the Rust toolchain's rustfmt and clippy components)" >&2
        exit 1
    fi
done
cargo fmt --check
cargo clippy --all-targets --locked --quiet -- -D warnings
echo "style: rustfmt and clippy clean"
