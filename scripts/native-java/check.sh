#!/usr/bin/env bash
# Cross-checks `rigor reach` on a Java program against a native JVM
# breadth-first search of the original class (needs javac/java).
# Usage: scripts/native-java/check.sh PROGRAM.java [MAX_STATES]
# Prints both lines: state count, transitions, reachable labels.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
prog=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
max=${2:-1000000}
cls=$(basename "$prog" .java)
tmp=$(mktemp -d)
cp "$here/Bfs.java" "$here/Errors.java" "$prog" "$tmp/"
(cd "$tmp" && javac -nowarn Bfs.java Errors.java "$cls.java" 2>&1 | grep -v '^Note' || true)
(cd "$tmp" && java -Xss64m Bfs "$cls" "$max")
cd "$here/../.." && cargo run --release --quiet -- reach --json --quiet --max-states "$max" "$prog" |
    python3 -c 'import json,sys; r=json.load(sys.stdin); print("rigor states", r["states"], "complete", r["complete"], "transitions", r["transitions"], "reachable", [v["property"] for v in r["verdicts"] if v["verdict"]])'
rm -rf "$tmp"
