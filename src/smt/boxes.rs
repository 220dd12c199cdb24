//! The step run on a box of states, path by path, in interval arithmetic:
//! the solver-free reading of the step that settles most of a
//! certificate's obligations.
//!
//! [`box_paths`] runs the step of a program, with one input, on every
//! state whose globals lie in given spans. An `if` the spans decide takes
//! one branch; one they do not takes both, and where its condition
//! compares a variable with something, each branch narrows that variable
//! (`a17 <= -108` leaves `a17` at most -108 in the `then` branch and at
//! least -107 in the other). Every path ends with how the step ended and
//! the span of every global then, with the global whose value before the
//! step it still is, if any.
//!
//! Where the spans cannot rule out a fault (a divisor that may be 0, an
//! index or pointer they do not fix, a second output, an output outside
//! the alphabet), where the step loops, or where it takes too many paths,
//! there is no answer: the checker then asks the solver. Like
//! [`super::SymbolicStep`], this reads the IR alone and shares nothing
//! with the engine or the abstract interpreter; its arithmetic is that of
//! [`Span`], checked against every value by brute force.

use super::held::Held;
use super::step::calls;
use super::Span;
use crate::ir::{
    ArrayRef, BinOp, Expr, FuncId, GlobalKind, Place, Program, StepReturn, Stmt, UnOp,
};

/// How a path of the step ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathEnd {
    /// At this error label: the run stops.
    Error(u32),
    /// As an invalid input: the run goes on.
    Invalid,
    /// With this output, or none: the run goes on.
    Output(Option<i32>),
}

/// One path of the step from the box.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoxPath {
    /// How it ends.
    pub end: PathEnd,
    /// Every global (per element) when it ends.
    pub post: Vec<Vec<Held>>,
    /// The pointers (globals) whose span in `post` is not one value, that
    /// point to one of these arrays (by global) when it ends.
    pub pointing: Pointing,
}

/// Pointers (by global) and the arrays (by global) each points to one of.
pub type Pointing = Vec<(usize, Vec<i32>)>;

/// Most paths (and paths in flight) one step may take here.
pub const MAX_PATHS: usize = 512;

/// Most statements run over all paths before giving up.
const MAX_WORK: usize = 200_000;

/// Deepest nesting of calls followed.
const MAX_DEPTH: u32 = 64;

/// Why the step has no reading on a box.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Beyond {
    /// A path reads through this pointer (a global), whose value the box
    /// does not fix: a box that fixes it may have a reading.
    Pointer(usize),
    /// A path might fault, or lies beyond this reading otherwise.
    Other,
}

/// Every path of the step of `p` on input `input` from the states whose
/// global `g` (element `k`) lies in `spans[g][k]` (any value where
/// `None`) and whose pointers listed in `pointing` point to one of the
/// arrays listed with them; why not where a path might fault or lies
/// beyond this reading (see the module's comment). Paths blocked by
/// `__VERIFIER_assume` are left out: they have no successor.
///
/// A read through a pointer that may point to several arrays reads any of
/// their elements; a comparison of such an element keeps the arrays where
/// it can hold.
pub fn box_paths(
    p: &Program,
    spans: &[Vec<Option<Span>>],
    pointing: &[(usize, Vec<i32>)],
    input: i32,
) -> Result<Vec<BoxPath>, Beyond> {
    let mut run = Run {
        p,
        work: 0,
        unfixed: None,
    };
    paths_of(&mut run, spans, pointing, input).ok_or(match run.unfixed {
        Some(g) => Beyond::Pointer(g),
        None => Beyond::Other,
    })
}

