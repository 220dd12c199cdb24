//! Equivalence of two programs by the shape of their code, without
//! exploring them.
//!
//! RERS generates the C and the Java version of a problem from one model, so
//! after lowering their step functions are the same tree up to names, up
//! to how values are spelled (a Java `String` field holds `"e"` where the C
//! `int` holds `33`, a Java `boolean cf` is tested as `cf` where C writes
//! `cf == 1`, inputs and outputs are strings in one and numbers in the
//! other), and up to the order in which rules, assignments and conjuncts are
//! printed.
//!
//! [`prove`] walks both step functions in parallel and builds
//! - a one-to-one map between the globals they use, and between the
//!   functions they call;
//! - for every pair of globals where either side is a string or a boolean, a
//!   one-to-one map between their values. Such a global may only be
//!   compared for (in)equality with a constant or assigned a constant (the
//!   walk rejects any other use), so renaming its values changes nothing;
//! - for the input parameter (and parameters it is passed to), constants
//!   must name the same input symbol; output constants the same output
//!   symbol.
//!
//! Blocks are cut into units ([`Commute::units`]): runs of assignments and
//! runs of mutually exclusive rules are matched as permutations, kept only
//! where `equivalence::commute` shows the order cannot matter (for assignments,
//! every conflicting pair keeps its order on both sides); `&&` chains of
//! total conjuncts likewise. Every other node must be identical (same
//! operator, same constant; constant reads of never-written arrays such as
//! `inputs[4]` count as constants). If
//! the walk succeeds and the initial values correspond, the two steps
//! compute corresponding successors, the same outputs, errors and invalid
//! inputs from corresponding states (induction on the input sequence, the
//! engine treating both languages alike), so the input/output transition
//! systems are the same. If the walk fails, nothing is concluded: the caller
//! falls back to exploring both programs in lockstep.

use std::collections::HashMap;

use super::commute::{conflicts, conjuncts, Commute, Unit, UnitKind};
use crate::ir::{ArrayRef, BinOp, Expr, FuncId, GlobalKind, Place, Program, ScalarTy, Stmt, UnOp};

/// How a parameter's values are read.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Class {
    /// Ordinary int: constants must be equal.
    Plain,
    /// The input symbol: constants must name the same input.
    Input,
}

/// A one-to-one map between values (or ids).
#[derive(Default, Debug, Clone)]
struct Bijection {
    fwd: HashMap<i32, i32>,
    back: HashMap<i32, i32>,
}

impl Bijection {
    fn relate(&mut self, a: i32, b: i32) -> bool {
        match (self.fwd.get(&a), self.back.get(&b)) {
            (None, None) => {
                self.fwd.insert(a, b);
                self.back.insert(b, a);
                true
            }
            (Some(&x), Some(&y)) => x == b && y == a,
            _ => false,
        }
    }
}

/// The correspondence found by a successful [`prove`].
#[derive(Debug)]
pub struct Correspondence {
    /// Pairs of globals used by the steps.
    pub globals: usize,
    /// Pairs of functions.
    pub functions: usize,
    /// Globals whose values were renamed (strings, booleans).
    pub renamed: usize,
}

struct Walk<'a> {
    a: &'a Program,
    b: &'a Program,
    /// What may be reordered in `a` and in `b`.
    commute_a: Commute<'a>,
    commute_b: Commute<'a>,
    maps: Maps,
}

/// Everything the walk has related so far (cloned to try a pairing and
/// take it back).
#[derive(Clone, Default)]
struct Maps {
    globals: Bijection,
    /// Value maps of renamed global pairs, keyed by `a`'s global id.
    values: HashMap<i32, Bijection>,
    funcs: Bijection,
    params: HashMap<i32, Vec<Class>>,
    pending: Vec<(FuncId, FuncId)>,
}

impl Maps {
    /// How many relations are recorded (grows when a pairing needs new ones).
    fn size(&self) -> usize {
        self.globals.fwd.len()
            + self.funcs.fwd.len()
            + self.values.values().map(|v| v.fwd.len()).sum::<usize>()
    }
}

