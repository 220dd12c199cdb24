//! The certificate checker's own reading of the program: a second front
//! end and a second encoding of the step, sharing nothing with the ones
//! the provers use.
//!
//! rigor's provers read a program through [`crate::frontend`] into
//! [`crate::ir`], and its first checker ([`crate::certificate`]) encodes
//! that same IR. A mistake in the front end or the IR would then be made
//! by the prover and the checker alike, and a wrong verdict would pass.
//! This module reads the source again on its own: C through libclang's
//! AST ([`c_reader`]), Java through tree-sitter's parse ([`java_reader`]), into a form of its own ([`syntax`]); runs the step
//! symbolically on it ([`exec`], on values and z3 terms of its own,
//! [`value`]); and decides a certificate's obligations there
//! ([`regions`] for regions, [`inductive`] for one inductive invariant). Only the certificate's data ([`crate::certificate::format`])
//! is shared: both sides must agree on what the certificate says, not on
//! what the program means. `tests/architecture.rs` holds this module to
//! those imports.

pub mod c_reader;
pub mod cover;
pub mod exec;
mod inductive;
mod invariant;
pub mod java_reader;
pub mod layout;
pub mod regions;
pub mod syntax;
pub mod value;

use std::time::{Duration, Instant};

use crate::certificate::format::invariant::InvariantCertificate;
use crate::certificate::format::Certificate;

/// Why a program could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReadError {
    /// libclang could not be started or could not parse the file.
    #[error("libclang: {0}")]
    Clang(String),
    /// A construct the checker does not read, at a place in the source.
    #[error("{file}:{}:{}: {what}", at.line, at.col)]
    At {
        /// The file.
        file: String,
        /// Where.
        at: syntax::At,
        /// What.
        what: String,
    },
    /// The program does something the checker does not model.
    #[error("{what}")]
    Program {
        /// What.
        what: String,
    },
    /// A language the checker does not read yet.
    #[error("{0}: the independent checker reads C and Java programs only")]
    Language(String),
}

/// The checker's verdict when it is not an acceptance.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CrossError {
    /// The program could not be read.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// An obligation fails.
    #[error("{obligation} fails {detail}")]
    Rejected {
        /// Which obligation.
        obligation: String,
        /// Where, and a state that shows it.
        detail: String,
    },
    /// An obligation could not be decided (time, or z3 gave up).
    #[error("not decided: {why}")]
    Undecided {
        /// Why.
        why: String,
    },
}

/// A certificate every obligation of which holds.
#[derive(Debug, Clone, PartialEq)]
pub struct Accepted {
    /// The obligations decided.
    pub obligations: usize,
    /// Seconds taken.
    pub seconds: f64,
}

/// Reads the program at `path` with the checker's own reader; `strings`
/// numbers a Java program's string literals (the certificate's `string`
/// lines).
pub fn read_program(path: &str, strings: &[(i64, String)]) -> Result<syntax::Program, ReadError> {
    if path.ends_with(".c") {
        c_reader::read(path)
    } else if path.ends_with(".java") {
        java_reader::read(path, strings)
    } else {
        Err(ReadError::Language(path.to_string()))
    }
}

/// Whether a certificate's regions must hold the program's initial state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Initiation {
    /// They must: the regions are an invariant of every run.
    Required,
    /// They need not: they cover only the states some other proof (an
    /// exploration that pruned them) says the runs enter, so they must be
    /// closed under the step and safe, and nothing more.
    Skipped,
}

/// Checks the certificate of regions `c` on the program at `path`, read
/// and encoded independently of the provers, giving up at `deadline`;
/// whether the initial state must lie in the regions is `initiation`.
pub fn check_regions(
    path: &str,
    c: &Certificate,
    initiation: Initiation,
    deadline: Option<Instant>,
) -> Result<Accepted, CrossError> {
    let program = read_program(path, &c.strings)?;
    regions::check(&program, c, initiation, deadline)
}

/// Checks the invariant certificate `c` on the program at `path`, read
/// and encoded independently of the provers, giving up at `deadline`.
pub fn check_invariant(
    path: &str,
    c: &InvariantCertificate,
    deadline: Option<Instant>,
) -> Result<Accepted, CrossError> {
    let program = read_program(path, &[])?;
    inductive::check(&program, c, deadline)
}

/// A z3 solver that leaves interrupts to rigor and gives up at `deadline`,
/// and on each query after `query_millis`.
fn solver(deadline: Option<Instant>, query_millis: Option<u32>) -> z3::Solver {
    let solver = z3::Solver::new_for_logic("QF_BV").unwrap_or_default();
    let mut params = z3::Params::new();
    params.set_bool("ctrl_c", false);
    let left = deadline.map(|d| {
        let left = d.saturating_duration_since(Instant::now());
        left.max(Duration::from_millis(1))
            .as_millis()
            .min(u32::MAX as u128) as u32
    });
    if let Some(millis) = [left, query_millis].into_iter().flatten().min() {
        params.set_u32("timeout", millis);
    }
    solver.set_params(&params);
    solver
}

/// Whether the model `solver` found meets every one of `facts` and `t`:
/// a `sat` answer counts only so (see [`regions`]).
fn meets(solver: &z3::Solver, facts: &[z3::ast::Bool], t: &z3::ast::Bool) -> bool {
    let Some(model) = solver.get_model() else {
        return false;
    };
    (facts.iter().chain([t])).all(|f| model.eval(f, true).and_then(|v| v.as_bool()) == Some(true))
}

#[cfg(test)]
mod tests;
