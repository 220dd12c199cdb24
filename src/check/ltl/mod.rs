//! The `rigor ltl` pipeline: LTL properties of a program or a model.
//!
//! Programs with arithmetic go through the interval abstraction first (a
//! property with no abstract counterexample holds; an abstract lasso counts
//! once it replays). Everything else is explored once, reduced to its trace
//! quotient and checked property by property ([`crate::ltl::check`]).

mod cluster;

pub use cluster::solve_distributed;

use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::Serialize;

use super::certify::PendingCheck;
use super::InputError;
use crate::answers::witness::witness_line;
use crate::answers::write::answer_csv;
use crate::answers::Track;
use crate::certificate::{Certificate, CheckError, Checked};
use crate::engine::Machine;
use crate::explore::{explore_checkpointed, Observer, Options, ProgressPoint, Recorder};
use crate::ir::Program;
use crate::ltl::check::{check_all, check_formula, check_formula_abstract, LtlVerdict, Subject};
use crate::ltl::quotient::trace_quotient;
use crate::ltl::syntax::{read_properties, PropertyFile};
use crate::runtime::par_map;
use crate::runtime::{Budget, StopReason};
use crate::system::{StateGraph, System};

/// Everything `rigor ltl` reports.
#[derive(Clone, Debug, Serialize)]
pub struct LtlReport {
    /// The program file.
    pub program: String,
    /// The property file.
    pub properties: String,
    /// Problem number (from the program's file name).
    pub problem: String,
    /// Always `ltl`.
    pub track: &'static str,
    /// One verdict per property, in file order.
    pub verdicts: Vec<LtlVerdict>,
    /// Program states discovered.
    pub states: u64,
    /// States of the trace quotient the properties were checked on (equal
    /// to `states` with `--no-quotient`).
    pub quotient_states: u64,
    /// Time to compute the quotient, seconds.
    pub quotient_seconds: f64,
    /// Whether the whole state space was explored without a fault.
    pub complete: bool,
    /// Why the exploration stopped early, if it did.
    pub stopped: Option<StopReason>,
    /// Engine faults, first few.
    pub faults: Vec<String>,
    /// Exploration time, seconds.
    pub explore_seconds: f64,
    /// Time to check every property, seconds.
    pub check_seconds: f64,
    /// Product states visited, all properties together.
    pub product_states: u64,
    /// Peak resident memory in bytes.
    pub peak_memory: Option<u64>,
    /// What the interval abstraction did (see [`crate::absint`]).
    pub abstraction: AbstractionReport,
    /// Seconds the independent check of the abstraction's certificate
    /// took, when it was accepted.
    pub certificate_seconds: Option<f64>,
    /// Why the abstraction's certificate was not accepted, if so.
    pub certificate_note: Option<String>,
    /// Seconds the second, independent reading of the program took to
    /// accept the certificate (C and Java programs).
    pub second_reading_seconds: Option<f64>,
    /// The abstraction's certificate of the properties it proved, when
    /// asked for ([`LtlOptions::keep_certificate`]).
    #[serde(skip)]
    pub certificate: Option<Certificate>,
    /// The run's progress over time (states, depth), for plots.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub progress: Vec<ProgressPoint>,
    /// What else happened (the native confirmation of counterexamples).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// What the interval abstraction contributed to an LTL run.
#[derive(Clone, Debug, Default, Serialize)]
pub struct AbstractionReport {
    /// Whether it was tried (programs with arithmetic only).
    pub tried: bool,
    /// Abstract states of the fixpoint, when it was reached.
    pub states: Option<u64>,
    /// Numeric (interval) slots.
    pub numeric_slots: usize,
    /// Properties it answered `true` / `false`.
    pub answered_true: usize,
    /// Properties it answered `false` (abstract lassos that replayed).
    pub answered_false: usize,
    /// Why it answered nothing, if so.
    pub note: Option<String>,
    /// Time spent, seconds.
    pub seconds: f64,
}

/// What the abstraction gave: a verdict per property where it has one,
/// what it did, and the certificate of the properties it proved.
type AbstractionOutcome = (
    Vec<Option<LtlVerdict>>,
    AbstractionReport,
    Option<Certificate>,
);

/// Runs the interval abstraction and checks every property on it.
fn abstraction(
    p: &Program,
    m: &Machine,
    props: &PropertyFile,
    invalid_continues: bool,
    budget: &Budget,
    threads: usize,
) -> AbstractionOutcome {
    let start = Instant::now();
    let mut report = AbstractionReport {
        tried: true,
        ..AbstractionReport::default()
    };
    let none = vec![None; props.properties.len()];
    let limits = Budget {
        max_states: Some(crate::absint::explore::RUN_MAX_STATES as u64),
        ..budget.clone()
    };
    // Every property is checked on each round; rounds go on while some
    // property is neither proved nor refuted by a lasso that replays.
    let judge = |g: &crate::absint::AbsGraph| {
        let verdicts = par_map(props.properties.len(), threads, |k| {
            let prop = &props.properties[k];
            let f = prop.formula.as_ref().ok()?;
            let v = check_formula_abstract(m, g, invalid_continues, budget, k, &prop.text, f);
            Some(v)
        });
        let open = (verdicts.iter().flatten())
            .filter(|v| v.verdict.is_none())
            .count();
        (open, verdicts)
    };
    let (g, verdicts) = match crate::absint::explore_abstract_best(p, m, &limits, threads, judge) {
        Ok(kept) => kept,
        Err(why) => {
            report.note = Some(why.to_string());
            report.seconds = start.elapsed().as_secs_f64();
            return (none, report, None);
        }
    };
    report.states = Some(g.n_states() as u64);
    report.numeric_slots = g.numeric_slots;
    report.answered_true = verdicts
        .iter()
        .flatten()
        .filter(|v| v.verdict == Some(true))
        .count();
    report.answered_false = verdicts
        .iter()
        .flatten()
        .filter(|v| v.verdict == Some(false))
        .count();
    let holds: Vec<String> = (verdicts.iter().zip(&props.properties))
        .filter(|(v, _)| v.as_ref().is_some_and(|v| v.verdict == Some(true)))
        .map(|(_, prop)| prop.text.clone())
        .collect();
    let cert =
        (!holds.is_empty()).then(|| crate::absint::certify::certificate(p, m, &g, &[], &holds));
    report.seconds = start.elapsed().as_secs_f64();
    (verdicts, report, cert)
}

/// What the checker said of a certificate of LTL claims: of the invariant,
/// then of each claim.
type ClaimsChecked = Result<(Checked, Vec<Result<(), CheckError>>), CheckError>;

/// Marks the properties the abstraction proved as certified, or, where
/// their claim (or the whole certificate) was not accepted, takes them
/// back.
fn apply_certification(
    r: &mut LtlReport,
    cert: Option<&Certificate>,
    check: Option<ClaimsChecked>,
    certify: bool,
) {
    let proved = |v: &LtlVerdict| v.verdict == Some(true) && v.certified == Some(false);
    // Each claim of the certificate with its check's outcome.
    let claims: Vec<(&String, Result<(), CheckError>)> = match (cert, check) {
        (Some(cert), Some(Ok((c, claims)))) => {
            r.certificate_seconds = Some(c.seconds);
            let (seconds, note) = super::certify::second_reading_outcome(
                &c.second_reading,
                "the properties the abstraction claims",
            );
            r.second_reading_seconds = seconds;
            r.notes.extend(note);
            cert.holds.iter().zip(claims).collect()
        }
        (Some(cert), Some(Err(e))) => {
            r.certificate_note = Some(e.to_string());
            cert.holds.iter().map(|f| (f, Err(e.clone()))).collect()
        }
        _ => Vec::new(),
    };
    for v in r.verdicts.iter_mut().filter(|v| proved(v)) {
        let outcome = claims.iter().find(|(f, _)| **f == v.formula);
        // Fail closed: a proof whose check did not accept it, or that no
        // check looked at, is withdrawn (kept, uncertified, only where
        // certification is off).
        let why = match outcome {
            Some((_, Ok(()))) => {
                v.certified = Some(true);
                continue;
            }
            Some((_, Err(e))) => format!("the abstraction's certificate was not accepted ({e})"),
            None => "no check of the abstraction's certificate decided it".to_string(),
        };
        if certify {
            v.verdict = None;
            v.note = Some(why);
        }
    }
}

/// Share of the time and memory limits the exploration may use; the
/// quotient and the checks get the rest.
const EXPLORE_SHARE: f64 = 0.6;

/// What an LTL run should do besides the exploration.
#[derive(Clone, Default)]
pub struct LtlOptions {
    /// Threads checking properties in parallel (default: all cores).
    pub threads: Option<usize>,
    /// Check the trace quotient of the explored graph (smaller) rather than
    /// the graph itself.
    pub quotient: bool,
    /// Try the interval abstraction first (programs with arithmetic).
    pub abstraction: bool,
    /// Told how the exploration goes.
    pub observer: Option<Observer>,
    /// Answer "holds" from the abstraction only once its certificate
    /// passed the independent check ([`crate::check::certify::check_all`]).
    pub certify: bool,
    /// Put the abstraction's certificate in the report.
    pub keep_certificate: bool,
    /// Told of each property's verdict the moment it is final (one the
    /// exploration settled and the abstraction has no say on), before the
    /// run ends.
    pub on_verdict: Option<LtlSink>,
}

impl LtlOptions {
    /// Threads checking properties: [`LtlOptions::threads`], or every core.
    fn checking_threads(&self) -> usize {
        self.threads.unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1)
        })
    }
}