/// Local context: the pairing of locals and the class of each of `a`'s.
#[derive(Clone)]
struct Frame {
    locals: Bijection,
    class: Vec<Class>,
}

/// Where the two programs' code does not have the same shape.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ShapeMismatch(pub String);

impl From<String> for ShapeMismatch {
    fn from(s: String) -> Self {
        ShapeMismatch(s)
    }
}

type R = Result<(), ShapeMismatch>;

/// A node, abbreviated for messages.
fn short(x: &impl std::fmt::Debug) -> String {
    let s = format!("{x:?}");
    match s.char_indices().nth(160) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s,
    }
}

fn fail<T>(what: &str) -> Result<T, ShapeMismatch> {
    Err(ShapeMismatch(what.to_string()))
}

impl<'a> Walk<'a> {
    fn scalar_ty(p: &Program, g: u32) -> Option<ScalarTy> {
        match &p.globals.get(g as usize)?.kind {
            GlobalKind::Scalar { ty, .. } => Some(*ty),
            _ => None,
        }
    }

    /// Whether the pair (`ga`, `gb`) has its values renamed.
    fn renamed(&self, ga: u32, gb: u32) -> bool {
        let t = |p: &Program, g| Self::scalar_ty(p, g);
        matches!(t(self.a, ga), Some(ScalarTy::Str | ScalarTy::Bool))
            || matches!(t(self.b, gb), Some(ScalarTy::Str | ScalarTy::Bool))
    }

    fn global(&mut self, ga: u32, gb: u32) -> R {
        if self.maps.globals.relate(ga as i32, gb as i32) {
            Ok(())
        } else {
            Err(ShapeMismatch(format!(
                "global {} meets two partners",
                self.a.globals[ga as usize].name
            )))
        }
    }

    fn value(&mut self, ga: u32, va: i32, vb: i32) -> R {
        if self
            .maps
            .values
            .entry(ga as i32)
            .or_default()
            .relate(va, vb)
        {
            Ok(())
        } else {
            Err(ShapeMismatch(format!(
                "values of {} do not correspond one to one",
                self.a.globals[ga as usize].name
            )))
        }
    }

    fn input(&self, va: i32, vb: i32) -> R {
        let na = self.a.inputs.iter().find(|s| s.value == va);
        let nb = self.b.inputs.iter().find(|s| s.value == vb);
        match (na, nb) {
            (Some(x), Some(y)) if x.name == y.name => Ok(()),
            _ => fail("input constants name different symbols"),
        }
    }

    fn output(&self, va: i32, vb: i32) -> R {
        let na = self.a.outputs.iter().find(|s| s.value == va);
        let nb = self.b.outputs.iter().find(|s| s.value == vb);
        match (na, nb) {
            (Some(x), Some(y)) if x.name == y.name => Ok(()),
            _ => fail("output constants name different symbols"),
        }
    }

    fn local(&self, f: &mut Frame, la: u32, lb: u32) -> Result<Class, ShapeMismatch> {
        if !f.locals.relate(la as i32, lb as i32) {
            return fail("a local meets two partners");
        }
        Ok(f.class.get(la as usize).copied().unwrap_or(Class::Plain))
    }

