//! Array reads and writes over intervals: the slots an index may address
//! ([`AbstractStep::elements`]), and indices that may leave their array.
//! Of the latter, the runs where every index is in bounds go on with the
//! index's variable narrowed (`a[x - 7]` with `x` in `[5, 15]` and a
//! length of 8 goes on with `x` in `[7, 14]`); the runs where one is not
//! end in a *fault site*. The abstraction records the sites instead of
//! giving up at the first one, and the rounds ([`super::rounds`]) refine
//! the keys on the slots the sites read until no abstract state reaches
//! one; an abstraction with a fault site left proves nothing.

use super::interval::Interval;
use super::run::{Path, Status};
use super::step::{AbstractStep, Unsound};
use crate::ir::{ArrayRef, BinOp, Expr, UnOp};

/// Where an abstract run may fault: why, and the state slots the faulting
/// index reads (the refinement keeps them in the keys of the states before).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FaultSite {
    /// What may go wrong, located.
    pub why: String,
    /// The state slots the index reads.
    pub reads: Vec<usize>,
}

/// `e` as a variable plus a constant (`x`, `x + 3`, `x - 7`, `x + -5`,
/// `3 + x`), where it is one.
pub(super) fn offset_of(e: &Expr) -> Option<(&Expr, i64)> {
    let constant = |e: &Expr| match e {
        Expr::Const(v) => Some(*v as i64),
        Expr::Unary(UnOp::Neg, a) => match **a {
            Expr::Const(v) => Some(-(v as i64)),
            _ => None,
        },
        _ => None,
    };
    match e {
        Expr::Global(_) | Expr::Local(_) => Some((e, 0)),
        Expr::Binary(BinOp::Add, a, b) if a.is_variable() => Some((a, constant(b)?)),
        Expr::Binary(BinOp::Add, a, b) if b.is_variable() => Some((b, constant(a)?)),
        Expr::Binary(BinOp::Sub, a, b) if a.is_variable() => Some((a, -constant(b)?)),
        _ => None,
    }
}

/// The array reads of `e` that every evaluation of `e` performs, inner ones
/// first: not those in the second operand of `&&` and `||` or the branches
/// of `?:` (evaluated on some runs only, where [`AbstractStep::assume`]
/// meets them narrowed), nor those inside calls.
fn reads_of<'e>(e: &'e Expr, out: &mut Vec<(ArrayRef, &'e Expr)>) {
    match e {
        Expr::Index(a, i) => {
            reads_of(i, out);
            out.push((*a, i));
        }
        Expr::Binary(BinOp::LogAnd | BinOp::LogOr, a, _) | Expr::Unary(_, a) => reads_of(a, out),
        Expr::Cond(c, ..) => reads_of(c, out),
        Expr::Binary(_, a, b) => {
            reads_of(a, out);
            reads_of(b, out);
        }
        Expr::Call(..) | Expr::Const(_) | Expr::Global(_) | Expr::Local(_) | Expr::ArrayAddr(_) => {
        }
    }
}

/// Most arrays a pointer interval may name before the step gives up.
const MAX_POINTER_TARGETS: i64 = 64;

