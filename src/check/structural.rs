//! Equivalence of two programs by the shape of their code, without
//! exploring them.
//!
//! RERS generates the C and the Java version of a problem from one model, so
//! after lowering their step functions are the same tree up to names and up
//! to how values are spelled: a Java `String` field holds `"e"` where the C
//! `int` holds `33`, a Java `boolean cf` is tested as `cf` where C writes
//! `cf == 1`, inputs and outputs are strings in one and numbers in the other.
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
//! Every other node must be identical (same operator, same constant). If
//! the walk succeeds and the initial values correspond, the two steps
//! compute corresponding successors, the same outputs, errors and invalid
//! inputs from corresponding states (induction on the input sequence, the
//! engine treating both languages alike), so the input/output transition
//! systems are the same. If the walk fails, nothing is concluded: the caller
//! falls back to exploring both programs in lockstep.

use std::collections::HashMap;

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
#[derive(Default, Debug)]
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
    globals: Bijection,
    /// Value maps of renamed global pairs, keyed by `a`'s global id.
    values: HashMap<i32, Bijection>,
    funcs: Bijection,
    params: HashMap<i32, Vec<Class>>,
    pending: Vec<(FuncId, FuncId)>,
}

/// Local context: the pairing of locals and the class of each of `a`'s.
struct Frame {
    locals: Bijection,
    class: Vec<Class>,
}

type R = Result<(), String>;

/// A node, abbreviated for messages.
fn short(x: &impl std::fmt::Debug) -> String {
    let s = format!("{x:?}");
    match s.char_indices().nth(160) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s,
    }
}

fn fail<T>(what: &str) -> Result<T, String> {
    Err(what.to_string())
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
        if self.globals.relate(ga as i32, gb as i32) {
            Ok(())
        } else {
            Err(format!(
                "global {} meets two partners",
                self.a.globals[ga as usize].name
            ))
        }
    }

    fn value(&mut self, ga: u32, va: i32, vb: i32) -> R {
        if self.values.entry(ga as i32).or_default().relate(va, vb) {
            Ok(())
        } else {
            Err(format!(
                "values of {} do not correspond one to one",
                self.a.globals[ga as usize].name
            ))
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

    fn local(&self, f: &mut Frame, la: u32, lb: u32) -> Result<Class, String> {
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
        let (Expr::Const(ca), Expr::Const(cb)) = (ra.as_ref(), rb.as_ref()) else {
            return None;
        };
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
            _ => Err(format!("expressions differ: {} / {}", short(a), short(b))),
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
            )
        );
        if !same_kind {
            return fail("globals of different kinds");
        }
        self.global(ga, gb)
    }

    fn array(&mut self, a: &ArrayRef, b: &ArrayRef) -> R {
        match (a, b) {
            (ArrayRef::Array(x), ArrayRef::Array(y)) => self.plain_global(x.0, y.0),
            _ => fail("pointer arrays are not matched"),
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
        let first = !self.funcs.fwd.contains_key(&(fa.0 as i32));
        if !self.funcs.relate(fa.0 as i32, fb.0 as i32) {
            return fail("a function meets two partners");
        }
        if first {
            self.params.insert(fa.0 as i32, classes);
            self.pending.push((fa, fb));
            Ok(())
        } else if self.params[&(fa.0 as i32)] == classes {
            Ok(())
        } else {
            fail("a function is called with the input in different places")
        }
    }

    fn stmts(&mut self, f: &mut Frame, a: &[Stmt], b: &[Stmt]) -> R {
        if a.len() != b.len() {
            return Err(format!(
                "blocks of different lengths ({} / {}): {} / {}",
                a.len(),
                b.len(),
                short(&a.last()),
                short(&b.last())
            ));
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
                    _ => Err(format!(
                        "a renamed global is assigned a non-constant: {} / {}",
                        short(a),
                        short(b)
                    )),
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
            _ => Err(format!("statements differ: {} / {}", short(a), short(b))),
        }
    }

    fn function(&mut self, fa: FuncId, fb: FuncId) -> R {
        let (x, y) = (self.a.function(fa), self.b.function(fb));
        if x.params != y.params || x.returns_value != y.returns_value {
            return Err(format!(
                "{} and {} have different signatures",
                x.name, y.name
            ));
        }
        let mut class = self.params[&(fa.0 as i32)].clone();
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
            .map_err(|e| format!("{} / {}: {e}", x.name, y.name))
    }

    /// The initial values of every paired global correspond.
    fn initial_values(&mut self) -> R {
        let pairs: Vec<(i32, i32)> = self.globals.fwd.iter().map(|(&x, &y)| (x, y)).collect();
        for (ga, gb) in pairs {
            let (ka, kb) = (
                &self.a.globals[ga as usize].kind,
                &self.b.globals[gb as usize].kind,
            );
            let ok = match (ka, kb) {
                (GlobalKind::Scalar { init: u, .. }, GlobalKind::Scalar { init: v, .. }) => {
                    if self.renamed(ga as u32, gb as u32) {
                        let (u, v) = (*u, *v);
                        self.value(ga as u32, u, v).is_ok()
                    } else {
                        u == v
                    }
                }
                (GlobalKind::Array { init: u, .. }, GlobalKind::Array { init: v, .. }) => u == v,
                _ => false,
            };
            if !ok {
                return Err(format!(
                    "initial values of {} differ",
                    self.a.globals[ga as usize].name
                ));
            }
        }
        Ok(())
    }
}

/// Tries to prove `a` and `b` equivalent by the shape of their code (see the
/// module doc). `Err` gives the first mismatch; it proves nothing.
pub fn prove(a: &Program, b: &Program) -> Result<Correspondence, String> {
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
        globals: Bijection::default(),
        values: HashMap::new(),
        funcs: Bijection::default(),
        params: HashMap::new(),
        pending: Vec::new(),
    };
    let mut step_classes = vec![Class::Input];
    step_classes.resize(a.function(a.step).params as usize, Class::Plain);
    w.funcs.relate(a.step.0 as i32, b.step.0 as i32);
    w.params.insert(a.step.0 as i32, step_classes);
    w.pending.push((a.step, b.step));
    while let Some((fa, fb)) = w.pending.pop() {
        w.function(fa, fb)?;
    }
    w.initial_values()?;
    Ok(Correspondence {
        globals: w.globals.fwd.len(),
        functions: w.funcs.fwd.len(),
        renamed: w.values.len(),
    })
}
