//! Which parts of one program may be reordered without changing what it
//! does: the facts the structural equivalence proof ([`super::structural`])
//! needs to match code that the RERS generators print in different orders.
//!
//! Three kinds of reordering are justified here, each by a syntactic check
//! that is sufficient (never necessary):
//!
//! - **Conjuncts** of an `&&` chain, when every conjunct is *total*: it
//!   cannot fault (no division, no call, only constant in-bounds indexes)
//!   and has no side effects, so short-circuiting changes nothing.
//! - **Assignment runs**: consecutive assignments to scalar or pointer
//!   globals with call-free right-hand sides may be executed in any order
//!   that keeps each pair of *conflicting* assignments (one writes what the
//!   other reads or writes) in its order: such orders are reachable from
//!   each other by swapping adjacent independent assignments, which changes
//!   nothing (see [`conflicts`]).
//! - **Rule runs**: consecutive `if (guard) body` statements (no `else`)
//!   whose guards are total, each contain the test "no rule fired yet"
//!   (`cf == 1`, Java `cf`) as a top-level conjunct, are pairwise disjoint
//!   by interval reasoning on their atoms, and whose bodies are *atomic*:
//!   every path that completes normally either changes nothing and prints
//!   nothing, or clears the flag (`cf = 0`), which nothing but the step's
//!   first statement sets again (paths that end the run, by an error, an
//!   invalid input or a fault, end it in any order). Then in any order at most the rule whose guard holds before the
//!   run fires: a guard that fails changes nothing, and a body that fires
//!   either clears the flag (every later guard fails) or changes nothing.

use std::collections::{HashMap, HashSet};

use crate::engine::written_globals;

use crate::ir::{
    ArrayRef, BinOp, Expr, FuncId, GlobalId, GlobalKind, Place, Program, ScalarTy, Stmt, UnOp,
};

/// The conjuncts of an `&&` chain (the expression itself if it is not one).
pub fn conjuncts(e: &Expr) -> Vec<&Expr> {
    let mut out = Vec::new();
    fn walk<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
        match e {
            Expr::Binary(BinOp::LogAnd, l, r) => {
                walk(l, out);
                walk(r, out);
            }
            _ => out.push(e),
        }
    }
    walk(e, &mut out);
    out
}

/// Facts about one program that the reorderings rely on.
pub struct Commute<'p> {
    p: &'p Program,
    /// The "no rule fired yet" flag, if the program follows the pattern.
    flag: Option<GlobalId>,
    /// The shortest array a pointer (or an array index) can reach.
    min_array_len: usize,
    /// Globals some statement may write (arrays through pointers included).
    written: HashSet<GlobalId>,
    /// Outcomes of each function analysed so far (`None`: not followed).
    atomic: HashMap<FuncId, Option<u8>>,
}

