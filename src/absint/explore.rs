//! The abstract transition system: a finite over-approximation of the
//! program's input/output transition system.
//!
//! # Abstraction
//!
//! The state slots of the engine's layout fall into two kinds:
//! - **control** slots, never assigned the result of arithmetic (`a8 = 2`,
//!   `a52 = a157`, `a71 = a108[4]`): an abstract state keeps their exact
//!   values;
//! - **numeric** slots, assigned arithmetic somewhere (`a37 = (a37 * a80) %
//!   14999 % 24 + 222`): the program compares them only with constants, and
//!   those constants cut the integers into *cells*; an abstract state keeps
//!   an interval of values.
//!
//! Abstract states are identified by a *key*: for each slot the state's
//! future depends on ([`Relevance`]), the exact value of a control slot or
//! the cells of a numeric slot's interval bounds. Slots a RERS program only
//! reads in other modes are left out: their stale values would otherwise
//! multiply the abstract states (RERS 2017 problem 11 never completes with
//! every slot in the key, and has 62 abstract states without). Relevance
//! first looks one step ahead; [`refine`] then explores again, keeping the
//! slots that a later step reads before writing them, until nothing new is
//! learnt. *Counters* are left out of every key: numeric slots only ever
//! stepped by themselves (`a36 += (a36 + 20) > a36 ? 2 : 0`, the RERS 2017
//! counters, or `x = x + 1`). They are independent of each other and of
//! the rest, so keying on their cells multiplies the abstract states by the
//! product of their cell counts, while their few guards (`a36 == 4`) are
//! decided or split by the step anyway. Their steps keep them in one class
//! modulo a power of two ([`congruences`]); a guard narrowing a counter is
//! cut to that class, so `a36 == 5` is false for an even one.
//!
//! Two abstract states with one key are merged into one, whose intervals
//! are the hulls; a state whose intervals grew is expanded again. After
//! [`WIDEN_AFTER`] growths a numeric interval is widened along a ladder of
//! powers of two, and after [`CELL_AFTER`] growths straight to the hull of
//! its cells, which bounds the number of growths. When a round fails because
//! the step could not be interpreted soundly (widening may give a divisor an
//! interval holding zero), it is tried once more, widening only after
//! [`WIDEN_AFTER_RETRY`] growths, before relevance is given up; so is a
//! first round that completes but is not precise enough for a caller that
//! says what it needs ([`explore_abstract_until`]). The result is a least
//! fixpoint: every concrete reachable state lies in some abstract state,
//! and every step of the engine from it is matched by an abstract edge with
//! the same input and outcome ([`super::step`]). Any key is sound; the key
//! only decides what is joined, so how precise the result is.
//!
//! So a property of all (infinite) traces that holds here holds for the
//! program, and an error label no abstract edge reaches is unreachable.
//! A path found here is only a candidate: it must be replayed on the engine.

use std::time::Instant;

use rustc_hash::{FxHashMap, FxHashSet};

use super::interval::Interval;
use super::relevance::Relevance;
use super::step::{AbsState, AbstractStep, Unsound};
use crate::engine::{Machine, Storage};
use crate::explore::graph::{Outcome, StateId, NO_STATE};
use crate::ir::{ArrayRef, BinOp, Expr, Place, Program, Stmt};

/// Growths of one abstract state before its numeric intervals are widened.
pub const WIDEN_AFTER: u32 = 10;

/// Growths of one abstract state before a growing bound jumps straight to
/// its cell's bound (the ladder alone climbs up to 31 rungs per bound, and
/// each rung expands the state again).
pub const CELL_AFTER: u32 = 20;

/// [`WIDEN_AFTER`] when a round is tried again because the step could not
/// be interpreted soundly, or its result did not decide what the caller
/// needs: widening may have lost the precision the step needed (a divisor
/// widened to an interval holding zero), so intervals grow exactly for
/// longer. Bounded, like the ladder, so a round ends.
pub const WIDEN_AFTER_RETRY: u32 = 100;

/// Most pieces one successor is split into, one per combination of cells.
pub const MAX_SPLIT: usize = 256;

/// One abstract edge.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct AbsEdge {
    /// Input number.
    pub input: u16,
    /// Packed [`Outcome`].
    pub packed: u32,
    /// Target state, [`NO_STATE`] for an error or a blocked step.
    pub target: StateId,
}

impl AbsEdge {
    /// The outcome of this edge.
    pub fn outcome(&self) -> Outcome {
        Outcome::unpack(self.packed)
    }
}

/// The complete abstract transition system (state 0 is initial).
#[derive(Clone, Debug, Default)]
pub struct AbsGraph {
    /// Input names.
    pub inputs: Vec<String>,
    /// Output names.
    pub outputs: Vec<String>,
    /// The intervals of each abstract state.
    pub values: Vec<AbsState>,
    /// The edges of each abstract state (any number per input).
    pub edges: Vec<Vec<AbsEdge>>,
    /// Numeric slots (abstracted to intervals).
    pub numeric_slots: usize,
    /// Expansions done (more than the states when intervals grew).
    pub expansions: u64,
    /// The cells the keys are made of.
    pub(super) cells: Cells,
    /// The state of each key.
    pub(super) index: FxHashMap<Vec<i64>, StateId>,
}

impl AbsGraph {
    /// Number of abstract states.
    pub fn n_states(&self) -> usize {
        self.values.len()
    }

