//! Java programs read through tree-sitter's parse into the checker's
//! [`Program`](super::syntax::Program): the fields of the class that has
//! `calculateOutput(String input)`, and that method with every method it
//! calls. Nothing here shares code with rigor's own Java front end; the
//! two agree only on what the certificate format says (`$init` arrays,
//! string numbers).
//!
//! What it reads: fields of type `int`, `boolean`, `String` and arrays of
//! them; `if`/`else`, blocks, local variables, assignments (compound ones
//! and `++`/`--` spelt out), calls of the class's methods, `return`,
//! `System.out.println("X")`, `Errors.__VERIFIER_error(N)` (the step ends
//! at error N) and `throw new IllegalArgumentException(...)` (an invalid
//! input: the run goes on from the state as it is). Strings are compared
//! with `.equals` only. Anything else the step reaches is a located error.

use std::collections::{HashMap, HashSet};

mod expr;

use tree_sitter::{Node, Parser};

use super::syntax::{
    At, Binary, Expr, Function, Global, GlobalInit, Place, Program, Stmt, Symbols, Unary,
};
use super::ReadError;
use expr::{arithmetic, binary_op};

/// The step's name in every RERS Java program.
const STEP: &str = "calculateOutput";

/// Stack for the lowering thread: the rules nest deeply.
const STACK_BYTES: usize = 256 << 20;

/// A value's type, as far as the checker tells them apart.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Ty {
    Int,
    Bool,
    Str,
    Array(Elem),
}

/// An array's element type.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Elem {
    Int,
    Bool,
    Str,
}

impl Elem {
    fn ty(self) -> Ty {
        match self {
            Elem::Int => Ty::Int,
            Elem::Bool => Ty::Bool,
            Elem::Str => Ty::Str,
        }
    }
}

/// A field: its type, and for an array whether it is a reference the
/// class reassigns (then its storage is the global `name$init`, or the
/// array it was initialised with).
#[derive(Clone, Debug)]
struct Field {
    ty: Ty,
    reference: bool,
}

/// Reads the Java program at `path`. `strings` numbers string literals
/// (the certificate's `string` lines); a literal without a number gets
/// one of its own above them. Without `strings`, a program that uses
/// strings cannot be read (the certificate's values would mean nothing).
pub fn read(path: &str, strings: &[(i64, String)]) -> Result<Program, ReadError> {
    let text = std::fs::read_to_string(path).map_err(|e| ReadError::Program {
        what: format!("{path}: {e}"),
    })?;
    let (path, strings) = (path.to_string(), strings.to_vec());
    std::thread::Builder::new()
        .stack_size(STACK_BYTES)
        .spawn(move || read_text(&path, &text, &strings))
        .map_err(|e| ReadError::Program {
            what: format!("cannot start the Java reader: {e}"),
        })?
        .join()
        .unwrap_or_else(|_| {
            Err(ReadError::Program {
                what: "the Java reader failed".into(),
            })
        })
}

