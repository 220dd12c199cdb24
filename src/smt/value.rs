//! Values and conditions that are constants where they can be: the
//! encoder folds them, so a step from a state whose variables are mostly
//! known encodes only the paths those values leave open.
//!
//! Terms are 32-bit vectors with the wrapping two's-complement arithmetic
//! of C `int` as the engine runs it (and of Java `int`). An integer
//! encoding, with overflow as a fault, was measured too: z3 settles the
//! many small bit-vector queries of a certificate in tens of milliseconds
//! each, where the integer ones with remainders of large ranges took
//! seconds to minutes.

use z3::ast::{Bool, BV};

use super::span::Span;
use crate::ir::BinOp;

/// Bits of every value (C `int`, Java `int`).
const WIDTH: u32 = 32;

/// A 32-bit value: known, or a term.
#[derive(Clone, Debug)]
pub enum Value {
    /// A constant.
    Known(i32),
    /// A bit-vector term, and the values it can take (see [`Span`]).
    Term(BV, Span),
    /// 1 where the condition holds, else 0 (a comparison's value).
    Flag(Bool),
}

/// A condition: known, or a Boolean term.
#[derive(Clone, Debug)]
pub enum Cond {
    /// A constant.
    Known(bool),
    /// A term.
    Term(Bool),
}

impl Value {
    /// A new unknown value named `name`.
    pub fn fresh(name: &str) -> Value {
        Value::Term(BV::new_const(name, WIDTH), Span::ALL)
    }

    /// A new unknown value named `name` that the query takes to lie in
    /// `span` (the query must say so: see [`Value::domain`]).
    pub fn fresh_in(name: &str, span: Span) -> Value {
        match span.value() {
            Some(v) => Value::Known(v),
            None => Value::Term(BV::new_const(name, WIDTH), span),
        }
    }

    /// The term `t`, known to lie in `span`.
    fn of(t: BV, span: Span) -> Value {
        match span.value() {
            Some(v) => Value::Known(v),
            None => Value::Term(t, span),
        }
    }

    /// The values it can take.
    pub fn span(&self) -> Span {
        match self {
            Value::Known(v) => Span::single(*v),
            Value::Term(_, s) => *s,
            Value::Flag(_) => Span::FLAG,
        }
    }

    /// That the value lies in its span, as a term the solver is told (the
    /// folding took it for granted): for the variables before the step.
    pub fn domain(&self) -> Cond {
        match self {
            Value::Term(t, s) if *s != Span::ALL => {
                Cond::Term(Bool::and(&[t.bvsge(s.lo as i64), t.bvsle(s.hi as i64)]))
            }
            _ => Cond::TRUE,
        }
    }

    /// The value as a term.
    pub fn term(&self) -> BV {
        match self {
            Value::Known(v) => BV::from_i64(*v as i64, WIDTH),
            Value::Term(t, _) => t.clone(),
            Value::Flag(b) => b.ite(&BV::from_i64(1, WIDTH), &BV::from_i64(0, WIDTH)),
        }
    }

    /// The value in a model of the solver (unknowns the model leaves free
    /// count as 0).
    pub fn in_model(&self, m: &z3::Model) -> Option<i32> {
        match self {
            Value::Known(v) => Some(*v),
            _ => m
                .eval(&self.term(), true)?
                .as_u64()
                .map(|v| v as u32 as i32),
        }
    }

