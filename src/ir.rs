//! The intermediate representation shared by every front end.
//!
//! A RERS program is a set of global variables, an input and an output
//! alphabet, and a *step*: the function run once per input symbol. The C and
//! Java front ends both lower into a [`Program`]; the step engine
//! ([`crate::engine`]) compiles it to bytecode. Nothing here knows which
//! source language it came from.
//!
//! Values are 32-bit integers everywhere: booleans are 0/1, strings are ids
//! into [`Program::strings`] (compared by id, which is `.equals` on interned
//! strings), pointers are the [`GlobalId`] of the array they point to.

use std::fmt;

/// Index of a global variable in [`Program::globals`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GlobalId(pub u32);

/// Index of a function in [`Program::functions`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FuncId(pub u32);

/// Index of a parameter or local variable inside one [`Function`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LocalId(pub u32);

/// Where a construct came from: 1-based line and column in the source file.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Loc {
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub col: u32,
}

impl fmt::Display for Loc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// The type of a scalar value.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ScalarTy {
    /// 32-bit two's complement integer.
    Int,
    /// Boolean, stored as 0 or 1.
    Bool,
    /// Interned string, stored as an index into [`Program::strings`].
    Str,
}

/// What a global variable holds, with its initial value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GlobalKind {
    /// One scalar value.
    Scalar {
        /// Its type.
        ty: ScalarTy,
        /// Its initial value.
        init: i32,
    },
    /// A fixed-length array of ints (or of interned strings).
    Array {
        /// The type of its elements.
        elem: ScalarTy,
        /// The initial values; the length is the array's.
        init: Vec<i32>,
    },
    /// A pointer to (the start of) an array global; its value is the array's id.
    Pointer {
        /// The array it points to first.
        init: GlobalId,
    },
}

/// A global variable of the program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Global {
    /// Name in the source.
    pub name: String,
    /// Type and initial value.
    pub kind: GlobalKind,
    /// Declared constant (`const`, `final`): never assigned.
    pub constant: bool,
    /// Where it is declared.
    pub loc: Loc,
}

/// One symbol of an input or output alphabet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbol {
    /// Printed name: a letter (`A`, from the C int 1) or a Java string.
    pub name: String,
    /// Runtime value: the int passed to / printed by the program, or the
    /// string id for Java.
    pub value: i32,
}

/// Unary operators.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum UnOp {
    /// Arithmetic negation (wrapping).
    Neg,
    /// Logical not: 1 if the operand is 0, else 0.
    Not,
    /// Bitwise complement.
    BitNot,
}

/// Binary operators. Arithmetic wraps at 32 bits; `/` and `%` truncate
/// toward zero (C99 and Java agree); comparisons and logical operators yield
/// 0 or 1. `LogAnd`/`LogOr` short-circuit.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum BinOp {
    /// `a + b`
    Add,
    /// `a - b`
    Sub,
    /// `a * b`
    Mul,
    /// `a / b` (a fault when `b` is 0)
    Div,
    /// `a % b` (a fault when `b` is 0)
    Rem,
    /// `a << b`
    Shl,
    /// `a >> b` (arithmetic)
    Shr,
    /// `a & b`
    BitAnd,
    /// `a | b`
    BitOr,
    /// `a ^ b`
    BitXor,
    /// `a == b`
    Eq,
    /// `a != b`
    Ne,
    /// `a < b`
    Lt,
    /// `a <= b`
    Le,
    /// `a > b`
    Gt,
    /// `a >= b`
    Ge,
    /// `a && b`
    LogAnd,
    /// `a || b`
    LogOr,
}

impl BinOp {
    /// Every operator.
    pub const ALL: [BinOp; 18] = [
        BinOp::Add,
        BinOp::Sub,
        BinOp::Mul,
        BinOp::Div,
        BinOp::Rem,
        BinOp::Shl,
        BinOp::Shr,
        BinOp::BitAnd,
        BinOp::BitOr,
        BinOp::BitXor,
        BinOp::Eq,
        BinOp::Ne,
        BinOp::Lt,
        BinOp::Le,
        BinOp::Gt,
        BinOp::Ge,
        BinOp::LogAnd,
        BinOp::LogOr,
    ];

