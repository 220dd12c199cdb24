//! Guiding a concrete search with the abstraction.
//!
//! Every concrete step from a state the abstract state `a` contains is
//! matched by an abstract edge of `a` ([`super::explore`]), so every run
//! from the concrete state to an error label is matched by an abstract
//! path from `a` to it. The abstract distance is therefore a lower bound
//! on the concrete one, and where no abstract path from `a` ends in a
//! label, no run from the concrete state does either: a search for that
//! label need not expand it.

use super::graph::AbsGraph;
use crate::explore::{Estimate, Guide};

/// Estimates concrete states by the abstract distance of their abstract
/// state to the labels still looked for.
pub struct AbstractGuide<'g> {
    graph: &'g AbsGraph,
    /// The labels `distance` was computed for.
    labels: Vec<u32>,
    /// Per abstract state: its distance to `labels` (`u32::MAX`: none).
    distance: Vec<u32>,
    /// Concrete states no abstract state was found for.
    pub unlocated: u64,
    /// The abstract state of the last concrete state estimated, if it was
    /// located.
    pub last: Option<u32>,
}

impl<'g> AbstractGuide<'g> {
    /// A guide over the abstract transition system `graph`.
    pub fn new(graph: &'g AbsGraph) -> Self {
        AbstractGuide {
            graph,
            labels: Vec::new(),
            distance: vec![u32::MAX; graph.n_states()],
            unlocated: 0,
            last: None,
        }
    }
}

impl Guide for AbstractGuide<'_> {
    fn estimate(&mut self, state: &[i32], unfound: &[u32]) -> Estimate {
        if self.labels != unfound {
            self.labels = unfound.to_vec();
            self.distance = self.graph.distance_to(unfound);
        }
        self.last = self.graph.locate(state);
        match self.last {
            Some(a) => match self.distance[a as usize] {
                u32::MAX => Estimate::Dead,
                d => Estimate::AtLeast(d),
            },
            None => {
                self.unlocated += 1;
                Estimate::Unknown
            }
        }
    }
}
