//! Facts about the program's code the abstraction needs: constant
//! expressions, state slots, and walks over every statement and expression.

use rustc_hash::FxHashSet;

use crate::engine::{Machine, Storage};
use crate::ir::{ArrayRef, Expr, Place, Stmt};

/// The value of an expression that is the same in every state, if it is.
pub(super) fn constant(e: &Expr, m: &Machine) -> Option<i64> {
    let layout = m.layout();
    match e {
        Expr::Const(v) => Some(*v as i64),
        Expr::Global(g) => match layout.storage[g.0 as usize] {
            Storage::Const(v) => Some(v as i64),
            _ => None,
        },
        Expr::Index(ArrayRef::Array(g), i) => {
            let i = constant(i, m)?;
            let (base, len) = layout.array_at(g.0 as i32)?;
            let w = layout.state_width;
            (base >= w && i >= 0 && i < len as i64)
                .then(|| layout.consts[(base - w) as usize + i as usize] as i64)
        }
        Expr::Unary(crate::ir::UnOp::Neg, a) => Some(-constant(a, m)?),
        _ => None,
    }
}

/// Walks every statement and expression of the program.
pub(super) fn walk_stmts<'p>(stmts: &'p [Stmt], f: &mut impl FnMut(Option<&'p Place>, &'p Expr)) {
    for s in stmts {
        match s {
            Stmt::Assign(p, e, _) => f(Some(p), e),
            Stmt::If(c, a, b) => {
                f(None, c);
                walk_stmts(a, f);
                walk_stmts(b, f);
            }
            Stmt::While(c, a) => {
                f(None, c);
                walk_stmts(a, f);
            }
            Stmt::Call(_, args, _) => args.iter().for_each(|a| f(None, a)),
            Stmt::Return(Some(e)) | Stmt::Output(e, _) | Stmt::Assume(e) => f(None, e),
            Stmt::Return(None) | Stmt::Error(_) | Stmt::Invalid => {}
        }
    }
}

pub(super) fn walk_expr(e: &Expr, f: &mut impl FnMut(&Expr)) {
    f(e);
    match e {
        Expr::Index(_, i) | Expr::Unary(_, i) => walk_expr(i, f),
        Expr::Binary(_, a, b) => {
            walk_expr(a, f);
            walk_expr(b, f);
        }
        Expr::Cond(c, a, b) => {
            walk_expr(c, f);
            walk_expr(a, f);
            walk_expr(b, f);
        }
        Expr::Call(_, args) => args.iter().for_each(|a| walk_expr(a, f)),
        Expr::Const(_) | Expr::Global(_) | Expr::Local(_) | Expr::ArrayAddr(_) => {}
    }
}

/// The state slot of a global read, if it is one.
pub(super) fn state_slot(m: &Machine, e: &Expr) -> Option<usize> {
    match e {
        Expr::Global(g) => match m.layout().storage[g.0 as usize] {
            Storage::State(a) => Some(a as usize),
            _ => None,
        },
        _ => None,
    }
}

/// Records in `out` (by address) every expression under `e` that contains
/// a call; returns whether `e` does.
fn note_calls(e: &Expr, out: &mut FxHashSet<usize>) -> bool {
    let mut any = matches!(e, Expr::Call(..));
    match e {
        Expr::Index(_, i) | Expr::Unary(_, i) => any |= note_calls(i, out),
        Expr::Binary(_, a, b) => {
            any |= note_calls(a, out);
            any |= note_calls(b, out);
        }
        Expr::Cond(c, a, b) => {
            any |= note_calls(c, out);
            any |= note_calls(a, out);
            any |= note_calls(b, out);
        }
        Expr::Call(_, args) => {
            for a in args {
                note_calls(a, out);
            }
        }
        Expr::Const(_) | Expr::Global(_) | Expr::Local(_) | Expr::ArrayAddr(_) => {}
    }
    if any {
        out.insert(e as *const Expr as usize);
    }
    any
}

/// [`note_calls`] on every expression of `stmts`, array indexes assigned
/// to included.
pub(super) fn note_calls_in(stmts: &[Stmt], out: &mut FxHashSet<usize>) {
    walk_stmts(stmts, &mut |place, e| {
        note_calls(e, out);
        if let Some(Place::Index(_, i)) = place {
            note_calls(i, out);
        }
    });
}
