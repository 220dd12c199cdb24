//! Input files and places in them: the bottom of every error rigor reports.
//!
//! Each boundary (front ends, property files, answer files, models, logs)
//! has its own error enum; all of them name a [`Location`] where there is
//! one, so every message a user sees reads `file:line:col: what was
//! expected`. Reading a file is the same everywhere ([`read_text`]).

use std::fmt;

/// A place in an input file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    /// The file.
    pub file: String,
    /// 1-based line, 0 when the whole file is meant.
    pub line: u32,
    /// 1-based column, 0 when the whole line is meant.
    pub col: u32,
}

impl Location {
    /// A place in a file.
    pub fn at(file: impl Into<String>, line: u32, col: u32) -> Location {
        Location {
            file: file.into(),
            line,
            col,
        }
    }

    /// A whole file.
    pub fn file(file: impl Into<String>) -> Location {
        Location::at(file, 0, 0)
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.col) {
            (0, _) => write!(f, "{}", self.file),
            (l, 0) => write!(f, "{}:{}", self.file, l),
            (l, c) => write!(f, "{}:{}:{}", self.file, l, c),
        }
    }
}

/// A message about a place in an input file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{at}: {message}")]
pub struct Diagnostic {
    /// Where.
    pub at: Location,
    /// What went wrong and what was expected.
    pub message: String,
}

impl Diagnostic {
    /// A message at a place in a file.
    pub fn at(file: impl Into<String>, line: u32, col: u32, message: impl Into<String>) -> Self {
        Diagnostic {
            at: Location::at(file, line, col),
            message: message.into(),
        }
    }

    /// A message about a whole file.
    pub fn file(file: impl Into<String>, message: impl Into<String>) -> Self {
        Diagnostic::at(file, 0, 0, message)
    }
}

/// A file that could not be read as text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReadError {
    /// The operating system refused (missing file, permissions, ...).
    #[error("{file}: cannot read: {reason}")]
    Io {
        /// The file.
        file: String,
        /// The system's message.
        reason: String,
    },
    /// The file holds NUL bytes.
    #[error("{file}: binary file, expected text")]
    Binary {
        /// The file.
        file: String,
    },
    /// The file is not UTF-8.
    #[error("{at}: invalid UTF-8, expected text")]
    Utf8 {
        /// The line of the first invalid byte.
        at: Location,
    },
}

impl ReadError {
    /// Where the problem is.
    pub fn location(&self) -> Location {
        match self {
            ReadError::Io { file, .. } | ReadError::Binary { file } => Location::file(file),
            ReadError::Utf8 { at } => at.clone(),
        }
    }
}

/// Reads a text file, turning I/O problems and non-UTF-8 content into errors.
pub fn read_text(path: &str) -> Result<String, ReadError> {
    let bytes = std::fs::read(path).map_err(|e| ReadError::Io {
        file: path.to_string(),
        reason: e.to_string(),
    })?;
    if bytes.contains(&0) {
        return Err(ReadError::Binary {
            file: path.to_string(),
        });
    }
    String::from_utf8(bytes).map_err(|e| {
        let upto = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let line = upto.iter().filter(|&&b| b == b'\n').count() as u32 + 1;
        ReadError::Utf8 {
            at: Location::at(path, line, 0),
        }
    })
}

/// The property-file boundary, shared by the LTL and CTL readers.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PropertyError {
    /// The file could not be read.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// A line does not parse.
    #[error(transparent)]
    Syntax(#[from] Diagnostic),
    /// The file holds no property at all.
    #[error("{file}: no property in the file")]
    Empty {
        /// The file.
        file: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_print_what_they_know() {
        assert_eq!(Location::file("a.c").to_string(), "a.c");
        assert_eq!(Location::at("a.c", 3, 0).to_string(), "a.c:3");
        assert_eq!(Location::at("a.c", 3, 7).to_string(), "a.c:3:7");
        let d = Diagnostic::at("a.c", 3, 7, "expected `;`");
        assert_eq!(d.to_string(), "a.c:3:7: expected `;`");
    }

    #[test]
    fn reading_rejects_binary_and_bad_utf8() {
        let d = tempfile::tempdir().unwrap();
        let bin = d.path().join("b");
        std::fs::write(&bin, [1u8, 0, 2]).unwrap();
        let e = read_text(bin.to_str().unwrap()).unwrap_err();
        assert!(matches!(e, ReadError::Binary { .. }), "{e}");
        let bad = d.path().join("u");
        std::fs::write(&bad, b"ok\n\xff\n").unwrap();
        let e = read_text(bad.to_str().unwrap()).unwrap_err();
        assert_eq!(e.location().line, 2);
        let e = read_text("/no/such/file").unwrap_err();
        assert!(e.to_string().contains("cannot read"), "{e}");
    }
}
