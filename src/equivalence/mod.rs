//! Equivalence of two programs' input/output transition systems, proved
//! three ways: by the shape of the code ([`structural`], with the
//! reorderings of [`commute`]), on the two interval abstractions
//! ([`abstraction`]), or by running both in lockstep ([`lockstep`]) until
//! every reachable pair of states agreed. The pipeline of `rigor compare`
//! is [`crate::check::compare`].

pub mod abstraction;
pub mod commute;
pub mod lockstep;
pub mod structural;
