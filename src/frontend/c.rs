//! The C front end: RERS C programs of every year, parsed with `lang-c` and
//! lowered into the [`crate::ir`].
//!
//! Shapes accepted (see `shared/rers/README.md`):
//! - 2012: `int calculate_output(int)` returning the output code (-1 silent,
//!   -2 invalid), errors as `error_N: assert(0);`, inputs compared as ints;
//! - 2014: `assert(!error_N)` over `const int error_N = 1`, pointers into
//!   arrays, and the `_opt` variants whose step is inlined in `main`'s
//!   `while(1)` loop with a global `output` variable and
//!   `__assert_fail` ternaries;
//! - 2017-2019: `void calculate_output(int)` with helpers, `printf` outputs,
//!   `errorCheck()` calling `__VERIFIER_error(N)`, the `cf` flag and the
//!   "Invalid input" `fprintf`;
//! - SV-COMP: `__VERIFIER_nondet_int()` input, `__VERIFIER_assume(c)`,
//!   `reach_error_N()` error calls.
//!
//! Anything else is an error naming `file:line:col` and the construct: the
//! front end never guesses.

use std::collections::{BTreeSet, HashMap};

use lang_c::ast::{self as c, *};
use lang_c::span::Node;

use crate::error::{Error, Result};
use crate::ir::{self, ArrayRef, BinOp, Expr, FuncId, GlobalId, GlobalKind, Loc, LocalId};
use crate::ir::{Place, ScalarTy, StepReturn, Stmt, UnOp};

/// Stack size for the parser thread: generated `else if` chains nest deeply.
const PARSER_STACK: usize = 1 << 30;

/// Parses and lowers the C program `text` read from `path`.
pub fn parse_c(path: &str, text: &str) -> Result<ir::Program> {
    if text.trim().is_empty() {
        return Err(Error::file(path, "empty file, expected a RERS C program"));
    }
    // Comments and preprocessor lines become blanks byte for byte, so that
    // offsets still point into the original text; RERS programs use no macros.
    let cleaned = blank_comments_and_directives(text);
    let path_owned = path.to_string();
    let text_owned = text.to_string();
    let handle = std::thread::Builder::new()
        .stack_size(PARSER_STACK)
        .spawn(move || -> Result<ir::Program> {
            let config = lang_c::driver::Config::default();
            let parse = lang_c::driver::parse_preprocessed(&config, cleaned).map_err(|e| {
                let mut expected: Vec<&str> = e.expected.iter().copied().collect();
                expected.sort_unstable();
                let shown = expected
                    .iter()
                    .take(8)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(" ");
                Error::at(
                    &path_owned,
                    e.line as u32,
                    e.column as u32,
                    format!("syntax error, expected one of: {shown}"),
                )
            })?;
            let result = Lowerer::new(&path_owned, &text_owned).lower(&parse.unit);
            // The AST is deeply nested: drop it on this big stack.
            drop(parse);
            result
        })
        .map_err(|e| Error::file(path, format!("cannot start parser thread: {e}")))?;
    handle
        .join()
        .unwrap_or_else(|_| Err(Error::file(path, "internal error: the C parser panicked")))
}

/// One scope of local variable names.
type Scope = HashMap<String, LocalId>;

/// State of the lowering of one translation unit.
struct Lowerer<'a> {
    file: &'a str,
    line_starts: Vec<usize>,
    globals: Vec<ir::Global>,
    global_ix: HashMap<String, GlobalId>,
    defs: HashMap<String, &'a Node<FunctionDefinition>>,
    functions: Vec<Option<ir::Function>>,
    func_ix: HashMap<String, FuncId>,
    /// Constants assigned to each global (to find the outputs of `output = k`).
    assigned_consts: HashMap<GlobalId, BTreeSet<i32>>,
    output_exprs: Vec<Expr>,
    returned_consts: BTreeSet<i32>,
    error_labels: BTreeSet<u32>,
    /// Constants compared with a variable named `input`.
    input_consts: BTreeSet<i32>,
    // Per function being lowered:
    local_names: Vec<String>,
    scopes: Vec<Scope>,
    params: u32,
    /// In a step inlined in `main`: `scanf` assigns this local (the input).
    scanf_source: Option<LocalId>,
    in_step_root: bool,
}