    /// The same value (syntactically: equal constants, or the same term).
    pub fn same(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Known(a), Value::Known(b)) => a == b,
            (Value::Term(a, _), Value::Term(b, _)) => a == b,
            (Value::Flag(a), Value::Flag(b)) => a == b,
            _ => false,
        }
    }

    /// Whether the value is not 0.
    pub fn truth(&self) -> Cond {
        match self {
            Value::Known(v) => Cond::Known(*v != 0),
            Value::Term(_, s) if !s.contains(0) => Cond::TRUE,
            Value::Term(t, _) => Cond::Term(t.eq(0i32).not()),
            Value::Flag(b) => Cond::Term(b.clone()),
        }
    }

    /// Whether it equals `v`.
    pub fn is(&self, v: i32) -> Cond {
        match self {
            Value::Known(x) => Cond::Known(*x == v),
            Value::Term(_, s) if !s.contains(v as i64) => Cond::FALSE,
            Value::Term(t, _) => Cond::Term(t.eq(v)),
            Value::Flag(b) => match v {
                1 => Cond::Term(b.clone()),
                0 => Cond::Term(b.not()),
                _ => Cond::FALSE,
            },
        }
    }

    /// `lo <= self <= hi` (signed).
    pub fn within(&self, lo: i64, hi: i64) -> Cond {
        match self {
            Value::Known(x) => Cond::Known((lo..=hi).contains(&(*x as i64))),
            Value::Flag(_) => {
                let (zero, one) = ((lo..=hi).contains(&0), (lo..=hi).contains(&1));
                match (zero, one) {
                    (true, true) => Cond::TRUE,
                    (false, false) => Cond::FALSE,
                    _ => self.is(one as i32),
                }
            }
            Value::Term(_, s) if s.inside(lo, hi) => Cond::TRUE,
            Value::Term(_, s) if s.apart(lo, hi) => Cond::FALSE,
            Value::Term(t, s) => {
                // Only the ends the span does not already keep.
                let mut sides = Vec::new();
                if lo > s.lo as i64 {
                    sides.push(t.bvsge(lo));
                }
                if hi < s.hi as i64 {
                    sides.push(t.bvsle(hi));
                }
                Cond::Term(Bool::and(&sides))
            }
        }
    }

    /// Euclidean remainder modulo `m` (positive) equals `r`.
    pub fn congruent(&self, m: i64, r: i64) -> Cond {
        match self {
            Value::Known(x) => Cond::Known((*x as i64).rem_euclid(m) == r),
            Value::Flag(_) => {
                let zero = Cond::Known(r == 0).and(&self.is(0));
                let one = Cond::Known(1 % m == r).and(&self.is(1));
                zero.or(&one)
            }
            Value::Term(t, _) => Cond::Term(t.bvsmod(m).eq(r)),
        }
    }

    /// `op` on two values (not the short-circuit ones), with the C99/Java
    /// semantics; division by zero is the caller's to rule out.
    pub fn binary(op: BinOp, a: &Value, b: &Value) -> Value {
        if let (Value::Known(x), Value::Known(y)) = (a, b) {
            if let Some(v) = op.eval(*x, *y) {
                return Value::Known(v);
            }
        }
        let span = if op == BinOp::Mul && a.same(b) {
            a.span().square()
        } else {
            Span::binary(op, a.span(), b.span())
        };
        if let Some(v) = span.value() {
            return Value::Known(v);
        }
        let flag = |c: Bool| Value::Flag(c);
        let (x, y) = (a.term(), b.term());
        let of = |t: BV| Value::of(t, span);
        match op {
            BinOp::Add => of(x.bvadd(&y)),
            BinOp::Sub => of(x.bvsub(&y)),
            BinOp::Mul => of(x.bvmul(&y)),
            BinOp::Div => of(x.bvsdiv(&y)),
            BinOp::Rem => of(x.bvsrem(&y)),
            // Shift counts are taken modulo 32, as Java and the engine do.
            BinOp::Shl => of(x.bvshl(y.bvand(31i32))),
            BinOp::Shr => of(x.bvashr(y.bvand(31i32))),
            BinOp::BitAnd => of(x.bvand(&y)),
            BinOp::BitOr => of(x.bvor(&y)),
            BinOp::BitXor => of(x.bvxor(&y)),
            BinOp::Eq => flag(x.eq(&y)),
            BinOp::Ne => flag(x.eq(&y).not()),
            BinOp::Lt => flag(x.bvslt(&y)),
            BinOp::Le => flag(x.bvsle(&y)),
            BinOp::Gt => flag(x.bvsgt(&y)),
            BinOp::Ge => flag(x.bvsge(&y)),
            BinOp::LogAnd => flag(Bool::and(&[a.truth().term(), b.truth().term()])),
            BinOp::LogOr => flag(Bool::or(&[a.truth().term(), b.truth().term()])),
        }
    }

    /// `-a`.
    pub fn neg(&self) -> Value {
        match self {
            Value::Known(x) => Value::Known(x.wrapping_neg()),
            _ => Value::of(self.term().bvneg(), self.span().negated()),
        }
    }

    /// `~a`.
    pub fn bit_not(&self) -> Value {
        match self {
            Value::Known(x) => Value::Known(!x),
            _ => Value::of(self.term().bvnot(), self.span().bit_not()),
        }
    }
}

