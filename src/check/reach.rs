//! Reachability of error labels.
//!
//! A label is *reachable* only with a witness (the shortest input sequence,
//! from the breadth-first parent links) that [`replay`] confirms on a fresh
//! run of the engine; *unreachable* only when the exploration was complete
//! (every state expanded, no fault), or when the interval abstraction
//! ([`crate::absint`]), which covers every run, reaches no edge to the
//! label, or when a search that skipped only states the abstraction
//! proves cannot reach it ran out of states; otherwise unknown. Before the
//! search, each label the abstraction reaches gets its abstract path as a
//! candidate (a shortest witness when it replays), else, when that path
//! passes counter guards, a search that pumps those counters
//! ([`counter_witness`]); the breadth-first search looks for the labels
//! left, and a search guided by the abstract distance for those it did not
//! find. Pumped and guided witnesses are not always shortest; every
//! witness is replayed.

use std::time::Duration;

use serde::Serialize;

use crate::absint::{counter_witness, AbsGraph, AbstractGuide};
use crate::engine::{Fault, Machine};
use crate::explore::graph::Outcome;
use crate::explore::{
    explore_pruned, guided_search, Exploration, Guide, Limits, Options, StopReason,
};
use crate::ir::Program;

/// The answer for one error label.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LabelVerdict {
    /// The error label number.
    pub property: u32,
    /// `Some(true)` reachable, `Some(false)` unreachable, `None` unknown.
    pub verdict: Option<bool>,
    /// For a reachable label: the input names of the witness.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub witness: Option<Vec<String>>,
}

impl LabelVerdict {
    /// Makes the label reachable with witness `path` if `path` replays on
    /// `m` to this label; otherwise leaves the verdict as it was and returns
    /// the replay's outcome.
    fn accept_witness(
        &mut self,
        m: &Machine,
        path: &[usize],
    ) -> Result<(), Result<Outcome, ReplayError>> {
        match replay(m, path) {
            Ok(Outcome::Error(n)) if n == self.property => {
                self.verdict = Some(true);
                self.witness = Some(path.iter().map(|&k| m.input_names[k].clone()).collect());
                Ok(())
            }
            other => Err(other),
        }
    }
}

/// Everything `rigor reach` reports.
#[derive(Clone, Debug, Serialize)]
pub struct ReachReport {
    /// The program file.
    pub program: String,
    /// Problem number (from the file name).
    pub problem: String,
    /// Always `reach`.
    pub track: &'static str,
    /// One verdict per error label of the program.
    pub verdicts: Vec<LabelVerdict>,
    /// States discovered.
    pub states: u64,
    /// Transitions executed.
    pub transitions: u64,
    /// BFS depth reached.
    pub depth: u32,
    /// Whether the whole state space was explored.
    pub complete: bool,
    /// Why the exploration stopped early, if it did.
    pub stopped: Option<StopReason>,
    /// Engine faults (undefined behaviour), first few.
    pub faults: Vec<String>,
    /// Exploration time in seconds.
    pub seconds: f64,
    /// Peak resident memory in bytes.
    pub peak_memory: Option<u64>,
    /// Bytes per stored state.
    pub state_bytes: usize,
    /// Ints per state after the layout analysis.
    pub state_width: usize,
    /// Abstract states of the interval abstraction, if it was used.
    pub abstract_states: Option<u64>,
    /// States not expanded because the abstraction reaches no label still
    /// wanted from them.
    pub pruned: u64,
    /// States stored by the guided search, if it ran.
    pub guided_states: u64,
    /// Why the abstraction was not used, if it was tried.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub abstraction_note: Option<String>,
}

impl ReachReport {
    /// Number of labels with each verdict: (reachable, unreachable, unknown).
    pub fn counts(&self) -> (usize, usize, usize) {
        let r = self
            .verdicts
            .iter()
            .filter(|v| v.verdict == Some(true))
            .count();
        let u = self
            .verdicts
            .iter()
            .filter(|v| v.verdict == Some(false))
            .count();
        (r, u, self.verdicts.len() - r - u)
    }
}

/// Why a replayed witness was rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplayError {
    /// The run stopped (error, blocked, fault) before the last input.
    StoppedEarly { at: usize, outcome: Option<Outcome> },
    /// An input index is out of range.
    BadInput(usize),
    /// The engine faulted.
    Fault(Fault),
}

/// Runs `inputs` from the initial state and returns the outcome of the last
/// step. Intermediate steps must let the run go on (output, silent, or an
/// invalid input, which keeps the state it left: the 2012 reading).
pub fn replay(m: &Machine, inputs: &[usize]) -> Result<Outcome, ReplayError> {
    let mut scratch = m.scratch();
    let mut cur = m.initial_state();
    let mut next = cur.clone();
    let mut last = Outcome::Silent;
    for (k, &i) in inputs.iter().enumerate() {
        if i >= m.n_inputs() {
            return Err(ReplayError::BadInput(i));
        }
        last = m
            .step(&mut scratch, &cur, i, &mut next)
            .map_err(ReplayError::Fault)?;
        let goes_on = matches!(
            last,
            Outcome::Output(_) | Outcome::Silent | Outcome::Invalid
        );
        if !goes_on && k + 1 < inputs.len() {
            return Err(ReplayError::StoppedEarly {
                at: k,
                outcome: Some(last),
            });
        }
        std::mem::swap(&mut cur, &mut next);
    }
    Ok(last)
}