impl<'a> Lowerer<'a> {
    fn new(file: &'a str, text: &'a str) -> Self {
        let mut line_starts = vec![0];
        for (i, b) in text.bytes().enumerate() {
            if b == b'\n' {
                line_starts.push(i + 1);
            }
        }
        Lowerer {
            file,
            line_starts,
            globals: Vec::new(),
            global_ix: HashMap::new(),
            defs: HashMap::new(),
            functions: Vec::new(),
            func_ix: HashMap::new(),
            assigned_consts: HashMap::new(),
            output_exprs: Vec::new(),
            returned_consts: BTreeSet::new(),
            error_labels: BTreeSet::new(),
            input_consts: BTreeSet::new(),
            local_names: Vec::new(),
            scopes: Vec::new(),
            params: 0,
            scanf_source: None,
            in_step_root: false,
        }
    }

    fn loc(&self, offset: usize) -> Loc {
        let line = match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        Loc {
            line: line as u32 + 1,
            col: (offset - self.line_starts[line]) as u32 + 1,
        }
    }

    fn err<T>(&self, offset: usize, msg: impl Into<String>) -> Result<T> {
        let l = self.loc(offset);
        Err(Error::at(self.file, l.line, l.col, msg))
    }

    fn unsupported<T>(&self, offset: usize, what: &str) -> Result<T> {
        self.err(offset, format!("unsupported C construct: {what}"))
    }

    fn lower(mut self, unit: &'a TranslationUnit) -> Result<ir::Program> {
        for ext in &unit.0 {
            match &ext.node {
                ExternalDeclaration::Declaration(d) => self.global_declaration(d)?,
                ExternalDeclaration::FunctionDefinition(f) => {
                    let name = declarator_name(&f.node.declarator.node).unwrap_or_default();
                    self.defs.insert(name, f);
                }
                ExternalDeclaration::StaticAssert(s) => {
                    return self.unsupported(s.span.start, "_Static_assert")
                }
            }
        }
        let (step, step_return) = if let Some(def) = self.defs.get("calculate_output").copied() {
            let returns_int = !specifiers_are_void(&def.node.specifiers);
            let id = self.function(def, "calculate_output", true)?;
            let sr = if returns_int {
                StepReturn::OutputCode
            } else {
                StepReturn::Void
            };
            (id, sr)
        } else if let Some(main) = self.defs.get("main").copied() {
            (self.step_from_main(main)?, StepReturn::Void)
        } else {
            return Err(Error::file(
                self.file,
                "not a RERS program: no `calculate_output` function and no `main` loop",
            ));
        };
        if self.error_labels.is_empty() && self.output_exprs.is_empty() {
            return Err(Error::file(
                self.file,
                "not a RERS program: the step has neither outputs nor error labels",
            ));
        }
        let inputs = self.input_alphabet(step_return)?;
        let outputs = self.output_alphabet(step_return);
        let functions = self
            .functions
            .into_iter()
            .map(|f| f.expect("every function body is lowered before use"))
            .collect();
        Ok(ir::Program {
            source: self.file.to_string(),
            language: ir::Language::C,
            globals: self.globals,
            strings: Vec::new(),
            functions,
            step,
            step_return,
            inputs,
            outputs,
            error_labels: self.error_labels.into_iter().collect(),
        })
    }

    /// The input alphabet: the `inputs[]` array; else the symbols `main`
    /// accepts; else every constant the step compares `input` with.
    fn input_alphabet(&mut self, _sr: StepReturn) -> Result<Vec<ir::Symbol>> {
        let mut values: BTreeSet<i32> = BTreeSet::new();
        if let Some(&g) = self.global_ix.get("inputs") {
            if let GlobalKind::Array { init, .. } = &self.globals[g.0 as usize].kind {
                values.extend(init.iter().copied());
            }
        }
        if values.is_empty() {
            if let Some(main) = self.defs.get("main").copied() {
                let saved = std::mem::take(&mut self.input_consts);
                let mut found = BTreeSet::new();
                collect_input_comparisons(&main.node.statement, &mut found);
                self.input_consts = saved;
                values = found;
            }
        }
        if values.is_empty() {
            let max = self.input_consts.iter().copied().filter(|&v| v > 0).max();
            if let Some(max) = max {
                values = (1..=max).collect();
            }
        }
        if values.is_empty() {
            return Err(Error::file(
                self.file,
                "cannot determine the input alphabet: no `inputs[]` array and no comparison with `input`",
            ));
        }
        Ok(values
            .into_iter()
            .map(|v| ir::Symbol {
                name: ir::letter(v),
                value: v,
            })
            .collect())
    }

