//! The independent checker: initiation, safety and consecution of a
//! certificate, on the SMT encoding of the step.
//!
//! Each region's safety and consecution are first tried, input by input,
//! on the region's box without a solver ([`super::boxed`]); the solver
//! decides what that leaves open.
//!
//! - Initiation: the initial state (the globals' initial values, read from
//!   the IR) lies in some region; evaluated directly.
//! - Safety, one query per region: no state of the region and no input
//!   symbol make the step end at a claimed label or in a fault.
//! - Consecution, one query per region: where the step goes on, the state
//!   after it lies in a region (the region's `next` first, then any). With
//!   LTL claims, in the target of one of the region's edges that reads the
//!   same input and output: the regions' graph then has every run of the
//!   program, and the claims are checked on it ([`super::cycle`]).

use std::time::{Duration, Instant};

use z3::SatResult;

use super::format::{Bound, Certificate, Congruence, EdgeStep, Var};
use crate::ir::{BinOp, GlobalId, GlobalKind, Program};
use crate::smt::frame::initial_values;
use crate::smt::{Cond, EncodeError, Span, SymbolicStep, Value};

/// One thing a certificate must show.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Obligation {
    /// The initial state lies in a region.
    Initiation,
    /// No step from the region ends at a claimed label or in a fault.
    Safety(usize),
    /// Every step from the region that goes on stays in the invariant.
    Consecution(usize),
    /// The LTL claim (by its place in the certificate) holds on the
    /// regions' graph.
    Property(usize),
}

impl std::fmt::Display for Obligation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Obligation::Initiation => write!(f, "initiation"),
            Obligation::Safety(r) => write!(f, "safety of region {r}"),
            Obligation::Consecution(r) => write!(f, "consecution of region {r}"),
            Obligation::Property(k) => write!(f, "LTL claim {k}"),
        }
    }
}

/// Why a certificate was not accepted.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CheckError {
    /// The step could not be encoded.
    #[error(transparent)]
    Encode(#[from] EncodeError),
    /// A variable the program does not have (or an element outside its array).
    #[error("the program has no variable `{0}`")]
    NoVariable(Var),
    /// A pointer bound names something that is not an array.
    #[error("`{0}` is not an array of the program")]
    NoArray(String),
    /// An edge names an input or output the program does not have.
    #[error("the program has no symbol `{0}`")]
    NoSymbol(String),
    /// An LTL claim that does not parse or translate.
    #[error("LTL claim `{text}`: {why}")]
    BadFormula {
        /// The claim.
        text: String,
        /// What is wrong with it.
        why: String,
    },
    /// An obligation fails: the certificate is wrong.
    #[error("{obligation} fails: {detail}")]
    Fails {
        /// Which.
        obligation: Obligation,
        /// What fails, in words.
        detail: String,
        /// A state and input that show it (none for initiation).
        counterexample: Option<Box<Counterexample>>,
    },
    /// The checker stopped before its verdict (a panic in the solver's
    /// binding, say).
    #[error("the checker stopped unexpectedly")]
    Stopped,
    /// The run was interrupted, and the check did not end within the grace
    /// it is given after an interrupt.
    #[error("the run was interrupted before the check ended")]
    Interrupted,
    /// The checker's second, independent reading of the program
    /// (`crate::crosscheck`) finds an obligation that fails.
    #[error("the second reading of the program rejects it: {0}")]
    SecondReadingRejects(String),
    /// The second reading could not read the program, or not decide an
    /// obligation.
    #[error("the second reading of the program did not decide: {0}")]
    SecondReadingUndecided(String),
    /// The solver gave no answer (time limit, resources).
    #[error("{obligation} undecided: {reason}")]
    Undecided {
        /// Which.
        obligation: Obligation,
        /// The solver's reason.
        reason: String,
    },
}

/// A state of a region and an input from which the step breaks an
/// obligation: the values of the program's variables (constants left
/// out) and the input symbol's name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Counterexample {
    /// Each variable (array elements one by one) and its value.
    pub state: Vec<(Var, i32)>,
    /// The input symbol.
    pub input: String,
}

