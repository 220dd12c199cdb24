#!/usr/bin/env python3
"""The proof benchmark: every large problem, answered labels and properties
per problem, by which engine, time and peak memory, and wrong answers
against the truth where there is one.

Usage: benches/proofs.py [--bin PATH] [--timeout S] [--only SUBSTRING] [--jobs N]
Runs `rigor reach --json` on 2012 P11-P19 and the 2019 challenge reach
problems (C and Java), and `rigor ltl --json` on 2012 P11-P19 and the 2019
challenge LTL problems, each with `--certificate`: the size of the
abstraction's certificate and the time its independent check took. Not a
test: it prints a table.
"""
import argparse, csv, json, os, subprocess, sys, tempfile, time
from concurrent.futures import ThreadPoolExecutor

def truth(rers):
    t = {}
    for name in ("truth.tsv", "truth-2012-large.tsv"):
        path = os.path.join(rers, name)
        if not os.path.exists(path):
            continue
        with open(path) as f:
            for row in csv.DictReader(f, delimiter="\t"):
                key = (row["program"], row["track"])
                t.setdefault(key, {})[int(row["property"])] = row["verdict"] == "true"
    return t

def cases(rers):
    out = []
    for n in range(11, 20):
        p = f"2012/Problem{n}.c"
        if os.path.exists(os.path.join(rers, p)):
            out.append(("reach", p, None))
    for n in range(11, 19):
        for ext in ("c", "java"):
            p = f"2019/seq-reach/Problem{n}/Problem{n}.{ext}"
            if os.path.exists(os.path.join(rers, p)):
                out.append(("reach", p, None))
    for n in range(11, 20):
        p, props = f"2012/Problem{n}.c", f"2012/properties{n}.txt"
        if os.path.exists(os.path.join(rers, props)):
            out.append(("ltl", p, props))
    for n in range(1, 8):
        for ext in ("c", "java"):
            p = f"2019/seq-ltl/Problem{n}/Problem{n}.{ext}"
            props = f"2019/seq-ltl/Problem{n}/constraints-Problem{n}.txt"
            if os.path.exists(os.path.join(rers, p)):
                out.append(("ltl", p, props))
    return out

def run(args, rers, t, case):
    track, prog, props = case
    cmd = ["/usr/bin/time", "-f", "%e %M", "-o", "/dev/stderr", args.bin, track, "--json", "--quiet",
           "--timeout", str(args.timeout), os.path.join(rers, prog)]
    if props:
        cmd.append(os.path.join(rers, props))
    cert = None
    if track in ("reach", "ltl"):
        cert = os.path.join(tempfile.gettempdir(), f"rigor-bench-{os.getpid()}-{prog.replace('/', '_')}.cert")
        cmd[-1:-1] = ["--certificate", cert]
    start = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.time() - start
    peak = 0
    for line in p.stderr.splitlines():
        parts = line.split()
        if len(parts) == 2:
            try:
                wall, peak = float(parts[0]), int(parts[1]) / 1024
            except ValueError:
                pass
    try:
        r = json.loads(p.stdout)
    except json.JSONDecodeError:
        return (track, prog, f"exit {p.returncode}: {p.stderr.strip()[:100]}", wall, peak)
    vs = r["verdicts"]
    known = t.get((prog, track), {})
    wrong = [v["property"] for v in vs if v["verdict"] is not None
             and v["property"] in known and v["verdict"] != known[v["property"]]]
    engines = {}
    for v in vs:
        if v["verdict"] is not None:
            e = v.get("engine", "?")
            engines[e] = engines.get(e, 0) + 1
    answered = sum(v["verdict"] is not None for v in vs)
    certified = sum(v.get("certified") is True for v in vs)
    eng = " ".join(f"{k}:{n}" for k, n in sorted(engines.items()))
    summary = f"{answered:3d}/{len(vs):3d}  wrong {len(wrong)}{' ' + str(wrong) if wrong else ''}  [{eng}]"
    if cert and os.path.exists(cert):
        with open(cert) as f:
            text = f.read()
        os.remove(cert)
        regions = sum(line.startswith("region ") for line in text.splitlines())
        took = r.get("certificate_seconds")
        summary += (f"  certified {certified}, certificate {regions} regions {len(text) // 1024} KiB"
                    + (f" checked in {took:.1f} s" if took is not None else " not accepted"))
    if cert:
        invariants = 0
        while os.path.exists(f"{cert}.invariant{invariants + 1}"):
            invariants += 1
            os.remove(f"{cert}.invariant{invariants}")
        if invariants:
            summary += f"  {invariants} invariant(s)"
    return (track, prog, summary, wall, peak)

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="./target/release/rigor")
    ap.add_argument("--rers", default=os.environ.get("RIGOR_RERS", "../shared/rers"))
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--only", default="")
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args()
    t = truth(args.rers)
    todo = [c for c in cases(args.rers) if args.only in f"{c[0]} {c[1]}"]
    print(f"{'track':5} {'problem':40} {'answered':>8}  {'time(s)':>8} {'peak MiB':>9}")
    with ThreadPoolExecutor(args.jobs) as ex:
        for track, prog, summary, wall, peak in ex.map(lambda c: run(args, args.rers, t, c), todo):
            print(f"{track:5} {prog:40} {summary}  {wall:8.1f} {peak:9.0f}", flush=True)

if __name__ == "__main__":
    main()
