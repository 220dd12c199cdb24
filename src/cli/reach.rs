//! `rigor reach PROGRAM`: which error labels are reachable.
//!
//! With `--processes N` it starts N-1 copies of rigor on this machine as
//! processes 0..N-2 of a cluster on free 127.0.0.1 ports and runs as the
//! last one, which prints the answers (`explore::distributed`). On a real
//! cluster each host runs rigor with `--process K` and the same
//! `--addresses`.

use std::io::Write;
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use super::limits::LimitArgs;
use super::stream::AnswerStream;
use super::CliResult;
use crate::check::reach::{self, LabelVerdict, ReachOptions, ReachReport, VerdictSink};
use crate::error::{write_file, Error};
use crate::explore::distributed::local::{LocalCluster, Watch};
use crate::explore::distributed::Cluster;

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
    /// Threads of the breadth-first search and of the interval
    /// abstraction (default: all cores). The answers, the state count and
    /// the witnesses are the same for any number. With `--processes` or `--process`: worker threads in each
    /// process (default 1, the same in every process).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Spread the breadth-first search over N processes on this machine
    /// (127.0.0.1), on timely-dataflow, sharing its memory limit: the
    /// answers and witnesses of one process, for exploration on many
    /// machines. No abstraction: every label is settled by the search.
    #[arg(long, value_name = "N", conflicts_with_all = ["seed_log", "certificate", "process"])]
    pub processes: Option<usize>,
    /// Run as process K of a cluster listening at `--addresses` (started
    /// on each host with the same list; the last process prints the
    /// answers, the others nothing).
    #[arg(long, value_name = "K", requires = "addresses")]
    pub process: Option<usize>,
    /// The `host:port` of every process of the cluster, comma-separated,
    /// in process order.
    #[arg(long, value_delimiter = ',', value_name = "LIST", requires = "process")]
    pub addresses: Vec<String>,
    /// A token naming the run, the same on every process of the cluster:
    /// a process of another run (or another program, or another
    /// `--threads`) ends the run with an error before any state is
    /// exchanged. `--processes` hands out a random one.
    #[arg(long, value_name = "TOKEN", requires = "process")]
    pub run_id: Option<String>,
    /// Limits and progress.
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// Runs `rigor reach`.
pub fn run(args: &Args) -> CliResult {
    if let Some(n) = args.processes {
        return run_processes(args, n);
    }
    if let Some(k) = args.process {
        return run_member(args, k);
    }
    // Reachable labels are written as their witnesses replay; the rest
    // when the run ends.
    let stream = AnswerStream::for_run(&args.program, args.json, args.witness.as_deref())?;
    let opts = ReachOptions {
        abstraction: !args.no_abstraction,
        seed_log: args.seed_log.clone(),
        observer: args.limits.observer(),
        certify: !args.no_certify,
        keep_certificate: args.certificate.is_some(),
        on_verdict: Some(answer_sink(&stream)),
        threads: args.threads,
        invariant_worker: super::horn_worker::command(),
    };
    // A contradicting answer stops the run.
    let (budget, stop) = args.limits.budget()?.cancellable();
    stream.stop_on_contradiction(stop);
    let r = reach::solve(&args.program, &budget, &opts)?;
    drop(opts);
    finish(args, stream, &r)
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

/// Runs as process `k` of the cluster `args.addresses`.
pub fn run_member(args: &Args, k: usize) -> CliResult {
    if k >= args.addresses.len() {
        return Err(Error::Usage(format!(
            "--process {k}: the cluster has {} addresses",
            args.addresses.len()
        )));
    }
    let cluster = Cluster {
        process: k,
        addresses: args.addresses.clone(),
        threads: args.threads.unwrap_or(1),
        run_id: args.run_id.clone().unwrap_or_default(),
    };
    let stream = AnswerStream::for_run(&args.program, args.json, args.witness.as_deref())?;
    let tell = answer_sink(&stream);
    let budget = args.limits.budget()?;
    match reach::solve_distributed(&args.program, &budget, &cluster, Some(&tell))? {
        Some(r) => finish(args, stream, &r),
        None => Ok(0),
    }
}

/// How long the processes may take to connect after one of them failed
/// before the run gives up (timely retries for ever when a process never
/// comes).
const CONNECT_LIMIT: Duration = Duration::from_secs(60);

/// Starts processes 0..n-1 on this machine and runs as process n-1.
pub fn run_processes(args: &Args, n: usize) -> CliResult {
    if n == 0 {
        return Err(Error::Usage("--processes: at least 1".into()));
    }
    let exe = std::env::current_exe()
        .map_err(|e| Error::Usage(format!("--processes: cannot find rigor itself: {e}")))?;
    // The processes share this machine's memory.
    let args = &Args {
        limits: args.limits.shared_by(n),
        ..args.clone()
    };
    let run_id = format!("{:016x}", rand::random::<u64>());
    let mut flags = member_flags(args);
    flags.extend(["--run-id".to_string(), run_id.clone()]);
    let cluster = LocalCluster::start(n, |k, addresses| {
        let mut cmd = Command::new(&exe);
        cmd.args([
            "reach",
            &args.program,
            "--quiet",
            "--process",
            &k.to_string(),
        ])
        .arg("--addresses")
        .arg(addresses.join(","))
        .args(&flags);
        cmd
    })
    .map_err(|e| Error::Usage(format!("--processes: {e}")))?;
    let member = Args {
        addresses: cluster.addresses.clone(),
        process: Some(n - 1),
        processes: None,
        run_id: Some(run_id),
        ..args.clone()
    };
    let watch = cluster.watch(Watch {
        interrupted: super::limits::interrupted,
        interrupted_exit: super::limits::EXIT_INTERRUPTED,
        connect_limit: CONNECT_LIMIT,
        abandon: Box::new(|| {
            eprintln!("rigor: a search process failed; the others are stopped");
            std::process::exit(1);
        }),
    });
    let out = run_member(&member, n - 1);
    let failed = watch.join().unwrap_or(true);
    match out {
        Ok(0) if failed => Err(Error::Usage(
            "--processes: a search process failed (its error is above)".into(),
        )),
        other => other,
    }
}

/// The limit and thread flags of `args`, for the other processes.
fn member_flags(args: &Args) -> Vec<String> {
    let l = &args.limits;
    let mut flags = Vec::new();
    if let Some(t) = args.threads {
        flags.extend(["--threads".to_string(), t.to_string()]);
    }
    if let Some(t) = l.timeout {
        flags.extend(["--timeout".to_string(), t.to_string()]);
    }
    if let Some(m) = l.max_states {
        flags.extend(["--max-states".to_string(), m.to_string()]);
    }
    if let Some(m) = l.memory_limit {
        flags.extend(["--memory-limit".to_string(), m.to_string()]);
    }
    flags
}