    /// Every error label some abstract edge reaches, sorted.
    pub fn error_labels(&self) -> Vec<u32> {
        let mut v: Vec<u32> = self
            .edges
            .iter()
            .flatten()
            .filter_map(|e| match e.outcome() {
                Outcome::Error(n) => Some(n),
                _ => None,
            })
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// The abstract state that contains the concrete state `state`, if the
    /// one with its key does (a state whose intervals span several cells,
    /// where splitting was capped, is not looked for). Every step from
    /// `state` is then matched by an edge of the returned state.
    pub fn locate(&self, state: &[i32]) -> Option<StateId> {
        let points: AbsState = state.iter().map(|&v| Interval::point(v)).collect();
        let key = self.cells.key(&points);
        let &s = self.index.get(&key)?;
        let values = &self.values[s as usize];
        (values.len() == state.len()
            && values.iter().zip(state).all(|(i, &v)| i.contains(v as i64)))
        .then_some(s)
    }

    /// Per abstract state: the fewest steps of an abstract path from it
    /// that ends in one of the error `labels` (the error step included;
    /// invalid inputs go on, as in reachability), `u32::MAX` where none does.
    pub fn distance_to(&self, labels: &[u32]) -> Vec<u32> {
        let n = self.n_states();
        let mut preds: Vec<Vec<StateId>> = vec![Vec::new(); n];
        let mut dist = vec![u32::MAX; n];
        let mut queue = std::collections::VecDeque::new();
        for (s, edges) in self.edges.iter().enumerate() {
            for e in edges {
                match e.outcome() {
                    Outcome::Error(l) if labels.contains(&l) && dist[s] == u32::MAX => {
                        dist[s] = 1;
                        queue.push_back(s as StateId);
                    }
                    Outcome::Error(_) | Outcome::Blocked => {}
                    _ if e.target != NO_STATE => preds[e.target as usize].push(s as StateId),
                    _ => {}
                }
            }
        }
        while let Some(t) = queue.pop_front() {
            for &s in &preds[t as usize] {
                if dist[s as usize] == u32::MAX {
                    dist[s as usize] = dist[t as usize] + 1;
                    queue.push_back(s);
                }
            }
        }
        dist
    }

    /// The inputs of a shortest abstract path ending in error `label`
    /// (invalid inputs go on, as in reachability): a candidate witness.
    pub fn path_to_error(&self, label: u32) -> Option<Vec<usize>> {
        let steps = self.error_path(label)?;
        Some(steps.into_iter().map(|(_, i)| i).collect())
    }

    /// [`AbsGraph::path_to_error`] with the state each step leaves from.
    pub fn error_path(&self, label: u32) -> Option<Vec<(StateId, usize)>> {
        let n = self.n_states();
        let mut parent: Vec<Option<(StateId, u16)>> = vec![None; n];
        let mut seen = vec![false; n];
        let mut queue = std::collections::VecDeque::from([0 as StateId]);
        seen[0] = true;
        let path_to = |parent: &[Option<(StateId, u16)>], mut s: StateId| {
            let mut p = Vec::new();
            while let Some((from, i)) = parent[s as usize] {
                p.push((from, i as usize));
                s = from;
            }
            p.reverse();
            p
        };
        while let Some(s) = queue.pop_front() {
            for e in &self.edges[s as usize] {
                match e.outcome() {
                    Outcome::Error(l) if l == label => {
                        let mut p = path_to(&parent, s);
                        p.push((s, e.input as usize));
                        return Some(p);
                    }
                    Outcome::Error(_) | Outcome::Blocked => {}
                    _ => {
                        if !seen[e.target as usize] {
                            seen[e.target as usize] = true;
                            parent[e.target as usize] = Some((s, e.input));
                            queue.push_back(e.target);
                        }
                    }
                }
            }
        }
        None
    }
}

/// Share of a run's time limit that the checkers give the abstraction.
pub const SHARE_OF_TIMEOUT: f64 = 0.3;

/// Most abstract states before the checkers give the abstraction up.
pub const RUN_MAX_STATES: usize = 2_000_000;

/// Limits of the abstract exploration.
#[derive(Clone, Copy, Debug, Default)]
pub struct AbsLimits {
    /// Give up after this many abstract states.
    pub max_states: Option<usize>,
    /// Give up at this instant.
    pub deadline: Option<Instant>,
    /// Give up when the process's resident memory exceeds this.
    pub memory_limit: Option<u64>,
}

impl AbsLimits {
    /// The abstraction's part of a run that started at `start` under
    /// `run`: [`SHARE_OF_TIMEOUT`] of its time, its memory limit, and
    /// [`RUN_MAX_STATES`].
    pub fn share_of(run: &crate::explore::Limits, start: Instant) -> AbsLimits {
        AbsLimits {
            max_states: Some(RUN_MAX_STATES),
            deadline: run.timeout.map(|t| start + t.mul_f64(SHARE_OF_TIMEOUT)),
            memory_limit: run.memory_limit,
        }
    }
}

/// Which slots are numeric, and the cuts of each numeric slot.
#[derive(Clone, Debug, Default)]
pub(super) struct Cells {
    /// Per slot: `None` for a control slot, the sorted cuts (first values of
    /// each cell after the first) for a numeric one.
    cuts: Vec<Option<Vec<i64>>>,
    /// Per slot: whether it is a counter, left out of keys and splits.
    pub(super) counter: Vec<bool>,
    /// Per slot: `(m, r)` where every reachable value of the counter is
    /// `r` modulo `m` (see [`congruences`]).
    pub(super) congruence: Vec<Option<(i64, i64)>>,
    /// Which slots a state's key keeps; `None` keeps them all.
    relevance: Option<Relevance>,
    /// Slots kept besides the relevant ones, by the key the relevant ones
    /// alone give (learnt by [`refine`]).
    live: FxHashMap<Vec<i64>, Vec<bool>>,
}

/// The key part of a slot the state's future does not depend on.
const IRRELEVANT: i64 = i64::MIN + 1;

impl Cells {
    fn cell(cuts: &[i64], v: i64) -> usize {
        cuts.partition_point(|&c| c <= v)
    }

    /// The bounds of cell `k`.
    fn bounds(cuts: &[i64], k: usize) -> (i64, i64) {
        let lo = if k == 0 { i32::MIN as i64 } else { cuts[k - 1] };
        let hi = if k == cuts.len() {
            i32::MAX as i64
        } else {
            cuts[k] - 1
        };
        (lo, hi)
    }

