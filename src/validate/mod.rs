//! Independent witness check: the original C program, compiled by gcc.
//!
//! rigor's own verdicts come from its interpreter; a bug there could make a
//! wrong `reachable` claim look valid when replayed by the same interpreter.
//! This module closes that loop with a second, unrelated executor: it wraps
//! the *original* source file in a small harness, compiles it with the system
//! C compiler and runs each witness through the native binary.
//!
//! The harness keeps the program text untouched except for blanking
//! `#include <assert.h>` (so that `assert` can be redefined); a `#line 1`
//! directive keeps line numbers equal to the original's. It supplies:
//! - `scanf`, fed from stdin, which ends the run (`RIGOR_END k`) when the
//!   inputs are used up;
//! - `__VERIFIER_error(N)` (2017+), printing `RIGOR_ERROR N k`;
//! - `assert(e)` (2012) and `__assert_fail` (2014) printing the failing
//!   line, mapped back to the `error_N:` label that precedes it;
//! - `__VERIFIER_nondet_int`, `__VERIFIER_assume` and (when the program
//!   only declares them) `reach_error_N()` for SV-COMP variants.
//!
//! `k` is the number of inputs consumed, so a witness is confirmed only if
//! the error happens on its last input.
//!
//! Java programs are run the same way by javac's build ([`java`]), and LTL
//! counterexamples (lassos) on either ([`lasso`]).

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::source::{read_text, ReadError};

pub mod java;
pub mod lasso;

/// Why witnesses could not be run natively.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ValidateError {
    /// The program could not be read.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// A tool or a temporary file failed (`what` says which).
    #[error("cannot {what}: {reason}")]
    Tool {
        /// What could not be done.
        what: &'static str,
        /// The system's message.
        reason: String,
    },
    /// The compiler (gcc, javac) rejected the harness.
    #[error("{file}: the harness does not compile: {first_error}")]
    Compile {
        /// The program.
        file: String,
        /// gcc's first error line.
        first_error: String,
    },
}

/// The harness of `path` did not compile: the compiler's first error line.
pub(super) fn compile_failed(path: &Path, compiler: &str, stderr: &[u8]) -> ValidateError {
    let err = String::from_utf8_lossy(stderr);
    let first = err.lines().find(|l| l.contains("error"));
    ValidateError::Compile {
        file: path.display().to_string(),
        first_error: first.map_or_else(|| format!("{compiler} failed"), str::to_string),
    }
}

/// A tool failure.
pub(super) fn tool(what: &'static str) -> impl Fn(std::io::Error) -> ValidateError {
    move |e| ValidateError::Tool {
        what,
        reason: e.to_string(),
    }
}

/// What the native program did on one input sequence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NativeOutcome {
    /// Reached error label `N` after consuming `inputs` inputs.
    Error {
        /// The label.
        label: u32,
        /// Inputs consumed.
        inputs: usize,
    },
    /// Reached the `globalError` label (not a property).
    GlobalError {
        /// Inputs consumed.
        inputs: usize,
    },
    /// Consumed every input without an error.
    End {
        /// Inputs consumed.
        inputs: usize,
    },
    /// The program exited by itself (e.g. `main` returned on an invalid
    /// input) after `inputs` inputs.
    Exited {
        /// Inputs consumed.
        inputs: usize,
        /// The exit status, if any.
        code: Option<i32>,
    },
    /// An `__VERIFIER_assume` failed.
    Blocked,
    /// An assertion failed at a line no error label precedes.
    UnknownAssert {
        /// The line of the assertion.
        line: u32,
    },
    /// The run did not finish in time.
    Timeout,
}

/// A compiled harness around one program.
pub struct Harness {
    dir: tempfile::TempDir,
    exe: std::path::PathBuf,
    /// `(line, label)` of every `error_N:` label (`u32::MAX` for
    /// `globalError`), sorted by line.
    labels: Vec<(u32, u32)>,
}

