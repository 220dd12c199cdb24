//! Equivalence of two programs' input/output transition systems.
//!
//! The two machines are explored in lockstep: a *pair* is a state of each,
//! both reached by the same input sequence. From every pair each input
//! symbol (matched by name) is run on both sides and the outcomes compared
//! by name: the output symbol printed, the error label reached, an invalid
//! input, a silent step. A run goes on after an output, a silent step and an
//! invalid input (which may have changed the state in 2012 programs, see
//! `docs/rers-semantics.md`); it ends at an error.
//!
//! The search is breadth-first, so the first difference found is one with a
//! shortest input sequence; that sequence is replayed on fresh runs of both
//! machines before it is reported. *Equivalent* is answered only when every
//! reachable pair was expanded without an engine fault; otherwise the answer
//! is unknown, with the number of pairs that agreed.

use std::time::Instant;

use serde::Serialize;

use crate::engine::{Fault, Machine};
use crate::explore::bfs::{peak_resident_bytes, resident_bytes};
use crate::explore::graph::{Outcome, StateId, NO_STATE};
use crate::explore::store::StateStore;
use crate::explore::{Limits, StopReason};

/// What one step did, in names that mean the same in both programs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum Observed {
    /// Printed this output symbol.
    Output(String),
    /// No output (2012 `return -1`).
    Silent,
    /// Reached this error label; the run ends.
    Error(u32),
    /// Invalid input.
    Invalid,
    /// An `__VERIFIER_assume` failed: no run goes this way.
    Blocked,
}

impl Observed {
    pub(crate) fn of(m: &Machine, o: Outcome) -> Observed {
        match o {
            Outcome::Output(k) => Observed::Output(
                m.output_names
                    .get(k as usize)
                    .cloned()
                    .unwrap_or_else(|| format!("#{k}")),
            ),
            Outcome::Silent => Observed::Silent,
            Outcome::Error(n) => Observed::Error(n),
            Outcome::Invalid => Observed::Invalid,
            Outcome::Blocked => Observed::Blocked,
        }
    }

    /// Whether the run goes on after this step.
    pub(crate) fn goes_on(&self) -> bool {
        matches!(
            self,
            Observed::Output(_) | Observed::Silent | Observed::Invalid
        )
    }
}

impl std::fmt::Display for Observed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Observed::Output(s) => write!(f, "output {s}"),
            Observed::Silent => write!(f, "no output"),
            Observed::Error(n) => write!(f, "error {n}"),
            Observed::Invalid => write!(f, "invalid input"),
            Observed::Blocked => write!(f, "blocked (assume failed)"),
        }
    }
}

/// The answer of a comparison.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum Verdict {
    /// Every input sequence gives the same outcomes in both programs
    /// (proved: the lockstep exploration was complete).
    Equivalent,
    /// After `inputs`, the last step differs: `a` in the first program,
    /// `b` in the second. The sequence is a shortest one.
    Different {
        inputs: Vec<String>,
        a: Observed,
        b: Observed,
    },
    /// The input alphabets differ (as sets of names).
    AlphabetsDiffer {
        only_a: Vec<String>,
        only_b: Vec<String>,
    },
    /// No difference in the pairs explored, but not every pair was explored
    /// (a limit, or an engine fault): equivalence is not claimed.
    Unknown,
}

/// Everything `rigor compare` reports.
#[derive(Clone, Debug, Serialize)]
pub struct CompareReport {
    /// The first program.
    pub program_a: String,
    /// The second program.
    pub program_b: String,
    /// The answer.
    #[serde(flatten)]
    pub verdict: Verdict,
    /// State pairs discovered.
    pub pairs: u64,
    /// Pairs expanded (all their inputs compared).
    pub expanded: u64,
    /// Input steps compared.
    pub transitions: u64,
    /// BFS depth reached.
    pub depth: u32,
    /// Why the exploration stopped early, if it did.
    pub stopped: Option<StopReason>,
    /// Engine faults (undefined behaviour), first few, as `side: input
    /// sequence: fault`.
    pub faults: Vec<String>,
    /// Differences in the declared alphabets or labels that do not decide
    /// the answer (an output symbol never printed, a label never reached).
    pub notes: Vec<String>,
    /// Time in seconds.
    pub seconds: f64,
    /// Peak resident memory in bytes.
    pub peak_memory: Option<u64>,
    /// How the verdict was reached: `exploration` (lockstep search) or
    /// `structure` (the code has the same shape, see
    /// [`crate::check::structural`]; the lockstep search then only ran as a
    /// bounded sanity check).
    pub method: &'static str,
}

