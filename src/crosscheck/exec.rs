//! One step of a [`Program`] run symbolically from a set of states.
//!
//! Execution follows a set of paths ([`Flow`]s, whose conditions exclude
//! each other). An `if` the values do not decide splits a path in two;
//! past [`MAX_FLOWS`] paths, pairs are merged again (`c ? a : b` per
//! variable), so the terms grow with the program and not with its paths,
//! while a step from a region that fixes most variables keeps few paths
//! of mostly known values. What the step can end in is collected as
//! [`End`]s, each with the condition under which it happens.

use std::collections::HashMap;

use z3::ast::BV;

use super::layout::{Layout, Slot};
use super::syntax::{Binary, Expr, Place, Program, Stmt, Unary};
use super::value::{arith, Arith, Cmp, Cond, Val};
use super::ReadError;

/// Most paths followed at once; more are merged in pairs.
pub const MAX_FLOWS: usize = 32;

/// Deepest chain of calls followed (RERS programs do not recurse).
const MAX_DEPTH: usize = 64;

/// What a step may end in, and when.
#[derive(Clone, Debug)]
pub enum Ending {
    /// At error label `n`.
    Error(u32),
    /// In a fault (the text says which).
    Fault(String),
    /// In this state, from which the run goes on (the step returned, or
    /// threw an invalid input), having said what [`Said`] tells.
    GoesOn(Vec<Val>, Said),
}

/// What a step said: its output symbol, nothing, or that its input was
/// invalid. Values, so that paths merge as the state's values do.
#[derive(Clone, Debug)]
pub struct Said {
    /// [`Said::SILENT`], [`Said::OUTPUT`] or [`Said::INVALID`].
    pub kind: Val,
    /// The output symbol's value, where the kind is [`Said::OUTPUT`].
    pub value: Val,
}

impl Said {
    /// Nothing said.
    pub const SILENT: i32 = 0;
    /// An output symbol.
    pub const OUTPUT: i32 = 1;
    /// An invalid input.
    pub const INVALID: i32 = 2;

    fn of(kind: i32) -> Said {
        Said {
            kind: Val::Known(kind),
            value: Val::Known(0),
        }
    }

    /// What a step that returned `v` said, in the 2012 reading of an
    /// `int` step: -1 nothing, -2 an invalid input, else the output `v`.
    fn returned(v: &Val) -> Said {
        let is = |k: i32| v.compare(Cmp::Eq, &Val::Known(k));
        let kind = is(-1).choose(
            &Val::Known(Said::SILENT),
            &is(-2).choose(&Val::Known(Said::INVALID), &Val::Known(Said::OUTPUT)),
        );
        Said {
            kind,
            value: v.clone(),
        }
    }

    /// `a`'s where `c`, else `b`'s.
    fn choose(c: &Cond, a: Said, b: &Said) -> Said {
        let pick = |x: Val, y: &Val| if x.same(y) { x } else { c.choose(&x, y) };
        Said {
            kind: pick(a.kind, &b.kind),
            value: pick(a.value, &b.value),
        }
    }
}

/// One way a step ends: the condition and the ending.
#[derive(Clone, Debug)]
pub struct End {
    /// When it ends so.
    pub when: Cond,
    /// How.
    pub ending: Ending,
}

/// A path of execution: the state, the locals, and when it is taken.
#[derive(Clone)]
pub struct Flow {
    vals: Vec<Val>,
    /// Locals and parameters of the calls under way: name and value,
    /// innermost last.
    locals: Vec<(String, Val)>,
    /// When this path is taken.
    live: Cond,
    /// What the step said so far.
    said: Said,
}

/// What one symbolic step found.
pub struct Step {
    /// Every way it ends.
    pub ends: Vec<End>,
    /// Where a state variable was compared with a constant and its values
    /// did not decide the comparison, in the order met: the position and
    /// the constant. Cutting the variable's values there decides them.
    pub cuts: Vec<(usize, i32)>,
}

