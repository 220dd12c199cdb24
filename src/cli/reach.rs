//! `rigor reach PROGRAM`: which error labels are reachable.

use std::io::Write;
use std::sync::Arc;

use super::limits::LimitArgs;
use super::stream::AnswerStream;
use super::CliResult;
use crate::check::reach::{self, LabelVerdict, ReachOptions};
use crate::error::write_file;

/// Arguments of `rigor reach`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The program (.c or .java), or a .aut / .dot model.
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
    /// Write the certificate of the labels the abstraction proves
    /// unreachable to this file (`grammars/certificate.ebnf`).
    #[arg(long, value_name = "FILE")]
    pub certificate: Option<String>,
    /// Answer "unreachable" from the abstraction without checking its
    /// certificate first.
    #[arg(long)]
    pub no_certify: bool,
    /// Threads of the breadth-first search (default: all cores). The
    /// answers, the state count and the witnesses are the same for any
    /// number.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Limits and progress.
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// Runs `rigor reach`.
pub fn run(args: &Args) -> CliResult {
    // Reachable labels are written as their witnesses replay; the rest
    // when the run ends.
    let stream = AnswerStream::for_run(&args.program, args.json, args.witness.as_deref())?;
    let sink = Arc::clone(&stream);
    let opts = ReachOptions {
        abstraction: !args.no_abstraction,
        seed_log: args.seed_log.clone(),
        observer: args.limits.observer(),
        certify: !args.no_certify,
        keep_certificate: args.certificate.is_some(),
        on_verdict: Some(Arc::new(move |v: &LabelVerdict| {
            let witness = v.witness.as_ref().map(|w| w.join(" "));
            sink.answer(v.property as usize, true, witness.as_deref());
        })),
        threads: args.threads,
    };
    let r = reach::solve(&args.program, &args.limits.budget()?, &opts)?;
    drop(opts);
    for v in &r.verdicts {
        if let Some(b) = v.verdict {
            let witness = v.witness.as_ref().map(|w| w.join(" "));
            stream.answer(v.property as usize, b, witness.as_deref());
        }
    }
    Arc::into_inner(stream).map_or(Ok(()), AnswerStream::finish)?;
    if let (Some(path), Some(c)) = (&args.certificate, &r.certificate) {
        write_file(path, &c.to_text())?;
    }
    if args.json {
        writeln!(std::io::stdout().lock(), "{}", crate::cli::json(&r))?;
    }
    for n in &r.notes {
        eprintln!("rigor: {n}");
    }
    let unknown: Vec<String> = (r.verdicts.iter())
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
