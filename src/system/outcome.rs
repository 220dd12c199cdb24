//! What one step of a system does: an [`Outcome`], or a [`Fault`] when the
//! step could not be executed.

use serde::Serialize;

/// What one step of the program did.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Outcome {
    /// Printed output symbol number `k` (an index into the output alphabet).
    Output(u16),
    /// No output (2012 `return -1`); the run goes on.
    Silent,
    /// Reached error label N; the run ends.
    Error(u32),
    /// Invalid input. The run ends for LTL; for reachability it goes on to the
    /// edge's target (in 2012 programs the state may have changed).
    Invalid,
    /// An SV-COMP `__VERIFIER_assume` failed, or the program ended
    /// (`exit`, `abort`, a failed assertion): no run goes on this way.
    Blocked,
}

const KIND_SHIFT: u32 = 28;
const PAYLOAD: u32 = (1 << KIND_SHIFT) - 1;

impl Outcome {
    /// Packs the outcome into 32 bits.
    pub fn pack(self) -> u32 {
        match self {
            Outcome::Output(k) => k as u32,
            Outcome::Silent => 1 << KIND_SHIFT,
            Outcome::Error(n) => (2 << KIND_SHIFT) | (n & PAYLOAD),
            Outcome::Invalid => 3 << KIND_SHIFT,
            Outcome::Blocked => 4 << KIND_SHIFT,
        }
    }

    /// Inverse of [`Outcome::pack`].
    pub fn unpack(v: u32) -> Outcome {
        match v >> KIND_SHIFT {
            0 => Outcome::Output(v as u16),
            1 => Outcome::Silent,
            2 => Outcome::Error(v & PAYLOAD),
            3 => Outcome::Invalid,
            _ => Outcome::Blocked,
        }
    }

    /// Whether a run (an infinite LTL trace) can continue after this step.
    pub fn continues_trace(self) -> bool {
        matches!(self, Outcome::Output(_) | Outcome::Silent)
    }

    /// Whether a reachability run goes on after this step: an output, a
    /// silent step, or an invalid input (which keeps the state it left, or
    /// in 2012 programs the state it changed to).
    pub fn goes_on(self) -> bool {
        matches!(
            self,
            Outcome::Output(_) | Outcome::Silent | Outcome::Invalid
        )
    }

    /// The outcome in the words of logs and labelled transition systems
    /// (`rers-semantics.md`): the output's name, [`ERROR_LABEL`] for an
    /// invalid input, `error_N` for error label N.
    pub fn describe(self, outputs: &[String]) -> String {
        match self {
            Outcome::Output(k) => outputs
                .get(k as usize)
                .cloned()
                .unwrap_or_else(|| format!("#{k}")),
            Outcome::Invalid => ERROR_LABEL.to_string(),
            Outcome::Error(n) => error_n_label(n),
            Outcome::Silent => "no output".to_string(),
            Outcome::Blocked => "blocked (assume failed)".to_string(),
        }
    }
}

/// The label of an invalid input's output edge (RERS: "invalid input" is
/// equivalent to "error"), in logs and labelled transition systems.
pub const ERROR_LABEL: &str = "error";

/// The label of the edge that reaches error label `n`.
pub fn error_n_label(n: u32) -> String {
    format!("error_{n}")
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
    /// An explicit model whose state was never expanded (a partial model).
    Unexpanded,
    /// An input number outside the alphabet.
    NoSuchInput(usize),
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
            Fault::Unexpanded => write!(f, "the model has no transitions for this state"),
            Fault::NoSuchInput(i) => write!(f, "input number {i} is not in the alphabet"),
        }
    }
}

/// The result of one step: the outcome, or a fault.
pub type StepResult = std::result::Result<Outcome, Fault>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pack_roundtrip() {
        for o in [
            Outcome::Output(0),
            Outcome::Output(25),
            Outcome::Silent,
            Outcome::Error(0),
            Outcome::Error(99),
            Outcome::Invalid,
            Outcome::Blocked,
        ] {
            assert_eq!(Outcome::unpack(o.pack()), o);
        }
    }

    #[test]
    fn descriptions_follow_the_semantics_doc() {
        let outs = ["X".to_string()];
        assert_eq!(Outcome::Output(0).describe(&outs), "X");
        assert_eq!(Outcome::Invalid.describe(&outs), "error");
        assert_eq!(Outcome::Error(7).describe(&outs), "error_7");
    }
}