    fn output_alphabet(&self, sr: StepReturn) -> Vec<ir::Symbol> {
        let mut values = BTreeSet::new();
        for e in &self.output_exprs {
            collect_output_values(e, &self.assigned_consts, &mut values);
        }
        if sr == StepReturn::OutputCode {
            values.extend(self.returned_consts.iter().copied());
        }
        values.remove(&-1);
        values.remove(&-2);
        values
            .into_iter()
            .map(|v| ir::Symbol {
                name: ir::letter(v),
                value: v,
            })
            .collect()
    }

    // ----- globals -------------------------------------------------------

    fn global_declaration(&mut self, d: &'a Node<Declaration>) -> Result<()> {
        let spec = &d.node.specifiers;
        let is_extern = spec.iter().any(|s| {
            matches!(&s.node, DeclarationSpecifier::StorageClass(c) if c.node == StorageClassSpecifier::Extern)
        });
        let is_typedef = spec.iter().any(|s| {
            matches!(&s.node, DeclarationSpecifier::StorageClass(c) if c.node == StorageClassSpecifier::Typedef)
        });
        if is_typedef {
            return self.unsupported(d.span.start, "typedef");
        }
        let constant = spec.iter().any(|s| {
            matches!(&s.node, DeclarationSpecifier::TypeQualifier(q) if q.node == TypeQualifier::Const)
        });
        for init in &d.node.declarators {
            let decl = &init.node.declarator.node;
            let derived: Vec<&DerivedDeclarator> = decl.derived.iter().map(|n| &n.node).collect();
            if derived.iter().any(|x| {
                matches!(
                    x,
                    DerivedDeclarator::Function(_) | DerivedDeclarator::KRFunction(_)
                )
            }) {
                continue; // a prototype
            }
            if is_extern {
                continue;
            }
            self.check_int_type(spec, init.span.start)?;
            let name = match declarator_name(decl) {
                Some(n) => n,
                None => return self.unsupported(init.span.start, "declaration without a name"),
            };
            let loc = self.loc(init.span.start);
            let kind = match derived.as_slice() {
                [] => {
                    let v = match &init.node.initializer {
                        None => 0,
                        Some(i) => self.const_initializer(i)?,
                    };
                    GlobalKind::Scalar {
                        ty: ScalarTy::Int,
                        init: v,
                    }
                }
                [DerivedDeclarator::Array(arr)] => {
                    let mut values = match &init.node.initializer {
                        None => Vec::new(),
                        Some(Node {
                            node: Initializer::List(items),
                            ..
                        }) => {
                            let mut v = Vec::new();
                            for item in items {
                                if !item.node.designation.is_empty() {
                                    return self
                                        .unsupported(item.span.start, "designated initializer");
                                }
                                v.push(self.const_initializer(&item.node.initializer)?);
                            }
                            v
                        }
                        Some(i) => {
                            return self
                                .unsupported(i.span.start, "array initializer that is not a list")
                        }
                    };
                    let len = match &arr.node.size {
                        ArraySize::Unknown => values.len(),
                        ArraySize::VariableExpression(e) | ArraySize::StaticExpression(e) => {
                            match self.const_eval(e) {
                                Some(n) if n >= 0 => n as usize,
                                _ => {
                                    return self
                                        .unsupported(e.span.start, "non-constant array size")
                                }
                            }
                        }
                        ArraySize::VariableUnknown => {
                            return self.unsupported(arr.span.start, "variable-length array")
                        }
                    };
                    if values.len() > len {
                        return self.err(init.span.start, "too many initializers for the array");
                    }
                    values.resize(len, 0);
                    GlobalKind::Array {
                        elem: ScalarTy::Int,
                        init: values,
                    }
                }
                [DerivedDeclarator::Pointer(_)] => {
                    let target =
                        match &init.node.initializer {
                            Some(Node {
                                node: Initializer::Expression(e),
                                ..
                            }) => match &e.node {
                                Expression::Identifier(id) => {
                                    self.array_global(&id.node.name, e.span.start)?
                                }
                                _ => return self.unsupported(
                                    e.span.start,
                                    "pointer initialised with something other than an array name",
                                ),
                            },
                            _ => {
                                return self.unsupported(
                                    init.span.start,
                                    "pointer without an array initializer",
                                )
                            }
                        };
                    GlobalKind::Pointer { init: target }
                }
                _ => {
                    return self.unsupported(
                        init.span.start,
                        "global of this type (only int, int[] and int* are supported)",
                    )
                }
            };
            if self.global_ix.contains_key(&name) {
                return self.err(init.span.start, format!("global `{name}` declared twice"));
            }
            let id = GlobalId(self.globals.len() as u32);
            self.globals.push(ir::Global {
                name: name.clone(),
                kind,
                constant,
                loc,
            });
            self.global_ix.insert(name, id);
        }
        Ok(())
    }