const PRELUDE: &str = r#"#include <stdio.h>
#include <stdlib.h>
#include <stdarg.h>
#include <string.h>
#include <math.h>
#include <unistd.h>
static int rigor_used = 0;
static void rigor_stop(const char *what, long v) {
    fflush(stdout);
    fprintf(stderr, "\nRIGOR %s %ld %d\n", what, v, rigor_used);
    fflush(stderr);
    _exit(0);
}
static int rigor_scanf(const char *fmt, ...) {
    printf("RIGOR_IN\n");
    va_list ap;
    va_start(ap, fmt);
    int r = vscanf(fmt, ap);
    va_end(ap);
    if (r != 1) rigor_stop("END", 0);
    rigor_used++;
    return r;
}
void __VERIFIER_error(int n) { rigor_stop("ERROR", n); }
int __VERIFIER_nondet_int(void) { int x; rigor_scanf("%d", &x); return x; }
void __VERIFIER_assume(int c) { if (!c) rigor_stop("BLOCKED", 0); }
static void rigor_assert_line(int line) { rigor_stop("ASSERT", line); }
#define scanf(...) rigor_scanf(__VA_ARGS__)
#define assert(e) ((e) ? (void)0 : rigor_assert_line(__LINE__))
#define __assert_fail(expr, file, line, fn) rigor_assert_line(__LINE__)
"#;

impl Harness {
    /// Builds the harness for the C file `path` with `gcc`.
    pub fn build(path: &Path) -> Result<Harness, ValidateError> {
        let src = read_text(&path.to_string_lossy())?;
        let labels = find_labels(&src);
        let mut text = PRELUDE.to_string();
        // SV-COMP `reach_error_N()` calls the program only declares.
        let calls = regex::Regex::new(r"\breach_error_(\d+)\s*\(").expect("valid regex");
        let mut defined = std::collections::BTreeSet::new();
        for c in calls.captures_iter(&src) {
            let n: u32 = c[1].parse().unwrap_or(u32::MAX);
            let def = regex::Regex::new(&format!(r"void\s+reach_error_{n}\s*\([^)]*\)\s*\{{"))
                .expect("valid regex");
            if n != u32::MAX && !def.is_match(&src) && defined.insert(n) {
                text.push_str(&format!(
                    "void reach_error_{n}(void) {{ rigor_stop(\"ERROR\", {n}); }}\n"
                ));
            }
        }
        text.push_str(&format!(
            "#line 1 \"{}\"\n",
            path.display().to_string().replace('"', "")
        ));
        for line in src.lines() {
            let t = line.trim_start();
            if t.starts_with("#include") && t.contains("assert.h") {
                text.push('\n');
            } else {
                text.push_str(line);
                text.push('\n');
            }
        }
        let dir = tempfile::tempdir().map_err(tool("create a temporary directory"))?;
        let c = dir.path().join("harness.c");
        std::fs::write(&c, text).map_err(tool("write the harness"))?;
        let exe = dir.path().join("harness");
        let out = Command::new("gcc")
            .args(["-O1", "-w", "-o"])
            .arg(&exe)
            .arg(&c)
            .arg("-lm")
            .output()
            .map_err(tool("run gcc"))?;
        if !out.status.success() {
            return Err(compile_failed(path, "gcc", &out.stderr));
        }
        Ok(Harness { dir, exe, labels })
    }

    /// Runs the native program on a sequence of input values.
    pub fn run(&self, inputs: &[i32], timeout: Duration) -> Result<NativeOutcome, ValidateError> {
        Ok(self.run_to(inputs, timeout, None)?.0)
    }

    /// [`Harness::run`], with what the program printed on stdout, line by
    /// line: `RIGOR_IN` where it reads an input, and its own outputs.
    pub fn run_printing(
        &self,
        inputs: &[i32],
        timeout: Duration,
    ) -> Result<(NativeOutcome, Vec<String>), ValidateError> {
        // A file, not a pipe: a program printing more than a pipe holds
        // must not block while nobody reads.
        let printed = tempfile::tempfile_in(self.dir.path()).map_err(tool("create a file"))?;
        self.run_to(inputs, timeout, Some(printed))
    }

