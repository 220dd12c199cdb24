//! `rigor svcomp TASK.yml` / `rigor svcomp --property P.prp PROGRAM.c`:
//! SV-COMP verdicts (`TRUE`, `FALSE(unreach-call)`, `UNKNOWN`), one line
//! per property, and GraphML witnesses.

use std::io::Write;

use super::limits::LimitArgs;
use super::CliResult;
use crate::error::{write_file, Error};
use crate::svcomp::{self, property, task, PropertyResult, SvcompOptions, TaskReport};

/// Arguments of `rigor svcomp`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// A task-definition file (.yml), or the program (.c, .i): with
    /// `--property`, or else for SV-COMP's `unreach-call.prp`.
    pub input: String,
    /// The property file (`unreach-call.prp`); the input is then the program.
    #[arg(long, value_name = "FILE.prp")]
    pub property: Option<String>,
    /// Write the witness (GraphML) here; with several properties, one file
    /// each, named after the property file (`w.unreach-call-4.graphml`).
    #[arg(long, value_name = "FILE")]
    pub witness: Option<String>,
    /// Replay this violation witness (GraphML) on the program instead of
    /// checking: prints `confirmed` or `not confirmed`.
    #[arg(long, value_name = "WITNESS", requires = "property")]
    pub replay: Option<String>,
    /// The data model (`ILP32`, `LP64`) when no task file gives it.
    #[arg(long, value_name = "MODEL")]
    pub data_model: Option<String>,
    /// Print a JSON report (with the expected verdicts of the task file).
    #[arg(long)]
    pub json: bool,
    /// Skip the interval abstraction and search the concrete states only.
    #[arg(long)]
    pub no_abstraction: bool,
    /// Answer "TRUE" from the abstraction without checking its certificate.
    #[arg(long)]
    pub no_certify: bool,
    /// Threads of the breadth-first search (default: all cores). The
    /// answers are the same for any number.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Limits and progress.
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// Runs `rigor svcomp`.
pub fn run(args: &Args) -> CliResult {
    if let (Some(w), Some(p)) = (&args.replay, &args.property) {
        let prop = property::read_property(p)?;
        let ok = svcomp::replay_witness(&args.input, &prop, w)?;
        let said = if ok { "confirmed" } else { "not confirmed" };
        writeln!(std::io::stdout().lock(), "{said}")?;
        return Ok(if ok { 0 } else { 1 });
    }
    let opts = SvcompOptions {
        no_abstraction: args.no_abstraction,
        no_certify: args.no_certify,
        witnesses: args.witness.is_some(),
        data_model: args.data_model.clone(),
        observer: args.limits.observer(),
        threads: args.threads,
    };
    let budget = args.limits.budget()?;
    let is_program = [".c", ".i"].iter().any(|e| args.input.ends_with(e));
    let report = if args.property.is_some() || is_program {
        // A program without a property file: SV-COMP's unreach-call.
        let prop = match &args.property {
            Some(p) => property::read_property(p)?,
            None => property::unreach_call(),
        };
        let r = svcomp::check_property(&args.input, &prop, &budget, &opts)?;
        say(&r, 1, args)?;
        TaskReport {
            task: None,
            program: args.input.clone(),
            results: vec![r],
        }
    } else {
        let t = task::read_task(&args.input)?;
        let count = t.properties.len();
        if count == 0 {
            let why = format!("{}: the task lists no property", args.input);
            return Err(Error::Usage(why));
        }
        let mut failed = None;
        let report = svcomp::check_task(&t, &budget, &opts, &mut |r| {
            if let Err(e) = say(r, count, args) {
                failed.get_or_insert(e);
            }
        })?;
        if let Some(e) = failed {
            return Err(e);
        }
        report
    };
    if args.json {
        writeln!(std::io::stdout().lock(), "{}", crate::cli::json(&report))?;
    }
    Ok(0)
}

/// Prints one property's answer (and why, on stderr) and writes its witness.
fn say(r: &PropertyResult, count: usize, args: &Args) -> Result<(), Error> {
    if let (Some(base), Some(w)) = (&args.witness, &r.witness) {
        write_file(svcomp::witness_path(base, &r.property_file, count), w)?;
    }
    eprintln!("rigor: {}: {} ({})", r.property_file, r.answer, r.reason);
    if !args.json {
        let mut out = std::io::stdout().lock();
        if count > 1 {
            writeln!(out, "{} {}", r.answer, r.property_file)?;
        } else {
            writeln!(out, "{}", r.answer)?;
        }
        out.flush()?;
    }
    Ok(())
}
