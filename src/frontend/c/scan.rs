//! Small readings of the C syntax tree that need no lowering state: names,
//! constants, operators, error labels, the shape of `main`.

use std::collections::{BTreeSet, HashMap};

use lang_c::ast::{self as c, *};
use lang_c::span::Node;

use crate::ir::{BinOp, Expr, GlobalId, Stmt};

/// Replaces comments and preprocessor lines by spaces (newlines kept), so
/// that byte offsets and line numbers are those of the original text.
pub(super) fn blank_comments_and_directives(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let mut i = 0;
    let mut line_start = true;
    while i < b.len() {
        let c = b[i];
        if line_start && c == b'#' {
            while i < b.len() && b[i] != b'\n' {
                out[i] = b' ';
                i += 1;
            }
            continue;
        }
        if c == b'\n' {
            line_start = true;
            i += 1;
            continue;
        }
        if !c.is_ascii_whitespace() {
            line_start = false;
        }
        if c == b'"' || c == b'\'' {
            // Skip a string or character literal.
            i += 1;
            while i < b.len() && b[i] != c && b[i] != b'\n' {
                if b[i] == b'\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
        } else if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                out[i] = b' ';
                i += 1;
            }
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            out[i] = b' ';
            out[i + 1] = b' ';
            i += 2;
            while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                if b[i] != b'\n' {
                    out[i] = b' ';
                }
                i += 1;
            }
            if i < b.len() {
                out[i] = b' ';
                out[i + 1] = b' ';
                i += 2;
            }
        } else {
            i += 1;
        }
    }
    // Only ASCII bytes were replaced by ASCII spaces, and multi-byte
    // characters inside comments became several spaces: still valid UTF-8.
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

pub(super) fn declarator_name(d: &Declarator) -> Option<String> {
    match &d.kind.node {
        DeclaratorKind::Identifier(id) => Some(id.node.name.clone()),
        DeclaratorKind::Declarator(inner) => declarator_name(&inner.node),
        DeclaratorKind::Abstract => None,
    }
}

pub(super) fn specifiers_are_void(spec: &[Node<DeclarationSpecifier>]) -> bool {
    spec.iter().any(|s| {
        matches!(&s.node, DeclarationSpecifier::TypeSpecifier(t) if t.node == TypeSpecifier::Void)
    })
}

pub(super) fn callee_name(call: &CallExpression) -> Option<&str> {
    match &call.callee.node {
        Expression::Identifier(id) => Some(&id.node.name),
        _ => None,
    }
}

pub(super) fn string_literal(e: &Node<Expression>) -> Option<String> {
    match &e.node {
        Expression::StringLiteral(s) => Some(
            s.node
                .iter()
                .map(|part| part.trim_matches('"').to_string())
                .collect::<String>(),
        ),
        _ => None,
    }
}

/// `error_17` → 17.
pub(super) fn error_label_number(name: &str) -> Option<u32> {
    name.strip_prefix("error_")?.parse().ok()
}

/// SV-COMP's error functions: `reach_error`, `reach_error_N` and (before
/// 2020) `__VERIFIER_error`.
pub(super) fn is_error_function(name: &str) -> bool {
    matches!(name, "reach_error" | "__VERIFIER_error") || error_call_number(name).is_some()
}

/// The statement that ends the run (`exit`, `abort`, a failed assertion):
/// the step has no successor.
pub(super) fn run_ends() -> Stmt {
    Stmt::Assume(Expr::Const(0))
}

/// An argument with no effect: a constant, a string or a name.
pub(super) fn is_plain_argument(e: &Expression) -> bool {
    matches!(
        e,
        Expression::Constant(_) | Expression::StringLiteral(_) | Expression::Identifier(_)
    )
}

/// SV-COMP `reach_error_17()` → 17.
pub(super) fn error_call_number(name: &str) -> Option<u32> {
    name.strip_prefix("reach_error_")?.parse().ok()
}

pub(super) fn constant_value(c: &c::Constant) -> Option<i32> {
    match c {
        c::Constant::Integer(i) => {
            let radix = match i.base {
                IntegerBase::Decimal => 10,
                IntegerBase::Octal => 8,
                IntegerBase::Hexadecimal => 16,
                IntegerBase::Binary => 2,
            };
            let digits = i.number.trim_start_matches("0x").trim_start_matches("0X");
            let digits = if radix == 2 {
                digits.trim_start_matches("0b").trim_start_matches("0B")
            } else {
                digits
            };
            let v = i64::from_str_radix(digits, radix).ok()?;
            i32::try_from(v).ok()
        }
        c::Constant::Character(s) => {
            let inner = s.trim_matches('\'');
            let mut chars = inner.chars();
            match (chars.next(), chars.next()) {
                (Some(ch), None) if ch.is_ascii() => Some(ch as i32),
                _ => None,
            }
        }
        c::Constant::Float(_) => None,
    }
}