/// Share of the time the breadth-first search gets when an abstraction
/// can guide a second search.
pub const BFS_SHARE: f64 = 0.5;

/// Share of the time the searches that pump counters get, all labels
/// together, before the breadth-first search.
pub const PUMP_SHARE: f64 = 0.25;

/// Weight of the abstract distance against the depth in the guided
/// search: large, so the search is greedy (nearest first, shallowest
/// among equals), which finds deep labels that a balanced one does not.
pub const GUIDE_WEIGHT: u32 = 1000;

/// What the guided searches settled.
#[derive(Default)]
struct Settled {
    /// Per label: `Some(path)` found, `None` proved unreachable.
    verdicts: Vec<(u32, Option<Vec<usize>>)>,
    /// States stored, all searches together.
    states: u64,
}

/// One greedy search per label, in rounds: each label left gets a slice of
/// the time left, and the slices double each round, until every label is
/// settled or the time is out (without a timeout: one unbounded search
/// per label).
fn search_rounds(
    m: &Machine,
    limits: &Limits,
    start: std::time::Instant,
    labels: &[u32],
    guide: &mut AbstractGuide,
) -> Settled {
    let mut out = Settled::default();
    // One search; whether it settled the label.
    let mut search = |l: u32, limits: &Limits, out: &mut Settled| {
        let gs = guided_search(m, limits, &[l], guide, GUIDE_WEIGHT);
        out.states += gs.states;
        let exhausted = gs.exhausted();
        if let Some((_, p)) = gs.found.into_iter().next() {
            out.verdicts.push((l, Some(p)));
        } else if exhausted {
            out.verdicts.push((l, None));
        } else {
            return Err(gs.stopped);
        }
        Ok(())
    };
    let Some(total) = limits.timeout else {
        for &l in labels {
            let _ = search(l, limits, &mut out);
        }
        return out;
    };
    let mut left: Vec<u32> = labels.to_vec();
    let rest = || total.saturating_sub(start.elapsed());
    let mut slice = (rest() / (4 * labels.len().max(1) as u32)).max(Duration::from_millis(500));
    while !left.is_empty() && !rest().is_zero() {
        for l in std::mem::take(&mut left) {
            let slice_limits = Limits {
                timeout: Some(slice.min(rest())),
                ..limits.clone()
            };
            if slice_limits.timeout.is_some_and(|t| t.is_zero()) {
                left.push(l);
                continue;
            }
            match search(l, &slice_limits, &mut out) {
                Ok(()) => {}
                // More time does not lift these limits.
                Err(Some(StopReason::MemoryLimit | StopReason::MaxStates)) => return out,
                Err(_) => left.push(l),
            }
        }
        slice = slice.saturating_mul(2);
    }
    out
}

/// Explores `m` and answers every error label.
pub fn check(m: &Machine, program: &str, limits: &Limits, progress: bool) -> ReachReport {
    check_with(m, program, limits, progress, None)
}

