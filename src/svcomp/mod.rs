//! SV-COMP: verification tasks in, verdicts and witnesses out.
//!
//! - [`task`]: task-definition files (format 2.0);
//! - [`property`]: property files (`unreach-call`, `G ! call(f())`);
//! - [`witness`]: GraphML violation and correctness witnesses.
//!
//! [`check_property`] decides one property of one program with the
//! `rigor reach` pipeline: the program is lowered with `f`'s calls as its
//! only error label ([`ErrorCalls::Only`], so every other function does
//! what its body says), `exit`/`abort` end the run, and `main` must be the
//! plain input loop (checked by the front end). `FALSE` comes with a
//! witness that has replayed on the engine, `TRUE` from a complete
//! exploration or a certified proof, as every rigor answer. The expected
//! verdicts of a task file are carried into the report and nowhere else.

pub mod property;
pub mod task;
pub mod witness;

mod agree;

use std::path::Path;

use serde::Serialize;

use crate::check::reach::{solve_program, ReachOptions, ReachReport};
use crate::check::InputError;
use crate::engine::Machine;
use crate::explore::Observer;
use crate::frontend::c::{parse_c_with, ErrorCalls};
use crate::frontend::FrontendError;
use crate::ir::Program;
use crate::runtime::Budget;
use crate::source::{read_text, Diagnostic, ReadError};
use crate::system::{replay, Outcome};
use property::{Property, PropertyFile};
use task::Task;
use witness::WitnessContext;

/// Why a task, a property or a witness cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum SvcompError {
    /// A file that cannot be read.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// A task file that does not follow the format.
    #[error("{0}")]
    Task(Diagnostic),
    /// A property file that does not follow the format.
    #[error("{0}")]
    Property(Diagnostic),
    /// A witness that cannot be read.
    #[error("{0}")]
    Witness(Diagnostic),
    /// The program.
    #[error(transparent)]
    Frontend(#[from] FrontendError),
    /// The program, for the pipeline.
    #[error(transparent)]
    Input(#[from] InputError),
}

/// An SV-COMP verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// The property holds.
    True,
    /// The property is violated.
    False,
    /// Not decided.
    Unknown,
}

/// The answer to one property of one program.
#[derive(Clone, Debug, Serialize)]
pub struct PropertyResult {
    /// The property file.
    pub property_file: String,
    /// The property's SV-COMP name (`unreach-call`).
    pub property: String,
    /// The verdict.
    pub verdict: Verdict,
    /// The answer as SV-COMP prints it: `TRUE`, `FALSE(unreach-call)`,
    /// `UNKNOWN`.
    pub answer: String,
    /// The task's expected verdict (reports only).
    pub expected: Option<bool>,
    /// How the verdict was reached, or why there is none.
    pub reason: String,
    /// For `FALSE`: the values `__VERIFIER_nondet_int()` returns on the
    /// violating run, in order.
    pub witness_values: Option<Vec<i32>>,
    /// Seconds spent on this property.
    pub seconds: f64,
    /// Concrete states explored.
    pub states: u64,
    /// For `FALSE`: the error label (numbered as `rigor reach` numbers it)
    /// whose call the witness reaches.
    pub label: Option<u32>,
    /// The GraphML witness, when asked for.
    #[serde(skip)]
    pub witness: Option<String>,
}

impl PropertyResult {
    fn new(file: &str, property: &str, verdict: Verdict, reason: String) -> PropertyResult {
        let answer = match verdict {
            Verdict::True => "TRUE".to_string(),
            Verdict::False => format!("FALSE({property})"),
            Verdict::Unknown => "UNKNOWN".to_string(),
        };
        PropertyResult {
            property_file: file.to_string(),
            property: property.to_string(),
            verdict,
            answer,
            expected: None,
            reason,
            witness_values: None,
            seconds: 0.0,
            states: 0,
            label: None,
            witness: None,
        }
    }

    /// Whether the verdict is the expected one (`None`: no verdict or no
    /// expectation).
    pub fn matches_expected(&self) -> Option<bool> {
        let got = match self.verdict {
            Verdict::True => true,
            Verdict::False => false,
            Verdict::Unknown => return None,
        };
        self.expected.map(|e| e == got)
    }
}

/// The answers to a task's properties.
#[derive(Clone, Debug, Serialize)]
pub struct TaskReport {
    /// The task file, if the run started from one.
    pub task: Option<String>,
    /// The program.
    pub program: String,
    /// One result per property, in the task's order.
    pub results: Vec<PropertyResult>,
}

/// How properties are checked.
#[derive(Clone, Default)]
pub struct SvcompOptions {
    /// Skip the interval abstraction (search the concrete states only).
    pub no_abstraction: bool,
    /// Answer from the abstraction without checking its certificate.
    pub no_certify: bool,
    /// Write GraphML witnesses into the results.
    pub witnesses: bool,
    /// The task's data model (`ILP32`, `LP64`), for the witnesses.
    pub data_model: Option<String>,
    /// Progress of the explorations.
    pub observer: Option<Observer>,
    /// Threads of the breadth-first search (None: all cores).
    pub threads: Option<usize>,
}

