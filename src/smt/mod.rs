//! The step of a program as a bit-vector formula (z3), written from the IR
//! alone.
//!
//! [`SymbolicStep::encode`] turns one step of a [`Program`] into terms over
//! 32-bit vectors: a variable per global (per element for arrays) before the
//! step, one for the input, and for every global its value after the step,
//! with the conditions under which the step ends at each error label, as an
//! invalid input, blocked (`__VERIFIER_assume`), or in a fault the engine
//! would report (division by zero, an index out of bounds, a pointer to no
//! array, an output outside the alphabet, two outputs). Both branches of
//! every `if` are encoded, their updates guarded by the branch condition,
//! so the formula grows with the program and not with its paths.
//!
//! This module shares nothing with the engine or the abstract interpreter:
//! it is the second, independent reading of the IR that certificates are
//! checked against ([`crate::certificate`]). Loops are not encoded.

mod boxes;
pub mod frame;
mod span;
mod step;
mod value;

pub use boxes::{box_paths, BoxPath, Held, PathEnd};
pub use frame::{Frame, StateVar};
pub use span::Span;
pub use step::{EncodeError, SymbolicStep};
pub use value::{Cond, Value};