/// Receives an LTL verdict as soon as it is final (see
/// [`LtlOptions::on_verdict`]).
pub type LtlSink = std::sync::Arc<dyn Fn(&LtlVerdict) + Send + Sync>;

/// LTL properties of the program or model at `program`: the `rigor ltl`
/// pipeline. The budget bounds the whole run: properties still unchecked
/// when it runs out are unknown.
pub fn solve(
    program: &str,
    properties: &str,
    budget: &Budget,
    opts: &LtlOptions,
) -> Result<LtlReport, InputError> {
    // Every search of the run reports to the recorder, for plots.
    let recorder = Recorder::start();
    let opts = LtlOptions {
        observer: Some(recorder.observer(opts.observer.clone())),
        ..opts.clone()
    };
    let mut r = solve_recorded(program, properties, budget, &opts)?;
    r.progress = recorder.finish(ProgressPoint {
        seconds: recorder.elapsed(),
        states: r.states,
        depth: 0,
        settled: r.verdicts.iter().filter(|v| v.verdict.is_some()).count(),
    });
    Ok(r)
}

/// [`solve`], its samples going to `opts.observer`.
fn solve_recorded(
    program: &str,
    properties: &str,
    budget: &Budget,
    opts: &LtlOptions,
) -> Result<LtlReport, InputError> {
    let props = read_properties(properties)?;
    let threads = opts.checking_threads();
    if let Some(g) = crate::lts::load_model_graph(program) {
        let g = g?;
        let base = LtlReport::new(program, properties, AbstractionReport::default());
        let c = Checking {
            sys: &g,
            props: &props,
            invalid_continues: false,
            budget,
            opts,
            threads,
        };
        return Ok(explore_and_check(&c, base, None));
    }
    let p = crate::frontend::load(program)?;
    let m = Machine::compile(&p)?;
    let invalid_continues = crate::ltl::check::invalid_continues(p.step_return);
    // Programs with arithmetic: the interval abstraction first, with part of
    // the budget. What it proves needs no exploration.
    let mut abs_report = AbstractionReport::default();
    let mut abs_verdicts = vec![None; props.properties.len()];
    let mut cert = None;
    if opts.abstraction {
        let share = budget.share(crate::absint::explore::SHARE_OF_TIMEOUT);
        (abs_verdicts, abs_report, cert) =
            abstraction(&p, &m, &props, invalid_continues, &share, threads);
    }
    let all_answered = !abs_verdicts.is_empty()
        && (abs_verdicts.iter()).all(|v| v.as_ref().is_some_and(|v| v.verdict.is_some()));
    // The independent check of the certificate runs beside the
    // exploration, until the run's deadline.
    let check_deadline = super::certify::check_deadline(budget);
    // Its second reading (C and Java) gets a share of the time
    // (`second_reading_deadline`); a rejection withdraws every claim.
    let checker = (cert.as_ref()).filter(|_| opts.certify).map(|c| {
        let (p, c, path) = (p.clone(), c.clone(), program.to_string());
        PendingCheck::start(move || {
            let start = std::time::Instant::now();
            let (checked, claims) =
                super::certify::check_claims(&p, &c, invalid_continues, check_deadline)?;
            let second = super::certify::second_reading_deadline(start.elapsed(), check_deadline);
            let required = crate::crosscheck::Initiation::Required;
            let checked =
                super::certify::second_reading(&path, &c, checked, required, second, false)?;
            Ok((checked, claims))
        })
    });
    // The exploration steps back for the check while it runs
    // (`runtime::priority`).
    let run = || {
        if all_answered {
            let mut r = LtlReport::new(program, properties, abs_report);
            r.verdicts = abs_verdicts.into_iter().flatten().collect();
            r.product_states = r.verdicts.iter().map(|v| v.product_states).sum();
            r.check_seconds = r.abstraction.seconds;
            r
        } else {
            let base = LtlReport::new(program, properties, abs_report);
            let abs = opts.abstraction.then_some(abs_verdicts);
            let c = Checking {
                sys: &m,
                props: &props,
                invalid_continues,
                budget,
                opts,
                threads,
            };
            explore_and_check(&c, base, abs)
        }
    };
    let mut r = if checker.is_some() {
        crate::runtime::priority::deferred(run)
    } else {
        run()
    };
    let check = checker.map(|c| c.wait(budget));
    apply_certification(&mut r, cert.as_ref(), check, opts.certify);
    r.peak_memory = crate::runtime::peak_resident_bytes();
    if opts.keep_certificate {
        r.certificate = cert;
    }
    Ok(r)
}

