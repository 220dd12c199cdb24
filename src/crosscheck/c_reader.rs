//! C programs read through libclang's AST into the checker's
//! [`Program`](super::syntax::Program): clang preprocesses and parses the
//! file (headers, macros such as `assert`, types), and this module lowers
//! the declarations and statements of the step and of every function it
//! calls. Nothing here shares code with rigor's own C front end.

use std::collections::HashMap;
use std::sync::Mutex;

use clang::{Clang, Entity, EntityKind, EvaluationResult, Index, TypeKind};

use super::syntax::{At, Binary, Expr, Function, Global, GlobalInit, Place, Program, Stmt, Unary};
use super::ReadError;

/// The name of the step function in every RERS C program.
const STEP: &str = "calculate_output";

/// The step's name where it is `main`'s loop.
const LOOP_STEP: &str = "main loop";

/// The input's name where the step is `main`'s loop.
const LOOP_INPUT: &str = "input read";

/// The text of a string literal, without its quotes (escapes left as
/// written).
fn literal(e: &Entity) -> Option<String> {
    let e = strip(e);
    if e.get_kind() != EntityKind::StringLiteral {
        return None;
    }
    let text = e.get_display_name()?;
    Some(text.strip_prefix('"')?.strip_suffix('"')?.to_string())
}

/// The body of the loop of `main` (a `while` at its top level).
fn main_loop<'tu>(main: &Entity<'tu>) -> Option<Entity<'tu>> {
    let body =
        (main.get_children().into_iter()).find(|c| c.get_kind() == EntityKind::CompoundStmt)?;
    let w = (body.get_children().into_iter()).find(|c| c.get_kind() == EntityKind::WhileStmt)?;
    w.get_children().into_iter().last()
}

/// libclang allows one `Clang` per process at a time.
static CLANG: Mutex<()> = Mutex::new(());

/// Reads the C program at `path`.
pub fn read(path: &str) -> Result<Program, ReadError> {
    let _one = CLANG.lock().unwrap_or_else(|e| e.into_inner());
    let clang = Clang::new().map_err(ReadError::Clang)?;
    let index = Index::new(&clang, false, false);
    let tu = index
        .parser(path)
        // Strict C99: glibc's `assert` is then a plain `?:` of the
        // condition and `__assert_fail`.
        .arguments(&["-std=c99", "-w"])
        .parse()
        .map_err(|e| ReadError::Clang(format!("{path}: {e}")))?;
    if let Some(d) = (tu.get_diagnostics().into_iter())
        .find(|d| d.get_severity() >= clang::diagnostic::Severity::Error)
    {
        let l = d.get_location().get_file_location();
        return Err(ReadError::At {
            file: path.to_string(),
            at: At {
                line: l.line,
                col: l.column,
            },
            what: d.get_text(),
        });
    }
    let tokens = Tokens::of(&tu.get_entity());
    let mut reader = Reader {
        path,
        tokens,
        label: None,
        arrays: Vec::new(),
        scanf: false,
    };
    let mut program = Program {
        step: STEP.to_string(),
        ..Program::default()
    };
    let mut bodies: HashMap<String, Entity> = HashMap::new();
    for e in tu.get_entity().get_children() {
        if !e.is_in_main_file() {
            continue;
        }
        match e.get_kind() {
            EntityKind::VarDecl => {
                let g = reader.global(&e)?;
                if matches!(g.init, GlobalInit::Array(_)) {
                    reader.arrays.push(g.name.clone());
                }
                program.globals.push(g);
            }
            EntityKind::FunctionDecl if e.is_definition() => {
                if let Some(name) = e.get_name() {
                    bodies.insert(name, e);
                }
            }
            _ => {}
        }
    }
    // Without `calculate_output`, the step is the body of `main`'s loop
    // (the 2014 `_opt` programs), reading its input with `scanf`.
    let mut wanted = Vec::new();
    if !bodies.contains_key(STEP) {
        let main = bodies.get("main").ok_or_else(|| ReadError::At {
            file: path.to_string(),
            at: At::default(),
            what: format!("no `{STEP}` and no `main`"),
        })?;
        let body =
            main_loop(main).ok_or_else(|| reader.unsupported(main, "a `main` without its loop"))?;
        reader.scanf = true;
        let step = reader.stmt(&body)?;
        reader.scanf = false;
        step.calls(&mut wanted);
        program.step = LOOP_STEP.to_string();
        program.functions.insert(
            LOOP_STEP.to_string(),
            Function {
                params: vec![LOOP_INPUT.to_string()],
                body: step,
            },
        );
    } else {
        wanted.push(STEP.to_string());
    }
    // The step and every function it calls, as far as they go.
    while let Some(name) = wanted.pop() {
        if program.functions.contains_key(&name) {
            continue;
        }
        let e = bodies.get(&name).ok_or_else(|| ReadError::At {
            file: path.to_string(),
            at: At::default(),
            what: format!("no definition of `{name}`"),
        })?;
        let f = reader.function(e)?;
        f.body.calls(&mut wanted);
        program.functions.insert(name, f);
    }
    Ok(program)
}

