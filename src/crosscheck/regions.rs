//! The obligations of a certificate of regions, decided on the checker's
//! own reading of the program: the initial state lies in the invariant,
//! and from every region, on every input, the step ends at no claimed
//! label, in no fault, and every state it goes on from lies in the
//! invariant again.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use rayon::prelude::*;
use z3::ast::{Bool, BV};
use z3::{SatResult, Solver};

use std::collections::{HashMap, HashSet};

use z3::ast::{Ast, Dynamic};
use z3::DeclKind;

use super::exec::{Ending, Exec, Said};
use super::invariant::Invariant;
use super::layout::{Layout, Slot};
use super::syntax::Program;
use super::value::{bv, Cmp, Cond, Hull, Val};
use super::{meets, Accepted, CrossError, Initiation};
use crate::certificate::format::{Certificate, Edge, EdgeStep};

/// Checks the certificate `c` of regions on `program`; the initial state
/// must lie in a region where `initiation` says so.
pub fn check(
    program: &Program,
    c: &Certificate,
    initiation: Initiation,
    deadline: Option<Instant>,
) -> Result<Accepted, CrossError> {
    let start = Instant::now();
    let layout = Layout::of(program)?;
    let free: Vec<usize> = (program.written_first().iter())
        .filter_map(|n| match layout.slots.get(n) {
            Some(Slot::Scalar(at) | Slot::Pointer(at)) => Some(*at),
            _ => None,
        })
        .collect();
    let inv = Invariant::of(&layout, c, &free)?;
    if initiation == Initiation::Required && !inv.holds(&layout.initial) {
        return Err(CrossError::Rejected {
            obligation: "initiation".into(),
            detail: "the initial state lies in no region".into(),
        });
    }
    let mut inputs = program.input_classes();
    // With LTL claims, the steps must follow the regions' edges: each
    // input symbol an edge reads is checked by its value, named.
    let mut symbols: HashMap<i32, String> = HashMap::new();
    if !c.holds.is_empty() {
        for name in c.regions.iter().flat_map(|r| &r.edges).map(|e| &e.input) {
            let value = program.symbol(name).ok_or_else(|| CrossError::Rejected {
                obligation: "the edges".into(),
                detail: format!("read input `{name}`, which the program has no value for"),
            })?;
            symbols.insert(value, name.clone());
        }
        if let Some(classes) = inputs.as_mut() {
            classes.extend(
                symbols
                    .keys()
                    .filter(|k| !classes.contains(k))
                    .collect::<Vec<_>>(),
            );
        }
    }
    let stop = AtomicBool::new(false);
    let outcomes: Vec<Result<usize, CrossError>> = (0..inv.regions.len())
        .into_par_iter()
        .map(|r| {
            if stop.load(Ordering::Relaxed) {
                return Ok(0);
            }
            let at = Inputs {
                classes: inputs.as_deref(),
                symbols: &symbols,
            };
            let got = region(program, &layout, &inv, c, r, &at, deadline);
            if got.is_err() {
                stop.store(true, Ordering::Relaxed);
            }
            got
        })
        .collect();
    let mut obligations = usize::from(initiation == Initiation::Required);
    for o in outcomes {
        obligations += o?;
    }
    Ok(Accepted {
        obligations,
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// How long one query may take before its box is cut in two.
const QUERY_MILLIS: u32 = 1000;

/// How often a box may be cut in two, one way after the other.
const MAX_CUTS: u32 = 24;

/// The inputs a region's step is checked on.
struct Inputs<'a> {
    /// The values the step tells apart (`None`: every int, as one term).
    classes: Option<&'a [i32]>,
    /// With LTL claims, the symbol each input value stands for, whose
    /// steps must follow the region's edges.
    symbols: &'a HashMap<i32, String>,
}

/// The obligations of region `r`: how many were decided.
fn region(
    program: &Program,
    layout: &Layout,
    inv: &Invariant,
    c: &Certificate,
    r: usize,
    inputs: &Inputs,
    deadline: Option<Instant>,
) -> Result<usize, CrossError> {
    // The region's box: what it fixes is known, the rest are terms.
    let all_arrays: Vec<i32> = (0..layout.arrays.len() as i32).collect();
    let mut hulls: Vec<Hull> = (0..layout.names.len())
        .map(|at| {
            if layout.pointers.contains(&at) {
                Hull::Set(all_arrays.clone())
            } else {
                Hull::ANY
            }
        })
        .collect();
    for (at, allowed) in &inv.allowed[r] {
        hulls[*at] = intersect(&hulls[*at], allowed);
    }
    if hulls
        .iter()
        .any(|h| h.values().is_some_and(<[i32]>::is_empty))
    {
        // An empty region: nothing to check.
        return Ok(0);
    }
    let mut input_vals: Vec<Option<i32>> = match inputs.classes {
        Some(v) => v.iter().map(|&k| Some(k)).collect(),
        None => vec![None],
    };
    if inputs.classes.is_none() {
        input_vals.extend(inputs.symbols.keys().map(|&k| Some(k)));
    }
    let boxes = Boxes {
        program,
        layout,
        inv,
        claimed: &c.unreachable,
        region: r,
        edges: &c.regions[r].edges,
        symbols: inputs.symbols,
        deadline,
    };
    let mut decided = 0;
    for input in input_vals {
        decided += boxes.check(&hulls, input, 0)?;
    }
    Ok(decided)
}

/// The obligations of one region, box by box.
struct Boxes<'a> {
    program: &'a Program,
    layout: &'a Layout,
    inv: &'a Invariant,
    claimed: &'a [u32],
    region: usize,
    /// The region's edges, and the symbol of each input value they read
    /// (empty without LTL claims).
    edges: &'a [Edge],
    symbols: &'a HashMap<i32, String>,
    deadline: Option<Instant>,
}

impl Boxes<'_> {
    /// The obligations from the states of `hulls` on `input` (any input
    /// for `None`); a query z3 does not decide in [`QUERY_MILLIS`] cuts the
    /// box in two along its widest variable, up to [`MAX_CUTS`] deep.
    fn check(&self, hulls: &[Hull], input: Option<i32>, cuts: u32) -> Result<usize, CrossError> {
        let layout = self.layout;
        // What the box says of its states; a solver gets them only once a
        // query needs one (most boxes are decided on their values, and a
        // solver is not cheap to make).
        let mut facts = Vec::new();
        let mut pre = Vec::with_capacity(hulls.len());
        for (h, name) in hulls.iter().zip(&layout.names) {
            let v = match h.values() {
                Some([k]) => Val::Known(*k),
                _ => {
                    let t = BV::new_const(format!("pre.{name}"), 32);
                    facts.push(hull_constraint(&t, h));
                    Val::Term(t, h.clone())
                }
            };
            pre.push(v);
        }
        for &(at, m, rest) in &self.inv.congruences {
            match &pre[at] {
                Val::Known(k) if (*k as i64).rem_euclid(m as i64) != rest as i64 => return Ok(0),
                Val::Known(_) => {}
                Val::Term(t, _) => facts.push(t.bvsmod(bv(m)).eq(bv(rest))),
            }
        }
        let queries = Queries::new(&facts, self.deadline);
        let input_val = match input {
            Some(k) => Val::Known(k),
            None => Val::Term(BV::new_const("input", 32), Hull::ANY),
        };
        let step = Exec::run(self.program, layout, pre.clone(), input_val)?;
        let mut decided = 0;
        for e in step.ends {
            let (obligation, bad) = match &e.ending {
                Ending::Error(n) if self.claimed.contains(n) => {
                    (format!("safety (label {n})"), e.when.clone())
                }
                Ending::Error(_) => continue,
                Ending::Fault(what) => (format!("safety ({what})"), e.when.clone()),
                Ending::GoesOn(vals, said) => {
                    if let Some(name) = input.and_then(|k| self.symbols.get(&k)) {
                        if self.along_an_edge_by_hulls(name, vals, said, &pre) {
                            decided += 1;
                            continue;
                        }
                        let along = self.along_edges(name, vals, said, &pre);
                        (
                            format!("consecution along the edges on `{name}`"),
                            e.when.and(&along.not()),
                        )
                    } else {
                        let next = &self.inv.regions[self.region].next;
                        // The values' hulls alone, then the regions the hint
                        // names: a smaller query, enough where the hint is
                        // right.
                        if self.inv.covers(vals, &pre, next) {
                            decided += 1;
                            continue;
                        }
                        if !next.is_empty() {
                            let hinted =
                                e.when.and(&self.inv.contains(vals, &pre, Some(next)).not());
                            if queries.shown_impossible(&hinted) {
                                decided += 1;
                                continue;
                            }
                        }
                        (
                            "consecution".to_string(),
                            e.when.and(&self.inv.contains(vals, &pre, None).not()),
                        )
                    }
                }
            };
            decided += 1;
            let t = match &bad {
                Cond::Known(false) => continue,
                Cond::Known(true) => {
                    return Err(self.rejected(input, obligation, known_state(layout, &pre)))
                }
                Cond::Term(t) => t,
            };
            let got = queries.decide(t);
            if let Err(Some(solver)) = &got {
                let state = witness(solver, layout, &pre);
                return Err(self.rejected(input, obligation, state));
            }
            if got.is_err() {
                let past = self.deadline.is_some_and(|d| Instant::now() >= d);
                let parts = cut(hulls, &step.cuts, &named(t, layout));
                return match parts {
                    Some(parts) if !past && cuts < MAX_CUTS => {
                        let mut decided = 0;
                        for part in parts {
                            decided += self.check(&part, input, cuts + 1)?;
                        }
                        Ok(decided)
                    }
                    _ => Err(CrossError::Undecided {
                        why: format!(
                            "z3 gave no answer on region {}, input {}{}",
                            self.region,
                            describe(input),
                            if past {
                                " (the time given to the check ran out)"
                            } else {
                                ""
                            }
                        ),
                    }),
                };
            }
        }
        Ok(decided)
    }

    /// Whether the values alone show that a step on the symbol `name`
    /// from `pre`, which said `said` and goes on in `vals`, follows one
    /// edge: what it said known to be the edge's, its state inside the
    /// edge's target by the hulls.
    fn along_an_edge_by_hulls(&self, name: &str, vals: &[Val], said: &Said, pre: &[Val]) -> bool {
        (self.edges.iter().filter(|e| e.input == name)).any(|e| {
            matches!(self.reads(&e.step, vals, said, pre), Cond::Known(true))
                && self.inv.covers_in(vals, pre, e.target)
        })
    }

    /// The condition that a step on the symbol `name` from `pre`, which
    /// said `said` and goes on in `vals`, is one of the region's edges: the
    /// same input and output (or none, or an invalid input), into the
    /// edge's target.
    fn along_edges(&self, name: &str, vals: &[Val], said: &Said, pre: &[Val]) -> Cond {
        let mut any = Cond::Known(false);
        for e in self.edges.iter().filter(|e| e.input == name) {
            let reads = self.reads(&e.step, vals, said, pre);
            if reads.is_false() || e.target >= self.inv.regions.len() {
                continue;
            }
            let into = self.inv.contains(vals, pre, Some(&[e.target]));
            any = any.or(&reads.and(&into));
        }
        any
    }

    /// The condition that a step from `pre` that said `said` and goes on
    /// in `vals` is what an edge's `step` says: the same output, none, an
    /// invalid input, or one that leaves every value as it was.
    fn reads(&self, step: &EdgeStep, vals: &[Val], said: &Said, pre: &[Val]) -> Cond {
        let kind = |k: i32| said.kind.compare(Cmp::Eq, &Val::Known(k));
        match step {
            EdgeStep::Output(o) => match self.program.symbol(o) {
                Some(v) => kind(Said::OUTPUT).and(&said.value.compare(Cmp::Eq, &Val::Known(v))),
                None => Cond::Known(false),
            },
            EdgeStep::Silent => kind(Said::SILENT),
            EdgeStep::Invalid => kind(Said::INVALID),
            EdgeStep::Unchanged => {
                let mut same = kind(Said::INVALID);
                for (v, w) in vals.iter().zip(pre) {
                    if !v.same(w) {
                        same = same.and(&v.compare(Cmp::Eq, w));
                    }
                }
                same
            }
        }
    }

    fn rejected(&self, input: Option<i32>, obligation: String, state: String) -> CrossError {
        CrossError::Rejected {
            obligation,
            detail: format!(
                "from region {} on input {}, e.g. from the state {state}",
                self.region,
                describe(input)
            ),
        }
    }
}

