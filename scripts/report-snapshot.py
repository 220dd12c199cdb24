#!/usr/bin/env python3
"""Runs `rigor reach --json` and `rigor ltl --json` on every shared problem
with truth and prints one normalised JSON document: verdicts, witnesses,
state counts and notes, with times and memory readings removed, plus the
verdicts that disagree with the truth. Run it before and after a change and
diff the two outputs: behaviour is unchanged when they are identical.

Usage: scripts/report-snapshot.py [--bin PATH] [--rers DIR] > snapshot.json
The large 2012 problems (P11-P19) run under --max-states 2000000 and
without the abstraction-independent time limits, so that they are
deterministic.
"""
import argparse, csv, json, os, subprocess, sys, time

DROP = {"seconds", "peak_memory", "explore_seconds", "check_seconds", "quotient_seconds"}


def scrub(x):
    if isinstance(x, dict):
        return {k: scrub(v) for k, v in x.items() if k not in DROP}
    if isinstance(x, list):
        return [scrub(v) for v in x]
    return x


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="./target/release/rigor")
    ap.add_argument("--rers", default=os.environ.get("RIGOR_RERS", "../shared/rers"))
    ap.add_argument("--only", default="", help="substring a program path must contain")
    a = ap.parse_args()
    cases = {}
    for name, large in (("truth.tsv", False), ("truth-2012-large.tsv", True)):
        with open(os.path.join(a.rers, name)) as f:
            for row in csv.DictReader(f, delimiter="\t"):
                props = row.get("properties", "-")
                key = (row["program"], props if row["track"] == "ltl" else "-", row["track"])
                cases.setdefault(key, {"large": large, "truth": {}})
                cases[key]["truth"][int(row["property"])] = row["verdict"] == "true"
    out = {}
    for (prog, props, track), case in sorted(cases.items()):
        if a.only not in prog:
            continue
        cmd = [a.bin, track, "--json", "--quiet", os.path.join(a.rers, prog)]
        if track == "ltl":
            cmd.append(os.path.join(a.rers, props))
        if case["large"]:
            cmd += ["--max-states", "2000000"]
        t = time.time()
        p = subprocess.run(cmd, capture_output=True, text=True)
        secs = time.time() - t
        key = f"{track} {prog} {props}"
        if p.returncode != 0:
            out[key] = {"exit": p.returncode, "stderr": p.stderr.strip()}
            continue
        r = json.loads(p.stdout)
        wrong = [v["property"] for v in r["verdicts"]
                 if v["verdict"] is not None and v["property"] in case["truth"]
                 and v["verdict"] != case["truth"][v["property"]]]
        answered = sum(v["verdict"] is not None for v in r["verdicts"])
        print(f"{secs:7.1f}s {key}: {answered}/{len(r['verdicts'])} answered, {len(wrong)} wrong",
              file=sys.stderr)
        out[key] = {"report": scrub(r), "wrong": wrong}
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    print()


if __name__ == "__main__":
    main()