/// The error label a statement label names: `error_N` is N, and
/// `globalError` the 2012 programs' error of no number ([`GLOBAL_ERROR`]).
fn label_number(name: &str) -> Option<u32> {
    if name == "globalError" {
        return Some(GLOBAL_ERROR);
    }
    name.strip_prefix("error_")?.parse().ok()
}

/// The number the checker gives the 2012 programs' `globalError` label: no
/// certificate claims it, and the step ends there like at any error.
pub const GLOBAL_ERROR: u32 = u32::MAX;

/// The main file's tokens by offset, to find the operator of a unary or
/// binary expression (libclang 14 does not name it).
struct Tokens(Vec<(u32, String)>);

impl Tokens {
    fn of(root: &Entity) -> Tokens {
        let mut v: Vec<(u32, String)> = root
            .get_range()
            .map(|r| r.tokenize())
            .unwrap_or_default()
            .into_iter()
            .map(|t| {
                let off = t.get_range().get_start().get_file_location().offset;
                (off, t.get_spelling())
            })
            .collect();
        v.sort_by_key(|(o, _)| *o);
        Tokens(v)
    }

    /// The first token at or after `offset`.
    fn at_or_after(&self, offset: u32) -> Option<&str> {
        let k = self.0.partition_point(|(o, _)| *o < offset);
        self.0.get(k).map(|(_, s)| s.as_str())
    }
}

/// The file offsets where an entity starts and ends.
fn span(e: &Entity) -> Option<(u32, u32)> {
    let r = e.get_range()?;
    Some((
        r.get_start().get_file_location().offset,
        r.get_end().get_file_location().offset,
    ))
}

fn at(e: &Entity) -> At {
    e.get_location()
        .map(|l| {
            let l = l.get_file_location();
            At {
                line: l.line,
                col: l.column,
            }
        })
        .unwrap_or_default()
}

struct Reader<'a> {
    path: &'a str,
    tokens: Tokens,
    /// The error label of the statement being read (`error_N:`).
    label: Option<u32>,
    /// The array globals.
    arrays: Vec<String>,
    /// Whether `scanf("%d", &x)` reads the step's input into `x` (a step
    /// that is `main`'s loop).
    scanf: bool,
}