/// The queries of one box: a solver holding what the box says of its
/// states, made when a query first needs one.
///
/// z3's answers are taken with care. A solver whose query was not decided
/// (its time ran out) is not asked again: the next query gets a fresh one.
/// A model is trusted only once it is checked to meet the box's facts and
/// the query (under load, a reused solver was seen to answer `sat` with a
/// model outside the box); one that does not is asked again of a fresh
/// solver, and counts as undecided if that fails too.
struct Queries<'a> {
    facts: &'a [Bool],
    deadline: Option<Instant>,
    /// How long one query may take.
    millis: u32,
    solver: std::cell::RefCell<Option<std::rc::Rc<Solver>>>,
}

impl<'a> Queries<'a> {
    fn new(facts: &'a [Bool], deadline: Option<Instant>) -> Self {
        Queries {
            facts,
            deadline,
            millis: QUERY_MILLIS,
            solver: std::cell::RefCell::new(None),
        }
    }

    fn solver(&self) -> std::rc::Rc<Solver> {
        let mut made = self.solver.borrow_mut();
        let s = made.get_or_insert_with(|| {
            let solver = super::solver(self.deadline, Some(self.millis));
            self.facts.iter().for_each(|f| solver.assert(f));
            std::rc::Rc::new(solver)
        });
        std::rc::Rc::clone(s)
    }

