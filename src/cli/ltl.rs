//! `rigor ltl PROGRAM PROPERTIES`: LTL properties of a RERS problem.
//!
//! With `--processes N` or `--process K` the search is spread over
//! several processes ([`super::cluster`]) and its graph checked on the
//! last.

use std::io::Write;
use std::sync::Arc;

use super::cluster::{run_processes, ClusterArgs};
use super::limits::LimitArgs;
use super::stream::AnswerStream;
use super::CliResult;
use crate::check::ltl::{self, LtlOptions, LtlReport};
use crate::error::write_file;
use crate::ltl::check::LtlVerdict;

/// Arguments of `rigor ltl`.
#[derive(clap::Args, Debug, Clone)]
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
    /// abstraction's steps (default: all cores). With `--processes` or
    /// `--process`: also the search's worker threads in each process
    /// (default 1, the same in every process).
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
    #[arg(long, value_name = "FILE", conflicts_with_all = ["processes", "process"])]
    pub certificate: Option<String>,
    /// Answer "holds" from the abstraction without checking its
    /// certificate first.
    #[arg(long)]
    pub no_certify: bool,
    /// The processes the search is spread over, if any (the state graph
    /// is gathered and checked on the last).
    #[command(flatten)]
    pub cluster: ClusterArgs,
    /// Limits and progress.
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// Runs `rigor ltl`.
pub fn run(args: &Args) -> CliResult {
    if let Some(n) = args.cluster.processes {
        let command = ["ltl", &args.program, &args.properties].map(String::from);
        return run_processes(
            n,
            &command,
            &args.limits,
            args.threads,
            |cluster, limits| {
                let args = Args {
                    cluster: cluster.clone(),
                    limits: limits.clone(),
                    ..args.clone()
                };
                run_member(&args, n - 1)
            },
        );
    }
    if let Some(k) = args.cluster.process {
        return run_member(args, k);
    }
    // Verdicts are written as they are settled; the rest when the run ends.
    let stream = AnswerStream::for_run(&args.program, args.json, args.witness.as_deref())?;
    let opts = options(args, &stream);
    // A contradicting answer stops the run.
    let (budget, stop) = args.limits.budget()?.cancellable();
    stream.stop_on_contradiction(stop);
    let r = ltl::solve(&args.program, &args.properties, &budget, &opts)?;
    drop(opts);
    finish(args, stream, &r)
}

/// Runs as process `k` of the cluster `args.cluster.addresses`.
fn run_member(args: &Args, k: usize) -> CliResult {
    let cluster = args.cluster.cluster(k, args.threads)?;
    let stream = AnswerStream::for_run(&args.program, args.json, args.witness.as_deref())?;
    let opts = options(args, &stream);
    let budget = args.limits.budget()?;
    let r = ltl::solve_distributed(&args.program, &args.properties, &budget, &cluster, &opts)?;
    drop(opts);
    match r {
        Some(r) => finish(args, stream, &r),
        None => Ok(0),
    }
}

/// The pipeline's options from `args`, each verdict written to `stream`
/// as it is settled.
fn options(args: &Args, stream: &Arc<AnswerStream>) -> LtlOptions {
    let sink = Arc::clone(stream);
    LtlOptions {
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
    }
}

/// Writes the answers of `r` not streamed yet, the certificate, the JSON
/// report and the notes.
fn finish(args: &Args, stream: Arc<AnswerStream>, r: &LtlReport) -> CliResult {
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