impl From<Cond> for Value {
    /// 1 where the condition holds, else 0.
    fn from(c: Cond) -> Value {
        match c {
            Cond::Known(b) => Value::Known(b as i32),
            Cond::Term(t) => Value::Flag(t),
        }
    }
}

impl Cond {
    /// Always true.
    pub const TRUE: Cond = Cond::Known(true);
    /// Always false.
    pub const FALSE: Cond = Cond::Known(false);

    /// The condition as a term.
    pub fn term(&self) -> Bool {
        match self {
            Cond::Known(b) => Bool::from_bool(*b),
            Cond::Term(t) => t.clone(),
        }
    }

    /// Whether it is the constant false.
    pub fn is_false(&self) -> bool {
        matches!(self, Cond::Known(false))
    }

    /// Negation.
    pub fn not(&self) -> Cond {
        match self {
            Cond::Known(b) => Cond::Known(!b),
            Cond::Term(t) => Cond::Term(t.not()),
        }
    }

    /// Conjunction.
    pub fn and(&self, other: &Cond) -> Cond {
        match (self, other) {
            (Cond::Known(false), _) | (_, Cond::Known(false)) => Cond::FALSE,
            (Cond::Known(true), x) | (x, Cond::Known(true)) => x.clone(),
            (Cond::Term(a), Cond::Term(b)) => Cond::Term(Bool::and(&[a, b])),
        }
    }

    /// Disjunction.
    pub fn or(&self, other: &Cond) -> Cond {
        match (self, other) {
            (Cond::Known(true), _) | (_, Cond::Known(true)) => Cond::TRUE,
            (Cond::Known(false), x) | (x, Cond::Known(false)) => x.clone(),
            (Cond::Term(a), Cond::Term(b)) => Cond::Term(Bool::or(&[a, b])),
        }
    }

    /// Conjunction of all.
    pub fn all<'a>(cs: impl IntoIterator<Item = &'a Cond>) -> Cond {
        cs.into_iter().fold(Cond::TRUE, |acc, c| acc.and(c))
    }

    /// Disjunction of all.
    pub fn any<'a>(cs: impl IntoIterator<Item = &'a Cond>) -> Cond {
        let mut terms = Vec::new();
        for c in cs {
            match c {
                Cond::Known(true) => return Cond::TRUE,
                Cond::Known(false) => {}
                Cond::Term(t) => terms.push(t.clone()),
            }
        }
        match terms.len() {
            0 => Cond::FALSE,
            1 => Cond::Term(terms.pop().expect("one term")),
            _ => Cond::Term(Bool::or(&terms)),
        }
    }

    /// `a` where this holds, else `b`.
    pub fn pick(&self, a: &Value, b: &Value) -> Value {
        match self {
            _ if a.same(b) => a.clone(),
            Cond::Known(true) => a.clone(),
            Cond::Known(false) => b.clone(),
            Cond::Term(c) => match (a, b) {
                (Value::Flag(x), Value::Flag(y)) => Value::Flag(c.ite(x, y)),
                _ => Value::Term(c.ite(&a.term(), &b.term()), a.span().hull(b.span())),
            },
        }
    }

    /// `a` where this holds, else `b`, for conditions.
    pub fn pick_cond(&self, a: &Cond, b: &Cond) -> Cond {
        match (self, a, b) {
            (Cond::Known(true), _, _) => a.clone(),
            (Cond::Known(false), _, _) => b.clone(),
            (_, Cond::Known(x), Cond::Known(y)) if x == y => a.clone(),
            (Cond::Term(c), _, _) => Cond::Term(c.ite(&a.term(), &b.term())),
        }
    }
}
