#!/usr/bin/env python3
"""Tests a certificate of regions against the gcc-compiled program.

Usage: scripts/sample_certificate.py PROGRAM.c CERTIFICATE [--per-region N] [--seed S]

A reading of the program that is neither rigor's front end nor its second
reading: gcc compiles the program itself, with a driver that sets every
global to a state drawn from a region of the certificate (bounded
variables within their bounds, mostly at the constants the program
compares them with or assigns; unbounded ones at any such constant), runs
`calculate_output` once per input symbol, and checks that the step ends at
no claimed label and that every state it goes on from lies in some region
again. It samples, so it can refute a certificate, never prove one.

Programs: RERS C programs whose globals are all `int` scalars (the 2018
SV-COMP shape of `../shared/rers/2018`, the 2017 and 2019 shapes without
arrays); errors by `__VERIFIER_error(N)`; `__VERIFIER_assume(0)` ends a run
with no next state. Exit 0 when nothing was refuted, 1 when something was
(printed), 2 on bad input.
"""
import argparse, os, re, subprocess, sys, tempfile

DRIVER = r'''
static int inside(void) {
  for (int r = 0; r < NR; r++) {
    int ok = 1;
    for (int k = RS[r]; k < RS[r + 1]; k++) {
      int v = *vars[RV[k]];
      if (v < RL[k] || v > RH[k]) { ok = 0; break; }
    }
    if (ok) return 1;
  }
  return 0;
}
static unsigned long long rs = 88172645463325252ULL;
static unsigned long long rnd(void) { rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17; return rs; }
int main(int argc, char **argv) {
  long per = atol(argv[1]); rs ^= (unsigned long long)atoll(argv[2]);
  int s[NV]; long bad = 0, went_on = 0, errors = 0;
  for (int r = 0; r < NR; r++) for (long t = 0; t < per; t++) {
    for (int v = 0; v < NV; v++) s[v] = CS[v][rnd() % CN[v]];
    for (int k = RS[r]; k < RS[r + 1]; k++) {
      int lo = RL[k], hi = RH[k], v = RV[k], c = 0, cand[64];
      for (int j = 0; j < CN[v]; j++) if (CS[v][j] >= lo && CS[v][j] <= hi && c < 64) cand[c++] = CS[v][j];
      if (c && rnd() % 4) s[v] = cand[rnd() % c];
      else s[v] = lo + (int)(rnd() % ((unsigned long long)((long long)hi - lo + 1)));
    }
    for (int i = 0; i < NI; i++) {
      for (int v = 0; v < NV; v++) *vars[v] = s[v];
      int j = setjmp(jb);
      if (j == 0) { calculate_output(INPUTS[i]); }
      else if (j == 1) {
        errors++;
        if (err >= 0 && err < NCLAIMED && CLAIMED[err]) {
          if (++bad <= 10) printf("safety: region %d, input %d reaches claimed label %d\n", r, INPUTS[i], err);
        }
        continue;
      } else continue;
      went_on++;
      if (!inside() && ++bad <= 10) {
        printf("consecution: region %d, input %d leaves the invariant from", r, INPUTS[i]);
        for (int v = 0; v < NV; v++) printf(" %s=%d", vnames[v], s[v]);
        printf("\n");
      }
    }
  }
  printf("%ld steps went on, %ld ended at an error, %ld refuted\n", went_on, errors, bad);
  return bad != 0;
}
'''


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("program")
    ap.add_argument("certificate")
    ap.add_argument("--per-region", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    src = open(a.program).read()
    names = re.findall(r"^\s*int\s+(\w+)\s*=\s*(-?\d+)\s*;", src, re.M)
    if re.search(r"^\s*int\s+\*|\[\]", src, re.M):
        print("arrays and pointers are not sampled by this script", file=sys.stderr)
        return 2
    index = {n: k for k, (n, _) in enumerate(names)}
    consts = {n: {int(v)} for n, v in names}
    for n, v in re.findall(r"\b(\w+)\s*[=!]=?\s*(-?\d+)", src):
        if n in consts:
            consts[n].add(int(v))
    inputs = sorted({int(v) for v in re.findall(r"\binput\s*==\s*(-?\d+)", src)})
    claimed, regions, cur = [], [], None
    for line in open(a.certificate):
        w = line.split("#")[0].split()
        if not w or w[0] in ("rigor-certificate", "next", "edge", "holds", "congruence"):
            continue
        if w[0] == "unreachable":
            claimed = [int(x) for x in w[1:]]
        elif w[0] == "region":
            cur = []
        elif w[0] == "end":
            regions.append(cur)
            cur = None
        elif cur is not None and len(w) == 3:
            if w[0] not in index:
                print(f"the program has no int global {w[0]}", file=sys.stderr)
                return 2
            cur.append((index[w[0]], int(w[1]), int(w[2])))
    body = re.sub(r"\bmain\s*\(", "original_main(", src)
    body = re.sub(r"extern\s+void\s+__VERIFIER_error\s*\([^)]*\)\s*;", "", body)
    out = ["#include <stdio.h>\n#include <stdlib.h>\n#include <setjmp.h>\n",
           "static jmp_buf jb; static int err;\n",
           "void __VERIFIER_error(int n) { err = n; longjmp(jb, 1); }\n",
           "void __VERIFIER_assume(int c) { if (!c) longjmp(jb, 2); }\n",
           "int __VERIFIER_nondet_int(void) { return 0; }\n", body, "\n"]
    n = len(names)
    out.append("int *vars[%d] = {%s};\n" % (n, ",".join("&" + x for x, _ in names)))
    out.append("const char *vnames[%d] = {%s};\n" % (n, ",".join('"%s"' % x for x, _ in names)))
    for x, _ in names:
        out.append("static const int C_%s[] = {%s};\n" % (x, ",".join(map(str, sorted(consts[x])))))
    out.append("static const int *CS[%d] = {%s};\n" % (n, ",".join("C_" + x for x, _ in names)))
    out.append("static const int CN[%d] = {%s};\n" % (n, ",".join(str(len(consts[x])) for x, _ in names)))
    flat, starts = [], []
    for r in regions:
        starts.append(len(flat))
        flat.extend(r)
    starts.append(len(flat))
    arr = lambda name, xs: "static const int %s[%d] = {%s};\n" % (name, max(len(xs), 1), ",".join(map(str, xs)) or "0")
    out.append(arr("RS", starts))
    out.append(arr("RV", [v for v, _, _ in flat]))
    out.append(arr("RL", [lo for _, lo, _ in flat]))
    out.append(arr("RH", [hi for _, _, hi in flat]))
    top = max(claimed + [0]) + 1
    out.append(arr("CLAIMED", [int(k in claimed) for k in range(top)]))
    out.append(arr("INPUTS", inputs))
    out.append("#define NR %d\n#define NV %d\n#define NI %d\n#define NCLAIMED %d\n" % (len(regions), n, len(inputs), top))
    out.append(DRIVER)
    with tempfile.TemporaryDirectory() as d:
        c, exe = os.path.join(d, "sample.c"), os.path.join(d, "sample")
        open(c, "w").write("".join(out))
        subprocess.run(["gcc", "-O1", "-w", c, "-o", exe], check=True)
        return subprocess.run([exe, str(a.per_region), str(a.seed)]).returncode


if __name__ == "__main__":
    sys.exit(main())
