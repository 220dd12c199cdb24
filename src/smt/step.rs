//! One step of the IR as bit-vector terms, folded where values are known.

use super::span::Span;
use super::value::{Cond, Value};
use crate::ir::{
    ArrayRef, BinOp, Expr, FuncId, GlobalId, GlobalKind, Place, Program, StepReturn, Stmt, UnOp,
};

/// Deepest call nesting encoded.
const MAX_DEPTH: u32 = 64;

/// Why the step could not be encoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    /// The program holds a loop.
    #[error("the program has a loop (`while`), which is not encoded")]
    Loop,
    /// Calls nest deeper than the encoder follows (recursion).
    #[error("{0}: calls nested deeper than {MAX_DEPTH}")]
    TooDeep(String),
}

/// One step of a program over bit-vector terms.
pub struct SymbolicStep {
    /// The value of each global before the step, by [`GlobalId`]: one per
    /// scalar or pointer, one per element for arrays. Globals declared
    /// constant, and those the caller fixed, are known.
    pub pre: Vec<Vec<Value>>,
    /// That the values before the step lie in the spans the caller gave:
    /// every query on the step must assume it.
    pub domain: Cond,
    /// The input value the step is called with.
    pub input: Value,
    /// The value of each global after the step (where it goes on).
    pub post: Vec<Vec<Value>>,
    /// For each error label of the program: when the step ends there.
    pub errors: Vec<(u32, Cond)>,
    /// When the step ends as an invalid input (the run goes on).
    pub invalid: Cond,
    /// When the step has no successor (`__VERIFIER_assume` failed).
    pub blocked: Cond,
    /// When the engine would fault (never a proof then).
    pub fault: Cond,
    /// When the step ends with an output, and its value.
    pub output: (Cond, Value),
    /// When the run goes on after the step: an output, a silent step or
    /// an invalid input, without a fault.
    pub goes_on: Cond,
    /// How many `if`s whose condition is not known were met, the guided
    /// ones included: more than the guide's length means the encoding can
    /// be split further (see [`SymbolicStep::encode_path`]).
    pub branches: usize,
}

impl SymbolicStep {
    /// Encodes the step of `p`, its variables named after the globals with
    /// `prefix` (`pre.a17`, `pre.a5[3]`). `spans[g][k]`, where given, holds
    /// the values of global `g` (element `k`) before the step (the
    /// encoding is folded for them and [`SymbolicStep::domain`] says so);
    /// `input`, where given, the input value.
    pub fn encode(
        p: &Program,
        prefix: &str,
        spans: &[Vec<Option<Span>>],
        input: Option<i32>,
    ) -> Result<SymbolicStep, EncodeError> {
        Self::encode_path(p, prefix, spans, input, &[])
    }