impl<'p> Commute<'p> {
    /// Analyses `p`.
    pub fn new(p: &'p Program) -> Commute<'p> {
        let min_array_len = p
            .globals
            .iter()
            .filter_map(|g| match &g.kind {
                GlobalKind::Array { init, .. } => Some(init.len()),
                _ => None,
            })
            .min()
            .unwrap_or(0);
        let flag = p
            .globals
            .iter()
            .position(|g| g.name == "cf" && matches!(g.kind, GlobalKind::Scalar { .. }))
            .map(|i| GlobalId(i as u32))
            .filter(|&cf| flag_discipline(p, cf));
        Commute {
            p,
            flag,
            min_array_len,
            written: written_globals(p),
            atomic: HashMap::new(),
        }
    }

    fn array_len(&self, a: &ArrayRef) -> usize {
        match a {
            ArrayRef::Array(g) => match &self.p.global(*g).kind {
                GlobalKind::Array { init, .. } => init.len(),
                _ => 0,
            },
            ArrayRef::Pointer(_) => self.min_array_len,
        }
    }

    /// The value of `e` if it is a constant or reads a constant index of an
    /// array that is never written (`inputs[4]`).
    pub fn constant(&self, e: &Expr) -> Option<i32> {
        let Expr::Index(ArrayRef::Array(g), i) = e else {
            return match e {
                Expr::Const(k) => Some(*k),
                _ => None,
            };
        };
        let (Expr::Const(k), GlobalKind::Array { init, .. }) =
            (i.as_ref(), &self.p.global(*g).kind)
        else {
            return None;
        };
        if self.written.contains(g) {
            return None;
        }
        usize::try_from(*k).ok().and_then(|k| init.get(k).copied())
    }

    /// Whether evaluating `e` can neither fault nor have an effect.
    pub fn total(&self, e: &Expr) -> bool {
        match e {
            Expr::Const(_) | Expr::Global(_) | Expr::Local(_) | Expr::ArrayAddr(_) => true,
            Expr::Index(a, i) => match i.as_ref() {
                Expr::Const(k) => *k >= 0 && (*k as usize) < self.array_len(a),
                _ => false,
            },
            Expr::Unary(_, x) => self.total(x),
            Expr::Binary(op, l, r) => {
                !matches!(op, BinOp::Div | BinOp::Rem) && self.total(l) && self.total(r)
            }
            Expr::Cond(c, t, f) => self.total(c) && self.total(t) && self.total(f),
            Expr::Call(..) => false,
        }
    }

    /// Whether `e` is an `&&` chain of total conjuncts (which may be
    /// matched in any order).
    pub fn reorderable_conjunction(&self, e: &Expr) -> bool {
        matches!(e, Expr::Binary(BinOp::LogAnd, ..)) && self.total(e)
    }

    /// Splits a block into units: runs of reorderable assignments, runs of
    /// reorderable rules, and single statements, in order.
    pub fn units<'s>(&mut self, block: &'s [Stmt]) -> Vec<Unit<'s>> {
        let mut units = Vec::new();
        let mut i = 0;
        while i < block.len() {
            let n = self
                .assignment_run(&block[i..])
                .max(self.rule_run(&block[i..]));
            if n >= 2 {
                let kind = if matches!(block[i], Stmt::Assign(..)) {
                    UnitKind::Assignments
                } else {
                    UnitKind::Rules
                };
                units.push(Unit {
                    kind,
                    stmts: &block[i..i + n],
                });
                i += n;
            } else {
                units.push(Unit {
                    kind: UnitKind::Single,
                    stmts: &block[i..i + 1],
                });
                i += 1;
            }
        }
        units
    }

    /// Length of the run of assignments to globals, with call-free
    /// right-hand sides, starting `block`.
    fn assignment_run(&self, block: &[Stmt]) -> usize {
        block
            .iter()
            .take_while(|s| assignment_effect(s).is_some())
            .count()
    }

    /// Length of the run of reorderable rules starting `block`.
    fn rule_run(&mut self, block: &[Stmt]) -> usize {
        let Some(flag) = self.flag else {
            return 0;
        };
        let mut guards: Vec<Vec<Atom>> = Vec::new();
        for s in block {
            let Stmt::If(c, body, els) = s else {
                break;
            };
            if !els.is_empty() || !self.total(c) {
                break;
            }
            let cs = conjuncts(c);
            if !cs.iter().any(|x| tests_flag_set(x, flag)) {
                break;
            }
            if !self.atomic_block(body, flag) {
                break;
            }
            let atoms: Vec<Atom> = cs.iter().filter_map(|x| self.atom(x)).collect();
            if !guards.iter().all(|g| disjoint(g, &atoms)) {
                break;
            }
            guards.push(atoms);
        }
        guards.len()
    }

    /// Reads a conjunct as an [`Atom`], if it has that shape (constants
    /// include elements of read-only arrays).
    fn atom<'e>(&self, e: &'e Expr) -> Option<Atom<'e>> {
        const MIN: i64 = i32::MIN as i64;
        const MAX: i64 = i32::MAX as i64;
        match e {
            // A bare boolean holds 1; a bare int could be any non-zero.
            Expr::Global(g)
                if matches!(
                    self.p.global(*g).kind,
                    GlobalKind::Scalar {
                        ty: ScalarTy::Bool,
                        ..
                    }
                ) =>
            {
                Some(Atom {
                    subject: e,
                    lo: 1,
                    hi: 1,
                })
            }
            Expr::Unary(UnOp::Not, x) if matches!(x.as_ref(), Expr::Global(_)) => Some(Atom {
                subject: x,
                lo: 0,
                hi: 0,
            }),
            Expr::Binary(op, l, r) => {
                // Put the constant on the right: `k < x` is `x > k`.
                let (op, x, k) = match (self.constant(l), self.constant(r)) {
                    (None, Some(k)) => (*op, l.as_ref(), k as i64),
                    (Some(k), None) => (flip(*op)?, r.as_ref(), k as i64),
                    _ => return None,
                };
                let (lo, hi) = match op {
                    BinOp::Eq => (k, k),
                    BinOp::Lt => (MIN, k - 1),
                    BinOp::Le => (MIN, k),
                    BinOp::Gt => (k + 1, MAX),
                    BinOp::Ge => (k, MAX),
                    _ => return None,
                };
                Some(Atom { subject: x, lo, hi })
            }
            _ => None,
        }
    }

    /// Whether every path through `block` that completes normally either
    /// has no effect or clears the flag (see the module doc).
    fn atomic_block(&mut self, block: &[Stmt], flag: GlobalId) -> bool {
        self.outcomes(block, START, flag)
            .is_some_and(|o| (o.done | o.returned) & DIRTY == 0)
    }

    /// The outcomes of the paths through `block` entered in the states
    /// `entry`; `None` for code the analysis does not follow (loops, calls
    /// in expressions).
    fn outcomes(&mut self, block: &[Stmt], entry: u8, flag: GlobalId) -> Option<Outcomes> {
        let mut now = entry;
        let mut returned = 0;
        for s in block {
            if now == 0 {
                break;
            }
            now = match s {
                Stmt::Assign(place, e, _) => {
                    if has_call(e) || matches!(place, Place::Index(_, i) if has_call(i)) {
                        return None;
                    }
                    match (place, e) {
                        (Place::Global(g), Expr::Const(0)) if *g == flag => clear(now),
                        _ => dirty(now),
                    }
                }
                Stmt::Output(e, _) if !has_call(e) => dirty(now),
                // The run ends: no normal completion.
                Stmt::Error(_) | Stmt::Invalid => 0,
                Stmt::If(c, t, e) if !has_call(c) => {
                    let t = self.outcomes(t, now, flag)?;
                    let e = self.outcomes(e, now, flag)?;
                    returned |= t.returned | e.returned;
                    t.done | e.done
                }
                Stmt::Call(f, args, _) if !args.iter().any(has_call) => {
                    let callee = self.function_outcomes(*f, flag)?;
                    after(now, callee)
                }
                Stmt::Return(None) => {
                    returned |= now;
                    0
                }
                _ => return None,
            };
        }
        Some(Outcomes {
            done: now,
            returned,
        })
    }

    /// The outcomes of a call of `f` from a clean state (normal or by
    /// `return`, merged).
    fn function_outcomes(&mut self, f: FuncId, flag: GlobalId) -> Option<u8> {
        if let Some(&known) = self.atomic.get(&f) {
            return known;
        }
        // Recursion is not followed.
        self.atomic.insert(f, None);
        let p = self.p;
        let o = self
            .outcomes(&p.function(f).body, START, flag)
            .map(|o| o.done | o.returned);
        self.atomic.insert(f, o);
        o
    }
}

