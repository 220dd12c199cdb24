//! The bytecode: one instruction set the compiler emits, the dispatch and
//! specialisation passes rewrite, and the machine runs. Every operand is an
//! address in the step memory `[state | constants | registers]`.

use crate::ir::BinOp;

/// One bytecode instruction. Every operand is an address in the step memory.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Op {
    /// `dst = src`
    Mov { dst: u32, src: u32 },
    /// `dst = a + b` (wrapping)
    Add { dst: u32, a: u32, b: u32 },
    /// `dst = a - b` (wrapping)
    Sub { dst: u32, a: u32, b: u32 },
    /// `dst = a * b` (wrapping)
    Mul { dst: u32, a: u32, b: u32 },
    /// `dst = a / b` (truncating; fault on zero)
    Div { dst: u32, a: u32, b: u32 },
    /// `dst = a % b` (truncating; fault on zero)
    Rem { dst: u32, a: u32, b: u32 },
    /// Any other binary operator.
    Bin { op: BinOp, dst: u32, a: u32, b: u32 },
    /// `dst = -a`
    Neg { dst: u32, a: u32 },
    /// `dst = !a`
    Not { dst: u32, a: u32 },
    /// `dst = ~a`
    BitNot { dst: u32, a: u32 },
    /// `dst = mem[base + mem[idx]]`, bounds-checked against `len`.
    Load {
        dst: u32,
        base: u32,
        len: u32,
        idx: u32,
    },
    /// `mem[base + mem[idx]] = src`, bounds-checked.
    Store {
        base: u32,
        len: u32,
        idx: u32,
        src: u32,
    },
    /// `dst = (array named by mem[ptr])[mem[idx]]`.
    LoadPtr { dst: u32, ptr: u32, idx: u32 },
    /// `(array named by mem[ptr])[mem[idx]] = src`.
    StorePtr { ptr: u32, idx: u32, src: u32 },
    /// Unconditional jump.
    Jmp { target: u32 },
    /// Jump if `a == b`.
    JEq { a: u32, b: u32, target: u32 },
    /// Jump if `a != b`.
    JNe { a: u32, b: u32, target: u32 },
    /// Jump if `a < b`.
    JLt { a: u32, b: u32, target: u32 },
    /// Jump if `a <= b`.
    JLe { a: u32, b: u32, target: u32 },
    /// Jump if `a == 0`.
    JZ { a: u32, target: u32 },
    /// Jump if `a != 0`.
    JNz { a: u32, target: u32 },
    /// Emit the output whose value is `mem[src]`.
    Output { src: u32 },
    /// Stop: error label reached.
    Error { label: u32 },
    /// Stop: invalid input.
    Invalid,
    /// Stop: assumption failed.
    Blocked,
    /// Stop: the step function returned `mem[src]`.
    Return { src: u32 },
    /// Stop: the step function ended.
    End,
}

impl Op {
    /// Whether the instruction ends the step.
    pub(super) fn stops(&self) -> bool {
        matches!(
            self,
            Op::Error { .. } | Op::Invalid | Op::Blocked | Op::Return { .. } | Op::End
        )
    }

    pub(super) fn map_addrs(&mut self, f: &impl Fn(u32) -> u32) {
        match self {
            Op::Mov { dst, src } => {
                *dst = f(*dst);
                *src = f(*src);
            }
            Op::Add { dst, a, b }
            | Op::Sub { dst, a, b }
            | Op::Mul { dst, a, b }
            | Op::Div { dst, a, b }
            | Op::Rem { dst, a, b }
            | Op::Bin { dst, a, b, .. } => {
                *dst = f(*dst);
                *a = f(*a);
                *b = f(*b);
            }
            Op::Neg { dst, a } | Op::Not { dst, a } | Op::BitNot { dst, a } => {
                *dst = f(*dst);
                *a = f(*a);
            }
            Op::Load { dst, base, idx, .. } => {
                *dst = f(*dst);
                *base = f(*base);
                *idx = f(*idx);
            }
            Op::Store { base, idx, src, .. } => {
                *base = f(*base);
                *idx = f(*idx);
                *src = f(*src);
            }
            Op::LoadPtr { dst, ptr, idx } => {
                *dst = f(*dst);
                *ptr = f(*ptr);
                *idx = f(*idx);
            }
            Op::StorePtr { ptr, idx, src } => {
                *ptr = f(*ptr);
                *idx = f(*idx);
                *src = f(*src);
            }
            Op::JEq { a, b, .. }
            | Op::JNe { a, b, .. }
            | Op::JLt { a, b, .. }
            | Op::JLe { a, b, .. } => {
                *a = f(*a);
                *b = f(*b);
            }
            Op::JZ { a, .. } | Op::JNz { a, .. } => *a = f(*a),
            Op::Output { src } | Op::Return { src } => *src = f(*src),
            Op::Jmp { .. } | Op::Error { .. } | Op::Invalid | Op::Blocked | Op::End => {}
        }
    }

    pub(super) fn shift_target(&mut self, base: u32) {
        if let Some(t) = self.target() {
            self.set_target(t + base);
        }
    }

    /// The address an instruction writes (scalar destinations only).
    pub(super) fn dest(&self) -> Option<u32> {
        match *self {
            Op::Mov { dst, .. }
            | Op::Add { dst, .. }
            | Op::Sub { dst, .. }
            | Op::Mul { dst, .. }
            | Op::Div { dst, .. }
            | Op::Rem { dst, .. }
            | Op::Bin { dst, .. }
            | Op::Neg { dst, .. }
            | Op::Not { dst, .. }
            | Op::BitNot { dst, .. }
            | Op::Load { dst, .. }
            | Op::LoadPtr { dst, .. } => Some(dst),
            _ => None,
        }
    }

    /// The jump target, if the instruction is a jump.
    pub(super) fn target(&self) -> Option<u32> {
        match *self {
            Op::Jmp { target }
            | Op::JEq { target, .. }
            | Op::JNe { target, .. }
            | Op::JLt { target, .. }
            | Op::JLe { target, .. }
            | Op::JZ { target, .. }
            | Op::JNz { target, .. } => Some(target),
            _ => None,
        }
    }

    /// Whether the instruction is a jump.
    pub(super) fn is_jump(&self) -> bool {
        matches!(
            self,
            Op::Jmp { .. }
                | Op::JEq { .. }
                | Op::JNe { .. }
                | Op::JLt { .. }
                | Op::JLe { .. }
                | Op::JZ { .. }
                | Op::JNz { .. }
        )
    }

    pub(super) fn set_target(&mut self, t: u32) {
        match self {
            Op::Jmp { target }
            | Op::JEq { target, .. }
            | Op::JNe { target, .. }
            | Op::JLt { target, .. }
            | Op::JLe { target, .. }
            | Op::JZ { target, .. }
            | Op::JNz { target, .. } => *target = t,
            _ => unreachable!("set_target on a non-jump"),
        }
    }
}
