//! The one interface of every explicit labelled transition system: a model
//! loaded from a file ([`Lts`]), an explored program or an abstraction seen
//! through the labelling of `rers-semantics.md` ([`super::ProgramLts`]).
//! The CTL checker, the `.aut` writer, the conversion back to an
//! input/output graph and the adjacency lists read nothing else, so none of
//! them needs a copy of the system in another type.

use super::{Lts, LtsBuilder, LtsState, Transition};

/// An explicit labelled transition system: states `0..n_states()`, an
/// initial state, label names, and transitions between states.
pub trait LabelledGraph {
    /// Number of state ids (`0..n`).
    fn n_states(&self) -> u32;
    /// The initial state.
    fn initial(&self) -> LtsState;
    /// Label names, indexed by a transition's `label`; no name twice.
    fn label_names(&self) -> Vec<String>;
    /// Calls `f` on every transition, in the order the system lists them
    /// (the adjacency lists keep it per source, and witnesses follow it).
    fn for_each_transition(&self, f: &mut dyn FnMut(Transition));
    /// False when the system is only a part of the real one (an exploration
    /// that stopped at a limit or faulted): no CTL verdict is drawn from it.
    fn is_complete(&self) -> bool;

    /// Number of transitions.
    fn n_transitions(&self) -> usize {
        let mut n = 0;
        self.for_each_transition(&mut |_| n += 1);
        n
    }

    /// A copy as an [`Lts`] (labels interned in first-use order).
    fn to_lts(&self) -> Lts {
        let names = self.label_names();
        let mut b = LtsBuilder::new();
        b.ensure_states(self.n_states());
        b.initial(self.initial());
        self.for_each_transition(&mut |t| b.edge(t.from, &names[t.label as usize], t.to));
        if !self.is_complete() {
            b.incomplete();
        }
        b.finish()
    }
}

impl LabelledGraph for Lts {
    fn n_states(&self) -> u32 {
        self.n_states
    }

    fn initial(&self) -> LtsState {
        self.initial
    }

    fn label_names(&self) -> Vec<String> {
        self.labels.clone()
    }

    fn for_each_transition(&self, f: &mut dyn FnMut(Transition)) {
        self.transitions.iter().for_each(|&t| f(t))
    }

    fn is_complete(&self) -> bool {
        self.complete
    }

    fn n_transitions(&self) -> usize {
        self.transitions.len()
    }
}
