//! The Java front end: RERS Java programs (sequential 2017-2019 and the 2019
//! industrial problems), parsed with `tree-sitter-java` and lowered into the
//! [`crate::ir`] exactly as the C front end lowers the C versions.
//!
//! The system is `calculateOutput(String input)` run on the fields of the
//! one class of the file:
//! - fields of type `int`, `boolean`, `String` (interned: a string value is
//!   its id in [`ir::Program::strings`], so `.equals` is integer equality),
//!   `int[]`, `boolean[]` and `String[]` (Java arrays are references: an
//!   array field that is initialised with another array field or assigned as
//!   a whole becomes an [`GlobalKind::Pointer`]);
//! - the input alphabet is the `inputs` array of strings, the output
//!   alphabet the strings printed by `System.out.println("X")`;
//! - `Errors.__VERIFIER_error(N)` ends the step as error N, whatever
//!   `Errors.java` does; `throw new IllegalArgumentException(...)` ends it as
//!   an invalid input;
//! - `main` and every method that `calculateOutput` does not call are
//!   ignored (some copies have a rewritten `main`).
//!
//! Arithmetic is Java's: 32-bit wrapping, `/` and `%` truncating (the IR's).
//! Anything else in the reachable code is an error naming `file:line:col`
//! and the construct: the front end never guesses.

use std::collections::{BTreeSet, HashMap, HashSet};

use tree_sitter::{Node, Parser};

use crate::error::{Error, Result};
use crate::ir::{self, ArrayRef, BinOp, Expr, FuncId, GlobalId, GlobalKind, Loc, LocalId};
use crate::ir::{Place, ScalarTy, StepReturn, Stmt, UnOp};

/// Stack size for the lowering thread: generated code nests deeply.
const LOWER_STACK: usize = 1 << 30;

/// Parses and lowers the Java program `text` read from `path`.
pub fn parse_java(path: &str, text: &str) -> Result<ir::Program> {
    if text.trim().is_empty() {
        return Err(Error::file(
            path,
            "empty file, expected a RERS Java program",
        ));
    }
    let path_owned = path.to_string();
    let text_owned = text.to_string();
    let handle = std::thread::Builder::new()
        .stack_size(LOWER_STACK)
        .spawn(move || parse_on_this_thread(&path_owned, &text_owned))
        .map_err(|e| Error::file(path, format!("cannot start parser thread: {e}")))?;
    handle.join().unwrap_or_else(|_| {
        Err(Error::file(
            path,
            "internal error: the Java front end panicked",
        ))
    })
}

fn parse_on_this_thread(path: &str, text: &str) -> Result<ir::Program> {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_java::LANGUAGE.into())
        .map_err(|e| Error::file(path, format!("internal error: Java grammar: {e}")))?;
    let tree = parser
        .parse(text, None)
        .ok_or_else(|| Error::file(path, "internal error: the Java parser gave no tree"))?;
    let root = tree.root_node();
    if root.has_error() {
        let bad = first_error(root).unwrap_or(root);
        let p = bad.start_position();
        let what = if bad.is_missing() {
            format!("syntax error: missing `{}`", bad.kind())
        } else {
            let snippet: String = bad
                .utf8_text(text.as_bytes())
                .unwrap_or("")
                .chars()
                .take(40)
                .collect::<String>()
                .replace('\n', " ");
            format!("syntax error near `{snippet}`")
        };
        return Err(Error::at(path, p.row as u32 + 1, p.column as u32 + 1, what));
    }
    Lowerer::new(path, text).lower(root)
}

/// The first ERROR or MISSING node in document order.
fn first_error(n: Node) -> Option<Node> {
    if n.is_error() || n.is_missing() {
        return Some(n);
    }
    if !n.has_error() {
        return None;
    }
    let mut c = n.walk();
    let children: Vec<Node> = n.children(&mut c).collect();
    children.into_iter().find_map(first_error)
}

/// The type of a Java value as far as the lowering tracks it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Ty {
    Int,
    Bool,
    Str,
    /// An array of this element type (a field or its reference).
    Array(ScalarTy),
}