    /// The key of `s`: [`Cells::slot_key`] of each slot kept,
    /// [`IRRELEVANT`] for the others; and the key of the relevant slots
    /// alone. The slots kept are those [`Relevance`] finds the next step
    /// depends on, and those [`refine`] found a later step does.
    pub(super) fn keys(&self, s: &AbsState) -> (Vec<i64>, Option<Vec<i64>>) {
        let Some(r) = &self.relevance else {
            let key = (s.iter().enumerate())
                .map(|(k, v)| self.slot_key(k, v.lo, v.hi))
                .collect();
            return (key, None);
        };
        let rel = r.relevant(s);
        let project = |keep: &dyn Fn(usize) -> bool| -> Vec<i64> {
            (s.iter().enumerate())
                .map(|(k, v)| match keep(k) {
                    true => self.slot_key(k, v.lo, v.hi),
                    false => IRRELEVANT,
                })
                .collect()
        };
        let coarse = project(&|k| rel[k]);
        let key = match self.live.get(&coarse) {
            Some(live) => project(&|k| rel[k] || live[k]),
            None => coarse.clone(),
        };
        (key, Some(coarse))
    }

    fn key(&self, s: &AbsState) -> Vec<i64> {
        self.keys(s).0
    }

    /// Slot `s`'s part of the key of an interval `[lo, hi]`: nothing for a
    /// counter, the value of a control slot (`i64::MIN` if not a point), the
    /// cells of the bounds of a numeric one.
    fn slot_key(&self, s: usize, lo: i64, hi: i64) -> i64 {
        match &self.cuts[s] {
            _ if self.counter[s] => 0,
            None if lo == hi => lo,
            None => i64::MIN,
            Some(c) => ((Cells::cell(c, lo) as i64) << 32) | Cells::cell(c, hi) as i64,
        }
    }

    /// Widens the intervals of `s` that grew from `old`: a moving bound
    /// jumps to the next rung of a ladder (±2^k) or to its cell's bound,
    /// whichever is nearer. The ladder keeps intervals bounded where the
    /// program's values are (a jump straight to the cell bound `i32::MAX`
    /// would make every product wrap), and finite, so widening terminates.
    fn widen(&self, old: &AbsState, s: &mut AbsState, to_cell: bool) {
        for ((v, o), c) in s.iter_mut().zip(old).zip(&self.cuts) {
            match c {
                None if v.as_point().is_none() => *v = Interval::TOP,
                None => {}
                Some(c) => {
                    let (cell_lo, _) = Cells::bounds(c, Cells::cell(c, v.lo));
                    let (_, cell_hi) = Cells::bounds(c, Cells::cell(c, v.hi));
                    if v.lo < o.lo {
                        v.lo = if to_cell {
                            cell_lo
                        } else {
                            ladder_down(v.lo).max(cell_lo)
                        };
                    }
                    if v.hi > o.hi {
                        v.hi = if to_cell {
                            cell_hi
                        } else {
                            ladder_up(v.hi).min(cell_hi)
                        };
                    }
                }
            }
        }
    }

    /// Splits `s` into one state per combination of cells its numeric
    /// intervals span (the union is `s`), unless there would be more than
    /// `max` pieces.
    pub(super) fn split(&self, s: AbsState, max: usize) -> Vec<AbsState> {
        let mut pieces = vec![s];
        for (k, c) in self.cuts.iter().enumerate() {
            let Some(c) = c else { continue };
            if self.counter[k] {
                continue;
            }
            let v = pieces[0][k];
            let (a, b) = (Cells::cell(c, v.lo), Cells::cell(c, v.hi));
            if a == b {
                continue;
            }
            if pieces.len() * (b - a + 1) > max {
                return pieces;
            }
            pieces = pieces
                .into_iter()
                .flat_map(|p| {
                    (a..=b).filter_map(move |cell| {
                        let (lo, hi) = Cells::bounds(c, cell);
                        let part = p[k].meet(Interval::new(lo, hi)?)?;
                        let mut q = p.clone();
                        q[k] = part;
                        Some(q)
                    })
                })
                .collect();
        }
        pieces
    }
}

/// The greatest rung of the ladder `{0} ∪ {±2^k}` at or below `v`.
fn ladder_down(v: i64) -> i64 {
    if v >= 1 {
        1i64 << (63 - v.leading_zeros())
    } else if v == 0 {
        0
    } else {
        -(1i64 << (64 - (-v - 1).leading_zeros()).min(31))
    }
}

/// The least rung of the ladder `{0} ∪ {±2^k}` at or above `v`.
fn ladder_up(v: i64) -> i64 {
    -ladder_down(-v)
}

/// The value of an expression that is the same in every state, if it is.
pub(super) fn constant(e: &Expr, m: &Machine) -> Option<i64> {
    let layout = m.layout();
    match e {
        Expr::Const(v) => Some(*v as i64),
        Expr::Global(g) => match layout.storage[g.0 as usize] {
            Storage::Const(v) => Some(v as i64),
            _ => None,
        },
        Expr::Index(ArrayRef::Array(g), i) => {
            let i = constant(i, m)?;
            let (base, len) = layout.array_at(g.0 as i32)?;
            let w = layout.state_width;
            (base >= w && i >= 0 && i < len as i64)
                .then(|| layout.consts[(base - w) as usize + i as usize] as i64)
        }
        Expr::Unary(crate::ir::UnOp::Neg, a) => Some(-constant(a, m)?),
        _ => None,
    }
}

/// Walks every statement and expression of the program.
fn walk_stmts<'p>(stmts: &'p [Stmt], f: &mut impl FnMut(Option<&'p Place>, &'p Expr)) {
    for s in stmts {
        match s {
            Stmt::Assign(p, e, _) => f(Some(p), e),
            Stmt::If(c, a, b) => {
                f(None, c);
                walk_stmts(a, f);
                walk_stmts(b, f);
            }
            Stmt::While(c, a) => {
                f(None, c);
                walk_stmts(a, f);
            }
            Stmt::Call(_, args, _) => args.iter().for_each(|a| f(None, a)),
            Stmt::Return(Some(e)) | Stmt::Output(e, _) | Stmt::Assume(e) => f(None, e),
            Stmt::Return(None) | Stmt::Error(_) | Stmt::Invalid => {}
        }
    }
}