/// The symbolic step: the program, its layout, and what the step ends in.
pub struct Exec<'p> {
    program: &'p Program,
    layout: &'p Layout,
    ends: Vec<End>,
    /// The terms of the state variables before the step, by position.
    pre: HashMap<BV, usize>,
    cuts: Vec<(usize, i32)>,
    /// Per call under way: the paths that returned, with their value.
    returns: Vec<Vec<(Flow, Option<Val>)>>,
    /// Per call under way: where its locals start.
    frames: Vec<usize>,
}

impl<'p> Exec<'p> {
    /// The step of `program` on `input` from the state `pre`: every way it
    /// ends.
    pub fn run(
        program: &'p Program,
        layout: &'p Layout,
        pre: Vec<Val>,
        input: Val,
    ) -> Result<Step, ReadError> {
        let terms = (pre.iter().enumerate())
            .filter_map(|(k, v)| match v {
                Val::Term(t, _) => Some((t.clone(), k)),
                Val::Known(_) => None,
            })
            .collect();
        let mut x = Exec {
            program,
            layout,
            ends: Vec::new(),
            pre: terms,
            cuts: Vec::new(),
            returns: Vec::new(),
            frames: Vec::new(),
        };
        let start = Flow {
            vals: pre,
            locals: Vec::new(),
            live: Cond::Known(true),
            said: Said::of(Said::SILENT),
        };
        let args = vec![vec![input]];
        for (flow, returned) in x.call(&program.step, vec![start], args)? {
            let said = match &returned {
                Some(v) => Said::returned(v),
                None => flow.said,
            };
            x.ends.push(End {
                when: flow.live,
                ending: Ending::GoesOn(flow.vals, said),
            });
        }
        Ok(Step {
            ends: x.ends,
            cuts: x.cuts,
        })
    }

    /// Notes where `a` and `b`, compared, were not decided: a state
    /// variable against a constant.
    fn note_cut(&mut self, a: &Val, b: &Val) {
        for (x, y) in [(a, b), (b, a)] {
            if let (Val::Term(t, _), Val::Known(k)) = (x, y) {
                if let Some(&at) = self.pre.get(t) {
                    self.cuts.push((at, *k));
                }
            }
        }
    }

    fn end(&mut self, when: Cond, ending: Ending) {
        if !when.is_false() {
            self.ends.push(End { when, ending });
        }
    }

    fn fault(&mut self, flow: &Flow, when: &Cond, what: &str) {
        let when = flow.live.and(when);
        self.end(when, Ending::Fault(what.to_string()));
    }

    /// Runs the function `name` on each flow with its arguments: the flows
    /// after it, each with the value it returned, if any.
    fn call(
        &mut self,
        name: &str,
        flows: Vec<Flow>,
        args: Vec<Vec<Val>>,
    ) -> Result<Vec<(Flow, Option<Val>)>, ReadError> {
        let f = (self.program.functions.get(name)).ok_or_else(|| ReadError::Program {
            what: format!("no function `{name}`"),
        })?;
        if self.frames.len() >= MAX_DEPTH || args.iter().any(|a| a.len() != f.params.len()) {
            return Err(ReadError::Program {
                what: format!("the call of `{name}` (too deep, or with the wrong arguments)"),
            });
        }
        let Some(frame) = flows.first().map(|f| f.locals.len()) else {
            return Ok(Vec::new());
        };
        let flows: Vec<Flow> = (flows.into_iter().zip(args))
            .map(|(mut flow, args)| {
                flow.locals.extend(f.params.iter().cloned().zip(args));
                flow
            })
            .collect();
        self.frames.push(frame);
        self.returns.push(Vec::new());
        let ran = self.stmt(&f.body, flows);
        let returned = self.returns.pop().unwrap_or_default();
        self.frames.pop();
        let mut out: Vec<(Flow, Option<Val>)> = ran?.into_iter().map(|f| (f, None)).collect();
        out.extend(returned);
        for (flow, _) in &mut out {
            flow.locals.truncate(frame);
        }
        if out.len() > MAX_FLOWS && out.iter().all(|(_, v)| v.is_none()) {
            let mut flows: Vec<Flow> = out.into_iter().map(|(f, _)| f).collect();
            limit(&mut flows);
            return Ok(flows.into_iter().map(|f| (f, None)).collect());
        }
        Ok(out)
    }