/// [`read`] on the text of the file.
pub fn read_text(path: &str, text: &str, strings: &[(i64, String)]) -> Result<Program, ReadError> {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_java::LANGUAGE.into())
        .map_err(|e| ReadError::Program {
            what: format!("the Java grammar: {e}"),
        })?;
    let tree = parser.parse(text, None).ok_or_else(|| ReadError::Program {
        what: format!("{path}: not parsed"),
    })?;
    let mut r = Reader::new(path, text, strings)?;
    let root = tree.root_node();
    if root.has_error() {
        return Err(r.at(root, "a syntax error"));
    }
    let class = find_class(root, text).ok_or_else(|| ReadError::At {
        file: path.to_string(),
        at: At::default(),
        what: format!("no class with a method `{STEP}`"),
    })?;
    let body = class
        .child_by_field_name("body")
        .ok_or_else(|| r.at(class, "a class without a body"))?;
    let members: Vec<Node> = named(body).collect();
    let mut methods: HashMap<&str, Vec<Node>> = HashMap::new();
    for m in &members {
        if m.kind() == "method_declaration" {
            let name = r.text(r.field(*m, "name")?);
            methods.entry(name).or_default().push(*m);
        }
    }
    r.methods = methods.keys().map(|s| s.to_string()).collect();
    let reassigned = wholly_assigned(body, text);
    let mut program = Program {
        symbols: Symbols::Strings,
        step: STEP.to_string(),
        ..Program::default()
    };
    for m in members.iter().filter(|m| m.kind() == "field_declaration") {
        r.fields_of(*m, &reassigned, &mut program.globals)?;
    }
    let mut wanted = vec![STEP.to_string()];
    while let Some(name) = wanted.pop() {
        if program.functions.contains_key(&name) {
            continue;
        }
        let m = match methods.get(name.as_str()).map(Vec::as_slice) {
            Some([m]) => *m,
            Some(_) => return Err(r.at(class, &format!("`{name}` is overloaded"))),
            None => return Err(r.at(class, &format!("no method `{name}`"))),
        };
        let f = r.method(m)?;
        f.body.calls(&mut wanted);
        program.functions.insert(name, f);
    }
    if r.used_strings && strings.is_empty() {
        return Err(ReadError::Program {
            what: format!(
                "{path}: the program compares strings, and the certificate does not say which \
                 string each number stands for"
            ),
        });
    }
    let mut texts = vec![String::new(); r.next_string.max(0) as usize];
    for (s, &id) in &r.numbered {
        if let Some(slot) = usize::try_from(id).ok().and_then(|k| texts.get_mut(k)) {
            *slot = s.clone();
        }
    }
    program.strings = texts;
    Ok(program)
}

/// The class of the file that declares the step.
fn find_class<'t>(root: Node<'t>, text: &str) -> Option<Node<'t>> {
    named(root)
        .filter(|c| c.kind() == "class_declaration")
        .find(|c| {
            c.child_by_field_name("body").is_some_and(|b| {
                named(b).any(|m| {
                    m.kind() == "method_declaration"
                        && m.child_by_field_name("name")
                            .is_some_and(|n| n.utf8_text(text.as_bytes()) == Ok(STEP))
                })
            })
        })
}

/// The names assigned as a whole (`x = ...`, `this.x = ...`) anywhere in
/// `n`: array fields among them are references.
fn wholly_assigned(n: Node, text: &str) -> HashSet<String> {
    let mut out = HashSet::new();
    let mut stack = vec![n];
    while let Some(n) = stack.pop() {
        if n.kind() == "assignment_expression" {
            let left = n.child_by_field_name("left");
            let name = match left.map(|l| (l.kind(), l)) {
                Some(("identifier", l)) => Some(l),
                Some(("field_access", l)) => l.child_by_field_name("field"),
                _ => None,
            };
            if let Some(Ok(name)) = name.map(|x| x.utf8_text(text.as_bytes())) {
                out.insert(name.to_string());
            }
        }
        stack.extend(named(n));
    }
    out
}

/// The named children of `n` that are not comments.
fn named(n: Node) -> impl Iterator<Item = Node> {
    let mut c = n.walk();
    let v: Vec<Node> = (n.named_children(&mut c))
        .filter(|x| !matches!(x.kind(), "line_comment" | "block_comment"))
        .collect();
    v.into_iter()
}

/// The reader's state while it lowers one file.
struct Reader<'a> {
    path: &'a str,
    text: &'a str,
    fields: HashMap<String, Field>,
    /// The class's method names.
    methods: HashSet<String>,
    /// Locals and parameters of the method being read, innermost last.
    locals: Vec<(String, Ty)>,
    /// Each string's number.
    numbered: HashMap<String, i32>,
    /// The number the next string without one gets.
    next_string: i32,
    /// Whether a string was met.
    used_strings: bool,
}

