//! The `rigor reach` portfolio on a program: the engines run as named
//! stages that share one budget, each settling the labels it can and
//! saying so in the report ([`Evidence`]: abstraction, witness, pruned or
//! complete exploration, invariant). In order:
//!
//! 1. **abstraction** ([`abstraction_stage`]): the interval abstraction,
//!    with [`crate::absint::share_of`] the budget; the labels it never
//!    reaches are unreachable (once its certificate passes, with
//!    `--certify`), and its graph guides everything after it.
//! 2. **early witnesses** ([`super::early_witnesses`]): each label's
//!    abstract path, replayed; pumped counters for labels behind counter
//!    guards.
//! 3. **invariants** ([`invariants_stage`], its own thread or worker
//!    processes): one inductive invariant per label still open, beside the
//!    search.
//! 4. **certificate check** ([`certificate_check_stage`], its own thread):
//!    the independent check and the second reading of the abstraction's
//!    certificate; the search steps back for it (`runtime::priority`).
//! 5. **search** ([`search_stage`]): the breadth-first search pruned by the
//!    abstraction (half the time), then one search per label guided by the
//!    abstract distance.
//! 6. **settle** ([`settle_stage`]): the certificate's verdicts applied or
//!    taken back, the invariants joined, why the run stopped.
//!
//! A seeded run, or one without the abstraction, is stage 5 alone, a plain
//! breadth-first search ([`super::check`]). Every reachable label is told
//! to the caller the moment its witness replays.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use super::{
    apply_certification, certificate_of, certify_pruned, check, early_witnesses, note_found,
    report, search_options, search_rounds, wanted_labels, Evidence, ReachOptions, ReachReport,
    BFS_SHARE,
};
use crate::absint::{AbsGraph, AbstractGuide};
use crate::certificate::{Certificate, CheckError, Checked};
use crate::check::certify::PendingCheck;
use crate::check::invariants::PendingInvariants;
use crate::check::pruning::{Pruned, RecordingGuide, SlotBoxes};
use crate::check::InputError;
use crate::engine::Machine;
use crate::explore::{explore_levels, explore_pruned, Guide, Options};
use crate::ir::Program;
use crate::runtime::{Budget, Cancel, StopReason};
use crate::system::System;

/// What stage 1 leaves: the abstraction and its certificate, or, where a
/// limit stopped it, its graph so far (which proves nothing, but whose
/// paths to labels are witnesses to try) and why it stopped.
pub struct AbstractionStage {
    /// The complete abstraction.
    pub graph: Option<AbsGraph>,
    /// The certificate of the labels it never reaches.
    pub certificate: Option<Certificate>,
    /// The graph a limit stopped the abstraction at.
    pub partial: Option<Box<AbsGraph>>,
    /// Why the abstraction did not finish.
    pub note: Option<String>,
}

/// Stage 1: the interval abstraction of `p`, with its share of the time;
/// rounds go on while a label's abstract path does not replay.
pub fn abstraction_stage(
    p: &Program,
    m: &Machine,
    budget: &Budget,
    threads: usize,
) -> AbstractionStage {
    let share = crate::absint::share_of(budget);
    let judge = |g: &AbsGraph| (g.unreplayed_labels(m), ());
    match crate::absint::explore_abstract_best(p, m, &share, threads, judge) {
        Ok((g, ())) => AbstractionStage {
            certificate: Some(certificate_of(p, m, &g)),
            graph: Some(g),
            partial: None,
            note: None,
        },
        Err(u) => AbstractionStage {
            graph: None,
            certificate: None,
            partial: u.partial,
            note: Some(u.why.to_string()),
        },
    }
}

impl AbstractionStage {
    /// The labels the certificate claims unreachable.
    fn claimed(&self) -> Vec<u32> {
        (self.certificate.as_ref()).map_or_else(Vec::new, |c| c.unreachable.clone())
    }

    /// Whether stage 4 runs: a certificate that claims something, under
    /// `--certify`.
    fn needs_check(&self, certify: bool) -> bool {
        certify && !self.claimed().is_empty()
    }
}

/// Stage 3: the invariant engine on the labels the abstraction does not
/// claim and no early witness settled, beside the search; `settled`
/// cancels the search once the engine has settled what it looks for.
#[allow(clippy::too_many_arguments)]
pub fn invariants_stage(
    p: &Arc<Program>,
    abstraction: &AbstractionStage,
    early: &[(u32, Vec<usize>)],
    found: Arc<Mutex<BTreeSet<u32>>>,
    settled: Cancel,
    budget: &Budget,
    path: &str,
    opts: &ReachOptions,
) -> Option<PendingInvariants> {
    let claimed = abstraction.claimed();
    let open: Vec<u32> = (p.error_labels.iter().copied())
        .filter(|l| !claimed.contains(l) && !early.iter().any(|e| e.0 == *l))
        .collect();
    // It steps back for the certificate check, if one runs.
    let checking = abstraction.needs_check(opts.certify);
    (!open.is_empty()).then(|| {
        let sink = opts.on_verdict.clone();
        let worker = opts.invariant_worker.clone();
        PendingInvariants::start(
            p, open, budget, found, sink, settled, checking, path, worker,
        )
    })
}

/// Stage 4: the independent check of the abstraction's certificate, on a
/// thread of its own until the run's deadline (its second reading for a
/// share of the time: `second_reading_deadline`).
pub fn certificate_check_stage(
    p: &Arc<Program>,
    abstraction: &AbstractionStage,
    budget: &Budget,
    path: &str,
    certify: bool,
) -> Option<PendingCheck<Checked>> {
    let c = abstraction
        .certificate
        .as_ref()
        .filter(|_| abstraction.needs_check(certify))?;
    let (p, c, path) = (Arc::clone(p), c.clone(), path.to_string());
    let deadline = crate::check::certify::check_deadline(budget);
    Some(PendingCheck::start(move || {
        let start = std::time::Instant::now();
        let checked = crate::certificate::check(&p, &c, deadline)?;
        let second = crate::check::certify::second_reading_deadline(start.elapsed(), deadline);
        let initiation = crate::crosscheck::Initiation::Required;
        crate::check::certify::second_reading(&path, &c, checked, initiation, second, false)
    }))
}