    /// A call in an expression: its flows merged into `flow` again, and
    /// the value returned.
    fn call_value(
        &mut self,
        name: &str,
        args: Vec<Val>,
        flow: &mut Flow,
    ) -> Result<Val, ReadError> {
        let mut outs = self.call(name, vec![flow.clone()], vec![args])?.into_iter();
        let Some((first, v)) = outs.next() else {
            flow.live = Cond::Known(false);
            return Ok(Val::Known(0));
        };
        *flow = first;
        let mut value = v.unwrap_or(Val::Known(0));
        for (other, v) in outs {
            value = (other.live).choose(&v.unwrap_or(Val::Known(0)), &value);
            *flow = merge(other, std::mem::replace(flow, dead()));
        }
        Ok(value)
    }

    fn stmt(&mut self, s: &Stmt, flows: Vec<Flow>) -> Result<Vec<Flow>, ReadError> {
        let mut flows: Vec<Flow> = flows.into_iter().filter(|f| !f.live.is_false()).collect();
        if flows.is_empty() {
            return Ok(flows);
        }
        match s {
            Stmt::Block(b) => {
                let scope = flows[0].locals.len();
                for s in b {
                    flows = self.stmt(s, flows)?;
                }
                for f in &mut flows {
                    f.locals.truncate(scope);
                }
            }
            Stmt::If(c, t, e) => {
                let (mut yes, mut no) = (Vec::new(), Vec::new());
                for mut f in flows {
                    match self.cond(c, &mut f)? {
                        Cond::Known(true) => yes.push(f),
                        Cond::Known(false) => no.push(f),
                        c => {
                            let mut g = f.clone();
                            f.live = f.live.and(&c);
                            g.live = g.live.and(&c.not());
                            yes.push(f);
                            no.push(g);
                        }
                    }
                }
                flows = self.stmt(t, yes)?;
                flows.extend(self.stmt(e, no)?);
                limit(&mut flows);
            }
            Stmt::Assign(place, v, _) => {
                for f in &mut flows {
                    let v = self.expr(v, f)?;
                    self.store(place, v, f)?;
                }
            }
            Stmt::Local(name, init) => {
                for f in &mut flows {
                    let v = match init {
                        Some(e) => self.expr(e, f)?,
                        None => Val::Known(0),
                    };
                    f.locals.push((name.clone(), v));
                }
            }
            Stmt::Call(name, args, _) => {
                let mut all = Vec::new();
                for f in &mut flows {
                    all.push(self.args(args, f)?);
                }
                flows = (self.call(name, flows, all)?.into_iter())
                    .map(|(f, _)| f)
                    .collect();
                limit(&mut flows);
            }
            Stmt::Return(v) => {
                for mut f in flows.drain(..) {
                    let v = v.as_ref().map(|e| self.expr(e, &mut f)).transpose()?;
                    if let Some(top) = self.returns.last_mut() {
                        top.push((f, v));
                    }
                }
            }
            Stmt::Error(n) => {
                for f in flows.drain(..) {
                    self.end(f.live, Ending::Error(*n));
                }
            }
            Stmt::Assert(c, n) => {
                for f in &mut flows {
                    let c = self.cond(c, f)?;
                    self.end(f.live.and(&c.not()), Ending::Error(*n));
                    f.live = f.live.and(&c);
                }
            }
            Stmt::Assume(c) => {
                for f in &mut flows {
                    let c = self.cond(c, f)?;
                    f.live = f.live.and(&c);
                }
            }
            Stmt::Throw => {
                for f in flows.drain(..) {
                    self.end(f.live, Ending::GoesOn(f.vals, Said::of(Said::INVALID)));
                }
            }
            Stmt::Effect(e) => {
                for f in &mut flows {
                    self.expr(e, f)?;
                }
            }
            Stmt::Output(e) => {
                for f in &mut flows {
                    let value = self.expr(e, f)?;
                    f.said = Said {
                        kind: Val::Known(Said::OUTPUT),
                        value,
                    };
                }
            }
            Stmt::Invalid => {
                for f in &mut flows {
                    f.said = Said::of(Said::INVALID);
                }
            }
            Stmt::Skip => {}
        }
        Ok(flows)
    }

