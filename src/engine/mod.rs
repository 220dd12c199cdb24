//! The step engine: the IR compiled to a register bytecode.
//!
//! Compilation (`compile.rs`) inlines every call into one flat code array,
//! turns conditions into fused compare-and-branch instructions, folds
//! globals that are never written into constants, and keeps out of the state
//! the globals every step writes before reading (`cf`, `output`, `input`).
//!
//! At run time a step works on one flat memory `mem = [state | constants |
//! registers]`: every operand is an address into it, so no instruction needs
//! an immediate form. [`Machine::step`] copies the state in, runs, and copies
//! the (possibly changed) state out.

mod compile;
mod dispatch;
mod layout;
mod specialize;

pub use compile::Op;
pub use layout::{written_globals, Layout, Storage};

use crate::error::Result;
use crate::explore::graph::Outcome;
use crate::ir::{BinOp, Program, StepReturn};

/// Evaluates a binary operator with the C99/Java 32-bit semantics; `None`
/// for a division by zero.
pub fn eval_binop(op: BinOp, a: i32, b: i32) -> Option<i32> {
    Some(match op {
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

/// Why a step could not be executed: the program's behaviour is undefined
/// or outside what rigor models. A state with a fault makes the exploration
/// incomplete (no "unreachable" answers), never a wrong answer.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// Division or remainder by zero.
    DivisionByZero,
    /// Array index out of bounds.
    IndexOutOfBounds,
    /// A pointer that does not point to an array.
    BadPointer,
    /// An output value that is not in the output alphabet.
    UnknownOutput(i32),
    /// More than one output in one step.
    TwoOutputs,
    /// A loop ran past the step's instruction budget.
    StepBudget,
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fault::DivisionByZero => write!(f, "division by zero"),
            Fault::IndexOutOfBounds => write!(f, "array index out of bounds"),
            Fault::BadPointer => write!(f, "pointer to no array"),
            Fault::UnknownOutput(v) => write!(f, "output value {v} not in the output alphabet"),
            Fault::TwoOutputs => write!(f, "two outputs in one step"),
            Fault::StepBudget => write!(f, "step did not terminate within the instruction budget"),
        }
    }
}

/// The result of one step: the outcome, or a fault.
pub type StepResult = std::result::Result<Outcome, Fault>;

/// Instruction budget of one step (guards against non-terminating loops).
const STEP_BUDGET: u64 = 10_000_000;

/// A compiled program, ready to step.
#[derive(Clone, Debug)]
pub struct Machine {
    layout: Layout,
    code: Vec<Op>,
    /// Entry point of the code for each input (per-input specialised code).
    entries: Vec<u32>,
    /// Input values, indexed by input number.
    input_values: Vec<i32>,
    /// Output values, indexed by output number.
    output_values: Vec<i32>,
    /// `mem` template: initial state, constants, zeroed registers.
    mem_template: Vec<i32>,
    /// Address of the input parameter register.
    input_addr: u32,
    step_return: StepReturn,
    /// Whether the code has loops (needs the instruction budget).
    has_loops: bool,
    /// Input names.
    pub input_names: Vec<String>,
    /// Output names.
    pub output_names: Vec<String>,
    /// The error labels of the program.
    pub error_labels: Vec<u32>,
}

/// Scratch memory of one worker running steps.
#[derive(Clone, Debug)]
pub struct Scratch {
    mem: Vec<i32>,
}

impl Machine {
    /// Compiles a program.
    pub fn compile(program: &Program) -> Result<Machine> {
        compile::compile(program, true)
    }

    /// Compiles a program without optimisations (no rule decision trees,
    /// no per-input specialisation): the reference the optimised form is
    /// tested against.
    pub fn compile_generic(program: &Program) -> Result<Machine> {
        compile::compile(program, false)
    }

    /// Number of ints in a state.
    pub fn state_width(&self) -> usize {
        self.layout.state_width as usize
    }

    /// Number of inputs.
    pub fn n_inputs(&self) -> usize {
        self.input_values.len()
    }

    /// Number of bytecode instructions.
    pub fn code_len(&self) -> usize {
        self.code.len()
    }

    /// The storage layout of globals.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The initial state.
    pub fn initial_state(&self) -> Vec<i32> {
        self.mem_template[..self.state_width()].to_vec()
    }

    /// Fresh scratch memory for [`Machine::step`].
    pub fn scratch(&self) -> Scratch {
        Scratch {
            mem: self.mem_template.clone(),
        }
    }

    /// Index of the input with this name.
    pub fn input_index(&self, name: &str) -> Option<usize> {
        self.input_names.iter().position(|n| n == name)
    }

    /// Runs one step from `state` on input number `input`; the next state is
    /// written to `next` (which for an error or a blocked step is the state
    /// at the point the step stopped, and must not be used).
    pub fn step(
        &self,
        scratch: &mut Scratch,
        state: &[i32],
        input: usize,
        next: &mut [i32],
    ) -> StepResult {
        let w = state.len();
        let mem = &mut scratch.mem;
        mem[..w].copy_from_slice(state);
        mem[self.input_addr as usize] = self.input_values[input];
        let r = self.run(mem, self.entries[input] as usize);
        next.copy_from_slice(&mem[..w]);
        r
    }

    fn output_index(&self, v: i32) -> std::result::Result<u16, Fault> {
        self.output_values
            .iter()
            .position(|&x| x == v)
            .map(|i| i as u16)
            .ok_or(Fault::UnknownOutput(v))
    }