impl std::fmt::Display for Counterexample {
    /// The first few values (all of them would be hundreds on the large
    /// problems) and the input.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        const SHOWN: usize = 8;
        for (i, (v, x)) in self.state.iter().take(SHOWN).enumerate() {
            write!(f, "{}{v} = {x}", if i > 0 { ", " } else { "" })?;
        }
        if self.state.len() > SHOWN {
            write!(f, ", … ({} values)", self.state.len())?;
        }
        write!(f, " with input {}", self.input)
    }
}

/// What the checker did for an accepted certificate.
#[derive(Clone, Debug, PartialEq)]
pub struct Checked {
    /// Obligations discharged.
    pub obligations: usize,
    /// Consecution queries that needed every region (the hint did not do).
    pub without_hint: usize,
    /// Seconds spent.
    pub seconds: f64,
    /// The regions the initial state lies in.
    pub initial: Vec<usize>,
    /// What the second, independent reading of the program said of the
    /// certificate (`crate::check::certify::second_reading`).
    pub second_reading: SecondReading,
}

/// The second, independent reading's verdict on a certificate the first
/// checker accepted (a rejection is a [`CheckError`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub enum SecondReading {
    /// It did not run (a program it does not read: Java).
    #[default]
    NotRun,
    /// It accepted the certificate too, in this many seconds.
    Accepted {
        /// Seconds taken.
        seconds: f64,
    },
    /// It could not decide (time, a construct it does not read).
    Undecided {
        /// Why.
        why: String,
    },
}

/// Checks `c` against the program `p`, giving up at `deadline`.
pub fn check(
    p: &Program,
    c: &Certificate,
    deadline: Option<Instant>,
) -> Result<Checked, CheckError> {
    check_from(p, c, deadline, true)
}

/// Checks that the union of `c`'s regions is closed under the step and
/// safe for its claims, without asking that the initial state lie in it:
/// the regions then cover only what some other proof (an exploration)
/// says the program's runs enter. `initial` in the result may be empty.
pub fn check_closed(
    p: &Program,
    c: &Certificate,
    deadline: Option<Instant>,
) -> Result<Checked, CheckError> {
    check_from(p, c, deadline, false)
}

fn check_from(
    p: &Program,
    c: &Certificate,
    deadline: Option<Instant>,
    initiation: bool,
) -> Result<Checked, CheckError> {
    let start = Instant::now();
    let names = Names::new(p);
    let init = initial_values(p);
    let init_known: Vec<Vec<Value>> = (init.iter())
        .map(|v| v.iter().map(|x| Value::Known(*x)).collect())
        .collect();
    let congruent_init = names.congruent(&c.congruences, &init_known)?;
    let mut initial = Vec::new();
    for (k, r) in c.regions.iter().enumerate() {
        if matches!(
            names.inside(&r.bounds, &init_known)?.and(&congruent_init),
            Cond::Known(true)
        ) {
            initial.push(k);
        }
    }
    for e in c.regions.iter().flat_map(|r| &r.edges) {
        names.input(&e.input)?;
        if let EdgeStep::Output(o) = &e.step {
            names.output(o)?;
        }
    }
    if initiation && initial.is_empty() {
        return Err(CheckError::Fails {
            obligation: Obligation::Initiation,
            detail: "the initial state lies in no region".into(),
            counterexample: None,
        });
    }
    let without_hint = check_regions(p, &names, c, deadline)?;
    let mut checked = Checked {
        obligations: usize::from(initiation) + 2 * c.regions.len(),
        without_hint,
        seconds: 0.0,
        initial,
        second_reading: SecondReading::NotRun,
    };
    checked.seconds = start.elapsed().as_secs_f64();
    Ok(checked)
}

/// The goals whose satisfiability would break one region's obligations.
struct Obligations {
    /// A state of the region steps to a claimed label or a fault.
    safety: Cond,
    /// A state of the region steps on, out of the regions given.
    consecution: Cond,
}