/// A difference whose replay did not reproduce it: a bug in rigor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplayMismatch(pub String);

impl std::fmt::Display for ReplayMismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "internal error: a difference did not replay: {}", self.0)
    }
}

impl std::error::Error for ReplayMismatch {}

/// How many faults are listed in a report.
const MAX_FAULTS_SHOWN: usize = 8;

/// Compares `a` and `b` (named `name_a`, `name_b` in the report).
pub fn compare(
    a: &Machine,
    b: &Machine,
    name_a: &str,
    name_b: &str,
    limits: &Limits,
) -> Result<CompareReport, ReplayMismatch> {
    let start = Instant::now();
    let mut report = CompareReport {
        program_a: name_a.to_string(),
        program_b: name_b.to_string(),
        verdict: Verdict::Unknown,
        pairs: 0,
        expanded: 0,
        transitions: 0,
        depth: 0,
        stopped: None,
        faults: Vec::new(),
        notes: notes(a, b),
        seconds: 0.0,
        peak_memory: None,
        method: "exploration",
    };
    // Inputs matched by name, in the first program's order.
    let only_a: Vec<String> = a
        .input_names
        .iter()
        .filter(|n| b.input_index(n).is_none())
        .cloned()
        .collect();
    let only_b: Vec<String> = b
        .input_names
        .iter()
        .filter(|n| a.input_index(n).is_none())
        .cloned()
        .collect();
    if !only_a.is_empty() || !only_b.is_empty() {
        report.verdict = Verdict::AlphabetsDiffer { only_a, only_b };
        report.seconds = start.elapsed().as_secs_f64();
        return Ok(report);
    }
    let to_b: Vec<usize> = a
        .input_names
        .iter()
        .map(|n| b.input_index(n).expect("alphabets checked equal"))
        .collect();

    let (wa, wb) = (a.state_width(), b.state_width());
    let mut store = StateStore::new(wa + wb);
    let mut parent: Vec<StateId> = vec![NO_STATE];
    let mut parent_input: Vec<u16> = vec![0];
    let mut init = a.initial_state();
    init.extend(b.initial_state());
    store.insert(&init);

    let (mut sa, mut sb) = (a.scratch(), b.scratch());
    let mut cur = vec![0i32; wa + wb];
    let mut next = vec![0i32; wa + wb];
    let mut faults: Vec<(StateId, usize, char, Fault)> = Vec::new();
    let mut difference: Option<(StateId, usize, Observed, Observed)> = None;
    let mut expanded: u32 = 0;
    let mut level_end = store.len();
    'bfs: while expanded < store.len() {
        if expanded == level_end {
            report.depth += 1;
            level_end = store.len();
        }
        let at_max = limits.max_states.is_some_and(|m| store.len() as u64 >= m);
        if at_max || expanded.is_multiple_of(4096) {
            if let Some(r) = over_limits(limits, &store, start) {
                report.stopped = Some(r);
                break;
            }
        }
        let s = expanded;
        store.get(s, &mut cur);
        let (cur_a, cur_b) = cur.split_at(wa);
        for (i, &ib) in to_b.iter().enumerate() {
            report.transitions += 1;
            let (next_a, next_b) = next.split_at_mut(wa);
            let ra = a.step(&mut sa, cur_a, i, next_a);
            let rb = b.step(&mut sb, cur_b, ib, next_b);
            let (oa, ob) = match (ra, rb) {
                (Ok(oa), Ok(ob)) => (Observed::of(a, oa), Observed::of(b, ob)),
                (ra, rb) => {
                    if let Err(f) = ra {
                        faults.push((s, i, 'a', f));
                    }
                    if let Err(f) = rb {
                        faults.push((s, i, 'b', f));
                    }
                    continue;
                }
            };
            if oa != ob {
                difference = Some((s, i, oa, ob));
                break 'bfs;
            }
            if oa.goes_on() {
                let (_, new) = store.insert(&next);
                if new {
                    parent.push(s);
                    parent_input.push(i as u16);
                }
            }
        }
        expanded += 1;
    }
    report.pairs = store.len() as u64;
    report.expanded = expanded as u64;
    let path_to = |mut s: StateId| {
        let mut path = Vec::new();
        while parent[s as usize] != NO_STATE {
            path.push(parent_input[s as usize] as usize);
            s = parent[s as usize];
        }
        path.reverse();
        path
    };
    for &(s, i, side, f) in faults.iter().take(MAX_FAULTS_SHOWN) {
        let mut p = path_to(s);
        p.push(i);
        let names: Vec<&str> = p.iter().map(|&k| a.input_names[k].as_str()).collect();
        let prog = if side == 'a' { name_a } else { name_b };
        report
            .faults
            .push(format!("{prog}: [{}]: {f}", names.join(", ")));
    }
    report.verdict = match difference {
        Some((s, i, oa, ob)) => {
            let mut p = path_to(s);
            p.push(i);
            confirm(a, b, &to_b, &p, &oa, &ob)?;
            Verdict::Different {
                inputs: p.iter().map(|&k| a.input_names[k].clone()).collect(),
                a: oa,
                b: ob,
            }
        }
        None if report.stopped.is_none() && faults.is_empty() => Verdict::Equivalent,
        None => Verdict::Unknown,
    };
    report.seconds = start.elapsed().as_secs_f64();
    report.peak_memory = peak_resident_bytes();
    Ok(report)
}

