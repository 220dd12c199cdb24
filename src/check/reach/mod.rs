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
//! ([`counter_witness`]), all of it before the certificate's check takes
//! the cores ([`early_witnesses`]); the breadth-first search looks for the
//! labels left, and a search guided by the abstract distance for those it
//! did not find. Pumped and guided witnesses are not always shortest; every
//! witness is replayed. The stages, in the order they run, are
//! [`portfolio`]'s.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::pruning::{check_pruning, Pruned, RecordingGuide, SlotBoxes};
use super::InputError;
use crate::absint::{counter_witness, AbsGraph, AbstractGuide};
use crate::certificate::{Certificate, CheckError, Checked};
use crate::engine::Machine;
use crate::explore::{guided_search, Exploration, Observer, Options, ProgressPoint, Recorder};
use crate::ir::Program;
use crate::runtime::{Budget, StopReason};
use crate::system::{replay, Outcome, System};

mod cluster;
pub mod portfolio;

pub use super::reach_report::{Evidence, LabelVerdict, ReachReport, VerdictSink};
pub use cluster::solve_distributed;
pub use portfolio::{search_stage, solve_program};

/// Share of the time the breadth-first search gets when an abstraction
/// can guide a second search.
pub const BFS_SHARE: f64 = 0.5;

/// Share of the time the searches that pump counters get, all labels
/// together, before the breadth-first search. The 2019 challenge's labels
/// behind counters take 5 to 18 s each (P18: seven of them); with a
/// quarter of the time at `--timeout 600`, two of P18's were left over.
pub const PUMP_SHARE: f64 = 0.4;

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
    /// Labels proved unreachable whose pruning certificate was accepted.
    certified: Vec<u32>,
    /// Why the others' were not.
    notes: Vec<String>,
}

/// One greedy search per label, in rounds: each label left gets a slice of
/// the time left, and the slices double each round, until every label is
/// settled or the time is out (without a deadline: one unbounded search
/// per label).
fn search_rounds(
    m: &Machine,
    budget: &Budget,
    labels: &[u32],
    guide: &mut AbstractGuide,
    cert: Option<(&Arc<Program>, &str, &Certificate, &SlotBoxes)>,
    on_error: Option<&crate::explore::ErrorFound>,
) -> Settled {
    let mut out = Settled::default();
    // One search; whether it settled the label.
    let mut search = |l: u32, budget: &Budget, out: &mut Settled| {
        let (gs, pruning) = match cert {
            Some((_, _, _, boxes)) => {
                let mut rec = RecordingGuide {
                    guide: &mut *guide,
                    boxes,
                    pruned: Pruned::default(),
                };
                let gs = guided_search(m, budget, &[l], &mut rec, GUIDE_WEIGHT);
                (gs, Some(rec.pruned))
            }
            None => (guided_search(m, budget, &[l], guide, GUIDE_WEIGHT), None),
        };
        out.states += gs.states;
        let exhausted = gs.exhausted();
        if let Some((_, p)) = gs.found.into_iter().next() {
            if let Some(tell) = on_error.filter(|_| replay(m, &p) == Ok(Outcome::Error(l))) {
                tell(l, &p);
            }
            out.verdicts.push((l, Some(p)));
        } else if exhausted {
            out.verdicts.push((l, None));
            // Its certificate is checked at once, while there is time.
            if let (Some((p, path, c, _)), Some(pruned)) = (cert, pruning) {
                match check_pruning(p, path, c, &[l], &pruned, budget) {
                    Ok(note) => {
                        out.certified.push(l);
                        out.notes.extend(note);
                    }
                    Err(e) => out.notes.push(e.to_string()),
                }
            }
        } else {
            return Err(gs.stopped);
        }
        Ok(())
    };
    let Some(total) = budget.remaining() else {
        for &l in labels {
            let _ = search(l, budget, &mut out);
        }
        return out;
    };
    let mut left: Vec<u32> = labels.to_vec();
    let rest = || budget.remaining().unwrap_or_default();
    let mut slice = (total / (4 * labels.len().max(1) as u32)).max(Duration::from_millis(500));
    while !left.is_empty() && !rest().is_zero() {
        for l in std::mem::take(&mut left) {
            let now = slice.min(rest());
            if now.is_zero() {
                left.push(l);
                continue;
            }
            match search(l, &budget.clone().with_timeout(now), &mut out) {
                Ok(()) => {}
                // More time does not lift these limits.
                Err(Some(
                    StopReason::MemoryLimit | StopReason::MaxStates | StopReason::Interrupted,
                )) => return out,
                Err(_) => left.push(l),
            }
        }
        slice = slice.saturating_mul(2);
    }
    out
}

