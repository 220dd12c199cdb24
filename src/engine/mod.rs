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
mod op;
mod specialize;
mod thread;

pub use compile::CompileError;
pub use layout::{written_globals, Layout, Storage};

use crate::ir::{Program, StepReturn};
use crate::system::{Fault, Outcome, StepResult, System};
use op::Op;

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

/// The compiled program is the system every explorer and checker runs.
impl System for Machine {
    type Scratch = Scratch;

    fn inputs(&self) -> &[String] {
        &self.input_names
    }

    fn outputs(&self) -> &[String] {
        &self.output_names
    }

    fn error_labels(&self) -> &[u32] {
        &self.error_labels
    }

    fn state_width(&self) -> usize {
        self.layout.state_width as usize
    }

    fn initial_state(&self) -> Vec<i32> {
        self.mem_template[..self.layout.state_width as usize].to_vec()
    }

    fn scratch(&self) -> Scratch {
        Scratch {
            mem: self.mem_template.clone(),
        }
    }

    /// Runs one step from `state` on input number `input`; the next state is
    /// written to `next` (which for an error or a blocked step is the state
    /// at the point the step stopped, and must not be used).
    #[inline]
    fn step(
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
}

impl Machine {
    /// Compiles a program.
    pub fn compile(program: &Program) -> Result<Machine, CompileError> {
        compile::compile(program, true)
    }

    /// Compiles a program without optimisations (no rule decision trees,
    /// no per-input specialisation): the reference the optimised form is
    /// tested against.
    pub fn compile_generic(program: &Program) -> Result<Machine, CompileError> {
        compile::compile(program, false)
    }

    /// Number of bytecode instructions.
    pub fn code_len(&self) -> usize {
        self.code.len()
    }

    /// The storage layout of globals.
    pub fn layout(&self) -> &Layout {
        &self.layout
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
                    m!(dst) = op.eval(m!(a), m!(b)).ok_or(Fault::DivisionByZero)?
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