    fn args(&mut self, args: &[Expr], flow: &mut Flow) -> Result<Vec<Val>, ReadError> {
        args.iter().map(|a| self.expr(a, flow)).collect()
    }

    /// Where the local or parameter `name` of the call under way is.
    fn local(&self, flow: &Flow, name: &str) -> Option<usize> {
        let frame = self.frames.last().copied().unwrap_or(0);
        (flow.locals[frame..].iter().rposition(|(n, _)| n == name)).map(|k| frame + k)
    }

    fn slot(&self, name: &str) -> Result<&'p Slot, ReadError> {
        self.layout
            .slots
            .get(name)
            .ok_or_else(|| ReadError::Program {
                what: format!("no variable `{name}`"),
            })
    }

    fn store(&mut self, place: &Place, v: Val, flow: &mut Flow) -> Result<(), ReadError> {
        match place {
            Place::Name(n) => {
                if let Some(k) = self.local(flow, n) {
                    flow.locals[k].1 = v;
                    return Ok(());
                }
                match self.slot(n)? {
                    Slot::Scalar(at) => flow.vals[*at] = v,
                    Slot::Pointer(at) => {
                        let ok = v.hull().values().is_some_and(|vs| {
                            vs.iter()
                                .all(|&a| a >= 0 && (a as usize) < self.layout.arrays.len())
                        });
                        if !ok {
                            return Err(ReadError::Program {
                                what: format!("`{n}` is set to something other than an array"),
                            });
                        }
                        flow.vals[*at] = v;
                    }
                    Slot::Array(..) => {
                        return Err(ReadError::Program {
                            what: format!("the array `{n}` is assigned as a whole"),
                        })
                    }
                }
            }
            Place::Index(n, i) => {
                let i = self.expr(i, flow)?;
                for (at, when) in self.elements(n, &i, flow)? {
                    flow.vals[at] = when.choose(&v, &flow.vals[at]);
                }
            }
        }
        Ok(())
    }

    /// The positions `name[index]` may be, each with when it is that one;
    /// an index that may be out of bounds is a fault.
    fn elements(
        &mut self,
        name: &str,
        index: &Val,
        flow: &mut Flow,
    ) -> Result<Vec<(usize, Cond)>, ReadError> {
        // The arrays it may be, each with when.
        let arrays: Vec<(usize, Cond)> = match self.slot(name)? {
            Slot::Array(..) => {
                let k = self.layout.array_number(name).unwrap_or(0);
                vec![(k, Cond::Known(true))]
            }
            Slot::Pointer(at) => {
                let p = flow.vals[*at].clone();
                let targets = p.hull().values().map(<[i32]>::to_vec).unwrap_or_default();
                targets
                    .into_iter()
                    .map(|a| (a as usize, p.compare(Cmp::Eq, &Val::Known(a))))
                    .filter(|(_, c)| !c.is_false())
                    .collect()
            }
            Slot::Scalar(_) => {
                return Err(ReadError::Program {
                    what: format!("`{name}` is indexed but is no array"),
                })
            }
        };
        let mut out = Vec::new();
        for (a, is_a) in arrays {
            let Some((_, base, len)) = self.layout.arrays.get(a).cloned() else {
                return Err(ReadError::Program {
                    what: format!("`{name}` may point to no array"),
                });
            };
            let outside = index
                .compare(Cmp::Lt, &Val::Known(0))
                .or(&index.compare(Cmp::Ge, &Val::Known(len as i32)));
            self.fault(flow, &is_a.and(&outside), "an index out of bounds");
            for k in 0..len {
                let here = is_a.and(&index.compare(Cmp::Eq, &Val::Known(k as i32)));
                if !here.is_false() {
                    out.push((base + k, here));
                }
            }
        }
        Ok(out)
    }

    fn cond(&mut self, e: &Expr, flow: &mut Flow) -> Result<Cond, ReadError> {
        Ok(match e {
            Expr::Binary(op @ (Binary::And | Binary::Or), a, b) => {
                let a = self.cond(a, flow)?;
                let go_on = if *op == Binary::And {
                    a.clone()
                } else {
                    a.not()
                };
                if go_on.is_false() {
                    return Ok(a);
                }
                if matches!(go_on, Cond::Term(_)) && has_call(b) {
                    return Err(ReadError::Program {
                        what: "a call on the right of `&&` or `||`".into(),
                    });
                }
                // The right operand is evaluated (and may fault) only
                // where the left one lets it.
                let narrowed = flow.live.and(&go_on);
                let live = std::mem::replace(&mut flow.live, narrowed);
                let b = self.cond(b, flow);
                flow.live = live;
                let b = b?;
                if *op == Binary::And {
                    a.and(&b)
                } else {
                    a.or(&b)
                }
            }
            Expr::Unary(Unary::Not, a) => self.cond(a, flow)?.not(),
            Expr::Binary(op, a, b) if compare(*op).is_some() => {
                let (a, b) = (self.expr(a, flow)?, self.expr(b, flow)?);
                let c = a.compare(compare(*op).unwrap_or(Cmp::Eq), &b);
                if let Cond::Term(_) = c {
                    self.note_cut(&a, &b);
                }
                c
            }
            _ => self.expr(e, flow)?.truth(),
        })
    }

    fn expr(&mut self, e: &Expr, flow: &mut Flow) -> Result<Val, ReadError> {
        Ok(match e {
            Expr::Const(k) => Val::Known(*k),
            Expr::Name(n) => {
                if let Some(k) = self.local(flow, n) {
                    return Ok(flow.locals[k].1.clone());
                }
                match self.slot(n)? {
                    Slot::Scalar(at) | Slot::Pointer(at) => flow.vals[*at].clone(),
                    Slot::Array(..) => self.array_ref(n)?,
                }
            }
            Expr::ArrayRef(n) => self.array_ref(n)?,
            Expr::Index(base, i) => {
                let Expr::Name(n) = &**base else {
                    return Err(ReadError::Program {
                        what: "an element of something other than a variable".into(),
                    });
                };
                let i = self.expr(i, flow)?;
                let mut v: Option<Val> = None;
                for (at, when) in self.elements(n, &i, flow)? {
                    let x = flow.vals[at].clone();
                    v = Some(match v {
                        None => x,
                        Some(acc) => when.choose(&x, &acc),
                    });
                }
                v.unwrap_or(Val::Known(0))
            }
            Expr::Unary(op, a) => match op {
                Unary::Not => self.cond(e, flow)?.value(),
                Unary::Plus => self.expr(a, flow)?,
                Unary::Neg => self.arith(Arith::Sub, &Val::Known(0), a, flow)?,
                Unary::Complement => {
                    let a = self.expr(a, flow)?;
                    arith(Arith::Xor, &a, &Val::Known(-1)).0
                }
            },
            Expr::Binary(op, a, b) => match arithmetic(*op) {
                Some(op) => {
                    let a = self.expr(a, flow)?;
                    self.arith(op, &a, b, flow)?
                }
                None => self.cond(e, flow)?.value(),
            },
            Expr::Choose(c, a, b) => {
                let c = self.cond(c, flow)?;
                match c {
                    Cond::Known(true) => self.expr(a, flow)?,
                    Cond::Known(false) => self.expr(b, flow)?,
                    Cond::Term(_) if has_call(a) || has_call(b) => {
                        return Err(ReadError::Program {
                            what: "a call in a branch of `?:`".into(),
                        })
                    }
                    Cond::Term(_) => {
                        let live = flow.live.clone();
                        flow.live = live.and(&c);
                        let x = self.expr(a, flow);
                        flow.live = live.and(&c.not());
                        let y = self.expr(b, flow);
                        flow.live = live;
                        c.choose(&x?, &y?)
                    }
                }
            }
            Expr::Call(f, args, _) => {
                let args = self.args(args, flow)?;
                self.call_value(f, args, flow)?
            }
        })
    }

    /// `a op b`, with its fault.
    fn arith(&mut self, op: Arith, a: &Val, b: &Expr, flow: &mut Flow) -> Result<Val, ReadError> {
        let b = self.expr(b, flow)?;
        let (v, fault) = arith(op, a, &b);
        self.fault(flow, &fault, "a division by zero, or a shift out of range");
        Ok(v)
    }

    fn array_ref(&self, n: &str) -> Result<Val, ReadError> {
        (self.layout.array_number(n))
            .map(|k| Val::Known(k as i32))
            .ok_or_else(|| ReadError::Program {
                what: format!("`{n}` is no array"),
            })
    }
}