/// [`box_paths`], `None` where there is no reading (`run` says why).
fn paths_of(
    run: &mut Run,
    spans: &[Vec<Option<Span>>],
    pointing: &[(usize, Vec<i32>)],
    input: i32,
) -> Option<Vec<BoxPath>> {
    let p = run.p;
    let given = |g: usize, k: usize| spans.get(g).and_then(|v| v.get(k).copied().flatten());
    let vars = (p.globals.iter().enumerate())
        .map(|(i, g)| match &g.kind {
            GlobalKind::Scalar { init, .. } if g.constant => vec![Held::new(Span::single(*init))],
            GlobalKind::Pointer { init } if g.constant => {
                vec![Held::new(Span::single(init.0 as i32))]
            }
            GlobalKind::Array { init, .. } if g.constant => {
                init.iter().map(|v| Held::new(Span::single(*v))).collect()
            }
            GlobalKind::Scalar { .. } | GlobalKind::Pointer { .. } => {
                vec![Held::before(given(i, 0).unwrap_or(Span::ALL), (i, 0))]
            }
            GlobalKind::Array { init, .. } => (0..init.len())
                .map(|k| Held::before(given(i, k).unwrap_or(Span::ALL), (i, k)))
                .collect(),
        })
        .collect();
    let env = Env {
        vars,
        locals: Vec::new(),
        out: None,
        pointing: (pointing.iter())
            .filter(|(g, _)| given(*g, 0).is_none_or(|s| s.value().is_none()))
            .cloned()
            .collect(),
    };
    let input = Held::new(Span::single(input));
    let mut paths = Vec::new();
    for (r, env) in run.call(p.step, &[], Some(input), env, 0)? {
        let end = match r {
            Err(end) => end,
            Ok(code) => match p.step_return {
                StepReturn::Void => PathEnd::Output(env.out),
                StepReturn::OutputCode => match code.span.value()? {
                    -1 => PathEnd::Output(None),
                    -2 => PathEnd::Invalid,
                    v if p.outputs.iter().any(|s| s.value == v) => PathEnd::Output(Some(v)),
                    _ => return None,
                },
            },
        };
        paths.push(BoxPath {
            end,
            post: env.vars,
            pointing: env.pointing,
        });
    }
    Some(paths)
}

/// The values on one path.
#[derive(Clone, Debug)]
struct Env {
    vars: Vec<Vec<Held>>,
    locals: Vec<Held>,
    /// The output printed so far.
    out: Option<i32>,
    /// Pointers whose span is not one value, and the arrays each points
    /// to one of.
    pointing: Pointing,
}

impl Env {
    /// The arrays the pointer `g` points to one of, where known.
    fn arrays(&self, g: usize) -> Option<Vec<i32>> {
        match self.vars[g][0].span.value() {
            Some(v) => Some(vec![v]),
            None => (self.pointing.iter())
                .find(|(h, _)| *h == g)
                .map(|(_, a)| a.clone()),
        }
    }

    /// The values of either (`self` and `other` differ only in values).
    fn join(mut self, other: &Env) -> Env {
        let mut pointing = Vec::new();
        for &(g, _) in self.pointing.iter().chain(&other.pointing) {
            if pointing.iter().any(|(h, _)| *h == g) {
                continue;
            }
            if let (Some(mut a), Some(b)) = (self.arrays(g), other.arrays(g)) {
                a.extend(b);
                a.sort_unstable();
                a.dedup();
                pointing.push((g, a));
            }
        }
        self.pointing = pointing;
        let (mine, theirs) = (self.vars.iter_mut().flatten(), other.vars.iter().flatten());
        for (a, b) in mine
            .zip(theirs)
            .chain(self.locals.iter_mut().zip(&other.locals))
        {
            *a = a.join(*b);
        }
        self
    }
}

/// How a statement leaves a path.
enum Flow {
    /// On to the next statement.
    Next,
    /// Out of the function, with its value.
    Return(Option<Held>),
    /// Out of the step.
    End(PathEnd),
}

/// A value, or the end of the step met while computing it (in a call).
type Valued = Result<Held, PathEnd>;

struct Run<'p> {
    p: &'p Program,
    /// Statements run so far, over all paths.
    work: usize,
    /// The pointer read through, unfixed, that ended the reading.
    unfixed: Option<usize>,
}

