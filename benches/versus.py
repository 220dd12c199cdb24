#!/usr/bin/env python3
"""rigor against Spin and a plain gcc breadth-first search, on one RERS
program (default: 2019 training reach Problem11, 2,881,669 states).

Usage: benches/versus.py [--bin PATH] [--runs N] [--program FILE.c]
                         [--max-states N]

From the same C file it builds
  * a Spin model (spin from Debian): the program's globals are fields of
    Spin's state vector (c_state), one c_code alternative per input calls
    the program's step; compiled with -O2 -DSAFETY -DNOSTUTTER -DNOREDUCE
    (one process: nothing to reduce), searched depth-first with -w24;
  * a gcc -O2 breadth-first search: the globals copied out and in around
    each step, states kept whole in an arena, an open-addressing table of
    their indices.
Both wrap the step the same way: output and error-stream calls compiled
out, __VERIFIER_error and an input no rule takes end the run in one dead
state. rigor runs `reach --no-abstraction` with --threads 1 and 2. The rows
run in turn, RUNS times; the table has medians of wall time and peak
resident memory (GNU time), states, and each tool's time over rigor's on 2
threads. Not a test: the figures depend on the machine.

With --max-states N (for programs whose state space does not fit, such as
2019 challenge reach P14) rigor and the BFS stop once N states are stored
(rigor may store a few more: it looks at the limit between batches), and
Spin, which has no such limit, is left out.

Needs spin, gcc and /usr/bin/time. Works on programs of the 2019/2020
shape: int globals with initial values, void calculate_output(int), a
`cf` flag that stays 1 when no rule takes the input.
"""
import argparse, os, re, shutil, statistics, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEFAULT = os.path.join(ROOT, "..", "shared", "rers", "2019", "training-seq-reach",
                       "Problem11", "Problem11.c")

# The program's step with its effects compiled out: the wrapper the Spin
# model and the BFS share. `state` declares where the globals live: in the
# program itself for the BFS, in Spin's state vector for Spin.
WRAPPER = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
static jmp_buf versus_jump;
void __VERIFIER_error(int label) { (void)label; longjmp(versus_jump, 1); }
#define printf(...) 0
#define fprintf(...) 0
#define fflush(stream) 0
#define scanf(...) 0
#define main versus_unused_main
%(state)s
#include "%(program)s"
#undef main
#undef printf
#undef fprintf
#undef fflush
#undef scanf
static const int versus_inputs[] = { %(inputs)s };
#define VERSUS_INPUTS %(ninputs)d
#define VERSUS_GLOBALS %(nglobals)d
static int *const versus_globals[] = { %(addresses)s };
/* One step on input `input`: the program's globals move to the successor;
   an error or an input no rule takes leaves every global 0 and
   versus_dead 1, the one dead state. */
