#!/usr/bin/env bash
# Full exploration of 2019 training reach Problem11 (2,881,669 states) by one
# or more rigor binaries, each with every thread count of THREADS (0 is the
# sequential search with parent links; 1, 2, ... the level-synchronous
# search over the tree-compressed store), interleaved, RUNS times each:
# median wall time, peak resident memory, and peak bytes per stored state.
# Usage: benches/explore.sh [BIN...]   (default: target/release/rigor)
#        RUNS=5 THREADS="1 2" PROGRAM=path/to/Problem.c benches/explore.sh old/rigor new/rigor
set -euo pipefail
cd "$(dirname "$0")/.."
R=${RIGOR_RERS:-../shared/rers}
PROGRAM=${PROGRAM:-$R/2019/training-seq-reach/Problem11/Problem11.c}
RUNS=${RUNS:-3}
THREADS=${THREADS:-0 1 2}
BINS=("$@")
if [ ${#BINS[@]} -eq 0 ]; then
    cargo build --release -q
    BINS=(./target/release/rigor)
fi
[ -f "$PROGRAM" ] || { echo "$PROGRAM not found" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for _ in $(seq "$RUNS"); do
    for i in "${!BINS[@]}"; do
        for t in $THREADS; do
            "${BINS[$i]}" reach "$PROGRAM" --no-abstraction --quiet --json --threads "$t" \
                > "$tmp/json" 2> /dev/null || true
            python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["seconds"], d["peak_memory"], d["states"])' \
                "$tmp/json" >> "$tmp/$i-$t"
        done
    done
done
printf "%-32s %8s %10s %10s %12s %10s\n" binary threads states "wall(s)" "peak(MiB)" "B/state"
for i in "${!BINS[@]}"; do
    for t in $THREADS; do
        sort -n "$tmp/$i-$t" | awk -v b="${BINS[$i]}" -v t="$t" '{s[NR]=$1; m[NR]=$2; n[NR]=$3}
            END {k=int((NR+1)/2); printf "%-32s %8s %10d %10.2f %12.0f %10.1f\n",
                 b, t, n[k], s[k], m[k]/1048576, m[k]/n[k]}'
    done
done
