#!/usr/bin/env python3
"""Runs rigor on every SV-COMP task of a folder and prints, per task and
property, the expected verdict, rigor's answer, the time and the peak
memory; then a summary with SV-COMP's score (TRUE +2, FALSE +1, wrong TRUE
-32, wrong FALSE -16).

    scripts/svcomp_bench.py [FOLDER] [--rigor PATH] [--timeout S] [--benchexec PYTHON]

FOLDER defaults to ../shared/svcomp. With --benchexec, the same tasks also
run under BenchExec (the given Python must have it: pip install benchexec)
with the tool-info module in contrib/benchexec, in a scratch copy of the
folder where property files the task files name but the folder lacks
(termination.prp) are stubbed, since BenchExec refuses such task files.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_task(rigor, task, timeout):
    """rigor's JSON report on `task`, its wall time and peak memory (KiB)."""
    started = time.monotonic()
    child = subprocess.Popen(
        [rigor, "svcomp", task, "--json", "--timeout", str(timeout)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    out = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.monotonic() - started
    try:
        report = json.loads(out)
    except ValueError:
        report = {"results": []}
    return report, seconds, usage.ru_maxrss, child.returncode


def score(verdict, expected):
    if verdict == "unknown" or expected is None:
        return 0
    if (verdict == "true") == expected:
        return 2 if expected else 1
    return -32 if verdict == "true" else -16


def benchexec(python, folder, rigor_dir, timeout):
    scratch = tempfile.mkdtemp(prefix="rigor-benchexec-")
    tasks = os.path.join(scratch, "tasks")
    shutil.copytree(folder, tasks)
    for root, _, files in os.walk(tasks):
        for name in files:
            if name.endswith(".yml"):
                for line in open(os.path.join(root, name)):
                    line = line.strip()
                    if line.startswith("- property_file:"):
                        prp = os.path.normpath(os.path.join(root, line.split(":", 1)[1].strip()))
                        if not os.path.exists(prp):
                            os.makedirs(os.path.dirname(prp), exist_ok=True)
                            with open(prp, "w") as f:
                                f.write("CHECK( init(main()), LTL(F end) )\n")
    prp = os.path.join(tasks, "properties", "unreach-call.prp")
    with open(os.path.join(scratch, "tasks.set"), "w") as f:
        f.write(os.path.join(tasks, "**", "*.yml") + "\n")
    with open(os.path.join(scratch, "rigor.xml"), "w") as f:
        f.write(
            f'<?xml version="1.0"?>\n<benchmark tool="rigor_tools.rigor" timelimit="{timeout} s" memlimit="4 GB" cpuCores="1">\n'
            f'  <rundefinition name="svcomp"/>\n  <tasks name="tasks">\n    <includesfile>tasks.set</includesfile>\n'
            f"    <propertyfile>{prp}</propertyfile>\n  </tasks>\n</benchmark>\n"
        )
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "contrib", "benchexec"))
    cmd = [python, "-m", "benchexec.benchexec", "rigor.xml", "--no-container", "--tool-directory", rigor_dir, "-o", "results/"]
    print("\n$ " + " ".join(cmd) + f"   (in {scratch})", flush=True)
    return subprocess.call(cmd, cwd=scratch, env=env)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", nargs="?", default=os.path.join(ROOT, "..", "shared", "svcomp"))
    ap.add_argument("--rigor", default=os.path.join(ROOT, "target", "release", "rigor"))
    ap.add_argument("--timeout", type=int, default=900)
    ap.add_argument("--benchexec", metavar="PYTHON")
    args = ap.parse_args()
    tasks = sorted(
        os.path.join(r, f) for r, _, fs in os.walk(args.folder) for f in fs if f.endswith(".yml")
    )
    print(f"{'task':<44} {'property':<22} {'expected':<9} {'answer':<20} {'ok':<3} {'s':>7} {'MiB':>6}")
    total, wrong, unknown, points, seconds = 0, 0, 0, 0, 0.0
    for task in tasks:
        report, secs, kib, code = run_task(args.rigor, task, args.timeout)
        seconds += secs
        if code != 0:
            print(f"{os.path.relpath(task, args.folder):<44} rigor exited {code}")
            wrong += 1
        for r in report["results"]:
            if r["property"] != "unreach-call":
                continue
            expected = r["expected"]
            total += 1
            unknown += r["verdict"] == "unknown"
            s = score(r["verdict"], expected)
            points += s
            wrong += s < 0
            ok = {True: "yes", False: "NO", None: "-"}[None if r["verdict"] == "unknown" else s > 0]
            exp = "-" if expected is None else str(expected).lower()
            print(
                f"{os.path.relpath(task, args.folder):<44} {os.path.basename(r['property_file']):<22} "
                f"{exp:<9} {r['answer']:<20} {ok:<3} {secs:7.2f} {kib / 1024:6.1f}"
            )
    print(f"\n{total} properties: {total - wrong - unknown} correct, {wrong} wrong, {unknown} unknown; "
          f"score {points}; {seconds:.1f} s in all")
    code = 1 if wrong else 0
    if args.benchexec:
        code |= benchexec(args.benchexec, args.folder, os.path.dirname(os.path.abspath(args.rigor)), min(args.timeout, 900))
    return code


if __name__ == "__main__":
    sys.exit(main())