fn walk_expr(e: &Expr, f: &mut impl FnMut(&Expr)) {
    f(e);
    match e {
        Expr::Index(_, i) | Expr::Unary(_, i) => walk_expr(i, f),
        Expr::Binary(_, a, b) => {
            walk_expr(a, f);
            walk_expr(b, f);
        }
        Expr::Cond(c, a, b) => {
            walk_expr(c, f);
            walk_expr(a, f);
            walk_expr(b, f);
        }
        Expr::Call(_, args) => args.iter().for_each(|a| walk_expr(a, f)),
        Expr::Const(_) | Expr::Global(_) | Expr::Local(_) | Expr::ArrayAddr(_) => {}
    }
}

/// The state slot of a global read, if it is one.
fn state_slot(m: &Machine, e: &Expr) -> Option<usize> {
    match e {
        Expr::Global(g) => match m.layout().storage[g.0 as usize] {
            Storage::State(a) => Some(a as usize),
            _ => None,
        },
        _ => None,
    }
}

/// The right-hand sides of every assignment to a counter.
fn counter_writes(p: &Program, m: &Machine, counter: &[bool]) -> Vec<*const Expr> {
    let mut out = Vec::new();
    for f in &p.functions {
        walk_stmts(&f.body, &mut |place, e| {
            if let Some(Place::Global(g)) = place {
                if state_slot(m, &Expr::Global(*g)).is_some_and(|s| counter[s]) {
                    out.push(e as *const Expr);
                }
            }
        });
    }
    out
}

fn cells(p: &Program, m: &Machine) -> Cells {
    let layout = m.layout();
    let width = layout.state_width as usize;
    let slot_of = |e: &Expr| state_slot(m, e);
    // Numeric: assigned an expression with arithmetic or a numeric read.
    let mut numeric = vec![false; width];
    let mut cuts: Vec<Vec<i64>> = vec![Vec::new(); width];
    loop {
        let mut changed = false;
        for f in &p.functions {
            walk_stmts(&f.body, &mut |place, e| {
                let Some(place) = place else { return };
                let mut arith = false;
                walk_expr(e, &mut |x| match x {
                    Expr::Binary(op, ..) if !matches!(op, BinOp::LogAnd | BinOp::LogOr) => {
                        arith |= !matches!(
                            op,
                            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
                        )
                    }
                    Expr::Unary(op, _) => arith |= *op != crate::ir::UnOp::Not,
                    Expr::Call(..) => arith = true,
                    other => arith |= slot_of(other).is_some_and(|s| numeric[s]),
                });
                if !arith {
                    return;
                }
                let slots: Vec<usize> = match place {
                    Place::Global(g) => slot_of(&Expr::Global(*g)).into_iter().collect(),
                    Place::Index(a, _) => {
                        let gs = match a {
                            ArrayRef::Array(g) => vec![*g],
                            ArrayRef::Pointer(_) => (0..p.globals.len() as u32)
                                .map(crate::ir::GlobalId)
                                .collect(),
                        };
                        gs.iter()
                            .filter_map(|g| layout.array_at(g.0 as i32))
                            .filter(|&(b, _)| b < layout.state_width)
                            .flat_map(|(b, l)| (b..b + l).map(|s| s as usize))
                            .collect()
                    }
                    Place::Local(_) => Vec::new(),
                };
                for s in slots {
                    if !numeric[s] {
                        numeric[s] = true;
                        changed = true;
                    }
                }
            });
        }
        if !changed {
            break;
        }
    }
    for f in &p.functions {
        walk_stmts(&f.body, &mut |_, e| {
            walk_expr(e, &mut |x| {
                let Expr::Binary(op, l, r) = x else { return };
                let (s, k, op) = match (slot_of(l), constant(r, m), slot_of(r), constant(l, m)) {
                    (Some(s), Some(k), _, _) => (s, k, *op),
                    (_, _, Some(s), Some(k)) => (s, k, super::step::mirror(*op)),
                    _ => return,
                };
                match op {
                    BinOp::Lt | BinOp::Ge => cuts[s].push(k),
                    BinOp::Le | BinOp::Gt => cuts[s].push(k + 1),
                    BinOp::Eq | BinOp::Ne => cuts[s].extend([k, k + 1]),
                    _ => {}
                }
            })
        });
    }
    let counter = counters(p, &numeric, &slot_of);
    let congruence = congruences(p, m, &counter, &slot_of, None);
    Cells {
        counter,
        congruence,
        relevance: Relevance::new(p, m),
        live: FxHashMap::default(),
        cuts: numeric
            .iter()
            .zip(cuts)
            .map(|(&n, mut c)| {
                n.then(|| {
                    c.sort_unstable();
                    c.dedup();
                    c
                })
            })
            .collect(),
    }
}

