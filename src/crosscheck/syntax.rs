//! The checker's own form of a program: what its readers ([`super::c_reader`],
//! [`super::java_reader`]) make of the source, and all the symbolic step
//! ([`super::exec`]) interprets. It is deliberately close to the source:
//! statements and expressions as written, functions by name, globals with
//! their initial values.

use std::collections::HashMap;

/// Where a construct is in the source: 1-based line and column.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct At {
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub col: u32,
}

/// A global variable and its initial value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GlobalInit {
    /// A scalar (int, bool as 0/1, char, or an interned string).
    Scalar(i32),
    /// An array of scalars, by element.
    Array(Vec<i32>),
    /// A pointer to the first element of the named array global.
    Pointer(String),
}

/// A global variable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Global {
    /// Its name in the source.
    pub name: String,
    /// Its initial value (which also says whether it is an array or a
    /// pointer).
    pub init: GlobalInit,
}

/// Unary operators, with C's and Java's meaning on 32-bit ints.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Unary {
    /// `-e`, wrapping.
    Neg,
    /// `!e`: 1 if `e` is 0, else 0.
    Not,
    /// `~e`.
    Complement,
    /// `+e`.
    Plus,
}

/// Binary operators on 32-bit ints. Arithmetic wraps; `/` and `%` truncate
/// toward zero; comparisons and the logical operators give 0 or 1, and
/// `&&`, `||` evaluate their right operand only when it matters.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum Binary {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Shl,
    Shr,
    /// Java's `>>>`.
    UShr,
    BitAnd,
    BitOr,
    BitXor,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    And,
    Or,
}

impl Binary {
    /// The operator spelt `op` in C or Java (`>>>` aside).
    pub fn spelled(op: &str) -> Option<Binary> {
        Some(match op {
            "+" => Binary::Add,
            "-" => Binary::Sub,
            "*" => Binary::Mul,
            "/" => Binary::Div,
            "%" => Binary::Rem,
            "<<" => Binary::Shl,
            ">>" => Binary::Shr,
            "&" => Binary::BitAnd,
            "|" => Binary::BitOr,
            "^" => Binary::BitXor,
            "<" => Binary::Lt,
            "<=" => Binary::Le,
            ">" => Binary::Gt,
            ">=" => Binary::Ge,
            "==" => Binary::Eq,
            "!=" => Binary::Ne,
            "&&" => Binary::And,
            "||" => Binary::Or,
            _ => return None,
        })
    }
}

/// An expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expr {
    /// An int constant (a char, a bool as 0/1, an interned string).
    Const(i32),
    /// A variable: a local or parameter of the function, else a global.
    Name(String),
    /// `base[index]`: an element of an array global, or of the array a
    /// pointer global points to.
    Index(Box<Expr>, Box<Expr>),
    /// A unary operation.
    Unary(Unary, Box<Expr>),
    /// A binary operation.
    Binary(Binary, Box<Expr>, Box<Expr>),
    /// `c ? a : b`.
    Choose(Box<Expr>, Box<Expr>, Box<Expr>),
    /// A call of a function of the program that returns a value.
    Call(String, Vec<Expr>, At),
    /// The address of an array (an array's name used as a pointer).
    ArrayRef(String),
}

/// Where an assignment stores.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Place {
    /// A local, a parameter or a global.
    Name(String),
    /// An element: `base[index]`.
    Index(String, Expr),
}

/// A statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stmt {
    /// Statements in order.
    Block(Vec<Stmt>),
    /// `if (c) then else`.
    If(Expr, Box<Stmt>, Box<Stmt>),
    /// `place = value` (compound assignments and `++` are spelled out).
    Assign(Place, Expr, At),
    /// A local variable, with its initial value if any.
    Local(String, Option<Expr>),
    /// A call of a function of the program for its effect.
    Call(String, Vec<Expr>, At),
    /// `return` (with the value, which the checker evaluates for its
    /// faults only).
    Return(Option<Expr>),
    /// The step ends at error label `n` (`__VERIFIER_error(n)`, a failing
    /// `assert` under `error_n:`, `Errors.__VERIFIER_error(n)`).
    Error(u32),
    /// The step ends at error label `n` if the condition is false (an
    /// `assert` naming its label).
    Assert(Expr, u32),
    /// The run ends with no next state (`__VERIFIER_assume(0)`, `exit`,
    /// `abort`): blocked where the condition is false.
    Assume(Expr),
    /// The step ends with an invalid input (Java's `throw`): the state is
    /// kept as it is and the run goes on from it.
    Throw,
    /// The expression is evaluated (for its faults) and nothing else
    /// happens: the values a program prints, an expression statement.
    Effect(Expr),
    /// The step writes this value as its output symbol (C's
    /// `printf("%d\n", v)`, Java's `System.out.println("X")` as the
    /// string's number).
    Output(Expr),
    /// The step reports its input invalid (C's "Invalid input" message on
    /// `stderr`) and goes on.
    Invalid,
    /// Nothing (an empty statement).
    Skip,
}

