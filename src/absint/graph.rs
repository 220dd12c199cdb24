//! The abstract transition system, as data: abstract states (one interval
//! per state slot), their edges (any number per input), and what the
//! checkers ask of it: the labels it reaches, distances and paths to them,
//! and the abstract state holding a concrete one.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use super::cells::Cells;
use super::interval::Interval;
use super::step::AbsState;
use crate::system::{replay, IoGraph, Outcome, StateId, System, NO_STATE};

/// One abstract edge.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct AbsEdge {
    /// Input number.
    pub input: u16,
    /// Packed [`Outcome`].
    pub packed: u32,
    /// Target state, [`NO_STATE`] for an error, a blocked step, or an
    /// invalid input that stored nothing (the state stays as it was).
    pub target: StateId,
}

impl AbsEdge {
    /// The outcome of this edge.
    pub fn outcome(&self) -> Outcome {
        Outcome::unpack(self.packed)
    }

    /// Whether this is an invalid input that stored nothing (no target:
    /// the state stays as it was).
    pub fn is_unchanged(&self) -> bool {
        self.target == NO_STATE && self.outcome() == Outcome::Invalid
    }

    /// The abstract state the step leads to from `from`: its target, or
    /// `from` itself for an invalid input that stored nothing; `None` where
    /// the run ends (an error, a blocked step).
    pub fn successor(&self, from: StateId) -> Option<StateId> {
        match self.target {
            NO_STATE if self.is_unchanged() => Some(from),
            NO_STATE => None,
            t => Some(t),
        }
    }
}

/// A fault site of the abstraction: the step from `state` on `input` may
/// fault in some run ([`super::bounds`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AbsFault {
    /// The abstract state.
    pub state: StateId,
    /// The input number.
    pub input: u16,
    /// What may go wrong, located.
    pub why: String,
}

/// The complete abstract transition system (state 0 is initial).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct AbsGraph {
    /// Input names.
    pub inputs: Vec<String>,
    /// Output names.
    pub outputs: Vec<String>,
    /// The intervals of each abstract state.
    pub values: Vec<AbsState>,
    /// The edges of each abstract state (any number per input).
    pub edges: Vec<Vec<AbsEdge>>,
    /// Numeric slots (abstracted to intervals).
    pub numeric_slots: usize,
    /// Expansions done (more than the states when intervals grew).
    pub expansions: u64,
    /// Where the step may fault, as last expanded. A graph with any proves
    /// nothing (the rounds never return one as their result).
    pub faults: Vec<AbsFault>,
    /// The cells the keys are made of.
    pub(super) cells: Cells,
    /// The state of each key.
    pub(super) index: FxHashMap<Vec<i64>, StateId>,
}

impl AbsGraph {
    /// Number of abstract states.
    pub fn n_states(&self) -> usize {
        self.values.len()
    }