    /// Whether `bad` is shown impossible (no state of the box meets it);
    /// false also where z3 does not say.
    fn shown_impossible(&self, bad: &Cond) -> bool {
        match bad {
            Cond::Known(b) => !b,
            Cond::Term(t) => self.decide(t).is_ok(),
        }
    }

    /// `Ok` where no state of the box meets `t`; else the solver holding a
    /// model that does (checked), or `None` where z3 did not decide.
    fn decide(&self, t: &Bool) -> Result<(), Option<std::rc::Rc<Solver>>> {
        for _ in 0..2 {
            let solver = self.solver();
            solver.push();
            solver.assert(t);
            match solver.check() {
                SatResult::Unsat => {
                    solver.pop(1);
                    return Ok(());
                }
                SatResult::Sat if meets(&solver, self.facts, t) => return Err(Some(solver)),
                // A model that does not meet the query: asked again, once.
                SatResult::Sat => {
                    self.solver.replace(None);
                }
                // Not asked again: a fresh solver for what follows.
                SatResult::Unknown => {
                    self.solver.replace(None);
                    return Err(None);
                }
            }
        }
        Err(None)
    }
}

/// What cutting the box may decide in a query: the state variables it
/// names, and the comparisons of one of them with a constant that choose
/// between values (`c ? a : b`), nearest the query's root first.
struct Named {
    positions: Vec<usize>,
    choices: Vec<(usize, i32)>,
}

