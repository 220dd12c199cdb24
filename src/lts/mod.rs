//! Labelled transition systems: the model the action-based CTL checker reads.
//!
//! Every checker here reads a system through one interface,
//! [`LabelledGraph`]: an [`Lts`] (states `0..n_states`, an initial state,
//! labelled transitions), into which Aldebaran `.aut` files ([`aut`]) and
//! Graphviz Mealy machines ([`dot`]) load, and [`ProgramLts`], the view of
//! an explored program or of its abstraction (any
//! [`crate::system::IoGraph`]) through the labelling of
//! `rers-semantics.md` ([`from_program`], the one place it is implemented),
//! which copies nothing. [`to_graph`] turns an alternating system back into
//! the [`StateGraph`] that reachability and LTL explore as a
//! [`crate::system::System`].
//!
//! The graph algorithms here are written by hand on purpose: the CTL
//! fixpoints are predecessor worklists over labelled edges
//! ([`Adjacency`]), and [`Lts::bisimilar`] is partition refinement; graph
//! crates such as petgraph offer neither, and converting to their graphs
//! would only copy the edges.

pub mod aut;
pub mod dot;
pub mod from_program;
pub mod labelled;
pub mod to_graph;

use std::collections::{HashMap, VecDeque};

pub use from_program::{from_graph, ProgramLts};
pub use labelled::LabelledGraph;
pub use to_graph::{to_state_graph, NotInputOutput};

use crate::source::{Diagnostic, ReadError};
use crate::system::StateGraph;

/// A model file that cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ModelError {
    /// The file could not be read.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// The text is not a `.aut` or `.dot` model.
    #[error(transparent)]
    Syntax(#[from] Diagnostic),
    /// The model is not an alternating input/output system.
    #[error("{file}: not an input/output system: {reason}")]
    NotInputOutput {
        /// The file.
        file: String,
        /// Where it is not one.
        reason: NotInputOutput,
    },
}

/// The kind of model a path names, by its extension.
fn model_kind(path: &str) -> Option<&'static str> {
    let ext = std::path::Path::new(path)
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "aut" => Some("aut"),
        "dot" | "gv" => Some("dot"),
        _ => None,
    }
}

/// Reads a `.aut` or `.dot` model; `None` for other extensions (programs).
pub fn read_model(path: &str) -> Option<Result<Lts, ModelError>> {
    Some(match model_kind(path)? {
        "aut" => aut::read(path),
        _ => dot::read(path),
    })
}

/// Reads a `.aut` or `.dot` model as the input/output [`StateGraph`] the
/// reachability and LTL checkers explore (see [`to_graph`]); `None` for
/// other extensions (programs are compiled instead).
pub fn load_model_graph(path: &str) -> Option<Result<StateGraph, ModelError>> {
    let lts = read_model(path)?;
    Some(lts.and_then(|l| {
        to_state_graph(&l).map_err(|reason| ModelError::NotInputOutput {
            file: path.to_string(),
            reason,
        })
    }))
}

/// State id in an [`Lts`].
pub type LtsState = u32;

/// One labelled transition.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Transition {
    /// Source state.
    pub from: LtsState,
    /// Index into [`Lts::labels`].
    pub label: u32,
    /// Target state.
    pub to: LtsState,
}

/// A labelled transition system.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Lts {
    /// Number of states (ids `0..n_states`).
    pub n_states: u32,
    /// The initial state.
    pub initial: LtsState,
    /// Label names; a transition refers to a label by index.
    pub labels: Vec<String>,
    /// The transitions.
    pub transitions: Vec<Transition>,
    /// False when the model is only a part of the real system (an
    /// exploration that stopped at a limit or hit an engine fault): then no
    /// CTL verdict may be drawn from it.
    pub complete: bool,
}

/// Builds an [`Lts`] label by label (interning label names).
#[derive(Clone, Debug, Default)]
pub struct LtsBuilder {
    lts: Lts,
    index: HashMap<String, u32>,
}

impl LtsBuilder {
    /// An empty, complete system with initial state 0 and no states yet.
    pub fn new() -> LtsBuilder {
        LtsBuilder {
            lts: Lts {
                complete: true,
                ..Lts::default()
            },
            index: HashMap::new(),
        }
    }

