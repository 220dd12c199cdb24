//! `rigor reach PROGRAM`: which error labels are reachable.

use std::io::Write;

use super::limits::LimitArgs;
use super::CliResult;
use crate::check::reach::{self, ReachReport};
use crate::engine::Machine;
use crate::frontend;

/// Arguments of `rigor reach`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The program (.c or .java).
    pub program: String,
    /// Write the witnesses (`label,input input ...`) to this file.
    #[arg(long)]
    pub witness: Option<String>,
    /// Print a JSON report instead of the CSV.
    #[arg(long)]
    pub json: bool,
    /// Explore the traces of this Abbadingo log first.
    #[arg(long, value_name = "LOG")]
    pub seed_log: Option<String>,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// Loads, compiles and checks a program.
pub fn solve(program: &str, limits: &LimitArgs) -> Result<ReachReport, crate::error::Error> {
    let p = frontend::load(program)?;
    let m = Machine::compile(&p)?;
    Ok(reach::check(
        &m,
        program,
        &limits.limits(),
        limits.progress(),
    ))
}

/// The RERS CSV lines of a report (unknown labels left out).
pub fn csv(r: &ReachReport) -> String {
    let mut s = String::new();
    for v in &r.verdicts {
        if let Some(b) = v.verdict {
            s.push_str(&format!("{},{},{}\n", r.problem, v.property, b));
        }
    }
    s
}

/// The witness file text: one `label,input input ...` line per reachable label.
pub fn witnesses(r: &ReachReport) -> String {
    let mut s = String::new();
    for v in &r.verdicts {
        if let Some(w) = &v.witness {
            s.push_str(&format!("{},{}\n", v.property, w.join(" ")));
        }
    }
    s
}

/// Runs `rigor reach`.
pub fn run(args: &Args) -> CliResult {
    let r = match &args.seed_log {
        Some(log) => {
            let m = Machine::compile(&frontend::load(&args.program)?)?;
            let (l, p) = (&args.limits, &args.program);
            crate::abbadingo::reach_seeded(&m, p, log, &l.limits(), l.progress())?
        }
        None => solve(&args.program, &args.limits)?,
    };
    if let Some(path) = &args.witness {
        std::fs::write(path, witnesses(&r)).map_err(|e| format!("{path}: cannot write: {e}"))?;
    }
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&r)?)?;
    } else {
        write!(out, "{}", csv(&r))?;
    }
    let unknown: Vec<String> = r
        .verdicts
        .iter()
        .filter(|v| v.verdict.is_none())
        .map(|v| v.property.to_string())
        .collect();
    if !unknown.is_empty() {
        eprintln!(
            "rigor: {} label(s) unknown{}: {}",
            unknown.len(),
            r.stopped
                .as_ref()
                .map(|s| format!(" (stopped: {s:?})"))
                .unwrap_or_default(),
            unknown.join(" ")
        );
    }
    for f in &r.faults {
        eprintln!("rigor: engine fault: {f}");
    }
    Ok(0)
}
