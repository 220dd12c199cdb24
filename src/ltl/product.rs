//! Products of an automaton with the program's trace system, and with a
//! single lasso word (for testing the translation).
//!
//! A program step from state `s` on input `i` contributes the letters
//! `i` then `o` (output) or just `i` (silent, 2012). Steps ending in an
//! error, an invalid input or a failed assumption end the run and so give
//! no infinite trace: they have no product successor. One product edge reads
//! the whole step, so its acceptance marks are the union of those of the
//! automaton edges for its one or two letters.

use std::cell::Cell;

use super::emptiness::{Product, Succ};
use super::translate::Tgba;
use crate::system::{Outcome, StateGraph, NO_STATE};

/// Packs a product state.
#[inline]
pub fn pack(s: u32, q: u32) -> u64 {
    ((s as u64) << 32) | q as u64
}

/// Unpacks a product state into (program or word position, automaton state).
#[inline]
pub fn unpack(x: u64) -> (u32, u32) {
    ((x >> 32) as u32, x as u32)
}

/// The product's moves along one program step from automaton state `q`
/// to program state `target`: the automaton reads input `i`, then the
/// output (letter `inputs + k`) if the step has one; a step that ends the
/// run (an error, a failed assumption) has none. The caller decides which
/// invalid inputs continue the trace.
fn automaton_moves(
    tgba: &Tgba,
    q: u32,
    i: usize,
    inputs: usize,
    outcome: Outcome,
    target: u32,
    out: &mut Vec<Succ>,
) {
    let output = match outcome {
        Outcome::Silent | Outcome::Invalid => None,
        Outcome::Output(k) => Some(inputs + k as usize),
        Outcome::Error(_) | Outcome::Blocked => return,
    };
    for &(q1, a1) in tgba.succ(q, i) {
        let Some(o) = output else {
            out.push(Succ {
                target: pack(target, q1),
                acc: a1,
                label: i as u32,
            });
            continue;
        };
        for &(q2, a2) in tgba.succ(q1, o) {
            out.push(Succ {
                target: pack(target, q2),
                acc: a1 | a2,
                label: i as u32,
            });
        }
    }
}

/// The product of an explored [`StateGraph`] with a [`Tgba`] whose letters
/// are the program's inputs then outputs. Edge labels are input numbers.
pub struct GraphProduct<'a> {
    graph: &'a StateGraph,
    tgba: &'a Tgba,
    /// Set when the search reached a state the exploration did not expand.
    pub touched_unexpanded: Cell<bool>,
    /// Whether an invalid step that changed the state continues the trace
    /// (as an input with no output); see [`crate::ltl::check::invalid_continues`].
    invalid_continues: bool,
}

impl<'a> GraphProduct<'a> {
    /// The product, starting in program state 0.
    pub fn new(graph: &'a StateGraph, tgba: &'a Tgba, invalid_continues: bool) -> Self {
        assert_eq!(tgba.n_letters, graph.inputs.len() + graph.outputs.len());
        GraphProduct {
            graph,
            tgba,
            touched_unexpanded: Cell::new(false),
            invalid_continues,
        }
    }
}

impl Product for GraphProduct<'_> {
    fn initial(&self, out: &mut Vec<u64>) {
        if self.graph.n_states > 0 {
            out.extend(self.tgba.initial.iter().map(|&q| pack(0, q)));
        }
    }

    fn successors(&self, x: u64, out: &mut Vec<Succ>) {
        let (s, q) = unpack(x);
        if !self.graph.is_expanded(s) {
            self.touched_unexpanded.set(true);
            return;
        }
        let ni = self.graph.n_inputs();
        for (i, e) in self.graph.edges_of(s).iter().enumerate() {
            if e.target == NO_STATE && e.outcome().continues_trace() {
                // A step the exploration could not follow (an engine fault).
                self.touched_unexpanded.set(true);
                continue;
            }
            match e.outcome() {
                Outcome::Invalid if !self.invalid_continues || e.target == s => {}
                outcome => automaton_moves(self.tgba, q, i, ni, outcome, e.target, out),
            }
        }
    }

    fn all_acc(&self) -> u32 {
        self.tgba.all_acc()
    }

    fn dense_bound(&self) -> Option<u64> {
        Some(self.graph.n_states as u64 * self.tgba.n_states as u64)
    }

    #[inline]
    fn index(&self, x: u64) -> usize {
        let (s, q) = unpack(x);
        s as usize * self.tgba.n_states + q as usize
    }
}