impl Stmt {
    /// Appends the functions this statement calls (directly) to `out`.
    pub fn calls(&self, out: &mut Vec<String>) {
        fn expr(e: &Expr, out: &mut Vec<String>) {
            match e {
                Expr::Call(f, args, _) => {
                    out.push(f.clone());
                    args.iter().for_each(|a| expr(a, out));
                }
                Expr::Index(a, b) | Expr::Binary(_, a, b) => {
                    expr(a, out);
                    expr(b, out);
                }
                Expr::Unary(_, a) => expr(a, out),
                Expr::Choose(c, a, b) => {
                    expr(c, out);
                    expr(a, out);
                    expr(b, out);
                }
                Expr::Const(_) | Expr::Name(_) | Expr::ArrayRef(_) => {}
            }
        }
        match self {
            Stmt::Block(b) => b.iter().for_each(|s| s.calls(out)),
            Stmt::If(c, t, e) => {
                expr(c, out);
                t.calls(out);
                e.calls(out);
            }
            Stmt::Assign(p, v, _) => {
                if let Place::Index(_, i) = p {
                    expr(i, out);
                }
                expr(v, out);
            }
            Stmt::Call(f, args, _) => {
                out.push(f.clone());
                args.iter().for_each(|a| expr(a, out));
            }
            Stmt::Local(_, Some(e))
            | Stmt::Return(Some(e))
            | Stmt::Assert(e, _)
            | Stmt::Assume(e)
            | Stmt::Effect(e)
            | Stmt::Output(e) => expr(e, out),
            Stmt::Local(_, None)
            | Stmt::Return(None)
            | Stmt::Error(_)
            | Stmt::Throw
            | Stmt::Invalid
            | Stmt::Skip => {}
        }
    }
}

/// A function of the program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Function {
    /// Its parameters' names, in order.
    pub params: Vec<String>,
    /// Its body.
    pub body: Stmt,
}

/// A program as the checker reads it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Program {
    /// The globals, in declaration order.
    pub globals: Vec<Global>,
    /// The functions, by name.
    pub functions: HashMap<String, Function>,
    /// The step: the function called once per input symbol, with the
    /// input as its one parameter.
    pub step: String,
    /// The string literals, by their id (Java: strings are compared by
    /// content, and the checker gives each literal an int of its own).
    pub strings: Vec<String>,
    /// How the program spells its input and output symbols.
    pub symbols: Symbols,
}

/// How a program spells the symbols of its alphabets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Symbols {
    /// As ints, letter by letter: 1 is `A`, 2 is `B`, ... (C).
    #[default]
    Letters,
    /// As the strings themselves, by their number in
    /// [`Program::strings`] (Java).
    Strings,
}

impl Program {
    /// The value that stands for the symbol `name` (`A`, `Z`, ...), if
    /// the program can have it.
    pub fn symbol(&self, name: &str) -> Option<i32> {
        match self.symbols {
            Symbols::Letters => match name.as_bytes() {
                [c @ b'A'..=b'Z'] => Some(i32::from(c - b'A') + 1),
                _ => None,
            },
            Symbols::Strings => {
                (self.strings.iter().position(|s| s == name)).and_then(|k| i32::try_from(k).ok())
            }
        }
    }

    /// The input values a step can tell apart: every constant the step's
    /// parameter is compared with for equality, and one value compared
    /// with nothing (standing for every other input). `None` when the
    /// parameter is used otherwise (in arithmetic, stored, compared by
    /// order): then every int is an input.
    pub fn input_classes(&self) -> Option<Vec<i32>> {
        let step = self.functions.get(&self.step)?;
        let param = step.params.first()?;
        let mut seen = Uses {
            functions: &self.functions,
            constants: Vec::new(),
            opaque: false,
        };
        // The parameter keeps its name when passed on (`f(input)`), as it
        // does in every RERS program; any other use makes it opaque.
        for f in self.functions.values() {
            if let Some(p) = f.params.first() {
                if p == param {
                    seen.stmt(&f.body, param);
                }
            }
        }
        if seen.opaque {
            return self.alphabet();
        }
        let mut values: Vec<i32> = seen.constants;
        values.sort_unstable();
        values.dedup();
        let other = (values.iter().max().copied().unwrap_or(0)).checked_add(1)?;
        values.push(other);
        Some(values)
    }
}

