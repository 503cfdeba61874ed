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

# The pool keeps a release while a suite holds it; the snapshot archive keeps it for good.
urls=(
    http://deb.debian.org/debian/pool/main/libz/libzstd/libzstd-dev_1.5.7+dfsg-1_amd64.deb
    https://snapshot.debian.org/archive/debian/20250701T000000Z/pool/main/libz/libzstd/libzstd-dev_1.5.7+dfsg-1_amd64.deb
)
deb_sha256=de5f8aabcf4cb5cd1b441495ea4c24838e88ecbb30ae22c032a1b3b68a9d6f1e
archive_sha256=a878f0a22598695eb5ff87d684a1b984624b7b10505872dd058595cd067ce275

if [ "$(uname -m)" != x86_64 ]; then
    echo "fetch-zstd: the package fetched is for x86_64, this machine is $(uname -m)" >&2
    exit 1
fi
if [ -f "$ISTHMUS_ZSTD_CACHE/libzstd.a" ] \
    && echo "$archive_sha256  $ISTHMUS_ZSTD_CACHE/libzstd.a" | sha256sum --check --status; then
    exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fetched=
for url in "${urls[@]}"; do
    if curl -sSfL --retry 2 -m 120 -o "$work/zstd.deb" "$url" \
        && echo "$deb_sha256  $work/zstd.deb" | sha256sum --check --status; then
        fetched=$url
        break
    fi
    echo "fetch-zstd: no package with SHA-256 $deb_sha256 at $url" >&2
done
[ -n "$fetched" ] || exit 1
dpkg-deb -x "$work/zstd.deb" "$work/x"
archive="$work/x/usr/lib/x86_64-linux-gnu/libzstd.a"
if ! echo "$archive_sha256  $archive" | sha256sum --check --status; then
    echo "fetch-zstd: the package's libzstd.a does not have the SHA-256 $archive_sha256" >&2
    exit 1
fi
# Copied beside its final name, then renamed: a build never sees half a file.
mkdir -p "$ISTHMUS_ZSTD_CACHE"
cp "$archive" "$ISTHMUS_ZSTD_CACHE/libzstd.a.part"
mv "$ISTHMUS_ZSTD_CACHE/libzstd.a.part" "$ISTHMUS_ZSTD_CACHE/libzstd.a"
echo "fetch-zstd: libzstd 1.5.7 for compression from $fetched: $ISTHMUS_ZSTD_CACHE/libzstd.a"