    /// As [`SymbolicStep::encode`], but the first `guide.len()` `if`s whose
    /// condition is not known (in the order a run meets them) take only
    /// the branch the guide says (`true`: the `then` branch); the paths
    /// of the other branch are left out. The encodings of `guide + [true]`
    /// and `guide + [false]` together hold every path of that of `guide`,
    /// each with fewer terms: a query too hard whole can be split.
    pub fn encode_path(
        p: &Program,
        prefix: &str,
        spans: &[Vec<Option<Span>>],
        input: Option<i32>,
        guide: &[bool],
    ) -> Result<SymbolicStep, EncodeError> {
        let given = |g: usize, k: usize| spans.get(g).and_then(|v| v.get(k).copied().flatten());
        let var = |g: usize, k: usize, name: String| match given(g, k) {
            Some(s) => Value::fresh_in(&name, s),
            None => Value::fresh(&name),
        };
        let pre: Vec<Vec<Value>> = (p.globals.iter().enumerate())
            .map(|(i, g)| match &g.kind {
                GlobalKind::Scalar { init, .. } if g.constant => vec![Value::Known(*init)],
                GlobalKind::Pointer { init } if g.constant => vec![Value::Known(init.0 as i32)],
                GlobalKind::Array { init, .. } if g.constant => {
                    init.iter().map(|v| Value::Known(*v)).collect()
                }
                GlobalKind::Scalar { .. } | GlobalKind::Pointer { .. } => {
                    vec![var(i, 0, format!("{prefix}.{}", g.name))]
                }
                GlobalKind::Array { init, .. } => (0..init.len())
                    .map(|k| var(i, k, format!("{prefix}.{}[{k}]", g.name)))
                    .collect(),
            })
            .collect();
        let input = match input {
            Some(v) => Value::Known(v),
            None => var(usize::MAX, 0, format!("{prefix}.input")),
        };
        let mut e = Encoder {
            p,
            cur: Vals {
                vars: pre.clone(),
                locals: Vec::new(),
                out: Value::Known(0),
                has_out: Cond::FALSE,
            },
            errors: p.error_labels.iter().map(|&n| (n, Cond::FALSE)).collect(),
            invalid: Vec::new(),
            blocked: Cond::FALSE,
            fault: Cond::FALSE,
            prefix: prefix.to_string(),
            locals: 0,
            guide,
            branches: 0,
        };
        let mut g = Cond::TRUE;
        let code = e.call(p.step, &[], Some(input.clone()), &mut g, 0)?;
        // `g`: the step returned; `e.cur`: the values then.
        let (output, normal) = match p.step_return {
            StepReturn::Void => ((e.cur.has_out.clone(), e.cur.out.clone()), g),
            StepReturn::OutputCode => {
                // The value returned: -1 silent, -2 invalid, else an output.
                let invalid = code.is(-2);
                let is_output = in_alphabet(p, &code);
                let unknown = Cond::any([&code.is(-1), &invalid, &is_output]).not();
                e.fault_if(&mut g, &unknown);
                e.invalid.push((g.and(&invalid), e.cur.clone()));
                ((g.and(&is_output), code), g)
            }
        };
        let mut post = e.cur.clone();
        let mut goes_on = vec![normal.clone()];
        for (when, vals) in e.invalid.iter().rev() {
            post = merge(&when.and(&normal.not()), vals, &post);
            goes_on.push(when.clone());
        }
        let mut domain = Cond::TRUE;
        for v in pre.iter().flatten() {
            domain = domain.and(&v.domain());
        }
        Ok(SymbolicStep {
            pre,
            domain,
            input,
            post: post.vars,
            errors: e.errors,
            invalid: Cond::any(e.invalid.iter().map(|(g, _)| g)),
            blocked: e.blocked,
            fault: e.fault,
            output,
            goes_on: Cond::any(&goes_on),
            branches: e.branches,
        })
    }
}

/// Whether `v` is the value of an output symbol.
fn in_alphabet(p: &Program, v: &Value) -> Cond {
    let each: Vec<Cond> = p.outputs.iter().map(|s| v.is(s.value)).collect();
    Cond::any(&each)
}

/// The values along one set of paths: every global, the locals of the
/// function running, the output so far.
#[derive(Clone)]
struct Vals {
    vars: Vec<Vec<Value>>,
    locals: Vec<Value>,
    out: Value,
    has_out: Cond,
}

/// `a` where `c`, else `b`; a value stays shared where both agree.
fn merge(c: &Cond, a: &Vals, b: &Vals) -> Vals {
    match c {
        Cond::Known(true) => return a.clone(),
        Cond::Known(false) => return b.clone(),
        Cond::Term(_) => {}
    }
    Vals {
        vars: (a.vars.iter().zip(&b.vars))
            .map(|(x, y)| x.iter().zip(y).map(|(x, y)| c.pick(x, y)).collect())
            .collect(),
        locals: (a.locals.iter().zip(&b.locals))
            .map(|(x, y)| c.pick(x, y))
            .collect(),
        out: c.pick(&a.out, &b.out),
        has_out: c.pick_cond(&a.has_out, &b.has_out),
    }
}

/// How the function being encoded returned: when, with which values and
/// which return value.
type Returns = Vec<(Cond, Vals, Option<Value>)>;