    fn check_int_type(&self, spec: &[Node<DeclarationSpecifier>], at: usize) -> Result<()> {
        for s in spec {
            if let DeclarationSpecifier::TypeSpecifier(t) = &s.node {
                match t.node {
                    TypeSpecifier::Int | TypeSpecifier::Signed => {}
                    _ => return self.unsupported(t.span.start, "type other than int"),
                }
            }
        }
        let _ = at;
        Ok(())
    }

    fn array_global(&self, name: &str, at: usize) -> Result<GlobalId> {
        match self.global_ix.get(name) {
            Some(&g) if matches!(self.globals[g.0 as usize].kind, GlobalKind::Array { .. }) => {
                Ok(g)
            }
            _ => self.err(at, format!("`{name}` is not an array global")),
        }
    }

    fn const_initializer(&self, i: &Node<Initializer>) -> Result<i32> {
        match &i.node {
            Initializer::Expression(e) => match self.const_eval(e) {
                Some(v) => Ok(v),
                None => self.unsupported(e.span.start, "non-constant initializer"),
            },
            Initializer::List(_) => self.unsupported(i.span.start, "nested initializer list"),
        }
    }

    /// Evaluates a constant expression (literals, operators, `const` globals).
    fn const_eval(&self, e: &Node<Expression>) -> Option<i32> {
        match &e.node {
            Expression::Constant(c) => constant_value(&c.node),
            Expression::Identifier(id) => {
                let g = self.global_ix.get(&id.node.name)?;
                let gl = &self.globals[g.0 as usize];
                match (&gl.kind, gl.constant) {
                    (GlobalKind::Scalar { init, .. }, true) => Some(*init),
                    _ => None,
                }
            }
            Expression::UnaryOperator(u) => {
                let v = self.const_eval(&u.node.operand)?;
                match u.node.operator.node {
                    UnaryOperator::Minus => Some(v.wrapping_neg()),
                    UnaryOperator::Plus => Some(v),
                    UnaryOperator::Negate => Some((v == 0) as i32),
                    UnaryOperator::Complement => Some(!v),
                    _ => None,
                }
            }
            Expression::BinaryOperator(b) => {
                let l = self.const_eval(&b.node.lhs)?;
                let r = self.const_eval(&b.node.rhs)?;
                let op = binop(&b.node.operator.node)?;
                crate::engine::eval_binop(op, l, r)
            }
            Expression::Cast(cst) => self.const_eval(&cst.node.expression),
            _ => None,
        }
    }

    // ----- functions -----------------------------------------------------

