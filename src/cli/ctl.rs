//! `rigor ctl MODEL PROPERTIES`: action-based CTL on a program, a `.aut` or
//! a `.dot` model. Prints the RERS CSV `problem,property,true|false`
//! (unknown properties left out); witnesses go to stderr, or into the JSON
//! report with `--json`.

use std::io::Write;
use std::time::Instant;

use serde::Serialize;

use super::limits::LimitArgs;
use super::CliResult;
use crate::ctl::{self, CtlVerdict};
use crate::lts::{self, LoadOptions};

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
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// The JSON report of `rigor ctl`.
#[derive(Serialize, Debug)]
pub struct CtlReport {
    /// The model file.
    pub model: String,
    /// Problem name (from the file name).
    pub problem: String,
    /// Always `ctl`.
    pub track: &'static str,
    /// States of the labelled transition system.
    pub states: u32,
    /// Its transitions.
    pub transitions: usize,
    /// Whether the system is the whole reachable one.
    pub complete: bool,
    /// One verdict per property.
    pub verdicts: Vec<CtlVerdict>,
    /// Loading plus checking time in seconds.
    pub seconds: f64,
}

/// Runs `rigor ctl`.
pub fn run(args: &Args) -> CliResult {
    let start = Instant::now();
    let text = crate::error::read_text(&args.properties)?;
    let props = ctl::parse_properties(&args.properties, &text)?;
    let l = lts::load(
        &args.model,
        &LoadOptions {
            limits: args.limits.limits(),
            seed_log: args.seed_log.clone(),
            progress: args.limits.progress(),
        },
    )?;
    let verdicts = ctl::check_all(&l, &props.properties);
    let report = CtlReport {
        model: args.model.clone(),
        problem: crate::ir::problem_name(&args.model),
        track: "ctl",
        states: l.n_states,
        transitions: l.transitions.len(),
        complete: l.complete,
        verdicts,
        seconds: start.elapsed().as_secs_f64(),
    };
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        for v in &report.verdicts {
            if let Some(b) = v.verdict {
                writeln!(out, "{},{},{}", report.problem, v.property, b)?;
            }
        }
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
