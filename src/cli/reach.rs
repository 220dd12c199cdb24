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
    /// Skip the interval abstraction and search the concrete states only.
    #[arg(long)]
    pub no_abstraction: bool,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// Loads, compiles and checks a program; with `use_abstraction`, programs
/// with arithmetic go through the interval abstraction first.
pub fn solve(
    program: &str,
    limits: &LimitArgs,
    use_abstraction: bool,
) -> Result<ReachReport, crate::error::Error> {
    let p = frontend::load(program)?;
    let m = Machine::compile(&p)?;
    let start = std::time::Instant::now();
    let run_limits = limits.limits();
    // Programs with arithmetic: the interval abstraction first, with part of
    // the time; the labels it cannot reach need no search.
    let (abstraction, note) = if use_abstraction && crate::absint::has_numeric_slots(&p, &m) {
        let abs_limits = crate::absint::AbsLimits::share_of(&run_limits, start);
        match crate::absint::explore_abstract(&p, &m, &abs_limits) {
            Ok(g) => (Some(g), None),
            Err(why) => (None, Some(why)),
        }
    } else {
        (None, None)
    };
    let explore_limits = crate::explore::Limits {
        timeout: run_limits
            .timeout
            .map(|t| t.saturating_sub(start.elapsed())),
        ..run_limits
    };
    let mut r = reach::check_with(
        &m,
        program,
        &explore_limits,
        limits.progress(),
        abstraction.as_ref().map(|g| (&p, g)),
    );
    r.abstraction_note = note;
    Ok(r)
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
        None => solve(&args.program, &args.limits, !args.no_abstraction)?,
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
