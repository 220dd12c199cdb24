//! The error a `rigor` command reports: one enum over every boundary's
//! error, each of which names the file (and the line and column where there
//! is one). Internal invariants use assertions; everything a user's input
//! can cause is one of these.

use crate::abbadingo::LogError;
use crate::answers::mcc::ExportError;
use crate::answers::AnswerError;
use crate::check::compare::CompareError;
use crate::check::InputError;
use crate::engine::CompileError;
use crate::frontend::FrontendError;
use crate::lts::ModelError;
use crate::runtime::budget::LimitError;
use crate::source::{PropertyError, ReadError};
use crate::validate::ValidateError;

/// Every error a command can end with.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file could not be read.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// A program the front ends reject.
    #[error(transparent)]
    Frontend(#[from] FrontendError),
    /// A program the engine cannot run.
    #[error(transparent)]
    Compile(#[from] CompileError),
    /// A property file that does not parse.
    #[error(transparent)]
    Property(#[from] PropertyError),
    /// An answer, solution or witness file that cannot be used.
    #[error(transparent)]
    Answer(#[from] AnswerError),
    /// A `.aut`/`.dot` model that cannot be used.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// An Abbadingo log that cannot be used.
    #[error(transparent)]
    Log(#[from] LogError),
    /// A limit that makes no sense (a negative timeout).
    #[error(transparent)]
    Limit(#[from] LimitError),
    /// The inputs of a check (any of the above, from a library pipeline).
    #[error(transparent)]
    Input(#[from] InputError),
    /// Answers that cannot be exported.
    #[error(transparent)]
    Export(#[from] ExportError),
    /// Programs that cannot be compared.
    #[error(transparent)]
    Compare(#[from] CompareError),
    /// Witnesses that cannot be run natively.
    #[error(transparent)]
    Validate(#[from] ValidateError),
    /// An SV-COMP task, property or witness that cannot be used.
    #[error(transparent)]
    Svcomp(#[from] crate::svcomp::SvcompError),
    /// A run over several processes.
    #[error(transparent)]
    Distributed(#[from] crate::check::ClusterRunError),
    /// An output file that cannot be written.
    #[error("{file}: cannot write: {reason}")]
    Write {
        /// The file.
        file: String,
        /// The system's message.
        reason: String,
    },
    /// Standard output or error could not be written (a closed pipe).
    #[error("cannot write the output: {0}")]
    Output(#[from] std::io::Error),
    /// A command used in a way that cannot work (say what instead).
    #[error("{0}")]
    Usage(String),
    /// The run answered a property one way and then proved the other: a
    /// fault of rigor's. The run stops; the answers written before may be
    /// wrong.
    #[error(
        "property {property}: answered {first} already, and then proved {second}{}; \
         rigor contradicts itself, so the run stopped: do not trust its answers, \
         and please report this program",
        witness.as_ref().map(|w| format!(" (witness: {w})")).unwrap_or_default()
    )]
    Contradiction {
        /// The property (error label or LTL property number).
        property: usize,
        /// The answer written first.
        first: bool,
        /// The answer that contradicts it.
        second: bool,
        /// The second answer's witness or counterexample, if it has one.
        witness: Option<String>,
    },
}

impl Error {
    /// A file that cannot be written.
    pub fn write(file: impl Into<String>, e: std::io::Error) -> Error {
        Error::Write {
            file: file.into(),
            reason: e.to_string(),
        }
    }
}

/// Writes `text` to `path`, or says which file could not be written.
pub fn write_file(path: impl AsRef<std::path::Path>, text: &str) -> Result<()> {
    let path = path.as_ref();
    std::fs::write(path, text).map_err(|e| Error::write(path.display().to_string(), e))
}

/// Writes to `path` through `write` (buffered, for output too large to
/// hold as one string), or says which file could not be written.
pub fn write_file_with(
    path: impl AsRef<std::path::Path>,
    write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> Result<()> {
    use std::io::Write;
    let path = path.as_ref();
    let fail = |e| Error::write(path.display().to_string(), e);
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).map_err(fail)?);
    write(&mut out).and_then(|()| out.flush()).map_err(fail)
}

/// Result of a command.
pub type Result<T> = std::result::Result<T, Error>;