/// The numeric slots that are counters: every assignment to them is a
/// constant or `x ± d` where `d` is a constant or `cond ? k1 : k2` with
/// constants `k1`, `k2` and a `cond` that reads no slot but `x`; and some
/// assignment is of the second kind.
fn counters(p: &Program, numeric: &[bool], slot_of: &impl Fn(&Expr) -> Option<usize>) -> Vec<bool> {
    let width = numeric.len();
    let mut stepped = vec![false; width];
    let mut other = vec![false; width];
    let reads_only = |e: &Expr, s: usize| {
        let mut ok = true;
        walk_expr(e, &mut |x| match x {
            Expr::Global(_) => ok &= slot_of(x).is_none_or(|t| t == s),
            Expr::Local(_) | Expr::Index(..) | Expr::Call(..) | Expr::ArrayAddr(_) => ok = false,
            _ => {}
        });
        ok
    };
    let is_const = |e: &Expr| match e {
        Expr::Unary(crate::ir::UnOp::Neg, x) => matches!(**x, Expr::Const(_)),
        _ => matches!(e, Expr::Const(_)),
    };
    for f in &p.functions {
        walk_stmts(&f.body, &mut |place, e| {
            let Some(place) = place else { return };
            let slot = match place {
                Place::Global(g) => slot_of(&Expr::Global(*g)),
                // Array elements are never counters.
                Place::Index(..) | Place::Local(_) => None,
            };
            let Some(s) = slot else { return };
            let step = match e {
                Expr::Binary(BinOp::Add | BinOp::Sub, x, d) if slot_of(x) == Some(s) => {
                    match &**d {
                        Expr::Cond(c, a, b) => is_const(a) && is_const(b) && reads_only(c, s),
                        d => is_const(d),
                    }
                }
                _ => false,
            };
            if step {
                stepped[s] = true;
            } else if !is_const(e) {
                other[s] = true;
            }
        });
    }
    (0..width)
        .map(|s| numeric[s] && stepped[s] && !other[s])
        .collect()
}

/// Per counter: the congruence its steps keep. Every write to a counter
/// adds or subtracts a constant, or sets one; `m` is the largest power of
/// two dividing every step and every difference between a constant set and
/// the initial value, and `r` the initial value modulo `m`. Since `m`
/// divides 2^32, wrapping 32-bit arithmetic keeps `x ≡ r (mod m)` too, so
/// the invariant holds in every reachable state: `a36 == 5` is false for a
/// counter that starts at 2 and steps by 2. `None` where `m` would be 1.
///
/// With `fired`, only the writes whose right-hand sides it holds (by
/// address) count: those some step executed in a complete abstraction,
/// which covers every write a concrete run executes. A counter whose steps
/// never run keeps its initial value modulo 2^31.
fn congruences(
    p: &Program,
    m: &Machine,
    counter: &[bool],
    slot_of: &impl Fn(&Expr) -> Option<usize>,
    fired: Option<&FxHashSet<usize>>,
) -> Vec<Option<(i64, i64)>> {
    let init = m.initial_state();
    let value = |e: &Expr| match e {
        Expr::Const(v) => Some(*v as i64),
        Expr::Unary(crate::ir::UnOp::Neg, x) => match **x {
            Expr::Const(v) => Some(-(v as i64)),
            _ => None,
        },
        _ => None,
    };
    // Per slot: the fewest trailing zero bits of a step (32: none seen);
    // `None` once a write is not understood.
    let mut zeros: Vec<Option<u32>> = counter.iter().map(|&c| c.then_some(32)).collect();
    for f in &p.functions {
        walk_stmts(&f.body, &mut |place, e| {
            let Some(Place::Global(g)) = place else {
                return;
            };
            let Some(s) = slot_of(&Expr::Global(*g)) else {
                return;
            };
            let Some(z) = zeros[s] else { return };
            if fired.is_some_and(|f| !f.contains(&(e as *const Expr as usize))) {
                return;
            }
            let steps: Option<Vec<i64>> = match e {
                Expr::Binary(BinOp::Add | BinOp::Sub, x, d) if slot_of(x) == Some(s) => {
                    match &**d {
                        Expr::Cond(_, a, b) => value(a).zip(value(b)).map(|(a, b)| vec![a, b]),
                        d => value(d).map(|d| vec![d]),
                    }
                }
                e => value(e).map(|c| vec![c - init[s] as i64]),
            };
            zeros[s] = steps.map(|st| {
                st.iter()
                    .filter(|&&d| d != 0)
                    .map(|d| d.trailing_zeros())
                    .fold(z, u32::min)
            });
        });
    }
    zeros
        .iter()
        .enumerate()
        .map(|(s, z)| {
            let z = (*z)?.min(31);
            let m = 1i64 << z;
            (z > 0).then(|| (m, (init[s] as i64).rem_euclid(m)))
        })
        .collect()
}

/// Whether the program has numeric slots at all: without them the
/// abstraction is the program itself and explores nothing new.
pub fn has_numeric_slots(p: &Program, m: &Machine) -> bool {
    cells(p, m).cuts.iter().any(Option::is_some)
}

/// Most rounds of [`refine`]: each explores the abstraction again.
pub const MAX_ROUNDS: usize = 12;

/// Explores the abstract transition system to its fixpoint. `Err` when the
/// limits run out or the step cannot be interpreted soundly.
///
/// With [`Relevance`], states are first keyed on the slots their next step
/// depends on; [`refine`] then finds the slots a later step reads before
/// any step writes them, and the exploration runs again keeping those too,
/// until nothing is learnt or [`MAX_ROUNDS`]. Every round's result is a
/// sound abstraction; the last one that completes is returned.
pub fn explore_abstract(p: &Program, m: &Machine, limits: &AbsLimits) -> Result<AbsGraph, Unsound> {
    rounds(p, m, limits, |_| false, false)
}

/// [`explore_abstract`], stopping at the first round whose result `enough`
/// accepts (every round's result is sound; later rounds are only more
/// precise, and may take much longer). A first round that completes but is
/// not enough is tried once more with the same keys, widening only after
/// [`WIDEN_AFTER_RETRY`] growths, before any key is refined: widening may
/// be what lost the precision (the Java version of the 2019 challenge LTL
/// problem 5 joins modes whose intervals then widen to `[116, i32::MAX]`,
/// and a later guard splits there), while a refinement round keys on more
/// slots and may be far larger.
pub fn explore_abstract_until(
    p: &Program,
    m: &Machine,
    limits: &AbsLimits,
    enough: impl FnMut(&AbsGraph) -> bool,
) -> Result<AbsGraph, Unsound> {
    rounds(p, m, limits, enough, true)
}