    /// The index of a label, interning it.
    pub fn label(&mut self, name: &str) -> u32 {
        if let Some(&i) = self.index.get(name) {
            return i;
        }
        let i = self.lts.labels.len() as u32;
        self.lts.labels.push(name.to_string());
        self.index.insert(name.to_string(), i);
        i
    }

    /// A fresh state.
    pub fn state(&mut self) -> LtsState {
        self.lts.n_states += 1;
        self.lts.n_states - 1
    }

    /// Makes sure states `0..n` exist.
    pub fn ensure_states(&mut self, n: u32) {
        self.lts.n_states = self.lts.n_states.max(n);
    }

    /// Adds a transition (states must exist).
    pub fn edge(&mut self, from: LtsState, label: &str, to: LtsState) {
        let label = self.label(label);
        self.ensure_states(from.max(to) + 1);
        self.lts.transitions.push(Transition { from, label, to });
    }

    /// Sets the initial state.
    pub fn initial(&mut self, s: LtsState) {
        self.ensure_states(s + 1);
        self.lts.initial = s;
    }

    /// Marks the system as partial.
    pub fn incomplete(&mut self) {
        self.lts.complete = false;
    }

    /// The finished system.
    pub fn finish(self) -> Lts {
        self.lts
    }
}

/// Successor and predecessor lists of an [`Lts`] in compressed rows.
#[derive(Clone, Debug)]
pub struct Adjacency {
    succ_start: Vec<u32>,
    /// `(label, target)` per outgoing edge, grouped by source.
    succ: Vec<(u32, LtsState)>,
    pred_start: Vec<u32>,
    /// `(label, source)` per incoming edge, grouped by target.
    pred: Vec<(u32, LtsState)>,
}

impl Adjacency {
    /// Builds the lists (two passes over the transitions, no copy of them).
    pub fn new(g: &(impl LabelledGraph + ?Sized)) -> Adjacency {
        let n = g.n_states() as usize;
        let mut succ_start = vec![0u32; n + 1];
        let mut pred_start = vec![0u32; n + 1];
        g.for_each_transition(&mut |t| {
            succ_start[t.from as usize + 1] += 1;
            pred_start[t.to as usize + 1] += 1;
        });
        for i in 0..n {
            succ_start[i + 1] += succ_start[i];
            pred_start[i + 1] += pred_start[i];
        }
        let (mut succ_fill, mut pred_fill) = (succ_start.clone(), pred_start.clone());
        let mut succ = vec![(0, 0); succ_start[n] as usize];
        let mut pred = vec![(0, 0); pred_start[n] as usize];
        g.for_each_transition(&mut |t| {
            let (f, to) = (t.from as usize, t.to as usize);
            succ[succ_fill[f] as usize] = (t.label, t.to);
            succ_fill[f] += 1;
            pred[pred_fill[to] as usize] = (t.label, t.from);
            pred_fill[to] += 1;
        });
        Adjacency {
            succ_start,
            succ,
            pred_start,
            pred,
        }
    }

    /// Outgoing `(label, target)` edges of `s`.
    pub fn succ(&self, s: LtsState) -> &[(u32, LtsState)] {
        &self.succ[self.succ_start[s as usize] as usize..self.succ_start[s as usize + 1] as usize]
    }

    /// Incoming `(label, source)` edges of `s`.
    pub fn pred(&self, s: LtsState) -> &[(u32, LtsState)] {
        &self.pred[self.pred_start[s as usize] as usize..self.pred_start[s as usize + 1] as usize]
    }
}

impl Lts {
    /// The index of a label name, if the system has it.
    pub fn label_index(&self, name: &str) -> Option<u32> {
        self.labels.iter().position(|l| l == name).map(|i| i as u32)
    }

