//! Abbadingo execution logs (RERS industrial tracks): a header line
//! `TRACES SYMBOLS` (number of traces, size of the alphabet), then one trace
//! per line, `LABEL LENGTH i1 o1 i2 o2 ...` with LENGTH = 2n symbols
//! alternating input and output. Reading, replaying through a program, and
//! generating logs from a program's own runs.

use std::collections::HashSet;

use crate::engine::Machine;
use crate::error::{read_text, Error, Result};
use crate::explore::graph::{Outcome, StateGraph};
use crate::lts::ERROR_LABEL;

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
        Error::at(
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
        .ok_or_else(|| Error::file(file, "empty log, expected a header `TRACES SYMBOLS`"))?;
    let hl = hl as u32 + 1;
    let hw = words(header);
    if hw.len() != 2 {
        return Err(Error::at(
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
            return Err(Error::at(
                file,
                ln,
                w.first().map_or(1, |x| x.1),
                "a trace needs `LABEL LENGTH` then its symbols",
            ));
        }
        let label = number(file, ln, w[0], "the label 0 or 1")?;
        if label > 1 {
            return Err(Error::at(
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
            return Err(Error::at(
                file,
                ln,
                col,
                format!("length says {len} symbols, the line has {}", syms.len()),
            ));
        }
        if len % 2 == 1 {
            return Err(Error::at(
                file,
                ln,
                w[1].1,
                format!("odd length {len}: a trace alternates input and output"),
            ));
        }
        for &(s, col) in syms {
            if alphabet.insert(s.to_string()) && alphabet.len() as u32 > alphabet_size {
                return Err(Error::at(
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
        return Err(Error::at(
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
    /// exploration; an input the program does not have is an error.
    pub fn input_sequences(&self, m: &Machine) -> Result<Vec<Vec<usize>>> {
        let mut out = Vec::new();
        for t in self.traces.iter().filter(|t| t.label == 1) {
            let mut seq = Vec::new();
            for (i, _) in t.steps() {
                seq.push(self.input_index(m, t, i)?);
            }
            out.push(seq);
        }
        Ok(out)
    }

    fn input_index(&self, m: &Machine, t: &Trace, i: &Symbol) -> Result<usize> {
        m.input_index(&i.name).ok_or_else(|| {
            Error::at(
                &self.file,
                t.line,
                i.col,
                format!(
                    "`{}` is not an input of the program (inputs: {})",
                    i.name,
                    m.input_names.join(" ")
                ),
            )
        })
    }

    /// Checks that every output symbol is an output of the program (or
    /// `error`, an invalid input) and every input an input.
    pub fn check_alphabet(&self, m: &Machine) -> Result<()> {
        for t in &self.traces {
            for (i, o) in t.steps() {
                self.input_index(m, t, i)?;
                if o.name != ERROR_LABEL && !m.output_names.contains(&o.name) {
                    return Err(Error::at(
                        &self.file,
                        t.line,
                        o.col,
                        format!(
                            "`{}` is not an output of the program (outputs: {})",
                            o.name,
                            m.output_names.join(" ")
                        ),
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Where a replayed trace first differs from the program.
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
    /// What the program did.
    pub got: String,
}

/// The replay of one trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceReport {
    /// Line of the trace.
    pub line: u32,
    /// Number of steps (input/output pairs).
    pub steps: usize,
    /// The first mismatch, `None` when the program produced every output.
    pub mismatch: Option<Mismatch>,
}

/// What a step did, in the words of the log (`error` for an invalid input).
fn describe(m: &Machine, r: &std::result::Result<Outcome, crate::engine::Fault>) -> String {
    match r {
        Ok(Outcome::Output(k)) => m.output_names[*k as usize].clone(),
        Ok(Outcome::Invalid) => ERROR_LABEL.to_string(),
        Ok(Outcome::Error(n)) => format!("error_{n}"),
        Ok(Outcome::Silent) => "no output".to_string(),
        Ok(Outcome::Blocked) => "blocked (assume failed)".to_string(),
        Err(f) => format!("engine fault: {f}"),
    }
}

/// Runs every trace labelled 1 through the program (alphabets are checked
/// first: an unknown symbol is an error).
pub fn replay(m: &Machine, log: &Log) -> Result<Vec<TraceReport>> {
    log.check_alphabet(m)?;
    let mut scratch = m.scratch();
    let mut out = Vec::new();
    for t in log.traces.iter().filter(|t| t.label == 1) {
        let mut cur = m.initial_state();
        let mut next = cur.clone();
        let mut mismatch = None;
        for (k, (i, o)) in t.steps().enumerate() {
            let input = m.input_index(&i.name).expect("alphabet checked");
            let r = m.step(&mut scratch, &cur, input, &mut next);
            let got = describe(m, &r);
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
            if r == Ok(Outcome::Invalid) {
                // The program reverts to the state before the input.
                continue;
            }
            std::mem::swap(&mut cur, &mut next);
        }
        out.push(TraceReport {
            line: t.line,
            steps: t.symbols.len() / 2,
            mismatch,
        });
    }
    Ok(out)
}

/// Runs every trace labelled 1 through an explored input/output graph (a
/// `.dot` or `.aut` model, see [`crate::lts::load_model_graph`]), as
/// [`replay`] does through a program. An input the model lacks is reported
/// as a mismatch at that step (`the model has no such input`).
pub fn replay_graph(g: &StateGraph, log: &Log) -> Vec<TraceReport> {
    let mut out = Vec::new();
    for t in log.traces.iter().filter(|t| t.label == 1) {
        let mut s = 0u32;
        let mut mismatch = None;
        for (k, (i, o)) in t.steps().enumerate() {
            let got = match g.inputs.iter().position(|n| *n == i.name) {
                None => "no such input in the model".to_string(),
                Some(_) if !g.is_expanded(s) => "an unexplored state".to_string(),
                Some(input) => {
                    let e = g.edge(s, input);
                    let r = e.outcome();
                    let got = match r {
                        Outcome::Output(k) => g.outputs[k as usize].clone(),
                        Outcome::Invalid => ERROR_LABEL.to_string(),
                        Outcome::Error(n) => format!("error_{n}"),
                        Outcome::Silent => "no output".to_string(),
                        Outcome::Blocked => "no transition".to_string(),
                    };
                    if got == o.name && r != Outcome::Invalid {
                        s = e.target;
                    }
                    got
                }
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
        }
        out.push(TraceReport {
            line: t.line,
            steps: t.symbols.len() / 2,
            mismatch,
        });
    }
    out
}

/// A small deterministic random generator (xorshift64*).
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// A number below `n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n
    }
}

/// Random runs of the program, as logs record them: each trace takes up to
/// `max_len` steps, each on an input chosen at random among those that
/// print an output (a run stops early when none does).
pub fn random_runs(m: &Machine, n_traces: usize, max_len: usize, seed: u64) -> Vec<Vec<String>> {
    let mut rng = Rng::new(seed);
    let mut scratch = m.scratch();
    let n = m.n_inputs();
    let mut traces = Vec::new();
    for _ in 0..n_traces {
        let mut cur = m.initial_state();
        let mut next = cur.clone();
        let mut t = Vec::new();
        'steps: for _ in 0..max_len {
            let first = rng.below(n.max(1));
            for d in 0..n {
                let i = (first + d) % n;
                if let Ok(Outcome::Output(k)) = m.step(&mut scratch, &cur, i, &mut next) {
                    t.push(m.input_names[i].clone());
                    t.push(m.output_names[k as usize].clone());
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

/// Reachability with the log's traces explored first (`rigor reach
/// --seed-log`): the states on the traces get the first ids, so a limited
/// exploration starts outward from them.
pub fn reach_seeded(
    m: &Machine,
    program: &str,
    log: &str,
    limits: &crate::explore::Limits,
    progress: bool,
) -> Result<crate::check::reach::ReachReport> {
    let seeds = read(log)?.input_sequences(m)?;
    let opts = crate::explore::Options {
        keep_graph: false,
        stop_when_all_errors_found: true,
        progress,
        seeds,
        wanted_errors: None,
    };
    let ex = crate::explore::explore(m, limits, &opts);
    Ok(crate::check::reach::report(m, program, &ex))
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
        let e = parse("l.txt", "3 4\n1 2 a x\n").unwrap_err();
        assert!(e.message.contains("3 traces"), "{e}");
        let e = parse("l.txt", "1 4\n1 4 a x b\n").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.message.contains("length says 4"), "{e}");
        let e = parse("l.txt", "1 4\n1 3 a x b\n").unwrap_err();
        assert!(e.message.contains("odd length"), "{e}");
        let e = parse("l.txt", "1 2\n1 4 a x b y\n").unwrap_err();
        assert_eq!((e.line, e.col), (2, 9));
        let e = parse("l.txt", "1 2\n7 2 a x\n").unwrap_err();
        assert_eq!((e.line, e.col), (2, 1));
        let e = parse("l.txt", "1 x\n").unwrap_err();
        assert_eq!((e.line, e.col), (1, 3));
    }

    #[test]
    fn write_then_read() {
        let t = vec![vec!["a".to_string(), "x".to_string()], vec![]];
        let log = parse("w", &write(&t)).unwrap();
        assert_eq!(log.traces[1].symbols.len(), 0);
        assert_eq!(log.alphabet_size, 2);
    }
}
