//! Equivalence of two programs' input/output transition systems.
//!
//! The two machines run in lockstep as one [`System`], [`Lockstep`]: a
//! state is a state of each, both reached by the same input sequence. Each
//! input symbol (matched by name) is run on both sides and the outcomes
//! compared by name: the output symbol printed, the error label reached, an
//! invalid input, a silent step. Where they differ the lockstep system
//! reaches the error label [`DIVERGENCE`]; where they agree it goes on like
//! the first program (after an output, a silent step and an invalid input,
//! which may have changed the state in 2012 programs, see
//! `docs/rers-semantics.md`) or ends (at an error).
//!
//! So equivalence is the unreachability of [`DIVERGENCE`], checked by the
//! breadth-first search on as many threads as asked
//! ([`crate::explore::levels`], the same pairs and the same first difference
//! for any number): the first difference
//! found is one with a shortest input sequence, replayed on fresh runs of
//! both machines before it is reported. *Equivalent* is answered only when
//! every reachable pair was expanded without a fault; otherwise the answer
//! is unknown, with the number of pairs that agreed.

use std::time::Instant;

use serde::Serialize;

use crate::engine::Machine;
use crate::explore::{explore_levels, Options};
use crate::runtime::{peak_resident_bytes, Budget, StopReason};
use crate::system::{Outcome, StepResult, System};

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
        /// The input names, the last one where they differ.
        inputs: Vec<String>,
        /// The first program's last step.
        a: Observed,
        /// The second program's last step.
        b: Observed,
    },
    /// The input alphabets differ (as sets of names).
    AlphabetsDiffer {
        /// Inputs only the first program has.
        only_a: Vec<String>,
        /// Inputs only the second program has.
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

/// The error label the [`Lockstep`] system reaches where the two programs
/// differ (outside the label numbers RERS programs use).
pub const DIVERGENCE: u32 = 0x0FFF_FFFE;

/// Two programs run side by side on the same inputs: a [`System`] whose
/// states are a state of each and whose only error label, [`DIVERGENCE`],
/// is reached where their outcomes differ by name.
pub struct Lockstep<'a> {
    a: &'a Machine,
    b: &'a Machine,
    /// Per input of `a`: the input of `b` with its name.
    to_b: Vec<usize>,
    /// Per output of `a`: the output of `b` with its name, if any.
    out_to_b: Vec<Option<u16>>,
    labels: [u32; 1],
}

/// Scratch memory of both machines.
pub struct LockstepScratch {
    a: crate::engine::Scratch,
    b: crate::engine::Scratch,
}

impl<'a> Lockstep<'a> {
    /// The lockstep system, if the input alphabets are the same set of
    /// names; otherwise the names only in `a`, and only in `b`.
    pub fn new(a: &'a Machine, b: &'a Machine) -> Result<Self, (Vec<String>, Vec<String>)> {
        let only = |x: &Machine, y: &Machine| -> Vec<String> {
            (x.input_names.iter())
                .filter(|n| y.input_index(n).is_none())
                .cloned()
                .collect()
        };
        let (only_a, only_b) = (only(a, b), only(b, a));
        if !only_a.is_empty() || !only_b.is_empty() {
            return Err((only_a, only_b));
        }
        let to_b = (a.input_names.iter())
            .map(|n| b.input_index(n).expect("alphabets checked equal"))
            .collect();
        let out_to_b = (a.output_names.iter())
            .map(|n| b.output_names.iter().position(|m| m == n).map(|k| k as u16))
            .collect();
        Ok(Lockstep {
            a,
            b,
            to_b,
            out_to_b,
            labels: [DIVERGENCE],
        })
    }

    /// Whether `oa` (of the first program) and `ob` (of the second) are the
    /// same by name.
    fn same(&self, oa: Outcome, ob: Outcome) -> bool {
        match (oa, ob) {
            (Outcome::Output(x), Outcome::Output(y)) => self.out_to_b[x as usize] == Some(y),
            _ => oa == ob,
        }
    }
}

impl System for Lockstep<'_> {
    type Scratch = LockstepScratch;

    fn inputs(&self) -> &[String] {
        &self.a.input_names
    }

    fn outputs(&self) -> &[String] {
        &self.a.output_names
    }

    fn error_labels(&self) -> &[u32] {
        &self.labels
    }

    fn state_width(&self) -> usize {
        self.a.state_width() + self.b.state_width()
    }

    fn initial_state(&self) -> Vec<i32> {
        let mut s = self.a.initial_state();
        s.extend(self.b.initial_state());
        s
    }

    fn scratch(&self) -> LockstepScratch {
        LockstepScratch {
            a: self.a.scratch(),
            b: self.b.scratch(),
        }
    }

    fn step(
        &self,
        scratch: &mut LockstepScratch,
        state: &[i32],
        input: usize,
        next: &mut [i32],
    ) -> StepResult {
        let wa = self.a.state_width();
        let (cur_a, cur_b) = state.split_at(wa);
        let (next_a, next_b) = next.split_at_mut(wa);
        let oa = self.a.step(&mut scratch.a, cur_a, input, next_a)?;
        let ob = self
            .b
            .step(&mut scratch.b, cur_b, self.to_b[input], next_b)?;
        Ok(if self.same(oa, ob) {
            oa
        } else {
            Outcome::Error(DIVERGENCE)
        })
    }
}

