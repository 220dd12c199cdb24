//! Certificates of unreachability and of LTL properties, and their
//! independent checker.
//!
//! A [`Certificate`] claims that some error labels are unreachable and
//! gives the reason: a set of regions (boxes over the program's global
//! variables, named as in the source) that contains the initial state, is
//! closed under the step, and from which no step ends at a claimed label or
//! in a fault. Its text form is `grammars/certificate.ebnf`; [`format`]
//! reads and writes it. [`check`] re-checks the three obligations on the
//! SMT encoding of the step ([`crate::smt`]), which shares no code with the
//! abstract interpreter that wrote the certificate. A certificate of LTL
//! claims labels the regions' steps with their inputs and outputs; once
//! the checker has shown that the regions' graph has every run of the
//! program, the claims are checked on that finite graph ([`cycle`]).

mod boxed;
pub mod check;
pub mod cycle;
pub mod format;
pub mod invariant;

pub use check::{
    check, check_closed, CheckError, Checked, Counterexample, Obligation, SecondReading,
};
pub use format::invariant::InvariantCertificate;
pub use format::{Bound, Certificate, Congruence, Edge, EdgeStep, FormatError, Region, Var};
pub use invariant::check_invariant;
