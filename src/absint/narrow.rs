//! Conditions over intervals: the runs in which a condition holds (or
//! fails), with the variables it compares narrowed to the values that make
//! it so.

use super::interval::{is_comparison, mirror, narrow, negate, Interval};
use super::run::{Path, Status};
use super::step::{AbstractStep, Unsound};
use crate::ir::{BinOp, Expr, UnOp};

impl AbstractStep<'_> {
    /// The runs of `path` in which `c` evaluates to `truth`, narrowed.
    /// A run that already ended (at a fault site in an earlier operand)
    /// comes back as it is.
    pub(super) fn assume(&self, path: Path, c: &Expr, truth: bool) -> Result<Vec<Path>, Unsound> {
        if !matches!(path.status, Status::Running) {
            return Ok(vec![path]);
        }
        match c {
            Expr::Binary(op @ (BinOp::LogAnd | BinOp::LogOr), a, b) => {
                // Decided as a whole (one conjunct false decides `&&`,
                // whatever the others are): no split. Where evaluating it
                // might fault, the split below finds out.
                if let Ok(v) = self.eval(c, &path) {
                    let (may, must) = if truth {
                        (v.may_be_true(), !v.may_be_false())
                    } else {
                        (v.may_be_false(), !v.may_be_true())
                    };
                    if !may {
                        return Ok(vec![]);
                    }
                    if must {
                        return Ok(vec![path]);
                    }
                }
                // `a && b` holds iff a and b hold; fails iff a fails, or a
                // holds and b fails. `a || b` dually.
                let conj = *op == BinOp::LogAnd;
                let mut out = Vec::new();
                if truth == conj {
                    for q in self.assume(path, a, truth)? {
                        out.extend(self.assume(q, b, truth)?);
                    }
                } else {
                    out.extend(self.assume(path.clone(), a, truth)?);
                    for q in self.assume(path, a, !truth)? {
                        out.extend(self.assume(q, b, truth)?);
                    }
                }
                Ok(out)
            }
            Expr::Unary(UnOp::Not, a) => self.assume(path, a, !truth),
            Expr::Binary(op, l, r) if is_comparison(*op) => {
                let mut out = Vec::new();
                for path in self.in_bounds(c, None, path, &"a condition", &mut out)? {
                    out.extend(self.compared(path, *op, l, r, truth)?);
                }
                Ok(out)
            }
            _ => {
                let mut out = Vec::new();
                for path in self.in_bounds(c, None, path, &"a condition", &mut out)? {
                    let v = self.eval(c, &path)?;
                    let possible = if truth {
                        v.may_be_true()
                    } else {
                        v.may_be_false()
                    };
                    if possible {
                        out.push(path);
                    }
                }
                Ok(out)
            }
        }
    }

    /// The run of `path` in which `l op r` evaluates to `truth`, narrowed
    /// (none if it cannot).
    fn compared(
        &self,
        mut path: Path,
        op: BinOp,
        l: &Expr,
        r: &Expr,
        truth: bool,
    ) -> Result<Option<Path>, Unsound> {
        let (vl, vr) = (self.eval(l, &path)?, self.eval(r, &path)?);
        let v = Interval::binop(op, vl, vr).0;
        if !(if truth {
            v.may_be_true()
        } else {
            v.may_be_false()
        }) {
            return Ok(None);
        }
        let op = if truth { op } else { negate(op) };
        for (side, this, other, op) in [(l, vl, vr, op), (r, vr, vl, mirror(op))] {
            // The input: its set narrowed, the locals holding it with it.
            match self.narrow_inputs(&mut path, side, op, other) {
                Some(false) => return Ok(None),
                Some(true) => continue,
                None => {}
            }
            if let Some(n) = self.narrowable(side, &mut path) {
                match narrow(this, op, other).and_then(|x| self.reduce(side, x)) {
                    Some(x) => *n = x,
                    None => return Ok(None),
                }
            }
        }
        Ok(Some(path))
    }

    /// The storage of a variable that a condition on `e` can narrow.
    fn narrowable<'p>(&self, e: &Expr, path: &'p mut Path) -> Option<&'p mut Interval> {
        match e {
            Expr::Global(g) => match self.layout.storage[g.0 as usize] {
                crate::engine::Storage::State(a) => Some(&mut path.mem[a as usize]),
                crate::engine::Storage::Temp(_) => {
                    Some(&mut path.temps[self.temp_slot[g.0 as usize]?])
                }
                _ => None,
            },
            Expr::Local(l) => path.locals.get_mut(l.0 as usize),
            _ => None,
        }
    }
}
