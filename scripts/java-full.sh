#!/usr/bin/env bash
# Full (long-running) checks of the Java front end, beyond what CI runs:
#  1. every reachability verdict of truth.tsv for the .java programs,
#     with `rigor reach` (release build) and a generous timeout;
#  2. `rigor compare` of every C/Java pair with both files.
# Usage: scripts/java-full.sh [TIMEOUT_SECONDS]   (default 1800 per run)
# Data: $RIGOR_RERS, else ../shared/rers. Prints one line per run.
set -u
cd "$(dirname "$0")/.."
T=${1:-1800}
RERS=${RIGOR_RERS:-../shared/rers}
[ -f "$RERS/truth.tsv" ] || { echo "RERS data not found at $RERS (set RIGOR_RERS): skipped"; exit 0; }
cargo build --release --quiet || exit 1
BIN=${CARGO_TARGET_DIR:-target}/release/rigor
fail=0
for p in $(awk -F'\t' '$3=="reach" && $1 ~ /\.java$/ {print $1}' "$RERS/truth.tsv" | sort -u); do
    json=$(mktemp)
    "$BIN" reach --json --quiet --timeout "$T" "$RERS/$p" > "$json" || { echo "$p: rigor failed"; fail=1; continue; }
    python3 - "$RERS/truth.tsv" "$p" "$json" <<'PY' || fail=1
import json, sys
truth_file, prog, rep = sys.argv[1:]
truth = {}
for line in open(truth_file):
    f = line.rstrip("\n").split("\t")
    if f[0] == prog and f[2] == "reach":
        truth[int(f[3])] = f[4] == "true"
r = json.load(open(rep))
ok = bad = unk = 0
for v in r["verdicts"]:
    if v["verdict"] is None:
        unk += 1
    elif truth.get(v["property"]) == v["verdict"]:
        ok += 1
    else:
        bad += 1
print(f"reach {prog}: {ok} right, {bad} wrong, {unk} unknown of {len(truth)}; "
      f"states {r['states']}, complete {r['complete']}, {r['seconds']:.1f} s, "
      f"peak {(r.get('peak_memory') or 0) / 2**20:.0f} MiB")
sys.exit(1 if bad else 0)
PY
    rm -f "$json"
done
for j in $(cd "$RERS" && find 2017 2019 -name 'Problem*.java' | sort); do
    c=${j%.java}.c
    [ -f "$RERS/$c" ] || continue
    out=$("$BIN" compare --quiet --timeout "$T" "$RERS/$c" "$RERS/$j")
    rc=$?
    echo "compare $j (exit $rc): $(echo "$out" | head -3 | tr '\n' ' ')"
done
exit $fail