impl Obligations {
    fn of(
        names: &Names,
        c: &Certificate,
        k: usize,
        step: &SymbolicStep,
        targets: &mut dyn Iterator<Item = usize>,
    ) -> Result<Obligations, CheckError> {
        let mut any = Vec::new();
        for t in targets {
            any.push(names.inside(&c.regions[t].bounds, &step.post)?);
        }
        Obligations::staying(names, c, k, step, Cond::any(&any))
    }

    /// Region `k`'s goals where a step that goes on must end where `stays`
    /// says (the congruences are added).
    fn staying(
        names: &Names,
        c: &Certificate,
        k: usize,
        step: &SymbolicStep,
        stays: Cond,
    ) -> Result<Obligations, CheckError> {
        let here = (names.inside(&c.regions[k].bounds, &step.pre)?)
            .and(&names.congruent(&c.congruences, &step.pre)?)
            .and(&step.domain);
        let bad = Cond::any(
            (step.errors.iter())
                .filter(|(l, _)| c.unreachable.contains(l))
                .map(|(_, b)| b)
                .chain([&step.fault]),
        );
        let stays = stays.and(&names.congruent(&c.congruences, &step.post)?);
        Ok(Obligations {
            safety: here.and(&bad),
            consecution: here.and(&step.goes_on).and(&stays.not()),
        })
    }

    /// As [`Obligations::of`], but a step must be one of the region's
    /// edges on `input`: the same output (or none, or an invalid input)
    /// into the edge's target.
    fn labeled(
        names: &Names,
        c: &Certificate,
        k: usize,
        step: &SymbolicStep,
        input: &str,
    ) -> Result<Obligations, CheckError> {
        let valid = step.invalid.not();
        let mut matched = Vec::new();
        for e in c.regions[k].edges.iter().filter(|e| e.input == input) {
            let reads = match &e.step {
                EdgeStep::Output(out) => {
                    (valid.and(&step.output.0)).and(&step.output.1.is(names.output(out)?))
                }
                EdgeStep::Silent => valid.and(&step.output.0.not()),
                EdgeStep::Invalid => step.invalid.clone(),
                EdgeStep::Unchanged => step.invalid.and(&unchanged(step)),
            };
            matched.push(reads.and(&names.inside(&c.regions[e.target].bounds, &step.post)?));
        }
        Obligations::staying(names, c, k, step, Cond::any(&matched))
    }
}

/// That every variable after `step` has its value from before it.
fn unchanged(step: &SymbolicStep) -> Cond {
    let mut same = Vec::new();
    for (pre, post) in step.pre.iter().zip(&step.post) {
        for (a, b) in pre.iter().zip(post) {
            if !a.same(b) {
                same.push(Value::binary(BinOp::Eq, b, a).truth());
            }
        }
    }
    Cond::all(&same)
}

/// Every region's obligations, on as many threads as the machine has
/// cores (each with its own z3 context), regions taken in order. The
/// error reported is that of the first region that fails, whatever the
/// threads: regions after a failure are skipped, those before it finish.
fn check_regions(
    p: &Program,
    names: &Names,
    c: &Certificate,
    deadline: Option<Instant>,
) -> Result<usize, CheckError> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;
    let resolved = super::boxed::Resolved::new(names, c)?;
    let halving = super::boxed::Halving::default();
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(c.regions.len())
        .max(1);
    let next = AtomicUsize::new(0);
    let without_hint = AtomicUsize::new(0);
    let failed: Mutex<Option<(usize, CheckError)>> = Mutex::new(None);
    let first_failed = || {
        failed
            .lock()
            .map_or(0, |f| f.as_ref().map_or(usize::MAX, |(k, _)| *k))
    };
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                if k >= c.regions.len() || k > first_failed() {
                    break;
                }
                match check_region(p, names, c, (&resolved, &halving), k, deadline) {
                    Ok(n) => {
                        without_hint.fetch_add(n, Ordering::Relaxed);
                    }
                    Err(e) => {
                        if let Ok(mut f) = failed.lock() {
                            if f.as_ref().is_none_or(|(j, _)| k < *j) {
                                *f = Some((k, e));
                            }
                        }
                    }
                }
            });
        }
    });
    match failed.into_inner().ok().flatten() {
        Some((_, e)) => Err(e),
        None => Ok(without_hint.into_inner()),
    }
}

