//! Expressions of the Java reader: literals, names, array elements,
//! operators (Java's, on ints and booleans), `?:` and `.equals`, each with
//! its type.

use tree_sitter::Node;

use super::{named, Reader, Ty};
use crate::crosscheck::syntax::{Binary, Expr, Unary};
use crate::crosscheck::ReadError;

impl<'a> Reader<'a> {
    /// An expression of type `ty`.
    pub(super) fn typed(&mut self, n: Node<'a>, ty: Ty) -> Result<Expr, ReadError> {
        match self.expr(n)? {
            (e, t) if t == ty => Ok(e),
            (_, t) => Err(self.at(n, &format!("a {t:?} where a {ty:?} is expected"))),
        }
    }

    pub(super) fn bool_expr(&mut self, n: Node<'a>) -> Result<Expr, ReadError> {
        self.typed(n, Ty::Bool)
    }

    pub(super) fn string_literal(&self, n: Node) -> Result<String, ReadError> {
        let raw = self.text(n);
        let inner = raw
            .strip_prefix('"')
            .and_then(|s| s.strip_suffix('"'))
            .filter(|s| !s.contains('\\'))
            .ok_or_else(|| self.unsupported(n, "a string literal with escapes"))?;
        Ok(inner.to_string())
    }

    /// An expression and its type.
    pub(super) fn expr(&mut self, n: Node<'a>) -> Result<(Expr, Ty), ReadError> {
        let b = |e: Expr| Box::new(e);
        Ok(match n.kind() {
            "parenthesized_expression" => {
                let inner = named(n)
                    .next()
                    .ok_or_else(|| self.unsupported(n, "empty parentheses"))?;
                self.expr(inner)?
            }
            "decimal_integer_literal" | "hex_integer_literal" => {
                let t = self.text(n).replace('_', "");
                let v = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
                    Some(h) => i64::from_str_radix(h, 16)
                        .ok()
                        .filter(|v| *v <= u32::MAX as i64),
                    None if t.len() > 1 && t.starts_with('0') => None,
                    None => t.parse::<i64>().ok().filter(|v| *v <= 1i64 << 31),
                };
                let v = v.ok_or_else(|| {
                    self.unsupported(n, "an int literal the checker does not read")
                })?;
                (Expr::Const(v as u32 as i32), Ty::Int)
            }
            "true" => (Expr::Const(1), Ty::Bool),
            "false" => (Expr::Const(0), Ty::Bool),
            "string_literal" => {
                let s = self.string_literal(n)?;
                (Expr::Const(self.string(&s)), Ty::Str)
            }
            "identifier" | "field_access" => {
                let name = self
                    .name_of(n)
                    .ok_or_else(|| self.unsupported(n, "a field of another object"))?;
                let (ty, _) = self.lookup(n, name)?;
                (Expr::Name(name.to_string()), ty)
            }
            "array_access" => {
                let (array, elem) = self.array(self.field(n, "array")?)?;
                let index = self.typed(self.field(n, "index")?, Ty::Int)?;
                (Expr::Index(b(Expr::Name(array)), b(index)), elem.ty())
            }
            "unary_expression" => {
                let op = self.text(self.field(n, "operator")?);
                let operand = self.field(n, "operand")?;
                let (op, ty) = match op {
                    "-" => (Unary::Neg, Ty::Int),
                    "+" => (Unary::Plus, Ty::Int),
                    "~" => (Unary::Complement, Ty::Int),
                    "!" => (Unary::Not, Ty::Bool),
                    _ => return Err(self.unsupported(n, "this unary operator")),
                };
                (Expr::Unary(op, b(self.typed(operand, ty)?)), ty)
            }
            "binary_expression" => self.binary(n)?,
            "ternary_expression" => {
                let c = self.bool_expr(self.field(n, "condition")?)?;
                let (then, ty) = self.expr(self.field(n, "consequence")?)?;
                if matches!(ty, Ty::Array(_)) {
                    return Err(self.unsupported(n, "a choice of arrays"));
                }
                let other = self.typed(self.field(n, "alternative")?, ty)?;
                (Expr::Choose(b(c), b(then), b(other)), ty)
            }
            "method_invocation" => {
                let name = self.text(self.field(n, "name")?);
                let object = self.field(n, "object");
                let args: Vec<Node> = named(self.field(n, "arguments")?).collect();
                match (name, object, args.as_slice()) {
                    ("equals", Ok(o), [a]) => {
                        let left = self.typed(o, Ty::Str)?;
                        let right = self.typed(*a, Ty::Str)?;
                        (Expr::Binary(Binary::Eq, b(left), b(right)), Ty::Bool)
                    }
                    _ => return Err(self.unsupported(n, "a method call in an expression")),
                }
            }
            _ => return Err(self.unsupported(n, "an expression the checker does not read")),
        })
    }

    pub(super) fn binary(&mut self, n: Node<'a>) -> Result<(Expr, Ty), ReadError> {
        let op_text = self.text(self.field(n, "operator")?);
        let op = binary_op(op_text).ok_or_else(|| self.unsupported(n, "this binary operator"))?;
        let (left, lt) = self.expr(self.field(n, "left")?)?;
        let (right, rt) = self.expr(self.field(n, "right")?)?;
        let ty = match (op, lt, rt) {
            (op, Ty::Int, Ty::Int) if arithmetic(op) => Ty::Int,
            (Binary::Lt | Binary::Le | Binary::Gt | Binary::Ge, Ty::Int, Ty::Int) => Ty::Bool,
            (Binary::Eq | Binary::Ne, Ty::Int, Ty::Int)
            | (Binary::Eq | Binary::Ne, Ty::Bool, Ty::Bool) => Ty::Bool,
            (
                Binary::And | Binary::Or | Binary::BitAnd | Binary::BitOr | Binary::BitXor,
                Ty::Bool,
                Ty::Bool,
            ) => Ty::Bool,
            _ => return Err(self.unsupported(n, &format!("`{op_text}` on {lt:?} and {rt:?}"))),
        };
        Ok((Expr::Binary(op, Box::new(left), Box::new(right)), ty))
    }
}

/// Whether `op` is int arithmetic (as Java's: wrapping, `/` and `%`
/// truncating). Shifts are left out: no RERS program has them, and Java
/// masks the count where C does not.
pub(super) fn arithmetic(op: Binary) -> bool {
    matches!(
        op,
        Binary::Add
            | Binary::Sub
            | Binary::Mul
            | Binary::Div
            | Binary::Rem
            | Binary::BitAnd
            | Binary::BitOr
            | Binary::BitXor
    )
}

/// A Java operator by its spelling (shifts left out, see [`arithmetic`]).
pub(super) fn binary_op(op: &str) -> Option<Binary> {
    Binary::spelled(op).filter(|b| !matches!(b, Binary::Shl | Binary::Shr | Binary::UShr))
}