    /// Evaluates the operator with the C99/Java 32-bit semantics; `None`
    /// for a division by zero.
    pub fn eval(self, a: i32, b: i32) -> Option<i32> {
        Some(match self {
            BinOp::Add => a.wrapping_add(b),
            BinOp::Sub => a.wrapping_sub(b),
            BinOp::Mul => a.wrapping_mul(b),
            BinOp::Div => {
                if b == 0 {
                    return None;
                }
                a.wrapping_div(b)
            }
            BinOp::Rem => {
                if b == 0 {
                    return None;
                }
                a.wrapping_rem(b)
            }
            BinOp::Shl => a.wrapping_shl(b as u32),
            BinOp::Shr => a.wrapping_shr(b as u32),
            BinOp::BitAnd => a & b,
            BinOp::BitOr => a | b,
            BinOp::BitXor => a ^ b,
            BinOp::Eq => (a == b) as i32,
            BinOp::Ne => (a != b) as i32,
            BinOp::Lt => (a < b) as i32,
            BinOp::Le => (a <= b) as i32,
            BinOp::Gt => (a > b) as i32,
            BinOp::Ge => (a >= b) as i32,
            BinOp::LogAnd => (a != 0 && b != 0) as i32,
            BinOp::LogOr => (a != 0 || b != 0) as i32,
        })
    }
}

/// An array accessed by index: an array global, or a pointer global whose
/// current value names the array.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ArrayRef {
    /// The array global itself.
    Array(GlobalId),
    /// A pointer global; indexes the array it currently points to.
    Pointer(GlobalId),
}

/// An expression. Evaluation has no side effects except through [`Expr::Call`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expr {
    /// An integer constant (also booleans and string ids).
    Const(i32),
    /// The value of a scalar or pointer global.
    Global(GlobalId),
    /// The value of a parameter or local.
    Local(LocalId),
    /// `array[index]`.
    Index(ArrayRef, Box<Expr>),
    /// The address of an array global (the value a pointer holds).
    ArrayAddr(GlobalId),
    /// A unary operation.
    Unary(UnOp, Box<Expr>),
    /// A binary operation.
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `c ? a : b`.
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    /// A call of a function that returns a value.
    Call(FuncId, Vec<Expr>),
}

impl Expr {
    /// Whether this is a plain read of one variable: evaluated twice on one
    /// path, it has the same value both times (`x * x` is a square).
    pub fn is_variable(&self) -> bool {
        matches!(self, Expr::Global(_) | Expr::Local(_))
    }
}

/// The target of an assignment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Place {
    /// A scalar or pointer global.
    Global(GlobalId),
    /// A parameter or local.
    Local(LocalId),
    /// An array element.
    Index(ArrayRef, Expr),
}

/// A statement of the step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stmt {
    /// `place = value`.
    Assign(Place, Expr, Loc),
    /// `if (cond) then_ else else_`.
    If(Expr, Vec<Stmt>, Vec<Stmt>),
    /// `while (cond) body` (bounded at run time by the engine's step budget).
    While(Expr, Vec<Stmt>),
    /// A call whose result, if any, is dropped.
    Call(FuncId, Vec<Expr>, Loc),
    /// Return from the current function (with a value for value functions).
    Return(Option<Expr>),
    /// Emit an output symbol; the value is looked up in [`Program::outputs`].
    Output(Expr, Loc),
    /// The step reaches error label N and ends there.
    Error(u32),
    /// The step ends as an invalid input (RERS "Invalid input").
    Invalid,
    /// SV-COMP `__VERIFIER_assume(cond)`: if false, the step has no successor.
    Assume(Expr),
}

/// A function: parameters first, then locals, all ints.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Function {
    /// Name in the source.
    pub name: String,
    /// Number of parameters (locals `0..params`).
    pub params: u32,
    /// Total number of locals including parameters.
    pub locals: u32,
    /// Names of the locals, for messages.
    pub local_names: Vec<String>,
    /// Whether it returns a value.
    pub returns_value: bool,
    /// The body.
    pub body: Vec<Stmt>,
    /// Where it is declared.
    pub loc: Loc,
}

/// The label used for an unnumbered error (2012 `globalError: assert(0)`):
/// the run ends there, but it is not a reachability property.
pub const GLOBAL_ERROR: u32 = 0x0FFF_FFFF;

/// How the return value of the step function is read (2012 style).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum StepReturn {
    /// The step returns nothing; outputs come from [`Stmt::Output`].
    Void,
    /// 2012/2014 `int calculate_output`: the returned int is the output
    /// symbol, -1 = no output (silent step), -2 = invalid input.
    OutputCode,
}

/// Source language of a program.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Language {
    /// C99 (lang-c).
    C,
    /// Java (tree-sitter-java).
    Java,
}

