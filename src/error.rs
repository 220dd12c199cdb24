//! Errors that reach the user: each names the file, the place and what was
//! expected. Internal invariants use assertions; everything a user's input can
//! cause is one of these.

use std::fmt;

/// A located error in an input file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    /// The file concerned.
    pub file: String,
    /// 1-based line, 0 when unknown.
    pub line: u32,
    /// 1-based column, 0 when unknown.
    pub col: u32,
    /// What went wrong and what was expected.
    pub message: String,
}

impl Error {
    /// An error at a place in a file.
    pub fn at(file: impl Into<String>, line: u32, col: u32, message: impl Into<String>) -> Error {
        Error {
            file: file.into(),
            line,
            col,
            message: message.into(),
        }
    }

    /// An error about a whole file.
    pub fn file(file: impl Into<String>, message: impl Into<String>) -> Error {
        Error::at(file, 0, 0, message)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.col) {
            (0, _) => write!(f, "{}: {}", self.file, self.message),
            (l, 0) => write!(f, "{}:{}: {}", self.file, l, self.message),
            (l, c) => write!(f, "{}:{}:{}: {}", self.file, l, c, self.message),
        }
    }
}

impl std::error::Error for Error {}

/// Result with a located [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

/// Reads a text file, turning I/O problems and non-UTF-8 content into errors.
pub fn read_text(path: &str) -> Result<String> {
    let bytes = std::fs::read(path).map_err(|e| Error::file(path, format!("cannot read: {e}")))?;
    if bytes.contains(&0) {
        return Err(Error::file(path, "binary file, expected program text"));
    }
    String::from_utf8(bytes).map_err(|e| {
        let upto = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let line = upto.iter().filter(|&&b| b == b'\n').count() as u32 + 1;
        Error::at(path, line, 0, "invalid UTF-8, expected text")
    })
}