/// Region `k`'s obligations, one input symbol at a time (the step folds
/// to the rules that symbol can fire). Returns how many queries needed
/// every region (the `next` hint did not do).
fn check_region(
    p: &Program,
    names: &Names,
    c: &Certificate,
    (resolved, halving): (&super::boxed::Resolved, &super::boxed::Halving),
    k: usize,
    deadline: Option<Instant>,
) -> Result<usize, CheckError> {
    let spans = names.spans(&c.regions[k].bounds)?;
    let mut without_hint = 0;
    for sym in &p.inputs {
        // Most obligations hold on the box already; the solver decides
        // the others.
        let on_box = super::boxed::Obligations {
            p,
            c,
            r: resolved,
            k,
            input: sym,
            halving,
        };
        if super::boxed::settled_on_box(&on_box, &spans) {
            continue;
        }
        let region = Region {
            p,
            names,
            c,
            k,
            spans: &spans,
            input: sym,
        };
        without_hint += region.settle(&mut Vec::new(), deadline)?;
    }
    Ok(without_hint)
}

/// Time a query may take before it is split along the step's paths
/// (where it can be): bit-blasting every rule's arithmetic at once is what
/// makes the hard queries hard, and each path holds a few of them. On 2019
/// challenge LTL P6's certificate, 64 of 10,700 queries ran out at 2 s and
/// took 68 % of the solver's time, their halves then settling in
/// milliseconds; at 500 ms the check took 79 s instead of 142 (at 250 ms,
/// 84 s: more queries cut whose halves cost more).
const BEFORE_SPLITTING: Duration = Duration::from_millis(500);

/// One region's obligations for one input symbol.
struct Region<'a> {
    p: &'a Program,
    names: &'a Names<'a>,
    c: &'a Certificate,
    k: usize,
    spans: &'a [Vec<Option<Span>>],
    input: &'a crate::ir::Symbol,
}

impl Region<'_> {
    /// The obligations on the paths `guide` selects. Both go in one query
    /// (into the region's `next`); only where it fails are they taken
    /// apart: safety, then consecution into the `next`, then into any
    /// region. A query the solver does not settle soon is split on the
    /// next undecided `if` and each half settled in turn. Returns how many
    /// queries needed every region.
    fn settle(
        &self,
        guide: &mut Vec<bool>,
        deadline: Option<Instant>,
    ) -> Result<usize, CheckError> {
        let (p, names, c, k) = (self.p, self.names, self.c, self.k);
        let step = SymbolicStep::encode_path(p, "pre", self.spans, Some(self.input.value), guide)?;
        let splittable = step.branches > guide.len();
        let soon = |d: Option<Instant>| -> Option<Instant> {
            if !splittable {
                return d;
            }
            let t = Instant::now() + BEFORE_SPLITTING;
            Some(d.map_or(t, |d| d.min(t)))
        };
        let labeled = !c.holds.is_empty();
        let hinted = if labeled {
            Obligations::labeled(names, c, k, &step, &self.input.name)?
        } else {
            Obligations::of(names, c, k, &step, &mut c.regions[k].next.iter().copied())?
        };
        let fails = |obligation, state: Vec<Vec<i32>>, what: &str| {
            let cex = Counterexample {
                state: names.named(state),
                input: self.input.name.clone(),
            };
            CheckError::Fails {
                obligation,
                detail: format!("{cex} {what}"),
                counterexample: Some(Box::new(cex)),
            }
        };
        let safety = Obligation::Safety(k);
        let consecution = Obligation::Consecution(k);
        let outcome = (|| {
            if solve(
                consecution,
                &hinted.safety.or(&hinted.consecution),
                soon(deadline),
                &[],
            )?
            .is_none()
            {
                return Ok(0);
            }
            if let Some(state) = solve(safety, &hinted.safety, soon(deadline), &step.pre)? {
                return Err(fails(
                    safety,
                    state,
                    "ends at a claimed label or in a fault",
                ));
            }
            if labeled {
                return match solve(consecution, &hinted.consecution, soon(deadline), &step.pre)? {
                    Some(state) => Err(fails(consecution, state, "takes a step no edge allows")),
                    None => Ok(0),
                };
            }
            if solve(consecution, &hinted.consecution, soon(deadline), &[])?.is_none() {
                return Ok(0);
            }
            let all = Obligations::of(names, c, k, &step, &mut (0..c.regions.len()))?;
            if let Some(state) = solve(consecution, &all.consecution, soon(deadline), &step.pre)? {
                return Err(fails(consecution, state, "leads out of every region"));
            }
            Ok(1)
        })();
        match outcome {
            Err(CheckError::Undecided { .. })
                if splittable && deadline.is_none_or(|d| Instant::now() < d) =>
            {
                let mut n = 0;
                for branch in [true, false] {
                    guide.push(branch);
                    let half = self.settle(guide, deadline);
                    guide.pop();
                    n += half?;
                }
                Ok(n)
            }
            other => other,
        }
    }
}