/// Stage 6: the certificate's verdicts applied (or taken back), the
/// invariant engine joined, and why the search stopped.
pub fn settle_stage(
    r: &mut ReachReport,
    abstraction: AbstractionStage,
    check: Option<Result<Checked, CheckError>>,
    invariants: Option<PendingInvariants>,
    budget: &Budget,
    opts: &ReachOptions,
) {
    r.abstraction_note = abstraction.note;
    if abstraction.graph.is_some() {
        apply_certification(r, check.as_ref(), opts.certify);
    }
    if let Some(i) = invariants {
        i.finish(r);
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
        r.certificate = abstraction.certificate;
    }
}

/// The `rigor reach` portfolio on a program already lowered (from `path`):
/// the stages of the module doc, in order.
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
        let search = search_options(opts, m.inputs(), seeds);
        return Ok(check(&m, path, budget, &search));
    }
    // Shared with the stages that run on threads of their own.
    let p = Arc::new(p);
    let threads = (opts.threads).unwrap_or_else(crate::explore::levels::all_cores);
    let mut abstraction = abstraction_stage(&p, &m, budget, threads);
    // Labels found by any engine, for the invariant engine to skip.
    let found = Arc::new(Mutex::new(BTreeSet::new()));
    let mut search = search_options(opts, m.inputs(), Vec::new());
    search.on_error = Some(note_found(search.on_error.take(), &found));
    // Before the check takes the cores: pumping counters is bounded by its
    // share of the time, which it would spend waiting while the check runs.
    let graph = abstraction
        .graph
        .as_ref()
        .or(abstraction.partial.as_deref());
    let early = graph
        .map(|g| early_witnesses(&p, &m, g, budget, search.on_error.as_ref()))
        .unwrap_or_default();
    abstraction.partial = None;
    let (search_budget, settled) = budget.cancellable();
    let invariants = invariants_stage(&p, &abstraction, &early, found, settled, budget, path, opts);
    let checker = certificate_check_stage(&p, &abstraction, budget, path, opts.certify);
    let search_run = || {
        let with = abstraction.graph.as_ref().map(|g| (&p, g));
        search_stage(
            &m,
            path,
            &search_budget,
            &search,
            with,
            &early,
            opts.certify,
        )
    };
    // The search steps back for the check while it runs.
    let mut r = if checker.is_some() {
        crate::runtime::priority::deferred(search_run)
    } else {
        search_run()
    };
    let check = checker.map(|c| c.wait(budget));
    settle_stage(&mut r, abstraction, check, invariants, budget, opts);
    Ok(r)
}

/// Stage 5, the search: answers every error label of `m`, with the
/// program's interval abstraction if there is one (and the program it
/// abstracts): the
/// exploration then looks only for the labels the abstraction reaches, and
/// the others are unreachable. With `certify_pruning`, the labels that
/// only the exploration pruned by the abstraction proves unreachable get
/// their certificate checked ([`super::pruning`]). `early`: the witnesses
/// already replayed ([`early_witnesses`]), which the search does not look
/// for; without an abstraction, they answer the labels the search did not
/// reach.
pub fn search_stage(
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
    let (Some((p, g)), Some(guide)) = (abstraction, guide.as_mut()) else {
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
    let pruned = PrunedSearch {
        abstraction: (p, g),
        early,
        boxed: boxed.as_ref(),
        pruning: pruning.as_ref(),
    };
    let unknown = pruned.settle(&mut r, m, program, budget);
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

/// A breadth-first search pruned by the abstraction `g` of `p`, as
/// [`PrunedSearch::settle`] reads it.
pub(super) struct PrunedSearch<'a> {
    /// The program and its abstraction.
    pub abstraction: (&'a Arc<Program>, &'a AbsGraph),
    /// The witnesses replayed before the search, which it did not look for.
    pub early: &'a [(u32, Vec<usize>)],
    /// The abstraction's certificate and its regions on the state slots,
    /// where the pruning is to be certified.
    pub boxed: Option<&'a (Certificate, SlotBoxes)>,
    /// Where the states it pruned lie.
    pub pruning: Option<&'a Pruned>,
}

impl PrunedSearch<'_> {
    /// Settles, in `r` (the search's report on `m`, read from `program`),
    /// what the search and the abstraction prove: the early witnesses,
    /// the labels the abstraction never reaches (unreachable by it), and
    /// the labels the search looked for and never found, once it ended
    /// (unreachable by the pruned search, certified where the pruning can
    /// be). Returns the labels left open.
    pub fn settle(
        &self,
        r: &mut ReachReport,
        m: &Machine,
        program: &str,
        budget: &Budget,
    ) -> Vec<u32> {
        let (p, g) = self.abstraction;
        r.abstract_states = Some(g.n_states() as u64);
        let wanted = wanted_labels(m, g);
        let mut unknown = Vec::new();
        for v in &mut r.verdicts {
            match self.early.iter().find(|e| e.0 == v.property) {
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
        if let (Some((c, _)), Some(pruned)) = (self.boxed, self.pruning) {
            let labels: Vec<u32> = (r.verdicts.iter())
                .filter(|v| v.engine == Some(Evidence::PrunedExploration))
                .map(|v| v.property)
                .collect();
            certify_pruned(r, p, program, c, &labels, pruned, budget);
        }
        unknown
    }
}
