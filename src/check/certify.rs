//! The `rigor check-certificate` pipeline: a program and a certificate
//! file in, the independent checker's verdict out.

use std::time::Instant;

use super::InputError;
use crate::certificate::{check, Certificate, CheckError, Checked};

/// Reads the program at `program` and the certificate at `file` and checks
/// the certificate, giving up at `deadline`.
pub fn solve(
    program: &str,
    file: &str,
    deadline: Option<Instant>,
) -> Result<Result<Checked, CheckError>, InputError> {
    let p = crate::frontend::load(program)?;
    let text = crate::source::read_text(file)?;
    let cert = Certificate::parse(&text, file)?;
    Ok(check(&p, &cert, deadline))
}