impl Program {
    /// The globals every step writes before it reads them (the 2014
    /// programs' `input` and `output`, say): their values between steps
    /// make no difference to anything that follows, so a state is known
    /// up to them.
    pub fn written_first(&self) -> Vec<String> {
        let mut w = Writes {
            program: self,
            read: Vec::new(),
            depth: 0,
            shadowed: false,
        };
        let mut written = Vec::new();
        w.call(&self.step, &mut written);
        if w.shadowed {
            return Vec::new();
        }
        let read = w.read;
        written.retain(|n| !read.contains(n) && self.globals.iter().any(|g| &g.name == n));
        written
    }

    /// The values of the program's `inputs` array, RERS's input alphabet,
    /// if it has one.
    fn alphabet(&self) -> Option<Vec<i32>> {
        self.globals
            .iter()
            .find_map(|g| match (&g.init, g.name.as_str()) {
                (GlobalInit::Array(v), "inputs") => Some(v.clone()),
                _ => None,
            })
    }
}

/// The must-write-before-read analysis of [`Program::written_first`]:
/// the globals read before the step surely wrote them.
struct Writes<'p> {
    program: &'p Program,
    read: Vec<String>,
    depth: usize,
    /// A local or parameter has a global's name (then nothing is said).
    shadowed: bool,
}

impl Writes<'_> {
    fn call(&mut self, f: &str, written: &mut Vec<String>) {
        let Some(func) = self.program.functions.get(f) else {
            return;
        };
        if self.depth > 64 {
            return;
        }
        self.depth += 1;
        // Parameters are no globals.
        let shadowed: Vec<String> = func.params.clone();
        let global = |n: &String| self.program.globals.iter().any(|g| &g.name == n);
        self.shadowed |= shadowed.iter().any(global);
        let outer = written.clone();
        written.extend(shadowed.iter().cloned());
        self.stmt(&func.body, written);
        written.retain(|n| !shadowed.contains(n) || outer.contains(n));
        self.depth -= 1;
    }

    fn reads(&mut self, e: &Expr, written: &mut Vec<String>) {
        match e {
            Expr::Name(n) | Expr::ArrayRef(n) => {
                if !written.contains(n) && !self.read.contains(n) {
                    self.read.push(n.clone());
                }
            }
            Expr::Const(_) => {}
            Expr::Index(a, b) | Expr::Binary(_, a, b) => {
                self.reads(a, written);
                self.reads(b, written);
            }
            Expr::Unary(_, a) => self.reads(a, written),
            Expr::Choose(c, a, b) => {
                self.reads(c, written);
                self.reads(a, written);
                self.reads(b, written);
            }
            Expr::Call(f, args, _) => {
                args.iter().for_each(|a| self.reads(a, written));
                self.call(f, written);
            }
        }
    }

    fn stmt(&mut self, s: &Stmt, written: &mut Vec<String>) {
        match s {
            Stmt::Block(b) => b.iter().for_each(|s| self.stmt(s, written)),
            Stmt::If(c, t, e) => {
                self.reads(c, written);
                let mut other = written.clone();
                self.stmt(t, written);
                self.stmt(e, &mut other);
                written.retain(|n| other.contains(n));
            }
            Stmt::Assign(Place::Name(n), v, _) => {
                self.reads(v, written);
                if !written.contains(n) {
                    written.push(n.clone());
                }
            }
            // An element written leaves the rest of the array as it was.
            Stmt::Assign(Place::Index(n, i), v, _) => {
                self.reads(&Expr::Name(n.clone()), written);
                self.reads(i, written);
                self.reads(v, written);
            }
            Stmt::Local(n, v) => {
                if let Some(v) = v {
                    self.reads(v, written);
                }
                self.shadowed |= self.program.globals.iter().any(|g| &g.name == n);
                if !written.contains(n) {
                    written.push(n.clone());
                }
            }
            Stmt::Call(f, args, _) => {
                args.iter().for_each(|a| self.reads(a, written));
                self.call(f, written);
            }
            Stmt::Return(Some(e))
            | Stmt::Assert(e, _)
            | Stmt::Assume(e)
            | Stmt::Effect(e)
            | Stmt::Output(e) => self.reads(e, written),
            Stmt::Return(None) | Stmt::Error(_) | Stmt::Throw | Stmt::Invalid | Stmt::Skip => {}
        }
    }
}

/// How a program uses the step's input: the constants it is compared with,
/// and whether it is used in any other way.
struct Uses<'p> {
    functions: &'p HashMap<String, Function>,
    constants: Vec<i32>,
    opaque: bool,
}

