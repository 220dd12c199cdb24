//! The explored input/output transition system of a program.
//!
//! Every program state has exactly one edge per input symbol (the program is
//! deterministic), so the graph is stored densely: edge `s * n_inputs + i` is
//! the step from state `s` on input `i`. This is the structure every property
//! checker (reachability, LTL, CTL) reads.

use serde::Serialize;

/// State id in a [`StateGraph`]; the initial state is 0.
pub type StateId = u32;

/// Marker for "no successor" (error, blocked, or a state not expanded).
pub const NO_STATE: StateId = u32::MAX;

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
    /// An SV-COMP `__VERIFIER_assume` failed: no run goes this way.
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
}

/// One edge: the successor state and the packed outcome.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Edge {
    /// Successor state, or [`NO_STATE`].
    pub target: StateId,
    /// Packed [`Outcome`].
    pub packed: u32,
}

impl Edge {
    /// The outcome of this edge.
    pub fn outcome(&self) -> Outcome {
        Outcome::unpack(self.packed)
    }
}

/// The reachable transition system of a program, as far as it was explored.
#[derive(Clone, Debug, Default)]
pub struct StateGraph {
    /// Input symbol names, indexed by input number.
    pub inputs: Vec<String>,
    /// Output symbol names, indexed by output number.
    pub outputs: Vec<String>,
    /// Edges, `n_inputs` per expanded state, in state order.
    pub edges: Vec<Edge>,
    /// Number of states discovered (ids `0..n_states`).
    pub n_states: u32,
    /// States `0..n_expanded` have their edges; the others were discovered
    /// but not expanded (the exploration stopped at a limit).
    pub n_expanded: u32,
}

impl StateGraph {
    /// Number of input symbols.
    pub fn n_inputs(&self) -> usize {
        self.inputs.len()
    }

    /// Whether every discovered state was expanded.
    pub fn is_complete(&self) -> bool {
        self.n_expanded == self.n_states
    }

    /// Whether state `s` has its edges.
    pub fn is_expanded(&self, s: StateId) -> bool {
        s < self.n_expanded
    }

    /// The edges of an expanded state, one per input.
    pub fn edges_of(&self, s: StateId) -> &[Edge] {
        let n = self.n_inputs();
        let start = s as usize * n;
        &self.edges[start..start + n]
    }

    /// The edge from `s` on input `i`.
    pub fn edge(&self, s: StateId, input: usize) -> Edge {
        self.edges[s as usize * self.n_inputs() + input]
    }

    /// Builds a graph from explicit rows (for tests and converters): `rows[s][i]`
    /// is `(target, outcome)`; every state is expanded.
    pub fn from_rows(
        inputs: Vec<String>,
        outputs: Vec<String>,
        rows: &[Vec<(StateId, Outcome)>],
    ) -> StateGraph {
        let mut edges = Vec::with_capacity(rows.len() * inputs.len());
        for row in rows {
            assert_eq!(row.len(), inputs.len(), "one edge per input");
            for &(target, o) in row {
                edges.push(Edge {
                    target,
                    packed: o.pack(),
                });
            }
        }
        StateGraph {
            inputs,
            outputs,
            edges,
            n_states: rows.len() as u32,
            n_expanded: rows.len() as u32,
        }
    }

    /// Approximate heap size in bytes.
    pub fn heap_bytes(&self) -> usize {
        self.edges.capacity() * std::mem::size_of::<Edge>()
    }
}

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
    fn from_rows_indexes() {
        let g = StateGraph::from_rows(
            vec!["A".into(), "B".into()],
            vec!["X".into()],
            &[
                vec![(1, Outcome::Output(0)), (NO_STATE, Outcome::Error(3))],
                vec![(1, Outcome::Silent), (1, Outcome::Invalid)],
            ],
        );
        assert_eq!(g.edge(0, 1).outcome(), Outcome::Error(3));
        assert_eq!(g.edges_of(1)[0].target, 1);
        assert!(g.is_complete());
    }
}