impl Ty {
    fn scalar(t: ScalarTy) -> Ty {
        match t {
            ScalarTy::Int => Ty::Int,
            ScalarTy::Bool => Ty::Bool,
            ScalarTy::Str => Ty::Str,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Ty::Int => "int",
            Ty::Bool => "boolean",
            Ty::Str => "String",
            Ty::Array(ScalarTy::Int) => "int[]",
            Ty::Array(ScalarTy::Bool) => "boolean[]",
            Ty::Array(ScalarTy::Str) => "String[]",
        }
    }
}

/// A field of the class.
#[derive(Clone, Debug)]
enum Field {
    /// A scalar field or an array field, lowered to this global.
    Global(GlobalId, Ty),
    /// A field of a type rigor does not model; an error if the step uses it.
    Unsupported(Loc, String),
}

/// One scope of local variable names.
type Scope = HashMap<String, (LocalId, Ty)>;

/// State of the lowering of one Java file.
struct Lowerer<'a> {
    file: &'a str,
    src: &'a str,
    globals: Vec<ir::Global>,
    fields: HashMap<String, Field>,
    strings: Vec<String>,
    methods: HashMap<String, Vec<Node<'a>>>,
    functions: Vec<Option<ir::Function>>,
    func_ix: HashMap<String, FuncId>,
    /// Parameter types and return type of each lowered function.
    signatures: Vec<(Vec<Ty>, Option<Ty>)>,
    outputs: BTreeSet<String>,
    error_labels: BTreeSet<u32>,
    // Per function being lowered:
    local_names: Vec<String>,
    scopes: Vec<Scope>,
    returns: Option<Ty>,
}

impl<'a> Lowerer<'a> {
    fn new(file: &'a str, src: &'a str) -> Self {
        Lowerer {
            file,
            src,
            globals: Vec::new(),
            fields: HashMap::new(),
            strings: Vec::new(),
            methods: HashMap::new(),
            functions: Vec::new(),
            func_ix: HashMap::new(),
            signatures: Vec::new(),
            outputs: BTreeSet::new(),
            error_labels: BTreeSet::new(),
            local_names: Vec::new(),
            scopes: Vec::new(),
            returns: None,
        }
    }

    fn loc(&self, n: Node) -> Loc {
        let p = n.start_position();
        Loc {
            line: p.row as u32 + 1,
            col: p.column as u32 + 1,
        }
    }

    fn err<T>(&self, n: Node, msg: impl Into<String>) -> Result<T> {
        let l = self.loc(n);
        Err(Error::at(self.file, l.line, l.col, msg))
    }

    fn unsupported<T>(&self, n: Node, what: &str) -> Result<T> {
        self.err(n, format!("unsupported Java construct: {what}"))
    }

