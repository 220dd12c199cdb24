//! rigor: a verifier for RERS problems.
//!
//! Pipeline: front ends ([`frontend`]: C, Java) → one IR ([`ir`]) → a
//! compiled step engine ([`engine`]) → explorers ([`explore`]) → property
//! checkers ([`check`]) → answers ([`answers`]: CSV, witnesses, scores).

pub mod cli;
pub mod error;
pub mod explore;
pub mod ir;