/// The rounds of [`explore_abstract_until`]; `widen_later_first`: try a
/// first round that is not `enough` again with later widening.
fn rounds(
    p: &Program,
    m: &Machine,
    limits: &AbsLimits,
    mut enough: impl FnMut(&AbsGraph) -> bool,
    widen_later_first: bool,
) -> Result<AbsGraph, Unsound> {
    let mut cells = cells(p, m);
    let tracked = counter_writes(p, m, &cells.counter);
    let mut last = None;
    let mut widen_after = WIDEN_AFTER;
    for _ in 0..MAX_ROUNDS {
        let step = AbstractStep::new(p, m)
            .with_congruences(cells.congruence.clone())
            .tracking(tracked.iter().copied());
        let (g, liveness) = match explore_keyed(&cells, &step, m, limits, widen_after) {
            Ok(done) => done,
            Err(RoundError::Limit(why)) => return last.ok_or(why),
            Err(RoundError::Unsound(why)) => {
                if last.is_none() && widen_after == WIDEN_AFTER {
                    widen_after = WIDEN_AFTER_RETRY;
                    continue;
                }
                if last.is_none() && cells.relevance.is_some() {
                    // Joining the slots relevance left out lost too much:
                    // key on every slot instead.
                    cells.relevance = None;
                    widen_after = WIDEN_AFTER;
                    continue;
                }
                return last.ok_or(why);
            }
        };
        if enough(&g) {
            return Ok(g);
        }
        if widen_later_first && last.is_none() && widen_after == WIDEN_AFTER {
            widen_after = WIDEN_AFTER_RETRY;
            last = Some(g);
            continue;
        }
        let finer = finer_congruences(p, m, &mut cells, &step.fired());
        let refined = cells.relevance.is_some() && refine(&mut cells, &g, &liveness);
        last = Some(g);
        if !finer && !refined {
            break;
        }
    }
    let g = last.expect("at least one round");
    Ok(g)
}

/// Narrows the counters' congruences to the steps that `fired` in a
/// complete abstraction (see [`congruences`]); returns whether any got
/// finer. Both the old and the new class hold in every reachable state and
/// both contain the initial value, so the finer of the two is kept.
fn finer_congruences(
    p: &Program,
    m: &Machine,
    cells: &mut Cells,
    fired: &FxHashSet<usize>,
) -> bool {
    let slot_of = |e: &Expr| state_slot(m, e);
    let new = congruences(p, m, &cells.counter, &slot_of, Some(fired));
    let mut finer = false;
    for (old, new) in cells.congruence.iter_mut().zip(new) {
        if new.is_some_and(|(n, _)| old.is_none_or(|(o, _)| n > o)) {
            *old = new;
            finer = true;
        }
    }
    finer
}

/// What a round learns about each abstract state for [`refine`].
#[derive(Default)]
struct Liveness {
    /// Per state: each successor, with the slots the step there overwrote.
    succ: Vec<Vec<(StateId, Vec<bool>)>>,
    /// Per state: the slots the checks of its error steps read and the step
    /// did not overwrite.
    read_by_errors: Vec<Vec<bool>>,
    /// Per state: the relevance keys of the successors joined into it.
    origins: Vec<rustc_hash::FxHashSet<Vec<i64>>>,
}

/// Why one round of the abstraction stopped before its fixpoint.
#[derive(Debug)]
enum RoundError {
    /// A limit ran out: no other round can do better in what is left.
    Limit(String),
    /// The step could not be interpreted soundly from some abstract state.
    Unsound(Unsound),
}