/// The part of `budget` the exploration may use ([`EXPLORE_SHARE`] of its
/// time and memory), so that a run cut short still has time and memory
/// to find counterexamples in what it explored.
fn exploration_budget(budget: &Budget) -> Budget {
    Budget {
        memory_limit: budget
            .memory_limit
            .map(|b| (b as f64 * EXPLORE_SHARE) as u64),
        ..budget.share(EXPLORE_SHARE)
    }
}

/// Explores the system (with [`exploration_budget`]), checking the open
/// properties on the graph found so far as it grows, then checks every
/// property on the whole ([`check_explored`]).
fn explore_and_check<S: System + Sync>(
    c: &Checking<S>,
    r: LtlReport,
    abs_verdicts: Option<Vec<Option<LtlVerdict>>>,
) -> LtlReport {
    let Checking {
        sys,
        props,
        invalid_continues,
        budget,
        opts,
        threads,
    } = *c;
    let explore_opts = Options {
        keep_graph: true,
        observer: opts.observer.clone(),
        ..Options::default()
    };
    let explore_budget = exploration_budget(budget);
    let abs_said = abstraction_said(props, abs_verdicts.as_ref());
    let teller = Teller::new(opts.on_verdict.as_ref(), abs_said.clone());
    let tell = |v: &LtlVerdict| teller.tell(v);
    let open: Vec<usize> = (0..props.properties.len())
        .filter(|&k| props.properties[k].formula.is_ok() && !abs_said[k])
        .collect();
    let mut checkpoint = refuting(sys, props, invalid_continues, budget, threads, &open, &tell);
    let ex = explore_checkpointed(sys, &explore_budget, &explore_opts, &mut checkpoint);
    drop(checkpoint);
    check_explored(c, r, abs_verdicts, ex, &tell)
}

