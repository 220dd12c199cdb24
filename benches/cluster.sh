#!/usr/bin/env bash
# The distributed search (`rigor reach --processes N`) against the search
# in one process, on 2019 training reach Problem11 (2,881,669 states) by
# default: for one process (`--no-abstraction`) and 1, 2, 3 processes,
# each with 1 and 2 threads, the median over RUNS of wall time, states per
# second, the reporting process's peak resident memory and the JSON's
# state_bytes (the stores of every process over the states). Not a test:
# the figures depend on the machine (all processes share its cores).
# The native comparison (a gcc breadth-first search, Spin) is
# benches/versus.py, on the same PROGRAM.
# Usage: benches/cluster.sh [BIN]   (default: target/release/rigor)
#        RUNS=3 PROCESSES="1 2 3" THREADS="1 2" PROGRAM=path/to/Problem.c MAX_STATES=3000000 benches/cluster.sh
set -euo pipefail
cd "$(dirname "$0")/.."
R=${RIGOR_RERS:-../shared/rers}
PROGRAM=${PROGRAM:-$R/2019/training-seq-reach/Problem11/Problem11.c}
RUNS=${RUNS:-3}
PROCESSES=${PROCESSES:-1 2 3}
THREADS=${THREADS:-1 2}
LIMIT=()
[ -n "${MAX_STATES:-}" ] && LIMIT=(--max-states "$MAX_STATES")
BIN=${1:-}
if [ -z "$BIN" ]; then
    cargo build --release -q
    BIN=./target/release/rigor
fi
[ -f "$PROGRAM" ] || { echo "$PROGRAM not found" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
configs=()
for t in $THREADS; do configs+=("one:$t"); done
for p in $PROCESSES; do for t in $THREADS; do configs+=("$p:$t"); done; done
for _ in $(seq "$RUNS"); do
    for c in "${configs[@]}"; do
        p=${c%:*} t=${c#*:}
        if [ "$p" = one ]; then how=(--no-abstraction); else how=(--processes "$p" --no-abstraction); fi
        "$BIN" reach "$PROGRAM" "${how[@]}" --threads "$t" "${LIMIT[@]}" --quiet --json \
            > "$tmp/json" 2> /dev/null || true
        python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["seconds"], d["peak_memory"], d["states"], d["state_bytes"])' \
            "$tmp/json" >> "$tmp/$p-$t"
    done
done
printf "%-10s %8s %10s %9s %12s %10s %12s\n" processes threads states "wall(s)" "states/s" "peak(MiB)" "state_bytes"
for c in "${configs[@]}"; do
    p=${c%:*} t=${c#*:}
    sort -n "$tmp/$p-$t" | awk -v p="$p" -v t="$t" '{s[NR]=$1; m[NR]=$2; n[NR]=$3; b[NR]=$4}
        END {k=int((NR+1)/2); printf "%-10s %8s %10d %9.2f %12.0f %10.0f %12d\n",
             p, t, n[k], s[k], n[k]/s[k], m[k]/1048576, b[k]}'
done
