//! The step of a RERS C program as gcc compiles it, from any state.
//!
//! The harness keeps the program's text (its `main` renamed, `assert.h`
//! blanked so that `assert` can be caught) and drives it through the
//! program's own reads: the first read of a case (`scanf`,
//! `__VERIFIER_nondet_int`) sets every global to the case's state and
//! returns its input; the second read means that the step went on, and
//! the globals are printed. Errors (`__VERIFIER_error`, a failing
//! `assert` or `__assert_fail` under an `error_N:` label), failed
//! assumptions, `exit` and a returning `main` end the case as well.
//! Outputs are the ints the step prints; "Invalid input" is a print that
//! says so.
//!
//! The harness never reads rigor's front end: what it sets and prints is
//! given as C lvalues (`a17`, `a[3]`), pointers as the number of the
//! array (of a list of arrays) they point to.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// One global the harness sets and prints.
#[derive(Clone, Debug)]
pub enum Cell {
    /// An int lvalue: `x` or `a[3]`.
    Int(String),
    /// A pointer global, set and printed as the number the arrays list
    /// gives the array it points to.
    Pointer(String),
}

/// How one case ended natively.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ended {
    /// At error label `n` (`globalError` is `u32::MAX`).
    Error(u32),
    /// An assertion failed at a line under no error label.
    Assert(u32),
    /// A failed assumption, `exit` or `abort`.
    Blocked,
    /// `main` returned.
    Returned,
    /// The step went on: the ints it printed, whether it said the input
    /// was invalid, and the cells after it.
    Went {
        /// Printed ints.
        outputs: Vec<i32>,
        /// Whether it printed "Invalid".
        invalid: bool,
        /// The values of the cells after the step.
        post: Vec<i32>,
    },
}

/// A compiled harness.
pub struct Native {
    dir: tempfile::TempDir,
    exe: std::path::PathBuf,
    n_cells: usize,
    n_inputs: usize,
    labels: Vec<(u32, u32)>,
}

const PRELUDE: &str = r#"#include <stdio.h>
#include <stdlib.h>
#include <stdarg.h>
#include <string.h>
#include <setjmp.h>
#include <math.h>
static jmp_buf rigor_jb;
static int rigor_reads, rigor_input, rigor_kind, rigor_invalid, rigor_nout, rigor_outs[16];
static long rigor_val;
static void rigor_load(void);
static void rigor_end(int kind, long v) { rigor_kind = kind; rigor_val = v; longjmp(rigor_jb, 1); }
static int rigor_read(void) {
  if (rigor_reads++ == 0) { rigor_load(); return rigor_input; }
  rigor_end(1, 0);
  return 0;
}
static int rigor_scanf(const char *fmt, ...) {
  va_list ap; va_start(ap, fmt); int *p = va_arg(ap, int *); va_end(ap);
  *p = rigor_read(); return 1;
}
int __VERIFIER_nondet_int(void) { return rigor_read(); }
void __VERIFIER_error(int n) { rigor_end(2, n); }
void __VERIFIER_assume(int c) { if (!c) rigor_end(3, 0); }
static int rigor_printf(const char *fmt, ...) {
  if (strstr(fmt, "Invalid")) { rigor_invalid = 1; return 0; }
  if (strstr(fmt, "%d")) {
    va_list ap; va_start(ap, fmt); int v = va_arg(ap, int); va_end(ap);
    if (rigor_nout < 16) rigor_outs[rigor_nout] = v;
    rigor_nout++;
  }
  return 0;
}
static int rigor_fprintf(FILE *f, const char *fmt, ...) {
  (void)f; if (strstr(fmt, "Invalid")) rigor_invalid = 1; return 0;
}
#define scanf(...) rigor_scanf(__VA_ARGS__)
#define printf(...) rigor_printf(__VA_ARGS__)
#define fprintf(...) rigor_fprintf(__VA_ARGS__)
#define exit(c) rigor_end(3, (c))
#define abort() rigor_end(3, 0)
#define assert(e) ((e) ? (void)0 : rigor_end(4, __LINE__))
#define __assert_fail(expr, file, line, fn) rigor_end(4, __LINE__)
#define main rigor_original_main
"#;