/// The product of a [`Tgba`] with one lasso word given as letter numbers:
/// non-empty iff the automaton accepts the word.
pub struct WordProduct<'a> {
    tgba: &'a Tgba,
    word: Vec<usize>,
    loop_start: usize,
}

impl<'a> WordProduct<'a> {
    /// The product with `prefix cycle^ω` (`cycle` non-empty).
    pub fn new(tgba: &'a Tgba, prefix: &[usize], cycle: &[usize]) -> Self {
        assert!(!cycle.is_empty());
        let mut word = prefix.to_vec();
        word.extend_from_slice(cycle);
        WordProduct {
            tgba,
            word,
            loop_start: prefix.len(),
        }
    }
}

impl Product for WordProduct<'_> {
    fn initial(&self, out: &mut Vec<u64>) {
        out.extend(self.tgba.initial.iter().map(|&q| pack(0, q)));
    }

    fn successors(&self, x: u64, out: &mut Vec<Succ>) {
        let (p, q) = unpack(x);
        let p = p as usize;
        let np = if p + 1 < self.word.len() {
            p + 1
        } else {
            self.loop_start
        };
        for &(q1, a) in self.tgba.succ(q, self.word[p]) {
            out.push(Succ {
                target: pack(np as u32, q1),
                acc: a,
                label: 0,
            });
        }
    }

    fn all_acc(&self) -> u32 {
        self.tgba.all_acc()
    }
}

/// Whether `tgba` accepts `prefix cycle^ω`.
pub fn accepts(tgba: &Tgba, prefix: &[usize], cycle: &[usize]) -> bool {
    super::emptiness::check(&WordProduct::new(tgba, prefix, cycle))
        .lasso
        .is_some()
}

/// The product of an abstract transition system ([`crate::absint`]) with a
/// [`Tgba`]: like [`GraphProduct`], but a state may have any number of
/// edges per input. Every program trace is a trace of the abstraction, so an
/// empty product proves the property; a lasso is only a candidate.
pub struct AbstractProduct<'a> {
    graph: &'a crate::absint::AbsGraph,
    tgba: &'a Tgba,
    /// See [`GraphProduct`]; here an invalid step continues unless its edge
    /// has no target (a step that stored nothing): one that stored
    /// something may have left the state as it was, which only adds
    /// traces.
    invalid_continues: bool,
}

impl<'a> AbstractProduct<'a> {
    /// The product, starting in abstract state 0.
    pub fn new(
        graph: &'a crate::absint::AbsGraph,
        tgba: &'a Tgba,
        invalid_continues: bool,
    ) -> Self {
        assert_eq!(tgba.n_letters, graph.inputs.len() + graph.outputs.len());
        AbstractProduct {
            graph,
            tgba,
            invalid_continues,
        }
    }
}

impl Product for AbstractProduct<'_> {
    fn initial(&self, out: &mut Vec<u64>) {
        if self.graph.n_states() > 0 {
            out.extend(self.tgba.initial.iter().map(|&q| pack(0, q)));
        }
    }

    fn successors(&self, x: u64, out: &mut Vec<Succ>) {
        let (s, q) = unpack(x);
        let ni = self.graph.inputs.len();
        for e in &self.graph.edges[s as usize] {
            let i = e.input as usize;
            match e.outcome() {
                // An invalid input that left the state as it was ends the
                // run (its edge has no target).
                Outcome::Invalid if !self.invalid_continues || e.target == NO_STATE => {}
                outcome => automaton_moves(self.tgba, q, i, ni, outcome, e.target, out),
            }
        }
    }

    fn all_acc(&self) -> u32 {
        self.tgba.all_acc()
    }

    fn dense_bound(&self) -> Option<u64> {
        Some(self.graph.n_states() as u64 * self.tgba.n_states as u64)
    }

    #[inline]
    fn index(&self, x: u64) -> usize {
        let (s, q) = unpack(x);
        s as usize * self.tgba.n_states + q as usize
    }
}
