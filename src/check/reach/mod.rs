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
//! witness is replayed.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::certify::PendingCheck;
use super::invariants::PendingInvariants;
use super::pruning::{check_pruning, Pruned, RecordingGuide, SlotBoxes};
use super::InputError;
use crate::absint::{counter_witness, AbsGraph, AbstractGuide};
use crate::certificate::{Certificate, CheckError, Checked};
use crate::engine::Machine;
use crate::explore::{
    explore_levels, explore_pruned, guided_search, Exploration, Guide, Observer, Options,
    ProgressPoint, Recorder,
};
use crate::ir::Program;
use crate::runtime::{Budget, StopReason};
use crate::system::{replay, Outcome, System};

pub use super::reach_report::{Evidence, LabelVerdict, ReachReport, VerdictSink};

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
fn certificate_of(p: &Program, m: &Machine, g: &AbsGraph) -> Certificate {
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

/// The `rigor reach` pipeline on a program already lowered (from `path`).
pub fn solve_program(
    p: Program,
    path: &str,
    budget: &Budget,
    opts: &ReachOptions,
) -> Result<ReachReport, InputError> {
    let m = Machine::compile(&p)?;
    // A seeded search, or one without the abstraction, needs the program no
    // more: its memory goes back before the search takes its own.
    if opts.seed_log.is_some() || !opts.abstraction {
        let seeds = match &opts.seed_log {
            Some(log) => crate::abbadingo::read(log)?.input_sequences(&m)?,
            None => Vec::new(),
        };
        drop(p);
        return Ok(check(
            &m,
            path,
            budget,
            &search_options(opts, m.inputs(), seeds),
        ));
    }
    // Shared with the certificate checks that run on threads of their own.
    let p = Arc::new(p);
    // Programs with arithmetic: the interval abstraction first, with part of
    // the time; the labels it cannot reach need no search.
    let share = crate::absint::share_of(budget);
    // Rounds go on while a label's abstract path does not replay.
    let judge = |g: &AbsGraph| (g.unreplayed_labels(&m), ());
    let threads = (opts.threads).unwrap_or_else(crate::explore::levels::all_cores);
    // A limit that stopped the abstraction leaves its graph so far: that
    // proves nothing, but its paths to labels are witnesses to try.
    let (abstraction, partial, note) =
        match crate::absint::explore_abstract_best(&p, &m, &share, threads, judge) {
            Ok((g, ())) => (Some(g), None, None),
            Err(u) => (None, u.partial, Some(u.why.to_string())),
        };
    let cert = abstraction.as_ref().map(|g| certificate_of(&p, &m, g));
    // Labels found by any engine, for the invariant engine to skip.
    let found = Arc::new(Mutex::new(BTreeSet::new()));
    let mut search = search_options(opts, m.inputs(), Vec::new());
    search.on_error = Some(note_found(search.on_error.take(), &found));
    // The witnesses the abstraction points at, before the check takes the
    // cores: pumping counters is bounded by its share of the time, which
    // it would spend waiting while the check runs.
    let early = (abstraction.as_ref().or(partial.as_deref()))
        .map(|g| early_witnesses(&p, &m, g, budget, search.on_error.as_ref()))
        .unwrap_or_default();
    drop(partial);
    // The invariant engine, beside the search, for the labels the
    // abstraction does not claim and no witness settled.
    let claimed = cert
        .as_ref()
        .map(|c| c.unreachable.clone())
        .unwrap_or_default();
    let open: Vec<u32> = (p.error_labels.iter().copied())
        .filter(|l| !claimed.contains(l) && !early.iter().any(|e| e.0 == *l))
        .collect();
    // The search ends early once the engine has settled what it looks for.
    let (search_budget, settled) = budget.cancellable();
    // It steps back for the abstraction's certificate check, if one runs.
    let checking = (cert.as_ref()).is_some_and(|c| opts.certify && !c.unreachable.is_empty());
    let invariants = (!open.is_empty()).then(|| {
        let sink = opts.on_verdict.clone();
        let worker = opts.invariant_worker.clone();
        PendingInvariants::start(
            &p, open, budget, found, sink, settled, checking, path, worker,
        )
    });
    // The independent check of the certificate runs beside the search for
    // witnesses, until the run's deadline (its second reading for a share
    // of the time: `second_reading_deadline`).
    let checker = (cert.as_ref()).filter(|_| checking).map(|c| {
        let (p, c, path) = (Arc::clone(&p), c.clone(), path.to_string());
        let deadline = super::certify::check_deadline(budget);
        PendingCheck::start(move || {
            let start = std::time::Instant::now();
            let checked = crate::certificate::check(&p, &c, deadline)?;
            let second = super::certify::second_reading_deadline(start.elapsed(), deadline);
            let initiation = crate::crosscheck::Initiation::Required;
            super::certify::second_reading(&path, &c, checked, initiation, second, false)
        })
    });
    // The search steps back for the check while it runs
    // (`runtime::priority`).
    let search_run = || {
        check_with(
            &m,
            path,
            &search_budget,
            &search,
            abstraction.as_ref().map(|g| (&p, g)),
            &early,
            opts.certify,
        )
    };
    let mut r = if checker.is_some() {
        crate::runtime::priority::deferred(search_run)
    } else {
        search_run()
    };
    let check = checker.map(|c| c.wait(budget));
    r.abstraction_note = note;
    if abstraction.is_some() {
        apply_certification(&mut r, check.as_ref(), opts.certify);
    }
    if let Some(i) = invariants {
        i.finish(&mut r);
    }
    // A search the pipeline itself ended, because every label was settled,
    // was not interrupted: say why it stopped.
    let run_cancelled = (budget.cancel.as_ref()).is_some_and(|c| c.is_cancelled());
    if r.stopped == Some(StopReason::Interrupted)
        && !run_cancelled
        && r.verdicts.iter().all(|v| v.verdict.is_some())
    {
        r.stopped = Some(StopReason::AllErrorsFound);
    }
    if opts.keep_certificate {
        r.certificate = cert;
    }
    Ok(r)
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
/// time). Each is told to `on_error` as it is found. `g` may also be the
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
    let mut early = Vec::new();
    for l in wanted_labels(m, g) {
        let reaches = |path: &[usize]| replay(m, path) == Ok(Outcome::Error(l));
        let found = match paths.remove(&l) {
            Some(path) if reaches(&path) => Some(path),
            Some(_) => counter_witness(p, m, g, l, &budget).filter(|path| reaches(path)),
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

/// Answers every error label of `m`, with the program's interval
/// abstraction if there is one (and the program it abstracts): the
/// exploration then looks only for the labels the abstraction reaches, and
/// the others are unreachable. With `certify_pruning`, the labels that
/// only the exploration pruned by the abstraction proves unreachable get
/// their certificate checked ([`super::pruning`]). `early`: the witnesses
/// already replayed ([`early_witnesses`]), which the search does not look
/// for; without an abstraction, they answer the labels the search did not
/// reach.
pub fn check_with(
    m: &Machine,
    program: &str,
    budget: &Budget,
    opts: &Options,
    abstraction: Option<(&Arc<Program>, &AbsGraph)>,
    early: &[(u32, Vec<usize>)],
    certify_pruning: bool,
) -> ReachReport {
    let wanted = abstraction.map(|(_, g)| wanted_labels(m, g));
    let search_wanted = wanted.as_ref().map(|w| {
        w.iter()
            .copied()
            .filter(|l| !early.iter().any(|e| e.0 == *l))
            .collect::<Vec<u32>>()
    });
    let opts = Options {
        wanted_errors: search_wanted.clone(),
        ..opts.clone()
    };
    // With nothing wanted, the exploration stops after the first state.
    // States from which the abstraction reaches no label still wanted are
    // not expanded; an exploration that still ends proves those labels
    // unreachable. With an abstraction, the breadth-first search gets
    // [`BFS_SHARE`] of the time and the guided search the rest.
    let bfs_budget = match abstraction {
        Some(_) => budget.share(BFS_SHARE),
        None => budget.clone(),
    };
    let mut guide = abstraction.map(|(_, g)| AbstractGuide::new(g));
    // The certificate's regions on the state slots, to record where the
    // pruned states lie.
    let boxed = (abstraction.filter(|_| certify_pruning)).and_then(|(p, g)| {
        let c = certificate_of(p, m, g);
        SlotBoxes::new(p, m, &c).map(|b| (c, b))
    });
    let mut pruning: Option<Pruned> = None;
    let ex = match (guide.as_mut(), &boxed) {
        (Some(g), Some((_, boxes))) => {
            let mut rec = RecordingGuide {
                guide: g,
                boxes,
                pruned: Pruned::default(),
            };
            let ex = explore_pruned(m, &bfs_budget, &opts, Some(&mut rec as &mut dyn Guide));
            pruning = Some(rec.pruned);
            ex
        }
        (Some(g), None) => explore_pruned(m, &bfs_budget, &opts, Some(g as &mut dyn Guide)),
        (None, _) => explore_levels(m, &bfs_budget, &opts),
    };
    let mut r = report(m, program, &ex);
    r.pruned = ex.pruned;
    let bfs_stopped = ex.stopped;
    drop(ex);
    let (Some((_, g)), Some(guide)) = (abstraction, guide.as_mut()) else {
        // Without an abstraction the search looked for every label; those
        // it did not reach may have a witness from the partial graph.
        for v in r.verdicts.iter_mut().filter(|v| v.verdict.is_none()) {
            if let Some((_, path)) = early.iter().find(|e| e.0 == v.property) {
                if let Some(note) = v.accept_witness(m, path, "witness") {
                    r.notes.push(note);
                }
            }
        }
        return r;
    };
    r.abstract_states = Some(g.n_states() as u64);
    let wanted = wanted.unwrap_or_default();
    let mut unknown = Vec::new();
    for v in &mut r.verdicts {
        match early.iter().find(|e| e.0 == v.property) {
            // Replayed above; the search did not look for it.
            Some((_, path)) => {
                if let Some(note) = v.accept_witness(m, path, "witness") {
                    r.notes.push(note);
                    v.verdict = None;
                }
            }
            None if !wanted.contains(&v.property) => {
                v.verdict = Some(false);
                v.engine = Some(Evidence::Abstraction);
            }
            None if v.verdict.is_some() => {
                if v.verdict == Some(false) {
                    v.engine = Some(Evidence::PrunedExploration);
                    v.certified = Some(false);
                }
            }
            None => unknown.push(v.property),
        }
    }
    if let (Some((p, _)), Some((c, _)), Some(pruned)) = (abstraction, &boxed, &pruning) {
        let labels: Vec<u32> = (r.verdicts.iter())
            .filter(|v| v.engine == Some(Evidence::PrunedExploration))
            .map(|v| v.property)
            .collect();
        certify_pruned(&mut r, p, program, c, &labels, pruned, budget);
    }
    // The labels left: a search guided by the abstract distance.
    if unknown.is_empty() || bfs_stopped == Some(StopReason::MemoryLimit) {
        return r;
    }
    let cert = (abstraction.zip(boxed.as_ref())).map(|((p, _), (c, b))| (p, program, c, b));
    let found = search_rounds(m, budget, &unknown, guide, cert, opts.on_error.as_ref());
    r.guided_states = found.states;
    for v in &mut r.verdicts {
        match found.verdicts.iter().find(|f| f.0 == v.property) {
            Some((_, Some(path))) => {
                if let Some(note) = v.accept_witness(m, path, "guided witness") {
                    r.notes.push(note);
                }
            }
            // Every state the search skipped was dead for this label.
            Some((_, None)) => {
                v.verdict = Some(false);
                v.engine = Some(Evidence::PrunedExploration);
                v.certified = Some(false);
            }
            None => {}
        }
    }
    for v in r.verdicts.iter_mut() {
        if found.certified.contains(&v.property) {
            v.certified = Some(true);
        }
    }
    r.notes.extend(found.notes);
    r
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

/// Why a reachability run over several processes could not be done.
#[derive(Debug, thiserror::Error)]
pub enum DistributedReachError {
    /// The program.
    #[error(transparent)]
    Input(#[from] InputError),
    /// The processes could not search together.
    #[error(transparent)]
    Search(#[from] crate::explore::distributed::DistributedError),
}

/// The plain breadth-first search of the program at `path` with this
/// process as one of `cluster`'s (no abstraction: every label is settled
/// by the search, every witness replayed). The report on the last process,
/// `None` on the others.
pub fn solve_distributed(
    path: &str,
    budget: &Budget,
    cluster: &crate::explore::distributed::Cluster,
) -> Result<Option<ReachReport>, DistributedReachError> {
    let p = crate::frontend::load(path).map_err(InputError::from)?;
    let m = Arc::new(Machine::compile(&p).map_err(InputError::from)?);
    let ex = crate::explore::distributed::explore_distributed(Arc::clone(&m), cluster, budget)?;
    Ok(ex.map(|ex| report(m.as_ref(), path, &ex)))
}

#[cfg(test)]
mod tests;
