//! `rigor horn-worker PROGRAM --labels L,.. --seconds S`: one query of the
//! invariant engine in a process of its own (started by `rigor reach` and
//! `rigor solve`, which kill it if z3 does not stop; not meant to be run
//! by hand). Writes its verdict to standard output
//! ([`crate::horn::write_verdict`]); exit code
//! [`crate::horn::CANNOT_ENCODE`] when the program cannot be read or its
//! step encoded.

use std::io::Write;

use super::CliResult;

/// Arguments of `rigor horn-worker`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The program (.c or .java).
    pub program: String,
    /// The error labels to prove unreachable together.
    #[arg(long, value_delimiter = ',', required = true)]
    pub labels: Vec<u32>,
    /// Seconds the query may take.
    #[arg(long)]
    pub seconds: f64,
    /// Resident bytes past which the query is interrupted.
    #[arg(long)]
    pub memory_limit: Option<u64>,
}

/// Runs one query and writes its verdict.
pub fn run(args: &Args) -> CliResult {
    let Some(v) = crate::horn::answer(&args.program, &args.labels, args.seconds, args.memory_limit)
    else {
        return Ok(crate::horn::CANNOT_ENCODE);
    };
    let mut out = std::io::stdout().lock();
    out.write_all(crate::horn::write_verdict(&v).as_bytes())?;
    out.flush()?;
    Ok(0)
}

/// How `rigor reach` and `rigor solve` start a worker: this executable,
/// `horn-worker`. `None` where the executable cannot be found (the
/// engine's queries then run in threads).
pub fn command() -> Option<crate::horn::WorkerCommand> {
    Some(crate::horn::WorkerCommand {
        program: std::env::current_exe().ok()?,
        args: vec!["horn-worker".into()],
    })
}
