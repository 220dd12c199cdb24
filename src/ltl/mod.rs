//! LTL model checking of RERS problems.
//!
//! Pipeline: property files ([`syntax`]) → automaton of the negated formula
//! ([`translate`], Gastin–Oddoux) → product with the explored program
//! ([`product`]) → generalized Büchi emptiness with a lasso ([`emptiness`],
//! Couvreur) → lasso replayed on the engine and checked by a direct
//! evaluator ([`lasso`]) → verdicts ([`check`]).
//!
//! Semantics (see `docs/rers-semantics.md`): one atom per position, input
//! then output positions (inputs only for silent 2012 steps), and only
//! infinite runs count: a step ending in an error or an invalid input ends
//! the run, which then contributes no trace.

pub mod check;
pub mod emptiness;
pub mod lasso;
pub mod product;
pub mod quotient;
pub mod syntax;
pub mod translate;