impl Uses<'_> {
    fn stmt(&mut self, s: &Stmt, p: &str) {
        match s {
            Stmt::Block(b) => b.iter().for_each(|s| self.stmt(s, p)),
            Stmt::If(c, t, e) => {
                self.expr(c, p);
                self.stmt(t, p);
                self.stmt(e, p);
            }
            Stmt::Assign(place, v, _) => {
                if let Place::Index(_, i) = place {
                    self.expr(i, p);
                }
                if matches!(place, Place::Name(n) if n == p) {
                    self.opaque = true;
                }
                self.expr(v, p);
            }
            Stmt::Local(n, v) => {
                if n == p {
                    self.opaque = true;
                }
                if let Some(v) = v {
                    self.expr(v, p);
                }
            }
            Stmt::Call(f, args, _) => self.args(f, args, p),
            // Evaluating a variable does nothing: the input passed to
            // `printf`, say.
            Stmt::Effect(Expr::Name(_)) | Stmt::Output(Expr::Name(_)) => {}
            Stmt::Return(Some(e))
            | Stmt::Assert(e, _)
            | Stmt::Assume(e)
            | Stmt::Effect(e)
            | Stmt::Output(e) => self.expr(e, p),
            Stmt::Return(None) | Stmt::Error(_) | Stmt::Throw | Stmt::Invalid | Stmt::Skip => {}
        }
    }

    /// Arguments of a call of `f`: the parameter passed on as it is, as
    /// the parameter of `f` of the same name, is no use of it (that use is
    /// read in `f`).
    fn args(&mut self, f: &str, args: &[Expr], p: &str) {
        let params = self.functions.get(f).map(|f| &f.params[..]).unwrap_or(&[]);
        for (k, a) in args.iter().enumerate() {
            let same = params.get(k).is_some_and(|q| q == p) && k == 0;
            if !(same && matches!(a, Expr::Name(n) if n == p)) {
                self.expr(a, p);
            }
        }
    }

    fn expr(&mut self, e: &Expr, p: &str) {
        let is_p = |e: &Expr| matches!(e, Expr::Name(n) if n == p);
        match e {
            Expr::Binary(Binary::Eq | Binary::Ne, a, b) if is_p(a) || is_p(b) => {
                match (&**a, &**b) {
                    (Expr::Const(k), _) | (_, Expr::Const(k)) => self.constants.push(*k),
                    _ => self.opaque = true,
                }
            }
            Expr::Name(n) if n == p => self.opaque = true,
            Expr::Const(_) | Expr::Name(_) | Expr::ArrayRef(_) => {}
            Expr::Index(a, b) | Expr::Binary(_, a, b) => {
                self.expr(a, p);
                self.expr(b, p);
            }
            Expr::Unary(_, a) => self.expr(a, p),
            Expr::Choose(c, a, b) => {
                self.expr(c, p);
                self.expr(a, p);
                self.expr(b, p);
            }
            Expr::Call(f, args, _) => self.args(f, args, p),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn program(body: Stmt) -> Program {
        let mut functions = HashMap::new();
        functions.insert(
            "step".to_string(),
            Function {
                params: vec!["input".into()],
                body,
            },
        );
        Program {
            step: "step".into(),
            functions,
            ..Program::default()
        }
    }

    fn eq_input(k: i32) -> Expr {
        Expr::Binary(
            Binary::Eq,
            Box::new(Expr::Name("input".into())),
            Box::new(Expr::Const(k)),
        )
    }

    #[test]
    fn the_inputs_are_the_constants_compared_with_and_one_more() {
        let p = program(Stmt::Block(vec![
            Stmt::If(eq_input(3), Box::new(Stmt::Skip), Box::new(Stmt::Skip)),
            Stmt::If(eq_input(1), Box::new(Stmt::Error(2)), Box::new(Stmt::Skip)),
        ]));
        assert_eq!(p.input_classes(), Some(vec![1, 3, 4]));
    }

    #[test]
    fn globals_written_before_every_read_are_found() {
        let assign = |n: &str, e: Expr| Stmt::Assign(Place::Name(n.into()), e, At::default());
        let name = |n: &str| Expr::Name(n.into());
        let p = program(Stmt::Block(vec![
            assign("out", Expr::Const(-1)),
            assign("x", name("input")),
            Stmt::If(
                eq_input(1),
                Box::new(assign("y", Expr::Const(2))),
                Box::new(Stmt::Skip),
            ),
            Stmt::Effect(name("out")),
            Stmt::Effect(name("y")),
            Stmt::Effect(name("x")),
            assign("z", name("z")),
        ]));
        let mut p = p;
        p.globals = ["out", "x", "y", "z"]
            .iter()
            .map(|n| Global {
                name: n.to_string(),
                init: GlobalInit::Scalar(0),
            })
            .collect();
        assert_eq!(p.written_first(), vec!["out".to_string(), "x".to_string()]);
    }

    #[test]
    fn an_input_used_in_arithmetic_makes_every_int_an_input() {
        let p = program(Stmt::Assign(
            Place::Name("a".into()),
            Expr::Binary(
                Binary::Add,
                Box::new(Expr::Name("input".into())),
                Box::new(Expr::Const(1)),
            ),
            At::default(),
        ));
        assert_eq!(p.input_classes(), None);
    }
}