/// Path states as a bit set over (has had an effect, has cleared the flag):
/// bit `2 * effect + cleared`.
const START: u8 = 1 << 0;
/// The one bad state: an effect without clearing the flag.
const DIRTY: u8 = 1 << 2;

/// Outcomes of a block: states at its end, and at a `return` inside it.
struct Outcomes {
    done: u8,
    returned: u8,
}

/// Maps every state in `set` through `f`.
fn map_states(set: u8, f: impl Fn(bool, bool) -> (bool, bool)) -> u8 {
    (0..4)
        .filter(|i| set & (1 << i) != 0)
        .map(|i| {
            let (e, c) = f(i & 2 != 0, i & 1 != 0);
            1u8 << (2 * e as u8 + c as u8)
        })
        .fold(0, |a, b| a | b)
}

fn clear(set: u8) -> u8 {
    map_states(set, |e, _| (e, true))
}

fn dirty(set: u8) -> u8 {
    map_states(set, |_, c| (true, c))
}

/// States after a call with outcomes `callee` from each state in `set`.
fn after(set: u8, callee: u8) -> u8 {
    (0..4)
        .filter(|i| callee & (1 << i) != 0)
        .map(|i| map_states(set, |e, c| (e || i & 2 != 0, c || i & 1 != 0)))
        .fold(0, |a, b| a | b)
}

fn has_call(e: &Expr) -> bool {
    match e {
        Expr::Call(..) => true,
        Expr::Const(_) | Expr::Global(_) | Expr::Local(_) | Expr::ArrayAddr(_) => false,
        Expr::Index(_, i) | Expr::Unary(_, i) => has_call(i),
        Expr::Binary(_, l, r) => has_call(l) || has_call(r),
        Expr::Cond(c, t, f) => has_call(c) || has_call(t) || has_call(f),
    }
}

