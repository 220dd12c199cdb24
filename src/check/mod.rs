//! Property checkers and the pipelines of every command: from a file to a
//! report. The command line only parses arguments and prints what these
//! return.
//!
//! - [`reach`]: reachability of the error labels (`rigor reach`);
//! - [`ltl`]: LTL properties (`rigor ltl`), over [`crate::ltl`];
//! - [`ctl`]: action-based CTL (`rigor ctl`, `rigor export`), over
//!   [`crate::ctl`];
//! - [`compare`]: equivalence of two programs (`rigor compare`), over
//!   [`crate::equivalence`];
//! - [`certify`]: certificates checked (`rigor check-certificate`), by
//!   [`crate::certificate`] and [`crate::crosscheck`].
//!
//! Witnesses run on the original program, compiled by gcc or javac, are
//! [`crate::validate`]'s.

pub mod certify;
pub mod compare;
pub mod ctl;
pub mod invariants;
pub mod ltl;
pub mod pruning;
pub mod reach;
pub mod reach_report;

use crate::abbadingo::LogError;
use crate::engine::CompileError;
use crate::frontend::FrontendError;
use crate::lts::ModelError;
use crate::source::PropertyError;

/// Why a pipeline could not start: one of its input files.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InputError {
    /// The program.
    #[error(transparent)]
    Frontend(#[from] FrontendError),
    /// The program, for the engine.
    #[error(transparent)]
    Compile(#[from] CompileError),
    /// The property file.
    #[error(transparent)]
    Property(#[from] PropertyError),
    /// The `.aut`/`.dot` model.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// The Abbadingo log.
    #[error(transparent)]
    Log(#[from] LogError),
    /// The certificate file (unreadable or not following its grammar).
    #[error(transparent)]
    Certificate(#[from] crate::certificate::FormatError),
    /// A file that cannot be read.
    #[error(transparent)]
    Read(#[from] crate::source::ReadError),
}

/// Why a run over several processes (`--processes`, `--process`) could
/// not be done.
#[derive(Debug, thiserror::Error)]
pub enum ClusterRunError {
    /// The program or the property file.
    #[error(transparent)]
    Input(#[from] InputError),
    /// The processes could not search together.
    #[error(transparent)]
    Search(#[from] crate::explore::distributed::DistributedError),
    /// The abstraction the reporter handed out could not be read.
    #[error("the abstraction handed out by the last process could not be read: {0}")]
    HandOut(bincode::Error),
}
