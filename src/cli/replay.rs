//! `rigor replay PROGRAM LOG`: runs every trace of an Abbadingo log through
//! the program (or a `.dot` / `.aut` model) and reports, per trace, whether
//! it printed the logged outputs, and the first mismatch otherwise. Exit
//! status 0 when every trace matches, 3 when some trace does not.

use std::io::Write;

use super::CliResult;
use crate::abbadingo::{self, TraceReport};
use crate::engine::Machine;
use crate::frontend;

/// Arguments of `rigor replay`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The program (.c or .java), or a .dot / .aut model.
    pub program: String,
    /// The Abbadingo log.
    pub log: String,
    /// Print only mismatches and the summary.
    #[arg(long)]
    pub quiet_ok: bool,
}

/// Exit status when some trace does not match the program.
pub const MISMATCH_EXIT: i32 = 3;

/// Runs `rigor replay`.
pub fn run(args: &Args) -> CliResult {
    let log = abbadingo::read(&args.log)?;
    let (reports, program): (Vec<TraceReport>, _) =
        match crate::lts::load_model_graph(&args.program) {
            Some(g) => (abbadingo::replay(&g?, &log), "model"),
            None => {
                let m = Machine::compile(&frontend::load(&args.program)?)?;
                // A program's alphabet is known: a symbol outside it is an
                // error in the log, not a mismatch.
                log.check_alphabet(&m)?;
                (abbadingo::replay(&m, &log), "program")
            }
        };
    let mut out = std::io::stdout().lock();
    let mut bad = 0;
    for r in &reports {
        match &r.mismatch {
            None => {
                if !args.quiet_ok {
                    writeln!(out, "{}:{}: ok ({} steps)", args.log, r.line, r.steps)?;
                }
            }
            Some(x) => {
                bad += 1;
                writeln!(
                    out,
                    "{}:{}:{}: mismatch at step {}: after input {} the log says {}, the {program} gives {}",
                    args.log,
                    r.line,
                    x.col,
                    x.step + 1,
                    x.input,
                    x.expected,
                    x.got
                )?;
            }
        }
    }
    let skipped = log.traces.len() - reports.len();
    writeln!(
        out,
        "{} trace(s) replayed: {} match, {} mismatch{}",
        reports.len(),
        reports.len() - bad,
        bad,
        if skipped > 0 {
            format!(" ({skipped} trace(s) labelled 0 skipped)")
        } else {
            String::new()
        }
    )?;
    Ok(if bad > 0 { MISMATCH_EXIT } else { 0 })
}
