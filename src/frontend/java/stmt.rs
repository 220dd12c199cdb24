//! Methods and statements of a Java program: the step, outputs, error
//! calls, invalid-input exceptions, locals.

use tree_sitter::Node;

use super::{compound_op, fold, named, Lowerer, Ty};
use crate::frontend::lower::{place_value, Locals, Result};
use crate::ir::{self, BinOp, Expr, FuncId};
use crate::ir::{Place, Stmt};

impl<'a> Lowerer<'a> {
    /// Lowers the method `name` (once) and returns its id.
    pub(super) fn method_id(&mut self, name: &str, at: Node<'a>, is_step: bool) -> Result<FuncId> {
        if let Some(&id) = self.func_ix.get(name) {
            if self.functions[id.0 as usize].is_none() {
                return self.unsupported(at, &format!("recursive method `{name}`"));
            }
            return Ok(id);
        }
        let defs = self.methods.get(name).cloned().unwrap_or_default();
        let def = match defs.as_slice() {
            [d] => *d,
            [] => return self.err(at, format!("call of unknown method `{name}`")),
            [_, d, ..] => return self.unsupported(*d, &format!("overloaded method `{name}`")),
        };
        let id = FuncId(self.functions.len() as u32);
        self.functions.push(None);
        self.signatures.push((Vec::new(), None));
        self.func_ix.insert(name.to_string(), id);
        let saved = (std::mem::take(&mut self.locals), self.returns.take());
        let ret_node = self.field_of(def, "type")?;
        let returns = match ret_node.kind() {
            "void_type" => None,
            _ => match self.type_of(ret_node) {
                Some(t @ (Ty::Int | Ty::Bool | Ty::Str)) => Some(t),
                _ => {
                    return self.unsupported(
                        ret_node,
                        &format!("method returning `{}`", self.text(ret_node)),
                    )
                }
            },
        };
        self.locals = Locals::new();
        let mut param_tys = Vec::new();
        let params = self.field_of(def, "parameters")?;
        for p in named(params) {
            if p.kind() != "formal_parameter" {
                return self.unsupported(p, "parameter of this kind");
            }
            let pt = self.field_of(p, "type")?;
            let ty = match (self.type_of(pt), p.child_by_field_name("dimensions")) {
                (Some(t @ (Ty::Int | Ty::Bool | Ty::Str)), None) => t,
                _ => return self.unsupported(p, &format!("parameter of type `{}`", self.text(pt))),
            };
            let pname = self.text(self.field_of(p, "name")?).to_string();
            self.locals.declare(&pname, |id| (id, ty));
            param_tys.push(ty);
        }
        let n_params = self.locals.count();
        if is_step && (param_tys != [Ty::Str] || returns.is_some()) {
            return self.err(def, "the step must be `void calculateOutput(String input)`");
        }
        self.signatures[id.0 as usize] = (param_tys, returns);
        self.returns = returns;
        let body_node = match def.child_by_field_name("body") {
            Some(b) => b,
            None => return self.unsupported(def, "method without a body"),
        };
        let body = self.block(body_node)?;
        let f = ir::Function {
            name: name.to_string(),
            params: n_params,
            locals: self.locals.count(),
            local_names: std::mem::take(&mut self.locals).finish(),
            returns_value: returns.is_some(),
            body,
            loc: self.loc(def),
        };
        self.functions[id.0 as usize] = Some(f);
        (self.locals, self.returns) = saved;
        Ok(id)
    }

    // ----- statements ----------------------------------------------------

    pub(super) fn block(&mut self, b: Node<'a>) -> Result<Vec<Stmt>> {
        let mut out = Vec::new();
        self.statement_into(b, &mut out)?;
        Ok(out)
    }