impl Run<'_> {
    fn block(&mut self, stmts: &[Stmt], env: Env, depth: u32) -> Option<Vec<(Flow, Env)>> {
        let mut live = vec![env];
        let mut done = Vec::new();
        for s in stmts {
            let mut next = Vec::new();
            for env in live {
                for (flow, env) in self.stmt(s, env, depth)? {
                    match flow {
                        Flow::Next => next.push(env),
                        other => done.push((other, env)),
                    }
                }
            }
            live = next;
            if live.len() + done.len() > MAX_PATHS {
                return None;
            }
            if live.is_empty() {
                break;
            }
        }
        done.extend(live.into_iter().map(|e| (Flow::Next, e)));
        Some(done)
    }

    fn stmt(&mut self, s: &Stmt, env: Env, depth: u32) -> Option<Vec<(Flow, Env)>> {
        self.work += 1;
        if self.work > MAX_WORK {
            return None;
        }
        let mut out = Vec::new();
        match s {
            Stmt::Assign(place, e, _) => {
                for (v, mut env) in self.value(e, env, depth)? {
                    match v {
                        Ok(v) => {
                            self.store(place, v, &mut env)?;
                            out.push((Flow::Next, env));
                        }
                        Err(end) => out.push((Flow::End(end), env)),
                    }
                }
            }
            Stmt::If(c, then_, else_) => {
                // Most conditions are decided: no copy of the values then.
                if !calls(c) {
                    match self.pure(c, &env)?.span.truth() {
                        Some(true) => return self.block(then_, env, depth),
                        Some(false) => return self.block(else_, env, depth),
                        None => {}
                    }
                }
                for env in self.assume(c, env.clone(), true, depth)? {
                    out.extend(self.block(then_, env, depth)?);
                }
                for env in self.assume(c, env, false, depth)? {
                    out.extend(self.block(else_, env, depth)?);
                }
            }
            Stmt::While(..) => return None,
            Stmt::Call(f, args, _) => {
                for (v, env) in self.call(*f, args, None, env, depth)? {
                    out.push((v.err().map_or(Flow::Next, Flow::End), env));
                }
            }
            Stmt::Return(None) => out.push((Flow::Return(None), env)),
            Stmt::Return(Some(e)) => {
                for (v, env) in self.value(e, env, depth)? {
                    let flow = match v {
                        Ok(v) => Flow::Return(Some(v)),
                        Err(end) => Flow::End(end),
                    };
                    out.push((flow, env));
                }
            }
            Stmt::Output(e, _) => {
                for (v, mut env) in self.value(e, env, depth)? {
                    let v = match v {
                        Ok(v) => v.span.value()?,
                        Err(end) => {
                            out.push((Flow::End(end), env));
                            continue;
                        }
                    };
                    // A second output, or one outside the alphabet: a fault.
                    if env.out.is_some() || !self.p.outputs.iter().any(|s| s.value == v) {
                        return None;
                    }
                    env.out = Some(v);
                    out.push((Flow::Next, env));
                }
            }
            Stmt::Error(n) => out.push((Flow::End(PathEnd::Error(*n)), env)),
            Stmt::Invalid => out.push((Flow::End(PathEnd::Invalid), env)),
            Stmt::Assume(c) => {
                // Where it fails the step has no successor: nothing to follow.
                out.extend(
                    self.assume(c, env, true, depth)?
                        .into_iter()
                        .map(|e| (Flow::Next, e)),
                );
            }
        }
        Some(out)
    }

    /// Runs `f` on `args` (or on `input` alone: the step): per path, its
    /// return value (0 for none) or the end of the step met inside it.
    fn call(
        &mut self,
        f: FuncId,
        args: &[Expr],
        input: Option<Held>,
        env: Env,
        depth: u32,
    ) -> Option<Vec<(Valued, Env)>> {
        if depth >= MAX_DEPTH {
            return None;
        }
        let func = self.p.function(f);
        let mut out = Vec::new();
        let mut pending: Vec<(Vec<Held>, Env)> = vec![(input.into_iter().collect(), env)];
        for a in args {
            let mut next = Vec::new();
            for (vals, env) in pending {
                for (v, env) in self.value(a, env, depth)? {
                    match v {
                        Ok(v) => {
                            let mut vals = vals.clone();
                            vals.push(v);
                            next.push((vals, env));
                        }
                        Err(end) => out.push((Err(end), env)),
                    }
                }
            }
            pending = next;
        }
        let zero = Held::new(Span::single(0));
        for (mut locals, mut env) in pending {
            // Locals not yet assigned may hold anything.
            locals.resize(func.locals as usize, Held::new(Span::ALL));
            let caller = std::mem::replace(&mut env.locals, locals);
            for (flow, mut env) in self.block(&func.body, env, depth + 1)? {
                env.locals = caller.clone();
                match flow {
                    // Falling off the end of a value function: a fault.
                    Flow::Next if func.returns_value => return None,
                    Flow::Next => out.push((Ok(zero), env)),
                    Flow::Return(v) => out.push((Ok(v.unwrap_or(zero)), env)),
                    Flow::End(end) => out.push((Err(end), env)),
                }
            }
        }
        Some(out)
    }

    /// The value of `e` on each path it takes (calls may branch).
    fn value(&mut self, e: &Expr, env: Env, depth: u32) -> Option<Vec<(Valued, Env)>> {
        if !calls(e) {
            let v = self.pure(e, &env)?;
            return Some(vec![(Ok(v), env)]);
        }
        match e {
            Expr::Call(f, args) => self.call(*f, args, None, env, depth),
            Expr::Unary(op, a) => {
                let mut out = Vec::new();
                for (v, env) in self.value(a, env, depth)? {
                    out.push((v.map(|v| Held::new(unary(*op, v.span))), env));
                }
                Some(out)
            }
            // Both operands always run: left, then right.
            Expr::Binary(op, a, b) if !matches!(op, BinOp::LogAnd | BinOp::LogOr) => {
                let mut out = Vec::new();
                for (x, env) in self.value(a, env, depth)? {
                    let x = match x {
                        Ok(x) => x,
                        Err(end) => {
                            out.push((Err(end), env));
                            continue;
                        }
                    };
                    for (y, env) in self.value(b, env, depth)? {
                        let v = match y {
                            // A divisor that may be 0: a fault.
                            Ok(y) => Ok(Held::arith(*op, x, y, binary(*op, x.span, y.span).ok()?)),
                            Err(end) => Err(end),
                        };
                        out.push((v, env));
                    }
                }
                Some(out)
            }
            // Calls under a short circuit, a choice or an index: not read here.
            _ => None,
        }
    }

    /// The environments of `env` where `c` is (`want`) or is not true,
    /// the variables compared narrowed accordingly.
    fn assume(&mut self, c: &Expr, env: Env, want: bool, depth: u32) -> Option<Vec<Env>> {
        if calls(c) {
            let mut out = Vec::new();
            for (v, env) in self.value(c, env, depth)? {
                // A path ending inside a condition: not read here.
                if v.ok()?.span.truth() != Some(!want) {
                    out.push(env);
                }
            }
            return Some(out);
        }
        match c {
            Expr::Unary(UnOp::Not, a) => self.assume(a, env, !want, depth),
            Expr::Binary(op @ (BinOp::LogAnd | BinOp::LogOr), a, b) => {
                // The second operand runs where the first is `first` (true
                // for `&&`, false for `||`); where the first is not, it
                // decides the whole, as `!first`.
                let first = *op == BinOp::LogAnd;
                let mut out = if want != first {
                    self.assume(a, env.clone(), !first, depth)?
                } else {
                    Vec::new()
                };
                for env in self.assume(a, env, first, depth)? {
                    out.extend(self.assume(b, env, want, depth)?);
                }
                // One environment holding them all: a condition splits no
                // path, however many ways it can hold.
                Some(
                    out.into_iter()
                        .reduce(|a, b| a.join(&b))
                        .into_iter()
                        .collect(),
                )
            }
            Expr::Binary(op, a, b) if compares(*op) => {
                let (x, y) = (self.pure(a, &env)?, self.pure(b, &env)?);
                if let Some(t) = Span::compare(*op, x.span, y.span) {
                    return Some(if t == want { vec![env] } else { Vec::new() });
                }
                let op = if want { *op } else { negated(*op) };
                let mut env = env;
                for (side, other, op) in [(a, y.span, op), (b, x.span, flipped(op))] {
                    if !self.narrow_pointer(side, op, other, &mut env)? {
                        return Some(Vec::new());
                    }
                    if let Some(slot) = variable(side, &mut env) {
                        match narrowed(slot.span, op, other) {
                            Some(s) => *slot = slot.narrowed_to(s),
                            None => return Some(Vec::new()),
                        }
                    }
                }
                Some(vec![env])
            }
            _ => {
                let v = self.pure(c, &env)?;
                Some(match v.span.truth() {
                    Some(t) if t != want => Vec::new(),
                    _ => vec![env],
                })
            }
        }
    }

    /// The value of `e`, which calls nothing, where nothing can fault.
    fn pure(&mut self, e: &Expr, env: &Env) -> Option<Held> {
        Some(match e {
            Expr::Const(v) => Held::new(Span::single(*v)),
            Expr::Global(id) => env.vars[id.0 as usize][0],
            Expr::Local(l) => env.locals[l.0 as usize],
            Expr::ArrayAddr(id) => Held::new(Span::single(id.0 as i32)),
            Expr::Index(a, i) => {
                let i = self.pure(i, env)?;
                match self.elements(env, *a, i.span)? {
                    Elements::One((id, k)) => env.vars[id][k],
                    Elements::Several(at) => {
                        let mut held = at.iter().map(|&(id, k)| env.vars[id][k]);
                        let first = held.next()?;
                        held.fold(first, Held::join)
                    }
                }
            }
            Expr::Unary(op, a) => Held::new(unary(*op, self.pure(a, env)?.span)),
            Expr::Binary(op @ (BinOp::LogAnd | BinOp::LogOr), a, b) => {
                let a = self.pure(a, env)?.span;
                let decided = a.truth() == Some(*op == BinOp::LogOr);
                let b = if decided { a } else { self.pure(b, env)?.span };
                Held::new(Span::binary(*op, a, b))
            }
            // The same variable twice: a square.
            Expr::Binary(BinOp::Mul, a, b) if a.is_variable() && a == b => {
                Held::new(self.pure(a, env)?.span.square())
            }
            Expr::Binary(op, a, b) => {
                let (a, b) = (self.pure(a, env)?, self.pure(b, env)?);
                Held::arith(*op, a, b, binary(*op, a.span, b.span).ok()?)
            }
            Expr::Cond(c, a, b) => match self.pure(c, env)?.span.truth() {
                Some(true) => self.pure(a, env)?,
                Some(false) => self.pure(b, env)?,
                None => self.pure(a, env)?.join(self.pure(b, env)?),
            },
            Expr::Call(..) => return None,
        })
    }

    fn store(&mut self, place: &Place, v: Held, env: &mut Env) -> Option<()> {
        match place {
            Place::Global(id) => {
                env.vars[id.0 as usize][0] = v;
                env.pointing.retain(|(g, _)| *g != id.0 as usize);
            }
            Place::Local(l) => env.locals[l.0 as usize] = v,
            Place::Index(a, i) if !calls(i) => {
                let i = self.pure(i, env)?;
                let Elements::One((id, k)) = self.elements(env, *a, i.span)? else {
                    // A write through a pointer to one of several arrays.
                    if let ArrayRef::Pointer(ptr) = a {
                        self.unfixed = Some(ptr.0 as usize);
                    }
                    return None;
                };
                env.vars[id][k] = v;
            }
            Place::Index(..) => return None,
        }
        Some(())
    }
}