/// One exploration of the abstraction keyed by `cells`, widening an
/// interval after `widen_after` growths (straight to its cells after twice
/// as many).
fn explore_keyed(
    cells: &Cells,
    step: &AbstractStep,
    m: &Machine,
    limits: &AbsLimits,
    widen_after: u32,
) -> Result<(AbsGraph, Liveness), RoundError> {
    let width = m.layout().state_width as usize;
    let mut live = Liveness::default();
    let mut g = AbsGraph {
        inputs: m.input_names.clone(),
        outputs: m.output_names.clone(),
        numeric_slots: cells.cuts.iter().filter(|c| c.is_some()).count(),
        ..AbsGraph::default()
    };
    let mut index: FxHashMap<Vec<i64>, StateId> = FxHashMap::default();
    let mut growth: Vec<u32> = Vec::new();
    let mut queued: Vec<bool> = Vec::new();
    let mut queue = std::collections::VecDeque::new();
    let budget = crate::ltl::emptiness::Budget {
        deadline: limits.deadline,
        memory_limit: limits.memory_limit,
    };
    let init = step.initial(m);
    let (key, coarse) = cells.keys(&init);
    index.insert(key, 0);
    g.values.push(init);
    g.edges.push(Vec::new());
    live.succ.push(Vec::new());
    live.read_by_errors.push(vec![false; width]);
    live.origins.push(coarse.into_iter().collect());
    growth.push(0);
    queued.push(true);
    queue.push_back(0);
    while let Some(s) = queue.pop_front() {
        queued[s as usize] = false;
        g.expansions += 1;
        if g.expansions.is_multiple_of(256) {
            if let Some(why) = budget.spent() {
                return Err(RoundError::Limit(
                    why.replace("during the check", "during the abstraction"),
                ));
            }
        }
        let mut edges = Vec::new();
        let mut succ = Vec::new();
        let mut read_by_errors = vec![false; width];
        let mut targets_of: FxHashMap<AbsState, Vec<StateId>> = FxHashMap::default();
        for input in 0..g.inputs.len() {
            let from = g.values[s as usize].clone();
            let mut posts = Vec::new();
            let steps = step
                .step_written(&from, input)
                .map_err(RoundError::Unsound)?;
            for (outcome, post, written) in steps {
                match outcome {
                    Outcome::Error(_) | Outcome::Blocked => {
                        if let (Outcome::Error(_), Some(r)) = (outcome, &cells.relevance) {
                            let rel = r.relevant(&post);
                            for k in 0..width {
                                read_by_errors[k] |= rel[k] && !written[k];
                            }
                        }
                        posts.push((outcome, None, written))
                    }
                    _ => posts.push((outcome, Some(post), written)),
                }
            }
            for (outcome, post, written) in posts {
                let edge = |target| AbsEdge {
                    input: input as u16,
                    packed: outcome.pack(),
                    target,
                };
                let Some(post) = post else {
                    edges.push(edge(NO_STATE));
                    continue;
                };
                // Many inputs leave the state as it was (invalid ones):
                // split, key and join each distinct successor once.
                if let Some(targets) = targets_of.get(&post) {
                    for &target in targets {
                        succ.push((target, written.clone()));
                        edges.push(edge(target));
                    }
                    continue;
                }
                let mut targets = Vec::new();
                // The pieces of one key are joined first, one target each: a
                // successor split into 200 pieces of one key (the stale
                // slots split too) is one growth of its state, not 199.
                let mut groups: Vec<(Vec<i64>, Vec<Vec<i64>>, AbsState)> = Vec::new();
                let mut group_of: FxHashMap<Vec<i64>, usize> = FxHashMap::default();
                for piece in cells.split(post.clone(), MAX_SPLIT) {
                    let (key, coarse) = cells.keys(&piece);
                    if let Some(&i) = group_of.get(&key) {
                        let (_, origins, joined) = &mut groups[i];
                        for (a, b) in joined.iter_mut().zip(&piece) {
                            *a = a.join(*b);
                        }
                        origins.extend(coarse);
                    } else {
                        group_of.insert(key.clone(), groups.len());
                        groups.push((key, coarse.into_iter().collect(), piece));
                    }
                }
                for (key, coarse, post) in groups {
                    let target = {
                        match index.get(&key) {
                            Some(&t) => {
                                let old = &g.values[t as usize];
                                let mut joined: AbsState =
                                    old.iter().zip(&post).map(|(a, b)| a.join(*b)).collect();
                                if &joined != old {
                                    growth[t as usize] += 1;
                                    if growth[t as usize] > widen_after {
                                        let to_cell = growth[t as usize]
                                            > widen_after * CELL_AFTER / WIDEN_AFTER;
                                        cells.widen(old, &mut joined, to_cell);
                                    }
                                    g.values[t as usize] = joined;
                                    if !queued[t as usize] {
                                        queued[t as usize] = true;
                                        queue.push_back(t);
                                    }
                                }
                                live.origins[t as usize].extend(coarse);
                                t
                            }
                            None => {
                                let t = g.values.len() as StateId;
                                if limits.max_states.is_some_and(|n| t as usize >= n) {
                                    return Err(RoundError::Limit(format!(
                                        "more than {t} abstract states"
                                    )));
                                }
                                index.insert(key, t);
                                g.values.push(post);
                                g.edges.push(Vec::new());
                                live.succ.push(Vec::new());
                                live.read_by_errors.push(vec![false; width]);
                                live.origins.push(coarse.into_iter().collect());
                                growth.push(0);
                                queued.push(true);
                                queue.push_back(t);
                                t
                            }
                        }
                    };
                    targets.push(target);
                    succ.push((target, written.clone()));
                    edges.push(edge(target));
                }
                targets_of.insert(post, targets);
            }
        }
        edges.sort_unstable();
        edges.dedup();
        g.edges[s as usize] = edges;
        succ.sort_unstable();
        succ.dedup();
        live.succ[s as usize] = succ;
        live.read_by_errors[s as usize] = read_by_errors;
    }
    g.cells = cells.clone();
    g.index = index;
    Ok((g, live))
}

