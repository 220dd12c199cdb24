//! rigor: a verifier for RERS problems.
//!
//! Pipeline: front ends ([`frontend`]: C, Java) → one IR ([`ir`]) → a
//! compiled step engine ([`engine`]) → explorers ([`explore`]) → property
//! checkers ([`check`]) → answers (CSV, witnesses, reports).

pub mod abbadingo;
pub mod absint;
pub mod answers;
pub mod check;
pub mod cli;
pub mod ctl;
pub mod engine;
pub mod error;
pub mod explore;
pub mod frontend;
pub mod ir;
pub mod ltl;
pub mod lts;
pub mod solve;
