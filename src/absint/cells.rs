//! The cells the abstract states are keyed on: which slots are numeric,
//! the constants that cut each numeric slot's values into cells, the
//! counters and their congruences, and the widening along a ladder.
//!
//! *Counters* are numeric slots only ever stepped by themselves (`a36 +=
//! (a36 + 20) > a36 ? 2 : 0`, the RERS 2017 counters, or `x = x + 1`). They
//! are left out of every key: they are independent of each other and of the
//! rest, so keying on their cells multiplies the abstract states by the
//! product of their cell counts, while their few guards (`a36 == 4`) are
//! decided or split by the step anyway. Their steps keep them in one class
//! modulo a power of two ([`congruences`]); a guard narrowing a counter is
//! cut to that class, so `a36 == 5` is false for an even one.

use rustc_hash::{FxHashMap, FxHashSet};

use super::analysis::{constant, state_slot, walk_expr, walk_stmts};
use super::interval::Interval;
use super::relevance::Relevance;
use super::step::AbsState;
use crate::engine::Machine;
use crate::ir::{ArrayRef, BinOp, Expr, Place, Program};
use crate::system::System;

/// Which slots are numeric, and the cuts of each numeric slot.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub(super) struct Cells {
    /// Per slot: `None` for a control slot, the sorted cuts (first values of
    /// each cell after the first) for a numeric one.
    pub(super) cuts: Vec<Option<Vec<i64>>>,
    /// Per slot: whether it is a counter, left out of keys and splits.
    pub(super) counter: Vec<bool>,
    /// Per slot: `(m, r)` where every reachable value of the counter is
    /// `r` modulo `m` (see [`congruences`]).
    pub(super) congruence: Vec<Option<(i64, i64)>>,
    /// Which slots a state's key keeps; `None` keeps them all.
    pub(super) relevance: Option<Relevance>,
    /// Slots kept besides the relevant ones, by the key the relevant ones
    /// alone give (learnt by [`refine`]).
    pub(super) live: FxHashMap<Vec<i64>, Vec<bool>>,
    /// Per slot: whether some entry of `live` keeps it (empty: none).
    pub(super) live_any: Vec<bool>,
}

/// The key part of a slot the state's future does not depend on.
pub(super) const IRRELEVANT: i64 = i64::MIN + 1;

/// What [`Cells::split_slots`] finds of a successor.
pub(super) struct SplitSlots {
    /// Per slot, whether to split along it.
    pub along: Vec<bool>,
    /// The successor's relevance ([`Relevance::relevant`]).
    pub relevant: Vec<bool>,
}

impl Cells {
    pub(super) fn cell(cuts: &[i64], v: i64) -> usize {
        cuts.partition_point(|&c| c <= v)
    }

    /// The bounds of cell `k`.
    pub(super) fn bounds(cuts: &[i64], k: usize) -> (i64, i64) {
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
        self.keys_of_relevant(s, &r.relevant(s))
    }

    /// [`Cells::keys`] of `s` under relevance, its relevance `rel` known
    /// (from [`Cells::split_slots`]: not asked twice).
    pub(super) fn keys_of_relevant(
        &self,
        s: &AbsState,
        rel: &[bool],
    ) -> (Vec<i64>, Option<Vec<i64>>) {
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

    pub(super) fn key(&self, s: &AbsState) -> Vec<i64> {
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
    pub(super) fn widen(&self, old: &AbsState, s: &mut AbsState, to_cell: bool) {
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

    /// Per slot, whether splitting `s` along it may give pieces of
    /// different keys: the slots the relevance of `s` looks at or keeps,
    /// and those a refinement keeps anywhere ([`Cells::live_any`]). `None`
    /// without relevance (every slot is in every key).
    ///
    /// A piece of `s` that differs from the others only in slots not
    /// marked has, but for a witness chosen differently
    /// ([`Relevance::relevant_and_consulted`]), their relevance and, those
    /// slots being left out of it, their key: such pieces were joined
    /// right back into one.
    ///
    /// The relevance of `s` comes with them: a successor left whole needs
    /// no second question for its key ([`Cells::keys_of_relevant`]).
    pub(super) fn split_slots(&self, s: &AbsState) -> Option<SplitSlots> {
        let r = self.relevance.as_ref()?;
        let (relevant, mut along) = r.relevant_and_consulted(s);
        for (k, a) in along.iter_mut().enumerate() {
            *a |= relevant[k] || self.live_any.get(k).is_some_and(|&l| l);
        }
        Some(SplitSlots { along, relevant })
    }

    /// Splits `s` into one state per combination of cells its numeric
    /// intervals span (the union is `s`), unless there would be more than
    /// `max` pieces.
    pub(super) fn split(&self, s: AbsState, max: usize) -> Vec<AbsState> {
        self.split_along(s, max, None)
    }

    /// [`Cells::split`] along the slots `along` marks only (all if `None`).
    pub(super) fn split_along(
        &self,
        s: AbsState,
        max: usize,
        along: Option<&[bool]>,
    ) -> Vec<AbsState> {
        let mut pieces = vec![s];
        // The pieces splitting along every slot would have made so far: the
        // limit counts those, so that the slots skipped change nothing.
        let mut all = 1;
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
            if all * (b - a + 1) > max {
                return pieces;
            }
            all *= b - a + 1;
            if along.is_some_and(|a| !a[k]) {
                continue;
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

/// The right-hand sides of every assignment to a counter.
pub(super) fn counter_writes(p: &Program, m: &Machine, counter: &[bool]) -> Vec<*const Expr> {
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

pub(super) fn cells(p: &Program, m: &Machine) -> Cells {
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
                    (_, _, Some(s), Some(k)) => (s, k, super::interval::mirror(*op)),
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
        live_any: Vec::new(),
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
pub(super) fn congruences(
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Storage;

    #[test]
    fn syntax_alone_gives_no_congruence_to_an_odd_step() {
        // c steps by +2 and, where x == 9, by +1 (see the abstraction's
        // test that learns from the steps that run).
        assert_eq!(counters_of("reach-pump/Problem910.c"), [("c".into(), None)]);
    }

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
            live_any: Vec::new(),
        };
        let s = vec![Interval::new(0, 250).unwrap(), Interval::point(7)];
        let parts = cells.split(s, 256);
        assert_eq!(parts.len(), 3);
        assert_eq!(parts[1][0], Interval::new(36, 198).unwrap());
        assert!(parts.iter().all(|p| p[1] == Interval::point(7)));
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
}