    /// Runs the native program with its stdout in `printed` (read back
    /// line by line), or discarded.
    fn run_to(
        &self,
        inputs: &[i32],
        timeout: Duration,
        printed: Option<std::fs::File>,
    ) -> Result<(NativeOutcome, Vec<String>), ValidateError> {
        let stdout = match &printed {
            Some(f) => Stdio::from(f.try_clone().map_err(tool("create a file"))?),
            None => Stdio::null(),
        };
        let mut child = Command::new(&self.exe)
            .stdin(Stdio::piped())
            .stdout(stdout)
            .stderr(Stdio::piped())
            .spawn()
            .map_err(tool("run the harness"))?;
        let read_printed = |f: Option<std::fs::File>| {
            use std::io::{Read, Seek};
            let mut text = String::new();
            if let Some(mut f) = f {
                let _ = f.rewind();
                let _ = f.read_to_string(&mut text);
            }
            text.lines().map(str::to_string).collect::<Vec<_>>()
        };
        let mut stdin = child.stdin.take().expect("piped stdin");
        let feed: String = inputs.iter().map(|v| format!("{v}\n")).collect();
        // The program may exit before reading everything: ignore EPIPE.
        let _ = stdin.write_all(feed.as_bytes());
        drop(stdin);
        let start = std::time::Instant::now();
        loop {
            match child.try_wait().map_err(tool("wait for the harness"))? {
                Some(status) => {
                    let mut err = String::new();
                    if let Some(mut e) = child.stderr.take() {
                        use std::io::Read;
                        let _ = e.read_to_string(&mut err);
                    }
                    let outcome = self.interpret(&err, status.code());
                    return Ok((outcome, read_printed(printed)));
                }
                None if start.elapsed() > timeout => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Ok((NativeOutcome::Timeout, read_printed(printed)));
                }
                None => std::thread::sleep(Duration::from_millis(2)),
            }
        }
    }

    fn interpret(&self, stderr: &str, code: Option<i32>) -> NativeOutcome {
        let Some(line) = stderr.lines().rev().find(|l| l.starts_with("RIGOR ")) else {
            return NativeOutcome::Exited {
                inputs: usize::MAX,
                code,
            };
        };
        let parts: Vec<&str> = line.split_whitespace().collect();
        let v: i64 = parts.get(2).and_then(|s| s.parse().ok()).unwrap_or(-1);
        let used: usize = parts.get(3).and_then(|s| s.parse().ok()).unwrap_or(0);
        match parts.get(1).copied() {
            Some("ERROR") => NativeOutcome::Error {
                label: v as u32,
                inputs: used,
            },
            Some("END") => NativeOutcome::End { inputs: used },
            Some("BLOCKED") => NativeOutcome::Blocked,
            Some("ASSERT") => match self.label_at(v as u32) {
                Some(u32::MAX) => NativeOutcome::GlobalError { inputs: used },
                Some(label) => NativeOutcome::Error {
                    label,
                    inputs: used,
                },
                None => NativeOutcome::UnknownAssert { line: v as u32 },
            },
            _ => NativeOutcome::Exited { inputs: used, code },
        }
    }

    /// The label of the nearest `error_N:` at or above `line`.
    fn label_at(&self, line: u32) -> Option<u32> {
        self.labels
            .iter()
            .rev()
            .find(|(l, _)| *l <= line)
            .map(|&(_, n)| n)
    }
}

/// `(line, label)` of the `error_N:` and `globalError:` labels in C text.
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

/// The verdict on one witness.
#[derive(Clone, Debug)]
pub struct WitnessCheck {
    /// The label the witness claims.
    pub label: u32,
    /// What the native program did.
    pub native: NativeOutcome,
    /// Whether the native run reached exactly that label on the last input.
    pub confirmed: bool,
}

/// Checks each `(label, input values)` witness against the native program.
pub fn validate(
    harness: &Harness,
    witnesses: &[(u32, Vec<i32>)],
    timeout: Duration,
) -> Result<Vec<WitnessCheck>, ValidateError> {
    witnesses
        .iter()
        .map(|(label, inputs)| {
            let native = harness.run(inputs, timeout)?;
            let confirmed = native
                == NativeOutcome::Error {
                    label: *label,
                    inputs: inputs.len(),
                };
            Ok(WitnessCheck {
                label: *label,
                native,
                confirmed,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_found_with_their_lines() {
        let src = "int x;\n  error_3: assert(0);\n globalError: assert(0);\nerror_12:\n";
        assert_eq!(find_labels(src), vec![(2, 3), (3, u32::MAX), (4, 12)]);
    }
}
