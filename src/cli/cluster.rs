//! `--processes N`, `--process K --addresses ...`: the searches of `rigor
//! reach` and `rigor ltl` spread over several processes
//! ([`crate::explore::distributed`]).
//!
//! With `--processes N` rigor starts N-1 copies of itself on this machine
//! as processes 0..N-2 of a cluster on free 127.0.0.1 ports and runs as the
//! last one, which prints the answers. On a real cluster each host runs
//! rigor with `--process K` and the same `--addresses` (`docs/cluster.md`).

use std::process::Command;
use std::time::Duration;

use super::limits::LimitArgs;
use super::CliResult;
use crate::error::Error;
use crate::explore::distributed::local::{LocalCluster, Watch};
use crate::explore::distributed::Cluster;

/// Where the processes of a run are.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct ClusterArgs {
    /// Spread the breadth-first search over N processes on this machine
    /// (127.0.0.1), on timely-dataflow, sharing its memory limit: the
    /// answers and witnesses of one process, for exploration on many
    /// machines. No abstraction: every answer is settled by the search.
    #[arg(long, value_name = "N", conflicts_with = "process")]
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
}

impl ClusterArgs {
    /// This process's place in the cluster of `--process K --addresses`,
    /// its workers `threads` (default 1).
    pub fn cluster(&self, k: usize, threads: Option<usize>) -> Result<Cluster, Error> {
        if k >= self.addresses.len() {
            return Err(Error::Usage(format!(
                "--process {k}: the cluster has {} addresses",
                self.addresses.len()
            )));
        }
        Ok(Cluster {
            process: k,
            addresses: self.addresses.clone(),
            threads: threads.unwrap_or(1),
            run_id: self.run_id.clone().unwrap_or_default(),
        })
    }
}

/// How long the processes may take to connect after one of them failed
/// before the run gives up (timely retries for ever when a process never
/// comes).
const CONNECT_LIMIT: Duration = Duration::from_secs(60);

/// Starts processes 0..n-1 of a cluster on this machine, each `rigor`
/// with `command` (the subcommand and its arguments) and the limits and
/// `threads` given, each with 1/n of the memory limit; then runs `member`
/// as process n-1, with the cluster's arguments and its own limits, and
/// watches the others.
pub fn run_processes(
    n: usize,
    command: &[String],
    limits: &LimitArgs,
    threads: Option<usize>,
    member: impl FnOnce(&ClusterArgs, &LimitArgs) -> CliResult,
) -> CliResult {
    if n == 0 {
        return Err(Error::Usage("--processes: at least 1".into()));
    }
    let exe = std::env::current_exe()
        .map_err(|e| Error::Usage(format!("--processes: cannot find rigor itself: {e}")))?;
    // The processes share this machine's memory.
    let limits = limits.shared_by(n);
    let run_id = format!("{:016x}", rand::random::<u64>());
    let mut flags = member_flags(&limits, threads);
    flags.extend(["--run-id".to_string(), run_id.clone()]);
    let cluster = LocalCluster::start(n, |k, addresses| {
        let mut cmd = Command::new(&exe);
        cmd.args(command)
            .args(["--quiet", "--process", &k.to_string()])
            .arg("--addresses")
            .arg(addresses.join(","))
            .args(&flags);
        cmd
    })
    .map_err(|e| Error::Usage(format!("--processes: {e}")))?;
    let last = ClusterArgs {
        processes: None,
        process: Some(n - 1),
        addresses: cluster.addresses.clone(),
        run_id: Some(run_id),
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
    let out = member(&last, &limits);
    let failed = watch.join().unwrap_or(true);
    match out {
        Ok(0) if failed => Err(Error::Usage(
            "--processes: a search process failed (its error is above)".into(),
        )),
        other => other,
    }
}

/// The limit and thread flags for the other processes.
fn member_flags(limits: &LimitArgs, threads: Option<usize>) -> Vec<String> {
    let mut flags = Vec::new();
    if let Some(t) = threads {
        flags.extend(["--threads".to_string(), t.to_string()]);
    }
    if let Some(t) = limits.timeout {
        flags.extend(["--timeout".to_string(), t.to_string()]);
    }
    if let Some(m) = limits.max_states {
        flags.extend(["--max-states".to_string(), m.to_string()]);
    }
    if let Some(m) = limits.memory_limit {
        flags.extend(["--memory-limit".to_string(), m.to_string()]);
    }
    flags
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_outside_the_addresses_is_a_usage_error() {
        let args = ClusterArgs {
            process: Some(2),
            addresses: vec!["127.0.0.1:1".into(), "127.0.0.1:2".into()],
            ..ClusterArgs::default()
        };
        assert!(matches!(args.cluster(2, None), Err(Error::Usage(_))));
        let c = args.cluster(1, None).unwrap();
        assert_eq!((c.process, c.threads, c.run_id.as_str()), (1, 1, ""));
    }

    #[test]
    fn the_other_processes_get_the_limits_and_threads() {
        let limits = LimitArgs {
            timeout: Some(5.0),
            memory_limit: Some(100),
            ..LimitArgs::default()
        };
        let flags = member_flags(&limits, Some(2));
        assert_eq!(
            flags,
            ["--threads", "2", "--timeout", "5", "--memory-limit", "100"]
        );
    }
}
