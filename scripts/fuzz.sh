#!/bin/sh
# Fuzzes every parser of rigor (or those named after the first two
# arguments) with INPUTS mutated inputs each (default 100,000) from seed
# SEED (default 1), under a 4 GiB address-space cap.
# Usage: scripts/fuzz.sh [INPUTS] [SEED] [PARSER...]
# See examples/fuzz/harness.rs.
set -e
cd "$(dirname "$0")/.."
cargo build --release --example fuzz
inputs="${1:-100000}"
seed="${2:-1}"
[ $# -gt 0 ] && shift
[ $# -gt 0 ] && shift
ulimit -v 4194304
exec target/release/examples/fuzz "$inputs" "$seed" "$@"