/// A whole RERS program lowered for the engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    /// Path of the source file (for messages).
    pub source: String,
    /// Source language.
    pub language: Language,
    /// Global variables.
    pub globals: Vec<Global>,
    /// Interned string constants; string values are indices here.
    pub strings: Vec<String>,
    /// Functions; the step is [`Program::step`].
    pub functions: Vec<Function>,
    /// The step function: takes the input value as its only parameter.
    pub step: FuncId,
    /// How the step's return value is read.
    pub step_return: StepReturn,
    /// Input alphabet, in the program's order.
    pub inputs: Vec<Symbol>,
    /// Output alphabet: every value an output statement can produce.
    pub outputs: Vec<Symbol>,
    /// The error labels that occur in the program, sorted.
    pub error_labels: Vec<u32>,
}

impl Program {
    /// The global with this id.
    pub fn global(&self, id: GlobalId) -> &Global {
        &self.globals[id.0 as usize]
    }

    /// The function with this id.
    pub fn function(&self, id: FuncId) -> &Function {
        &self.functions[id.0 as usize]
    }

    /// Interns a string constant and returns its id.
    pub fn intern(&mut self, s: &str) -> i32 {
        intern(&mut self.strings, s)
    }

    /// A hash of everything the program is but its source path: equal
    /// wherever the same source was parsed by the same rigor (the processes
    /// of a cluster compare it before they exchange states).
    pub fn fingerprint(&self) -> u64 {
        use std::fmt::Write as _;
        use std::hash::Hasher as _;
        /// Feeds what is formatted into a hasher, without building it.
        struct Feed(rustc_hash::FxHasher);
        impl fmt::Write for Feed {
            fn write_str(&mut self, s: &str) -> fmt::Result {
                self.0.write(s.as_bytes());
                Ok(())
            }
        }
        let mut feed = Feed(rustc_hash::FxHasher::default());
        let what = (
            self.language,
            &self.globals,
            &self.strings,
            &self.functions,
            (self.step, self.step_return),
            (&self.inputs, &self.outputs, &self.error_labels),
        );
        let _ = write!(feed, "{what:?}");
        feed.0.finish()
    }
}

/// Interns `s` into `strings`, returning its index.
pub fn intern(strings: &mut Vec<String>, s: &str) -> i32 {
    if let Some(i) = strings.iter().position(|x| x == s) {
        return i as i32;
    }
    strings.push(s.to_string());
    (strings.len() - 1) as i32
}

/// The RERS letter for a C symbol value: 1 → `A`, 26 → `Z`; other values
/// print as the number itself.
pub fn letter(value: i32) -> String {
    if (1..=26).contains(&value) {
        ((b'A' + (value - 1) as u8) as char).to_string()
    } else {
        value.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c_division_truncates() {
        assert_eq!(BinOp::Div.eval(-7, 2), Some(-3));
        assert_eq!(BinOp::Rem.eval(-7, 2), Some(-1));
        assert_eq!(BinOp::Rem.eval(7, -2), Some(1));
        assert_eq!(BinOp::Div.eval(i32::MIN, -1), Some(i32::MIN));
        assert_eq!(BinOp::Div.eval(1, 0), None);
        assert_eq!(BinOp::Mul.eval(65536, 65536), Some(0));
    }

    #[test]
    fn letters() {
        assert_eq!(letter(1), "A");
        assert_eq!(letter(21), "U");
        assert_eq!(letter(26), "Z");
        assert_eq!(letter(0), "0");
    }

    /// The fingerprint leaves the source path out and sees any change of
    /// what the program does.
    #[test]
    fn fingerprints_name_the_program_not_its_path() {
        let dir = env!("CARGO_MANIFEST_DIR");
        let load = |rel: &str| crate::frontend::load(&format!("{dir}/problems/{rel}")).unwrap();
        let p = load("reach-plain/Problem901.c");
        let mut moved = p.clone();
        moved.source = "/elsewhere/Problem901.c".into();
        assert_eq!(p.fingerprint(), moved.fingerprint());
        assert_eq!(
            p.fingerprint(),
            load("reach-plain/Problem901.c").fingerprint()
        );
        let mut changed = p.clone();
        changed.error_labels.pop();
        assert_ne!(p.fingerprint(), changed.fingerprint());
        assert_ne!(
            p.fingerprint(),
            load("reach-arith/Problem902.c").fingerprint()
        );
    }
}