/// [`check`], with the program's interval abstraction if there is one
/// (and the program it abstracts): the exploration then looks only for the labels the abstraction
/// reaches, and the others are unreachable.
pub fn check_with(
    m: &Machine,
    program: &str,
    limits: &Limits,
    progress: bool,
    abstraction: Option<(&Program, &AbsGraph)>,
) -> ReachReport {
    let start = std::time::Instant::now();
    let wanted = abstraction.map(|(_, g)| {
        let labels = g.error_labels();
        m.error_labels
            .iter()
            .copied()
            .filter(|l| labels.contains(l))
            .collect::<Vec<u32>>()
    });
    // Runs found before the search: the abstract path where it replays
    // (a shortest witness: no run is shorter than the abstract distance),
    // else, for a label behind counter guards, a run that pumps them.
    let mut early: Vec<(u32, Vec<usize>)> = Vec::new();
    if let (Some((p, g)), Some(wanted)) = (abstraction, &wanted) {
        let deadline = limits.timeout.map(|t| start + t.mul_f64(PUMP_SHARE));
        for &l in wanted {
            let reaches = |path: &[usize]| replay(m, path) == Ok(Outcome::Error(l));
            match g.path_to_error(l) {
                Some(path) if reaches(&path) => early.push((l, path)),
                Some(_) => {
                    if let Some(path) = counter_witness(p, m, g, l, deadline) {
                        if reaches(&path) {
                            early.push((l, path));
                        }
                    }
                }
                None => {}
            }
        }
    }
    let search_wanted = wanted.as_ref().map(|w| {
        w.iter()
            .copied()
            .filter(|l| !early.iter().any(|e| e.0 == *l))
            .collect::<Vec<u32>>()
    });
    let opts = Options {
        keep_graph: false,
        stop_when_all_errors_found: true,
        progress,
        seeds: Vec::new(),
        wanted_errors: search_wanted.clone(),
    };
    // With nothing wanted, the exploration stops after the first state.
    // States from which the abstraction reaches no label still wanted are
    // not expanded; an exploration that still ends proves those labels
    // unreachable. With an abstraction, the breadth-first search gets
    // [`BFS_SHARE`] of the time and the guided search the rest.
    let bfs_limits = match abstraction {
        Some(_) => Limits {
            timeout: limits
                .timeout
                .map(|t| t.saturating_sub(start.elapsed()).mul_f64(BFS_SHARE)),
            ..limits.clone()
        },
        None => limits.clone(),
    };
    let mut guide = abstraction.map(|(_, g)| AbstractGuide::new(g));
    let ex = explore_pruned(
        m,
        &bfs_limits,
        &opts,
        guide.as_mut().map(|p| p as &mut dyn Guide),
    );
    let mut r = report(m, program, &ex);
    r.pruned = ex.pruned;
    let bfs_stopped = ex.stopped.clone();
    drop(ex);
    let (Some((_, g)), Some(guide)) = (abstraction, guide.as_mut()) else {
        return r;
    };
    r.abstract_states = Some(g.n_states() as u64);
    let wanted = wanted.unwrap_or_default();
    let mut unknown = Vec::new();
    for v in &mut r.verdicts {
        match early.iter().find(|e| e.0 == v.property) {
            // Replayed above; the search did not look for it.
            Some((_, path)) => {
                if let Err(other) = v.accept_witness(m, path) {
                    eprintln!("rigor: internal: witness for error {} does not replay ({other:?}); answering unknown", v.property);
                    v.verdict = None;
                }
            }
            None if v.verdict.is_some() => {}
            None if !wanted.contains(&v.property) => v.verdict = Some(false),
            None => unknown.push(v.property),
        }
    }
    // The labels left: a search guided by the abstract distance.
    if unknown.is_empty() || bfs_stopped == Some(StopReason::MemoryLimit) {
        return r;
    }
    let found = search_rounds(m, limits, start, &unknown, guide);
    r.guided_states = found.states;
    for v in &mut r.verdicts {
        match found.verdicts.iter().find(|f| f.0 == v.property) {
            Some((_, Some(path))) => {
                if let Err(other) = v.accept_witness(m, path) {
                    eprintln!("rigor: internal: guided witness for error {} does not replay ({other:?}); answering unknown", v.property);
                }
            }
            // Every state the search skipped was dead for this label.
            Some((_, None)) => v.verdict = Some(false),
            None => {}
        }
    }
    r
}

/// Turns an exploration into verdicts, replaying every witness.
pub fn report(m: &Machine, program: &str, ex: &Exploration) -> ReachReport {
    let complete = ex.is_complete();
    let mut verdicts = Vec::new();
    for &label in &m.error_labels {
        let found = ex.errors.iter().find(|e| e.0 == label);
        let v = match found {
            Some(&(_, s, i)) => {
                let mut path = ex.path_to(s);
                path.push(i);
                let mut v = LabelVerdict {
                    property: label,
                    verdict: None,
                    witness: None,
                };
                if let Err(other) = v.accept_witness(m, &path) {
                    // A witness that does not replay is a bug: never report it.
                    eprintln!("rigor: internal: witness for error {label} does not replay ({other:?}); answering unknown");
                }
                v
            }
            None => LabelVerdict {
                property: label,
                verdict: if complete || ex.stopped == Some(StopReason::AllErrorsFound) {
                    // All labels found means none is left to be unreachable.
                    if complete {
                        Some(false)
                    } else {
                        None
                    }
                } else {
                    None
                },
                witness: None,
            },
        };
        verdicts.push(v);
    }
    ReachReport {
        program: program.to_string(),
        problem: crate::ir::problem_name(program),
        track: "reach",
        verdicts,
        states: ex.graph.n_states as u64,
        transitions: ex.transitions,
        depth: ex.depth,
        complete,
        stopped: ex.stopped.clone(),
        faults: ex
            .faults
            .iter()
            .take(5)
            .map(|f| {
                format!(
                    "state {} input {}: {}",
                    f.state, m.input_names[f.input], f.fault
                )
            })
            .collect(),
        seconds: secs(ex.elapsed),
        peak_memory: crate::explore::bfs::peak_resident_bytes(),
        state_bytes: ex.state_bytes,
        state_width: m.state_width(),
        abstract_states: None,
        pruned: 0,
        guided_states: 0,
        abstraction_note: None,
    }
}

fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}