impl<'a> Reader<'a> {
    fn new(path: &'a str, text: &'a str, strings: &[(i64, String)]) -> Result<Self, ReadError> {
        let mut numbered = HashMap::new();
        let mut next_string = 0i32;
        for (id, s) in strings {
            let id = i32::try_from(*id).map_err(|_| ReadError::Program {
                what: format!("string number {id} is beyond 32 bits"),
            })?;
            if numbered.values().any(|&k| k == id) || numbered.insert(s.clone(), id).is_some() {
                return Err(ReadError::Program {
                    what: format!("string number {id} or string `{s}` given twice"),
                });
            }
            next_string = next_string.max(id.saturating_add(1));
        }
        Ok(Reader {
            path,
            text,
            fields: HashMap::new(),
            methods: HashSet::new(),
            locals: Vec::new(),
            numbered,
            next_string,
            used_strings: false,
        })
    }

    fn text(&self, n: Node) -> &'a str {
        n.utf8_text(self.text.as_bytes()).unwrap_or("")
    }

    /// An error at `n`.
    fn at(&self, n: Node, what: &str) -> ReadError {
        let p = n.start_position();
        ReadError::At {
            file: self.path.to_string(),
            at: At {
                line: p.row as u32 + 1,
                col: p.column as u32 + 1,
            },
            what: what.to_string(),
        }
    }

    fn unsupported(&self, n: Node, what: &str) -> ReadError {
        let snippet: String = self.text(n).chars().take(40).collect();
        self.at(n, &format!("{what} (`{}`)", snippet.replace('\n', " ")))
    }

    fn field(&self, n: Node<'a>, name: &str) -> Result<Node<'a>, ReadError> {
        n.child_by_field_name(name)
            .ok_or_else(|| self.unsupported(n, &format!("no {name}")))
    }

    /// The number of the string `s`.
    fn string(&mut self, s: &str) -> i32 {
        self.used_strings = true;
        if let Some(&id) = self.numbered.get(s) {
            return id;
        }
        let id = self.next_string;
        self.next_string = self.next_string.saturating_add(1);
        self.numbered.insert(s.to_string(), id);
        id
    }

    /// The type a type node names, with `dims` array dimensions added.
    fn ty(&self, n: Node, dims: bool) -> Option<Ty> {
        let (base, dims) = match n.kind() {
            "array_type" => (n.child_by_field_name("element")?, true),
            _ => (n, dims),
        };
        let elem = match self.text(base) {
            "int" => Elem::Int,
            "boolean" => Elem::Bool,
            "String" => Elem::Str,
            _ => return None,
        };
        Some(if dims { Ty::Array(elem) } else { elem.ty() })
    }

    /// The globals a field declaration declares, appended to `globals`.
    /// Fields of other types are left out (the step may not use them).
    fn fields_of(
        &mut self,
        d: Node<'a>,
        reassigned: &HashSet<String>,
        globals: &mut Vec<Global>,
    ) -> Result<(), ReadError> {
        let ty_node = self.field(d, "type")?;
        let mut c = d.walk();
        let declarators: Vec<Node> = d.children_by_field_name("declarator", &mut c).collect();
        for decl in declarators {
            let name = self.text(self.field(decl, "name")?).to_string();
            let dims = decl.child_by_field_name("dimensions").is_some();
            let Some(ty) = self.ty(ty_node, dims) else {
                continue;
            };
            if self.fields.contains_key(&name) {
                return Err(self.at(decl, &format!("field `{name}` declared twice")));
            }
            let value = decl.child_by_field_name("value");
            let reference = matches!(ty, Ty::Array(_)) && reassigned.contains(&name);
            match (ty, value) {
                (Ty::Array(elem), Some(v)) if v.kind() == "array_initializer" => {
                    let mut init = Vec::new();
                    for item in named(v) {
                        init.push(self.constant(item, elem.ty())?);
                    }
                    if reference {
                        let store = format!("{name}$init");
                        globals.push(Global {
                            name: store.clone(),
                            init: GlobalInit::Array(init),
                        });
                        globals.push(Global {
                            name: name.clone(),
                            init: GlobalInit::Pointer(store),
                        });
                    } else {
                        globals.push(Global {
                            name: name.clone(),
                            init: GlobalInit::Array(init),
                        });
                    }
                }
                (Ty::Array(_), Some(v)) if v.kind() == "identifier" => {
                    let target = self.text(v);
                    let store = match self.fields.get(target) {
                        Some(f) if f.ty == ty && !f.reference => target.to_string(),
                        Some(f) if f.ty == ty => (globals.iter())
                            .find_map(|g| match &g.init {
                                GlobalInit::Pointer(s) if g.name == target => Some(s.clone()),
                                _ => None,
                            })
                            .ok_or_else(|| self.at(v, "an array reference without storage"))?,
                        _ => {
                            return Err(
                                self.at(v, &format!("`{target}` is no array field of this type"))
                            )
                        }
                    };
                    globals.push(Global {
                        name: name.clone(),
                        init: GlobalInit::Pointer(store),
                    });
                    self.fields.insert(
                        name,
                        Field {
                            ty,
                            reference: true,
                        },
                    );
                    continue;
                }
                (Ty::Array(_), _) => {
                    return Err(self.unsupported(decl, "an array field without `{...}`"))
                }
                (Ty::Str, None) => {
                    return Err(self.unsupported(decl, "a String field that is null"))
                }
                (_, v) => {
                    let init = match v {
                        Some(v) => self.constant(v, ty)?,
                        None => 0,
                    };
                    globals.push(Global {
                        name: name.clone(),
                        init: GlobalInit::Scalar(init),
                    });
                }
            }
            self.fields.insert(name, Field { ty, reference });
        }
        Ok(())
    }

    /// The value of a constant initialiser of type `ty`.
    fn constant(&mut self, n: Node<'a>, ty: Ty) -> Result<i32, ReadError> {
        let (e, t) = self.expr(n)?;
        match (e, t == ty) {
            (Expr::Const(v), true) => Ok(v),
            (Expr::Unary(Unary::Neg, e), true) => match *e {
                Expr::Const(v) => Ok(v.wrapping_neg()),
                _ => Err(self.unsupported(n, "an initialiser that is no constant")),
            },
            _ => Err(self.unsupported(n, "an initialiser that is no constant of the field's type")),
        }
    }

    /// A method: its parameters and body.
    fn method(&mut self, m: Node<'a>) -> Result<Function, ReadError> {
        self.locals.clear();
        let mut params = Vec::new();
        for p in named(self.field(m, "parameters")?) {
            let name = self.text(self.field(p, "name")?).to_string();
            let ty = self
                .ty(self.field(p, "type")?, false)
                .ok_or_else(|| self.unsupported(p, "a parameter of this type"))?;
            self.locals.push((name.clone(), ty));
            params.push(name);
        }
        let body = self.stmt(self.field(m, "body")?)?;
        Ok(Function { params, body })
    }

    fn pos(&self, n: Node) -> At {
        let p = n.start_position();
        At {
            line: p.row as u32 + 1,
            col: p.column as u32 + 1,
        }
    }

    fn stmt(&mut self, n: Node<'a>) -> Result<Stmt, ReadError> {
        Ok(match n.kind() {
            "block" => {
                let scope = self.locals.len();
                let mut out = Vec::new();
                for s in named(n) {
                    out.push(self.stmt(s)?);
                }
                self.locals.truncate(scope);
                Stmt::Block(out)
            }
            "if_statement" => {
                let cond = self.bool_expr(self.field(n, "condition")?)?;
                let then = self.stmt(self.field(n, "consequence")?)?;
                let other = match n.child_by_field_name("alternative") {
                    Some(a) => self.stmt(a)?,
                    None => Stmt::Skip,
                };
                Stmt::If(cond, Box::new(then), Box::new(other))
            }
            "expression_statement" => {
                let e = named(n)
                    .next()
                    .ok_or_else(|| self.unsupported(n, "an empty expression statement"))?;
                self.effect(e)?
            }
            "local_variable_declaration" => {
                let ty_node = self.field(n, "type")?;
                let mut c = n.walk();
                let declarators: Vec<Node> =
                    n.children_by_field_name("declarator", &mut c).collect();
                let mut out = Vec::new();
                for d in declarators {
                    let name = self.text(self.field(d, "name")?).to_string();
                    let ty = (self.ty(ty_node, false))
                        .filter(|t| !matches!(t, Ty::Array(_)))
                        .ok_or_else(|| self.unsupported(d, "a local of this type"))?;
                    let init = match d.child_by_field_name("value") {
                        Some(v) => Some(self.typed(v, ty)?),
                        None => None,
                    };
                    self.locals.push((name.clone(), ty));
                    out.push(Stmt::Local(name, init));
                }
                Stmt::Block(out)
            }
            "return_statement" => match named(n).next() {
                Some(e) => Stmt::Return(Some(self.expr(e)?.0)),
                None => Stmt::Return(None),
            },
            "throw_statement" => {
                let thrown = named(n).next();
                let class = (thrown.filter(|t| t.kind() == "object_creation_expression"))
                    .and_then(|t| t.child_by_field_name("type"))
                    .map(|t| self.text(t));
                if class != Some("IllegalArgumentException") {
                    return Err(
                        self.unsupported(n, "a throw of anything but IllegalArgumentException")
                    );
                }
                Stmt::Throw
            }
            _ => return Err(self.unsupported(n, "a statement the checker does not read")),
        })
    }

    /// An expression statement.
    fn effect(&mut self, e: Node<'a>) -> Result<Stmt, ReadError> {
        let at = self.pos(e);
        match e.kind() {
            "assignment_expression" => {
                let left = self.field(e, "left")?;
                let right = self.field(e, "right")?;
                let op = self.text(self.field(e, "operator")?);
                let (place, ty) = self.place(left)?;
                let value = match (op, ty) {
                    ("=", Ty::Array(_)) => self.array_value(right, ty)?,
                    ("=", _) => self.typed(right, ty)?,
                    (_, Ty::Int) => {
                        let op = binary_op(op.trim_end_matches('='))
                            .filter(|b| arithmetic(*b))
                            .ok_or_else(|| self.unsupported(e, "this compound assignment"))?;
                        let old = self.place_value(&place);
                        Expr::Binary(op, Box::new(old), Box::new(self.typed(right, Ty::Int)?))
                    }
                    _ => return Err(self.unsupported(e, "a compound assignment of no int")),
                };
                Ok(Stmt::Assign(place, value, at))
            }
            "update_expression" => {
                let text = self.text(e);
                let operand = named(e)
                    .next()
                    .ok_or_else(|| self.unsupported(e, "no operand"))?;
                let (place, ty) = self.place(operand)?;
                if ty != Ty::Int {
                    return Err(self.unsupported(e, "`++` or `--` of no int"));
                }
                let op = if text.contains("++") {
                    Binary::Add
                } else {
                    Binary::Sub
                };
                let old = self.place_value(&place);
                Ok(Stmt::Assign(
                    place,
                    Expr::Binary(op, Box::new(old), Box::new(Expr::Const(1))),
                    at,
                ))
            }
            "method_invocation" => self.call(e),
            _ => Err(self.unsupported(e, "an expression statement the checker does not read")),
        }
    }

    /// A call as a statement.
    fn call(&mut self, e: Node<'a>) -> Result<Stmt, ReadError> {
        let at = self.pos(e);
        let name = self.text(self.field(e, "name")?);
        let object = e.child_by_field_name("object").map(|o| self.text(o));
        let args: Vec<Node> = named(self.field(e, "arguments")?).collect();
        match (object, name, args.as_slice()) {
            (Some("System.out"), "println", [a]) if a.kind() == "string_literal" => {
                let s = self.string_literal(*a)?;
                Ok(Stmt::Output(Expr::Const(self.string(&s))))
            }
            (Some("Errors"), "__VERIFIER_error", [a]) => match self.typed(*a, Ty::Int)? {
                Expr::Const(n) if n >= 0 => Ok(Stmt::Error(n as u32)),
                _ => Err(self.unsupported(e, "an error label that is no constant")),
            },
            (None | Some("this"), f, _) if self.methods.contains(f) => {
                let mut values = Vec::new();
                for a in args {
                    values.push(self.expr(a)?.0);
                }
                Ok(Stmt::Call(f.to_string(), values, at))
            }
            _ => Err(self.unsupported(e, "a call the checker does not read")),
        }
    }

    /// The type of the variable `name`: a local, else a field.
    fn lookup(&self, n: Node, name: &str) -> Result<(Ty, bool), ReadError> {
        if let Some((_, t)) = self.locals.iter().rev().find(|(l, _)| l == name) {
            return Ok((*t, false));
        }
        match self.fields.get(name) {
            Some(f) => Ok((f.ty, f.reference)),
            None => Err(self.at(n, &format!("unknown variable `{name}`"))),
        }
    }

    /// The name an identifier or `this.x` names.
    fn name_of(&self, n: Node<'a>) -> Option<&'a str> {
        match n.kind() {
            "identifier" => Some(self.text(n)),
            "field_access" if n.child_by_field_name("object").map(|o| o.kind()) == Some("this") => {
                n.child_by_field_name("field").map(|f| self.text(f))
            }
            _ => None,
        }
    }

    /// Where an assignment stores, and the type stored.
    fn place(&mut self, n: Node<'a>) -> Result<(Place, Ty), ReadError> {
        if let Some(name) = self.name_of(n) {
            let (ty, reference) = self.lookup(n, name)?;
            if matches!(ty, Ty::Array(_)) && !reference {
                return Err(self.at(n, &format!("`{name}` is assigned, and is no reference")));
            }
            return Ok((Place::Name(name.to_string()), ty));
        }
        if n.kind() == "array_access" {
            let (array, elem) = self.array(self.field(n, "array")?)?;
            let index = self.typed(self.field(n, "index")?, Ty::Int)?;
            return Ok((Place::Index(array, index), elem.ty()));
        }
        Err(self.unsupported(n, "an assignment to this"))
    }

    fn place_value(&self, p: &Place) -> Expr {
        match p {
            Place::Name(n) => Expr::Name(n.clone()),
            Place::Index(a, i) => Expr::Index(Box::new(Expr::Name(a.clone())), Box::new(i.clone())),
        }
    }

    /// An array field named by `n`, and its element type.
    fn array(&self, n: Node<'a>) -> Result<(String, Elem), ReadError> {
        let name = self
            .name_of(n)
            .ok_or_else(|| self.unsupported(n, "an array that is no field"))?;
        match self.lookup(n, name)? {
            (Ty::Array(e), _) => Ok((name.to_string(), e)),
            _ => Err(self.at(n, &format!("`{name}` is no array"))),
        }
    }

    /// The value stored by `x = right` where `x` is an array reference:
    /// the array `right` names.
    fn array_value(&mut self, right: Node<'a>, ty: Ty) -> Result<Expr, ReadError> {
        let name = self
            .name_of(right)
            .ok_or_else(|| self.unsupported(right, "an array value that is no field"))?;
        match self.lookup(right, name)? {
            (t, true) if t == ty => Ok(Expr::Name(name.to_string())),
            (t, false) if t == ty => Ok(Expr::ArrayRef(name.to_string())),
            _ => Err(self.at(right, &format!("`{name}` is no array of the same type"))),
        }
    }
}
