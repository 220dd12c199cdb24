//! `rigor reach PROGRAM`: which error labels are reachable.
//!
//! With `--processes N` or `--process K` the search is spread over
//! several processes ([`super::cluster`]).

use std::io::Write;
use std::sync::Arc;

use super::cluster::{run_processes, ClusterArgs};
use super::limits::LimitArgs;
use super::stream::AnswerStream;
use super::CliResult;
use crate::check::reach::{self, LabelVerdict, ReachOptions, ReachReport, VerdictSink};
use crate::error::write_file;

/// Arguments of `rigor reach`.
#[derive(clap::Args, Debug, Clone)]
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
    #[arg(long, value_name = "LOG", conflicts_with_all = ["processes", "process"])]
    pub seed_log: Option<String>,
    /// Skip the interval abstraction and search the concrete states only.
    #[arg(long)]
    pub no_abstraction: bool,
    /// Write the certificate of the labels the abstraction proves
    /// unreachable to this file (`grammars/certificate.ebnf`).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["processes", "process"])]
    pub certificate: Option<String>,
    /// Answer "unreachable" from the abstraction without checking its
    /// certificate first.
    #[arg(long)]
    pub no_certify: bool,
    /// Threads of the breadth-first search and of the interval
    /// abstraction (default: all cores). The answers, the state count and
    /// the witnesses are the same for any number. With `--processes` or `--process`: worker threads in each
    /// process (default 1, the same in every process).
    #[arg(long)]
    pub threads: Option<usize>,
    /// The processes the search is spread over, if any.
    #[command(flatten)]
    pub cluster: ClusterArgs,
    /// Limits and progress.
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// Runs `rigor reach`.
pub fn run(args: &Args) -> CliResult {
    if let Some(n) = args.cluster.processes {
        // The other processes prune and certify as this one does.
        let mut command = vec!["reach".to_string(), args.program.clone()];
        let flags = [
            (args.no_abstraction, "--no-abstraction"),
            (args.no_certify, "--no-certify"),
        ];
        command.extend(flags.iter().filter(|f| f.0).map(|f| f.1.to_string()));
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
    // Reachable labels are written as their witnesses replay; the rest
    // when the run ends.
    let stream = AnswerStream::for_run(&args.program, args.json, args.witness.as_deref())?;
    let opts = ReachOptions {
        on_verdict: Some(answer_sink(&stream)),
        ..options(args)
    };
    // A contradicting answer stops the run.
    let (budget, stop) = args.limits.budget()?.cancellable();
    stream.stop_on_contradiction(stop);
    let r = reach::solve(&args.program, &budget, &opts)?;
    drop(opts);
    finish(args, stream, &r)
}

/// The pipeline's options from `args` (no verdict sink).
fn options(args: &Args) -> ReachOptions {
    ReachOptions {
        abstraction: !args.no_abstraction,
        seed_log: args.seed_log.clone(),
        observer: args.limits.observer(),
        certify: !args.no_certify,
        keep_certificate: args.certificate.is_some(),
        on_verdict: None,
        threads: args.threads,
        invariant_worker: super::horn_worker::command(),
    }
}

/// A sink writing each settled label to `stream` as it is told.
fn answer_sink(stream: &Arc<AnswerStream>) -> VerdictSink {
    let sink = Arc::clone(stream);
    Arc::new(move |v: &LabelVerdict| {
        let witness = v.witness.as_ref().map(|w| w.join(" "));
        if let Some(b) = v.verdict {
            sink.answer(v.property as usize, b, witness.as_deref());
        }
    })
}

/// Writes the answers of `r` not streamed yet, the certificate, the JSON
/// report and the notes.
pub fn finish(args: &Args, stream: Arc<AnswerStream>, r: &ReachReport) -> CliResult {
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
    if let Some(path) = &args.certificate {
        for (k, c) in r.invariants.iter().enumerate() {
            write_file(format!("{path}.invariant{}", k + 1), &c.to_text())?;
        }
    }
    if args.json {
        writeln!(std::io::stdout().lock(), "{}", crate::cli::json(r))?;
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

/// Runs as process `k` of the cluster `args.cluster.addresses`.
pub fn run_member(args: &Args, k: usize) -> CliResult {
    let cluster = args.cluster.cluster(k, args.threads)?;
    let stream = AnswerStream::for_run(&args.program, args.json, args.witness.as_deref())?;
    let opts = ReachOptions {
        on_verdict: Some(answer_sink(&stream)),
        ..options(args)
    };
    let budget = args.limits.budget()?;
    let r = reach::solve_distributed(&args.program, &budget, &cluster, &opts)?;
    drop(opts);
    match r {
        Some(r) => finish(args, stream, &r),
        None => Ok(0),
    }
}
