//! Functions and statements of a C program: the step, `main`'s input
//! loop (2014 inlined steps), error labels, assertions, outputs, calls.

use lang_c::ast::*;
use lang_c::span::Node;

use super::scan::*;
use super::{ErrorCalls, Lowerer};
use crate::frontend::lower::{place_value, Locals, Result};
use crate::ir::{self, BinOp, Expr, FuncId, LocalId};
use crate::ir::{Place, Stmt};

impl<'a> Lowerer<'a> {
    /// Lowers a function definition (once) and returns its id.
    pub(super) fn function(
        &mut self,
        def: &'a Node<FunctionDefinition>,
        name: &str,
        is_step: bool,
    ) -> Result<FuncId> {
        if let Some(&id) = self.func_ix.get(name) {
            if self.functions[id.0 as usize].is_none() {
                return self.unsupported(def.span.start, "recursive function");
            }
            return Ok(id);
        }
        let id = FuncId(self.functions.len() as u32);
        self.functions.push(None);
        self.func_ix.insert(name.to_string(), id);
        // Save the per-function state of the caller.
        let saved = (
            std::mem::take(&mut self.locals),
            self.params,
            self.scanf_source.take(),
            self.in_step_root,
        );
        self.in_step_root = is_step;
        self.locals = Locals::new();
        let decl = &def.node.declarator.node;
        if let Some(DerivedDeclarator::Function(fd)) = decl.derived.last().map(|d| &d.node) {
            for p in &fd.node.parameters {
                if specifiers_are_void(&p.node.specifiers) && p.node.declarator.is_none() {
                    continue; // f(void)
                }
                let pname = p
                    .node
                    .declarator
                    .as_ref()
                    .and_then(|d| declarator_name(&d.node))
                    .unwrap_or_else(|| format!("arg{}", self.locals.count()));
                self.check_int_type(&p.node.specifiers, p.span.start)?;
                if p.node
                    .declarator
                    .as_ref()
                    .is_some_and(|d| !d.node.derived.is_empty())
                {
                    return self.unsupported(p.span.start, "parameter that is not an int");
                }
                self.locals.declare(&pname, |id| id);
            }
        }
        self.params = self.locals.count();
        if is_step && self.params != 1 {
            return self.err(
                def.span.start,
                "the step function must take exactly one int parameter (the input)",
            );
        }
        let returns_value = !specifiers_are_void(&def.node.specifiers);
        let body = self.statement(&def.node.statement)?;
        let f = ir::Function {
            name: name.to_string(),
            params: self.params,
            locals: self.locals.count(),
            local_names: std::mem::take(&mut self.locals).finish(),
            returns_value,
            body,
            loc: self.loc(def.span.start),
        };
        self.functions[id.0 as usize] = Some(f);
        (
            self.locals,
            self.params,
            self.scanf_source,
            self.in_step_root,
        ) = saved;
        Ok(id)
    }

    /// 2014 `_opt` programs: the step is the body of `main`'s `while(1)`
    /// loop, with `scanf("%d", &x)` reading the input.
    pub(super) fn step_from_main(&mut self, main: &'a Node<FunctionDefinition>) -> Result<FuncId> {
        let body = find_main_loop(&main.node.statement).ok_or_else(|| {
            let l = self.loc(main.span.start);
            crate::frontend::lower::invalid(self.file, l, "not a RERS program: `main` has no `while(1)` input loop and there is no `calculate_output`")
        })?;
        let id = FuncId(self.functions.len() as u32);
        self.functions.push(None);
        self.func_ix.insert("main".to_string(), id);
        self.locals = Locals::new();
        self.locals.declare("input", |id| id);
        self.params = 1;
        self.scanf_source = Some(LocalId(0));
        self.in_step_root = true;
        let stmts = self.statement(body)?;
        let f = ir::Function {
            name: "main".to_string(),
            params: 1,
            locals: self.locals.count(),
            local_names: std::mem::take(&mut self.locals).finish(),
            returns_value: false,
            body: stmts,
            loc: self.loc(main.span.start),
        };
        self.functions[id.0 as usize] = Some(f);
        Ok(id)
    }

    // ----- statements ----------------------------------------------------

    pub(super) fn statement(&mut self, s: &'a Node<Statement>) -> Result<Vec<Stmt>> {
        let mut out = Vec::new();
        self.statement_into(s, &mut out)?;
        Ok(out)
    }