    pub(super) fn statement_into(&mut self, s: Node<'a>, out: &mut Vec<Stmt>) -> Result<()> {
        match s.kind() {
            "block" => {
                self.locals.enter();
                for c in named(s) {
                    self.statement_into(c, out)?;
                }
                self.locals.leave();
            }
            ";" | "empty_statement" => {}
            "expression_statement" => {
                let e = self.only_child(s)?;
                self.expression_statement(e, out)?;
            }
            "if_statement" => {
                let c = self.condition(self.field_of(s, "condition")?)?;
                let t = self.scoped(self.field_of(s, "consequence")?)?;
                let f = match s.child_by_field_name("alternative") {
                    Some(a) => self.scoped(a)?,
                    None => Vec::new(),
                };
                out.push(Stmt::If(c, t, f));
            }
            "while_statement" => {
                let c = self.condition(self.field_of(s, "condition")?)?;
                let body = self.scoped(self.field_of(s, "body")?)?;
                out.push(Stmt::While(c, body));
            }
            "return_statement" => {
                let v = match (named(s).next(), self.returns) {
                    (None, None) => None,
                    (Some(e), Some(want)) => {
                        let (v, t) = self.expr(e)?;
                        self.expect_ty(e, t, want)?;
                        Some(v)
                    }
                    (None, Some(_)) => {
                        return self.err(s, "`return` without a value in a method that returns one")
                    }
                    (Some(e), None) => {
                        return self.err(e, "`return` with a value in a void method")
                    }
                };
                out.push(Stmt::Return(v));
            }
            "throw_statement" => {
                let e = self.only_child(s)?;
                let is_iae = e.kind() == "object_creation_expression"
                    && e.child_by_field_name("type").map(|t| self.text(t))
                        == Some("IllegalArgumentException");
                if !is_iae {
                    return self.unsupported(
                        s,
                        "throw of anything but `new IllegalArgumentException(...)`",
                    );
                }
                out.push(Stmt::Invalid);
            }
            "local_variable_declaration" => self.local_declaration(s, out)?,
            "line_comment" | "block_comment" => {}
            k => {
                let what = match k {
                    "for_statement" | "enhanced_for_statement" => "for loop",
                    "do_statement" => "do-while loop",
                    "switch_expression" | "switch_statement" => "switch",
                    "try_statement" | "try_with_resources_statement" => "try statement",
                    "break_statement" => "break",
                    "continue_statement" => "continue",
                    "labeled_statement" => "labelled statement",
                    "synchronized_statement" => "synchronized block",
                    "assert_statement" => "assert",
                    "yield_statement" => "yield",
                    "local_class_declaration" => "local class",
                    _ => k,
                };
                return self.unsupported(s, what);
            }
        }
        Ok(())
    }

    /// A statement in its own scope (the branch of an `if`, a loop body).
    pub(super) fn scoped(&mut self, s: Node<'a>) -> Result<Vec<Stmt>> {
        self.locals.enter();
        let mut out = Vec::new();
        let r = self.statement_into(s, &mut out);
        self.locals.leave();
        r.map(|_| out)
    }

    pub(super) fn condition(&mut self, c: Node<'a>) -> Result<Expr> {
        let (e, t) = self.expr(c)?;
        self.expect_ty(c, t, Ty::Bool)?;
        Ok(e)
    }

    pub(super) fn expect_ty(&self, n: Node, got: Ty, want: Ty) -> Result<()> {
        if got == want {
            Ok(())
        } else {
            self.err(
                n,
                format!(
                    "expected a value of type {}, found {}",
                    want.name(),
                    got.name()
                ),
            )
        }
    }

    pub(super) fn local_declaration(&mut self, d: Node<'a>, out: &mut Vec<Stmt>) -> Result<()> {
        let ty_node = self.field_of(d, "type")?;
        let ty = match self.type_of(ty_node) {
            Some(t @ (Ty::Int | Ty::Bool | Ty::Str)) => t,
            _ => {
                return self.unsupported(
                    ty_node,
                    &format!("local variable of type `{}`", self.text(ty_node)),
                )
            }
        };
        let mut c = d.walk();
        let declarators: Vec<Node> = d.children_by_field_name("declarator", &mut c).collect();
        for decl in declarators {
            if decl.child_by_field_name("dimensions").is_some() {
                return self.unsupported(decl, "local array");
            }
            let name = self.text(self.field_of(decl, "name")?).to_string();
            let value = match decl.child_by_field_name("value") {
                Some(v) => {
                    let (e, t) = self.expr(v)?;
                    self.expect_ty(v, t, ty)?;
                    e
                }
                None => Expr::Const(0),
            };
            let id = self.locals.declare(&name, |id| (id, ty));
            out.push(Stmt::Assign(Place::Local(id), value, self.loc(decl)));
        }
        Ok(())
    }

