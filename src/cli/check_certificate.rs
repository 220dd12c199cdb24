//! `rigor check-certificate PROGRAM FILE`: re-checks a certificate of
//! unreachability with the independent SMT checker.

use std::io::Write;

use super::CliResult;
use crate::certificate::{CheckError, SecondReading};

/// Arguments of `rigor check-certificate`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The program (.c or .java) the certificate is about.
    pub program: String,
    /// The certificate, as written by `rigor reach --certificate`.
    pub certificate: String,
    /// Seconds allowed for the whole check.
    #[arg(long)]
    pub timeout: Option<f64>,
}

/// Runs `rigor check-certificate`: exit 0 when every obligation holds, 1
/// naming the first that fails, 2 when the check could not be decided.
pub fn run(args: &Args) -> CliResult {
    let deadline = match args.timeout {
        Some(t) if t.is_finite() && t >= 0.0 => {
            Some(std::time::Instant::now() + std::time::Duration::from_secs_f64(t))
        }
        Some(t) => {
            return Err(crate::error::Error::Usage(format!(
                "--timeout {t}: expected a number of seconds"
            )))
        }
        None => None,
    };
    let verdict = crate::check::certify::solve(&args.program, &args.certificate, deadline)?;
    let mut out = std::io::stdout().lock();
    match verdict {
        Ok(c) => {
            let second = match &c.second_reading {
                SecondReading::Accepted { seconds } => {
                    format!(" (the second, independent reading of the program: {seconds:.2} s)")
                }
                SecondReading::Undecided { why } => {
                    format!(" (the second reading did not decide: {why})")
                }
                SecondReading::NotRun => " (no second reading: it reads C programs only)".into(),
            };
            writeln!(
                out,
                "certificate accepted: {} obligations in {:.2} s{second}",
                c.obligations, c.seconds
            )?;
            Ok(0)
        }
        Err(e @ (CheckError::Fails { .. } | CheckError::SecondReadingRejects(_))) => {
            writeln!(out, "certificate rejected: {e}")?;
            Ok(1)
        }
        Err(e) => {
            writeln!(out, "certificate not checked: {e}")?;
            Ok(2)
        }
    }
}
