//! `rigor horn-worker PROGRAM [--memory-limit B]`: the invariant engine's
//! queries in a process of their own, started by `rigor reach` and `rigor
//! solve`, which kill it when z3 does not stop (not meant to be run by
//! hand). Reads one query per line on standard input (`LABELS SECONDS`)
//! and answers each on standard output ([`crate::horn::serve`]); exit
//! code [`crate::horn::CANNOT_ENCODE`] when the program cannot be read or
//! its step encoded.

use super::CliResult;

/// Arguments of `rigor horn-worker`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The program (.c or .java).
    pub program: String,
    /// Resident bytes past which a query is interrupted.
    #[arg(long)]
    pub memory_limit: Option<u64>,
}

/// Answers queries until standard input ends.
pub fn run(args: &Args) -> CliResult {
    let queries = std::io::stdin().lock();
    let answers = std::io::stdout().lock();
    match crate::horn::serve(&args.program, args.memory_limit, queries, answers)? {
        true => Ok(0),
        false => Ok(crate::horn::CANNOT_ENCODE),
    }
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