impl Native {
    /// Compiles the program at `path` with a harness that sets and prints
    /// `cells` and runs each of `inputs`; `arrays` are the arrays pointers
    /// may point to, each with its number.
    pub fn build(path: &Path, cells: &[Cell], arrays: &[(i32, String)], inputs: &[i32]) -> Native {
        let src = std::fs::read_to_string(path).expect("the program reads");
        let mut text = PRELUDE.to_string();
        // SV-COMP's `reach_error_N()`, where the program only declares it.
        let calls = regex::Regex::new(r"\breach_error_(\d+)\s*\(").expect("valid regex");
        let mut defined = std::collections::BTreeSet::new();
        for c in calls.captures_iter(&src) {
            let n = &c[1];
            let def = format!(r"void\s+reach_error_{n}\s*\([^)]*\)\s*\{{");
            if !regex::Regex::new(&def).expect("valid regex").is_match(&src)
                && defined.insert(n.to_string())
            {
                text.push_str(&format!(
                    "void reach_error_{n}(void) {{ rigor_end(2, {n}); }}\n"
                ));
            }
        }
        text.push_str(&format!("#line 1 \"{}\"\n", path.display()));
        for line in src.lines() {
            let t = line.trim_start();
            if t.starts_with("#include") && t.contains("assert.h") {
                text.push('\n');
            } else {
                text.push_str(line);
                text.push('\n');
            }
        }
        text.push_str("#undef main\n#undef scanf\n#undef printf\n#undef fprintf\n#undef exit\n");
        text.push_str(&driver(cells, arrays, inputs));
        let dir = tempfile::tempdir().expect("a temporary directory");
        let c = dir.path().join("native.c");
        std::fs::write(&c, text).expect("the harness writes");
        let exe = dir.path().join("native");
        let out = Command::new("gcc")
            .args(["-O0", "-w", "-fwrapv", "-o"])
            .arg(&exe)
            .arg(&c)
            .arg("-lm")
            .output()
            .expect("gcc runs");
        assert!(
            out.status.success(),
            "{}: the native harness does not compile: {}",
            path.display(),
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .find(|l| l.contains("error"))
                .unwrap_or("gcc failed")
        );
        Native {
            dir,
            exe,
            n_cells: cells.len(),
            n_inputs: inputs.len(),
            labels: find_labels(&src),
        }
    }