/// Checks every property of `task`, each with an equal share of the time
/// left; `tell` hears each result as it is settled.
pub fn check_task(
    task: &Task,
    budget: &Budget,
    opts: &SvcompOptions,
    tell: &mut dyn FnMut(&PropertyResult),
) -> Result<TaskReport, SvcompError> {
    let program = match task.input_files.as_slice() {
        [one] => one.clone(),
        _ => {
            return Err(SvcompError::Task(Diagnostic::file(
                &task.path,
                format!(
                    "{} input files; rigor checks tasks of one program",
                    task.input_files.len()
                ),
            )))
        }
    };
    let opts = SvcompOptions {
        data_model: task.data_model.clone().or(opts.data_model.clone()),
        ..opts.clone()
    };
    let mut results = Vec::new();
    for (k, p) in task.properties.iter().enumerate() {
        let mut r = if task.language != "C" {
            let why = format!(
                "the task's language is {}; rigor checks C tasks",
                task.language
            );
            PropertyResult::new(&p.property_file, "unknown", Verdict::Unknown, why)
        } else {
            match property::read_property(&p.property_file) {
                Ok(prop) => {
                    let share = budget.share(1.0 / (task.properties.len() - k) as f64);
                    check_property(&program, &prop, &share, &opts)?
                }
                Err(e) => {
                    let why = format!("the property file cannot be used: {e}");
                    PropertyResult::new(&p.property_file, "unknown", Verdict::Unknown, why)
                }
            }
        };
        r.expected = p.expected_verdict;
        tell(&r);
        results.push(r);
        if budget.cancel.as_ref().is_some_and(|c| c.is_cancelled()) {
            break;
        }
    }
    Ok(TaskReport {
        task: Some(task.path.clone()),
        program,
        results,
    })
}

/// Decides the property `prop` of the C program at `program`.
pub fn check_property(
    program: &str,
    prop: &PropertyFile,
    budget: &Budget,
    opts: &SvcompOptions,
) -> Result<PropertyResult, SvcompError> {
    let started = std::time::Instant::now();
    let name = prop.property.name();
    let Property::UnreachCall { function } = &prop.property else {
        let why = format!("rigor does not decide {name}");
        return Ok(PropertyResult::new(&prop.path, name, Verdict::Unknown, why));
    };
    let text = read_text(program)?;
    let p = parse_c_with(program, &text, &ErrorCalls::Only(function.clone()))?;
    let cx = WitnessContext {
        program_file: program,
        program_text: &text,
        specification: &prop.specification,
        architecture: match opts.data_model.as_deref() {
            Some("LP64") => "64bit",
            _ => "32bit",
        },
    };
    let loop_line = witness::main_loop_line(&text);
    let mut r = if p.error_labels.is_empty() {
        let mut r = PropertyResult::new(
            &prop.path,
            name,
            Verdict::True,
            format!("no step of the program calls {function}"),
        );
        if opts.witnesses {
            r.witness = Some(witness::correctness_witness(&cx, loop_line, None));
        }
        r
    } else {
        let reach = ReachOptions {
            abstraction: !opts.no_abstraction,
            seed_log: None,
            observer: opts.observer.clone(),
            certify: !opts.no_certify,
            keep_certificate: opts.witnesses,
            on_verdict: None,
            threads: opts.threads,
            // The worker reads the file the RERS way, not SV-COMP's.
            invariant_worker: None,
        };
        let report = solve_program(p.clone(), program, budget, &reach)?;
        let mut r = verdict_of(&p, &report, &prop.path, function)?;
        r.states = report.states;
        if r.verdict == Verdict::False {
            r = agree::with_rers(program, &text, &p, r, budget, &reach)?;
        }
        if opts.witnesses {
            r.witness = match (&r.witness_values, r.verdict) {
                (Some(v), _) => Some(witness::violation_witness(
                    &cx,
                    witness::nondet_call_line(&text),
                    v,
                )),
                (None, Verdict::True) => {
                    // The regions are an invariant only where the checker
                    // has accepted them.
                    let accepted = report.verdicts.iter().all(|v| v.certified == Some(true));
                    let invariant = (report.certificate.as_ref())
                        .filter(|_| accepted)
                        .and_then(invariant_of);
                    Some(witness::correctness_witness(
                        &cx,
                        loop_line,
                        invariant.as_deref(),
                    ))
                }
                _ => None,
            };
        }
        r
    };
    r.seconds = started.elapsed().as_secs_f64();
    Ok(r)
}

