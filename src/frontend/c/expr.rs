//! Expressions and assignment targets of a C program.

use lang_c::ast::*;
use lang_c::span::Node;

use super::scan::*;
use super::Lowerer;
use crate::frontend::lower::Result;
use crate::ir::{ArrayRef, BinOp, Expr, GlobalKind};
use crate::ir::{Place, UnOp};

impl<'a> Lowerer<'a> {
    pub(super) fn lookup(&self, name: &str) -> Option<Result<Expr>> {
        if let Some(l) = self.locals.lookup(name) {
            return Some(Ok(Expr::Local(l)));
        }
        let g = *self.global_ix.get(name)?;
        Some(Ok(match self.globals[g.0 as usize].kind {
            GlobalKind::Array { .. } => Expr::ArrayAddr(g),
            _ => Expr::Global(g),
        }))
    }

    pub(super) fn place(&mut self, e: &'a Node<Expression>) -> Result<Place> {
        match &e.node {
            Expression::Identifier(id) => match self.lookup(&id.node.name) {
                Some(Ok(Expr::Local(l))) => Ok(Place::Local(l)),
                Some(Ok(Expr::Global(g))) => {
                    if self.globals[g.0 as usize].constant {
                        return self.err(
                            e.span.start,
                            format!("assignment to const `{}`", id.node.name),
                        );
                    }
                    Ok(Place::Global(g))
                }
                Some(Ok(_)) => self.unsupported(e.span.start, "assignment to a whole array"),
                Some(Err(err)) => Err(err),
                None => self.err(e.span.start, format!("unknown variable `{}`", id.node.name)),
            },
            Expression::BinaryOperator(b) if b.node.operator.node == BinaryOperator::Index => {
                let arr = self.array_ref(&b.node.lhs)?;
                let idx = self.expr(&b.node.rhs)?;
                Ok(Place::Index(arr, idx))
            }
            _ => self.unsupported(e.span.start, "assignment target"),
        }
    }

    pub(super) fn array_ref(&mut self, e: &'a Node<Expression>) -> Result<ArrayRef> {
        if let Expression::Identifier(id) = &e.node {
            if let Some(&g) = self.global_ix.get(&id.node.name) {
                let shadowed = self.locals.shadows(&id.node.name);
                if !shadowed {
                    match self.globals[g.0 as usize].kind {
                        GlobalKind::Array { .. } => return Ok(ArrayRef::Array(g)),
                        GlobalKind::Pointer { .. } => return Ok(ArrayRef::Pointer(g)),
                        _ => {}
                    }
                }
            }
        }
        self.unsupported(
            e.span.start,
            "indexing something other than an array or pointer global",
        )
    }

    pub(super) fn expr(&mut self, e: &'a Node<Expression>) -> Result<Expr> {
        let at = e.span.start;
        match &e.node {
            Expression::Constant(c) => match constant_value(&c.node) {
                Some(v) => Ok(Expr::Const(v)),
                None => self.unsupported(at, "constant that is not a 32-bit integer"),
            },
            Expression::Identifier(id) => {
                let g = self.global_ix.get(&id.node.name).copied();
                if let Some(g) = g {
                    let gl = &self.globals[g.0 as usize];
                    let shadowed = self.locals.shadows(&id.node.name);
                    if !shadowed && gl.constant {
                        if let GlobalKind::Scalar { init, .. } = gl.kind {
                            return Ok(Expr::Const(init));
                        }
                    }
                }
                match self.lookup(&id.node.name) {
                    Some(r) => r,
                    None => self.err(at, format!("unknown variable `{}`", id.node.name)),
                }
            }
            Expression::UnaryOperator(u) => {
                let op = match u.node.operator.node {
                    UnaryOperator::Minus => UnOp::Neg,
                    UnaryOperator::Negate => UnOp::Not,
                    UnaryOperator::Complement => UnOp::BitNot,
                    UnaryOperator::Plus => return self.expr(&u.node.operand),
                    _ => {
                        return self.unsupported(
                            at,
                            "side effect or pointer operation inside an expression",
                        )
                    }
                };
                let v = self.expr(&u.node.operand)?;
                Ok(match (op, v) {
                    (UnOp::Neg, Expr::Const(k)) => Expr::Const(k.wrapping_neg()),
                    (op, v) => Expr::Unary(op, Box::new(v)),
                })
            }
            Expression::BinaryOperator(b) => {
                if b.node.operator.node == BinaryOperator::Index {
                    let arr = self.array_ref(&b.node.lhs)?;
                    let idx = self.expr(&b.node.rhs)?;
                    return Ok(Expr::Index(arr, Box::new(idx)));
                }
                let op = match binop(&b.node.operator.node) {
                    Some(op) => op,
                    None => return self.unsupported(at, "assignment inside an expression"),
                };
                let l = self.expr(&b.node.lhs)?;
                let r = self.expr(&b.node.rhs)?;
                if matches!(op, BinOp::Eq | BinOp::Ne) {
                    self.note_input_comparison(&b.node.lhs, &r);
                    self.note_input_comparison(&b.node.rhs, &l);
                }
                Ok(Expr::Binary(op, Box::new(l), Box::new(r)))
            }
            Expression::Conditional(c) => {
                let cond = self.expr(&c.node.condition)?;
                let t = self.expr(&c.node.then_expression)?;
                let f = self.expr(&c.node.else_expression)?;
                Ok(Expr::Cond(Box::new(cond), Box::new(t), Box::new(f)))
            }
            Expression::Cast(c) => {
                let ok = c.node.type_name.node.specifiers.iter().all(|s| {
                    matches!(&s.node, SpecifierQualifier::TypeSpecifier(t) if matches!(t.node, TypeSpecifier::Int | TypeSpecifier::Signed))
                }) && c.node.type_name.node.declarator.is_none();
                if !ok {
                    return self.unsupported(at, "cast to a type other than int");
                }
                self.expr(&c.node.expression)
            }
            Expression::Call(call) => {
                let name = match callee_name(&call.node) {
                    Some(n) => n.to_string(),
                    None => return self.unsupported(at, "call through a function pointer"),
                };
                let def = match self.defs.get(name.as_str()).copied() {
                    Some(d) => d,
                    None => {
                        return self
                            .unsupported(at, &format!("call of `{name}` inside an expression"))
                    }
                };
                if specifiers_are_void(&def.node.specifiers) {
                    return self.err(at, format!("`{name}` returns no value"));
                }
                let id = self.function(def, &name, false)?;
                let args = self.call_args(id, &call.node.arguments, at)?;
                Ok(Expr::Call(id, args))
            }
            Expression::Comma(_) => self.unsupported(at, "comma operator"),
            Expression::StringLiteral(_) => self.unsupported(at, "string literal"),
            Expression::Member(_) => self.unsupported(at, "struct member access"),
            Expression::SizeOfTy(_) | Expression::SizeOfVal(_) => self.unsupported(at, "sizeof"),
            _ => self.unsupported(at, "expression"),
        }
    }

    pub(super) fn note_input_comparison(&mut self, side: &Node<Expression>, other: &Expr) {
        if let (Expression::Identifier(id), Expr::Const(k)) = (&side.node, other) {
            if id.node.name == "input" {
                self.input_consts.insert(*k);
            }
        }
    }
}