    fn text(&self, n: Node) -> &'a str {
        &self.src[n.byte_range()]
    }

    fn field_of(&self, n: Node<'a>, name: &str) -> Result<Node<'a>> {
        match n.child_by_field_name(name) {
            Some(c) => Ok(c),
            None => self.err(n, format!("malformed {}: no {name}", n.kind())),
        }
    }

    fn lower(mut self, root: Node<'a>) -> Result<ir::Program> {
        let classes: Vec<Node> = named(root)
            .filter(|n| n.kind() == "class_declaration")
            .collect();
        for n in named(root) {
            match n.kind() {
                "class_declaration" | "import_declaration" | "package_declaration" => {}
                k => return self.unsupported(n, &format!("top-level {k}")),
            }
        }
        // The RERS class is the one with `calculateOutput`.
        let class = classes
            .iter()
            .copied()
            .find(|c| {
                c.child_by_field_name("body").is_some_and(|b| {
                    named(b).any(|m| {
                        m.kind() == "method_declaration"
                            && m.child_by_field_name("name").map(|x| self.text(x))
                                == Some("calculateOutput")
                    })
                })
            })
            .ok_or_else(|| {
                Error::file(
                    self.file,
                    "not a RERS program: no class with a `calculateOutput(String input)` method",
                )
            })?;
        let body = self.field_of(class, "body")?;
        let wholly_assigned = self.wholly_assigned_names(body);
        for member in named(body) {
            match member.kind() {
                "field_declaration" => self.field_declaration(member, &wholly_assigned)?,
                "method_declaration" => {
                    let name = self.text(self.field_of(member, "name")?).to_string();
                    self.methods.entry(name).or_default().push(member);
                }
                _ => {} // constructors, nested classes, initialisers: not part of the step
            }
        }
        let step = self.method_id("calculateOutput", class, true)?;
        if self.error_labels.is_empty() && self.outputs.is_empty() {
            return Err(Error::file(
                self.file,
                "not a RERS program: the step has neither outputs nor error labels",
            ));
        }
        let inputs = self.input_alphabet()?;
        let outputs = self
            .outputs
            .iter()
            .map(|s| ir::Symbol {
                name: s.clone(),
                value: ir::intern(&mut self.strings, s),
            })
            .collect();
        let functions = self
            .functions
            .into_iter()
            .map(|f| f.expect("every method body is lowered before use"))
            .collect();
        Ok(ir::Program {
            source: self.file.to_string(),
            language: ir::Language::Java,
            globals: self.globals,
            strings: self.strings,
            functions,
            step,
            step_return: StepReturn::Void,
            inputs,
            outputs,
            error_labels: self.error_labels.into_iter().collect(),
        })
    }

    /// The input alphabet: the strings of the `inputs` array, in its order.
    fn input_alphabet(&mut self) -> Result<Vec<ir::Symbol>> {
        let g = match self.fields.get("inputs") {
            Some(Field::Global(g, Ty::Array(ScalarTy::Str))) => *g,
            _ => {
                return Err(Error::file(
                    self.file,
                    "cannot determine the input alphabet: no `String[] inputs = {...}` field",
                ))
            }
        };
        let init = match &self.globals[g.0 as usize].kind {
            GlobalKind::Array { init, .. } => init.clone(),
            _ => Vec::new(),
        };
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        for v in init {
            if seen.insert(v) {
                out.push(ir::Symbol {
                    name: self.strings[v as usize].clone(),
                    value: v,
                });
            }
        }
        if out.is_empty() {
            return Err(Error::file(self.file, "the `inputs` array is empty"));
        }
        Ok(out)
    }

    // ----- fields --------------------------------------------------------

    /// Names assigned as a whole (`x = ...`) anywhere in the class: array
    /// fields among them are references that change.
    fn wholly_assigned_names(&self, n: Node<'a>) -> HashSet<String> {
        let mut out = HashSet::new();
        let mut stack = vec![n];
        while let Some(n) = stack.pop() {
            if n.kind() == "assignment_expression" {
                if let Some(l) = n.child_by_field_name("left") {
                    match l.kind() {
                        "identifier" => {
                            out.insert(self.text(l).to_string());
                        }
                        "field_access" => {
                            if let Some(f) = l.child_by_field_name("field") {
                                out.insert(self.text(f).to_string());
                            }
                        }
                        _ => {}
                    }
                }
            }
            stack.extend(named(n));
        }
        out
    }

    fn field_declaration(&mut self, d: Node<'a>, wholly_assigned: &HashSet<String>) -> Result<()> {
        let constant = named(d)
            .find(|c| c.kind() == "modifiers")
            .is_some_and(|m| self.text(m).split_whitespace().any(|w| w == "final"));
        let ty_node = self.field_of(d, "type")?;
        let base = self.type_of(ty_node);
        let mut c = d.walk();
        let declarators: Vec<Node> = d.children_by_field_name("declarator", &mut c).collect();
        for decl in declarators {
            let name = self.text(self.field_of(decl, "name")?).to_string();
            let loc = self.loc(decl);
            if self.fields.contains_key(&name) {
                return self.err(decl, format!("field `{name}` declared twice"));
            }
            let ty = match (base, decl.child_by_field_name("dimensions")) {
                (Some(Ty::Int), Some(_)) => Some(Ty::Array(ScalarTy::Int)),
                (Some(Ty::Bool), Some(_)) => Some(Ty::Array(ScalarTy::Bool)),
                (Some(Ty::Str), Some(_)) => Some(Ty::Array(ScalarTy::Str)),
                (_, Some(_)) => None,
                (t, None) => t,
            };
            let Some(ty) = ty else {
                let what = format!("field of type `{}`", self.text(ty_node));
                self.fields.insert(name, Field::Unsupported(loc, what));
                continue;
            };
            let value = decl.child_by_field_name("value");
            let kind = match ty {
                Ty::Int | Ty::Bool | Ty::Str => {
                    let init = match value {
                        None => match ty {
                            Ty::Str => {
                                // A null String: rigor has no null.
                                let what =
                                    "String field without an initial value (null)".to_string();
                                self.fields.insert(name, Field::Unsupported(loc, what));
                                continue;
                            }
                            _ => 0,
                        },
                        Some(v) => self.const_init(v, ty)?,
                    };
                    GlobalKind::Scalar {
                        ty: scalar_of(ty),
                        init,
                    }
                }
                Ty::Array(elem) => {
                    let reassigned = wholly_assigned.contains(&name);
                    match value {
                        Some(v) if v.kind() == "array_initializer" => {
                            let mut init = Vec::new();
                            for item in named(v) {
                                init.push(self.const_init(item, Ty::scalar(elem))?);
                            }
                            if reassigned {
                                // The storage gets its own (hidden) array;
                                // the field is a reference to it.
                                let store = self.push_global(
                                    format!("{name}$init"),
                                    GlobalKind::Array { elem, init },
                                    true,
                                    loc,
                                );
                                GlobalKind::Pointer { init: store }
                            } else {
                                GlobalKind::Array { elem, init }
                            }
                        }
                        Some(v) if v.kind() == "identifier" => {
                            let target = self.text(v);
                            let store = match self.fields.get(target) {
                                Some(Field::Global(g, t)) if *t == ty => match &self.globals[g.0 as usize].kind {
                                    GlobalKind::Array { .. } => *g,
                                    GlobalKind::Pointer { init } => *init,
                                    _ => return self.err(v, format!("`{target}` is not an array")),
                                },
                                _ => {
                                    return self.err(v, format!("`{target}` is not an array field of type {}", ty.name()))
                                }
                            };
                            GlobalKind::Pointer { init: store }
                        }
                        Some(v) => return self.unsupported(v, "array field initialised with something other than `{...}` or an array field"),
                        None => {
                            let what = format!("array field `{name}` without an initial value (null)");
                            self.fields.insert(name, Field::Unsupported(loc, what));
                            continue;
                        }
                    }
                }
            };
            let g = self.push_global(
                name.clone(),
                kind,
                constant && !matches!(ty, Ty::Array(_)),
                loc,
            );
            self.fields.insert(name, Field::Global(g, ty));
        }
        Ok(())
    }

    fn push_global(
        &mut self,
        name: String,
        kind: GlobalKind,
        constant: bool,
        loc: Loc,
    ) -> GlobalId {
        let id = GlobalId(self.globals.len() as u32);
        self.globals.push(ir::Global {
            name,
            kind,
            constant,
            loc,
        });
        id
    }

    /// The scalar type named by a type node (`int`, `boolean`, `String`),
    /// `None` for any other.
    fn type_of(&self, t: Node) -> Option<Ty> {
        match t.kind() {
            "integral_type" if self.text(t) == "int" => Some(Ty::Int),
            "boolean_type" => Some(Ty::Bool),
            "type_identifier" if self.text(t) == "String" => Some(Ty::Str),
            "array_type" => {
                let elem = t.child_by_field_name("element")?;
                let dims = t.child_by_field_name("dimensions")?;
                if self.text(dims).chars().filter(|&c| c == '[').count() != 1 {
                    return None;
                }
                match self.type_of(elem)? {
                    Ty::Int => Some(Ty::Array(ScalarTy::Int)),
                    Ty::Bool => Some(Ty::Array(ScalarTy::Bool)),
                    Ty::Str => Some(Ty::Array(ScalarTy::Str)),
                    Ty::Array(_) => None,
                }
            }
            _ => None,
        }
    }

    /// The value of a field initialiser: a constant expression over
    /// literals and the initial values of fields declared before.
    fn const_init(&mut self, v: Node<'a>, ty: Ty) -> Result<i32> {
        let (e, t) = self.const_expr(v)?;
        if t != ty {
            return self.err(
                v,
                format!("initial value of type {}, expected {}", t.name(), ty.name()),
            );
        }
        Ok(e)
    }

    fn const_expr(&mut self, v: Node<'a>) -> Result<(i32, Ty)> {
        match v.kind() {
            "parenthesized_expression" => self.const_expr(self.only_child(v)?),
            "string_literal" => {
                let s = self.string_value(v)?;
                Ok((ir::intern(&mut self.strings, &s), Ty::Str))
            }
            "identifier" => match self.fields.get(self.text(v)) {
                Some(Field::Global(g, t)) => match &self.globals[g.0 as usize].kind {
                    GlobalKind::Scalar { init, .. } => Ok((*init, *t)),
                    _ => self.unsupported(v, "array used as a value in an initialiser"),
                },
                _ => self.err(
                    v,
                    format!("unknown field `{}` in an initialiser", self.text(v)),
                ),
            },
            _ => {
                // Literals and operators: lower as an expression, then fold.
                let saved = std::mem::take(&mut self.scopes);
                let r = self.expr(v);
                self.scopes = saved;
                let (e, t) = r?;
                match fold(&e) {
                    Some(k) => Ok((k, t)),
                    None => self.unsupported(v, "non-constant field initialiser"),
                }
            }
        }
    }

    fn only_child(&self, n: Node<'a>) -> Result<Node<'a>> {
        match named(n).next() {
            Some(c) => Ok(c),
            None => self.err(n, format!("malformed {}", n.kind())),
        }
    }

    /// The text of a string literal, with the simple escapes decoded.
    fn string_value(&self, n: Node) -> Result<String> {
        let raw = self.text(n);
        if raw.starts_with("\"\"\"")
            || !raw.starts_with('"')
            || !raw.ends_with('"')
            || raw.len() < 2
        {
            return self.unsupported(n, "text block or malformed string literal");
        }
        let inner = &raw[1..raw.len() - 1];
        let mut out = String::new();
        let mut chars = inner.chars();
        while let Some(c) = chars.next() {
            if c != '\\' {
                out.push(c);
                continue;
            }
            match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some('"') => out.push('"'),
                Some('\'') => out.push('\''),
                Some('\\') => out.push('\\'),
                _ => return self.unsupported(n, "string escape other than \\n \\t \\\" \\' \\\\"),
            }
        }
        Ok(out)
    }

    // ----- methods -------------------------------------------------------

    /// Lowers the method `name` (once) and returns its id.
    fn method_id(&mut self, name: &str, at: Node<'a>, is_step: bool) -> Result<FuncId> {
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
        let saved = (
            std::mem::take(&mut self.local_names),
            std::mem::take(&mut self.scopes),
            self.returns.take(),
        );
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
        let mut scope = Scope::new();
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
            scope.insert(pname.clone(), (LocalId(self.local_names.len() as u32), ty));
            self.local_names.push(pname);
            param_tys.push(ty);
        }
        let n_params = self.local_names.len() as u32;
        if is_step && (param_tys != [Ty::Str] || returns.is_some()) {
            return self.err(def, "the step must be `void calculateOutput(String input)`");
        }
        self.signatures[id.0 as usize] = (param_tys, returns);
        self.returns = returns;
        self.scopes.push(scope);
        let body_node = match def.child_by_field_name("body") {
            Some(b) => b,
            None => return self.unsupported(def, "method without a body"),
        };
        let body = self.block(body_node)?;
        let f = ir::Function {
            name: name.to_string(),
            params: n_params,
            locals: self.local_names.len() as u32,
            local_names: std::mem::take(&mut self.local_names),
            returns_value: returns.is_some(),
            body,
            loc: self.loc(def),
        };
        self.functions[id.0 as usize] = Some(f);
        (self.local_names, self.scopes, self.returns) = saved;
        Ok(id)
    }

    // ----- statements ----------------------------------------------------

    fn block(&mut self, b: Node<'a>) -> Result<Vec<Stmt>> {
        let mut out = Vec::new();
        self.statement_into(b, &mut out)?;
        Ok(out)
    }

    fn statement_into(&mut self, s: Node<'a>, out: &mut Vec<Stmt>) -> Result<()> {
        match s.kind() {
            "block" => {
                self.scopes.push(Scope::new());
                for c in named(s) {
                    self.statement_into(c, out)?;
                }
                self.scopes.pop();
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
    fn scoped(&mut self, s: Node<'a>) -> Result<Vec<Stmt>> {
        self.scopes.push(Scope::new());
        let mut out = Vec::new();
        let r = self.statement_into(s, &mut out);
        self.scopes.pop();
        r.map(|_| out)
    }

    fn condition(&mut self, c: Node<'a>) -> Result<Expr> {
        let (e, t) = self.expr(c)?;
        self.expect_ty(c, t, Ty::Bool)?;
        Ok(e)
    }

    fn expect_ty(&self, n: Node, got: Ty, want: Ty) -> Result<()> {
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

    fn local_declaration(&mut self, d: Node<'a>, out: &mut Vec<Stmt>) -> Result<()> {
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
            let id = LocalId(self.local_names.len() as u32);
            self.local_names.push(name.clone());
            self.scopes
                .last_mut()
                .expect("a scope is open")
                .insert(name, (id, ty));
            out.push(Stmt::Assign(Place::Local(id), value, self.loc(decl)));
        }
        Ok(())
    }

    fn expression_statement(&mut self, e: Node<'a>, out: &mut Vec<Stmt>) -> Result<()> {
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

    fn call_statement(&mut self, call: Node<'a>, out: &mut Vec<Stmt>) -> Result<()> {
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
    fn user_call(
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

    // ----- places and expressions ----------------------------------------

    fn lookup_local(&self, name: &str) -> Option<(LocalId, Ty)> {
        self.scopes.iter().rev().find_map(|s| s.get(name).copied())
    }

    fn field(&self, n: Node, name: &str) -> Result<(GlobalId, Ty)> {
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
    fn field_name(&self, n: Node<'a>) -> Option<&'a str> {
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

    fn place(&mut self, n: Node<'a>) -> Result<(Place, Ty)> {
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

    fn array_ref(&self, n: Node<'a>) -> Result<(ArrayRef, ScalarTy)> {
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

    fn expr(&mut self, n: Node<'a>) -> Result<(Expr, Ty)> {
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

// ----- small helpers ------------------------------------------------------

/// The named children of a node, comments left out.
fn named<'t>(n: Node<'t>) -> impl Iterator<Item = Node<'t>> {
    let mut c = n.walk();
    let v: Vec<Node<'t>> = n
        .named_children(&mut c)
        .filter(|x| !matches!(x.kind(), "line_comment" | "block_comment"))
        .collect();
    v.into_iter()
}

fn scalar_of(t: Ty) -> ScalarTy {
    match t {
        Ty::Bool => ScalarTy::Bool,
        Ty::Str => ScalarTy::Str,
        _ => ScalarTy::Int,
    }
}

/// A Java int literal (decimal, hex, octal, binary; `_` separators); `None`
/// for a long literal or a value out of range. `negated`: the literal is the
/// operand of a unary minus (so `2147483648` is allowed).
fn int_literal(text: &str, negated: bool) -> Option<i32> {
    let t: String = text.chars().filter(|&c| c != '_').collect();
    if t.ends_with('l') || t.ends_with('L') {
        return None;
    }
    let lower = t.to_ascii_lowercase();
    let (digits, radix) = if let Some(h) = lower.strip_prefix("0x") {
        (h.to_string(), 16)
    } else if let Some(b) = lower.strip_prefix("0b") {
        (b.to_string(), 2)
    } else if lower.len() > 1 && lower.starts_with('0') {
        (lower[1..].to_string(), 8)
    } else {
        (lower, 10)
    };
    let v = u64::from_str_radix(&digits, radix).ok()?;
    if radix == 10 {
        if negated {
            (v <= 1 << 31).then(|| (v as i64).wrapping_neg() as i32)
        } else {
            i32::try_from(v).ok()
        }
    } else {
        // Hex, octal and binary int literals are 32-bit patterns.
        let v = u32::try_from(v).ok()? as i32;
        Some(if negated { v.wrapping_neg() } else { v })
    }
}

fn binop(op: &str) -> Option<BinOp> {
    Some(match op {
        "+" => BinOp::Add,
        "-" => BinOp::Sub,
        "*" => BinOp::Mul,
        "/" => BinOp::Div,
        "%" => BinOp::Rem,
        "<<" => BinOp::Shl,
        ">>" => BinOp::Shr,
        "&" => BinOp::BitAnd,
        "|" => BinOp::BitOr,
        "^" => BinOp::BitXor,
        "==" => BinOp::Eq,
        "!=" => BinOp::Ne,
        "<" => BinOp::Lt,
        "<=" => BinOp::Le,
        ">" => BinOp::Gt,
        ">=" => BinOp::Ge,
        "&&" => BinOp::LogAnd,
        "||" => BinOp::LogOr,
        _ => return None,
    })
}

fn compound_op(op: &str) -> Option<BinOp> {
    binop(op.strip_suffix('=')?).filter(|o| {
        !matches!(
            o,
            BinOp::Eq
                | BinOp::Ne
                | BinOp::Lt
                | BinOp::Le
                | BinOp::Gt
                | BinOp::Ge
                | BinOp::LogAnd
                | BinOp::LogOr
        )
    })
}

fn place_value(p: &Place) -> Expr {
    match p {
        Place::Global(g) => Expr::Global(*g),
        Place::Local(l) => Expr::Local(*l),
        Place::Index(a, i) => Expr::Index(*a, Box::new(i.clone())),
    }
}

/// Folds a constant expression; `None` if it reads state or divides by zero.
fn fold(e: &Expr) -> Option<i32> {
    match e {
        Expr::Const(k) => Some(*k),
        Expr::Unary(op, a) => {
            let a = fold(a)?;
            Some(match op {
                UnOp::Neg => a.wrapping_neg(),
                UnOp::Not => (a == 0) as i32,
                UnOp::BitNot => !a,
            })
        }
        Expr::Binary(op, a, b) => crate::engine::eval_binop(*op, fold(a)?, fold(b)?),
        Expr::Cond(c, a, b) => {
            if fold(c)? != 0 {
                fold(a)
            } else {
                fold(b)
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lower(src: &str) -> Result<ir::Program> {
        parse_java("T.java", src)
    }

    const SMALL: &str = r#"
public class T {
    private String[] inputs = {"B","A"};
    public String s = "e";
    public int x = 3;
    public int[] arr = {1, 2, 3};
    public int[] ref = arr;
    public boolean cf = true;
    private void errorCheck() {
        if (x == 5 && s.equals("f")) { cf = false; Errors.__VERIFIER_error(7); }
    }
    private void calculateOutputm1(String input) {
        if (cf && input.equals("A")) { cf = false; x = x + ref[1] * 2 / 3 % 7; s = "f"; System.out.println("Y"); }
    }
    public void calculateOutput(String input) {
        cf = true;
        if (cf && s.equals("e")) { calculateOutputm1(input); }
        if (cf && input.equals("B")) { cf = false; x -= 1; System.out.println("Z"); }
        errorCheck();
        if (cf) throw new IllegalArgumentException("Current state has no transition for this input!");
    }
    public static void main(String[] args) { for (;;) { } }
}
"#;

    #[test]
    fn lowers_a_small_program() {
        let p = lower(SMALL).expect("lowers");
        assert_eq!(p.language, ir::Language::Java);
        let ins: Vec<&str> = p.inputs.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(ins, ["B", "A"]);
        let outs: Vec<&str> = p.outputs.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(outs, ["Y", "Z"]);
        assert_eq!(p.error_labels, [7]);
        // Strings are interned once: input and output values are ids.
        for s in p.inputs.iter().chain(&p.outputs) {
            assert_eq!(p.strings[s.value as usize], s.name);
        }
        let names: Vec<&str> = p.functions.iter().map(|f| f.name.as_str()).collect();
        assert!(names.contains(&"calculateOutput") && !names.contains(&"main"));
        let r = p.globals.iter().find(|g| g.name == "ref").expect("ref");
        assert!(matches!(r.kind, GlobalKind::Pointer { .. }));
    }

    #[test]
    fn runs_on_the_engine() {
        let p = lower(SMALL).expect("lowers");
        let m = crate::engine::Machine::compile(&p).expect("compiles");
        let mut sc = m.scratch();
        let s0 = m.initial_state();
        let mut s1 = s0.clone();
        let a = m.input_index("A").unwrap();
        let b = m.input_index("B").unwrap();
        let o = m.step(&mut sc, &s0, a, &mut s1).expect("steps");
        assert_eq!(o, crate::explore::graph::Outcome::Output(0)); // Y
        let mut s2 = s1.clone();
        // s = "f" now: A is invalid, B prints Z.
        let o = m.step(&mut sc, &s1, a, &mut s2).expect("steps");
        assert_eq!(o, crate::explore::graph::Outcome::Invalid);
        let o = m.step(&mut sc, &s1, b, &mut s2).expect("steps");
        assert_eq!(o, crate::explore::graph::Outcome::Output(1));
    }

    #[test]
    fn literals() {
        assert_eq!(int_literal("2147483647", false), Some(i32::MAX));
        assert_eq!(int_literal("2147483648", false), None);
        assert_eq!(int_literal("2147483648", true), Some(i32::MIN));
        assert_eq!(int_literal("0xFFFFFFFF", false), Some(-1));
        assert_eq!(int_literal("1_000", false), Some(1000));
        assert_eq!(int_literal("010", false), Some(8));
        assert_eq!(int_literal("5L", false), None);
    }

    fn error_of(src: &str) -> Error {
        lower(src).expect_err("must be rejected")
    }

    fn wrap(body: &str) -> String {
        format!(
            "public class T {{\n    private String[] inputs = {{\"A\"}};\n    public int x = 0;\n    public void calculateOutput(String input) {{\n{body}\n        System.out.println(\"Y\");\n    }}\n}}\n"
        )
    }

    #[test]
    fn syntax_errors_are_located() {
        let e = error_of(&wrap("        x = ;"));
        assert_eq!(e.line, 5, "{e}");
        assert!(e.col > 0 && e.message.contains("syntax error"), "{e}");
    }

    #[test]
    fn unsupported_constructs_are_located() {
        let cases = [
            ("        for (int i = 0; i < 3; i++) { x++; }", "for loop"),
            ("        switch (x) { default: x = 1; }", "switch"),
            ("        String t = \"a\" + input;", "string concatenation"),
            ("        x = x >>> 1;", "operator `>>>`"),
            (
                "        Object o = null;",
                "local variable of type `Object`",
            ),
            ("        x = (x = 2);", "assignment inside an expression"),
            ("        throw new RuntimeException(\"no\");", "throw"),
            ("        input.length();", "input.length"),
        ];
        for (body, what) in cases {
            let e = error_of(&wrap(body));
            assert_eq!(e.line, 5, "{body}: {e}");
            assert!(e.col >= 9, "{body}: {e}");
            assert!(e.message.contains(what), "{body}: {e}");
        }
    }

    #[test]
    fn missing_step_is_an_error() {
        let e = error_of("public class T { public int x = 1; }");
        assert!(e.message.contains("calculateOutput"), "{e}");
    }

    #[test]
    fn unsupported_field_only_matters_when_used() {
        let ok = wrap("").replace(
            "public int x = 0;",
            "public java.util.List<Integer> l = null;",
        );
        lower(&ok).expect("an unused field of another type is ignored");
        let bad = wrap("        l = null;").replace("public int x = 0;", "public Object l = null;");
        let e = error_of(&bad);
        assert!(e.message.contains("`l`"), "{e}");
    }
}
