#!/usr/bin/env bash
# The large RERS reachability problems: states, transitions, time, peak
# memory and labels answered per problem, under the given limits.
# Usage: benches/large.sh [rigor limit flags...]   (default --timeout 300)
# RIGOR_BIN=path uses that binary instead of building one.
set -euo pipefail
cd "$(dirname "$0")/.."
R=${RIGOR_RERS:-../shared/rers}
LIMITS=("$@")
[ ${#LIMITS[@]} -eq 0 ] && LIMITS=(--timeout 300)
BIN=${RIGOR_BIN:-./target/release/rigor}
[ -n "${RIGOR_BIN:-}" ] || cargo build --release -q
printf "%-48s %11s %12s %8s %9s %6s %6s %6s %s\n" program states transitions secs peakMiB reach unreach unknown stopped
for f in 2012/Problem7.c 2012/Problem10.c 2014/Problem1402_opt.c \
         2017/seq-reach/Problem10/Problem10.c 2017/seq-reach/Problem11/Problem11.c \
         2019/training-seq-reach/Problem1{1,2,3}/Problem1{1,2,3}.c \
         2019/seq-reach/Problem1{1,2,3,4,5,6,7,8}/Problem1{1,2,3,4,5,6,7,8}.c; do
    [ -f "$R/$f" ] || continue
    "$BIN" reach --json --quiet "${LIMITS[@]}" "$R/$f" 2>/dev/null | python3 -c "
import json,sys
r=json.load(sys.stdin)
v=[x['verdict'] for x in r['verdicts']]
print('%-48s %11d %12d %8.1f %9.0f %6d %6d %6d %s'%('$f',r['states'],r['transitions'],r['seconds'],(r['peak_memory'] or 0)/2**20,v.count(True),v.count(False),v.count(None),r['stopped']))"
done