/// A flow taken never.
fn dead() -> Flow {
    Flow {
        vals: Vec::new(),
        locals: Vec::new(),
        live: Cond::Known(false),
        said: Said::of(Said::SILENT),
    }
}

/// One flow for two whose conditions exclude each other: each value is
/// `a`'s where `a` is taken, else `b`'s.
fn merge(a: Flow, b: Flow) -> Flow {
    if a.live.is_false() {
        return b;
    }
    if b.live.is_false() {
        return a;
    }
    let c = a.live.clone();
    let pick = |x: Vec<Val>, y: &[Val]| -> Vec<Val> {
        (x.into_iter().zip(y))
            .map(|(v, w)| if v.same(w) { v } else { c.choose(&v, w) })
            .collect()
    };
    let vals = pick(a.vals, &b.vals);
    let locals = (a.locals.into_iter().zip(&b.locals))
        .map(|((n, v), (_, w))| {
            let v = if v.same(w) { v } else { c.choose(&v, w) };
            (n, v)
        })
        .collect();
    Flow {
        vals,
        locals,
        said: Said::choose(&c, a.said, &b.said),
        live: a.live.or(&b.live),
    }
}

/// Merges flows in pairs until at most [`MAX_FLOWS`] are left.
fn limit(flows: &mut Vec<Flow>) {
    while flows.len() > MAX_FLOWS {
        let old = std::mem::take(flows);
        let mut it = old.into_iter();
        while let Some(a) = it.next() {
            match it.next() {
                Some(b) => flows.push(merge(a, b)),
                None => flows.push(a),
            }
        }
    }
}