/// Learns, from one round's abstraction, the slots each state's future
/// reads before writing them (a backward fixpoint over its edges, from
/// what [`Relevance`] finds each step reads) and records those the state's
/// key left out, under the relevance keys of the states joined into it.
/// Returns whether anything was learnt.
fn refine(cells: &mut Cells, g: &AbsGraph, liveness: &Liveness) -> bool {
    let Some(r) = &cells.relevance else {
        return false;
    };
    let n = g.n_states();
    let width = cells.cuts.len();
    let mut live: Vec<Vec<bool>> = (0..n)
        .map(|s| {
            let mut l = r.relevant(&g.values[s]);
            let errors = &liveness.read_by_errors[s];
            for ((x, &e), &counter) in l.iter_mut().zip(errors).zip(&cells.counter) {
                *x = (*x || e) && !counter;
            }
            l
        })
        .collect();
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (s, succ) in liveness.succ.iter().enumerate() {
        for (t, _) in succ {
            preds[*t as usize].push(s);
        }
    }
    let mut queue: std::collections::VecDeque<usize> = (0..n).collect();
    let mut queued = vec![true; n];
    while let Some(t) = queue.pop_front() {
        queued[t] = false;
        for &s in &preds[t] {
            let mut grew = false;
            for (t2, written) in &liveness.succ[s] {
                if *t2 as usize != t {
                    continue;
                }
                for k in 0..width {
                    if live[t][k] && !written[k] && !live[s][k] {
                        live[s][k] = true;
                        grew = true;
                    }
                }
            }
            if grew && !queued[s] {
                queued[s] = true;
                queue.push_back(s);
            }
        }
    }
    let mut learnt = false;
    for (s, l) in live.iter().enumerate() {
        let key = cells.key(&g.values[s]);
        if !(0..width).any(|k| l[k] && key[k] == IRRELEVANT) {
            continue;
        }
        for coarse in &liveness.origins[s] {
            let kept = cells
                .live
                .entry(coarse.clone())
                .or_insert_with(|| vec![false; width]);
            for k in 0..width {
                if l[k] && !kept[k] {
                    kept[k] = true;
                    learnt = true;
                }
            }
        }
    }
    learnt
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ladder_rungs() {
        assert_eq!(ladder_down(5), 4);
        assert_eq!(ladder_down(4), 4);
        assert_eq!(ladder_down(0), 0);
        assert_eq!(ladder_down(-4), -4);
        assert_eq!(ladder_down(-5), -8);
        assert_eq!(ladder_down(i32::MIN as i64), i32::MIN as i64);
        assert_eq!(ladder_up(5), 8);
        assert_eq!(ladder_up(-5), -4);
        assert_eq!(ladder_up(i32::MAX as i64), 1 << 31);
    }

    #[test]
    fn split_follows_the_cells() {
        let cells = Cells {
            cuts: vec![Some(vec![36, 199]), None],
            counter: vec![false, false],
            congruence: vec![None, None],
            relevance: None,
            live: FxHashMap::default(),
        };
        let s = vec![Interval::new(0, 250).unwrap(), Interval::point(7)];
        let parts = cells.split(s, 256);
        assert_eq!(parts.len(), 3);
        assert_eq!(parts[1][0], Interval::new(36, 198).unwrap());
        assert!(parts.iter().all(|p| p[1] == Interval::point(7)));
    }

    /// The counters of a bundled program: global name and congruence.
    fn counters_of(problem: &str) -> Vec<(String, Option<(i64, i64)>)> {
        let path = format!("{}/problems/{problem}", env!("CARGO_MANIFEST_DIR"));
        let p = crate::frontend::load(&path).expect("loads");
        let m = Machine::compile(&p).expect("compiles");
        let cells = cells(&p, &m);
        let mut out = Vec::new();
        for (g, st) in m.layout().storage.iter().enumerate() {
            if let Storage::State(s) = st {
                if cells.counter[*s as usize] {
                    out.push((p.globals[g].name.clone(), cells.congruence[*s as usize]));
                }
            }
        }
        out
    }

    fn counter_names(problem: &str) -> Vec<String> {
        counters_of(problem).into_iter().map(|c| c.0).collect()
    }

    #[test]
    fn counters_are_the_self_stepped_slots() {
        assert_eq!(counter_names("reach-counter/Problem907.c"), ["c"]);
        // x = (x * 3 - 2) % 11 is arithmetic, not a step.
        assert!(counter_names("reach-arith/Problem902.c").is_empty());
    }

    #[test]
    fn refinement_keeps_a_slot_read_after_a_mode_change() {
        let path = format!(
            "{}/problems/reach-modes/Problem909.c",
            env!("CARGO_MANIFEST_DIR")
        );
        let p = crate::frontend::load(&path).expect("loads");
        let m = Machine::compile(&p).expect("compiles");
        let limits = AbsLimits::default();
        // Keyed on the next step alone, mode 2 joins s = 0 and s = 9 into [0, 9], and
        // back in mode 1 error 0 (s == 7) looks reachable.
        let cells = cells(&p, &m);
        assert!(cells.relevance.is_some());
        let step = AbstractStep::new(&p, &m).with_congruences(cells.congruence.clone());
        let (first, _) = explore_keyed(&cells, &step, &m, &limits, WIDEN_AFTER).expect("explores");
        assert_eq!(first.error_labels(), [0, 1, 2]);
        // Refined: s is kept in mode 2, and only the reachable labels remain.
        let g = explore_abstract(&p, &m, &limits).expect("explores");
        assert_eq!(g.error_labels(), [1, 2]);
    }

    #[test]
    fn counters_keep_their_congruence() {
        // c starts at 0 and steps by 2: even.
        assert_eq!(
            counters_of("reach-counter/Problem907.c"),
            [("c".into(), Some((2, 0)))]
        );
        // c starts at 1 and steps by +2 and -4: odd.
        assert_eq!(
            counters_of("reach-parity/Problem908.c"),
            [("c".into(), Some((2, 1)))]
        );
    }

    #[test]
    fn congruence_follows_the_steps_that_run() {
        // c steps by +2 and, where x == 9, by +1: syntactically nothing is
        // known. No run sets x to 9, so the +1 never runs and c is even:
        // error 0 (c == 7) is unreachable.
        assert_eq!(counters_of("reach-pump/Problem910.c"), [("c".into(), None)]);
        let path = format!(
            "{}/problems/reach-pump/Problem910.c",
            env!("CARGO_MANIFEST_DIR")
        );
        let p = crate::frontend::load(&path).expect("loads");
        let m = Machine::compile(&p).expect("compiles");
        let g = explore_abstract(&p, &m, &AbsLimits::default()).expect("explores");
        let c = m.layout().slot_names.iter().position(|n| n == "c").unwrap();
        assert_eq!(g.cells.congruence[c], Some((2, 0)));
        assert_eq!(g.error_labels(), [1]);
    }

    #[test]
    fn cells_cut_at_the_compared_constants() {
        let cuts = vec![36, 199, 248];
        assert_eq!(Cells::cell(&cuts, 35), 0);
        assert_eq!(Cells::cell(&cuts, 36), 1);
        assert_eq!(Cells::cell(&cuts, 247), 2);
        assert_eq!(Cells::cell(&cuts, 248), 3);
        assert_eq!(Cells::bounds(&cuts, 0), (i32::MIN as i64, 35));
        assert_eq!(Cells::bounds(&cuts, 2), (199, 247));
        assert_eq!(Cells::bounds(&cuts, 3), (248, i32::MAX as i64));
    }
}