/// Per property, whether the abstraction has a verdict for it.
fn abstraction_said(
    props: &PropertyFile,
    abs_verdicts: Option<&Vec<Option<LtlVerdict>>>,
) -> Vec<bool> {
    (0..props.properties.len())
        .map(|k| {
            (abs_verdicts.and_then(|a| a.get(k)))
                .is_some_and(|a| a.as_ref().is_some_and(|a| a.verdict.is_some()))
        })
        .collect()
}

/// Tells the sink of [`LtlOptions::on_verdict`] each verdict once, as soon
/// as it is final: unless the abstraction has a verdict of its own for
/// that property (they are merged at the end).
struct Teller<'a> {
    sink: Option<&'a LtlSink>,
    abs_said: Vec<bool>,
    told: Mutex<Vec<bool>>,
}

impl<'a> Teller<'a> {
    fn new(sink: Option<&'a LtlSink>, abs_said: Vec<bool>) -> Self {
        let told = Mutex::new(vec![false; abs_said.len()]);
        Teller {
            sink,
            abs_said,
            told,
        }
    }

    fn tell(&self, v: &LtlVerdict) {
        let mut told = self.told.lock().unwrap_or_else(|e| e.into_inner());
        let Some(seen) = told.get_mut(v.property) else {
            return;
        };
        let first = !std::mem::replace(seen, true);
        drop(told);
        if let (Some(sink), Some(_), false, true) =
            (self.sink, v.verdict, self.abs_said[v.property], first)
        {
            sink(v);
        }
    }
}

