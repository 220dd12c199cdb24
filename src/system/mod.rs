//! The transition-system interface: "a system that steps".
//!
//! Every explorer and checker of rigor is generic over [`System`]: a
//! deterministic input/output system whose states are fixed-width vectors of
//! ints, with an initial state, an input alphabet, and a step that, given a
//! state and an input, yields an [`Outcome`] (an output, a silent step, an
//! invalid input, an error label) and the successor, or a [`Fault`]. The
//! compiled program ([`crate::engine::Machine`]), two programs run in
//! lockstep ([`crate::equivalence::lockstep::Lockstep`]) and explicit models read
//! from `.aut`/`.dot` files or explored before ([`StateGraph`]) implement
//! it, so reachability, LTL and CTL run on any of them through one path.
//!
//! This layer also holds the explicit graph an exploration produces
//! ([`graph`]) and the replay of an input sequence ([`replay`]), which is
//! how every witness is confirmed before it is reported. What the process
//! runs under (the budget, memory, priority, threads) is
//! [`crate::runtime`].

pub mod graph;
pub mod outcome;

pub use graph::{Edge, IoGraph, StateGraph, StateId, NO_STATE};
pub use outcome::{error_n_label, Fault, Outcome, StepResult, ERROR_LABEL};

/// A deterministic input/output transition system.
///
/// States are vectors of [`System::state_width`] ints; the step is a pure
/// function of the state and the input (so a run can be replayed). The
/// successor written by [`System::step`] is meaningful only when the outcome
/// lets the run go on ([`Outcome::goes_on`]).
pub trait System {
    /// Per-worker scratch memory for [`System::step`].
    type Scratch;

    /// Input symbol names, indexed by input number.
    fn inputs(&self) -> &[String];

    /// Output symbol names, indexed by output number.
    fn outputs(&self) -> &[String];

    /// The error labels that are reachability properties, sorted.
    fn error_labels(&self) -> &[u32];

    /// Number of ints in a state.
    fn state_width(&self) -> usize;

    /// The initial state.
    fn initial_state(&self) -> Vec<i32>;

    /// Fresh scratch memory.
    fn scratch(&self) -> Self::Scratch;

    /// One step from `state` on input number `input`; the successor is
    /// written to `next` (same width).
    fn step(
        &self,
        scratch: &mut Self::Scratch,
        state: &[i32],
        input: usize,
        next: &mut [i32],
    ) -> StepResult;

    /// Number of input symbols.
    fn n_inputs(&self) -> usize {
        self.inputs().len()
    }

    /// The number of the input with this name.
    fn input_index(&self, name: &str) -> Option<usize> {
        self.inputs().iter().position(|n| n == name)
    }
}

/// Why a replayed input sequence was rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplayError {
    /// The run stopped (error, blocked) before the last input.
    StoppedEarly {
        /// The step that ended the run.
        at: usize,
        /// Its outcome.
        outcome: Option<Outcome>,
    },
    /// An input index is out of range.
    BadInput(usize),
    /// The step faulted.
    Fault(Fault),
}

impl std::fmt::Display for ReplayError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReplayError::StoppedEarly { at, outcome } => {
                write!(f, "the run ended at step {} ({outcome:?})", at + 1)
            }
            ReplayError::BadInput(i) => write!(f, "input number {i} is out of range"),
            ReplayError::Fault(x) => write!(f, "fault: {x}"),
        }
    }
}

/// Runs `inputs` from the initial state and returns the outcome of the last
/// step. Intermediate steps must let the run go on ([`Outcome::goes_on`]).
pub fn replay<S: System + ?Sized>(sys: &S, inputs: &[usize]) -> Result<Outcome, ReplayError> {
    Ok(replay_outcomes(sys, inputs)?
        .pop()
        .unwrap_or(Outcome::Silent))
}

/// Runs `inputs` from the initial state and returns the outcome of every
/// step, as [`replay`] checks them.
pub fn replay_outcomes<S: System + ?Sized>(
    sys: &S,
    inputs: &[usize],
) -> Result<Vec<Outcome>, ReplayError> {
    let mut scratch = sys.scratch();
    let mut cur = sys.initial_state();
    let mut next = cur.clone();
    let mut outcomes = Vec::with_capacity(inputs.len());
    for (k, &i) in inputs.iter().enumerate() {
        if i >= sys.n_inputs() {
            return Err(ReplayError::BadInput(i));
        }
        let o = sys
            .step(&mut scratch, &cur, i, &mut next)
            .map_err(ReplayError::Fault)?;
        if !o.goes_on() && k + 1 < inputs.len() {
            return Err(ReplayError::StoppedEarly {
                at: k,
                outcome: Some(o),
            });
        }
        outcomes.push(o);
        std::mem::swap(&mut cur, &mut next);
    }
    Ok(outcomes)
}