    pub(super) fn statement_into(
        &mut self,
        s: &'a Node<Statement>,
        out: &mut Vec<Stmt>,
    ) -> Result<()> {
        match &s.node {
            Statement::Compound(items) => {
                self.locals.enter();
                for item in items {
                    match &item.node {
                        BlockItem::Statement(st) => self.statement_into(st, out)?,
                        BlockItem::Declaration(d) => self.local_declaration(d, out)?,
                        BlockItem::StaticAssert(sa) => {
                            return self.unsupported(sa.span.start, "_Static_assert")
                        }
                    }
                }
                self.locals.leave();
            }
            Statement::Expression(None) => {}
            Statement::Expression(Some(e)) => self.expression_statement(e, out)?,
            Statement::If(i) => {
                let c = self.expr(&i.node.condition)?;
                let t = self.statement(&i.node.then_statement)?;
                let f = match &i.node.else_statement {
                    Some(e) => self.statement(e)?,
                    None => Vec::new(),
                };
                out.push(Stmt::If(c, t, f));
            }
            Statement::Return(e) => {
                let v = match e {
                    Some(e) => {
                        let v = self.expr(e)?;
                        // Output codes of 2012 programs: any constant a
                        // value function returns (the step may return
                        // `calculate_output2(input)`).
                        if let Expr::Const(k) = v {
                            self.returned_consts.insert(k);
                        }
                        Some(v)
                    }
                    None => None,
                };
                out.push(Stmt::Return(v));
            }
            Statement::Labeled(l) => match &l.node.label.node {
                Label::Identifier(id) => {
                    if id.node.name == "globalError" && self.is_failing_assert(&l.node.statement) {
                        out.push(Stmt::Error(ir::GLOBAL_ERROR));
                        return Ok(());
                    }
                    let number = error_label_number(&id.node.name);
                    if let Some(n) = number {
                        if self.is_failing_assert(&l.node.statement) {
                            self.error_labels.insert(n);
                            out.push(Stmt::Error(n));
                            return Ok(());
                        }
                    }
                    let outer = std::mem::replace(&mut self.current_label, number);
                    let lowered = self.statement_into(&l.node.statement, out);
                    self.current_label = outer;
                    lowered?;
                }
                _ => return self.unsupported(l.span.start, "switch case label"),
            },
            Statement::While(w) => {
                let c = self.expr(&w.node.expression)?;
                let body = self.statement(&w.node.statement)?;
                out.push(Stmt::While(c, body));
            }
            Statement::Switch(_) => return self.unsupported(s.span.start, "switch statement"),
            Statement::DoWhile(_) => return self.unsupported(s.span.start, "do-while loop"),
            Statement::For(_) => return self.unsupported(s.span.start, "for loop"),
            Statement::Goto(_) => return self.unsupported(s.span.start, "goto"),
            Statement::Continue => return self.unsupported(s.span.start, "continue"),
            Statement::Break => return self.unsupported(s.span.start, "break"),
            Statement::Asm(_) => return self.unsupported(s.span.start, "inline assembly"),
        }
        Ok(())
    }

    pub(super) fn local_declaration(
        &mut self,
        d: &'a Node<Declaration>,
        out: &mut Vec<Stmt>,
    ) -> Result<()> {
        self.check_int_type(&d.node.specifiers, d.span.start)?;
        for init in &d.node.declarators {
            if !init.node.declarator.node.derived.is_empty() {
                return self.unsupported(init.span.start, "local variable that is not an int");
            }
            let name = declarator_name(&init.node.declarator.node).unwrap_or_default();
            let id = self.locals.declare(&name, |id| id);
            let value = match &init.node.initializer {
                Some(Node {
                    node: Initializer::Expression(e),
                    ..
                }) => {
                    if let Some(src) = self.nondet_input(e) {
                        Expr::Local(src)
                    } else {
                        self.expr(e)?
                    }
                }
                Some(i) => return self.unsupported(i.span.start, "initializer list for a local"),
                None => Expr::Const(0),
            };
            out.push(Stmt::Assign(
                Place::Local(id),
                value,
                self.loc(init.span.start),
            ));
        }
        Ok(())
    }

    /// `__VERIFIER_nondet_int()` in a step inlined in main reads the input.
    pub(super) fn nondet_input(&self, e: &Node<Expression>) -> Option<LocalId> {
        match &e.node {
            Expression::Call(call) if callee_name(&call.node) == Some("__VERIFIER_nondet_int") => {
                self.scanf_source
            }
            _ => None,
        }
    }