pub(super) fn binop(op: &BinaryOperator) -> Option<BinOp> {
    Some(match op {
        BinaryOperator::Multiply => BinOp::Mul,
        BinaryOperator::Divide => BinOp::Div,
        BinaryOperator::Modulo => BinOp::Rem,
        BinaryOperator::Plus => BinOp::Add,
        BinaryOperator::Minus => BinOp::Sub,
        BinaryOperator::ShiftLeft => BinOp::Shl,
        BinaryOperator::ShiftRight => BinOp::Shr,
        BinaryOperator::Less => BinOp::Lt,
        BinaryOperator::Greater => BinOp::Gt,
        BinaryOperator::LessOrEqual => BinOp::Le,
        BinaryOperator::GreaterOrEqual => BinOp::Ge,
        BinaryOperator::Equals => BinOp::Eq,
        BinaryOperator::NotEquals => BinOp::Ne,
        BinaryOperator::BitwiseAnd => BinOp::BitAnd,
        BinaryOperator::BitwiseXor => BinOp::BitXor,
        BinaryOperator::BitwiseOr => BinOp::BitOr,
        BinaryOperator::LogicalAnd => BinOp::LogAnd,
        BinaryOperator::LogicalOr => BinOp::LogOr,
        _ => return None,
    })
}

/// The body of the first `while (1)` loop in `main`.
pub(super) fn find_main_loop(s: &Node<Statement>) -> Option<&Node<Statement>> {
    match &s.node {
        Statement::While(w) => Some(&w.node.statement),
        Statement::Compound(items) => items.iter().find_map(|i| match &i.node {
            BlockItem::Statement(st) => find_main_loop(st),
            _ => None,
        }),
        _ => None,
    }
}

/// Constants compared (`==`/`!=`) with a variable named `input` in `main`.
pub(super) fn collect_input_comparisons(s: &Node<Statement>, out: &mut BTreeSet<i32>) {
    fn expr(e: &Node<Expression>, out: &mut BTreeSet<i32>) {
        match &e.node {
            Expression::BinaryOperator(b) => {
                if matches!(
                    b.node.operator.node,
                    BinaryOperator::Equals | BinaryOperator::NotEquals
                ) {
                    for (x, y) in [(&b.node.lhs, &b.node.rhs), (&b.node.rhs, &b.node.lhs)] {
                        if let (Expression::Identifier(id), Expression::Constant(c)) =
                            (&x.node, &y.node)
                        {
                            if id.node.name == "input" {
                                if let Some(v) = constant_value(&c.node) {
                                    out.insert(v);
                                }
                            }
                        }
                    }
                }
                expr(&b.node.lhs, out);
                expr(&b.node.rhs, out);
            }
            Expression::UnaryOperator(u) => expr(&u.node.operand, out),
            Expression::Call(c) => c.node.arguments.iter().for_each(|a| expr(a, out)),
            _ => {}
        }
    }
    match &s.node {
        Statement::Compound(items) => {
            for i in items {
                if let BlockItem::Statement(st) = &i.node {
                    collect_input_comparisons(st, out);
                }
            }
        }
        Statement::If(i) => {
            expr(&i.node.condition, out);
            collect_input_comparisons(&i.node.then_statement, out);
            if let Some(e) = &i.node.else_statement {
                collect_input_comparisons(e, out);
            }
        }
        Statement::While(w) => collect_input_comparisons(&w.node.statement, out),
        Statement::Expression(Some(e)) => expr(e, out),
        _ => {}
    }
}

/// The values an output expression can take: constants, and the constants
/// assigned to a global it reads.
pub(super) fn collect_output_values(
    e: &Expr,
    assigned: &HashMap<GlobalId, BTreeSet<i32>>,
    out: &mut BTreeSet<i32>,
) {
    match e {
        Expr::Const(k) => {
            out.insert(*k);
        }
        Expr::Global(g) => {
            if let Some(s) = assigned.get(g) {
                out.extend(s.iter().copied());
            }
        }
        Expr::Cond(_, a, b) => {
            collect_output_values(a, assigned, out);
            collect_output_values(b, assigned, out);
        }
        _ => {}
    }
}
