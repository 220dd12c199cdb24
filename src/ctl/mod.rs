//! Action-based CTL (RERS 2019 industrial tracks): syntax, the fixpoint
//! checker, and a slow path-enumerating oracle for tests.

pub mod check;
pub mod slow;
pub mod syntax;

pub use check::{Checker, Witness};
pub use syntax::{parse_formula, parse_properties, Formula, Property, PropertyFile};