    /// The part reachable from the initial state, renumbered in
    /// breadth-first order (initial state 0; successors in label-name order),
    /// with only the labels it uses, in first-use order.
    pub fn reachable(&self) -> Lts {
        let adj = Adjacency::new(self);
        let mut id = vec![u32::MAX; self.n_states as usize];
        let mut order = Vec::new();
        let mut queue = VecDeque::new();
        if self.n_states > 0 {
            id[self.initial as usize] = 0;
            order.push(self.initial);
            queue.push_back(self.initial);
        }
        let mut b = LtsBuilder::new();
        let mut out_edges = Vec::new();
        while let Some(s) = queue.pop_front() {
            let mut succ: Vec<(u32, u32)> = adj.succ(s).to_vec();
            succ.sort_by(|a, c| {
                (&self.labels[a.0 as usize], a.1).cmp(&(&self.labels[c.0 as usize], c.1))
            });
            succ.dedup();
            for (l, t) in succ {
                if id[t as usize] == u32::MAX {
                    id[t as usize] = order.len() as u32;
                    order.push(t);
                    queue.push_back(t);
                }
                out_edges.push((id[s as usize], l, id[t as usize]));
            }
        }
        b.ensure_states(order.len() as u32);
        for (f, l, t) in out_edges {
            b.edge(f, &self.labels[l as usize], t);
        }
        let mut lts = b.finish();
        lts.complete = self.complete;
        lts
    }

    /// Whether the two systems are strongly bisimilar (initial states
    /// related), by naive partition refinement; label names are compared,
    /// not indices.
    pub fn bisimilar(&self, other: &Lts) -> bool {
        // Disjoint union: our states first, then the other's.
        let off = self.n_states;
        let mut names: Vec<String> = self.labels.clone();
        for l in &other.labels {
            if !names.contains(l) {
                names.push(l.clone());
            }
        }
        let mut b = LtsBuilder::new();
        b.ensure_states(self.n_states + other.n_states);
        for t in &self.transitions {
            b.edge(t.from, &self.labels[t.label as usize], t.to);
        }
        for t in &other.transitions {
            b.edge(t.from + off, &other.labels[t.label as usize], t.to + off);
        }
        let u = b.finish();
        let adj = Adjacency::new(&u);
        let n = u.n_states as usize;
        let mut block = vec![0u32; n];
        loop {
            let mut sigs: HashMap<(u32, Vec<(u32, u32)>), u32> = HashMap::new();
            let mut next = vec![0u32; n];
            for s in 0..n {
                let mut sig: Vec<(u32, u32)> = adj
                    .succ(s as u32)
                    .iter()
                    .map(|&(l, t)| (l, block[t as usize]))
                    .collect();
                sig.sort_unstable();
                sig.dedup();
                let len = sigs.len() as u32;
                next[s] = *sigs.entry((block[s], sig)).or_insert(len);
            }
            let n_old = block.iter().copied().max().map_or(0, |m| m + 1);
            let n_new = sigs.len() as u32;
            block = next;
            if n_new == n_old {
                break;
            }
        }
        if self.n_states == 0 || other.n_states == 0 {
            return self.n_states == other.n_states;
        }
        block[self.initial as usize] == block[(other.initial + off) as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> Lts {
        let mut b = LtsBuilder::new();
        b.edge(0, "a", 1);
        b.edge(1, "b", 0);
        b.edge(1, "c", 2);
        b.edge(3, "a", 3);
        b.finish()
    }

    #[test]
    fn adjacency_lists() {
        let l = small();
        let adj = Adjacency::new(&l);
        assert_eq!(adj.succ(1).len(), 2);
        assert_eq!(adj.pred(0), &[(1, 1)]);
        assert!(adj.succ(2).is_empty());
    }

    #[test]
    fn reachable_drops_unreachable() {
        let r = small().reachable();
        assert_eq!(r.n_states, 3);
        assert_eq!(r.transitions.len(), 3);
        assert!(r.bisimilar(&small()));
    }

    #[test]
    fn bisimulation_distinguishes() {
        // a.(b + c) versus a.b + a.c
        let mut x = LtsBuilder::new();
        x.edge(0, "a", 1);
        x.edge(1, "b", 2);
        x.edge(1, "c", 3);
        let mut y = LtsBuilder::new();
        y.edge(0, "a", 1);
        y.edge(0, "a", 2);
        y.edge(1, "b", 3);
        y.edge(2, "c", 4);
        assert!(!x.finish().bisimilar(&y.finish()));
        // a loop unrolled twice is bisimilar to the loop
        let mut p = LtsBuilder::new();
        p.edge(0, "a", 0);
        let mut q = LtsBuilder::new();
        q.edge(0, "a", 1);
        q.edge(1, "a", 0);
        assert!(p.finish().bisimilar(&q.finish()));
    }
}