/// The elements (global, element) an indexed read or write may be.
enum Elements {
    /// This one (an array, or a pointer the spans fix).
    One((usize, usize)),
    /// One of these, one per array a pointer may point to.
    Several(Vec<(usize, usize)>),
}

impl Run<'_> {
    /// The elements `a[i]` may be, where the spans fix the index and each
    /// exists.
    fn elements(&mut self, env: &Env, a: ArrayRef, i: Span) -> Option<Elements> {
        let k = usize::try_from(i.value()?).ok()?;
        let p = self.p;
        let element = |id: i32| {
            let id = usize::try_from(id).ok()?;
            let GlobalKind::Array { init, .. } = &p.globals.get(id)?.kind else {
                return None;
            };
            (k < init.len()).then_some((id, k))
        };
        let ptr = match a {
            ArrayRef::Array(id) => return element(id.0 as i32).map(Elements::One),
            ArrayRef::Pointer(ptr) => ptr.0 as usize,
        };
        if let Some(id) = env.vars[ptr][0].span.value() {
            return element(id).map(Elements::One);
        }
        let Some((_, arrays)) = env.pointing.iter().find(|(g, _)| *g == ptr) else {
            self.unfixed = Some(ptr);
            return None;
        };
        arrays
            .iter()
            .map(|&id| element(id))
            .collect::<Option<_>>()
            .map(Elements::Several)
    }

    /// Keeps, of the arrays the pointer `side` reads through may point
    /// to, those whose element `side` reads can be `op other`; `false`
    /// where none is left. Other expressions are left as they are.
    fn narrow_pointer(
        &mut self,
        side: &Expr,
        op: BinOp,
        other: Span,
        env: &mut Env,
    ) -> Option<bool> {
        let Expr::Index(ArrayRef::Pointer(ptr), i) = side else {
            return Some(true);
        };
        let g = ptr.0 as usize;
        if env.vars[g][0].span.value().is_some() || calls(i) {
            return Some(true);
        }
        let at = self.pure(i, env)?.span;
        let Elements::Several(elements) = self.elements(env, ArrayRef::Pointer(*ptr), at)? else {
            return Some(true);
        };
        let kept: Vec<i32> = (elements.into_iter())
            .filter(|&(id, k)| Span::compare(op, env.vars[id][k].span, other) != Some(false))
            .map(|(id, _)| id as i32)
            .collect();
        env.pointing.retain(|(h, _)| *h != g);
        match kept[..] {
            [] => return Some(false),
            [one] => env.vars[g][0] = Held::new(Span::single(one)),
            _ => env.pointing.push((g, kept)),
        }
        Some(true)
    }
}