/// What a reachability run should do besides the search.
#[derive(Clone, Default)]
pub struct ReachOptions {
    /// Try the interval abstraction first (programs with arithmetic).
    pub abstraction: bool,
    /// An Abbadingo log whose traces are explored first (no abstraction
    /// then).
    pub seed_log: Option<String>,
    /// Told how the breadth-first search goes.
    pub observer: Option<Observer>,
    /// Answer "unreachable" from the abstraction only once its certificate
    /// passed the independent check ([`crate::certificate::check`]).
    pub certify: bool,
    /// Put the abstraction's certificate in the report (see
    /// [`ReachReport::certificate`]).
    pub keep_certificate: bool,
    /// Told of each reachable label the moment its witness replayed, before
    /// the run ends.
    pub on_verdict: Option<VerdictSink>,
    /// Threads of the breadth-first search when nothing prunes it (default:
    /// all cores; see [`crate::explore::levels`]).
    pub threads: Option<usize>,
    /// Where the invariant engine's queries run: in worker processes
    /// started by this command (on the program's file, so only where the
    /// program is that file's RERS reading), else in a thread.
    pub invariant_worker: Option<crate::horn::WorkerCommand>,
}

/// The reachable verdict of `label` with witness `path` (input indices
/// into `inputs`), as told to a [`VerdictSink`].
fn reached(label: u32, path: &[usize], inputs: &[String]) -> LabelVerdict {
    LabelVerdict {
        property: label,
        verdict: Some(true),
        witness: Some(path.iter().map(|&k| inputs[k].clone()).collect()),
        engine: Some(Evidence::Witness),
        certified: None,
    }
}

/// The certificate of the labels the abstraction `g` never reaches.
pub(crate) fn certificate_of(p: &Program, m: &Machine, g: &AbsGraph) -> Certificate {
    let reached = g.error_labels();
    let claims: Vec<u32> = (m.error_labels.iter())
        .copied()
        .filter(|l| !reached.contains(l))
        .collect();
    crate::absint::certify::certificate(p, m, g, &claims, &[])
}

/// Marks `labels`, which only the pruned breadth-first search proved
/// unreachable, certified if [`check_pruning`] accepts their certificate.
fn certify_pruned(
    r: &mut ReachReport,
    p: &Arc<Program>,
    path: &str,
    c: &Certificate,
    labels: &[u32],
    pruned: &Pruned,
    budget: &Budget,
) {
    if labels.is_empty() {
        return;
    }
    match check_pruning(p, path, c, labels, pruned, budget) {
        Ok(note) => {
            r.notes.extend(note);
            for v in r.verdicts.iter_mut() {
                if labels.contains(&v.property) {
                    v.certified = Some(true);
                }
            }
        }
        Err(e) => r.notes.push(e.to_string()),
    }
}

