//! Facts about the program's code the abstraction needs: constant
//! expressions, state slots, and walks over every statement and expression.

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