impl AbstractStep<'_> {
    /// Calls `visit` with each slot an index may address in the arrays an
    /// array reference may denote, checked in bounds (nothing is
    /// allocated: most reads are of one element).
    pub(super) fn each_element(
        &self,
        a: ArrayRef,
        idx: Interval,
        path: &Path,
        mut visit: impl FnMut(u32),
    ) -> Result<(), Unsound> {
        let (ptrs, known) = match a {
            ArrayRef::Array(g) => (Interval::point(g.0 as i32), None),
            ArrayRef::Pointer(g) => (
                self.read_global(g, path)?,
                self.targets[g.0 as usize].as_deref(),
            ),
        };
        // Where the pointer's arrays are known, its interval names those
        // of them it holds (a hull of two arrays' ids names only arrays).
        let named: Vec<i64> = match known {
            Some(t) => (t.iter().map(|&v| v as i64))
                .filter(|v| (ptrs.lo..=ptrs.hi).contains(v))
                .collect(),
            None if ptrs.hi - ptrs.lo >= MAX_POINTER_TARGETS => {
                return Err(format!("a pointer may be any of {ptrs}"))
            }
            None => (ptrs.lo..=ptrs.hi).collect(),
        };
        for v in named {
            let (base, len) = (self.layout.array_at(v as i32))
                .ok_or_else(|| format!("a pointer may be {v}, not an array"))?;
            if idx.lo < 0 || idx.hi >= len as i64 {
                return Err(format!("index {idx} may be out of bounds (length {len})"));
            }
            (idx.lo..=idx.hi).for_each(|i| visit(base + i as u32));
        }
        Ok(())
    }

    /// The slots an index may address, checked in bounds.
    pub(super) fn elements(
        &self,
        a: ArrayRef,
        idx: Interval,
        path: &Path,
    ) -> Result<Vec<u32>, Unsound> {
        let mut out = Vec::new();
        self.each_element(a, idx, path, |slot| out.push(slot))?;
        Ok(out)
    }

    /// The runs of `path` in which every array read of `e` (see
    /// [`reads_of`]) and the index `place_index` of an array written to
    /// (`array`) are in bounds, their variables narrowed; the runs where
    /// one is not are pushed to `faulted`, ended in a fault site.
    ///
    /// An index that is not a variable plus a constant, or a pointer whose
    /// arrays differ in length, is left as it is: evaluating it out of
    /// bounds gives up the step, as before.
    pub(super) fn in_bounds(
        &self,
        e: &Expr,
        write: Option<(ArrayRef, &Expr)>,
        path: Path,
        where_: &dyn std::fmt::Display,
        faulted: &mut Vec<Path>,
    ) -> Result<Vec<Path>, Unsound> {
        let mut reads = Vec::new();
        reads_of(e, &mut reads);
        if let Some((a, i)) = write {
            reads_of(i, &mut reads);
            reads.push((a, i));
        }
        let mut paths = vec![path];
        for (a, i) in reads {
            let Some(len) = self.length(a) else { continue };
            let Some((var, c)) = offset_of(i) else {
                continue;
            };
            let (lo, hi) = (-c, len - 1 - c);
            let (Ok(lo), Ok(hi)) = (i32::try_from(lo), i32::try_from(hi)) else {
                continue;
            };
            let mut next = Vec::with_capacity(paths.len());
            for p in paths {
                if !matches!(p.status, Status::Running) {
                    next.push(p);
                    continue;
                }
                let idx = self.eval(i, &p)?;
                if idx.lo >= 0 && idx.hi < len {
                    next.push(p);
                    continue;
                }
                let inside = Expr::Binary(
                    BinOp::LogAnd,
                    Box::new(Expr::Binary(
                        BinOp::Ge,
                        Box::new(var.clone()),
                        Box::new(Expr::Const(lo)),
                    )),
                    Box::new(Expr::Binary(
                        BinOp::Le,
                        Box::new(var.clone()),
                        Box::new(Expr::Const(hi)),
                    )),
                );
                for mut out in self.assume(p.clone(), &inside, false)? {
                    let why = format!("{where_}: index {idx} may be out of bounds (length {len})");
                    out.status = Status::Faulted(Box::new(FaultSite {
                        why,
                        reads: self.slots_read(i, a),
                    }));
                    faulted.push(out);
                }
                next.extend(self.assume(p, &inside, true)?);
            }
            paths = next;
        }
        Ok(paths)
    }

    /// The length of the array `a` names, or of every array the pointer
    /// may name where they have one length.
    fn length(&self, a: ArrayRef) -> Option<i64> {
        let arrays: Vec<i32> = match a {
            ArrayRef::Array(g) => vec![g.0 as i32],
            ArrayRef::Pointer(g) => self.targets[g.0 as usize].clone()?,
        };
        let mut lengths = arrays
            .iter()
            .map(|&v| self.layout.array_at(v).map(|(_, l)| l));
        let first = lengths.next()??;
        lengths.all(|l| l == Some(first)).then_some(first as i64)
    }

    /// The state slots read by the index `i` into `a` (and by the pointer).
    fn slots_read(&self, i: &Expr, a: ArrayRef) -> Vec<usize> {
        let mut out = Vec::new();
        let mut note = |g: crate::ir::GlobalId| {
            if let crate::engine::Storage::State(s) = self.layout.storage[g.0 as usize] {
                out.push(s as usize);
            }
        };
        if let ArrayRef::Pointer(g) = a {
            note(g);
        }
        super::analysis::walk_expr(i, &mut |x| {
            if let Expr::Global(g) = x {
                note(*g);
            }
        });
        out.sort_unstable();
        out.dedup();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_are_a_variable_plus_a_constant() {
        let x = || Box::new(Expr::Global(crate::ir::GlobalId(3)));
        let k = |v| Box::new(Expr::Const(v));
        let var = Expr::Global(crate::ir::GlobalId(3));
        assert_eq!(offset_of(&var), Some((&var, 0)));
        let sub = Expr::Binary(BinOp::Sub, x(), k(7));
        assert_eq!(offset_of(&sub), Some((&var, -7)));
        let add_neg = Expr::Binary(BinOp::Add, x(), Box::new(Expr::Unary(UnOp::Neg, k(5))));
        assert_eq!(offset_of(&add_neg), Some((&var, -5)));
        let swapped = Expr::Binary(BinOp::Add, k(3), x());
        assert_eq!(offset_of(&swapped), Some((&var, 3)));
        assert_eq!(offset_of(&Expr::Binary(BinOp::Mul, x(), k(2))), None);
        assert_eq!(offset_of(&Expr::Binary(BinOp::Sub, k(2), x())), None);
    }
}