    #[inline(always)]
    fn run(&self, mem: &mut [i32], entry: usize) -> StepResult {
        let code = &self.code[..];
        let mut pc = entry;
        let mut output: Option<u16> = None;
        let mut budget = if self.has_loops {
            STEP_BUDGET
        } else {
            u64::MAX
        };
        macro_rules! m {
            ($a:expr) => {
                // SAFETY-free indexing: the compiler checks every address
                // against the memory size; this bound check stays.
                mem[$a as usize]
            };
        }
        loop {
            match code[pc] {
                Op::Mov { dst, src } => m!(dst) = m!(src),
                Op::Add { dst, a, b } => m!(dst) = m!(a).wrapping_add(m!(b)),
                Op::Sub { dst, a, b } => m!(dst) = m!(a).wrapping_sub(m!(b)),
                Op::Mul { dst, a, b } => m!(dst) = m!(a).wrapping_mul(m!(b)),
                Op::Div { dst, a, b } => {
                    let d = m!(b);
                    if d == 0 {
                        return Err(Fault::DivisionByZero);
                    }
                    m!(dst) = m!(a).wrapping_div(d)
                }
                Op::Rem { dst, a, b } => {
                    let d = m!(b);
                    if d == 0 {
                        return Err(Fault::DivisionByZero);
                    }
                    m!(dst) = m!(a).wrapping_rem(d)
                }
                Op::Bin { op, dst, a, b } => {
                    m!(dst) = eval_binop(op, m!(a), m!(b)).ok_or(Fault::DivisionByZero)?
                }
                Op::Neg { dst, a } => m!(dst) = m!(a).wrapping_neg(),
                Op::Not { dst, a } => m!(dst) = (m!(a) == 0) as i32,
                Op::BitNot { dst, a } => m!(dst) = !m!(a),
                Op::Load {
                    dst,
                    base,
                    len,
                    idx,
                } => {
                    let i = m!(idx);
                    if i < 0 || i as u32 >= len {
                        return Err(Fault::IndexOutOfBounds);
                    }
                    m!(dst) = m!(base + i as u32)
                }
                Op::Store {
                    base,
                    len,
                    idx,
                    src,
                } => {
                    let i = m!(idx);
                    if i < 0 || i as u32 >= len {
                        return Err(Fault::IndexOutOfBounds);
                    }
                    m!(base + i as u32) = m!(src)
                }
                Op::LoadPtr { dst, ptr, idx } => {
                    let (base, len) = self.layout.array_at(m!(ptr)).ok_or(Fault::BadPointer)?;
                    let i = m!(idx);
                    if i < 0 || i as u32 >= len {
                        return Err(Fault::IndexOutOfBounds);
                    }
                    m!(dst) = m!(base + i as u32)
                }
                Op::StorePtr { ptr, idx, src } => {
                    let (base, len) = self.layout.array_at(m!(ptr)).ok_or(Fault::BadPointer)?;
                    let i = m!(idx);
                    if i < 0 || i as u32 >= len {
                        return Err(Fault::IndexOutOfBounds);
                    }
                    m!(base + i as u32) = m!(src)
                }
                Op::Jmp { target } => {
                    if target as usize <= pc {
                        budget -= 1;
                        if budget == 0 {
                            return Err(Fault::StepBudget);
                        }
                    }
                    pc = target as usize;
                    continue;
                }
                Op::JEq { a, b, target } => {
                    if m!(a) == m!(b) {
                        pc = target as usize;
                        continue;
                    }
                }
                Op::JNe { a, b, target } => {
                    if m!(a) != m!(b) {
                        pc = target as usize;
                        continue;
                    }
                }
                Op::JLt { a, b, target } => {
                    if m!(a) < m!(b) {
                        pc = target as usize;
                        continue;
                    }
                }
                Op::JLe { a, b, target } => {
                    if m!(a) <= m!(b) {
                        pc = target as usize;
                        continue;
                    }
                }
                Op::JZ { a, target } => {
                    if m!(a) == 0 {
                        pc = target as usize;
                        continue;
                    }
                }
                Op::JNz { a, target } => {
                    if m!(a) != 0 {
                        pc = target as usize;
                        continue;
                    }
                }
                Op::Output { src } => {
                    if output.is_some() {
                        return Err(Fault::TwoOutputs);
                    }
                    output = Some(self.output_index(m!(src))?);
                }
                Op::Error { label } => return Ok(Outcome::Error(label)),
                Op::Invalid => return Ok(Outcome::Invalid),
                Op::Blocked => return Ok(Outcome::Blocked),
                Op::Return { src } => {
                    return match self.step_return {
                        StepReturn::OutputCode => match m!(src) {
                            -1 => Ok(Outcome::Silent),
                            -2 => Ok(Outcome::Invalid),
                            v => Ok(Outcome::Output(self.output_index(v)?)),
                        },
                        StepReturn::Void => Ok(end_outcome(output)),
                    }
                }
                Op::End => return Ok(end_outcome(output)),
            }
            pc += 1;
        }
    }
}

fn end_outcome(output: Option<u16>) -> Outcome {
    match output {
        Some(o) => Outcome::Output(o),
        None => Outcome::Silent,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c_division_truncates() {
        assert_eq!(eval_binop(BinOp::Div, -7, 2), Some(-3));
        assert_eq!(eval_binop(BinOp::Rem, -7, 2), Some(-1));
        assert_eq!(eval_binop(BinOp::Rem, 7, -2), Some(1));
        assert_eq!(eval_binop(BinOp::Div, i32::MIN, -1), Some(i32::MIN));
        assert_eq!(eval_binop(BinOp::Div, 1, 0), None);
        assert_eq!(eval_binop(BinOp::Mul, 65536, 65536), Some(0));
    }
}
