//! `rigor ltl PROGRAM PROPERTIES`: LTL properties of a RERS problem.

use std::io::Write;
use std::time::Instant;

use serde::Serialize;

use super::limits::LimitArgs;
use super::CliResult;
use crate::engine::Machine;
use crate::explore::{explore, Limits, Options, StopReason};
use crate::frontend;
use crate::ltl::check::{check_all, LtlVerdict, Subject};
use crate::ltl::emptiness::Budget;
use crate::ltl::syntax::read_properties;

/// Arguments of `rigor ltl`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The program (.c or .java).
    pub program: String,
    /// The property file (2012 `propertiesN.txt` or `constraints-*.txt`).
    pub properties: String,
    /// Write the counterexamples (`property,[..] ([..])*`) to this file.
    #[arg(long)]
    pub witness: Option<String>,
    /// Print a JSON report instead of the CSV.
    #[arg(long)]
    pub json: bool,
    /// Threads checking properties in parallel (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Check the explored graph itself, not its trace quotient (slower; for
    /// measurements and cross-checks).
    #[arg(long)]
    pub no_quotient: bool,
    /// Do not try the interval abstraction before the explicit exploration.
    #[arg(long)]
    pub no_abstraction: bool,
    #[command(flatten)]
    pub limits: LimitArgs,
}

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

/// Runs the interval abstraction and checks every property on it.
fn abstraction(
    p: &crate::ir::Program,
    m: &Machine,
    props: &crate::ltl::syntax::PropertyFile,
    invalid_continues: bool,
    budget: &Budget,
    threads: usize,
) -> (Vec<Option<LtlVerdict>>, AbstractionReport) {
    let start = Instant::now();
    let mut report = AbstractionReport {
        tried: true,
        ..AbstractionReport::default()
    };
    let none = vec![None; props.properties.len()];
    let limits = crate::absint::AbsLimits {
        max_states: Some(crate::absint::explore::RUN_MAX_STATES),
        deadline: budget.deadline,
        memory_limit: budget.memory_limit,
    };
    let g = match crate::absint::explore_abstract(p, m, &limits) {
        Ok(g) => g,
        Err(why) => {
            report.note = Some(why);
            report.seconds = start.elapsed().as_secs_f64();
            return (none, report);
        }
    };
    report.states = Some(g.n_states() as u64);
    report.numeric_slots = g.numeric_slots;
    let verdicts = crate::ltl::check::par_map(props.properties.len(), threads, |k| {
        let prop = &props.properties[k];
        let f = prop.formula.as_ref().ok()?;
        let v = crate::ltl::check::check_formula_abstract(
            m,
            &g,
            invalid_continues,
            budget,
            k,
            &prop.text,
            f,
        );
        Some(v)
    });
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
    report.seconds = start.elapsed().as_secs_f64();
    (verdicts, report)
}

/// Share of the time and memory limits the exploration may use; the
/// quotient and the checks get the rest.
const EXPLORE_SHARE: f64 = 0.6;