impl Reader<'_> {
    fn unsupported(&self, e: &Entity, what: &str) -> ReadError {
        ReadError::At {
            file: self.path.to_string(),
            at: at(e),
            what: format!("{what} ({:?})", e.get_kind()),
        }
    }

    /// The value of a constant expression.
    fn constant(&self, e: &Entity) -> Result<i32, ReadError> {
        match e.evaluate() {
            Some(EvaluationResult::SignedInteger(v)) => {
                i32::try_from(v).map_err(|_| self.unsupported(e, "a constant beyond 32 bits"))
            }
            Some(EvaluationResult::UnsignedInteger(v)) => {
                i32::try_from(v).map_err(|_| self.unsupported(e, "a constant beyond 32 bits"))
            }
            _ => Err(self.unsupported(e, "expected a constant")),
        }
    }

    fn global(&self, e: &Entity) -> Result<Global, ReadError> {
        let name = e
            .get_name()
            .ok_or_else(|| self.unsupported(e, "a nameless global"))?;
        let ty = e
            .get_type()
            .ok_or_else(|| self.unsupported(e, "a global without type"))?;
        // The initialiser is the last child (an array's size comes first).
        let init = e.get_children().into_iter().rfind(|c| c.is_expression());
        let init = match ty.get_canonical_type().get_kind() {
            TypeKind::Int | TypeKind::Bool | TypeKind::CharS | TypeKind::SChar => {
                GlobalInit::Scalar(match &init {
                    Some(x) => self.constant(x)?,
                    None => 0,
                })
            }
            TypeKind::ConstantArray => {
                let len = ty
                    .get_size()
                    .ok_or_else(|| self.unsupported(e, "array size"))?;
                let mut values = vec![0; len];
                if let Some(list) = &init {
                    let list = strip(list);
                    if list.get_kind() != EntityKind::InitListExpr {
                        return Err(self.unsupported(&list, "an array initialiser"));
                    }
                    for (k, x) in list.get_children().iter().enumerate() {
                        *values
                            .get_mut(k)
                            .ok_or_else(|| self.unsupported(x, "too many initialisers"))? =
                            self.constant(x)?;
                    }
                }
                GlobalInit::Array(values)
            }
            TypeKind::Pointer => {
                let target = init
                    .map(|x| strip(&x))
                    .filter(|x| x.get_kind() == EntityKind::DeclRefExpr)
                    .and_then(|x| x.get_name())
                    .ok_or_else(|| self.unsupported(e, "a pointer global not set to an array"))?;
                GlobalInit::Pointer(target)
            }
            _ => return Err(self.unsupported(e, "a global of this type")),
        };
        Ok(Global { name, init })
    }

    fn function(&mut self, e: &Entity) -> Result<Function, ReadError> {
        let mut params = Vec::new();
        let mut body = None;
        for c in e.get_children() {
            match c.get_kind() {
                EntityKind::ParmDecl => {
                    params.push(c.get_name().unwrap_or_default());
                }
                EntityKind::CompoundStmt => body = Some(c),
                _ => {}
            }
        }
        let body = body.ok_or_else(|| self.unsupported(e, "a function without a body"))?;
        Ok(Function {
            params,
            body: self.stmt(&body)?,
        })
    }

    fn stmt(&mut self, e: &Entity) -> Result<Stmt, ReadError> {
        let kids = e.get_children();
        Ok(match e.get_kind() {
            EntityKind::CompoundStmt => Stmt::Block(
                kids.iter()
                    .map(|k| self.stmt(k))
                    .collect::<Result<_, _>>()?,
            ),
            EntityKind::IfStmt => {
                let (c, t) = match &kids[..] {
                    [c, t, ..] => (c, t),
                    _ => return Err(self.unsupported(e, "an if without a branch")),
                };
                let otherwise = match kids.get(2) {
                    Some(x) => self.stmt(x)?,
                    None => Stmt::Skip,
                };
                Stmt::If(self.expr(c)?, Box::new(self.stmt(t)?), Box::new(otherwise))
            }
            EntityKind::ReturnStmt => Stmt::Return(kids.first().map(|k| self.expr(k)).transpose()?),
            EntityKind::DeclStmt => {
                let mut locals = Vec::new();
                for d in &kids {
                    let name = d.get_name().unwrap_or_default();
                    let init = d.get_children().into_iter().rfind(|c| c.is_expression());
                    locals.push(Stmt::Local(name, init.map(|x| self.expr(&x)).transpose()?));
                }
                Stmt::Block(locals)
            }
            EntityKind::LabelStmt => {
                let number = e.get_name().and_then(|n| label_number(&n));
                let inner_label = number.or(self.label);
                let outer = std::mem::replace(&mut self.label, inner_label);
                let inner = kids.first().map(|k| self.stmt(k)).transpose();
                self.label = outer;
                inner?.unwrap_or(Stmt::Skip)
            }
            EntityKind::NullStmt => Stmt::Skip,
            k if e.is_expression() => self.expr_stmt(e, k)?,
            _ => return Err(self.unsupported(e, "a statement of this kind")),
        })
    }

    /// An expression used as a statement.
    fn expr_stmt(&mut self, e: &Entity, kind: EntityKind) -> Result<Stmt, ReadError> {
        let kids = e.get_children();
        Ok(match kind {
            EntityKind::ParenExpr | EntityKind::UnexposedExpr | EntityKind::CStyleCastExpr
                if kids.len() == 1 =>
            {
                self.expr_stmt(&kids[0], kids[0].get_kind())?
            }
            EntityKind::StmtExpr => match kids.first() {
                Some(k) => self.stmt(k)?,
                None => Stmt::Skip,
            },
            EntityKind::ConditionalOperator if kids.len() == 3 => Stmt::If(
                self.expr(&kids[0])?,
                Box::new(self.expr_stmt(&kids[1], kids[1].get_kind())?),
                Box::new(self.expr_stmt(&kids[2], kids[2].get_kind())?),
            ),
            EntityKind::CallExpr => self.call_stmt(e)?,
            EntityKind::BinaryOperator
                if self.operator_between(&kids[0], &kids[1]) == Some("=") =>
            {
                Stmt::Assign(self.place(&kids[0])?, self.expr(&kids[1])?, at(e))
            }
            EntityKind::CompoundAssignOperator => {
                let op = self
                    .operator_between(&kids[0], &kids[1])
                    .unwrap_or_default();
                let op = Binary::spelled(op.trim_end_matches('='))
                    .ok_or_else(|| self.unsupported(e, "this compound assignment"))?;
                let place = self.place(&kids[0])?;
                let old = self.expr(&kids[0])?;
                let value = Expr::Binary(op, Box::new(old), Box::new(self.expr(&kids[1])?));
                Stmt::Assign(place, value, at(e))
            }
            EntityKind::UnaryOperator => {
                let op = self.unary_operator(e, &kids[0]);
                let op = match op.as_deref() {
                    Some("++") => Binary::Add,
                    Some("--") => Binary::Sub,
                    _ => return Ok(Stmt::Effect(self.expr(e)?)),
                };
                let place = self.place(&kids[0])?;
                let old = self.expr(&kids[0])?;
                let value = Expr::Binary(op, Box::new(old), Box::new(Expr::Const(1)));
                Stmt::Assign(place, value, at(e))
            }
            _ => Stmt::Effect(self.expr(e)?),
        })
    }

    /// A call as a statement: a function of the program, or one of the
    /// library's functions RERS programs use.
    fn call_stmt(&mut self, e: &Entity) -> Result<Stmt, ReadError> {
        let name = e.get_name().unwrap_or_default();
        let args = e.get_arguments().unwrap_or_default();
        Ok(match name.as_str() {
            "__VERIFIER_error" => match args.first() {
                Some(a) => Stmt::Error(
                    u32::try_from(self.constant(a)?)
                        .map_err(|_| self.unsupported(a, "a negative label"))?,
                ),
                None => return Err(self.unsupported(e, "__VERIFIER_error without a label")),
            },
            "__assert_fail" | "__assert" | "__assert_rtn" | "reach_error" => match self.label {
                Some(n) => Stmt::Error(n),
                None => return Err(self.unsupported(e, "an assertion outside an error label")),
            },
            "assert" => match (self.label, args.first()) {
                (Some(n), Some(c)) => Stmt::Assert(self.expr(c)?, n),
                _ => return Err(self.unsupported(e, "an assertion outside an error label")),
            },
            _ if name.starts_with("reach_error_") => match label_number(&name["reach_".len()..]) {
                Some(n) => Stmt::Error(n),
                None => return Err(self.unsupported(e, "an error function of no number")),
            },
            "__VERIFIER_assume" => match args.first() {
                Some(c) => Stmt::Assume(self.expr(c)?),
                None => return Err(self.unsupported(e, "__VERIFIER_assume without a condition")),
            },
            "exit" | "abort" | "_Exit" => Stmt::Assume(Expr::Const(0)),
            "scanf" if self.scanf => match args.get(1).map(strip) {
                Some(a) if a.get_kind() == EntityKind::UnaryOperator => {
                    let target = a.get_children();
                    let place = self.place(&target[0])?;
                    Stmt::Assign(place, Expr::Name(LOOP_INPUT.to_string()), at(e))
                }
                _ => return Err(self.unsupported(e, "a `scanf` of this shape")),
            },
            // The output symbol: one int printed with `%d`.
            "printf"
                if args.len() == 2 && literal(&args[0]).is_some_and(|f| f.trim() == "%d\\n") =>
            {
                Stmt::Output(self.expr(&args[1])?)
            }
            // An invalid input, reported on `stderr` (the input printed
            // with it is evaluated for its faults).
            "fprintf"
                if args
                    .get(1)
                    .and_then(literal)
                    .is_some_and(|m| m.starts_with("Invalid input")) =>
            {
                let mut told = Vec::new();
                for a in &args[2..] {
                    told.push(Stmt::Effect(self.expr(a)?));
                }
                told.push(Stmt::Invalid);
                Stmt::Block(told)
            }
            // Other output: the values printed are evaluated (for their
            // faults), the format and the stream are not.
            "printf" | "fprintf" | "fflush" | "puts" | "putchar" => {
                let mut effects = Vec::new();
                for a in &args {
                    let a = strip(a);
                    if matches!(
                        a.get_kind(),
                        EntityKind::StringLiteral | EntityKind::DeclRefExpr
                    ) && a.get_type().is_some_and(|t| {
                        !matches!(t.get_canonical_type().get_kind(), TypeKind::Int)
                    }) {
                        continue;
                    }
                    effects.push(Stmt::Effect(self.expr(&a)?));
                }
                Stmt::Block(effects)
            }
            _ => Stmt::Call(
                name,
                args.iter()
                    .map(|a| self.expr(a))
                    .collect::<Result<_, _>>()?,
                at(e),
            ),
        })
    }

    /// The place an assignment stores to.
    fn place(&mut self, e: &Entity) -> Result<Place, ReadError> {
        let e = strip(e);
        match e.get_kind() {
            EntityKind::DeclRefExpr => Ok(Place::Name(e.get_name().unwrap_or_default())),
            EntityKind::ArraySubscriptExpr => {
                let kids = e.get_children();
                let base = strip(&kids[0]);
                if base.get_kind() != EntityKind::DeclRefExpr {
                    return Err(self.unsupported(&base, "an element of this"));
                }
                Ok(Place::Index(
                    base.get_name().unwrap_or_default(),
                    self.expr(&kids[1])?,
                ))
            }
            _ => Err(self.unsupported(&e, "an assignment to this")),
        }
    }

    /// The operator token between the operands `lhs` and `rhs`.
    fn operator_between(&self, lhs: &Entity, rhs: &Entity) -> Option<&str> {
        let (_, end) = span(lhs)?;
        let (next, _) = span(rhs)?;
        // The range ends just past its last token; the operator must lie
        // between the operands as written (not in a macro's expansion).
        let k = self.tokens.0.partition_point(|(o, _)| *o < end);
        let (at, op) = self.tokens.0.get(k)?;
        (*at < next).then_some(op.as_str())
    }

    /// The operator token right after `operand` (a postfix operator).
    fn operator_after(&self, operand: &Entity) -> Option<&str> {
        let (_, end) = span(operand)?;
        self.tokens.at_or_after(end)
    }

    /// The operator of a unary expression: its first token if it comes
    /// before the operand, else the one after it.
    fn unary_operator(&self, e: &Entity, operand: &Entity) -> Option<String> {
        let (start, _) = span(e)?;
        let (inner, _) = span(operand)?;
        if start < inner {
            self.tokens.at_or_after(start).map(str::to_string)
        } else {
            self.operator_after(operand).map(str::to_string)
        }
    }

    fn expr(&mut self, e: &Entity) -> Result<Expr, ReadError> {
        let kids = e.get_children();
        let b = |x: Expr| Box::new(x);
        Ok(match e.get_kind() {
            EntityKind::IntegerLiteral | EntityKind::CharacterLiteral => {
                Expr::Const(self.constant(e)?)
            }
            EntityKind::ParenExpr | EntityKind::UnexposedExpr | EntityKind::CStyleCastExpr
                if kids.len() == 1 =>
            {
                if e.get_kind() == EntityKind::CStyleCastExpr {
                    self.cast_is_harmless(e)?;
                }
                self.expr(&kids[0])?
            }
            EntityKind::DeclRefExpr => {
                let name = e.get_name().unwrap_or_default();
                match e.get_reference().map(|r| r.get_kind()) {
                    Some(EntityKind::EnumConstantDecl) => Expr::Const(self.constant(e)?),
                    _ if self.arrays.contains(&name) => Expr::ArrayRef(name),
                    _ => Expr::Name(name),
                }
            }
            EntityKind::ArraySubscriptExpr => {
                let base = strip(&kids[0]);
                if base.get_kind() != EntityKind::DeclRefExpr {
                    return Err(self.unsupported(&base, "an element of this"));
                }
                let name = base.get_name().unwrap_or_default();
                Expr::Index(b(Expr::Name(name)), b(self.expr(&kids[1])?))
            }
            EntityKind::UnaryOperator => {
                let inner = self.expr(&kids[0])?;
                match self.unary_operator(e, &kids[0]).as_deref() {
                    Some("-") => Expr::Unary(Unary::Neg, b(inner)),
                    Some("!") => Expr::Unary(Unary::Not, b(inner)),
                    Some("~") => Expr::Unary(Unary::Complement, b(inner)),
                    Some("+") => inner,
                    Some("*") => Expr::Index(b(inner), b(Expr::Const(0))),
                    _ => return Err(self.unsupported(e, "this unary operator")),
                }
            }
            EntityKind::BinaryOperator if kids.len() == 2 => {
                let op = self
                    .operator_between(&kids[0], &kids[1])
                    .unwrap_or_default();
                let op = Binary::spelled(op)
                    .ok_or_else(|| self.unsupported(e, "this binary operator"))?;
                Expr::Binary(op, b(self.expr(&kids[0])?), b(self.expr(&kids[1])?))
            }
            EntityKind::ConditionalOperator if kids.len() == 3 => Expr::Choose(
                b(self.expr(&kids[0])?),
                b(self.expr(&kids[1])?),
                b(self.expr(&kids[2])?),
            ),
            EntityKind::CallExpr => {
                let name = e.get_name().unwrap_or_default();
                let args = e.get_arguments().unwrap_or_default();
                Expr::Call(
                    name,
                    args.iter()
                        .map(|a| self.expr(a))
                        .collect::<Result<_, _>>()?,
                    at(e),
                )
            }
            _ => return Err(self.unsupported(e, "an expression of this kind")),
        })
    }

    /// Casts that do not change a 32-bit int value (to `int`, `void`).
    fn cast_is_harmless(&self, e: &Entity) -> Result<(), ReadError> {
        match e.get_type().map(|t| t.get_canonical_type().get_kind()) {
            Some(TypeKind::Int | TypeKind::Void) => Ok(()),
            _ => Err(self.unsupported(e, "a cast to this type")),
        }
    }
}

/// An expression without the parentheses and implicit conversions around it.
fn strip<'tu>(e: &Entity<'tu>) -> Entity<'tu> {
    let mut e = *e;
    loop {
        match e.get_kind() {
            EntityKind::ParenExpr | EntityKind::UnexposedExpr => {
                let kids = e.get_children();
                if kids.len() != 1 {
                    return e;
                }
                e = kids[0];
            }
            _ => return e,
        }
    }
}
