//! Abbadingo execution logs (RERS industrial tracks): a header line
//! `TRACES SYMBOLS` (number of traces, size of the alphabet), then one trace
//! per line, `LABEL LENGTH i1 o1 i2 o2 ...` with LENGTH = 2n symbols
//! alternating input and output. Reading, replaying through any
//! [`System`] (a program, a `.dot`/`.aut` model), and generating logs from a
//! system's own runs.

use std::collections::HashSet;

use rand::{Rng, SeedableRng};

use crate::source::{read_text, Diagnostic, ReadError};
use crate::system::{Outcome, System, ERROR_LABEL};

/// A log that cannot be read, or does not fit the system it is run on.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LogError {
    /// The file could not be read.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// The text is not an Abbadingo log.
    #[error(transparent)]
    Syntax(Diagnostic),
    /// A symbol is not in the system's alphabet.
    #[error(transparent)]
    Alphabet(Diagnostic),
}

impl LogError {
    /// The located message, where there is one.
    pub fn diagnostic(&self) -> Option<&Diagnostic> {
        match self {
            LogError::Read(_) => None,
            LogError::Syntax(d) | LogError::Alphabet(d) => Some(d),
        }
    }
}

type Result<T> = std::result::Result<T, LogError>;

/// A syntax error at a place in the log.
fn syntax(file: &str, line: u32, col: u32, message: impl Into<String>) -> LogError {
    LogError::Syntax(Diagnostic::at(file, line, col, message))
}

/// A symbol of a trace with its 1-based column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbol {
    /// The symbol.
    pub name: String,
    /// 1-based column in its line.
    pub col: u32,
}

/// One trace of a log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trace {
    /// 1-based line in the file.
    pub line: u32,
    /// The Abbadingo label (1 = accepted by the system).
    pub label: u32,
    /// Input, output, input, output, ...
    pub symbols: Vec<Symbol>,
}

impl Trace {
    /// The (input, output) pairs.
    pub fn steps(&self) -> impl Iterator<Item = (&Symbol, &Symbol)> {
        self.symbols.chunks(2).map(|c| (&c[0], &c[1]))
    }
}

/// A parsed log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Log {
    /// The file it came from (for errors).
    pub file: String,
    /// Alphabet size from the header.
    pub alphabet_size: u32,
    /// The traces in file order.
    pub traces: Vec<Trace>,
}

/// Splits a line into words with their 1-based columns.
fn words(line: &str) -> Vec<(&str, u32)> {
    let mut out = Vec::new();
    let mut start = None;
    for (k, c) in line
        .char_indices()
        .chain(std::iter::once((line.len(), ' ')))
    {
        match (c.is_whitespace(), start) {
            (true, Some(s)) => {
                out.push((&line[s..k], line[..s].chars().count() as u32 + 1));
                start = None;
            }
            (false, None) => start = Some(k),
            _ => {}
        }
    }
    out
}

fn number(file: &str, ln: u32, (w, col): (&str, u32), what: &str) -> Result<u32> {
    w.parse().map_err(|_| {
        syntax(
            file,
            ln,
            col,
            format!("`{w}` is not a number, expected {what}"),
        )
    })
}