    /// Whether a statement is an assertion that always fails:
    /// `assert(0)`, `assert(!error_N)` with `const int error_N = 1`, or
    /// `!1 ? (void)0 : __assert_fail(...)`.
    pub(super) fn is_failing_assert(&self, s: &Node<Statement>) -> bool {
        let e = match &s.node {
            Statement::Expression(Some(e)) => e,
            Statement::Compound(items) if items.len() == 1 => {
                return match &items[0].node {
                    BlockItem::Statement(st) => self.is_failing_assert(st),
                    _ => false,
                }
            }
            _ => return false,
        };
        match &e.node {
            Expression::Call(call) if callee_name(&call.node) == Some("assert") => {
                call.node.arguments.len() == 1
                    && self.const_eval(&call.node.arguments[0]) == Some(0)
            }
            Expression::Conditional(c) => {
                self.const_eval(&c.node.condition) == Some(0)
                    && matches!(&c.node.else_expression.node, Expression::Call(call)
                        if callee_name(&call.node) == Some("__assert_fail"))
            }
            _ => false,
        }
    }

    pub(super) fn expression_statement(
        &mut self,
        e: &'a Node<Expression>,
        out: &mut Vec<Stmt>,
    ) -> Result<()> {
        let at = e.span.start;
        let loc = self.loc(at);
        match &e.node {
            Expression::BinaryOperator(b) => {
                let op = &b.node.operator.node;
                let compound = match op {
                    BinaryOperator::Assign => None,
                    BinaryOperator::AssignPlus => Some(BinOp::Add),
                    BinaryOperator::AssignMinus => Some(BinOp::Sub),
                    BinaryOperator::AssignMultiply => Some(BinOp::Mul),
                    BinaryOperator::AssignDivide => Some(BinOp::Div),
                    BinaryOperator::AssignModulo => Some(BinOp::Rem),
                    BinaryOperator::AssignShiftLeft => Some(BinOp::Shl),
                    BinaryOperator::AssignShiftRight => Some(BinOp::Shr),
                    BinaryOperator::AssignBitwiseAnd => Some(BinOp::BitAnd),
                    BinaryOperator::AssignBitwiseOr => Some(BinOp::BitOr),
                    BinaryOperator::AssignBitwiseXor => Some(BinOp::BitXor),
                    _ => return self.unsupported(at, "expression statement without effect"),
                };
                let place = self.place(&b.node.lhs)?;
                let rhs = match self.nondet_input(&b.node.rhs) {
                    Some(src) => Expr::Local(src),
                    None => self.expr(&b.node.rhs)?,
                };
                let value = match compound {
                    None => rhs,
                    Some(op) => Expr::Binary(op, Box::new(place_value(&place)), Box::new(rhs)),
                };
                self.note_assignment(&place, &value);
                out.push(Stmt::Assign(place, value, loc));
            }
            Expression::UnaryOperator(u) => {
                let delta = match u.node.operator.node {
                    UnaryOperator::PostIncrement | UnaryOperator::PreIncrement => BinOp::Add,
                    UnaryOperator::PostDecrement | UnaryOperator::PreDecrement => BinOp::Sub,
                    _ => return self.unsupported(at, "expression statement without effect"),
                };
                let place = self.place(&u.node.operand)?;
                let value = Expr::Binary(
                    delta,
                    Box::new(place_value(&place)),
                    Box::new(Expr::Const(1)),
                );
                out.push(Stmt::Assign(place, value, loc));
            }
            Expression::Call(call) => self.call_statement(call, at, out)?,
            Expression::Conditional(_) => {
                return self.unsupported(at, "conditional expression used as a statement")
            }
            Expression::Cast(c) if matches!(&c.node.expression.node, Expression::Constant(_)) => {}
            _ => return self.unsupported(at, "expression statement"),
        }
        Ok(())
    }

    pub(super) fn note_assignment(&mut self, place: &Place, value: &Expr) {
        if let (Place::Global(g), Expr::Const(k)) = (place, value) {
            self.assigned_consts.entry(*g).or_default().insert(*k);
        }
    }

