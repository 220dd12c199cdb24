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
    /// Stop when resident memory exceeds this many MiB.
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
            memory_limit: self.memory_limit.map(|m| m * 1024 * 1024),
        }
    }

    /// Whether to show progress.
    pub fn progress(&self) -> bool {
        !self.quiet
    }
}
