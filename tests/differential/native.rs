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
//! For Java (`Native::build_java`), a driver class makes a fresh instance
//! of the program per case, sets its fields by reflection, and calls
//! `calculateOutput`; an `IllegalArgumentException` is an invalid input,
//! `Errors.__VERIFIER_error(N)` (a class of the harness) error `N`.
//!
//! The harness never reads rigor's front end: what it sets and prints is
//! given as lvalues (`a17`, `a[3]`), pointers as the number of the array
//! (of a list of arrays) they point to, Java strings as their number in a
//! list of strings.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// One global the harness sets and prints.
#[derive(Clone, Debug)]
pub enum Cell {
    /// An int lvalue: `x` or `a[3]`.
    Int(String),
    /// A Java boolean field, 0 or 1.
    Bool(String),
    /// A Java string field, as its number in the list of strings (-1 for
    /// one not in it, or null).
    Str(String),
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
    /// Java: the step threw this exception (other than an invalid input).
    Threw(String),
    /// The step went on: the ints it printed, whether it said the input
    /// was invalid, and the cells after it.
    Went {
        /// What it printed (C: the ints; Java: the lines).
        outputs: Vec<String>,
        /// Whether it printed "Invalid".
        invalid: bool,
        /// The values of the cells after the step.
        post: Vec<i32>,
    },
}

/// A compiled harness.
pub struct Native {
    dir: tempfile::TempDir,
    /// The program to run and its arguments.
    command: Vec<std::ffi::OsString>,
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
            .output();
        compiled(path, "gcc", out);
        Native {
            command: vec![exe.into_os_string()],
            dir,
            n_cells: cells.len(),
            n_inputs: inputs.len(),
            labels: find_labels(&src),
        }
    }

    /// Compiles the Java program at `path` with a driver class that sets
    /// and prints `cells` (strings as their number in `strings`) and runs
    /// each of `inputs`; `arrays` are the arrays pointers may point to,
    /// each with its number.
    pub fn build_java(
        path: &Path,
        cells: &[Cell],
        arrays: &[(i32, String)],
        strings: &[String],
        inputs: &[String],
    ) -> Native {
        let src = std::fs::read_to_string(path).expect("the program reads");
        let class = (regex::Regex::new(r"public\s+class\s+(\w+)").expect("valid regex"))
            .captures(&src)
            .map(|c| c[1].to_string())
            .expect("a public class");
        let dir = tempfile::tempdir().expect("a temporary directory");
        let write = |name: &str, text: &str| {
            std::fs::write(dir.path().join(name), text).expect("the harness writes")
        };
        write(&format!("{class}.java"), &src);
        write("Errors.java", JAVA_ERRORS);
        write(
            "RigorStep.java",
            &java_driver(&class, cells, arrays, strings, inputs),
        );
        let out = Command::new("javac")
            .args(["-nowarn", "-encoding", "UTF-8", "-d"])
            .arg(dir.path())
            .arg("-sourcepath")
            .arg(dir.path())
            .arg(dir.path().join("RigorStep.java"))
            .output();
        compiled(path, "javac", out);
        let command = ["java", "-Xss512m", "-cp"]
            .into_iter()
            .map(std::ffi::OsString::from)
            .chain([dir.path().as_os_str().to_owned(), "RigorStep".into()])
            .collect();
        Native {
            command,
            dir,
            n_cells: cells.len(),
            n_inputs: inputs.len(),
            labels: Vec::new(),
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
        let mut child = Command::new(&self.command[0])
            .args(&self.command[1..])
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
        let w: Vec<&str> = line.split_whitespace().collect();
        let int = |k: usize| -> i64 { w[k].parse().expect("a number") };
        match int(0) {
            1 => {
                let n = (int(2) as usize).min(16);
                let outputs = w[3..3 + n].iter().map(|v| v.to_string()).collect();
                let mut post = pre[..self.n_cells].to_vec();
                for k in (3 + n..w.len()).step_by(2) {
                    post[int(k) as usize] = int(k + 1) as i32;
                }
                Ended::Went {
                    outputs,
                    invalid: int(1) != 0,
                    post,
                }
            }
            2 => Ended::Error(int(1) as u32),
            4 => match self.label_at(int(1) as u32) {
                Some(l) => Ended::Error(l),
                None => Ended::Assert(int(1) as u32),
            },
            5 => Ended::Returned,
            6 => Ended::Threw(w[1..].join(" ")),
            _ => Ended::Blocked,
        }
    }

    fn label_at(&self, line: u32) -> Option<u32> {
        (self.labels.iter().rev())
            .find(|(l, _)| *l <= line)
            .map(|&(_, n)| n)
    }
}

