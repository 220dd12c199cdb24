//! Certificates of unreachability and their independent checker.
//!
//! A [`Certificate`] claims that some error labels are unreachable and
//! gives the reason: a set of regions (boxes over the program's global
//! variables, named as in the source) that contains the initial state, is
//! closed under the step, and from which no step ends at a claimed label or
//! in a fault. Its text form is `grammars/certificate.ebnf`; [`format`]
//! reads and writes it. [`check`] re-checks the three obligations on the
//! SMT encoding of the step ([`crate::smt`]), which shares no code with the
//! abstract interpreter that wrote the certificate.

pub mod check;
pub mod format;

pub use check::{check, CheckError, Checked, Counterexample, Obligation};
pub use format::{Bound, Certificate, Congruence, FormatError, Region, Var};