/// What the checks of an explored graph read: the system, the properties
/// and the run's settings.
struct Checking<'a, S> {
    sys: &'a S,
    props: &'a PropertyFile,
    invalid_continues: bool,
    budget: &'a Budget,
    opts: &'a LtlOptions,
    threads: usize,
}

/// Reduces the explored graph of `ex` to its trace quotient and checks
/// every property on it; the abstraction's verdicts, where given, are
/// merged in.
fn check_explored<S: System + Sync>(
    c: &Checking<S>,
    mut r: LtlReport,
    abs_verdicts: Option<Vec<Option<LtlVerdict>>>,
    mut ex: crate::explore::Exploration,
    tell: &(dyn Fn(&LtlVerdict) + Sync),
) -> LtlReport {
    let Checking {
        sys,
        props,
        invalid_continues,
        budget,
        opts,
        threads,
    } = *c;
    let complete = ex.is_complete();
    let q_start = Instant::now();
    // The store and parent links are not needed any more: free them before
    // the quotient and the products allocate.
    ex.drop_states();
    // The quotient is an optimisation: if the budget runs out while it is
    // built, the properties are checked on the explored graph itself.
    // Only for a complete graph: on a partial one only counterexamples can
    // come out, and the products find them as fast on the graph itself.
    let quotient_graph = if opts.quotient && complete {
        trace_quotient(&ex.graph, invalid_continues, budget).map(|q| q.graph)
    } else {
        None
    };
    let mut graphs = Vec::new();
    graphs.extend(quotient_graph.as_ref());
    graphs.push(&ex.graph);
    r.quotient_seconds = q_start.elapsed().as_secs_f64();
    let start = Instant::now();
    // An interrupt during the exploration still leaves its graph to find
    // counterexamples in, as a limit does (a second interrupt ends the run
    // at once).
    let subject = Subject {
        system: sys,
        invalid_continues,
        graphs,
        complete,
        budget: budget.after_cancel(crate::runtime::INTERRUPT_GRACE),
    };
    let verdicts = check_all(&subject, props, &r.properties, threads, tell);
    r.verdicts = match abs_verdicts {
        Some(abs) => merge(abs, verdicts),
        None => verdicts,
    };
    r.product_states = r.verdicts.iter().map(|v| v.product_states).sum();
    r.states = ex.graph.n_states as u64;
    r.quotient_states = subject.graphs[0].n_states as u64;
    r.complete = complete;
    // Stopping because every open property is refuted is no early stop.
    r.stopped = ex.stopped.filter(|&s| s != StopReason::AllErrorsFound);
    r.faults = (ex.faults.iter().take(5))
        .map(|f| {
            format!(
                "state {} input {}: {}",
                f.state,
                sys.inputs()[f.input],
                f.fault
            )
        })
        .collect();
    r.explore_seconds = ex.elapsed.as_secs_f64();
    r.check_seconds = start.elapsed().as_secs_f64();
    r.peak_memory = crate::runtime::peak_resident_bytes();
    r
}

