//! A cluster on one machine: the process that reports starts the others
//! as child processes on free 127.0.0.1 ports, then watches them while it
//! takes part in the search itself (as the last process, [`super`]).
//!
//! Timely retries a connection for ever, so a child that fails before the
//! cluster has connected would leave the caller waiting; the watcher
//! stops the others and hands over to the caller's `abandon` instead.

use std::io;
use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Why the processes of a local cluster could not be started.
#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    /// No port on 127.0.0.1 could be reserved.
    #[error("no free local port: {0}")]
    Ports(io::Error),
    /// A process could not be started (the ones started before are stopped).
    #[error("cannot start process {process}: {source}")]
    Spawn {
        /// Its index in the cluster.
        process: usize,
        /// What the system said.
        source: io::Error,
    },
}

/// How the watcher treats the other processes of a local cluster.
pub struct Watch {
    /// Polled while the children run: once it says yes, every child gets
    /// SIGTERM (each then stops expanding, drains and reports).
    pub interrupted: fn() -> bool,
    /// The exit code of a child that was interrupted and answered what it
    /// had: not a failure.
    pub interrupted_exit: i32,
    /// How long after a child's failure the others may still take to
    /// finish before the cluster is abandoned.
    pub connect_limit: Duration,
    /// Called, on the watcher's thread, once the others are stopped after
    /// a failure the cluster did not get over (the caller's own process is
    /// then waiting on timely for ever: it should end).
    pub abandon: Box<dyn FnOnce() + Send>,
}

/// Processes `0..n-1` of a cluster of `n` on this machine, started; the
/// caller runs process `n-1` on [`LocalCluster::addresses`].
pub struct LocalCluster {
    /// The `host:port` of every process, in process order.
    pub addresses: Vec<String>,
    children: Vec<Child>,
}

impl LocalCluster {
    /// Reserves `n` local addresses and starts processes `0..n-1`, each
    /// from `command(k, addresses)` (its standard input and output are
    /// closed; its standard error is the caller's).
    pub fn start(
        n: usize,
        command: impl Fn(usize, &[String]) -> Command,
    ) -> Result<Self, LaunchError> {
        let addresses = free_addresses(n).map_err(LaunchError::Ports)?;
        let mut children = Vec::new();
        for k in 0..n.saturating_sub(1) {
            let mut cmd = command(k, &addresses);
            match cmd.stdin(Stdio::null()).stdout(Stdio::null()).spawn() {
                Ok(c) => children.push(c),
                Err(source) => {
                    stop(&mut children);
                    return Err(LaunchError::Spawn { process: k, source });
                }
            }
        }
        Ok(LocalCluster {
            addresses,
            children,
        })
    }

    /// Watches the started processes on a thread of its own, until each
    /// has ended; the thread's result says whether one failed.
    pub fn watch(self, how: Watch) -> JoinHandle<bool> {
        let mut children = self.children;
        std::thread::spawn(move || {
            let mut failed_at: Option<Instant> = None;
            let mut told = false;
            while !children.is_empty() {
                if !told && (how.interrupted)() {
                    told = true;
                    for c in &children {
                        // SAFETY: a signal to a child process this one started.
                        unsafe { libc::kill(c.id() as libc::pid_t, libc::SIGTERM) };
                    }
                }
                children.retain_mut(|c| match c.try_wait() {
                    Ok(Some(status)) => {
                        if !status.success() && status.code() != Some(how.interrupted_exit) {
                            failed_at.get_or_insert_with(Instant::now);
                        }
                        false
                    }
                    Ok(None) => true,
                    Err(_) => false,
                });
                if failed_at.is_some_and(|t| t.elapsed() > how.connect_limit) {
                    stop(&mut children);
                    (how.abandon)();
                    return true;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            failed_at.is_some()
        })
    }
}

/// `n` addresses on 127.0.0.1 whose ports were free a moment ago.
fn free_addresses(n: usize) -> io::Result<Vec<String>> {
    let listeners = (0..n)
        .map(|_| TcpListener::bind("127.0.0.1:0"))
        .collect::<io::Result<Vec<_>>>()?;
    listeners
        .iter()
        .map(|l| l.local_addr().map(|a| a.to_string()))
        .collect()
}

/// Kills and reaps `children`.
fn stop(children: &mut Vec<Child>) {
    for c in children.iter_mut() {
        let _ = c.kill();
        let _ = c.wait();
    }
    children.clear();
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;

    fn never() -> bool {
        false
    }

    /// A watch that is never interrupted and treats 130 as an interrupt.
    fn watch_with(connect_limit: Duration, abandon: Box<dyn FnOnce() + Send>) -> Watch {
        Watch {
            interrupted: never,
            interrupted_exit: 130,
            connect_limit,
            abandon,
        }
    }

    fn shell(script: &'static str) -> impl Fn(usize, &[String]) -> Command {
        move |k, addresses| {
            let mut c = Command::new("sh");
            c.args(["-c", script, "sh", &k.to_string(), &addresses.join(",")]);
            c
        }
    }

    #[test]
    fn the_caller_gets_distinct_addresses_and_the_others_are_started() {
        let cluster = LocalCluster::start(3, shell("exit 0")).unwrap();
        assert_eq!(cluster.addresses.len(), 3);
        let mut a = cluster.addresses.clone();
        a.sort();
        a.dedup();
        assert_eq!(a.len(), 3, "distinct ports");
        assert_eq!(
            cluster.children.len(),
            2,
            "the last process is the caller's"
        );
        let how = watch_with(
            Duration::from_secs(5),
            Box::new(|| panic!("nothing failed")),
        );
        assert!(!cluster.watch(how).join().unwrap());
    }

    #[test]
    fn a_failed_process_stops_the_others_and_abandons_the_cluster() {
        // Process 0 fails at once; process 1 would wait for ever.
        let script = "if [ \"$1\" = 0 ]; then exit 3; else sleep 600; fi";
        let cluster = LocalCluster::start(3, shell(script)).unwrap();
        let abandoned = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&abandoned);
        let how = watch_with(
            Duration::from_millis(100),
            Box::new(move || flag.store(true, Ordering::SeqCst)),
        );
        assert!(cluster.watch(how).join().unwrap(), "a failure is reported");
        assert!(abandoned.load(Ordering::SeqCst));
    }

    #[test]
    fn an_interrupted_exit_is_not_a_failure() {
        let cluster = LocalCluster::start(2, shell("exit 130")).unwrap();
        let how = watch_with(
            Duration::from_millis(100),
            Box::new(|| panic!("an interrupted process answered what it had")),
        );
        assert!(!cluster.watch(how).join().unwrap());
    }
}