/// Parses a log text; `file` names it in errors.
pub fn parse(file: &str, text: &str) -> Result<Log> {
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let (hl, header) = lines
        .next()
        .ok_or_else(|| syntax(file, 0, 0, "empty log, expected a header `TRACES SYMBOLS`"))?;
    let hl = hl as u32 + 1;
    let hw = words(header);
    if hw.len() != 2 {
        return Err(syntax(
            file,
            hl,
            1,
            "header must be two numbers: `TRACES SYMBOLS`",
        ));
    }
    let n_traces = number(file, hl, hw[0], "the number of traces")?;
    let alphabet_size = number(file, hl, hw[1], "the number of symbols")?;
    let mut traces = Vec::new();
    let mut alphabet: HashSet<String> = HashSet::new();
    for (ln, line) in lines {
        let ln = ln as u32 + 1;
        let w = words(line);
        if w.len() < 2 {
            return Err(syntax(
                file,
                ln,
                w.first().map_or(1, |x| x.1),
                "a trace needs `LABEL LENGTH` then its symbols",
            ));
        }
        let label = number(file, ln, w[0], "the label 0 or 1")?;
        if label > 1 {
            return Err(syntax(
                file,
                ln,
                w[0].1,
                format!("label {label}, expected 0 or 1"),
            ));
        }
        let len = number(file, ln, w[1], "the trace length")?;
        let syms = &w[2..];
        if len as usize != syms.len() {
            let col = syms.get(len as usize).map_or(w[1].1, |s| s.1);
            return Err(syntax(
                file,
                ln,
                col,
                format!("length says {len} symbols, the line has {}", syms.len()),
            ));
        }
        if len % 2 == 1 {
            return Err(syntax(
                file,
                ln,
                w[1].1,
                format!("odd length {len}: a trace alternates input and output"),
            ));
        }
        for &(s, col) in syms {
            if alphabet.insert(s.to_string()) && alphabet.len() as u32 > alphabet_size {
                return Err(syntax(
                    file,
                    ln,
                    col,
                    format!(
                        "`{s}` is symbol number {} but the header says {alphabet_size} symbols",
                        alphabet.len()
                    ),
                ));
            }
        }
        traces.push(Trace {
            line: ln,
            label,
            symbols: syms
                .iter()
                .map(|&(s, col)| Symbol {
                    name: s.to_string(),
                    col,
                })
                .collect(),
        });
    }
    if traces.len() as u32 != n_traces {
        return Err(syntax(
            file,
            hl,
            hw[0].1,
            format!(
                "header says {n_traces} traces, the log has {}",
                traces.len()
            ),
        ));
    }
    Ok(Log {
        file: file.to_string(),
        alphabet_size,
        traces,
    })
}

/// Reads a log file.
pub fn read(path: &str) -> Result<Log> {
    parse(path, &read_text(path)?)
}

/// Writes traces (each `[i1, o1, i2, o2, ...]`) as an Abbadingo log, all
/// labelled 1.
pub fn write(traces: &[Vec<String>]) -> String {
    let alphabet: HashSet<&String> = traces.iter().flatten().collect();
    let mut s = format!("{} {}\n", traces.len(), alphabet.len());
    for t in traces {
        s.push_str(&format!("1 {}", t.len()));
        for sym in t {
            s.push(' ');
            s.push_str(sym);
        }
        s.push('\n');
    }
    s
}

impl Log {
    /// The input indices of every trace labelled 1, for seeding an
    /// exploration; an input the system does not have is an error.
    pub fn input_sequences<S: System>(&self, sys: &S) -> Result<Vec<Vec<usize>>> {
        let mut out = Vec::new();
        for t in self.traces.iter().filter(|t| t.label == 1) {
            let mut seq = Vec::new();
            for (i, _) in t.steps() {
                seq.push(self.input_index(sys, t, i)?);
            }
            out.push(seq);
        }
        Ok(out)
    }

    /// The input names of every trace labelled 1.
    pub fn input_names(&self) -> Vec<Vec<String>> {
        (self.traces.iter().filter(|t| t.label == 1))
            .map(|t| t.steps().map(|(i, _)| i.name.clone()).collect())
            .collect()
    }

    fn input_index<S: System>(&self, sys: &S, t: &Trace, i: &Symbol) -> Result<usize> {
        sys.input_index(&i.name).ok_or_else(|| {
            LogError::Alphabet(Diagnostic::at(
                &self.file,
                t.line,
                i.col,
                format!(
                    "`{}` is not an input of the program (inputs: {})",
                    i.name,
                    sys.inputs().join(" ")
                ),
            ))
        })
    }

    /// Checks that every output symbol is an output of the system (or
    /// `error`, an invalid input) and every input an input.
    pub fn check_alphabet<S: System>(&self, sys: &S) -> Result<()> {
        for t in &self.traces {
            for (i, o) in t.steps() {
                self.input_index(sys, t, i)?;
                if o.name != ERROR_LABEL && !sys.outputs().contains(&o.name) {
                    return Err(LogError::Alphabet(Diagnostic::at(
                        &self.file,
                        t.line,
                        o.col,
                        format!(
                            "`{}` is not an output of the program (outputs: {})",
                            o.name,
                            sys.outputs().join(" ")
                        ),
                    )));
                }
            }
        }
        Ok(())
    }
}

/// Where a replayed trace first differs from the system.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// 0-based step (input number) in the trace.
    pub step: usize,
    /// 1-based column of the logged output.
    pub col: u32,
    /// The input.
    pub input: String,
    /// The logged output.
    pub expected: String,
    /// What the system did.
    pub got: String,
}