/// The state of the encoding. Inside a branch the values are plain terms;
/// `if`s merge them where both branches go on. Paths that leave (a return,
/// an error label, an invalid input) are recorded and no longer guard what
/// follows.
struct Encoder<'p> {
    p: &'p Program,
    /// The branches the first undecided `if`s take.
    guide: &'p [bool],
    /// Undecided `if`s met so far.
    branches: usize,
    cur: Vals,
    errors: Vec<(u32, Cond)>,
    /// Invalid inputs: when, and the values then (the run goes on).
    invalid: Vec<(Cond, Vals)>,
    blocked: Cond,
    fault: Cond,
    /// Uninitialised locals named so far.
    locals: usize,
    /// What the unknowns' names start with.
    prefix: String,
}

impl Encoder<'_> {
    /// A fault where `g` and `cond`; the paths going on are `g` without it.
    fn fault_if(&mut self, g: &mut Cond, cond: &Cond) {
        self.fault = self.fault.or(&g.and(cond));
        *g = g.and(&cond.not());
    }

    /// Runs `stmts` on the paths `g`; the paths still running after them,
    /// `None` when none can be.
    fn block(
        &mut self,
        stmts: &[Stmt],
        g: Cond,
        ret: &mut Returns,
        depth: u32,
    ) -> Result<Option<Cond>, EncodeError> {
        let mut g = g;
        for s in stmts {
            if g.is_false() {
                return Ok(None);
            }
            match self.stmt(s, g, ret, depth)? {
                Some(next) => g = next,
                None => return Ok(None),
            }
        }
        Ok(Some(g))
    }

    fn stmt(
        &mut self,
        s: &Stmt,
        mut g: Cond,
        ret: &mut Returns,
        depth: u32,
    ) -> Result<Option<Cond>, EncodeError> {
        match s {
            Stmt::Assign(place, e, _) => {
                let v = self.expr(e, &mut g, depth)?;
                self.store(place, v, &mut g, depth)?;
            }
            Stmt::If(c, then_, else_) => {
                let c = self.expr(c, &mut g, depth)?.truth();
                match c {
                    Cond::Known(true) => return self.block(then_, g, ret, depth),
                    Cond::Known(false) => return self.block(else_, g, ret, depth),
                    Cond::Term(_) => {}
                }
                self.branches += 1;
                match self.guide.get(self.branches - 1) {
                    Some(true) => return self.block(then_, g.and(&c), ret, depth),
                    Some(false) => return self.block(else_, g.and(&c.not()), ret, depth),
                    None => {}
                }
                let before = self.cur.clone();
                let t = self.block(then_, g.and(&c), ret, depth)?;
                let after_then = std::mem::replace(&mut self.cur, before);
                let e = self.block(else_, g.and(&c.not()), ret, depth)?;
                return Ok(match (t, e) {
                    (None, None) => None,
                    (Some(t), None) => {
                        self.cur = after_then;
                        Some(t)
                    }
                    (None, Some(e)) => Some(e),
                    (Some(t), Some(e)) => {
                        self.cur = merge(&c, &after_then, &self.cur);
                        Some(t.or(&e))
                    }
                });
            }
            Stmt::While(..) => return Err(EncodeError::Loop),
            Stmt::Call(f, args, _) => {
                self.call(*f, args, None, &mut g, depth)?;
            }
            Stmt::Return(e) => {
                let v = match e {
                    Some(e) => Some(self.expr(e, &mut g, depth)?),
                    None => None,
                };
                ret.push((g, self.cur.clone(), v));
                return Ok(None);
            }
            Stmt::Output(e, _) => {
                let v = self.expr(e, &mut g, depth)?;
                let bad = self.cur.has_out.or(&in_alphabet(self.p, &v).not());
                self.fault_if(&mut g, &bad);
                self.cur.out = v;
                self.cur.has_out = Cond::TRUE;
            }
            Stmt::Error(n) => {
                match self.errors.iter_mut().find(|(l, _)| l == n) {
                    Some(slot) => slot.1 = slot.1.or(&g),
                    None => self.errors.push((*n, g)),
                }
                return Ok(None);
            }
            Stmt::Invalid => {
                self.invalid.push((g, self.cur.clone()));
                return Ok(None);
            }
            Stmt::Assume(c) => {
                let c = self.expr(c, &mut g, depth)?.truth();
                self.blocked = self.blocked.or(&g.and(&c.not()));
                g = g.and(&c);
            }
        }
        Ok(Some(g))
    }

    /// Runs `f` on `args` (or on `input` alone: the step) on the paths `g`,
    /// which become those it returns on; its return value.
    fn call(
        &mut self,
        f: FuncId,
        args: &[Expr],
        input: Option<Value>,
        g: &mut Cond,
        depth: u32,
    ) -> Result<Value, EncodeError> {
        let func = self.p.function(f);
        if depth >= MAX_DEPTH {
            return Err(EncodeError::TooDeep(func.name.clone()));
        }
        let mut locals: Vec<Value> = input.into_iter().collect();
        for a in args {
            locals.push(self.expr(a, g, depth)?);
        }
        while locals.len() < func.locals as usize {
            self.locals += 1;
            locals.push(Value::fresh(&format!(
                "{}.local{}",
                self.prefix, self.locals
            )));
        }
        let caller = std::mem::replace(&mut self.cur.locals, locals);
        let mut returns: Returns = Vec::new();
        if let Some(mut end) = self.block(&func.body, g.clone(), &mut returns, depth + 1)? {
            if func.returns_value {
                // Falling off the end of a value function: no value to use.
                self.fault_if(&mut end, &Cond::TRUE);
            } else {
                returns.push((end, self.cur.clone(), None));
            }
        }
        let mut value = Value::Known(0);
        match returns.pop() {
            None => *g = Cond::FALSE,
            Some((last_g, last, last_v)) => {
                let mut guards = vec![last_g];
                let mut vals = last;
                value = last_v.unwrap_or(Value::Known(0));
                for (when, v, r) in returns.into_iter().rev() {
                    vals = merge(&when, &v, &vals);
                    if let Some(r) = r {
                        value = when.pick(&r, &value);
                    }
                    guards.push(when);
                }
                self.cur = vals;
                *g = Cond::any(&guards);
            }
        }
        self.cur.locals = caller;
        Ok(value)
    }

    /// The arrays `a` may name, as (global, condition); a fault where it
    /// names none.
    fn arrays(&mut self, a: ArrayRef, g: &mut Cond) -> Vec<(GlobalId, Cond)> {
        match a {
            ArrayRef::Array(id) => vec![(id, Cond::TRUE)],
            ArrayRef::Pointer(p) => {
                let ptr = self.cur.vars[p.0 as usize][0].clone();
                let out: Vec<(GlobalId, Cond)> = (self.p.globals.iter().enumerate())
                    .filter(|(_, x)| matches!(x.kind, GlobalKind::Array { .. }))
                    .map(|(i, _)| (GlobalId(i as u32), ptr.is(i as i32)))
                    .filter(|(_, c)| !c.is_false())
                    .collect();
                let some = Cond::any(out.iter().map(|(_, c)| c));
                self.fault_if(g, &some.not());
                out
            }
        }
    }

    /// The elements `a[idx]` may be, as (global, element, condition), with
    /// a fault where the index is out of bounds.
    fn elements(&mut self, a: ArrayRef, idx: &Value, g: &mut Cond) -> Vec<(GlobalId, usize, Cond)> {
        let mut out = Vec::new();
        for (id, names) in self.arrays(a, g) {
            let len = self.cur.vars[id.0 as usize].len();
            let inside = idx.within(0, len as i64 - 1);
            self.fault_if(g, &names.and(&inside.not()));
            for k in 0..len {
                let at = names.and(&idx.is(k as i32));
                if !at.is_false() {
                    out.push((id, k, at));
                }
            }
        }
        out
    }

    fn store(
        &mut self,
        place: &Place,
        v: Value,
        g: &mut Cond,
        depth: u32,
    ) -> Result<(), EncodeError> {
        match place {
            Place::Global(id) => self.cur.vars[id.0 as usize][0] = v,
            Place::Local(l) => self.cur.locals[l.0 as usize] = v,
            Place::Index(a, i) => {
                let idx = self.expr(i, g, depth)?;
                for (id, k, at) in self.elements(*a, &idx, g) {
                    let old = &self.cur.vars[id.0 as usize][k];
                    self.cur.vars[id.0 as usize][k] = at.pick(&v, old);
                }
            }
        }
        Ok(())
    }

    /// The value of `e` on the paths `g` (faults and calls narrow `g`).
    fn expr(&mut self, e: &Expr, g: &mut Cond, depth: u32) -> Result<Value, EncodeError> {
        Ok(match e {
            Expr::Const(v) => Value::Known(*v),
            Expr::Global(id) => self.cur.vars[id.0 as usize][0].clone(),
            Expr::Local(l) => self.cur.locals[l.0 as usize].clone(),
            Expr::ArrayAddr(id) => Value::Known(id.0 as i32),
            Expr::Index(a, i) => {
                let idx = self.expr(i, g, depth)?;
                let mut v = Value::Known(0);
                for (id, k, at) in self.elements(*a, &idx, g) {
                    v = at.pick(&self.cur.vars[id.0 as usize][k], &v);
                }
                v
            }
            Expr::Unary(op, a) => {
                let a = self.expr(a, g, depth)?;
                match op {
                    UnOp::Not => Value::from(a.truth().not()),
                    UnOp::Neg => a.neg(),
                    UnOp::BitNot => a.bit_not(),
                }
            }
            Expr::Binary(op @ (BinOp::LogAnd | BinOp::LogOr), a, b) => {
                let a = self.expr(a, g, depth)?.truth();
                // The second operand runs only where the first does not
                // decide: faults and calls there count on those paths.
                let on = if *op == BinOp::LogAnd {
                    a.clone()
                } else {
                    a.not()
                };
                if on.is_false() {
                    return Ok(Value::from(a));
                }
                let b = self.branch(b, g, &on, depth)?.truth();
                Value::from(if *op == BinOp::LogAnd {
                    a.and(&b)
                } else {
                    a.or(&b)
                })
            }
            Expr::Binary(op, a, b) => {
                let a = self.expr(a, g, depth)?;
                let b = self.expr(b, g, depth)?;
                if matches!(op, BinOp::Div | BinOp::Rem) {
                    self.fault_if(g, &b.is(0));
                }
                Value::binary(*op, &a, &b)
            }
            Expr::Cond(c, a, b) => {
                let c = self.expr(c, g, depth)?.truth();
                match c {
                    Cond::Known(true) => return self.expr(a, g, depth),
                    Cond::Known(false) => return self.expr(b, g, depth),
                    Cond::Term(_) => {}
                }
                let a = self.branch(a, g, &c, depth)?;
                let b = self.branch(b, g, &c.not(), depth)?;
                c.pick(&a, &b)
            }
            Expr::Call(f, args) => self.call(*f, args, None, g, depth)?,
        })
    }

    /// `e` evaluated only on the paths `g` where `on`: `g` keeps the paths
    /// where `on` fails and those of the evaluation that went on.
    fn branch(
        &mut self,
        e: &Expr,
        g: &mut Cond,
        on: &Cond,
        depth: u32,
    ) -> Result<Value, EncodeError> {
        if let Cond::Known(true) = on {
            return self.expr(e, g, depth);
        }
        let mut inner = g.and(on);
        if !calls(e) {
            // Nothing in `e` changes the values: no copy to restore them.
            let v = self.expr(e, &mut inner, depth)?;
            *g = g.and(&on.not()).or(&inner);
            return Ok(v);
        }
        let before = self.cur.clone();
        let v = self.expr(e, &mut inner, depth)?;
        // Values changed by a call in `e` hold only where `on`.
        self.cur = merge(on, &self.cur, &before);
        *g = g.and(&on.not()).or(&inner);
        Ok(v)
    }
}

/// Whether evaluating `e` calls a function (which may change values).
pub(super) fn calls(e: &Expr) -> bool {
    match e {
        Expr::Const(_) | Expr::Global(_) | Expr::Local(_) | Expr::ArrayAddr(_) => false,
        Expr::Index(_, i) | Expr::Unary(_, i) => calls(i),
        Expr::Binary(_, a, b) => calls(a) || calls(b),
        Expr::Cond(c, a, b) => calls(c) || calls(a) || calls(b),
        Expr::Call(..) => true,
    }
}
