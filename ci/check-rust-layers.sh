#!/usr/bin/env bash
# The core's modules use only the ones below them (docs/architecture.md, "Who uses whom"): the
# decoder and the encoder use the format layer, the Arrow layer, the codecs and the errors, and
# neither uses the other; the format layer knows no in-memory format; the Arrow layer reaches
# only the panic guard and the errors. A `crate::` path in main code (tests and their support
# tree aside) that goes anywhere else fails this check.
set -euo pipefail
cd "$(dirname "$0")/../rust-core/core/src"
python3 - <<'PY'
import pathlib, re, sys

ALLOWED = {
    "error": set(),
    "panic_guard": {"error"},
    "compression": {"error"},
    "arrow": {"error", "panic_guard"},
    "parquet::format": {"error", "compression"},
    "parquet::read": {"error", "compression", "arrow", "parquet::format"},
    "parquet::write": {"error", "compression", "arrow", "parquet::format"},
}


def module(parts):
    if parts[0] != "parquet":
        return parts[0]
    return "parquet::" + parts[1] if len(parts) > 1 and parts[1] in ("read", "write") else "parquet::format"


bad = []
for path in sorted(pathlib.Path(".").rglob("*.rs")):
    parts = [p.removesuffix(".rs") for p in path.parts]
    if parts[0] in ("lib", "tests", "test_support"):
        continue
    own = module(parts)
    if own not in ALLOWED:
        bad.append(f"{path}: module {own} is not in this check's ALLOWED")
        continue
    # A file's test module sits at its end (other `#[cfg(test)]` items stay checked); doc comments
    # name paths without using them.
    code = re.split(r"#\[cfg\(test\)\]\s*mod\s+\w+\s*\{", path.read_text())[0]
    code = "\n".join(line for line in code.splitlines() if not line.lstrip().startswith("//"))
    for first, second in re.findall(r"\bcrate::([a-z_]+)(?:::([a-z_]+))?", code):
        used = module([first, second] if second else [first])
        if used != own and used not in ALLOWED[own]:
            bad.append(f"{path}: {own} uses {used}")
if bad:
    print("uses against the core's layering (docs/architecture.md):", *sorted(set(bad)), sep="\n  ", file=sys.stderr)
    sys.exit(1)
print("check-rust-layers: ok")
PY