    pub(super) fn expression_statement(&mut self, e: Node<'a>, out: &mut Vec<Stmt>) -> Result<()> {
        let loc = self.loc(e);
        match e.kind() {
            "assignment_expression" => {
                let op_node = self.field_of(e, "operator")?;
                let op_text = self.text(op_node);
                let left = self.field_of(e, "left")?;
                let right = self.field_of(e, "right")?;
                let (place, pty) = self.place(left)?;
                let (rhs, rty) = self.expr(right)?;
                let value = if op_text == "=" {
                    self.expect_ty(right, rty, pty)?;
                    rhs
                } else {
                    let op = match compound_op(op_text) {
                        Some(op) => op,
                        None => return self.unsupported(op_node, &format!("operator `{op_text}`")),
                    };
                    let (op, want) = match (op, pty) {
                        (BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor, Ty::Bool) => (op, Ty::Bool),
                        (_, Ty::Int) => (op, Ty::Int),
                        _ => {
                            return self
                                .unsupported(op_node, &format!("`{op_text}` on a {}", pty.name()))
                        }
                    };
                    self.expect_ty(right, rty, want)?;
                    Expr::Binary(op, Box::new(place_value(&place)), Box::new(rhs))
                };
                out.push(Stmt::Assign(place, value, loc));
            }
            "update_expression" => {
                let text = self.text(e);
                let delta = if text.starts_with("++") || text.ends_with("++") {
                    BinOp::Add
                } else {
                    BinOp::Sub
                };
                let target = self.only_child(e)?;
                let (place, ty) = self.place(target)?;
                self.expect_ty(target, ty, Ty::Int)?;
                let value = Expr::Binary(
                    delta,
                    Box::new(place_value(&place)),
                    Box::new(Expr::Const(1)),
                );
                out.push(Stmt::Assign(place, value, loc));
            }
            "method_invocation" => self.call_statement(e, out)?,
            "parenthesized_expression" => self.expression_statement(self.only_child(e)?, out)?,
            _ => return self.unsupported(e, &format!("expression statement ({})", e.kind())),
        }
        Ok(())
    }

    pub(super) fn call_statement(&mut self, call: Node<'a>, out: &mut Vec<Stmt>) -> Result<()> {
        let loc = self.loc(call);
        let name = self.text(self.field_of(call, "name")?);
        let object = call.child_by_field_name("object").map(|o| self.text(o));
        let args: Vec<Node> = named(self.field_of(call, "arguments")?).collect();
        match (object, name) {
            (Some("System.out"), "println") => {
                let s = match args.as_slice() {
                    [a] if a.kind() == "string_literal" => self.string_value(*a)?,
                    _ => {
                        return self.unsupported(
                            call,
                            "System.out.println of anything but one string literal",
                        )
                    }
                };
                let id = ir::intern(&mut self.strings, &s);
                self.outputs.insert(s);
                out.push(Stmt::Output(Expr::Const(id), loc));
            }
            (Some("Errors") | None, "__VERIFIER_error")
                if object.is_some() || !self.methods.contains_key(name) =>
            {
                let n = match args.as_slice() {
                    [a] => match self.expr(*a)? {
                        (e, Ty::Int) => fold(&e),
                        _ => None,
                    },
                    _ => None,
                };
                let n = match n {
                    Some(n) if n >= 0 => n as u32,
                    _ => {
                        return self.unsupported(call, "__VERIFIER_error with a non-constant label")
                    }
                };
                self.error_labels.insert(n);
                out.push(Stmt::Error(n));
            }
            (None | Some("this"), _) => {
                let (id, args) = self.user_call(call, name, &args)?;
                out.push(Stmt::Call(id, args, loc));
            }
            (Some(o), _) => return self.unsupported(call, &format!("call of `{o}.{name}`")),
        }
        Ok(())
    }

    /// A call of a method of the class: its id and lowered arguments.
    pub(super) fn user_call(
        &mut self,
        call: Node<'a>,
        name: &str,
        args: &[Node<'a>],
    ) -> Result<(FuncId, Vec<Expr>)> {
        if name == "calculateOutput" || name == "main" {
            return self.unsupported(call, &format!("call of `{name}` from the step"));
        }
        let id = self.method_id(name, call, false)?;
        let (params, _) = self.signatures[id.0 as usize].clone();
        if params.len() != args.len() {
            return self.err(
                call,
                format!(
                    "call with {} arguments, `{name}` takes {}",
                    args.len(),
                    params.len()
                ),
            );
        }
        let mut lowered = Vec::new();
        for (a, want) in args.iter().zip(params) {
            let (e, t) = self.expr(*a)?;
            self.expect_ty(*a, t, want)?;
            lowered.push(e);
        }
        Ok((id, lowered))
    }
}