/// Marks the verdicts the abstraction gave as certified, or, where the
/// check failed, takes them back (with a note saying why).
fn apply_certification(
    r: &mut ReachReport,
    check: Option<&Result<Checked, CheckError>>,
    certify: bool,
) {
    let mut failed = None;
    let mut pruned = 0;
    for v in &mut r.verdicts {
        // A pruned exploration rests on the abstraction's guide for the
        // states it skipped: its labels stand only with the certificate
        // of the pruning (`certify_pruned`).
        if v.engine == Some(Evidence::PrunedExploration) && certify && v.certified != Some(true) {
            v.verdict = None;
            v.engine = None;
            v.certified = None;
            pruned += 1;
        }
        if v.engine != Some(Evidence::Abstraction) {
            continue;
        }
        // Fail closed: a label whose check did not accept it, or that no
        // check looked at, is withdrawn (kept, uncertified, only where
        // certification is off).
        match check {
            Some(Ok(_)) => v.certified = Some(true),
            Some(Err(e)) if certify => {
                v.verdict = None;
                v.engine = None;
                failed = Some(e.to_string());
            }
            None if certify => {
                v.verdict = None;
                v.engine = None;
                failed = Some("no check ran".into());
            }
            _ => v.certified = Some(false),
        }
    }
    if let Some(why) = failed {
        r.notes.push(format!(
            "the abstraction's certificate was not accepted ({why}); its labels are unknown"
        ));
    }
    if pruned > 0 {
        r.notes.push(format!(
            "{pruned} label(s) found unreachable only by the exploration pruned with the \
             abstraction's guide have no certificate; they are unknown (--no-certify answers them)"
        ));
    }
    if let Some(Ok(c)) = check {
        r.certificate_seconds = Some(c.seconds);
        let (seconds, note) = super::certify::second_reading_outcome(
            &c.second_reading,
            "the labels the abstraction claims",
        );
        r.second_reading_seconds = seconds;
        r.notes.extend(note);
    }
}

/// Reachability of every error label of the program or model at `path`:
/// the `rigor reach` pipeline. Programs with arithmetic go through the
/// interval abstraction first ([`crate::absint::share_of`] the budget);
/// `.aut`/`.dot` models are explored as they are.
pub fn solve(path: &str, budget: &Budget, opts: &ReachOptions) -> Result<ReachReport, InputError> {
    // Every search of the run reports to the recorder, for plots.
    let recorder = Recorder::start();
    let opts = ReachOptions {
        observer: Some(recorder.observer(opts.observer.clone())),
        ..opts.clone()
    };
    let mut r = solve_recorded(path, budget, &opts)?;
    r.progress = recorder.finish(ProgressPoint {
        seconds: recorder.elapsed(),
        states: r.states,
        depth: r.depth,
        settled: r.verdicts.iter().filter(|v| v.verdict.is_some()).count(),
    });
    Ok(r)
}

/// [`solve`], its samples going to `opts.observer`.
fn solve_recorded(
    path: &str,
    budget: &Budget,
    opts: &ReachOptions,
) -> Result<ReachReport, InputError> {
    if let Some(g) = crate::lts::load_model_graph(path) {
        let g = g?;
        return Ok(check(
            &g,
            path,
            budget,
            &search_options(opts, g.inputs(), Vec::new()),
        ));
    }
    solve_program(crate::frontend::load(path)?, path, budget, opts)
}

/// `tell`, that also adds each label to `found`.
fn note_found(
    tell: Option<crate::explore::ErrorFound>,
    found: &Arc<Mutex<BTreeSet<u32>>>,
) -> crate::explore::ErrorFound {
    let found = Arc::clone(found);
    Arc::new(move |label: u32, path: &[usize]| {
        if let Ok(mut f) = found.lock() {
            f.insert(label);
        }
        if let Some(t) = &tell {
            t(label, path);
        }
    })
}

/// The options of the breadth-first search of a reachability run.
fn search_options(opts: &ReachOptions, inputs: &[String], seeds: Vec<Vec<usize>>) -> Options {
    let on_error = opts.on_verdict.clone().map(|sink| {
        let inputs = inputs.to_vec();
        Arc::new(move |label: u32, path: &[usize]| sink(&reached(label, path, &inputs)))
            as crate::explore::ErrorFound
    });
    Options {
        on_error,
        keep_graph: false,
        stop_when_all_errors_found: true,
        observer: opts.observer.clone(),
        seeds,
        wanted_errors: None,
        threads: opts
            .threads
            .unwrap_or_else(crate::explore::levels::all_cores),
    }
}

/// Explores `sys` breadth-first (with `opts`) and answers every error label.
pub fn check<S: System + Sync>(
    sys: &S,
    program: &str,
    budget: &Budget,
    opts: &Options,
) -> ReachReport {
    let ex = crate::explore::explore_levels(sys, budget, opts);
    report(sys, program, &ex)
}