    pub(super) fn call_statement(
        &mut self,
        call: &'a Node<CallExpression>,
        at: usize,
        out: &mut Vec<Stmt>,
    ) -> Result<()> {
        let loc = self.loc(at);
        let name = match callee_name(&call.node) {
            Some(n) => n.to_string(),
            None => return self.unsupported(at, "call through a function pointer"),
        };
        let args = &call.node.arguments;
        match name.as_str() {
            "printf" => {
                let fmt = args.first().and_then(string_literal);
                match (fmt.as_deref(), args.len()) {
                    (Some(f), 2) if f.trim() == "%d\\n" || f.trim() == "%d" => {
                        let v = self.expr(&args[1])?;
                        self.output_exprs.push(v.clone());
                        out.push(Stmt::Output(v, loc));
                    }
                    _ => return self.unsupported(at, "printf other than printf(\"%d\\n\", value)"),
                }
            }
            "fprintf" => {
                let msg = args.get(1).and_then(string_literal).unwrap_or_default();
                if msg.starts_with("Invalid input") {
                    out.push(Stmt::Invalid);
                } else {
                    return self
                        .unsupported(at, "fprintf other than the \"Invalid input\" message");
                }
            }
            "scanf" => match (self.scanf_source, args.get(1)) {
                (Some(src), Some(arg)) => match &arg.node {
                    Expression::UnaryOperator(u)
                        if u.node.operator.node == UnaryOperator::Address =>
                    {
                        let place = self.place(&u.node.operand)?;
                        out.push(Stmt::Assign(place, Expr::Local(src), loc));
                    }
                    _ => return self.unsupported(at, "scanf into something other than &variable"),
                },
                _ => return self.unsupported(at, "scanf outside the main input loop"),
            },
            // RERS 2017+: `__VERIFIER_error(N)` is error N (in SV-COMP mode
            // only when it is the target; without an argument it is the old
            // SV-COMP error function, below).
            "__VERIFIER_error" if !args.is_empty() && !self.error_call_counts(&name) => {}
            "__VERIFIER_error" if !args.is_empty() => {
                let n = match args.first().and_then(|a| self.const_eval(a)) {
                    Some(n) if n >= 0 => n as u32,
                    _ => return self.unsupported(at, "__VERIFIER_error with a non-constant label"),
                };
                self.error_labels.insert(n);
                out.push(Stmt::Error(n));
            }
            "fflush" => {}
            "__VERIFIER_assume" => {
                if args.len() != 1 {
                    return self.err(at, "__VERIFIER_assume takes one argument");
                }
                let c = self.expr(&args[0])?;
                out.push(Stmt::Assume(c));
            }
            "assert" => {
                if args.len() != 1 {
                    return self.err(at, "assert takes one argument");
                }
                // A failing assertion aborts the program: the run ends.
                let c = self.expr(&args[0])?;
                out.push(Stmt::If(c, Vec::new(), vec![run_ends()]));
            }
            // `exit`, `abort` and a failed assertion end the run: the step
            // has no successor (nothing the property asks about happens).
            "exit" | "abort" | "__assert_fail" => {
                // The arguments are not evaluated: they must have no effect.
                if args.iter().any(|a| !is_plain_argument(&a.node)) {
                    return self
                        .unsupported(at, "a computed argument of exit, abort or __assert_fail");
                }
                out.push(run_ends());
            }
            n if self.error_call(n).is_some() => {
                let k = self.error_call(n).expect("checked");
                self.error_labels.insert(k);
                out.push(Stmt::Error(k));
            }
            n if is_error_function(n) && !self.defs.contains_key(n) => {
                // SV-COMP: an error function that is not the property's
                // target and has no body does nothing.
            }
            _ => {
                let def = match self.defs.get(name.as_str()).copied() {
                    Some(d) => d,
                    None => return self.err(at, format!("call of unknown function `{name}`")),
                };
                let id = self.function(def, &name, false)?;
                let lowered = self.call_args(id, args, at)?;
                out.push(Stmt::Call(id, lowered, loc));
            }
        }
        Ok(())
    }

    /// Whether calls of the error function `name` are errors at all.
    fn error_call_counts(&self, name: &str) -> bool {
        match &self.error_calls {
            ErrorCalls::Rers => true,
            ErrorCalls::Only(f) => f == name,
        }
    }

    /// The error label a call of `name` is, if it is one (see [`ErrorCalls`]).
    fn error_call(&self, name: &str) -> Option<u32> {
        let numbered = || error_call_number(name).or(self.current_label).unwrap_or(0);
        (is_error_function(name) && self.error_call_counts(name)).then(numbered)
    }

    pub(super) fn call_args(
        &mut self,
        id: FuncId,
        args: &'a [Node<Expression>],
        at: usize,
    ) -> Result<Vec<Expr>> {
        let want = self.functions[id.0 as usize].as_ref().map(|f| f.params);
        if let Some(want) = want {
            if want as usize != args.len() {
                return self.err(
                    at,
                    format!(
                        "call with {} arguments, the function takes {want}",
                        args.len()
                    ),
                );
            }
        }
        args.iter().map(|a| self.expr(a)).collect()
    }
}
