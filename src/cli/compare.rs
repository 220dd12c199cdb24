//! `rigor compare A B`: are two programs (e.g. the C and Java versions of one
//! problem) the same input/output transition system?
//!
//! Exit status: 0 equivalent (proved), 3 different (a shortest
//! distinguishing input sequence is printed), 4 unknown (a limit or an
//! engine fault stopped the search before it was complete), 5 the input
//! alphabets differ.

use std::io::Write;

use super::limits::LimitArgs;
use super::CliResult;
use crate::check::compare::solve;
use crate::equivalence::lockstep::{CompareReport, Verdict};

/// Arguments of `rigor compare`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The first program (.c or .java).
    pub a: String,
    /// The second program (.c or .java).
    pub b: String,
    /// Print a JSON report instead of text.
    #[arg(long)]
    pub json: bool,
    /// Do not try the proof on the interval abstractions (structure and
    /// lockstep search only; for measurements and cross-checks).
    #[arg(long)]
    pub no_abstraction: bool,
    /// Threads of the lockstep search (default: all cores). The verdict,
    /// the pair count and the distinguishing inputs are the same for any
    /// number.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Limits and progress.
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// Exit status for a verdict.
pub fn exit_code(v: &Verdict) -> i32 {
    match v {
        Verdict::Equivalent => 0,
        Verdict::Different { .. } => 3,
        Verdict::Unknown => 4,
        Verdict::AlphabetsDiffer { .. } => 5,
    }
}

/// The text form of a report.
pub fn text(r: &CompareReport) -> String {
    let mut s = match &r.verdict {
        Verdict::Equivalent if r.method == "structure" => {
            "equivalent: the two programs have the same code up to renaming (see the note)\n"
                .to_string()
        }
        Verdict::Equivalent if r.method == "abstraction" => {
            "equivalent: every step decided alike on the two programs' interval abstractions (see the note)\n"
                .to_string()
        }
        Verdict::Equivalent => format!(
            "equivalent: {} state pairs, {} transitions, exploration complete\n",
            r.pairs, r.transitions
        ),
        Verdict::Different { inputs, a, b } => format!(
            "different after {} input(s): [{}]\n  {}: {a}\n  {}: {b}\n",
            inputs.len(),
            inputs.join(", "),
            r.program_a,
            r.program_b
        ),
        Verdict::AlphabetsDiffer { only_a, only_b } => format!(
            "input alphabets differ: only in {}: [{}]; only in {}: [{}]\n",
            r.program_a,
            only_a.join(", "),
            r.program_b,
            only_b.join(", ")
        ),
        Verdict::Unknown => format!(
            "unknown: no difference in {} state pairs expanded ({} discovered), but the search is incomplete{}; NOT proved equivalent\n",
            r.expanded,
            r.pairs,
            r.stopped
                .as_ref()
                .map(|s| format!(" (stopped: {s:?})"))
                .unwrap_or_else(|| " (engine faults)".to_string())
        ),
    };
    for f in &r.faults {
        s.push_str(&format!("fault: {f}\n"));
    }
    for n in &r.notes {
        s.push_str(&format!("note: {n}\n"));
    }
    s
}

/// Runs `rigor compare`.
pub fn run(args: &Args) -> CliResult {
    let r = solve(
        &args.a,
        &args.b,
        &args.limits.budget()?,
        !args.no_abstraction,
        args.threads
            .unwrap_or_else(crate::explore::levels::all_cores)
            .max(1),
    )?;
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{}", crate::cli::json(&r))?;
    } else {
        write!(out, "{}", text(&r))?;
    }
    Ok(exit_code(&r.verdict))
}