/// Fails, naming the compiler's first error, unless `out` is a success.
fn compiled(path: &Path, compiler: &str, out: std::io::Result<std::process::Output>) {
    let out = out.unwrap_or_else(|e| panic!("{compiler} does not run: {e}"));
    assert!(
        out.status.success(),
        "{}: the native harness does not compile: {}",
        path.display(),
        (String::from_utf8_lossy(&out.stderr).lines())
            .find(|l| l.contains("error"))
            .unwrap_or(&format!("{compiler} failed"))
    );
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
            Cell::Int(lv) | Cell::Bool(lv) | Cell::Str(lv) => {
                d.push_str(&format!("  {lv} = rigor_state[{k}];\n"))
            }
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
            Cell::Int(lv) | Cell::Bool(lv) | Cell::Str(lv) => {
                d.push_str(&format!("  rigor_v = {lv};\n"))
            }
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

/// The `Errors` class the RERS Java programs call: error `N` stops the step.
const JAVA_ERRORS: &str = r#"public class Errors {
    public static void __VERIFIER_error(int n) { throw new Stop(n); }
    public static class Stop extends RuntimeException {
        public final int label;
        Stop(int label) { super(null, null, false, false); this.label = label; }
    }
}
"#;

/// A Java string literal of `s`.
fn java_string(s: &str) -> String {
    let mut out = String::from("\"");
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_ascii_graphic() || c == ' ' => out.push(c),
            c => out.push_str(&format!("\\u{:04x}", c as u32)),
        }
    }
    out.push('"');
    out
}