/// The variables and choices of a query.
fn named(t: &Bool, layout: &Layout) -> Named {
    let position = |a: &Dynamic| -> Option<usize> {
        let n = a.is_const().then(|| a.decl().name())?;
        let n = n.strip_prefix("pre.")?;
        layout.names.iter().position(|x| x == n)
    };
    let mut seen: HashSet<Dynamic> = HashSet::new();
    let mut positions = Vec::new();
    let mut choices = Vec::new();
    let mut todo = std::collections::VecDeque::from([Dynamic::from_ast(t)]);
    while let Some(a) = todo.pop_front() {
        if !seen.insert(a.clone()) {
            continue;
        }
        if a.is_const() {
            positions.extend(position(&a));
            continue;
        }
        let kids = a.children();
        if a.is_app() && a.decl().kind() == DeclKind::ITE {
            if let Some(c) = kids.first() {
                choices.extend(comparison(c, &position));
            }
        }
        todo.extend(kids);
    }
    Named { positions, choices }
}

/// A comparison of a state variable with a constant (under `not`s).
fn comparison(c: &Dynamic, position: &dyn Fn(&Dynamic) -> Option<usize>) -> Option<(usize, i32)> {
    if !c.is_app() {
        return None;
    }
    let kids = c.children();
    match c.decl().kind() {
        DeclKind::NOT => comparison(kids.first()?, position),
        DeclKind::EQ | DeclKind::SLEQ | DeclKind::SGEQ | DeclKind::SLT | DeclKind::SGT => {
            let [x, y] = &kids[..] else { return None };
            let number = |d: &Dynamic| d.as_bv()?.as_i64().map(|v| v as u32 as i32);
            match (position(x), number(y), position(y), number(x)) {
                (Some(at), Some(k), ..) | (_, _, Some(at), Some(k)) => Some((at, k)),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The box cut in parts that decide more: along the first choice of the
/// query whose constant lies inside its variable's values (below, at and
/// above it), else along the first such comparison of the step with a
/// variable the query names, else the widest bounded variable the query
/// names in halves. `None` when nothing is left to cut.
fn cut(hulls: &[Hull], cuts: &[(usize, i32)], named: &Named) -> Option<Vec<Vec<Hull>>> {
    let with = |at: usize, parts: &[(i32, i32)]| -> Vec<Vec<Hull>> {
        (parts.iter())
            .filter(|(lo, hi)| lo <= hi)
            .map(|&(lo, hi)| {
                let mut h = hulls.to_vec();
                h[at] = intersect(&hulls[at], &Hull::Range(lo, hi));
                h
            })
            .filter(|h| !h[at].values().is_some_and(<[i32]>::is_empty))
            .collect()
    };
    let step_cuts = cuts.iter().filter(|(at, _)| named.positions.contains(at));
    for &(at, k) in named.choices.iter().chain(step_cuts) {
        let (lo, hi) = hulls[at].bounds();
        if lo < hi && (lo..=hi).contains(&k) {
            let parts = with(
                at,
                &[(lo, k.saturating_sub(1)), (k, k), (k.saturating_add(1), hi)],
            );
            if parts.len() > 1 {
                return Some(parts);
            }
        }
    }
    let (at, (lo, hi)) = (named.positions.iter())
        .map(|&at| (at, hulls[at].bounds()))
        .filter(|&(at, (lo, hi))| lo < hi && hulls[at] != Hull::ANY)
        .max_by_key(|&(_, (lo, hi))| hi as i64 - lo as i64)?;
    let mid = ((lo as i64 + hi as i64).div_euclid(2)) as i32;
    Some(with(at, &[(lo, mid), (mid.saturating_add(1), hi)]))
}

fn describe(input: Option<i32>) -> String {
    input.map_or("any".into(), |k| k.to_string())
}

/// The values a region fixes, for a message.
fn known_state(layout: &Layout, pre: &[Val]) -> String {
    let parts: Vec<String> = (pre.iter().enumerate())
        .filter_map(|(k, v)| match v {
            Val::Known(x) => Some(format!("{}={x}", layout.names[k])),
            Val::Term(..) => None,
        })
        .take(12)
        .collect();
    parts.join(" ")
}

/// A state of the model z3 found, for a message.
pub(super) fn witness(solver: &Solver, layout: &Layout, pre: &[Val]) -> String {
    let Some(model) = solver.get_model() else {
        return known_state(layout, pre);
    };
    let parts: Vec<String> = (pre.iter().enumerate())
        .map(|(k, v)| {
            let x = match v {
                Val::Known(x) => Some(*x),
                Val::Term(t, _) => (model.eval(t, true))
                    .and_then(|e| e.as_i64())
                    .map(|u| u as u32 as i32),
            };
            format!(
                "{}={}",
                layout.names[k],
                x.map_or("?".into(), |x| x.to_string())
            )
        })
        .collect();
    parts.join(" ")
}

pub(super) fn hull_constraint(t: &BV, h: &Hull) -> Bool {
    let (lo, hi) = h.bounds();
    match h {
        Hull::Set(v) if v.len() as i64 != hi as i64 - lo as i64 + 1 => {
            Bool::or(&v.iter().map(|&k| t.eq(bv(k))).collect::<Vec<_>>())
        }
        Hull::Set(_) => Bool::and(&[t.bvsge(bv(lo)), t.bvsle(bv(hi))]),
        Hull::Range(lo, hi) => Bool::and(&[t.bvsge(bv(*lo)), t.bvsle(bv(*hi))]),
    }
}

fn intersect(a: &Hull, b: &Hull) -> Hull {
    match (a.values(), b.values()) {
        (Some(x), _) => Hull::Set(x.iter().copied().filter(|k| b.may_be(*k)).collect()),
        (None, Some(y)) => Hull::Set(y.iter().copied().filter(|k| a.may_be(*k)).collect()),
        (None, None) => {
            let ((p, q), (r, s)) = (a.bounds(), b.bounds());
            let (lo, hi) = (p.max(r), q.min(s));
            if lo > hi {
                Hull::Set(Vec::new())
            } else {
                Hull::range(lo, hi)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// After a query z3 does not decide in its time, the next query of the
    /// box is decided right: z3 (4.8.12, as Debian ships it) answers a
    /// reused solver `sat` with a model that leaves the box's facts out.
    #[test]
    fn a_query_after_an_undecided_one_is_decided_right() {
        let x = BV::new_const("x", 32);
        let facts = [Bool::and(&[x.bvsge(bv(-2)), x.bvsle(bv(4))])];
        let mut queries = Queries::new(&facts, None);
        queries.millis = 2;
        // Far more than 2 ms: six factors of a number.
        let ys: Vec<BV> = (0..6).map(|k| BV::new_const(format!("y{k}"), 32)).collect();
        let product = (ys[1..].iter()).fold(ys[0].clone(), |p, y| p.bvmul(y));
        let hard = Bool::and(&[
            product.eq(bv(1_234_567)),
            ys[0].bvugt(bv(3)),
            ys[1].bvugt(bv(5)),
            ys[2].bvurem(bv(7)).eq(bv(3)),
        ]);
        assert!(matches!(queries.decide(&hard), Err(None)), "undecided");
        // `x + 20 <= x` only where `x + 20` wraps, which no `x` of the box
        // does.
        let wraps = x.bvadd(bv(20)).bvsle(&x);
        assert!(queries.decide(&wraps).is_ok());
        queries.millis = QUERY_MILLIS;
        // And a query that does hold somewhere gets a model inside the box.
        match queries.decide(&x.eq(bv(3))) {
            Err(Some(solver)) => assert!(meets(&solver, &facts, &x.eq(bv(3)))),
            other => panic!("{:?}", other.map_err(|s| s.is_some())),
        }
    }
}
