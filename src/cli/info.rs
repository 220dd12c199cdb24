//! `rigor info PROGRAM`: what the front end read.

use super::CliResult;

/// Arguments of `rigor info`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The program (.c or .java).
    pub program: String,
}

/// Runs `rigor info`.
pub fn run(args: &Args) -> CliResult {
    println!("{}", args.program);
    Ok(0)
}
