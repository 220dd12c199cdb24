//! `rigor ctl MODEL PROPERTIES`: action-based CTL on a program, a `.aut` or
//! a `.dot` model. Prints the RERS CSV `problem,property,true|false`
//! (unknown properties left out); witnesses go to stderr, or into the JSON
//! report with `--json`.

use std::io::Write;

use super::limits::LimitArgs;
use super::CliResult;
use crate::answers::write::answer_csv;
use crate::answers::Track;
use crate::check::ctl::{self, LoadOptions};

/// Arguments of `rigor ctl`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The model: a program (.c or .java), a .aut or a .dot file.
    pub model: String,
    /// The CTL property file (`#k: description` + formula lines, or one
    /// formula per line).
    pub properties: String,
    /// Print a JSON report instead of the CSV.
    #[arg(long)]
    pub json: bool,
    /// Explore the traces of this Abbadingo log first (programs only).
    #[arg(long, value_name = "LOG")]
    pub seed_log: Option<String>,
    /// Limits and progress.
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// Runs `rigor ctl`.
pub fn run(args: &Args) -> CliResult {
    let opts = LoadOptions {
        seed_log: args.seed_log.clone(),
        observer: args.limits.observer(),
    };
    let report = ctl::solve(&args.model, &args.properties, &args.limits.budget()?, &opts)?;
    drop(opts);
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{}", crate::cli::json(&report))?;
    } else {
        let rows = (report.verdicts.iter())
            .filter_map(|v| Some((report.problem.as_str(), Track::Ctl, v.property, v.verdict?)));
        write!(out, "{}", answer_csv(rows, false))?;
        for v in &report.verdicts {
            if let Some(w) = &v.witness {
                let kind = if v.verdict == Some(true) {
                    "witness"
                } else {
                    "counterexample"
                };
                eprintln!(
                    "rigor: property {} {}: {kind} {w}",
                    v.property,
                    v.verdict.unwrap_or(false)
                );
            }
        }
    }
    for v in &report.verdicts {
        if !v.unknown_actions.is_empty() {
            eprintln!(
                "rigor: warning: property {} names action(s) the model never does: {}",
                v.property,
                v.unknown_actions.join(" ")
            );
        }
    }
    if !report.complete {
        eprintln!(
            "rigor: the model is partial (exploration stopped at a limit or faulted): all {} properties unknown",
            report.verdicts.len()
        );
    }
    Ok(0)
}