/// A unit of a block, for matching against the other program's block.
#[derive(Debug)]
pub struct Unit<'s> {
    /// How its statements may be reordered.
    pub kind: UnitKind,
    /// Its statements.
    pub stmts: &'s [Stmt],
}

/// How the statements of a [`Unit`] may be reordered.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum UnitKind {
    /// One statement.
    Single,
    /// Assignments, reorderable as long as [`conflicts`] keep their order.
    Assignments,
    /// Rules of which at most one fires.
    Rules,
}

/// The global an assignment writes and the globals it reads; `None` if
/// it is not a call-free assignment to a global.
fn assignment_effect(s: &Stmt) -> Option<(u32, HashSet<u32>)> {
    let Stmt::Assign(Place::Global(g), e, _) = s else {
        return None;
    };
    let mut reads = HashSet::new();
    global_reads(e, &mut reads).then_some((g.0, reads))
}

/// The pairs `(i, j)`, `i < j`, of assignments in a run (see
/// [`UnitKind::Assignments`]) that must keep their order: one writes what
/// the other reads or writes. Any order that keeps these pairs' order has
/// the same effect (swapping adjacent independent assignments changes
/// nothing).
pub fn conflicts(run: &[Stmt]) -> Vec<(usize, usize)> {
    let effects: Vec<(u32, HashSet<u32>)> = run
        .iter()
        .map(|s| assignment_effect(s).unwrap_or_default())
        .collect();
    let mut out = Vec::new();
    for (i, (wi, ri)) in effects.iter().enumerate() {
        for (j, (wj, rj)) in effects.iter().enumerate().skip(i + 1) {
            if wi == wj || ri.contains(wj) || rj.contains(wi) {
                out.push((i, j));
            }
        }
    }
    out
}

/// The globals `e` reads, into `out` (arrays through pointers count as the
/// pointer). False if `e` calls a function (reads unknown).
fn global_reads(e: &Expr, out: &mut HashSet<u32>) -> bool {
    match e {
        Expr::Const(_) | Expr::Local(_) | Expr::ArrayAddr(_) => true,
        Expr::Global(g) => {
            out.insert(g.0);
            true
        }
        Expr::Index(a, i) => {
            match a {
                ArrayRef::Array(g) | ArrayRef::Pointer(g) => out.insert(g.0),
            };
            global_reads(i, out)
        }
        Expr::Unary(_, x) => global_reads(x, out),
        Expr::Binary(_, l, r) => global_reads(l, out) && global_reads(r, out),
        Expr::Cond(c, t, f) => global_reads(c, out) && global_reads(t, out) && global_reads(f, out),
        Expr::Call(..) => false,
    }
}

/// The flag is only ever assigned the constants 0 and 1, and 1 only by
/// top-level statements of the step function.
fn flag_discipline(p: &Program, cf: GlobalId) -> bool {
    fn ok(block: &[Stmt], cf: GlobalId, may_set: bool) -> bool {
        block.iter().all(|s| match s {
            Stmt::Assign(Place::Global(g), e, _) if *g == cf => {
                matches!(e, Expr::Const(0)) || (may_set && matches!(e, Expr::Const(1)))
            }
            Stmt::If(_, t, e) => ok(t, cf, false) && ok(e, cf, false),
            Stmt::While(_, t) => ok(t, cf, false),
            _ => true,
        })
    }
    p.functions
        .iter()
        .enumerate()
        .all(|(i, f)| ok(&f.body, cf, i == p.step.0 as usize))
}

/// Whether conjunct `e` tests that the flag is set.
fn tests_flag_set(e: &Expr, flag: GlobalId) -> bool {
    match e {
        Expr::Global(g) => *g == flag,
        Expr::Binary(BinOp::Eq, l, r) => {
            matches!((l.as_ref(), r.as_ref()), (Expr::Global(g), Expr::Const(1)) if *g == flag)
        }
        Expr::Binary(BinOp::Ne, l, r) => {
            matches!((l.as_ref(), r.as_ref()), (Expr::Global(g), Expr::Const(0)) if *g == flag)
        }
        _ => false,
    }
}

/// A conjunct read as "this expression lies in [lo, hi]".
#[derive(Debug)]
struct Atom<'e> {
    subject: &'e Expr,
    lo: i64,
    hi: i64,
}