/// Replays `inputs` on fresh runs of both machines: every step but the last
/// must agree and go on, and the last must give `oa` and `ob`.
fn confirm(
    a: &Machine,
    b: &Machine,
    to_b: &[usize],
    inputs: &[usize],
    oa: &Observed,
    ob: &Observed,
) -> Result<(), ReplayMismatch> {
    let run =
        |m: &Machine, map: &dyn Fn(usize) -> usize| -> Result<Vec<Observed>, ReplayMismatch> {
            let mut sc = m.scratch();
            let mut cur = m.initial_state();
            let mut next = cur.clone();
            let mut seen = Vec::new();
            for &i in inputs {
                let o = m
                    .step(&mut sc, &cur, map(i), &mut next)
                    .map_err(|f| ReplayMismatch(format!("fault on replay: {f}")))?;
                let o = Observed::of(m, o);
                let goes_on = o.goes_on();
                seen.push(o);
                if !goes_on {
                    break;
                }
                std::mem::swap(&mut cur, &mut next);
            }
            Ok(seen)
        };
    let ra = run(a, &|i| i)?;
    let rb = run(b, &|i| to_b[i])?;
    let n = inputs.len();
    let ok = ra.len() == n
        && rb.len() == n
        && ra[..n - 1] == rb[..n - 1]
        && &ra[n - 1] == oa
        && &rb[n - 1] == ob;
    if ok {
        Ok(())
    } else {
        Err(ReplayMismatch(format!(
            "expected last steps {oa} / {ob}, replay gave {ra:?} / {rb:?}"
        )))
    }
}

/// Declared differences that do not by themselves decide equivalence.
fn notes(a: &Machine, b: &Machine) -> Vec<String> {
    let mut out = Vec::new();
    let diff = |x: &[String], y: &[String]| -> Vec<String> {
        x.iter().filter(|n| !y.contains(n)).cloned().collect()
    };
    let oa = diff(&a.output_names, &b.output_names);
    let ob = diff(&b.output_names, &a.output_names);
    if !oa.is_empty() || !ob.is_empty() {
        out.push(format!(
            "output alphabets differ: only in the first {oa:?}, only in the second {ob:?}"
        ));
    }
    if a.error_labels != b.error_labels {
        let la: Vec<u32> = a
            .error_labels
            .iter()
            .copied()
            .filter(|l| !b.error_labels.contains(l))
            .collect();
        let lb: Vec<u32> = b
            .error_labels
            .iter()
            .copied()
            .filter(|l| !a.error_labels.contains(l))
            .collect();
        out.push(format!(
            "error labels differ: only in the first {la:?}, only in the second {lb:?}"
        ));
    }
    out
}

