//! Independent witness check for Java programs: the original source,
//! compiled by `javac` and run on the JVM.
//!
//! As for C ([`super`]), the program text is left untouched. The
//! harness supplies the `Errors` class the RERS programs call
//! (`Errors.__VERIFIER_error(N)`), which stops the run, and a main class
//! that, for each witness (one line of input names on stdin), makes a
//! fresh instance of the program, feeds it the inputs through
//! `calculateOutput` (an invalid input, an `IllegalArgumentException`, goes
//! on with the next input, as the program's own `main` does) and reports
//! `ERROR N k` (label `N` on input `k`) or `END k`. A program with static
//! state of its own gets a fresh JVM per witness.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use super::{compile_failed, tool, NativeOutcome, ValidateError, WitnessCheck};
use crate::source::read_text;

/// A compiled Java harness around one program.
pub struct JavaHarness {
    dir: tempfile::TempDir,
    /// Whether every witness needs a JVM of its own.
    one_jvm_each: bool,
}

/// Runs the program on each line of stdin; `PROGRAM` is the class name.
const MAIN: &str = r#"import java.io.*;
public class RigorHarness {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        PrintStream report = System.out;
        PrintStream quiet = new PrintStream(OutputStream.nullOutputStream());
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        PrintStream capture = new PrintStream(printed, true);
        System.setOut(capture);
        System.setErr(quiet);
        String line;
        while ((line = in.readLine()) != null) {
            String t = line.trim();
            String[] inputs = t.isEmpty() ? new String[0] : t.split("\\s+");
            int used = 0;
            String result;
            try {
                PROGRAM eca = new PROGRAM();
                for (String input : inputs) {
                    used++;
                    capture.println("RIGOR_IN");
                    try {
                        eca.calculateOutput(input);
                    } catch (IllegalArgumentException e) {
                    }
                }
                result = "END 0 " + used;
            } catch (Errors.Stop e) {
                result = "ERROR " + e.label + " " + used;
            } catch (Throwable e) {
                result = "EXCEPTION 0 " + used;
            }
            capture.flush();
            for (String l : printed.toString().split("\\R")) {
                if (!l.isEmpty()) report.println("RIGOR_OUT " + l);
            }
            printed.reset();
            report.println("RIGOR " + result);
            report.flush();
        }
    }
}
"#;

/// The `Errors` class of the RERS programs, stopping the run.
const ERRORS: &str = r#"public class Errors {
    public static void __VERIFIER_error(int n) {
        throw new Stop(n);
    }
    static class Stop extends RuntimeException {
        final int label;
        Stop(int label) {
            super(null, null, false, false);
            this.label = label;
        }
    }
}
"#;

impl JavaHarness {
    /// Builds the harness for the Java file `path` with `javac`.
    pub fn build(path: &Path) -> Result<JavaHarness, ValidateError> {
        let src = read_text(&path.to_string_lossy())?;
        let class = regex::Regex::new(r"public\s+class\s+(\w+)")
            .expect("valid regex")
            .captures(&src)
            .map(|c| c[1].to_string())
            .ok_or_else(|| ValidateError::Compile {
                file: path.display().to_string(),
                first_error: "no public class".into(),
            })?;
        // Static fields other than the input reader keep state between
        // instances.
        let statics =
            regex::Regex::new(r"(?m)^\s*(?:public\s+|private\s+)?static\s+(\w+)\s+\w+\s*=")
                .expect("valid regex");
        let one_jvm_each = statics
            .captures_iter(&src)
            .any(|c| &c[1] != "BufferedReader");
        let dir = tempfile::tempdir().map_err(tool("create a temporary directory"))?;
        let write = |name: &str, text: &str| {
            std::fs::write(dir.path().join(name), text).map_err(tool("write the harness"))
        };
        write(&format!("{class}.java"), &src)?;
        write("RigorHarness.java", &MAIN.replace("PROGRAM", &class))?;
        if !src.contains("class Errors") {
            write("Errors.java", ERRORS)?;
        }
        let out = Command::new("javac")
            .args(["-nowarn", "-encoding", "UTF-8", "-d"])
            .arg(dir.path())
            .arg("-sourcepath")
            .arg(dir.path())
            .arg(dir.path().join("RigorHarness.java"))
            .output()
            .map_err(tool("run javac"))?;
        if !out.status.success() {
            return Err(compile_failed(path, "javac", &out.stderr));
        }
        Ok(JavaHarness { dir, one_jvm_each })
    }