    /// `x == c` style comparisons where `x` has renamed values or is the
    /// input: `Some(result)` if the pattern applies.
    fn compare_const(&mut self, f: &mut Frame, a: &Expr, b: &Expr) -> Option<R> {
        let (Expr::Binary(oa, la, ra), Expr::Binary(ob, lb, rb)) = (a, b) else {
            return None;
        };
        if oa != ob || !matches!(oa, BinOp::Eq | BinOp::Ne) {
            return None;
        }
        // `input == inputs[4]` reads a constant.
        let ca = self.commute_a.constant(ra)?;
        let cb = self.commute_b.constant(rb)?;
        let (ca, cb) = (&ca, &cb);
        match (la.as_ref(), lb.as_ref()) {
            (Expr::Global(ga), Expr::Global(gb)) if self.renamed(ga.0, gb.0) => Some(
                self.global(ga.0, gb.0)
                    .and_then(|_| self.value(ga.0, *ca, *cb)),
            ),
            (Expr::Local(la), Expr::Local(lb)) => match self.local(f, la.0, lb.0) {
                Ok(Class::Input) => Some(self.input(*ca, *cb)),
                Ok(Class::Plain) => None,
                Err(e) => Some(Err(e)),
            },
            _ => None,
        }
    }

    /// A boolean field tested bare in `b` (`cf`, `!cf`) against `cf == k` /
    /// `cf != k` in `a`.
    fn bool_test(&mut self, a: &Expr, b: &Expr) -> Option<R> {
        let (negated, gb) = match b {
            Expr::Global(g) => (false, g.0),
            Expr::Unary(UnOp::Not, e) => match e.as_ref() {
                Expr::Global(g) => (true, g.0),
                _ => return None,
            },
            _ => return None,
        };
        if Self::scalar_ty(self.b, gb) != Some(ScalarTy::Bool) {
            return None;
        }
        let Expr::Binary(op @ (BinOp::Eq | BinOp::Ne), l, r) = a else {
            return None;
        };
        let (Expr::Global(ga), Expr::Const(k)) = (l.as_ref(), r.as_ref()) else {
            return None;
        };
        // `cf == k` holds iff the Java flag is the value that corresponds to k.
        let truth = (*op == BinOp::Eq) != negated;
        Some(
            self.global(ga.0, gb)
                .and_then(|_| self.value(ga.0, *k, truth as i32)),
        )
    }

    fn expr(&mut self, f: &mut Frame, a: &Expr, b: &Expr) -> R {
        if let Some(r) = self.compare_const(f, a, b) {
            return r;
        }
        if let Some(r) = self.bool_test(a, b) {
            return r;
        }
        if self.commute_a.reorderable_conjunction(a) && self.commute_b.reorderable_conjunction(b) {
            let (xs, ys) = (conjuncts(a), conjuncts(b));
            if xs.len() == ys.len() {
                return self
                    .permutation(f, &xs, &ys, |w, f, x, y| w.expr(f, x, y))
                    .map(|_| ());
            }
        }
        match (a, b) {
            (Expr::Const(x), Expr::Const(y)) if x == y => Ok(()),
            (Expr::Global(x), Expr::Global(y)) if !self.renamed(x.0, y.0) => {
                self.plain_global(x.0, y.0)
            }
            (Expr::Local(x), Expr::Local(y)) => match self.local(f, x.0, y.0)? {
                Class::Plain => Ok(()),
                Class::Input => fail("the input is used other than compared or passed on"),
            },
            (Expr::Index(x, i), Expr::Index(y, j)) => {
                self.array(x, y)?;
                self.expr(f, i, j)
            }
            (Expr::ArrayAddr(x), Expr::ArrayAddr(y)) => self.plain_global(x.0, y.0),
            (Expr::Unary(o, x), Expr::Unary(p, y)) if o == p => self.expr(f, x, y),
            (Expr::Binary(o, x1, x2), Expr::Binary(p, y1, y2)) if o == p => {
                self.expr(f, x1, y1)?;
                self.expr(f, x2, y2)
            }
            (Expr::Cond(x1, x2, x3), Expr::Cond(y1, y2, y3)) => {
                self.expr(f, x1, y1)?;
                self.expr(f, x2, y2)?;
                self.expr(f, x3, y3)
            }
            (Expr::Call(x, xs), Expr::Call(y, ys)) => self.call(f, *x, xs, *y, ys),
            _ => Err(ShapeMismatch(format!(
                "expressions differ: {} / {}",
                short(a),
                short(b)
            ))),
        }
    }