/// The variable `e` reads, to narrow.
fn variable<'e>(e: &Expr, env: &'e mut Env) -> Option<&'e mut Held> {
    match e {
        Expr::Global(id) => Some(&mut env.vars[id.0 as usize][0]),
        Expr::Local(l) => Some(&mut env.locals[l.0 as usize]),
        _ => None,
    }
}

/// `op` on spans; `Err` where a divisor may be 0 (a fault).
fn binary(op: BinOp, a: Span, b: Span) -> Result<Span, ()> {
    if matches!(op, BinOp::Div | BinOp::Rem) && b.contains(0) {
        return Err(());
    }
    Ok(Span::binary(op, a, b))
}

fn unary(op: UnOp, a: Span) -> Span {
    match op {
        UnOp::Not => match a.truth() {
            Some(t) => Span::single(i32::from(!t)),
            None => Span::FLAG,
        },
        UnOp::Neg => a.negated(),
        UnOp::BitNot => a.bit_not(),
    }
}

fn compares(op: BinOp) -> bool {
    matches!(
        op,
        BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
    )
}

/// `!(a op b)` is `a negated(op) b`.
fn negated(op: BinOp) -> BinOp {
    match op {
        BinOp::Lt => BinOp::Ge,
        BinOp::Ge => BinOp::Lt,
        BinOp::Le => BinOp::Gt,
        BinOp::Gt => BinOp::Le,
        BinOp::Eq => BinOp::Ne,
        BinOp::Ne => BinOp::Eq,
        other => other,
    }
}