    /// Runs every input not skipped on every state (the cells' values).
    /// Returns, per state and input, how it ended (`None` where skipped).
    pub fn run(
        &self,
        states: &[(Vec<i32>, Vec<bool>)],
        timeout: Duration,
    ) -> Vec<Vec<Option<Ended>>> {
        let cases = self.dir.path().join("cases");
        let mut f = std::io::BufWriter::new(std::fs::File::create(&cases).expect("cases file"));
        for (state, skip) in states {
            let mask: String = skip.iter().map(|&s| if s { '0' } else { '1' }).collect();
            write!(f, "{mask}").expect("writes");
            for v in state {
                write!(f, " {v}").expect("writes");
            }
            writeln!(f).expect("writes");
        }
        drop(f);
        let results = self.dir.path().join("results");
        let mut child = Command::new(&self.exe)
            .stdin(Stdio::from(std::fs::File::open(&cases).expect("cases")))
            .stdout(Stdio::from(
                std::fs::File::create(&results).expect("results"),
            ))
            .stderr(Stdio::null())
            .spawn()
            .expect("the harness runs");
        let start = Instant::now();
        let status = loop {
            if let Some(s) = child.try_wait().expect("waits") {
                break Some(s);
            }
            if start.elapsed() > timeout {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        let text = std::fs::read_to_string(&results).expect("results read");
        let mut lines = text.lines();
        let mut out = Vec::with_capacity(states.len());
        for (n, (state, skip)) in states.iter().enumerate() {
            let mut row = Vec::with_capacity(self.n_inputs);
            for (i, &skipped) in skip.iter().enumerate() {
                if skipped {
                    row.push(None);
                    continue;
                }
                let Some(line) = lines.next() else {
                    panic!(
                        "the native program stopped ({}) at state {n} {state:?}, input number {i}",
                        match status {
                            Some(s) => format!("{s}"),
                            None => "timed out".to_string(),
                        }
                    )
                };
                row.push(Some(self.parse(line, state)));
            }
            out.push(row);
        }
        out
    }

    fn parse(&self, line: &str, pre: &[i32]) -> Ended {
        let w: Vec<i64> = (line.split_whitespace())
            .map(|x| x.parse().expect("a number"))
            .collect();
        match w[0] {
            1 => {
                let n = w[2] as usize;
                let outputs = w[3..3 + n.min(16)].iter().map(|&v| v as i32).collect();
                let mut post = pre[..self.n_cells].to_vec();
                for pair in w[3 + n.min(16)..].chunks(2) {
                    post[pair[0] as usize] = pair[1] as i32;
                }
                Ended::Went {
                    outputs,
                    invalid: w[1] != 0,
                    post,
                }
            }
            2 => Ended::Error(w[1] as u32),
            4 => match self.label_at(w[1] as u32) {
                Some(l) => Ended::Error(l),
                None => Ended::Assert(w[1] as u32),
            },
            5 => Ended::Returned,
            _ => Ended::Blocked,
        }
    }

    fn label_at(&self, line: u32) -> Option<u32> {
        (self.labels.iter().rev())
            .find(|(l, _)| *l <= line)
            .map(|&(_, n)| n)
    }
}

/// The driver after the program: load, dump, and the loop over cases.
fn driver(cells: &[Cell], arrays: &[(i32, String)], inputs: &[i32]) -> String {
    let n = cells.len();
    let mut d = format!(
        "static int rigor_state[{}];\nstatic const int rigor_inputs[{}] = {{{}}};\n",
        n.max(1),
        inputs.len().max(1),
        inputs
            .iter()
            .map(|v| v.to_string())
            .collect::<Vec<_>>()
            .join(",")
    );
    d.push_str("static void rigor_load(void) {\n");
    for (k, c) in cells.iter().enumerate() {
        match c {
            Cell::Int(lv) => d.push_str(&format!("  {lv} = rigor_state[{k}];\n")),
            Cell::Pointer(p) => {
                for (a, name) in arrays {
                    d.push_str(&format!("  if (rigor_state[{k}] == {a}) {p} = {name};\n"));
                }
            }
        }
    }
    d.push_str("}\nstatic void rigor_dump(void) {\n  int rigor_v;\n");
    for (k, c) in cells.iter().enumerate() {
        match c {
            Cell::Int(lv) => d.push_str(&format!("  rigor_v = {lv};\n")),
            Cell::Pointer(p) => {
                d.push_str("  rigor_v = -1;\n");
                for (a, name) in arrays {
                    d.push_str(&format!("  if ({p} == {name}) rigor_v = {a};\n"));
                }
            }
        }
        d.push_str(&format!(
            "  if (rigor_v != rigor_state[{k}]) printf(\" {k} %d\", rigor_v);\n"
        ));
    }
    d.push_str(&format!(
        r#"}}
int main(void) {{
  static char mask[256];
  while (scanf("%255s", mask) == 1) {{
    for (int k = 0; k < {n}; k++) if (scanf("%d", &rigor_state[k]) != 1) return 2;
    for (int i = 0; i < {ni}; i++) {{
      if (mask[i] != '1') continue;
      rigor_reads = 0; rigor_invalid = 0; rigor_nout = 0; rigor_input = rigor_inputs[i];
      if (setjmp(rigor_jb) == 0) {{ rigor_original_main(); rigor_kind = 5; rigor_val = 0; }}
      if (rigor_kind == 1) {{
        printf("1 %d %d", rigor_invalid, rigor_nout);
        for (int o = 0; o < rigor_nout && o < 16; o++) printf(" %d", rigor_outs[o]);
        rigor_dump();
        printf("\n");
      }} else printf("%d %ld\n", rigor_kind, rigor_val);
    }}
    fflush(stdout);
  }}
  return 0;
}}
"#,
        ni = inputs.len()
    ));
    d
}

/// `(line, label)` of the `error_N:` and `globalError:` labels.
fn find_labels(src: &str) -> Vec<(u32, u32)> {
    let re = regex::Regex::new(r"\b(?:error_(\d+)|(globalError))\s*:").expect("valid regex");
    let mut out = Vec::new();
    for (i, line) in src.lines().enumerate() {
        for c in re.captures_iter(line) {
            let label = match c.get(1) {
                Some(n) => n.as_str().parse().unwrap_or(u32::MAX - 1),
                None => u32::MAX,
            };
            out.push((i as u32 + 1, label));
        }
    }
    out
}