    fn plain_global(&mut self, ga: u32, gb: u32) -> R {
        let ka = &self.a.globals[ga as usize].kind;
        let kb = &self.b.globals[gb as usize].kind;
        let same_kind = matches!(
            (ka, kb),
            (
                GlobalKind::Scalar {
                    ty: ScalarTy::Int,
                    ..
                },
                GlobalKind::Scalar {
                    ty: ScalarTy::Int,
                    ..
                },
            ) | (
                GlobalKind::Array {
                    elem: ScalarTy::Int,
                    ..
                },
                GlobalKind::Array {
                    elem: ScalarTy::Int,
                    ..
                },
            ) | (GlobalKind::Pointer { .. }, GlobalKind::Pointer { .. })
        );
        if !same_kind {
            return fail("globals of different kinds");
        }
        self.global(ga, gb)
    }

    fn array(&mut self, a: &ArrayRef, b: &ArrayRef) -> R {
        match (a, b) {
            (ArrayRef::Array(x), ArrayRef::Array(y))
            | (ArrayRef::Pointer(x), ArrayRef::Pointer(y)) => self.plain_global(x.0, y.0),
            _ => fail(
                "an array is indexed directly in one program and through a pointer in the other",
            ),
        }
    }

    fn call(&mut self, f: &mut Frame, fa: FuncId, xs: &[Expr], fb: FuncId, ys: &[Expr]) -> R {
        if xs.len() != ys.len() {
            return fail("calls with different argument counts");
        }
        let mut classes = Vec::new();
        for (x, y) in xs.iter().zip(ys) {
            let class = match (x, y) {
                (Expr::Local(l), Expr::Local(m)) => self.local(f, l.0, m.0)?,
                _ => {
                    self.expr(f, x, y)?;
                    Class::Plain
                }
            };
            classes.push(class);
        }
        let first = !self.maps.funcs.fwd.contains_key(&(fa.0 as i32));
        if !self.maps.funcs.relate(fa.0 as i32, fb.0 as i32) {
            return fail("a function meets two partners");
        }
        if first {
            self.maps.params.insert(fa.0 as i32, classes);
            self.maps.pending.push((fa, fb));
            Ok(())
        } else if self.maps.params[&(fa.0 as i32)] == classes {
            Ok(())
        } else {
            fail("a function is called with the input in different places")
        }
    }

