#!/usr/bin/env bash
# Runs ci/nexmark-report.py on ci/fixtures/nexmark-sample.csv and checks numbers worked out by
# hand from that file, then that --check accepts the section it wrote and rejects a tampered one.
# The fixture: heap/off has all 23 queries, a warm-up pair (9,000 / 8,000 ms, so it would move
# every median if it were counted) and 3 measured pairs, native 990/1,000/1,030 ms and stock
# ratio*1000 + 0/50/-20 ms; the ratios are 1.0 except q0 0.5, q1 2, q4 2, q9 2, q12 4, q17 2,
# q18 1.5 (parity fails in its warm-up pair) and q22 0.8 (a native run's proof fails).
# rocksdb/on has q0 and q4 with 2 measured pairs, for the even-count median; q4's pair 1 says
# parity pass but its digests differ, which the script counts as a failed pair.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
report=ci/nexmark-report.py
fixture=ci/fixtures/nexmark-sample.csv

fail() { echo "nexmark-report-test: $*" >&2; exit 1; }
has() { grep -qF -- "$2" "$1" || fail "$1 lacks: $2"; }

"$report" "$fixture" --json "$tmp/n.json" --svg "$tmp/n.svg" > "$tmp/out.md"
"$report" "$fixture" --mode heap/off --svg "$tmp/heap.svg" > /dev/null
# Medians of the measured pairs only; the ratio is of the medians.
has "$tmp/out.md" '| q0 | 500 (480-550) | 1,000 (990-1,030) | 0.50x | pass | ok | 5,000 | 5 |'
has "$tmp/out.md" '| q18 | 1,500 (1,480-1,550) | 1,000 (990-1,030) | 1.50x | FAIL 1/4 | ok | 5,000 (stock differs: pair 0) | 5 |'
has "$tmp/out.md" '| FAIL "fallback: 2 tasks fell back; expected 0" |'
has "$tmp/out.md" '| q12 | 4,000 (3,980-4,050) | 1,000 (990-1,030) | 4.00x | pass | ok | 100-102 | 5 |'
# Even count: (1,100 + 1,300) / 2 and (3 + 4) / 2 data files.
has "$tmp/out.md" '| q0 | 1,200 (1,100-1,300) | 1,000 (990-1,010) | 1.20x | pass | ok | 700 | 3.5 |'
has "$tmp/out.md" '| q4 | 950 (900-1,000) | 1,050 (1,000-1,100) | 0.90x | FAIL 1/3 | ok | 700 | 3.5 |'
# q18 and q22 are out: all = (0.5*2*2*2*4*2)^(1/21) = 32^(1/21) = 1.179, append-only (15 left)
# 4^(1/15) = 1.097, updating (6 left) 8^(1/6) = 1.414, without q12 8^(1/20) = 1.110.
has "$tmp/out.md" 'passed (21): 1.18x; append-only 1.10x (15), updating 1.41x (6), I/O-comparable (without q12, which runs on processing time) 1.11x (20). Below 0.95x: 1 (q0). Excluded: q18 (parity), q22 (proof).'
python3 - "$tmp/n.json" "$tmp/n.svg" "$tmp/heap.svg" <<'PY'
import json, math, sys, xml.dom.minidom
heap = json.load(open(sys.argv[1]))[0]
assert heap['mode'] == 'heap/off' and heap['queries']['q22']['ratio'] == 0.8
for subset, want in {'all': 32 ** (1 / 21), 'append-only': 4 ** (1 / 15), 'updating': 2 ** 0.5,
                     'I/O-comparable': 8 ** (1 / 20)}.items():
    got = heap['geomeans'][subset]['geomean']
    assert math.isclose(got, want, rel_tol=1e-12), (subset, got, want)
def bars(path):
    """The chart's bars by their tooltips: one per query and mode with a ratio."""
    return [t.firstChild.data for t in xml.dom.minidom.parse(path).getElementsByTagName('title')]
both = bars(sys.argv[2])  # heap/off's 23 queries beside rocksdb/on's q0 and q4
assert len(both) == 25 and 'q4 rocksdb/on 0.90x' in both and 'q0 heap/off 0.50x' in both, both
assert len(bars(sys.argv[3])) == 23 and not any('rocksdb' in b for b in bars(sys.argv[3]))
PY

# --check: the section just written matches; a number changed by hand does not.
mkdir -p "$tmp/docs/benchmarks"
cp "$fixture" "$tmp/docs/benchmarks/"
printf '# Nexmark\n\nText the report must keep.\n' > "$tmp/docs/b.md"
"$report" "$tmp/docs/benchmarks/nexmark-sample.csv" --markdown "$tmp/docs/b.md" --section sample
has "$tmp/docs/b.md" 'from: benchmarks/nexmark-sample.csv -->'
has "$tmp/docs/b.md" 'Text the report must keep.'
"$report" --check --markdown "$tmp/docs/b.md" > /dev/null || fail '--check rejected the section it wrote'
# Writing again replaces the section in place and keeps what follows it.
echo 'Text after the section.' >> "$tmp/docs/b.md"
sed -i 's/| q4 | 2,000 (/| q4 | 2,010 (/' "$tmp/docs/b.md"
"$report" "$tmp/docs/benchmarks/nexmark-sample.csv" --markdown "$tmp/docs/b.md" --section sample
[ "$(grep -c 'nexmark:sample:start' "$tmp/docs/b.md")" = 1 ] || fail 'a second section was written'
has "$tmp/docs/b.md" 'Text after the section.'
"$report" --check --markdown "$tmp/docs/b.md" > /dev/null || fail '--check rejected the rewritten section'
sed -i 's/| q4 | 2,000 (/| q4 | 2,010 (/' "$tmp/docs/b.md"
set +e
"$report" --check --markdown "$tmp/docs/b.md" > "$tmp/diff"
rc=$?
set -e
[ "$rc" = 1 ] || fail "--check gave $rc on a tampered section, not 1"
has "$tmp/diff" '-| q4 | 2,010 ('
# A run that failed (millis -1, digest -) fails its pair, keeps its reason, and is in no median.
{
    head -n 1 "$fixture"
    cat <<'CSV'
heap/off,q0,0,stock,1,900,5000,1000000000000000,pass,"ok",1,10,0,0,0
heap/off,q0,0,native,2,800,5000,1000000000000000,pass,"ok",1,10,0,4,0
heap/off,q0,1,stock,1,600,5000,1000000000000000,fail,"ok",1,10,0,0,0
heap/off,q0,1,native,2,-1,-1,-,fail,"the run failed: boom",0,0,0,0,0
heap/off,q0,2,native,1,300,5000,1000000000000000,pass,"ok",1,10,0,4,0
heap/off,q0,2,stock,2,500,5000,1000000000000000,pass,"ok",1,10,0,0,0
CSV
} > "$tmp/failed.csv"
"$report" "$tmp/failed.csv" > "$tmp/failed.md"
has "$tmp/failed.md" '| q0 | 550 (500-600) | 300 (300-300) | 1.83x | FAIL 1/3 | FAIL "the run failed: boom" | 5,000 |'
echo "nexmark-report-test: ok"
