//! The explored input/output transition system of a program.
//!
//! Every program state has exactly one edge per input symbol (the program is
//! deterministic), so the graph is stored densely: edge `s * n_inputs + i` is
//! the step from state `s` on input `i`. This is the structure the LTL and
//! CTL checkers read, and, as a [`System`] whose state is one state id, the
//! form `.aut`/`.dot` models are explored and replayed in.
//!
//! [`IoGraph`] is what every explicit input/output graph offers (this one,
//! one step per input; the abstraction's, any number): its states and their
//! steps. The labelled transition system of such a graph
//! ([`crate::lts::ProgramLts`]) and the checkers over it read nothing else.

use super::{Fault, Outcome, StepResult, System};

/// State id in a [`StateGraph`]; the initial state is 0.
pub type StateId = u32;

/// Marker for "no successor" (error, blocked, or a state not expanded).
pub const NO_STATE: StateId = u32::MAX;

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
    /// The error labels that are reachability properties, sorted.
    pub error_labels: Vec<u32>,
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
        let mut error_labels: Vec<u32> = (edges.iter())
            .filter_map(|e| match e.outcome() {
                Outcome::Error(n) => Some(n),
                _ => None,
            })
            .collect();
        error_labels.sort_unstable();
        error_labels.dedup();
        StateGraph {
            inputs,
            outputs,
            edges,
            n_states: rows.len() as u32,
            n_expanded: rows.len() as u32,
            error_labels,
        }
    }

    /// Approximate heap size in bytes.
    pub fn heap_bytes(&self) -> usize {
        self.edges.capacity() * std::mem::size_of::<Edge>()
    }
}

/// An explicit input/output graph: states `0..state_count()`, state 0
/// initial, and per state its steps, each an input, an [`Outcome`] and a
/// target ([`NO_STATE`] where the run ends, or where an invalid input left
/// the state as it was).
pub trait IoGraph {
    /// Input symbol names, indexed by input number.
    fn input_names(&self) -> &[String];
    /// Output symbol names, indexed by output number.
    fn output_names(&self) -> &[String];
    /// Number of states.
    fn state_count(&self) -> u32;
    /// Whether every state has all its steps (nothing was left unexplored).
    fn all_expanded(&self) -> bool;
    /// Calls `f(input, outcome, target)` on each step from `s` (none for a
    /// state that was not expanded).
    fn for_each_step(&self, s: StateId, f: &mut dyn FnMut(usize, Outcome, StateId));
}

impl IoGraph for StateGraph {
    fn input_names(&self) -> &[String] {
        &self.inputs
    }

    fn output_names(&self) -> &[String] {
        &self.outputs
    }

    fn state_count(&self) -> u32 {
        self.n_states
    }

    /// Complete, and every expanded state kept its edges (an exploration
    /// may drop them).
    fn all_expanded(&self) -> bool {
        self.is_complete() && self.edges.len() >= self.n_expanded as usize * self.n_inputs()
    }

    fn for_each_step(&self, s: StateId, f: &mut dyn FnMut(usize, Outcome, StateId)) {
        let n = self.n_inputs();
        if !self.is_expanded(s) || self.edges.len() < (s as usize + 1) * n {
            return;
        }
        for (i, e) in self.edges_of(s).iter().enumerate() {
            f(i, e.outcome(), e.target);
        }
    }
}

impl<G: IoGraph + ?Sized> IoGraph for &G {
    fn input_names(&self) -> &[String] {
        (**self).input_names()
    }

    fn output_names(&self) -> &[String] {
        (**self).output_names()
    }

    fn state_count(&self) -> u32 {
        (**self).state_count()
    }

    fn all_expanded(&self) -> bool {
        (**self).all_expanded()
    }

    fn for_each_step(&self, s: StateId, f: &mut dyn FnMut(usize, Outcome, StateId)) {
        (**self).for_each_step(s, f)
    }
}

/// An explicit model as a system: a state is one int, its id; the initial
/// state is 0. An invalid input without a recorded target stays where it
/// was. Stepping a state that was not expanded, or a step the exploration
/// could not follow, is a [`Fault::Unexpanded`].
impl System for StateGraph {
    type Scratch = ();

    fn inputs(&self) -> &[String] {
        &self.inputs
    }

    fn outputs(&self) -> &[String] {
        &self.outputs
    }

    fn error_labels(&self) -> &[u32] {
        &self.error_labels
    }

    fn state_width(&self) -> usize {
        1
    }

    fn initial_state(&self) -> Vec<i32> {
        vec![0]
    }

    fn scratch(&self) {}

    fn step(&self, _: &mut (), state: &[i32], input: usize, next: &mut [i32]) -> StepResult {
        let s = state[0] as StateId;
        if input >= self.n_inputs() {
            return Err(Fault::NoSuchInput(input));
        }
        if !self.is_expanded(s) {
            return Err(Fault::Unexpanded);
        }
        let e = self.edge(s, input);
        let o = e.outcome();
        next[0] = match (o, e.target) {
            (Outcome::Invalid, NO_STATE) => s as i32,
            (o, NO_STATE) if o.goes_on() => return Err(Fault::Unexpanded),
            (_, NO_STATE) => s as i32,
            (_, t) => t as i32,
        };
        Ok(o)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(g.error_labels, [3]);
    }

    #[test]
    fn a_graph_steps_as_a_system() {
        let g = StateGraph::from_rows(
            vec!["A".into(), "B".into()],
            vec!["X".into()],
            &[
                vec![(1, Outcome::Output(0)), (NO_STATE, Outcome::Invalid)],
                vec![(NO_STATE, Outcome::Error(3)), (1, Outcome::Silent)],
            ],
        );
        assert_eq!(crate::system::replay(&g, &[1, 0, 1]), Ok(Outcome::Silent));
        assert_eq!(crate::system::replay(&g, &[0, 0]), Ok(Outcome::Error(3)));
        let mut next = [0];
        assert_eq!(g.step(&mut (), &[0], 1, &mut next), Ok(Outcome::Invalid));
        assert_eq!(next, [0]);
    }
}