    /// Pairs `xs` with a permutation of `ys` (the caller has shown that
    /// both may be reordered). Greedy: each `x` takes the first partner that
    /// matches, preferring partners that share global names with it and
    /// that need no new relations; a wrong early choice makes the proof
    /// fail, never succeed wrongly.
    fn permutation<T: std::fmt::Debug + Mentions>(
        &mut self,
        f: &mut Frame,
        xs: &[&T],
        ys: &[&T],
        pair: impl Fn(&mut Self, &mut Frame, &T, &T) -> R,
    ) -> Result<Vec<usize>, ShapeMismatch> {
        let names_b: Vec<Vec<&str>> = ys.iter().map(|y| names(self.b, *y)).collect();
        let mut used = vec![false; ys.len()];
        let mut pi = Vec::with_capacity(xs.len());
        for x in xs {
            let names_a = names(self.a, *x);
            let mut order: Vec<usize> = (0..ys.len()).filter(|&j| !used[j]).collect();
            order.sort_by_key(|&j| std::cmp::Reverse(shared(&names_a, &names_b[j])));
            let mut found = None;
            'search: for strict in [true, false] {
                for &j in &order {
                    let (maps, frame) = (self.maps.clone(), f.clone());
                    let before = self.maps.size() + f.locals.fwd.len();
                    let ok = pair(self, f, x, ys[j]).is_ok();
                    if ok && (!strict || self.maps.size() + f.locals.fwd.len() == before) {
                        found = Some(j);
                        break 'search;
                    }
                    self.maps = maps;
                    *f = frame;
                }
            }
            match found {
                Some(j) => {
                    used[j] = true;
                    pi.push(j);
                }
                None => return Err(ShapeMismatch(format!("no partner for {}", short(x)))),
            }
        }
        Ok(pi)
    }

    fn stmts(&mut self, f: &mut Frame, a: &[Stmt], b: &[Stmt]) -> R {
        let (ua, ub) = (self.commute_a.units(a), self.commute_b.units(b));
        let shapes = |u: &[Unit]| {
            u.iter()
                .map(|x| (x.kind, x.stmts.len()))
                .collect::<Vec<_>>()
        };
        if shapes(&ua) == shapes(&ub) {
            for (x, y) in ua.iter().zip(&ub) {
                if x.kind == UnitKind::Single {
                    self.stmt(f, &x.stmts[0], &y.stmts[0])?;
                } else {
                    let xs: Vec<&Stmt> = x.stmts.iter().collect();
                    let ys: Vec<&Stmt> = y.stmts.iter().collect();
                    let pi = self.permutation(f, &xs, &ys, |w, f, x, y| w.stmt(f, x, y))?;
                    if x.kind == UnitKind::Assignments {
                        keeps_order(&pi, x.stmts, y.stmts)?;
                    }
                }
            }
            return Ok(());
        }
        if a.len() != b.len() {
            return Err(ShapeMismatch(format!(
                "blocks of different lengths ({} / {}): {} / {}",
                a.len(),
                b.len(),
                short(&a.last()),
                short(&b.last())
            )));
        }
        a.iter().zip(b).try_for_each(|(x, y)| self.stmt(f, x, y))
    }

    fn stmt(&mut self, f: &mut Frame, a: &Stmt, b: &Stmt) -> R {
        match (a, b) {
            (Stmt::Assign(pa, ea, _), Stmt::Assign(pb, eb, _)) => match (pa, pb) {
                (Place::Global(x), Place::Global(y)) if self.renamed(x.0, y.0) => match (ea, eb) {
                    (Expr::Const(u), Expr::Const(v)) => {
                        self.global(x.0, y.0)?;
                        self.value(x.0, *u, *v)
                    }
                    _ => Err(ShapeMismatch(format!(
                        "a renamed global is assigned a non-constant: {} / {}",
                        short(a),
                        short(b)
                    ))),
                },
                (Place::Global(x), Place::Global(y)) => {
                    self.plain_global(x.0, y.0)?;
                    self.expr(f, ea, eb)
                }
                (Place::Local(x), Place::Local(y)) => match self.local(f, x.0, y.0)? {
                    Class::Plain => self.expr(f, ea, eb),
                    Class::Input => fail("the input is assigned"),
                },
                (Place::Index(x, i), Place::Index(y, j)) => {
                    self.array(x, y)?;
                    self.expr(f, i, j)?;
                    self.expr(f, ea, eb)
                }
                _ => fail("assignments to different places"),
            },
            (Stmt::If(c, t, e), Stmt::If(d, u, v)) => {
                self.expr(f, c, d)?;
                self.stmts(f, t, u)?;
                self.stmts(f, e, v)
            }
            (Stmt::While(c, t), Stmt::While(d, u)) => {
                self.expr(f, c, d)?;
                self.stmts(f, t, u)
            }
            (Stmt::Call(x, xs, _), Stmt::Call(y, ys, _)) => self.call(f, *x, xs, *y, ys),
            (Stmt::Return(None), Stmt::Return(None)) => Ok(()),
            (Stmt::Return(Some(x)), Stmt::Return(Some(y))) => self.expr(f, x, y),
            (Stmt::Output(Expr::Const(x), _), Stmt::Output(Expr::Const(y), _)) => {
                self.output(*x, *y)
            }
            (Stmt::Error(x), Stmt::Error(y)) if x == y => Ok(()),
            (Stmt::Invalid, Stmt::Invalid) => Ok(()),
            (Stmt::Assume(x), Stmt::Assume(y)) => self.expr(f, x, y),
            _ => Err(ShapeMismatch(format!(
                "statements differ: {} / {}",
                short(a),
                short(b)
            ))),
        }
    }

    fn function(&mut self, fa: FuncId, fb: FuncId) -> R {
        let (x, y) = (self.a.function(fa), self.b.function(fb));
        if x.params != y.params || x.returns_value != y.returns_value {
            return Err(ShapeMismatch(format!(
                "{} and {} have different signatures",
                x.name, y.name
            )));
        }
        let mut class = self.maps.params[&(fa.0 as i32)].clone();
        class.resize(x.locals as usize, Class::Plain);
        let mut frame = Frame {
            locals: Bijection::default(),
            class,
        };
        for l in 0..x.params {
            if !frame.locals.relate(l as i32, l as i32) {
                return fail("parameters");
            }
        }
        self.stmts(&mut frame, &x.body, &y.body)
            .map_err(|e| ShapeMismatch(format!("{} / {}: {e}", x.name, y.name)))
    }

    /// The initial values of every paired global correspond.
    fn initial_values(&mut self) -> R {
        // A pointer's initial target pairs two more arrays, whose values are
        // checked in turn: repeat until no pair is added.
        let mut checked = 0;
        loop {
            let mut pairs: Vec<(i32, i32)> = self
                .maps
                .globals
                .fwd
                .iter()
                .map(|(&x, &y)| (x, y))
                .collect();
            if pairs.len() == checked {
                return Ok(());
            }
            checked = pairs.len();
            pairs.sort_unstable();
            for (ga, gb) in pairs {
                if !self.initial_value(ga as u32, gb as u32) {
                    return Err(ShapeMismatch(format!(
                        "initial values of {} differ",
                        self.a.globals[ga as usize].name
                    )));
                }
            }
        }
    }

    fn initial_value(&mut self, ga: u32, gb: u32) -> bool {
        let (ka, kb) = (
            &self.a.globals[ga as usize].kind,
            &self.b.globals[gb as usize].kind,
        );
        match (ka, kb) {
            (GlobalKind::Scalar { init: u, .. }, GlobalKind::Scalar { init: v, .. }) => {
                if self.renamed(ga, gb) {
                    let (u, v) = (*u, *v);
                    self.value(ga, u, v).is_ok()
                } else {
                    u == v
                }
            }
            (GlobalKind::Array { init: u, .. }, GlobalKind::Array { init: v, .. }) => u == v,
            (GlobalKind::Pointer { init: u }, GlobalKind::Pointer { init: v }) => {
                let (u, v) = (u.0, v.0);
                self.plain_global(u, v).is_ok()
            }
            _ => false,
        }
    }
}