/// Whether `goal` can hold: `None` when not, the values of `pre` where it
/// does otherwise. A goal known false needs no solver; the others get a
/// fresh one (z3 preprocesses a problem it sees whole, which an incremental
/// solver skips and is far slower for).
fn solve(
    obligation: Obligation,
    goal: &Cond,
    deadline: Option<Instant>,
    pre: &[Vec<Value>],
) -> Result<Option<Vec<Vec<i32>>>, CheckError> {
    if goal.is_false() {
        return Ok(None);
    }
    let undecided = |reason: &str| CheckError::Undecided {
        obligation,
        reason: reason.into(),
    };
    if deadline.is_some_and(|d| d <= Instant::now()) {
        return Err(undecided("time limit"));
    }
    let solver =
        crate::smt::solver("QF_BV", deadline).ok_or_else(|| undecided("no QF_BV solver"))?;
    solver.assert(goal.term());
    match solver.check() {
        SatResult::Unsat => Ok(None),
        SatResult::Sat => {
            let model = solver.get_model();
            let value = |v: &Value| model.as_ref().and_then(|m| v.in_model(m)).unwrap_or(0);
            Ok(Some(
                pre.iter().map(|g| g.iter().map(value).collect()).collect(),
            ))
        }
        SatResult::Unknown => Err(CheckError::Undecided {
            obligation,
            reason: solver
                .get_reason_unknown()
                .unwrap_or_else(|| "unknown".into()),
        }),
    }
}

impl super::boxed::Names for Names<'_> {
    type Error = CheckError;
    fn element(&self, v: &Var) -> Result<(usize, usize), CheckError> {
        self.resolve(v).map(|(id, k)| (id.0 as usize, k))
    }
    fn array_value(&self, name: &str) -> Result<i32, CheckError> {
        self.array(name)
    }
}

/// The program's globals by name.
struct Names<'p> {
    p: &'p Program,
    by_name: std::collections::HashMap<&'p str, GlobalId>,
}

impl<'p> Names<'p> {
    fn new(p: &'p Program) -> Self {
        let by_name = (p.globals.iter().enumerate())
            .map(|(i, g)| (g.name.as_str(), GlobalId(i as u32)))
            .collect();
        Names { p, by_name }
    }

    /// The variables of a state (constants left out) with their values.
    fn named(&self, state: Vec<Vec<i32>>) -> Vec<(Var, i32)> {
        let mut out = Vec::new();
        for (values, global) in state.into_iter().zip(&self.p.globals) {
            if global.constant {
                continue;
            }
            let array = matches!(global.kind, GlobalKind::Array { .. });
            for (k, x) in values.into_iter().enumerate() {
                out.push((
                    Var {
                        name: global.name.clone(),
                        index: array.then_some(k),
                    },
                    x,
                ));
            }
        }
        out
    }

    /// The global and element a variable names.
    fn resolve(&self, v: &Var) -> Result<(GlobalId, usize), CheckError> {
        let no = || CheckError::NoVariable(v.clone());
        let id = *self.by_name.get(v.name.as_str()).ok_or_else(no)?;
        match (&self.p.global(id).kind, v.index) {
            (GlobalKind::Array { init, .. }, Some(k)) if k < init.len() => Ok((id, k)),
            (GlobalKind::Scalar { .. } | GlobalKind::Pointer { .. }, None) => Ok((id, 0)),
            _ => Err(no()),
        }
    }

