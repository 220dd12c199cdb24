//! Abstract interpretation of RERS programs over intervals.
//!
//! The arithmetic problems (RERS 2014 and later) keep a few variables that
//! take thousands of values (`a37 = (a37 * a80) % 14999 % 24 + 222`), so
//! their explicit state spaces run to hundreds of millions of states. The
//! program only ever compares those variables with constants, though, and
//! an interval abstraction keyed on those comparisons ([`explore`]) is
//! usually small. It over-approximates the program: what holds on every
//! abstract trace holds on every program trace; an abstract counterexample
//! is only a candidate, replayed on the engine before anything is claimed.
//!
//! - [`interval`]: the interval domain, with the engine's 32-bit semantics;
//! - [`step`]: one step of the IR over interval states, splitting on
//!   undecided conditions;
//! - [`inputs`]: one step for a set of inputs, split only where the
//!   input is compared;
//! - [`bounds`]: indices that may leave their array, split into the runs
//!   in bounds and candidate faults;
//! - [`cells`]: what abstract states are keyed on: numeric slots cut into
//!   cells by the constants they are compared with, counters and their
//!   congruences, widening;
//! - [`relevance`]: the slots a state's next step depends on;
//! - [`explore`]: the abstract transition system, a fixpoint over keys;
//! - [`rounds`]: its rounds, each key refined from the last round's graph;
//! - [`graph`]: the abstract transition system as data;
//! - [`pump`]: witness candidates for labels behind counter guards;
//! - [`guide`]: the abstract distance of concrete states to the labels
//!   still looked for, to order and prune a concrete search.

mod analysis;
pub mod bounds;
pub mod cells;
pub mod certify;
pub mod explore;
pub mod graph;
pub mod guide;
pub mod inputs;
pub mod interval;
mod narrow;
pub mod pump;
pub mod relevance;
pub mod rounds;
mod run;
pub mod step;

pub use explore::{share_of, AbsEdge, AbsGraph, AbstractionError, Unfinished};
pub use guide::AbstractGuide;
pub use pump::counter_witness;
pub use rounds::{explore_abstract, explore_abstract_best, explore_abstract_until};

/// A bundled problem (under `problems/`), lowered and compiled: the
/// programs the abstraction's unit tests run on.
#[cfg(test)]
fn bundled(rel: &str) -> (crate::ir::Program, crate::engine::Machine) {
    let path = format!("{}/problems/{rel}", env!("CARGO_MANIFEST_DIR"));
    let p = crate::frontend::load(&path).expect("loads");
    let m = crate::engine::Machine::compile(&p).expect("compiles");
    (p, m)
}

/// Bundled programs the abstraction's unit tests run on: arithmetic,
/// arrays, indices, pointers, modes, an invalid input, a pumped counter.
#[cfg(test)]
const BUNDLED: [&str; 7] = [
    "reach-arith/Problem902.c",
    "reach-arrays/Problem903.c",
    "reach-index/Problem914.c",
    "reach-joined-pointers/Problem913.c",
    "reach-modes/Problem909.c",
    "reach-invalid/Problem904.c",
    "reach-pump/Problem910.c",
];
