//! Expressions and assignment targets of a Java program, with the types
//! the lowering tracks (int, boolean, String, int[]).

use tree_sitter::Node;

use super::{binop, int_literal, named, Field, Lowerer, Ty};
use crate::frontend::lower::Result;
use crate::ir::{self, ArrayRef, BinOp, Expr, GlobalId, GlobalKind, LocalId};
use crate::ir::{Place, ScalarTy, UnOp};

impl<'a> Lowerer<'a> {
    pub(super) fn lookup_local(&self, name: &str) -> Option<(LocalId, Ty)> {
        self.locals.lookup(name)
    }

    pub(super) fn field(&self, n: Node, name: &str) -> Result<(GlobalId, Ty)> {
        match self.fields.get(name) {
            Some(Field::Global(g, t)) => Ok((*g, *t)),
            Some(Field::Unsupported(l, what)) => self.err(
                n,
                format!("unsupported Java construct: `{name}` is a {what} (declared at {l})"),
            ),
            None => self.err(n, format!("unknown variable `{name}`")),
        }
    }

    /// The field named by `x` or `this.x`, if the node is one.
    pub(super) fn field_name(&self, n: Node<'a>) -> Option<&'a str> {
        match n.kind() {
            "identifier" => Some(self.text(n)),
            "field_access" => {
                let o = n.child_by_field_name("object")?;
                if o.kind() == "this" {
                    Some(self.text(n.child_by_field_name("field")?))
                } else {
                    None
                }
            }
            _ => None,
        }
    }

    pub(super) fn place(&mut self, n: Node<'a>) -> Result<(Place, Ty)> {
        match n.kind() {
            "identifier" | "field_access" => {
                let Some(name) = self.field_name(n) else {
                    return self.unsupported(n, "assignment to a field of another object");
                };
                if n.kind() == "identifier" {
                    if let Some((l, t)) = self.lookup_local(name) {
                        return Ok((Place::Local(l), t));
                    }
                }
                let (g, t) = self.field(n, name)?;
                let gl = &self.globals[g.0 as usize];
                if gl.constant {
                    return self.err(n, format!("assignment to final field `{name}`"));
                }
                match (&gl.kind, t) {
                    (GlobalKind::Scalar { .. }, _) => Ok((Place::Global(g), t)),
                    (GlobalKind::Pointer { .. }, _) => Ok((Place::Global(g), t)),
                    _ => self.err(n, format!("assignment to array field `{name}`, which is never reassigned (internal)")),
                }
            }
            "array_access" => {
                let (arr, elem) = self.array_ref(self.field_of(n, "array")?)?;
                let idx_node = self.field_of(n, "index")?;
                let (idx, t) = self.expr(idx_node)?;
                self.expect_ty(idx_node, t, Ty::Int)?;
                Ok((Place::Index(arr, idx), Ty::scalar(elem)))
            }
            "parenthesized_expression" => self.place(self.only_child(n)?),
            _ => self.unsupported(n, &format!("assignment target ({})", n.kind())),
        }
    }

    pub(super) fn array_ref(&self, n: Node<'a>) -> Result<(ArrayRef, ScalarTy)> {
        if let Some(name) = self.field_name(n) {
            if n.kind() == "identifier" && self.lookup_local(name).is_some() {
                return self.unsupported(n, "indexing a local variable");
            }
            let (g, t) = self.field(n, name)?;
            if let Ty::Array(elem) = t {
                return match &self.globals[g.0 as usize].kind {
                    GlobalKind::Array { .. } => Ok((ArrayRef::Array(g), elem)),
                    GlobalKind::Pointer { .. } => Ok((ArrayRef::Pointer(g), elem)),
                    _ => self.err(n, format!("`{name}` is not an array")),
                };
            }
            return self.err(n, format!("`{name}` is not an array"));
        }
        self.unsupported(n, "indexing something other than an array field")
    }

    pub(super) fn expr(&mut self, n: Node<'a>) -> Result<(Expr, Ty)> {
        match n.kind() {
            "parenthesized_expression" => self.expr(self.only_child(n)?),
            "decimal_integer_literal"
            | "hex_integer_literal"
            | "octal_integer_literal"
            | "binary_integer_literal" => match int_literal(self.text(n), false) {
                Some(v) => Ok((Expr::Const(v), Ty::Int)),
                None => self.unsupported(n, "integer literal that is not a 32-bit int"),
            },
            "true" => Ok((Expr::Const(1), Ty::Bool)),
            "false" => Ok((Expr::Const(0), Ty::Bool)),
            "string_literal" => {
                let s = self.string_value(n)?;
                Ok((Expr::Const(ir::intern(&mut self.strings, &s)), Ty::Str))
            }
            "identifier" | "field_access" => {
                let Some(name) = self.field_name(n) else {
                    return self.unsupported(n, &format!("field access `{}`", self.text(n)));
                };
                if n.kind() == "identifier" {
                    if let Some((l, t)) = self.lookup_local(name) {
                        return Ok((Expr::Local(l), t));
                    }
                }
                let (g, t) = self.field(n, name)?;
                let gl = &self.globals[g.0 as usize];
                Ok(match &gl.kind {
                    GlobalKind::Scalar { init, .. } if gl.constant => (Expr::Const(*init), t),
                    GlobalKind::Scalar { .. } | GlobalKind::Pointer { .. } => (Expr::Global(g), t),
                    GlobalKind::Array { .. } => (Expr::ArrayAddr(g), t),
                })
            }
            "array_access" => {
                let (arr, elem) = self.array_ref(self.field_of(n, "array")?)?;
                let idx_node = self.field_of(n, "index")?;
                let (idx, t) = self.expr(idx_node)?;
                self.expect_ty(idx_node, t, Ty::Int)?;
                Ok((Expr::Index(arr, Box::new(idx)), Ty::scalar(elem)))
            }
            "unary_expression" => {
                let op = self.text(self.field_of(n, "operator")?);
                let operand = self.field_of(n, "operand")?;
                // `-2147483648` is only a literal under a minus.
                if op == "-" && operand.kind() == "decimal_integer_literal" {
                    if let Some(v) = int_literal(self.text(operand), true) {
                        return Ok((Expr::Const(v), Ty::Int));
                    }
                }
                let (v, t) = self.expr(operand)?;
                let (op, want) = match op {
                    "-" => (UnOp::Neg, Ty::Int),
                    "~" => (UnOp::BitNot, Ty::Int),
                    "!" => (UnOp::Not, Ty::Bool),
                    "+" => {
                        self.expect_ty(operand, t, Ty::Int)?;
                        return Ok((v, Ty::Int));
                    }
                    _ => return self.unsupported(n, &format!("unary operator `{op}`")),
                };
                self.expect_ty(operand, t, want)?;
                Ok(match (op, v) {
                    (UnOp::Neg, Expr::Const(k)) => (Expr::Const(k.wrapping_neg()), Ty::Int),
                    (op, v) => (Expr::Unary(op, Box::new(v)), want),
                })
            }
            "binary_expression" => {
                let op_text = self.text(self.field_of(n, "operator")?);
                let ln = self.field_of(n, "left")?;
                let rn = self.field_of(n, "right")?;
                let (l, lt) = self.expr(ln)?;
                let (r, rt) = self.expr(rn)?;
                let op = match binop(op_text) {
                    Some(op) => op,
                    None => return self.unsupported(n, &format!("operator `{op_text}`")),
                };
                let ty = match op {
                    BinOp::Eq | BinOp::Ne => {
                        if lt != rt || matches!(lt, Ty::Array(_)) {
                            return self.unsupported(
                                n,
                                &format!("`{op_text}` between {} and {}", lt.name(), rt.name()),
                            );
                        }
                        Ty::Bool
                    }
                    BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                        self.expect_ty(ln, lt, Ty::Int)?;
                        self.expect_ty(rn, rt, Ty::Int)?;
                        Ty::Bool
                    }
                    BinOp::LogAnd | BinOp::LogOr => {
                        self.expect_ty(ln, lt, Ty::Bool)?;
                        self.expect_ty(rn, rt, Ty::Bool)?;
                        Ty::Bool
                    }
                    BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor if lt == Ty::Bool => {
                        self.expect_ty(rn, rt, Ty::Bool)?;
                        Ty::Bool
                    }
                    _ => {
                        if op == BinOp::Add && (lt == Ty::Str || rt == Ty::Str) {
                            return self.unsupported(n, "string concatenation");
                        }
                        self.expect_ty(ln, lt, Ty::Int)?;
                        self.expect_ty(rn, rt, Ty::Int)?;
                        Ty::Int
                    }
                };
                Ok((Expr::Binary(op, Box::new(l), Box::new(r)), ty))
            }
            "ternary_expression" => {
                let c = self.condition(self.field_of(n, "condition")?)?;
                let an = self.field_of(n, "consequence")?;
                let bn = self.field_of(n, "alternative")?;
                let (a, at) = self.expr(an)?;
                let (b, bt) = self.expr(bn)?;
                self.expect_ty(bn, bt, at)?;
                if matches!(at, Ty::Array(_)) {
                    return self.unsupported(n, "conditional choosing an array");
                }
                Ok((Expr::Cond(Box::new(c), Box::new(a), Box::new(b)), at))
            }
            "cast_expression" => {
                let t = self.field_of(n, "type")?;
                let vn = self.field_of(n, "value")?;
                let (v, vt) = self.expr(vn)?;
                match self.type_of(t) {
                    Some(Ty::Int) if vt == Ty::Int => Ok((v, Ty::Int)),
                    _ => self.unsupported(n, &format!("cast to `{}`", self.text(t))),
                }
            }
            "method_invocation" => {
                let name = self.text(self.field_of(n, "name")?);
                let args: Vec<Node> = named(self.field_of(n, "arguments")?).collect();
                match n.child_by_field_name("object") {
                    Some(o) if name == "equals" && o.kind() != "this" => {
                        let [a] = args.as_slice() else {
                            return self.err(n, "`equals` takes one argument");
                        };
                        let (l, lt) = self.expr(o)?;
                        let (r, rt) = self.expr(*a)?;
                        if lt != Ty::Str || rt != Ty::Str {
                            return self.unsupported(
                                n,
                                &format!("`equals` between {} and {}", lt.name(), rt.name()),
                            );
                        }
                        Ok((Expr::Binary(BinOp::Eq, Box::new(l), Box::new(r)), Ty::Bool))
                    }
                    Some(o) if o.kind() != "this" => {
                        self.unsupported(n, &format!("call of `{}.{name}`", self.text(o)))
                    }
                    _ => {
                        let (id, lowered) = self.user_call(n, name, &args)?;
                        match self.signatures[id.0 as usize].1 {
                            Some(t) => Ok((Expr::Call(id, lowered), t)),
                            None => self.err(n, format!("`{name}` returns no value")),
                        }
                    }
                }
            }
            "assignment_expression" | "update_expression" => {
                self.unsupported(n, "assignment inside an expression")
            }
            "object_creation_expression" | "array_creation_expression" => {
                self.unsupported(n, "object creation (`new`)")
            }
            "instanceof_expression" => self.unsupported(n, "instanceof"),
            "lambda_expression" => self.unsupported(n, "lambda"),
            "null_literal" => self.unsupported(n, "null"),
            "character_literal" => self.unsupported(n, "char literal"),
            "decimal_floating_point_literal" | "hex_floating_point_literal" => {
                self.unsupported(n, "floating-point literal")
            }
            k => self.unsupported(n, &format!("expression ({k})")),
        }
    }
}