    /// The value of the input symbol named `name`.
    fn input(&self, name: &str) -> Result<i32, CheckError> {
        (self.p.inputs.iter())
            .find(|s| s.name == name)
            .map(|s| s.value)
            .ok_or_else(|| CheckError::NoSymbol(format!("i{name}")))
    }

    /// The value of the output symbol named `name`.
    fn output(&self, name: &str) -> Result<i32, CheckError> {
        (self.p.outputs.iter())
            .find(|s| s.name == name)
            .map(|s| s.value)
            .ok_or_else(|| CheckError::NoSymbol(format!("o{name}")))
    }

    /// The value an array name stands for in a pointer.
    fn array(&self, name: &str) -> Result<i32, CheckError> {
        match self.by_name.get(name) {
            Some(&id) if matches!(self.p.global(id).kind, GlobalKind::Array { .. }) => {
                Ok(id.0 as i32)
            }
            _ => Err(CheckError::NoArray(name.to_string())),
        }
    }

    /// The values a region's bounds allow (a range, a pointer to one
    /// array), per global and element; `None` where they say nothing or
    /// nothing that is a span.
    fn spans(&self, bounds: &[Bound]) -> Result<Vec<Vec<Option<Span>>>, CheckError> {
        let mut out: Vec<Vec<Option<Span>>> = (self.p.globals.iter())
            .map(|g| match &g.kind {
                GlobalKind::Array { init, .. } => vec![None; init.len()],
                _ => vec![None],
            })
            .collect();
        for b in bounds {
            let (id, k) = self.resolve(b.var())?;
            let clamp = |v: i64| v.clamp(i32::MIN as i64, i32::MAX as i64) as i32;
            let s = match b {
                // A range outside `int` is an empty region: left to the
                // bounds themselves, which say so.
                Bound::Range(_, lo, hi)
                    if lo <= hi && *hi >= i32::MIN as i64 && *lo <= i32::MAX as i64 =>
                {
                    Span {
                        lo: clamp(*lo),
                        hi: clamp(*hi),
                    }
                }
                Bound::PointsTo(_, arrays) if arrays.len() == 1 => {
                    Span::single(self.array(&arrays[0])?)
                }
                _ => continue,
            };
            let slot = &mut out[id.0 as usize][k];
            *slot = match *slot {
                // Two bounds on one variable: both hold.
                Some(t) if t.lo.max(s.lo) <= t.hi.min(s.hi) => Some(Span {
                    lo: t.lo.max(s.lo),
                    hi: t.hi.min(s.hi),
                }),
                Some(_) => continue,
                None => Some(s),
            };
        }
        Ok(out)
    }

    /// The region with these bounds, over the values `vars`.
    fn inside(&self, bounds: &[Bound], vars: &[Vec<Value>]) -> Result<Cond, CheckError> {
        let mut all = Cond::TRUE;
        for b in bounds {
            let (id, k) = self.resolve(b.var())?;
            let v = &vars[id.0 as usize][k];
            let holds = match b {
                Bound::Range(_, lo, hi) => v.within(*lo, *hi),
                Bound::PointsTo(_, arrays) => {
                    let mut any = Vec::new();
                    for a in arrays {
                        any.push(v.is(self.array(a)?));
                    }
                    Cond::any(&any)
                }
            };
            all = all.and(&holds);
            if all.is_false() {
                break;
            }
        }
        Ok(all)
    }

    /// Every congruence, over the values `vars`.
    fn congruent(&self, cs: &[Congruence], vars: &[Vec<Value>]) -> Result<Cond, CheckError> {
        let mut all = Cond::TRUE;
        for c in cs {
            let (id, k) = self.resolve(&c.var)?;
            all = all.and(&vars[id.0 as usize][k].congruent(c.modulus, c.rest));
        }
        Ok(all)
    }
}