/// Loads, explores and checks. `--timeout` and `--memory-limit` bound the
/// whole run: properties still unchecked when they run out are unknown.
pub fn solve(
    program: &str,
    properties: &str,
    limits: &LimitArgs,
    threads: Option<usize>,
    quotient: bool,
    use_abstraction: bool,
) -> Result<LtlReport, crate::error::Error> {
    let run_start = Instant::now();
    let run_limits = limits.limits();
    let props = read_properties(properties)?;
    let p = frontend::load(program)?;
    let m = Machine::compile(&p)?;
    let threads = threads.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    let invalid_continues = crate::ltl::check::invalid_continues(p.step_return);
    // Programs with arithmetic: the interval abstraction first, with part of
    // the budget. What it proves needs no exploration.
    let mut abs_report = AbstractionReport::default();
    let mut abs_verdicts = vec![None; props.properties.len()];
    if use_abstraction && crate::absint::has_numeric_slots(&p, &m) {
        let budget = Budget {
            deadline: run_limits
                .timeout
                .map(|t| run_start + t.mul_f64(crate::absint::explore::SHARE_OF_TIMEOUT)),
            memory_limit: run_limits.memory_limit,
        };
        (abs_verdicts, abs_report) =
            abstraction(&p, &m, &props, invalid_continues, &budget, threads);
        if !abs_verdicts.is_empty()
            && abs_verdicts
                .iter()
                .all(|v| v.as_ref().is_some_and(|v| v.verdict.is_some()))
        {
            let verdicts: Vec<LtlVerdict> = abs_verdicts.into_iter().flatten().collect();
            return Ok(LtlReport {
                program: program.to_string(),
                properties: properties.to_string(),
                problem: crate::ir::problem_name(program),
                track: "ltl",
                product_states: verdicts.iter().map(|v| v.product_states).sum(),
                verdicts,
                states: 0,
                quotient_states: 0,
                quotient_seconds: 0.0,
                complete: false,
                stopped: None,
                faults: Vec::new(),
                explore_seconds: 0.0,
                check_seconds: abs_report.seconds,
                peak_memory: crate::explore::bfs::peak_resident_bytes(),
                abstraction: abs_report,
            });
        }
    }
    let opts = Options {
        keep_graph: true,
        progress: limits.progress(),
        ..Options::default()
    };
    // The exploration gets part of the budget, so that a run cut short still
    // has time and memory to find counterexamples in what it explored.
    let explore_limits = Limits {
        timeout: run_limits.timeout.map(|t| t.mul_f64(EXPLORE_SHARE)),
        memory_limit: run_limits
            .memory_limit
            .map(|b| (b as f64 * EXPLORE_SHARE) as u64),
        ..run_limits.clone()
    };
    let mut ex = explore(&m, &explore_limits, &opts);
    let complete = ex.is_complete();
    let states = ex.graph.n_states as u64;
    let q_start = Instant::now();
    // The store and parent links are not needed any more: free them before
    // the quotient and the products allocate.
    ex.store = crate::explore::store::StateStore::new(0);
    ex.parent = Vec::new();
    ex.parent_input = Vec::new();
    let budget = Budget {
        deadline: run_limits.timeout.map(|t| run_start + t),
        memory_limit: run_limits.memory_limit,
    };
    // The quotient is an optimisation: if the budget runs out while it is
    // built, the properties are checked on the explored graph itself.
    // Only for a complete graph: on a partial one only counterexamples can
    // come out, and the products find them as fast on the graph itself.
    let quotient_graph = if quotient && complete {
        crate::ltl::quotient::trace_quotient(&ex.graph, invalid_continues, &budget).map(|q| q.graph)
    } else {
        None
    };
    let mut graphs = Vec::new();
    graphs.extend(quotient_graph.as_ref());
    graphs.push(&ex.graph);
    let quotient_seconds = q_start.elapsed().as_secs_f64();
    let start = Instant::now();
    let subject = Subject {
        machine: &m,
        invalid_continues,
        graphs,
        complete,
        budget,
    };
    let verdicts = check_all(&subject, &props, properties, threads);
    let verdicts = merge(abs_verdicts, verdicts);
    Ok(LtlReport {
        program: program.to_string(),
        properties: properties.to_string(),
        problem: crate::ir::problem_name(program),
        track: "ltl",
        product_states: verdicts.iter().map(|v| v.product_states).sum(),
        verdicts,
        states,
        quotient_states: subject.graphs[0].n_states as u64,
        quotient_seconds,
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
        explore_seconds: ex.elapsed.as_secs_f64(),
        check_seconds: start.elapsed().as_secs_f64(),
        peak_memory: crate::explore::bfs::peak_resident_bytes(),
        abstraction: abs_report,
    })
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
            Some(a) if e.verdict.is_none() || e.verdict == a.verdict => a,
            Some(a) => {
                let note = format!(
                    "internal: the abstraction answers {:?} but the exploration {:?}",
                    a.verdict, e.verdict
                );
                eprintln!("rigor: property {}: {note}; answering unknown", e.property);
                LtlVerdict {
                    verdict: None,
                    counterexample: None,
                    note: Some(note),
                    ..e
                }
            }
        })
        .collect()
}

/// The RERS CSV lines of a report (unknown properties left out).
pub fn csv(r: &LtlReport) -> String {
    let mut s = String::new();
    for v in &r.verdicts {
        if let Some(b) = v.verdict {
            s.push_str(&format!("{},{},{}\n", r.problem, v.property, b));
        }
    }
    s
}

/// The witness file text: one `property,lasso` line per violated property.
pub fn witnesses(r: &LtlReport) -> String {
    let mut s = String::new();
    for v in &r.verdicts {
        if let Some(c) = &v.counterexample {
            s.push_str(&format!("{},{}\n", v.property, c));
        }
    }
    s
}

/// Runs `rigor ltl`.
pub fn run(args: &Args) -> CliResult {
    let r = solve(
        &args.program,
        &args.properties,
        &args.limits,
        args.threads,
        !args.no_quotient,
        !args.no_abstraction,
    )?;
    if let Some(path) = &args.witness {
        std::fs::write(path, witnesses(&r)).map_err(|e| format!("{path}: cannot write: {e}"))?;
    }
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&r)?)?;
    } else {
        write!(out, "{}", csv(&r))?;
    }
    for v in &r.verdicts {
        if v.verdict.is_none() {
            eprintln!(
                "rigor: property {} unknown: {}",
                v.property,
                v.note.as_deref().unwrap_or("")
            );
        }
    }
    if let Some(s) = &r.stopped {
        eprintln!("rigor: exploration stopped early: {s:?}");
    }
    for f in &r.faults {
        eprintln!("rigor: engine fault: {f}");
    }
    Ok(0)
}