/// Compares `a` and `b` (named `name_a`, `name_b` in the report).
pub fn compare(
    a: &Machine,
    b: &Machine,
    name_a: &str,
    name_b: &str,
    budget: &Budget,
    threads: usize,
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
    let pair = match Lockstep::new(a, b) {
        Ok(p) => p,
        Err((only_a, only_b)) => {
            report.verdict = Verdict::AlphabetsDiffer { only_a, only_b };
            report.seconds = start.elapsed().as_secs_f64();
            return Ok(report);
        }
    };
    let opts = Options {
        stop_when_all_errors_found: true,
        threads,
        ..Options::default()
    };
    let ex = explore_levels(&pair, budget, &opts);
    report.pairs = ex.graph.n_states as u64;
    report.expanded = ex.graph.n_expanded as u64;
    report.transitions = ex.transitions;
    report.depth = ex.depth;
    report.stopped = ex.stopped.filter(|&r| r != StopReason::AllErrorsFound);
    for f in ex.faults.iter().take(MAX_FAULTS_SHOWN) {
        let mut p = ex.path_to(f.state);
        p.push(f.input);
        let names: Vec<&str> = p.iter().map(|&k| a.input_names[k].as_str()).collect();
        // The side that faulted: the first, unless its run does not.
        let prog = match crate::system::replay(a, &p) {
            Err(_) => name_a,
            Ok(_) => name_b,
        };
        report
            .faults
            .push(format!("{prog}: [{}]: {}", names.join(", "), f.fault));
    }
    report.verdict = match ex.witness(DIVERGENCE) {
        Some(p) => {
            let (oa, ob) = confirm(&pair, &p)?;
            Verdict::Different {
                inputs: p.iter().map(|&k| a.input_names[k].clone()).collect(),
                a: oa,
                b: ob,
            }
        }
        None if ex.is_complete() => Verdict::Equivalent,
        None => Verdict::Unknown,
    };
    report.seconds = start.elapsed().as_secs_f64();
    report.peak_memory = peak_resident_bytes();
    Ok(report)
}

/// Replays `inputs` on fresh runs of both machines: every step but the last
/// must agree and go on, and the last must differ. Returns the last steps.
fn confirm(pair: &Lockstep, inputs: &[usize]) -> Result<(Observed, Observed), ReplayMismatch> {
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
    let ra = run(pair.a, &|i| i)?;
    let rb = run(pair.b, &|i| pair.to_b[i])?;
    let n = inputs.len();
    if ra.len() == n && rb.len() == n && ra[..n - 1] == rb[..n - 1] && ra[n - 1] != rb[n - 1] {
        Ok((ra[n - 1].clone(), rb[n - 1].clone()))
    } else {
        Err(ReplayMismatch(format!(
            "expected a difference at the last step, replay gave {ra:?} / {rb:?}"
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

    /// The comparison on 0 (the sequential search) to 3 threads: the same
    /// verdict, and the same pairs when complete, on any number.
    fn run(a: &Machine, b: &Machine, budget: &Budget) -> CompareReport {
        let mut reports =
            (0..=3).map(|threads| compare(a, b, "a", "b", budget, threads).expect("replays"));
        let first = reports.next().expect("a report");
        for r in reports {
            assert_eq!((&r.verdict, r.stopped), (&first.verdict, first.stopped));
            if r.stopped.is_none() {
                assert_eq!((r.pairs, r.transitions), (first.pairs, first.transitions));
            }
        }
        first
    }

    #[test]
    fn same_behaviour_different_encoding_is_equivalent() {
        // The same system with the input alphabet in another order.
        let a = counter(4, 2, -1, "\"A\",\"B\"");
        let b = counter(4, 2, -1, "\"B\",\"A\"");
        let r = run(&a, &b, &Budget::unlimited());
        assert_eq!(r.verdict, Verdict::Equivalent);
        assert_eq!(r.pairs, 4);
    }

    #[test]
    fn finds_a_shortest_difference() {
        let a = counter(4, 2, -1, "\"A\",\"B\"");
        let b = counter(4, 3, -1, "\"A\",\"B\"");
        let r = run(&a, &b, &Budget::unlimited());
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
        let r = run(&a, &b, &Budget::unlimited());
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
        let r = run(&a, &b, &Budget::unlimited());
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
        let r = run(&a, &b, &Budget::unlimited().with_max_states(10));
        assert_eq!(r.verdict, Verdict::Unknown);
        assert_eq!(r.stopped, Some(StopReason::MaxStates));
        let r = run(&a, &b, &Budget::unlimited());
        assert_eq!(r.verdict, Verdict::Equivalent);
        assert_eq!(r.pairs, 1000);
    }
}