/// The SV-COMP verdict of a reachability report on the program lowered
/// with the target as its only error label.
fn verdict_of(
    p: &Program,
    report: &ReachReport,
    file: &str,
    function: &str,
) -> Result<PropertyResult, SvcompError> {
    let reached = (report.verdicts.iter())
        .filter(|v| v.verdict == Some(true))
        .filter_map(|v| v.witness.as_ref().map(|w| (v.property, w)))
        .min_by_key(|(_, w)| w.len());
    if let Some((label, w)) = reached {
        let values = values_of(p, w);
        // The witness is replayed once more, from the values it will carry.
        if let Some(values) = values.filter(|v| confirms(p, v)) {
            let how = format!(
                "a run of {} inputs calls {function} (replayed)",
                values.len()
            );
            let mut r = PropertyResult::new(file, "unreach-call", Verdict::False, how);
            r.witness_values = Some(values);
            r.label = Some(label);
            return Ok(r);
        }
    }
    if !report.verdicts.is_empty() && report.verdicts.iter().all(|v| v.verdict == Some(false)) {
        let how = if report.complete {
            "a complete exploration never calls it".to_string()
        } else {
            "the abstraction's certificate proves it is never called".to_string()
        };
        return Ok(PropertyResult::new(
            file,
            "unreach-call",
            Verdict::True,
            format!("{function}: {how}"),
        ));
    }
    let why = match &report.stopped {
        Some(s) => format!("stopped before deciding: {s:?}"),
        None => report
            .notes
            .first()
            .cloned()
            .unwrap_or_else(|| "not decided".into()),
    };
    Ok(PropertyResult::new(
        file,
        "unreach-call",
        Verdict::Unknown,
        why,
    ))
}

/// Whether feeding `values` to the program `p` ends at its error label.
pub fn confirms(p: &Program, values: &[i32]) -> bool {
    error_reached(p, values).is_some_and(|n| p.error_labels.contains(&n))
}

/// The error label the run of `values` on `p` ends at (with no error
/// before), if it ends at one.
pub(crate) fn error_reached(p: &Program, values: &[i32]) -> Option<u32> {
    let m = Machine::compile(p).ok()?;
    let inputs: Option<Vec<usize>> = (values.iter())
        .map(|v| p.inputs.iter().position(|s| s.value == *v))
        .collect();
    match replay(&m, &inputs?) {
        Ok(Outcome::Error(n)) => Some(n),
        _ => None,
    }
}

/// The values of the input symbols named `names` in `p`.
pub(crate) fn values_of(p: &Program, names: &[String]) -> Option<Vec<i32>> {
    (names.iter())
        .map(|n| p.inputs.iter().find(|s| &s.name == n).map(|s| s.value))
        .collect()
}

/// Replays the violation witness at `witness_path` on `program` for the
/// property `prop`: whether its values drive the program to the target.
pub fn replay_witness(
    program: &str,
    prop: &PropertyFile,
    witness_path: &str,
) -> Result<bool, SvcompError> {
    let Property::UnreachCall { function } = &prop.property else {
        return Ok(false);
    };
    let values = witness::read_violation(witness_path, &read_text(witness_path)?)?;
    let p = parse_c_with(
        program,
        &read_text(program)?,
        &ErrorCalls::Only(function.clone()),
    )?;
    Ok(confirms(&p, &values))
}

/// The invariant of a certificate as a C expression over the globals: the
/// union of its regions. `None` where a region bounds something a C
/// expression of the witness format cannot name (a pointer's targets).
pub fn invariant_of(c: &crate::certificate::Certificate) -> Option<String> {
    use crate::certificate::Bound;
    let mut regions = Vec::new();
    for r in &c.regions {
        let mut parts = Vec::new();
        for b in &r.bounds {
            match b {
                Bound::Range(v, lo, hi) if lo == hi => parts.push(format!("{v} == {lo}")),
                Bound::Range(v, lo, hi) => {
                    if *lo > i32::MIN as i64 {
                        parts.push(format!("{v} >= {lo}"));
                    }
                    if *hi < i32::MAX as i64 {
                        parts.push(format!("{v} <= {hi}"));
                    }
                }
                Bound::PointsTo(..) => return None,
            }
        }
        if parts.is_empty() {
            return None;
        }
        regions.push(format!("({})", parts.join(" && ")));
    }
    (!regions.is_empty()).then(|| regions.join(" || "))
}

/// Where the witness of one of `count` properties goes, given `base`: `base`
/// itself for one property, else `base` with the property file's stem
/// before its extension (`w.graphml` → `w.unreach-call-4.graphml`).
pub fn witness_path(base: &str, property_file: &str, count: usize) -> String {
    if count <= 1 {
        return base.to_string();
    }
    let stem = Path::new(property_file)
        .file_stem()
        .map(|s| s.to_string_lossy())
        .unwrap_or_default();
    let b = Path::new(base);
    let name = match (b.file_stem(), b.extension()) {
        (Some(s), Some(e)) => format!("{}.{stem}.{}", s.to_string_lossy(), e.to_string_lossy()),
        _ => format!("{base}.{stem}"),
    };
    b.with_file_name(name).to_string_lossy().into_owned()
}