/// `a op b` is `b flipped(op) a`.
fn flipped(op: BinOp) -> BinOp {
    match op {
        BinOp::Lt => BinOp::Gt,
        BinOp::Gt => BinOp::Lt,
        BinOp::Le => BinOp::Ge,
        BinOp::Ge => BinOp::Le,
        other => other,
    }
}

/// The values of `s` that stand in relation `op` to some value of
/// `other`; `None` where there are none.
fn narrowed(s: Span, op: BinOp, other: Span) -> Option<Span> {
    let (mut lo, mut hi) = (s.lo as i64, s.hi as i64);
    let (olo, ohi) = (other.lo as i64, other.hi as i64);
    match op {
        BinOp::Lt => hi = hi.min(ohi - 1),
        BinOp::Le => hi = hi.min(ohi),
        BinOp::Gt => lo = lo.max(olo + 1),
        BinOp::Ge => lo = lo.max(olo),
        BinOp::Eq => (lo, hi) = (lo.max(olo), hi.min(ohi)),
        BinOp::Ne => match other.value().map(i64::from) {
            Some(v) if v == lo => lo += 1,
            Some(v) if v == hi => hi -= 1,
            _ => {}
        },
        _ => {}
    }
    (lo <= hi).then_some(Span {
        lo: lo as i32,
        hi: hi as i32,
    })
}