/// The labels of `m` that the abstraction `g` reaches, in the program's
/// order: the only ones a search has to look for.
fn wanted_labels(m: &Machine, g: &AbsGraph) -> Vec<u32> {
    let labels = g.error_labels();
    (m.error_labels.iter().copied())
        .filter(|l| labels.contains(l))
        .collect()
}

/// Runs found before any search, each replayed: for every label the
/// abstraction `g` (of `p`) reaches, its abstract path where it replays (a
/// shortest witness: no run is shorter than the abstract distance), else,
/// for a label behind counter guards, a run that pumps them
/// ([`counter_witness`], all labels together within [`PUMP_SHARE`] of the
/// time, each an equal part of what is left of it when its turn comes).
/// Each is told to `on_error` as it is found. `g` may also be the
/// graph a limit stopped the abstraction at ([`crate::absint::Unfinished`]):
/// its paths are then only candidates, and not always shortest.
pub fn early_witnesses(
    p: &Program,
    m: &Machine,
    g: &AbsGraph,
    budget: &Budget,
    on_error: Option<&crate::explore::ErrorFound>,
) -> Vec<(u32, Vec<usize>)> {
    let budget = budget.share(PUMP_SHARE);
    let mut paths = g.paths_to_errors();
    let labels = wanted_labels(m, g);
    let reaches = |l: u32, path: &[usize]| replay(m, path) == Ok(Outcome::Error(l));
    // The labels whose abstract path does not replay, each of which may
    // take its part of the time to pump.
    let mut to_pump = (labels.iter())
        .filter(|l| paths.get(l).is_some_and(|path| !reaches(**l, path)))
        .count();
    let mut early = Vec::new();
    for l in labels {
        let found = match paths.remove(&l) {
            Some(path) if reaches(l, &path) => Some(path),
            Some(_) => {
                let part = budget.share(1.0 / to_pump.max(1) as f64);
                to_pump = to_pump.saturating_sub(1);
                counter_witness(p, m, g, l, &part).filter(|path| reaches(l, path))
            }
            None => None,
        };
        if let Some(path) = found {
            if let Some(tell) = on_error {
                tell(l, &path);
            }
            early.push((l, path));
        }
    }
    early
}

/// Turns an exploration of `sys` into verdicts, replaying every witness.
pub fn report<S: System>(sys: &S, program: &str, ex: &Exploration) -> ReachReport {
    let complete = ex.is_complete();
    let mut verdicts = Vec::new();
    let mut notes = Vec::new();
    for &label in sys.error_labels() {
        let mut v = LabelVerdict {
            property: label,
            verdict: None,
            witness: None,
            engine: None,
            certified: None,
        };
        match ex.witness(label) {
            Some(path) => {
                // A witness that does not replay is a bug: never report it.
                notes.extend(v.accept_witness(sys, &path, "witness"));
            }
            None if complete => {
                v.verdict = Some(false);
                v.engine = Some(Evidence::Exploration);
            }
            None => {}
        }
        verdicts.push(v);
    }
    ReachReport {
        program: program.to_string(),
        problem: crate::answers::naming::problem_name(program),
        track: "reach",
        verdicts,
        states: ex.graph.n_states as u64,
        transitions: ex.transitions,
        depth: ex.depth,
        complete,
        stopped: ex.stopped,
        faults: ex
            .faults
            .iter()
            .take(5)
            .map(|f| {
                format!(
                    "state {} input {}: {}",
                    f.state,
                    sys.inputs()[f.input],
                    f.fault
                )
            })
            .collect(),
        seconds: ex.elapsed.as_secs_f64(),
        peak_memory: crate::runtime::peak_resident_bytes(),
        state_bytes: ex.state_bytes,
        state_width: sys.state_width(),
        abstract_states: None,
        pruned: 0,
        guided_states: 0,
        abstraction_note: None,
        notes,
        certificate_seconds: None,
        second_reading_seconds: None,
        certificate: None,
        invariants: Vec::new(),
        progress: Vec::new(),
    }
}

#[cfg(test)]
mod tests;
