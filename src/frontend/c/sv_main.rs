//! The `main` of an SV-COMP task, read strictly.
//!
//! A RERS program's `main` is only a driver: rigor takes the step from
//! `calculate_output` and the input alphabet from the comparisons in
//! `main`. For an SV-COMP verdict that is sound only if `main` does nothing
//! else, so in SV-COMP mode its shape is checked statement by statement:
//!
//! ```c
//! int main() {
//!     int output = -1;                       // declarations, constant values
//!     while (1) {
//!         int input = __VERIFIER_nondet_int();   // or `int input;` + `input = ...;`
//!         if ((input != 1) && (input != 2)) return -2;   // and/or
//!         __VERIFIER_assume((input == 1) || (input == 2));
//!         output = calculate_output(input);  // or `calculate_output(input);`
//!     }
//! }
//! ```
//!
//! Anything else is refused with a located error, never guessed. The
//! values `main` lets through must be the input alphabet the step is
//! explored with.

use std::collections::BTreeSet;

use lang_c::ast::*;
use lang_c::span::Node;

use super::scan::*;
use super::Lowerer;
use crate::frontend::lower::Result;

impl<'a> Lowerer<'a> {
    /// Checks `main` (see the module documentation) and returns the input
    /// values it passes to the step.
    pub(super) fn sv_comp_main(&self, main: &'a Node<FunctionDefinition>) -> Result<BTreeSet<i32>> {
        let items = match &main.node.statement.node {
            Statement::Compound(items) => items,
            _ => return self.unsupported(main.span.start, "SV-COMP `main` without a body"),
        };
        let mut allowed: Option<BTreeSet<i32>> = None;
        let mut loops = 0;
        for item in items {
            match &item.node {
                BlockItem::Declaration(d) => self.constant_declaration(d)?,
                BlockItem::Statement(s) => match &s.node {
                    Statement::While(w) if self.const_eval(&w.node.expression) == Some(1) => {
                        loops += 1;
                        allowed = Some(self.sv_comp_loop(&w.node.statement)?);
                    }
                    Statement::Return(_) => {}
                    _ => {
                        return self.unsupported(
                            s.span.start,
                            "statement of SV-COMP `main` other than the input loop",
                        )
                    }
                },
                BlockItem::StaticAssert(s) => {
                    return self.unsupported(s.span.start, "_Static_assert")
                }
            }
        }
        match (loops, allowed) {
            (1, Some(a)) if !a.is_empty() => Ok(a),
            _ => self.unsupported(main.span.start, "SV-COMP `main` without exactly one `while(1)` input loop that restricts the input to constants"),
        }
    }

    /// A declaration of ints with constant (or no) initial values.
    fn constant_declaration(&self, d: &'a Node<Declaration>) -> Result<()> {
        for init in &d.node.declarators {
            if let Some(Node {
                node: Initializer::Expression(e),
                ..
            }) = &init.node.initializer
            {
                if self.const_eval(e).is_none() && !is_nondet_call(&e.node) {
                    return self
                        .unsupported(e.span.start, "non-constant initial value in SV-COMP `main`");
                }
            }
        }
        Ok(())
    }