/// Whether evaluating `e` calls a function (which may change the state).
fn has_call(e: &Expr) -> bool {
    match e {
        Expr::Call(..) => true,
        Expr::Const(_) | Expr::Name(_) | Expr::ArrayRef(_) => false,
        Expr::Index(a, b) | Expr::Binary(_, a, b) => has_call(a) || has_call(b),
        Expr::Unary(_, a) => has_call(a),
        Expr::Choose(c, a, b) => has_call(c) || has_call(a) || has_call(b),
    }
}

fn compare(op: Binary) -> Option<Cmp> {
    Some(match op {
        Binary::Eq => Cmp::Eq,
        Binary::Ne => Cmp::Ne,
        Binary::Lt => Cmp::Lt,
        Binary::Le => Cmp::Le,
        Binary::Gt => Cmp::Gt,
        Binary::Ge => Cmp::Ge,
        _ => return None,
    })
}

fn arithmetic(op: Binary) -> Option<Arith> {
    Some(match op {
        Binary::Add => Arith::Add,
        Binary::Sub => Arith::Sub,
        Binary::Mul => Arith::Mul,
        Binary::Div => Arith::Div,
        Binary::Rem => Arith::Rem,
        Binary::Shl => Arith::Shl,
        Binary::Shr => Arith::Shr,
        Binary::UShr => Arith::UShr,
        Binary::BitAnd => Arith::And,
        Binary::BitOr => Arith::Or,
        Binary::BitXor => Arith::Xor,
        _ => return None,
    })
}