fn flip(op: BinOp) -> Option<BinOp> {
    Some(match op {
        BinOp::Eq => BinOp::Eq,
        BinOp::Lt => BinOp::Gt,
        BinOp::Le => BinOp::Ge,
        BinOp::Gt => BinOp::Lt,
        BinOp::Ge => BinOp::Le,
        _ => return None,
    })
}

/// Whether two conjunctions of atoms cannot hold together: some subject's
/// intervals (intersected per side) do not meet.
fn disjoint(a: &[Atom], b: &[Atom]) -> bool {
    let range = |atoms: &[Atom], s: &Expr| {
        atoms
            .iter()
            .filter(|x| x.subject == s)
            .fold((i64::MIN, i64::MAX), |(lo, hi), x| {
                (lo.max(x.lo), hi.min(x.hi))
            })
    };
    a.iter().any(|x| {
        let (alo, ahi) = range(a, x.subject);
        let (blo, bhi) = range(b, x.subject);
        alo.max(blo) > ahi.min(bhi)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::c::parse_c;

    fn program(src: &str) -> Program {
        parse_c("t.c", src).expect("parses")
    }

    const SRC: &str = r#"
        int inputs[] = {1,2,3};
        int cf = 1;
        int a = 1;
        int b = 2;
        int c = 3;
        void m1(int input) {
            if (cf == 1 && input == 1 && a == 1) { cf = 0; a = 2; b = a; printf("%d\n", 21); }
            if (cf == 1 && input == 1 && a == 2) { cf = 0; b = 3; c = 4; printf("%d\n", 22); }
            if (input == 2 && a > 0) { cf = 0; a = 3; }
        }
        void calculate_output(int input) {
            cf = 1;
            if (cf == 1 && b == 2) { m1(input); }
            if (cf == 1 && b < 2) { m1(input); }
            if (cf == 1) { fprintf(stderr, "Invalid input: %d\n", input); }
        }
        int main() { return 0; }
    "#;

    fn kinds(c: &mut Commute, block: &[Stmt]) -> Vec<(UnitKind, usize)> {
        c.units(block)
            .iter()
            .map(|u| (u.kind, u.stmts.len()))
            .collect()
    }

    #[test]
    fn runs_are_found_and_bounded() {
        let p = program(SRC);
        let mut c = Commute::new(&p);
        assert!(c.flag.is_some());
        let m1 = p.functions.iter().find(|f| f.name == "m1").unwrap();
        // The first two rules are disjoint (a == 1 / a == 2) and atomic; the
        // third has no flag test.
        assert_eq!(
            kinds(&mut c, &m1.body),
            vec![(UnitKind::Rules, 2), (UnitKind::Single, 1)]
        );
        // Inside the first rule: `cf = 0; a = 2; b = a` is a run in which
        // `b = a` must stay after `a = 2`.
        let Stmt::If(_, body, _) = &m1.body[0] else {
            panic!()
        };
        assert_eq!(
            kinds(&mut c, body),
            vec![(UnitKind::Assignments, 3), (UnitKind::Single, 1)]
        );
        assert_eq!(conflicts(&body[..3]), vec![(1, 2)]);
        let step = p.function(p.step);
        // `cf = 1`, then two dispatch rules (b == 2 / b < 2) calling an
        // atomic function, then the invalid-input rule (not atomic).
        assert_eq!(
            kinds(&mut c, &step.body),
            vec![
                (UnitKind::Single, 1),
                (UnitKind::Rules, 2),
                (UnitKind::Single, 1)
            ]
        );
    }

    #[test]
    fn overlapping_guards_do_not_commute() {
        let src = SRC.replace("b < 2", "b < 3");
        let p = program(&src);
        let mut c = Commute::new(&p);
        let step = p.function(p.step);
        assert!(kinds(&mut c, &step.body)
            .iter()
            .all(|&(k, _)| k == UnitKind::Single));
    }

    #[test]
    fn a_flag_set_elsewhere_disables_rule_runs() {
        let src = SRC.replace("c = 4;", "c = 4; cf = 1;");
        let p = program(&src);
        assert!(Commute::new(&p).flag.is_none());
    }

    #[test]
    fn totality() {
        let p = program(SRC);
        let c = Commute::new(&p);
        let div = Expr::Binary(
            BinOp::Div,
            Box::new(Expr::Const(1)),
            Box::new(Expr::Const(1)),
        );
        assert!(!c.total(&div));
        let idx = |k| Expr::Index(ArrayRef::Array(GlobalId(0)), Box::new(Expr::Const(k)));
        assert!(c.total(&idx(2)));
        assert!(!c.total(&idx(3)));
    }
}
