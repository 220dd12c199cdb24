#!/usr/bin/env bash
# Full exploration of 2019 training reach Problem11 (2,881,669 states) by one
# or more rigor binaries, interleaved, RUNS times each: median wall time and
# peak resident memory per binary (whole processes, /usr/bin/time).
# Usage: benches/explore.sh [BIN...]   (default: target/release/rigor)
#        RUNS=5 PROGRAM=path/to/Problem.c benches/explore.sh old/rigor new/rigor
set -euo pipefail
cd "$(dirname "$0")/.."
R=${RIGOR_RERS:-../shared/rers}
PROGRAM=${PROGRAM:-$R/2019/training-seq-reach/Problem11/Problem11.c}
RUNS=${RUNS:-3}
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
        /usr/bin/time -f "%e %M" -a -o "$tmp/$i" "${BINS[$i]}" reach "$PROGRAM" \
            --no-abstraction --quiet > /dev/null
    done
done
printf "%-40s %10s %12s\n" binary "wall(s)" "peak(MiB)"
for i in "${!BINS[@]}"; do
    sort -n "$tmp/$i" | awk -v b="${BINS[$i]}" '{t[NR]=$1; m[NR]=$2}
        END {k=int((NR+1)/2); printf "%-40s %10.2f %12.0f\n", b, t[k], m[k]/1024}'
done
