//! rigor: a verifier for RERS problems.
//!
//! Pipeline: front ends ([`frontend`]: C, Java) → one IR ([`ir`]) → a
//! compiled step engine ([`engine`]) → the transition-system interface
//! ([`system`]) → explorers and provers ([`explore`], [`absint`]) →
//! property checkers ([`ltl`], [`ctl`], [`equivalence`]) → the pipelines
//! ([`check`]), native validation ([`validate`]) → answers and reports
//! ([`answers`], [`solve`]) → the command line ([`cli`]). `ARCHITECTURE.md`
//! draws the layers.

#![warn(missing_docs)]

pub mod abbadingo;
pub mod absint;
pub mod answers;
pub mod certificate;
pub mod check;
pub mod cli;
pub mod crosscheck;
pub mod ctl;
pub mod engine;
pub mod equivalence;
pub mod error;
pub mod explore;
pub mod frontend;
pub mod horn;
pub mod ir;
pub mod ltl;
pub mod lts;
pub mod report;
pub mod runtime;
pub mod smt;
pub mod solve;
pub mod source;
pub mod svcomp;
pub mod system;
pub mod validate;