    /// Every error label some abstract edge reaches, sorted.
    pub fn error_labels(&self) -> Vec<u32> {
        let mut v: Vec<u32> = self
            .edges
            .iter()
            .flatten()
            .filter_map(|e| match e.outcome() {
                Outcome::Error(n) => Some(n),
                _ => None,
            })
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// The abstract state that contains the concrete state `state`, if the
    /// one with its key does (a state whose intervals span several cells,
    /// where splitting was capped, is not looked for). Every step from
    /// `state` is then matched by an edge of the returned state.
    pub fn locate(&self, state: &[i32]) -> Option<StateId> {
        self.locate_keyed(state).1
    }

    /// [`AbsGraph::locate`], with the key `state` has.
    pub(super) fn locate_keyed(&self, state: &[i32]) -> (Vec<i64>, Option<StateId>) {
        let points: AbsState = state.iter().map(|&v| Interval::point(v)).collect();
        let key = self.cells.key(&points);
        let found = self.index.get(&key).copied().filter(|&s| {
            let values = &self.values[s as usize];
            values.len() == state.len()
                && values.iter().zip(state).all(|(i, &v)| i.contains(v as i64))
        });
        (key, found)
    }

    /// Per abstract state: the fewest steps of an abstract path from it
    /// that ends in one of the error `labels` (the error step included;
    /// invalid inputs go on, as in reachability), `u32::MAX` where none does.
    pub fn distance_to(&self, labels: &[u32]) -> Vec<u32> {
        let n = self.n_states();
        let mut preds: Vec<Vec<StateId>> = vec![Vec::new(); n];
        let mut dist = vec![u32::MAX; n];
        let mut queue = std::collections::VecDeque::new();
        for (s, edges) in self.edges.iter().enumerate() {
            for e in edges {
                match e.outcome() {
                    Outcome::Error(l) if labels.contains(&l) && dist[s] == u32::MAX => {
                        dist[s] = 1;
                        queue.push_back(s as StateId);
                    }
                    Outcome::Error(_) | Outcome::Blocked => {}
                    _ if e.target != NO_STATE => preds[e.target as usize].push(s as StateId),
                    _ => {}
                }
            }
        }
        while let Some(t) = queue.pop_front() {
            for &s in &preds[t as usize] {
                if dist[s as usize] == u32::MAX {
                    dist[s as usize] = dist[t as usize] + 1;
                    queue.push_back(s);
                }
            }
        }
        dist
    }

    /// The inputs of a shortest abstract path ending in error `label`
    /// (invalid inputs go on, as in reachability): a candidate witness.
    pub fn path_to_error(&self, label: u32) -> Option<Vec<usize>> {
        let steps = self.error_path(label)?;
        Some(steps.into_iter().map(|(_, i)| i).collect())
    }

    /// [`AbsGraph::path_to_error`] with the state each step leaves from.
    pub fn error_path(&self, label: u32) -> Option<Vec<(StateId, usize)>> {
        self.error_paths(Some(label)).remove(&label)
    }

    /// The inputs of a shortest abstract path to every error label the
    /// graph reaches, from one breadth-first search.
    pub fn paths_to_errors(&self) -> BTreeMap<u32, Vec<usize>> {
        let paths = self.error_paths(None);
        let inputs = |p: Vec<(StateId, usize)>| p.into_iter().map(|(_, i)| i).collect();
        paths.into_iter().map(|(l, p)| (l, inputs(p))).collect()
    }

    /// The labels the graph reaches whose shortest abstract path does not
    /// replay on `sys` (the program it abstracts) to that label: what a
    /// more precise abstraction might still prove unreachable.
    pub fn unreplayed_labels<S: System>(&self, sys: &S) -> usize {
        let replays = |(l, path): &(u32, Vec<usize>)| replay(sys, path) == Ok(Outcome::Error(*l));
        self.paths_to_errors()
            .into_iter()
            .filter(|e| !replays(e))
            .count()
    }

    /// Shortest abstract paths, with the state each step leaves from, to
    /// `only` that label or else to every label, from one breadth-first
    /// search (each label's path is the one the search meets first).
    fn error_paths(&self, only: Option<u32>) -> BTreeMap<u32, Vec<(StateId, usize)>> {
        let n = self.n_states();
        let mut parent: Vec<Option<(StateId, u16)>> = vec![None; n];
        let mut seen = vec![false; n];
        let mut queue = std::collections::VecDeque::from([0 as StateId]);
        seen[0] = true;
        let path_to = |parent: &[Option<(StateId, u16)>], mut s: StateId| {
            let mut p = Vec::new();
            while let Some((from, i)) = parent[s as usize] {
                p.push((from, i as usize));
                s = from;
            }
            p.reverse();
            p
        };
        let mut found = BTreeMap::new();
        while let Some(s) = queue.pop_front() {
            for e in &self.edges[s as usize] {
                match e.outcome() {
                    Outcome::Error(l) => {
                        if only.is_none_or(|o| o == l) && !found.contains_key(&l) {
                            let mut p = path_to(&parent, s);
                            p.push((s, e.input as usize));
                            found.insert(l, p);
                            if only.is_some() {
                                return found;
                            }
                        }
                    }
                    Outcome::Blocked => {}
                    // An invalid input that left the state as it was.
                    _ if e.target == NO_STATE => {}
                    _ => {
                        if !seen[e.target as usize] {
                            seen[e.target as usize] = true;
                            parent[e.target as usize] = Some((s, e.input));
                            queue.push_back(e.target);
                        }
                    }
                }
            }
        }
        found
    }
}

/// The abstraction as an input/output graph: any number of steps per input;
/// an invalid input that stored nothing has no target.
impl IoGraph for AbsGraph {
    fn input_names(&self) -> &[String] {
        &self.inputs
    }

    fn output_names(&self) -> &[String] {
        &self.outputs
    }

    fn state_count(&self) -> u32 {
        self.n_states() as u32
    }

    /// A graph with fault sites proves nothing and is not whole.
    fn all_expanded(&self) -> bool {
        self.faults.is_empty()
    }

    fn for_each_step(&self, s: StateId, f: &mut dyn FnMut(usize, Outcome, StateId)) {
        for e in &self.edges[s as usize] {
            f(e.input as usize, e.outcome(), e.target);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::runtime::Budget;
    use crate::system::System;

    /// Serialized (to hand to the processes of a cluster), a graph locates every state of a random run where
    /// the original does, and has the same edges.
    #[test]
    fn a_graph_read_back_from_its_bytes_locates_as_the_original() {
        use rand::{Rng, SeedableRng};
        let mut read_back = 0;
        for rel in super::super::BUNDLED {
            let (p, m) = super::super::bundled(rel);
            // The arrays problem has no abstraction.
            let Ok(g) = super::super::explore_abstract(&p, &m, &Budget::unlimited()) else {
                continue;
            };
            read_back += 1;
            let bytes = bincode::serialize(&g).expect("serializes");
            let back: super::AbsGraph = bincode::deserialize(&bytes).expect("reads back");
            assert_eq!(back.edges, g.edges, "{rel}");
            assert_eq!(back.values, g.values, "{rel}");
            let mut rng = rand_pcg::Pcg64::seed_from_u64(7);
            let mut scratch = m.scratch();
            let mut s = m.initial_state();
            let mut next = s.clone();
            for _ in 0..200 {
                assert_eq!(back.locate(&s), g.locate(&s), "{rel}: {s:?}");
                let input = rng.random_range(0..m.n_inputs());
                match m.step(&mut scratch, &s, input, &mut next) {
                    Ok(o) if o.goes_on() => std::mem::swap(&mut s, &mut next),
                    _ => s = m.initial_state(),
                }
            }
        }
        assert!(read_back >= 5, "{read_back}");
        assert!(bincode::deserialize::<super::AbsGraph>(b"not a graph").is_err());
    }
}