/// Whether the pairing `pi` (a's i-th assignment with b's `pi[i]`-th)
/// keeps every conflicting pair of either run in the same order in the
/// other, so that both runs have the same effect.
fn keeps_order(pi: &[usize], a: &[Stmt], b: &[Stmt]) -> R {
    let mut inverse = vec![0; pi.len()];
    for (i, &j) in pi.iter().enumerate() {
        inverse[j] = i;
    }
    let a_ok = conflicts(a).iter().all(|&(i, k)| pi[i] < pi[k]);
    let b_ok = conflicts(b).iter().all(|&(j, l)| inverse[j] < inverse[l]);
    if a_ok && b_ok {
        Ok(())
    } else {
        fail("dependent assignments in different orders")
    }
}

/// Code whose mentioned globals can be listed (a hint for pairing
/// reordered code: RERS usually keeps names across languages).
trait Mentions {
    /// Pushes the id of every global mentioned, with repetitions.
    fn globals(&self, out: &mut Vec<u32>);
}

impl Mentions for Expr {
    fn globals(&self, out: &mut Vec<u32>) {
        match self {
            Expr::Const(_) | Expr::Local(_) => {}
            Expr::Global(g) | Expr::ArrayAddr(g) => out.push(g.0),
            Expr::Index(ArrayRef::Array(g) | ArrayRef::Pointer(g), i) => {
                out.push(g.0);
                i.globals(out);
            }
            Expr::Unary(_, x) => x.globals(out),
            Expr::Binary(_, l, r) => {
                l.globals(out);
                r.globals(out);
            }
            Expr::Cond(c, t, f) => {
                c.globals(out);
                t.globals(out);
                f.globals(out);
            }
            Expr::Call(_, args) => args.iter().for_each(|a| a.globals(out)),
        }
    }
}