    /// Runs each sequence of input names, `timeout` for each: what the
    /// program did, and what it printed (`RIGOR_IN` where it reads an
    /// input, and its own outputs).
    pub fn run_all(
        &self,
        runs: &[&[String]],
        timeout: Duration,
    ) -> Result<Vec<(NativeOutcome, Vec<String>)>, ValidateError> {
        if self.one_jvm_each {
            let mut all = Vec::new();
            for r in runs {
                all.extend(self.run_batch(std::slice::from_ref(r), timeout)?);
            }
            Ok(all)
        } else {
            // The JVM's start, then each run's share.
            let total = timeout.saturating_mul(runs.len().max(1) as u32);
            self.run_batch(runs, total)
        }
    }

    /// Runs the witnesses (input names) on one JVM, within `timeout`.
    fn run_batch(
        &self,
        witnesses: &[&[String]],
        timeout: Duration,
    ) -> Result<Vec<(NativeOutcome, Vec<String>)>, ValidateError> {
        let mut child = Command::new("java")
            .args(["-Xss512m", "-cp"])
            .arg(self.dir.path())
            .arg("RigorHarness")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(tool("run java"))?;
        let feed: String = witnesses.iter().map(|w| w.join(" ") + "\n").collect();
        let mut stdin = child.stdin.take().expect("piped stdin");
        // The feeding runs on its own thread: a program that stops reading
        // must not block the wait below.
        let feeder = std::thread::spawn(move || {
            let _ = stdin.write_all(feed.as_bytes());
        });
        let mut stdout = child.stdout.take().expect("piped stdout");
        let reader = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = std::io::Read::read_to_string(&mut stdout, &mut text);
            text
        });
        let start = std::time::Instant::now();
        let timed_out = loop {
            match child.try_wait().map_err(tool("wait for java"))? {
                Some(_) => break false,
                None if start.elapsed() > timeout => {
                    let _ = child.kill();
                    let _ = child.wait();
                    break true;
                }
                None => std::thread::sleep(Duration::from_millis(5)),
            }
        };
        let _ = feeder.join();
        let text = reader.join().unwrap_or_default();
        let mut outcomes = Vec::new();
        let mut printed = Vec::new();
        for line in text.lines() {
            if let Some(out) = line.strip_prefix("RIGOR_OUT ") {
                printed.push(out.to_string());
            } else if let Some(outcome) = interpret(line) {
                outcomes.push((outcome, std::mem::take(&mut printed)));
            }
        }
        // Runs that did not report (a timeout, a crash of the JVM).
        while outcomes.len() < witnesses.len() {
            let outcome = if timed_out {
                NativeOutcome::Timeout
            } else {
                NativeOutcome::Exited {
                    inputs: usize::MAX,
                    code: None,
                }
            };
            outcomes.push((outcome, std::mem::take(&mut printed)));
        }
        Ok(outcomes)
    }
}

/// One `RIGOR WHAT V K` report line.
fn interpret(line: &str) -> Option<NativeOutcome> {
    let mut parts = line.strip_prefix("RIGOR ")?.split_whitespace();
    let what = parts.next()?;
    let v: u32 = parts.next()?.parse().ok()?;
    let inputs: usize = parts.next()?.parse().ok()?;
    Some(match what {
        "ERROR" => NativeOutcome::Error { label: v, inputs },
        "END" => NativeOutcome::End { inputs },
        _ => NativeOutcome::Exited { inputs, code: None },
    })
}

/// Checks each `(label, input names)` witness on the JVM: confirmed when
/// the run reaches exactly that label on its last input. `timeout` bounds
/// each witness's run.
pub fn validate_java(
    harness: &JavaHarness,
    witnesses: &[(u32, Vec<String>)],
    timeout: Duration,
) -> Result<Vec<WitnessCheck>, ValidateError> {
    let runs: Vec<&[String]> = witnesses.iter().map(|(_, w)| w.as_slice()).collect();
    let outcomes = harness.run_all(&runs, timeout)?.into_iter().map(|(o, _)| o);
    Ok(witnesses
        .iter()
        .zip(outcomes)
        .map(|((label, inputs), native)| WitnessCheck {
            label: *label,
            confirmed: native
                == NativeOutcome::Error {
                    label: *label,
                    inputs: inputs.len(),
                },
            native,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_lines_are_read() {
        assert_eq!(
            interpret("RIGOR ERROR 7 3"),
            Some(NativeOutcome::Error {
                label: 7,
                inputs: 3
            })
        );
        assert_eq!(
            interpret("RIGOR END 0 5"),
            Some(NativeOutcome::End { inputs: 5 })
        );
        assert_eq!(interpret("noise"), None);
    }
}