static void versus_step(int input) {
    if (versus_dead) return;
    if (setjmp(versus_jump) == 0) {
        calculate_output(input);
        if (cf != 1) return;
    }
    for (int i = 0; i < VERSUS_GLOBALS; i++) *versus_globals[i] = 0;
    versus_dead = 1;
}
%(unstate)s
"""

BFS = r"""
#include "bfs.h"
#include <stdint.h>
#include <time.h>
typedef int32_t word;
#define WIDTH (VERSUS_GLOBALS + 1)
static word *arena; static size_t count, capacity;
static uint32_t *table; static size_t slots;
static uint64_t hash(const word *s) {
    uint64_t h = 1469598103934665603ull;
    for (int i = 0; i < WIDTH; i++) { h ^= (uint32_t)s[i]; h *= 1099511628211ull; }
    return h ^ (h >> 29);
}
static void load(const word *s) {
    for (int i = 0; i < VERSUS_GLOBALS; i++) *versus_globals[i] = s[i];
    versus_dead = s[VERSUS_GLOBALS];
}
static void save(word *s) {
    for (int i = 0; i < VERSUS_GLOBALS; i++) s[i] = *versus_globals[i];
    s[VERSUS_GLOBALS] = versus_dead;
}
static void grow_table(void) {
    size_t n = slots ? slots * 2 : 1 << 16;
    uint32_t *t = calloc(n, sizeof *t);
    if (!t) { fprintf(stderr, "out of memory\n"); exit(2); }
    for (size_t k = 0; k < count; k++) {
        size_t i = hash(arena + k * WIDTH) & (n - 1);
        while (t[i]) i = (i + 1) & (n - 1);
        t[i] = (uint32_t)k + 1;
    }
    free(table); table = t; slots = n;
}
/* Stores the state in arena[count] unless it is there already. */
static void insert(void) {
    if (2 * (count + 1) > slots) grow_table();
    const word *s = arena + count * WIDTH;
    size_t i = hash(s) & (slots - 1);
    for (; table[i]; i = (i + 1) & (slots - 1))
        if (!memcmp(arena + (table[i] - 1) * WIDTH, s, WIDTH * sizeof(word))) return;
    table[i] = (uint32_t)count + 1;
    count++;
}
static void reserve(void) {
    if (count + 1 < capacity) return;
    capacity = capacity ? capacity * 2 : 1 << 16;
    arena = realloc(arena, capacity * WIDTH * sizeof(word));
    if (!arena) { fprintf(stderr, "out of memory\n"); exit(2); }
}
int versus_bfs(size_t max_states) {
    reserve(); save(arena); insert();
    size_t transitions = 0;
    for (size_t head = 0; head < count && count < max_states; head++) {
        for (int k = 0; k < VERSUS_INPUTS; k++) {
            reserve();
            load(arena + head * WIDTH);
            versus_step(versus_inputs[k]);
            save(arena + count * WIDTH);
            transitions++;
            insert();
        }
    }
    printf("states %zu transitions %zu\n", count, transitions);
    return 0;
}
"""

BFS_MAIN = r"""
int versus_bfs(size_t max_states);
int main(int argc, char **argv) {
    return versus_bfs(argc > 1 ? (size_t)strtoull(argv[1], 0, 10) : SIZE_MAX);
}
"""


DECLARATION = r"^\s*int\s+([A-Za-z_]\w*)\s*=\s*(-?\d+)\s*;"


def globals_and_inputs(text):
    """The program's int globals (name and initial value, in file order) and
    input alphabet."""
    inputs = re.search(r"int\s+inputs\s*\[\s*\]\s*=\s*\{([^}]*)\}", text)
    if not inputs:
        sys.exit("versus: no `int inputs[] = {...}` in the program")
    alphabet = [int(x) for x in inputs.group(1).split(",") if x.strip()]
    found = re.findall(DECLARATION, text, re.M)
    return [(n, v) for n, v in found if n != "cf"], alphabet


def build(work, program):
    text = open(program).read()
    names, alphabet = globals_and_inputs(text)
    common = dict(inputs=", ".join(map(str, alphabet)), ninputs=len(alphabet),
                  nglobals=len(names), addresses=", ".join("&" + n for n, _ in names))

    def write(name, content):
        with open(os.path.join(work, name), "w") as f:
            f.write(content)

    # The BFS: the program as it is.
    write("bfs.h", WRAPPER % dict(common, program=os.path.abspath(program),
                                  state="int versus_dead = 0;", unstate=""))
    write("bfs.c", BFS + BFS_MAIN)
    # Spin: the globals are fields of the state vector (c_state), so Spin
    # hashes and copies them itself, with nothing to track.
    tracked = {n for n, _ in names}
    stripped = re.sub(DECLARATION, lambda m: "" if m.group(1) in tracked else m.group(0),
                      text, flags=re.M)
    write("program-spin.c", stripped)
    defines = "\n".join("#define %s now.%s" % (n, n) for n, _ in names + [("versus_dead", 0)])
    undefines = "\n".join("#undef %s" % n for n, _ in names + [("versus_dead", 0)])
    write("spin.h", WRAPPER % dict(common, program="program-spin.c", state=defines,
                                   unstate=undefines))
    states = "\n".join('c_state "int %s" "Global" "%s"' % (n, v)
                        for n, v in names + [("versus_dead", "0")])
    alternatives = "\n".join("    :: c_code { versus_step(%d); }" % a for a in alphabet)
    write("model.pml", "%s\nc_code {\n\\#include \"spin.h\"\n}\n"
          "active proctype rers() {\n    do\n%s\n    od\n}\n" % (states, alternatives))
    subprocess.run(["gcc", "-O2", "-w", "-o", "bfs", "bfs.c"], cwd=work, check=True)
    subprocess.run(["spin", "-a", "model.pml"], cwd=work, check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["gcc", "-O2", "-w", "-DSAFETY", "-DNOSTUTTER", "-DNOREDUCE",
                    "-DMEMLIM=16000",
                    "-o", "pan", "pan.c"], cwd=work, check=True)


def timed(cmd, cwd):
    """Wall seconds, peak resident MiB and stdout of one run."""
    out = subprocess.run(["/usr/bin/time", "-f", "VERSUS %e %M"] + cmd, cwd=cwd,
                         capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("versus: %s failed:\n%s" % (" ".join(cmd), out.stderr[-2000:]))
    line = [l for l in out.stderr.splitlines() if l.startswith("VERSUS ")][-1].split()
    return float(line[1]), int(line[2]) / 1024, out.stdout


def states_of(tool, stdout):
    if tool == "spin":
        if "max search depth too small" in stdout:
            sys.exit("versus: Spin's search depth (-m) is too small for this program")
        m = re.search(r"(\d+) states, stored", stdout)
    elif tool == "gcc":
        m = re.search(r"states (\d+)", stdout)
    else:
        m = re.search(r'"states":\s*(\d+)', stdout)
    return int(m.group(1)) if m else -1


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "rigor"))
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--program", default=DEFAULT)
    p.add_argument("--max-states", type=int, default=None)
    a = p.parse_args()
    a.bin = os.path.abspath(a.bin)
    for tool in ("spin", "gcc"):
        if not shutil.which(tool):
            sys.exit("versus: %s is not installed" % tool)
    if a.bin == p.get_default("bin"):
        subprocess.run(["cargo", "build", "--release", "-q"], cwd=ROOT, check=True)
    work = tempfile.mkdtemp(prefix="rigor-versus-")
    try:
        build(work, a.program)
        program = os.path.abspath(a.program)
        cap = [] if a.max_states is None else [str(a.max_states)]
        rigor = [a.bin, "reach", program, "--no-abstraction", "--quiet", "--json"]
        rigor += ["--max-states"] + cap if cap else []
        rows = [
            ("rigor --threads 1", "rigor", rigor + ["--threads", "1"]),
            ("rigor --threads 2", "rigor", rigor + ["--threads", "2"]),
            ("gcc -O2 BFS", "gcc", ["./bfs"] + cap),
        ]
        if not cap:
            rows.insert(2, ("spin -DSAFETY (DFS)", "spin", ["./pan", "-m1000000", "-w24"]))
        figures = {name: [] for name, _, _ in rows}
        for _ in range(a.runs):
            for name, tool, cmd in rows:
                wall, peak, out = timed(cmd, work)
                figures[name].append((wall, peak, states_of(tool, out)))
        base = statistics.median(w for w, _, _ in figures["rigor --threads 2"])
        print("program: %s (%d runs each, medians)" % (a.program, a.runs))
        print("%-22s %12s %9s %10s %18s" % ("tool", "states", "wall(s)", "peak(MiB)",
                                             "wall / rigor-2"))
        for name, _, _ in rows:
            runs = figures[name]
            print("%-22s %12d %9.2f %10.0f %18.2f" % (
                name, runs[0][2], statistics.median(w for w, _, _ in runs),
                statistics.median(m for _, m, _ in runs),
                statistics.median(w for w, _, _ in runs) / base))
        print("(Spin and the gcc BFS count one dead state more: where errors and invalid inputs end)")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