    /// The body of the input loop; returns the values it passes on.
    fn sv_comp_loop(&self, body: &'a Node<Statement>) -> Result<BTreeSet<i32>> {
        let items = match &body.node {
            Statement::Compound(items) => items,
            _ => return self.unsupported(body.span.start, "SV-COMP input loop without a block"),
        };
        let mut allowed: Option<BTreeSet<i32>> = None;
        let mut restrict = |set: BTreeSet<i32>| {
            allowed = Some(match allowed.take() {
                None => set,
                Some(a) => a.intersection(&set).copied().collect(),
            })
        };
        let (mut read, mut stepped) = (false, false);
        for item in items {
            let s = match &item.node {
                BlockItem::Declaration(d) => {
                    self.constant_declaration(d)?;
                    read |= d.node.declarators.iter().any(|i| {
                        matches!(&i.node.initializer, Some(Node { node: Initializer::Expression(e), .. }) if is_nondet_call(&e.node))
                    });
                    continue;
                }
                BlockItem::Statement(s) => s,
                BlockItem::StaticAssert(s) => {
                    return self.unsupported(s.span.start, "_Static_assert")
                }
            };
            let e = match &s.node {
                Statement::Expression(Some(e)) => e,
                Statement::If(i)
                    if read
                        && !stepped
                        && ends_the_run(&i.node.then_statement)
                        && i.node.else_statement.is_none() =>
                {
                    match compared_values(
                        &i.node.condition.node,
                        BinaryOperator::LogicalAnd,
                        BinaryOperator::NotEquals,
                    ) {
                        Some(kept) => {
                            restrict(kept);
                            continue;
                        }
                        None => {
                            return self.unsupported(
                                i.node.condition.span.start,
                                "input filter of SV-COMP `main` other than `input != k && ...`",
                            )
                        }
                    }
                }
                _ => return self.unsupported(s.span.start, "statement of the SV-COMP input loop"),
            };
            match &e.node {
                Expression::BinaryOperator(b)
                    if b.node.operator.node == BinaryOperator::Assign
                        && is_nondet_call(&b.node.rhs.node)
                        && is_input(&b.node.lhs.node) =>
                {
                    read = true
                }
                Expression::BinaryOperator(b)
                    if b.node.operator.node == BinaryOperator::Assign
                        && is_step_call(&b.node.rhs.node)
                        && matches!(b.node.lhs.node, Expression::Identifier(_)) =>
                {
                    stepped = true
                }
                e if is_step_call(e) => stepped = true,
                Expression::Call(c)
                    if read
                        && !stepped
                        && callee_name(&c.node) == Some("__VERIFIER_assume")
                        && c.node.arguments.len() == 1 =>
                {
                    match compared_values(
                        &c.node.arguments[0].node,
                        BinaryOperator::LogicalOr,
                        BinaryOperator::Equals,
                    ) {
                        Some(set) => restrict(set),
                        None => {
                            return self.unsupported(
                                c.node.arguments[0].span.start,
                                "assumption of SV-COMP `main` other than `input == k || ...`",
                            )
                        }
                    }
                }
                _ => return self.unsupported(e.span.start, "statement of the SV-COMP input loop"),
            }
        }
        match allowed {
            Some(a) if read && stepped => Ok(a),
            _ => self.unsupported(body.span.start, "SV-COMP input loop that does not read `input`, restrict it to constants and call `calculate_output(input)`"),
        }
    }
}

/// `__VERIFIER_nondet_int()`.
fn is_nondet_call(e: &Expression) -> bool {
    matches!(e, Expression::Call(c) if callee_name(&c.node) == Some("__VERIFIER_nondet_int") && c.node.arguments.is_empty())
}

/// The variable `input`.
fn is_input(e: &Expression) -> bool {
    matches!(e, Expression::Identifier(id) if id.node.name == "input")
}

/// `calculate_output(input)`.
fn is_step_call(e: &Expression) -> bool {
    matches!(e, Expression::Call(c) if callee_name(&c.node) == Some("calculate_output")
        && c.node.arguments.len() == 1 && is_input(&c.node.arguments[0].node))
}

/// `return ...;`, `exit(...)` or `abort()`, possibly in a block.
fn ends_the_run(s: &Node<Statement>) -> bool {
    match &s.node {
        Statement::Return(_) => true,
        Statement::Expression(Some(e)) => matches!(&e.node, Expression::Call(c)
            if matches!(callee_name(&c.node), Some("exit" | "abort"))),
        Statement::Compound(items) => {
            items.len() == 1 && matches!(&items[0].node, BlockItem::Statement(s) if ends_the_run(s))
        }
        _ => false,
    }
}

/// `k` of `input == k` or `k == input`.
fn compared_with_input(e: &Expression, op: BinaryOperator) -> Option<i32> {
    match e {
        Expression::BinaryOperator(b) if b.node.operator.node == op => {
            match (&b.node.lhs.node, &b.node.rhs.node) {
                (x, Expression::Constant(c)) | (Expression::Constant(c), x) if is_input(x) => {
                    constant_value(&c.node)
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// The constants of `input OP a JOINT input OP b JOINT ...`; `None` for
/// any other condition. `if (input != a && input != b) return;` lets `{a,
/// b}` through (`&&`, `!=`), and so does `__VERIFIER_assume(input == a ||
/// input == b)` (`||`, `==`).
fn compared_values(
    e: &Expression,
    joint: BinaryOperator,
    op: BinaryOperator,
) -> Option<BTreeSet<i32>> {
    match e {
        Expression::BinaryOperator(b) if b.node.operator.node == joint => {
            let mut l = compared_values(&b.node.lhs.node, joint.clone(), op.clone())?;
            l.extend(compared_values(&b.node.rhs.node, joint, op)?);
            Some(l)
        }
        _ => compared_with_input(e, op).map(|k| BTreeSet::from([k])),
    }
}