/// The Java driver class: cells by reflection, one fresh instance a case.
fn java_driver(
    class: &str,
    cells: &[Cell],
    arrays: &[(i32, String)],
    strings: &[String],
    inputs: &[String],
) -> String {
    let list = |xs: Vec<String>| xs.join(",");
    let (mut names, mut index, mut kind) = (vec![], vec![], vec![]);
    for c in cells {
        let (k, lv) = match c {
            Cell::Int(lv) => (0, lv),
            Cell::Bool(lv) => (1, lv),
            Cell::Str(lv) => (2, lv),
            Cell::Pointer(lv) => (3, lv),
        };
        let (name, at) = match lv.split_once('[') {
            Some((n, rest)) => (n, rest.trim_end_matches(']').parse().expect("an index")),
            None => (lv.as_str(), -1i64),
        };
        names.push(java_string(name));
        index.push(at.to_string());
        kind.push(k.to_string());
    }
    format!(
        r#"import java.io.*;
import java.lang.reflect.*;
import java.util.*;
public class RigorStep {{
  static final String[] NAMES = {{{names}}};
  static final int[] INDEX = {{{index}}};
  static final int[] KIND = {{{kind}}};
  static final String[] STRINGS = {{{strings}}};
  static final String[] ARRAYS = {{{arrays}}};
  static final int[] ARRAY_IDS = {{{array_ids}}};
  static final String[] INPUTS = {{{inputs}}};
  static Field[] fields = new Field[NAMES.length];
  static Field[] arrayFields = new Field[ARRAYS.length];
  static Map<String, Integer> stringIds = new HashMap<>();
  static void set(Object eca, int k, int v) throws Exception {{
    Field f = fields[k];
    switch (KIND[k]) {{
      case 0: if (INDEX[k] >= 0) ((int[]) f.get(eca))[INDEX[k]] = v; else f.setInt(eca, v); break;
      case 1: if (INDEX[k] >= 0) ((boolean[]) f.get(eca))[INDEX[k]] = v != 0; else f.setBoolean(eca, v != 0); break;
      case 2: {{
        String x = v >= 0 && v < STRINGS.length ? STRINGS[v].intern() : null;
        if (INDEX[k] >= 0) ((String[]) f.get(eca))[INDEX[k]] = x; else f.set(eca, x);
        break;
      }}
      default:
        for (int a = 0; a < ARRAYS.length; a++) if (ARRAY_IDS[a] == v) f.set(eca, arrayFields[a].get(eca));
    }}
  }}
  static int get(Object eca, int k) throws Exception {{
    Field f = fields[k];
    switch (KIND[k]) {{
      case 0: return INDEX[k] >= 0 ? ((int[]) f.get(eca))[INDEX[k]] : f.getInt(eca);
      case 1: return (INDEX[k] >= 0 ? ((boolean[]) f.get(eca))[INDEX[k]] : f.getBoolean(eca)) ? 1 : 0;
      case 2: {{ Object s = INDEX[k] >= 0 ? ((String[]) f.get(eca))[INDEX[k]] : f.get(eca); Integer id = s == null ? null : stringIds.get((String) s); return id == null ? -1 : id; }}
      default: {{
        Object target = f.get(eca);
        for (int a = 0; a < ARRAYS.length; a++) if (arrayFields[a].get(eca) == target) return ARRAY_IDS[a];
        return -1;
      }}
    }}
  }}
  public static void main(String[] args) throws Exception {{
    for (int k = 0; k < NAMES.length; k++) {{ fields[k] = {class}.class.getDeclaredField(NAMES[k]); fields[k].setAccessible(true); }}
    for (int a = 0; a < ARRAYS.length; a++) {{ arrayFields[a] = {class}.class.getDeclaredField(ARRAYS[a]); arrayFields[a].setAccessible(true); }}
    for (int s = 0; s < STRINGS.length; s++) stringIds.putIfAbsent(STRINGS[s], s);
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in), 1 << 20);
    PrintStream report = new PrintStream(new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 20), false);
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    System.setOut(new PrintStream(printed, true));
    System.setErr(new PrintStream(OutputStream.nullOutputStream()));
    int[] state = new int[NAMES.length];
    String line;
    while ((line = in.readLine()) != null) {{
      String[] w = line.trim().split(" ");
      for (int k = 0; k < NAMES.length; k++) state[k] = Integer.parseInt(w[k + 1]);
      for (int i = 0; i < INPUTS.length; i++) {{
        if (w[0].charAt(i) != '1') continue;
        {class} eca = new {class}();
        for (int k = 0; k < NAMES.length; k++) if (KIND[k] == 3) set(eca, k, state[k]);
        for (int k = 0; k < NAMES.length; k++) if (KIND[k] != 3) set(eca, k, state[k]);
        printed.reset();
        StringBuilder r = new StringBuilder();
        boolean went = false;
        try {{ eca.calculateOutput(INPUTS[i]); r.append("1 0"); went = true; }}
        catch (IllegalArgumentException e) {{ r.append("1 1"); went = true; }}
        catch (Errors.Stop e) {{ r.append("2 ").append(e.label); }}
        catch (Throwable e) {{ r.append("6 ").append(e.getClass().getName()); }}
        if (went) {{
          List<String> outs = new ArrayList<>();
          for (String o : printed.toString().split("\\R")) if (!o.isEmpty()) outs.add(o.trim());
          r.append(' ').append(outs.size());
          for (String o : outs) r.append(' ').append(o);
          for (int k = 0; k < NAMES.length; k++) {{ int v = get(eca, k); if (v != state[k]) r.append(' ').append(k).append(' ').append(v); }}
        }}
        report.println(r);
      }}
    }}
    report.flush();
  }}
}}
"#,
        names = list(names),
        index = list(index),
        kind = list(kind),
        strings = list(strings.iter().map(|s| java_string(s)).collect()),
        arrays = list(arrays.iter().map(|(_, n)| java_string(n)).collect()),
        array_ids = list(arrays.iter().map(|(a, _)| a.to_string()).collect()),
        inputs = list(inputs.iter().map(|s| java_string(s)).collect()),
    )
}