fn over_limits(limits: &Limits, store: &StateStore, start: Instant) -> Option<StopReason> {
    if let Some(max) = limits.max_states {
        if store.len() as u64 >= max {
            return Some(StopReason::MaxStates);
        }
    }
    if let Some(t) = limits.timeout {
        if start.elapsed() >= t {
            return Some(StopReason::Timeout);
        }
    }
    if let Some(mem) = limits.memory_limit {
        if resident_bytes().is_some_and(|r| r >= mem) {
            return Some(StopReason::MemoryLimit);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::java::parse_java;

    /// A counter mod `n` on input A, printing X; input B prints Y when the
    /// counter is `k`, else is invalid; error 3 when the counter is `e`.
    fn counter(n: i32, k: i32, e: i32, inputs: &str) -> Machine {
        let src = format!(
            r#"public class T {{
    private String[] inputs = {{{inputs}}};
    public int c = 0;
    public boolean cf = true;
    private void errorCheck() {{ if (c == {e}) {{ Errors.__VERIFIER_error(3); }} }}
    public void calculateOutput(String input) {{
        cf = true;
        if (cf && input.equals("A")) {{ cf = false; c = (c + 1) % {n}; System.out.println("X"); }}
        if (cf && input.equals("B") && c == {k}) {{ cf = false; System.out.println("Y"); }}
        errorCheck();
        if (cf) throw new IllegalArgumentException("no");
    }}
}}"#
        );
        Machine::compile(&parse_java("T.java", &src).expect("lowers")).expect("compiles")
    }

    fn run(a: &Machine, b: &Machine, limits: &Limits) -> CompareReport {
        compare(a, b, "a", "b", limits).expect("replays")
    }

    #[test]
    fn same_behaviour_different_encoding_is_equivalent() {
        // The same system with the input alphabet in another order.
        let a = counter(4, 2, -1, "\"A\",\"B\"");
        let b = counter(4, 2, -1, "\"B\",\"A\"");
        let r = run(&a, &b, &Limits::default());
        assert_eq!(r.verdict, Verdict::Equivalent);
        assert_eq!(r.pairs, 4);
    }

    #[test]
    fn finds_a_shortest_difference() {
        let a = counter(4, 2, -1, "\"A\",\"B\"");
        let b = counter(4, 3, -1, "\"A\",\"B\"");
        let r = run(&a, &b, &Limits::default());
        assert_eq!(
            r.verdict,
            Verdict::Different {
                inputs: vec!["A".into(), "A".into(), "B".into()],
                a: Observed::Output("Y".into()),
                b: Observed::Invalid,
            }
        );
    }

    #[test]
    fn error_labels_are_compared() {
        let a = counter(4, 2, 1, "\"A\",\"B\"");
        let b = counter(4, 2, -1, "\"A\",\"B\"");
        let r = run(&a, &b, &Limits::default());
        match r.verdict {
            Verdict::Different { inputs, a, b } => {
                assert_eq!(inputs, ["A"]);
                assert_eq!(a, Observed::Error(3));
                assert_eq!(b, Observed::Output("X".into()));
            }
            v => panic!("{v:?}"),
        }
    }

    #[test]
    fn alphabets_must_agree() {
        let a = counter(4, 2, -1, "\"A\",\"B\"");
        let b = counter(4, 2, -1, "\"A\",\"B\",\"C\"");
        let r = run(&a, &b, &Limits::default());
        assert_eq!(
            r.verdict,
            Verdict::AlphabetsDiffer {
                only_a: vec![],
                only_b: vec!["C".into()]
            }
        );
    }

    #[test]
    fn limits_give_unknown_not_equivalent() {
        let a = counter(1000, 2000, -1, "\"A\",\"B\"");
        let b = counter(1000, 2000, -1, "\"A\",\"B\"");
        let limits = Limits {
            max_states: Some(10),
            ..Limits::default()
        };
        let r = run(&a, &b, &limits);
        assert_eq!(r.verdict, Verdict::Unknown);
        assert_eq!(r.stopped, Some(StopReason::MaxStates));
        let r = run(&a, &b, &Limits::default());
        assert_eq!(r.verdict, Verdict::Equivalent);
        assert_eq!(r.pairs, 1000);
    }
}
