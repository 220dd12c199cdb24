//! Front ends: read a RERS program (C or Java) into the [`crate::ir`].

pub mod c;
pub mod java;

use crate::error::{read_text, Error, Result};
use crate::ir::Program;

/// Reads and lowers the program at `path`, choosing the front end by the
/// file extension (`.c`, `.java`).
pub fn load(path: &str) -> Result<Program> {
    let ext = std::path::Path::new(path)
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "c" => {
            let text = read_text(path)?;
            c::parse_c(path, &text)
        }
        "java" => {
            let text = read_text(path)?;
            java::parse_java(path, &text)
        }
        _ => Err(Error::file(
            path,
            "unknown program type: expected a .c or .java file",
        )),
    }
}