/// The checkpoint of an LTL exploration: the `open` properties are
/// checked on the graph explored so far, and once each has a
/// counterexample (told at once) the exploration can stop. The checks take
/// at most a tenth of the time since the exploration started (each
/// checkpoint gets what is left of it, and a search cut short is tried
/// again on the next, larger part): a property that holds is searched to
/// its end on every part it is checked on.
fn refuting<'a, S: System + Sync>(
    sys: &'a S,
    props: &'a PropertyFile,
    invalid_continues: bool,
    budget: &'a Budget,
    threads: usize,
    open: &'a [usize],
    tell: &'a (dyn Fn(&LtlVerdict) + Sync),
) -> impl FnMut(&StateGraph) -> bool + 'a {
    let start = Instant::now();
    let mut checking = Duration::ZERO;
    let mut refuted = vec![false; props.properties.len()];
    move |g: &StateGraph| {
        let Some(allowance) = (start.elapsed() / 10).checked_sub(checking) else {
            return false;
        };
        let t = Instant::now();
        let todo: Vec<usize> = open.iter().copied().filter(|&k| !refuted[k]).collect();
        let subject = Subject {
            system: sys,
            invalid_continues,
            graphs: vec![g],
            complete: false,
            budget: budget.clone().until(t + allowance),
        };
        let found = par_map(todo.len(), threads, |j| {
            let (k, p) = (todo[j], &props.properties[todo[j]]);
            let v = check_formula(&subject, k, &p.text, p.formula.as_ref().ok()?);
            if v.verdict != Some(false) {
                return None;
            }
            tell(&v);
            Some(k)
        });
        for k in found.into_iter().flatten() {
            refuted[k] = true;
        }
        checking += t.elapsed();
        open.iter().all(|&k| refuted[k])
    }
}

/// The abstraction's verdicts where it has one, the exploration's
/// elsewhere. Both are proved; if they ever disagree, something is wrong
/// in rigor, and the property is unknown.
fn merge(abs: Vec<Option<LtlVerdict>>, explicit: Vec<LtlVerdict>) -> Vec<LtlVerdict> {
    explicit
        .into_iter()
        .zip(abs)
        .map(|(e, a)| match a {
            None => e,
            Some(a) if a.verdict.is_none() => LtlVerdict {
                note: Some(format!(
                    "{}; abstraction: {}",
                    e.note.as_deref().unwrap_or("explored"),
                    a.note.as_deref().unwrap_or("no verdict")
                )),
                ..e
            },
            Some(a) if e.verdict.is_none() => a,
            Some(a) if e.verdict == a.verdict => e,
            Some(a) => {
                let note = format!(
                    "internal: the abstraction answers {:?} but the exploration {:?}; answering unknown",
                    a.verdict, e.verdict
                );
                LtlVerdict {
                    verdict: None,
                    counterexample: None,
                    note: Some(note),
                    engine: None,
                    ..e
                }
            }
        })
        .collect()
}

impl LtlReport {
    /// A report with no verdict yet.
    fn new(program: &str, properties: &str, abstraction: AbstractionReport) -> LtlReport {
        LtlReport {
            program: program.to_string(),
            properties: properties.to_string(),
            problem: crate::answers::naming::problem_name(program),
            track: "ltl",
            verdicts: Vec::new(),
            states: 0,
            quotient_states: 0,
            quotient_seconds: 0.0,
            complete: false,
            stopped: None,
            faults: Vec::new(),
            explore_seconds: 0.0,
            check_seconds: 0.0,
            product_states: 0,
            peak_memory: None,
            abstraction,
            certificate_seconds: None,
            certificate_note: None,
            second_reading_seconds: None,
            certificate: None,
            progress: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// The RERS CSV lines of the report (unknown properties left out).
    pub fn csv(&self) -> String {
        let rows = (self.verdicts.iter())
            .filter_map(|v| Some((self.problem.as_str(), Track::Ltl, v.property, v.verdict?)));
        answer_csv(rows, false)
    }

    /// The witness file text: one `property,lasso` line per violated
    /// property.
    pub fn witnesses(&self) -> String {
        (self.verdicts.iter())
            .filter_map(|v| Some(witness_line(v.property, v.counterexample.as_deref()?)))
            .collect()
    }
}