impl Mentions for Stmt {
    fn globals(&self, out: &mut Vec<u32>) {
        match self {
            Stmt::Assign(place, e, _) => {
                match place {
                    Place::Global(g) => out.push(g.0),
                    Place::Local(_) => {}
                    Place::Index(ArrayRef::Array(g) | ArrayRef::Pointer(g), i) => {
                        out.push(g.0);
                        i.globals(out);
                    }
                }
                e.globals(out);
            }
            Stmt::If(c, t, e) => {
                c.globals(out);
                t.iter().chain(e).for_each(|s| s.globals(out));
            }
            Stmt::While(c, t) => {
                c.globals(out);
                t.iter().for_each(|s| s.globals(out));
            }
            Stmt::Call(_, args, _) => args.iter().for_each(|a| a.globals(out)),
            Stmt::Return(e) => e.iter().for_each(|e| e.globals(out)),
            Stmt::Output(e, _) | Stmt::Assume(e) => e.globals(out),
            Stmt::Error(_) | Stmt::Invalid => {}
        }
    }
}

/// The sorted names of the globals `node` mentions.
fn names<'p>(p: &'p Program, node: &impl Mentions) -> Vec<&'p str> {
    let mut ids = Vec::new();
    node.globals(&mut ids);
    let mut out: Vec<&str> = ids
        .into_iter()
        .filter_map(|g| Some(p.globals.get(g as usize)?.name.as_str()))
        .collect();
    out.sort_unstable();
    out
}

/// Size of the intersection of two sorted multisets.
fn shared(a: &[&str], b: &[&str]) -> usize {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                n += 1;
                i += 1;
                j += 1;
            }
        }
    }
    n
}

/// Tries to prove `a` and `b` equivalent by the shape of their code (see the
/// module doc). `Err` gives the first mismatch; it proves nothing.
pub fn prove(a: &Program, b: &Program) -> Result<Correspondence, ShapeMismatch> {
    // Orient so that `b` is the Java side: its booleans are tested bare.
    let (a, b) = if a.language == crate::ir::Language::Java {
        (b, a)
    } else {
        (a, b)
    };
    if a.step_return != b.step_return {
        return fail("the steps return differently");
    }
    let mut names_a: Vec<&str> = a.inputs.iter().map(|s| s.name.as_str()).collect();
    let mut names_b: Vec<&str> = b.inputs.iter().map(|s| s.name.as_str()).collect();
    names_a.sort_unstable();
    names_b.sort_unstable();
    if names_a != names_b {
        return fail("the input alphabets differ");
    }
    let mut w = Walk {
        a,
        b,
        commute_a: Commute::new(a),
        commute_b: Commute::new(b),
        maps: Maps::default(),
    };
    let mut step_classes = vec![Class::Input];
    step_classes.resize(a.function(a.step).params as usize, Class::Plain);
    w.maps.funcs.relate(a.step.0 as i32, b.step.0 as i32);
    w.maps.params.insert(a.step.0 as i32, step_classes);
    w.maps.pending.push((a.step, b.step));
    while let Some((fa, fb)) = w.maps.pending.pop() {
        w.function(fa, fb)?;
    }
    w.initial_values()?;
    Ok(Correspondence {
        globals: w.maps.globals.fwd.len(),
        functions: w.maps.funcs.fwd.len(),
        renamed: w.maps.values.len(),
    })
}

#[cfg(test)]
mod tests;
