//! Front ends: read a RERS program (C or Java) into the [`crate::ir`].
//!
//! - [`c`]: C99 through `lang-c` (2012-2019 and the SV-COMP shape);
//! - [`java`]: Java through `tree-sitter-java` (2017-2019, industrial);
//! - [`lower`]: what both lowerings share: the local scopes, located
//!   errors, the big-stack thread the deep generated code needs.

pub mod c;
pub mod java;
pub mod lower;

use crate::ir::Program;
use crate::source::{read_text, Diagnostic, Location, ReadError};

/// A program rigor cannot read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FrontendError {
    /// The file could not be read.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// The extension is neither `.c` nor `.java`.
    #[error("{file}: unknown program type: expected a .c or .java file")]
    UnknownType {
        /// The file.
        file: String,
    },
    /// The text does not parse.
    #[error(transparent)]
    Syntax(Diagnostic),
    /// A construct rigor does not model.
    #[error(transparent)]
    Unsupported(Diagnostic),
    /// The program parses but is not a RERS program rigor can lower (an
    /// unknown name, no step function, no alphabet, ...).
    #[error(transparent)]
    Invalid(Diagnostic),
    /// The parser itself failed (a thread, a panic).
    #[error("{at}: internal error: {message}")]
    Internal {
        /// The file.
        at: Location,
        /// What failed.
        message: String,
    },
}

impl FrontendError {
    /// The located message, where there is one.
    pub fn diagnostic(&self) -> Option<&Diagnostic> {
        match self {
            FrontendError::Syntax(d)
            | FrontendError::Unsupported(d)
            | FrontendError::Invalid(d) => Some(d),
            _ => None,
        }
    }
}

/// Reads and lowers the program at `path`, choosing the front end by the
/// file extension (`.c`, `.java`).
pub fn load(path: &str) -> Result<Program, FrontendError> {
    let ext = std::path::Path::new(path)
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "c" => c::parse_c(path, &read_text(path)?),
        "java" => java::parse_java(path, &read_text(path)?),
        _ => Err(FrontendError::UnknownType {
            file: path.to_string(),
        }),
    }
}
