//! Options shared by every exploring subcommand.

use std::time::Duration;

use crate::explore::Limits;

/// Resource limits and progress, as command-line flags.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct LimitArgs {
    /// Stop after this many states (answers what is proved so far).
    #[arg(long)]
    pub max_states: Option<u64>,
    /// Stop after this many seconds.
    #[arg(long)]
    pub timeout: Option<f64>,
    /// Stop when resident memory exceeds this many MiB (default: 80% of
    /// the machine's memory, so that a run answers `unknown` instead of
    /// being killed).
    #[arg(long, value_name = "MIB")]
    pub memory_limit: Option<u64>,
    /// Never show a progress bar.
    #[arg(long)]
    pub quiet: bool,
}

impl LimitArgs {
    /// The explorer limits.
    pub fn limits(&self) -> Limits {
        Limits {
            max_states: self.max_states,
            timeout: self.timeout.map(Duration::from_secs_f64),
            memory_limit: self
                .memory_limit
                .map(|m| m * 1024 * 1024)
                .or_else(|| total_memory().map(|t| t / 10 * 8)),
        }
    }

    /// Whether to show progress.
    pub fn progress(&self) -> bool {
        !self.quiet
    }
}

/// Total memory of the machine in bytes, from `/proc/meminfo`.
fn total_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}
