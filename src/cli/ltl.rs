//! `rigor ltl PROGRAM PROPERTIES`: LTL properties of a RERS problem.

use std::io::Write;
use std::sync::Arc;

use super::limits::LimitArgs;
use super::stream::AnswerStream;
use super::CliResult;
use crate::check::ltl::{self, LtlOptions};
use crate::error::write_file;
use crate::ltl::check::LtlVerdict;

/// Arguments of `rigor ltl`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The program (.c or .java), or a .aut / .dot model.
    pub program: String,
    /// The property file (2012 `propertiesN.txt` or `constraints-*.txt`).
    pub properties: String,
    /// Write the counterexamples (`property,[..] ([..])*`) to this file.
    #[arg(long)]
    pub witness: Option<String>,
    /// Print a JSON report instead of the CSV.
    #[arg(long)]
    pub json: bool,
    /// Threads checking properties in parallel and computing the interval
    /// abstraction's steps (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Check the explored graph itself, not its trace quotient (slower; for
    /// measurements and cross-checks).
    #[arg(long)]
    pub no_quotient: bool,
    /// Do not try the interval abstraction before the explicit exploration.
    #[arg(long)]
    pub no_abstraction: bool,
    /// Write the certificate of the properties the abstraction proves to
    /// this file (`grammars/certificate.ebnf`).
    #[arg(long, value_name = "FILE")]
    pub certificate: Option<String>,
    /// Answer "holds" from the abstraction without checking its
    /// certificate first.
    #[arg(long)]
    pub no_certify: bool,
    /// Limits and progress.
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// Runs `rigor ltl`.
pub fn run(args: &Args) -> CliResult {
    // Verdicts are written as they are settled; the rest when the run ends.
    let stream = AnswerStream::for_run(&args.program, args.json, args.witness.as_deref())?;
    let sink = Arc::clone(&stream);
    let opts = LtlOptions {
        threads: args.threads,
        quotient: !args.no_quotient,
        abstraction: !args.no_abstraction,
        observer: args.limits.observer(),
        certify: !args.no_certify,
        keep_certificate: args.certificate.is_some(),
        on_verdict: Some(Arc::new(move |v: &LtlVerdict| {
            if let Some(b) = v.verdict {
                sink.answer(v.property, b, v.counterexample.as_deref());
            }
        })),
    };
    // A contradicting answer stops the run.
    let (budget, stop) = args.limits.budget()?.cancellable();
    stream.stop_on_contradiction(stop);
    let r = ltl::solve(&args.program, &args.properties, &budget, &opts)?;
    drop(opts);
    for v in &r.verdicts {
        if let Some(b) = v.verdict {
            stream.answer(v.property, b, v.counterexample.as_deref());
        }
    }
    Arc::into_inner(stream).map_or(Ok(()), AnswerStream::finish)?;
    if let (Some(path), Some(c)) = (&args.certificate, &r.certificate) {
        write_file(path, &c.to_text())?;
    }
    if args.json {
        writeln!(std::io::stdout().lock(), "{}", crate::cli::json(&r))?;
    }
    for v in &r.verdicts {
        if v.verdict.is_none() {
            eprintln!(
                "rigor: property {} unknown: {}",
                v.property,
                v.note.as_deref().unwrap_or("")
            );
        }
    }
    if let Some(s) = &r.stopped {
        eprintln!("rigor: exploration stopped early: {s:?}");
    }
    for f in &r.faults {
        eprintln!("rigor: engine fault: {f}");
    }
    Ok(0)
}