    /// Lowers a function definition (once) and returns its id.
    fn function(
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
            std::mem::take(&mut self.local_names),
            std::mem::take(&mut self.scopes),
            self.params,
            self.scanf_source.take(),
            self.in_step_root,
        );
        self.in_step_root = is_step;
        let mut scope = Scope::new();
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
                    .unwrap_or_else(|| format!("arg{}", self.local_names.len()));
                self.check_int_type(&p.node.specifiers, p.span.start)?;
                if p.node
                    .declarator
                    .as_ref()
                    .is_some_and(|d| !d.node.derived.is_empty())
                {
                    return self.unsupported(p.span.start, "parameter that is not an int");
                }
                scope.insert(pname.clone(), LocalId(self.local_names.len() as u32));
                self.local_names.push(pname);
            }
        }
        self.params = self.local_names.len() as u32;
        if is_step && self.params != 1 {
            return self.err(
                def.span.start,
                "the step function must take exactly one int parameter (the input)",
            );
        }
        self.scopes.push(scope);
        let returns_value = !specifiers_are_void(&def.node.specifiers);
        let body = self.statement(&def.node.statement)?;
        let f = ir::Function {
            name: name.to_string(),
            params: self.params,
            locals: self.local_names.len() as u32,
            local_names: std::mem::take(&mut self.local_names),
            returns_value,
            body,
            loc: self.loc(def.span.start),
        };
        self.functions[id.0 as usize] = Some(f);
        (
            self.local_names,
            self.scopes,
            self.params,
            self.scanf_source,
            self.in_step_root,
        ) = saved;
        Ok(id)
    }

    /// 2014 `_opt` programs: the step is the body of `main`'s `while(1)`
    /// loop, with `scanf("%d", &x)` reading the input.
    fn step_from_main(&mut self, main: &'a Node<FunctionDefinition>) -> Result<FuncId> {
        let body = find_main_loop(&main.node.statement).ok_or_else(|| {
            let l = self.loc(main.span.start);
            Error::at(self.file, l.line, l.col, "not a RERS program: `main` has no `while(1)` input loop and there is no `calculate_output`")
        })?;
        let id = FuncId(self.functions.len() as u32);
        self.functions.push(None);
        self.func_ix.insert("main".to_string(), id);
        self.local_names = vec!["input".to_string()];
        self.params = 1;
        self.scopes = vec![Scope::new()];
        self.scanf_source = Some(LocalId(0));
        self.in_step_root = true;
        let stmts = self.statement(body)?;
        let f = ir::Function {
            name: "main".to_string(),
            params: 1,
            locals: self.local_names.len() as u32,
            local_names: std::mem::take(&mut self.local_names),
            returns_value: false,
            body: stmts,
            loc: self.loc(main.span.start),
        };
        self.functions[id.0 as usize] = Some(f);
        Ok(id)
    }

    // ----- statements ----------------------------------------------------

    fn statement(&mut self, s: &'a Node<Statement>) -> Result<Vec<Stmt>> {
        let mut out = Vec::new();
        self.statement_into(s, &mut out)?;
        Ok(out)
    }

    fn statement_into(&mut self, s: &'a Node<Statement>, out: &mut Vec<Stmt>) -> Result<()> {
        match &s.node {
            Statement::Compound(items) => {
                self.scopes.push(Scope::new());
                for item in items {
                    match &item.node {
                        BlockItem::Statement(st) => self.statement_into(st, out)?,
                        BlockItem::Declaration(d) => self.local_declaration(d, out)?,
                        BlockItem::StaticAssert(sa) => {
                            return self.unsupported(sa.span.start, "_Static_assert")
                        }
                    }
                }
                self.scopes.pop();
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
                    if let Some(n) = error_label_number(&id.node.name) {
                        if self.is_failing_assert(&l.node.statement) {
                            self.error_labels.insert(n);
                            out.push(Stmt::Error(n));
                            return Ok(());
                        }
                    }
                    self.statement_into(&l.node.statement, out)?;
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

    fn local_declaration(&mut self, d: &'a Node<Declaration>, out: &mut Vec<Stmt>) -> Result<()> {
        self.check_int_type(&d.node.specifiers, d.span.start)?;
        for init in &d.node.declarators {
            if !init.node.declarator.node.derived.is_empty() {
                return self.unsupported(init.span.start, "local variable that is not an int");
            }
            let name = declarator_name(&init.node.declarator.node).unwrap_or_default();
            let id = LocalId(self.local_names.len() as u32);
            self.local_names.push(name.clone());
            self.scopes
                .last_mut()
                .expect("a scope is open")
                .insert(name, id);
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
    fn nondet_input(&self, e: &Node<Expression>) -> Option<LocalId> {
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
    fn is_failing_assert(&self, s: &Node<Statement>) -> bool {
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

    fn expression_statement(&mut self, e: &'a Node<Expression>, out: &mut Vec<Stmt>) -> Result<()> {
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

    fn note_assignment(&mut self, place: &Place, value: &Expr) {
        if let (Place::Global(g), Expr::Const(k)) = (place, value) {
            self.assigned_consts.entry(*g).or_default().insert(*k);
        }
    }

    fn call_statement(
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
            "__VERIFIER_error" => {
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
                return self.unsupported(at, "assert outside an `error_N:` label");
            }
            n if error_call_number(n).is_some() && !self.defs.contains_key(n) => {
                let k = error_call_number(n).expect("checked");
                self.error_labels.insert(k);
                out.push(Stmt::Error(k));
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

    fn call_args(
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

    // ----- expressions ---------------------------------------------------

    fn lookup(&self, name: &str) -> Option<Result<Expr>> {
        for scope in self.scopes.iter().rev() {
            if let Some(&l) = scope.get(name) {
                return Some(Ok(Expr::Local(l)));
            }
        }
        let g = *self.global_ix.get(name)?;
        Some(Ok(match self.globals[g.0 as usize].kind {
            GlobalKind::Array { .. } => Expr::ArrayAddr(g),
            _ => Expr::Global(g),
        }))
    }

    fn place(&mut self, e: &'a Node<Expression>) -> Result<Place> {
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

    fn array_ref(&mut self, e: &'a Node<Expression>) -> Result<ArrayRef> {
        if let Expression::Identifier(id) = &e.node {
            if let Some(&g) = self.global_ix.get(&id.node.name) {
                let shadowed = self.scopes.iter().any(|s| s.contains_key(&id.node.name));
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

    fn expr(&mut self, e: &'a Node<Expression>) -> Result<Expr> {
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
                    let shadowed = self.scopes.iter().any(|s| s.contains_key(&id.node.name));
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

    fn note_input_comparison(&mut self, side: &Node<Expression>, other: &Expr) {
        if let (Expression::Identifier(id), Expr::Const(k)) = (&side.node, other) {
            if id.node.name == "input" {
                self.input_consts.insert(*k);
            }
        }
    }
}

// ----- small helpers ------------------------------------------------------

/// Replaces comments and preprocessor lines by spaces (newlines kept), so
/// that byte offsets and line numbers are those of the original text.
fn blank_comments_and_directives(text: &str) -> String {
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

fn declarator_name(d: &Declarator) -> Option<String> {
    match &d.kind.node {
        DeclaratorKind::Identifier(id) => Some(id.node.name.clone()),
        DeclaratorKind::Declarator(inner) => declarator_name(&inner.node),
        DeclaratorKind::Abstract => None,
    }
}

fn specifiers_are_void(spec: &[Node<DeclarationSpecifier>]) -> bool {
    spec.iter().any(|s| {
        matches!(&s.node, DeclarationSpecifier::TypeSpecifier(t) if t.node == TypeSpecifier::Void)
    })
}

fn callee_name(call: &CallExpression) -> Option<&str> {
    match &call.callee.node {
        Expression::Identifier(id) => Some(&id.node.name),
        _ => None,
    }
}

fn string_literal(e: &Node<Expression>) -> Option<String> {
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
fn error_label_number(name: &str) -> Option<u32> {
    name.strip_prefix("error_")?.parse().ok()
}

/// SV-COMP `reach_error_17()` → 17.
fn error_call_number(name: &str) -> Option<u32> {
    name.strip_prefix("reach_error_")?.parse().ok()
}

fn constant_value(c: &c::Constant) -> Option<i32> {
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

fn binop(op: &BinaryOperator) -> Option<BinOp> {
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

fn place_value(p: &Place) -> Expr {
    match p {
        Place::Global(g) => Expr::Global(*g),
        Place::Local(l) => Expr::Local(*l),
        Place::Index(a, i) => Expr::Index(*a, Box::new(i.clone())),
    }
}

/// The body of the first `while (1)` loop in `main`.
fn find_main_loop(s: &Node<Statement>) -> Option<&Node<Statement>> {
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
fn collect_input_comparisons(s: &Node<Statement>, out: &mut BTreeSet<i32>) {
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
fn collect_output_values(
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