/// The replay of one trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceReport {
    /// Line of the trace.
    pub line: u32,
    /// Number of steps (input/output pairs).
    pub steps: usize,
    /// The first mismatch, `None` when the system produced every output.
    pub mismatch: Option<Mismatch>,
}

/// Runs every trace labelled 1 through the system (a program, or a
/// `.dot`/`.aut` model explored as one). An input the system lacks is a
/// mismatch at that step; an invalid input leaves the state as it was.
pub fn replay<S: System>(sys: &S, log: &Log) -> Vec<TraceReport> {
    let mut scratch = sys.scratch();
    let mut out = Vec::new();
    for t in log.traces.iter().filter(|t| t.label == 1) {
        let mut cur = sys.initial_state();
        let mut next = cur.clone();
        let mut mismatch = None;
        for (k, (i, o)) in t.steps().enumerate() {
            let (got, advance) = match sys.input_index(&i.name) {
                None => ("no such input".to_string(), false),
                Some(input) => match sys.step(&mut scratch, &cur, input, &mut next) {
                    Ok(r) => (r.describe(sys.outputs()), r != Outcome::Invalid),
                    Err(f) => (format!("fault: {f}"), false),
                },
            };
            if got != o.name {
                mismatch = Some(Mismatch {
                    step: k,
                    col: o.col,
                    input: i.name.clone(),
                    expected: o.name.clone(),
                    got,
                });
                break;
            }
            if advance {
                std::mem::swap(&mut cur, &mut next);
            }
        }
        out.push(TraceReport {
            line: t.line,
            steps: t.symbols.len() / 2,
            mismatch,
        });
    }
    out
}

/// Random runs of the system, as logs record them: each trace takes up to
/// `max_len` steps, each on an input chosen at random among those that
/// print an output (a run stops early when none does). The same seed gives
/// the same runs.
pub fn random_runs<S: System>(
    sys: &S,
    n_traces: usize,
    max_len: usize,
    seed: u64,
) -> Vec<Vec<String>> {
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(seed);
    let mut scratch = sys.scratch();
    let n = sys.n_inputs();
    let mut traces = Vec::new();
    for _ in 0..n_traces {
        let mut cur = sys.initial_state();
        let mut next = cur.clone();
        let mut t = Vec::new();
        'steps: for _ in 0..max_len {
            let first = rng.random_range(0..n.max(1));
            for d in 0..n {
                let i = (first + d) % n;
                if let Ok(Outcome::Output(k)) = sys.step(&mut scratch, &cur, i, &mut next) {
                    t.push(sys.inputs()[i].clone());
                    t.push(sys.outputs()[k as usize].clone());
                    std::mem::swap(&mut cur, &mut next);
                    continue 'steps;
                }
            }
            break;
        }
        traces.push(t);
    }
    traces
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_log() {
        let log = parse("l.txt", "2 4\n1 4 a x b y\n1 2 a x\n").unwrap();
        assert_eq!(log.traces.len(), 2);
        assert_eq!(
            log.traces[0].symbols[2],
            Symbol {
                name: "b".into(),
                col: 9
            }
        );
        let steps: Vec<_> = log.traces[1]
            .steps()
            .map(|(i, o)| (i.name.as_str(), o.name.as_str()))
            .collect();
        assert_eq!(steps, vec![("a", "x")]);
    }

    #[test]
    fn located_errors() {
        let err = |text: &str| {
            parse("l.txt", text)
                .unwrap_err()
                .diagnostic()
                .unwrap()
                .clone()
        };
        let e = err("3 4\n1 2 a x\n");
        assert!(e.message.contains("3 traces"), "{e}");
        let e = err("1 4\n1 4 a x b\n");
        assert_eq!(e.at.line, 2);
        assert!(e.message.contains("length says 4"), "{e}");
        let e = err("1 4\n1 3 a x b\n");
        assert!(e.message.contains("odd length"), "{e}");
        let e = err("1 2\n1 4 a x b y\n");
        assert_eq!((e.at.line, e.at.col), (2, 9));
        let e = err("1 2\n7 2 a x\n");
        assert_eq!((e.at.line, e.at.col), (2, 1));
        let e = err("1 x\n");
        assert_eq!((e.at.line, e.at.col), (1, 3));
    }

    #[test]
    fn write_then_read() {
        let t = vec![vec!["a".to_string(), "x".to_string()], vec![]];
        let log = parse("w", &write(&t)).unwrap();
        assert_eq!(log.traces[1].symbols.len(), 0);
        assert_eq!(log.alphabet_size, 2);
    }
}
