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

mod expr;
mod fields;
mod stmt;

use tree_sitter::{Node, Parser};

use super::lower::{self, invalid_file, on_big_stack, Locals, Result};
use crate::ir::{self, BinOp, Expr, FuncId, GlobalId, GlobalKind, Loc, LocalId};
use crate::ir::{ScalarTy, StepReturn, UnOp};

/// Parses and lowers the Java program `text` read from `path`.
pub fn parse_java(path: &str, text: &str) -> Result<ir::Program> {
    if text.trim().is_empty() {
        return Err(invalid_file(
            path,
            "empty file, expected a RERS Java program",
        ));
    }
    lower::check_nesting(path, text)?;
    let path_owned = path.to_string();
    let text_owned = text.to_string();
    on_big_stack(path, "Java front end", move || {
        parse_on_this_thread(&path_owned, &text_owned)
    })
}

fn parse_on_this_thread(path: &str, text: &str) -> Result<ir::Program> {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_java::LANGUAGE.into())
        .map_err(|e| internal(path, format!("Java grammar: {e}")))?;
    let tree = parse_bounded(&mut parser, path, text)?;
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
        return Err(lower::syntax(
            path,
            p.row as u32 + 1,
            p.column as u32 + 1,
            what,
        ));
    }
    Lowerer::new(path, text).lower(root)
}

/// How long the Java parser may take: [`PARSE_LIMIT`] plus
/// [`PARSE_LIMIT_PER_MB`] per megabyte of text. RERS programs parse in a
/// second or two (the 2.7 MB 2019 LTL Problem5 in about 3 s on a loaded
/// machine, so a flat bound would make loading depend on the load); the
/// parser's error recovery can take many seconds on a broken file (up to
/// 11 s on 200 KB of mutated RERS Java, found by the fuzzer), and such a
/// file is refused anyway.
const PARSE_LIMIT: std::time::Duration = std::time::Duration::from_secs(5);

/// See [`PARSE_LIMIT`].
const PARSE_LIMIT_PER_MB: std::time::Duration = std::time::Duration::from_secs(4);

/// Parses `text`, giving up with an error after the time its size allows
/// ([`PARSE_LIMIT`]).
fn parse_bounded(parser: &mut Parser, path: &str, text: &str) -> Result<tree_sitter::Tree> {
    let start = std::time::Instant::now();
    let bytes = text.as_bytes();
    let limit = PARSE_LIMIT + PARSE_LIMIT_PER_MB.mul_f64(bytes.len() as f64 / 1e6);
    let mut give_up = |_: &tree_sitter::ParseState| start.elapsed() > limit;
    let options = tree_sitter::ParseOptions::new().progress_callback(&mut give_up);
    let tree = parser.parse_with_options(
        &mut |i: usize, _| &bytes[i.min(bytes.len())..],
        None,
        Some(options),
    );
    tree.ok_or_else(|| {
        invalid_file(
            path,
            format!(
                "the Java parser gave up after {:.0} s (a malformed file)",
                limit.as_secs_f64()
            ),
        )
    })
}

/// An internal error of the parser on `path`.
fn internal(path: &str, message: String) -> super::FrontendError {
    super::FrontendError::Internal {
        at: crate::source::Location::file(path),
        message,
    }
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
    locals: Locals<(LocalId, Ty)>,
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
            locals: Locals::default(),
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
        Err(lower::invalid(self.file, self.loc(n), msg))
    }

    fn unsupported<T>(&self, n: Node, what: &str) -> Result<T> {
        Err(lower::unsupported(self.file, self.loc(n), "Java", what))
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
                invalid_file(
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
            return Err(invalid_file(
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
                return Err(invalid_file(
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
            return Err(invalid_file(self.file, "the `inputs` array is empty"));
        }
        Ok(out)
    }
}

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
        Expr::Binary(op, a, b) => op.eval(fold(a)?, fold(b)?),
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
mod tests;
