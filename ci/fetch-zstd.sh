#!/usr/bin/env bash
# Fetches the libzstd archive the library compresses with: Debian trixie's libzstd-dev 1.5.7,
# the release Iceberg's zstd-jni bundles, which compresses level 3 about a fifth faster than
# bookworm's 1.5.4 (docs/benchmarks.md, Which libzstd). Decompression keeps the system's
# libzstd (rust-core/core/build.rs). The archive is checked against its SHA-256 and kept under
# ~/.cache/isthmus, where ci/env.sh points the build at it; a build without it compresses with
# the system's libzstd.
# Usage: ci/fetch-zstd.sh   (exit status 1 if the package cannot be fetched or does not match)
set -euo pipefail
source "$(dirname "$0")/env.sh"

url=http://deb.debian.org/debian/pool/main/libz/libzstd/libzstd-dev_1.5.7+dfsg-1_amd64.deb
deb_sha256=de5f8aabcf4cb5cd1b441495ea4c24838e88ecbb30ae22c032a1b3b68a9d6f1e
archive_sha256=a878f0a22598695eb5ff87d684a1b984624b7b10505872dd058595cd067ce275

if [ -f "$ISTHMUS_ZSTD_CACHE/libzstd.a" ] \
    && echo "$archive_sha256  $ISTHMUS_ZSTD_CACHE/libzstd.a" | sha256sum --check --status; then
    exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if ! curl -sSfL --retry 2 -m 120 -o "$work/zstd.deb" "$url"; then
    echo "cannot fetch $url" >&2
    exit 1
fi
if ! echo "$deb_sha256  $work/zstd.deb" | sha256sum --check --status; then
    echo "$url does not have the expected SHA-256 $deb_sha256" >&2
    exit 1
fi
dpkg-deb -x "$work/zstd.deb" "$work/x"
mkdir -p "$ISTHMUS_ZSTD_CACHE"
cp "$work/x/usr/lib/x86_64-linux-gnu/libzstd.a" "$work/libzstd.a"
echo "$archive_sha256  $work/libzstd.a" | sha256sum --check --status
mv "$work/libzstd.a" "$ISTHMUS_ZSTD_CACHE/libzstd.a"
echo "libzstd 1.5.7 for compression: $ISTHMUS_ZSTD_CACHE/libzstd.a"
