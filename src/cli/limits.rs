//! Options shared by every exploring subcommand: the budget and the
//! progress display.

use std::io::IsTerminal;
use std::sync::{Arc, OnceLock};

use crate::explore::{Observer, Sample};
use crate::runtime::budget::total_memory;
use crate::runtime::{Budget, Cancel, LimitError};

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
    /// The budget of a run that starts now.
    pub fn budget(&self) -> Result<Budget, LimitError> {
        let memory = (self.memory_limit.map(|m| m.saturating_mul(1024 * 1024)))
            .or_else(|| total_memory().map(|t| t / 10 * 8));
        let mut budget = Budget::from_flags(self.max_states, self.timeout, memory)?;
        budget.cancel = Some(interrupt().clone());
        Ok(budget)
    }

    /// The limits of each of `n` processes sharing this machine: the
    /// memory limit (given, or the default share of the machine) split
    /// evenly, so that together they stay within it; the others as they
    /// are (the state limit already counts every process's states).
    pub fn shared_by(&self, n: usize) -> LimitArgs {
        let mib = (self.memory_limit).or_else(|| total_memory().map(|t| (t / 10 * 8) >> 20));
        LimitArgs {
            memory_limit: mib.map(|m| (m / n.max(1) as u64).max(1)),
            ..self.clone()
        }
    }

    /// A progress bar on stderr, when it is a terminal and not `--quiet`;
    /// it clears itself when the run drops it.
    pub fn observer(&self) -> Option<Observer> {
        if self.quiet || !std::io::stderr().is_terminal() {
            return None;
        }
        let bar =
            indicatif::ProgressBar::new_spinner().with_finish(indicatif::ProgressFinish::AndClear);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{spinner} {elapsed_precise} {msg}")
                .expect("valid progress template"),
        );
        Some(Arc::new(move |s: &Sample| {
            let secs = s.elapsed.as_secs_f64().max(1e-9);
            bar.set_message(format!(
                "{} states ({} pruned), {:.0} states/s, depth {}, {} of {} labels found",
                s.states,
                s.pruned,
                s.states as f64 / secs,
                s.depth,
                s.found,
                s.wanted
            ));
            bar.tick();
        }))
    }
}

/// The flag an interrupt (SIGINT, SIGTERM, SIGHUP) raises: every budget of
/// the run holds it, so the run stops as at a limit and prints what it has
/// proved. A second interrupt ends the process at once.
fn interrupt() -> &'static Cancel {
    static FLAG: OnceLock<Cancel> = OnceLock::new();
    FLAG.get_or_init(|| {
        let flag = Cancel::new();
        let raised = flag.clone();
        // Without a handler (one was set already), interrupts keep their
        // default action: the answers written so far stay written.
        let _ = ctrlc::set_handler(move || {
            if raised.is_cancelled() {
                std::process::exit(EXIT_INTERRUPTED);
            }
            eprintln!("rigor: interrupted; answering what is proved so far");
            raised.cancel();
        });
        flag
    })
}

/// The exit code of a run that was interrupted.
pub const EXIT_INTERRUPTED: i32 = 130;

/// Whether the run was interrupted (its answers are those proved before).
pub fn interrupted() -> bool {
    interrupt().is_cancelled()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn processes_on_one_machine_share_its_memory_limit() {
        let given = LimitArgs {
            memory_limit: Some(9000),
            timeout: Some(60.0),
            ..LimitArgs::default()
        };
        let each = given.shared_by(3);
        assert_eq!(each.memory_limit, Some(3000));
        assert_eq!(each.timeout, Some(60.0));
        assert_eq!(given.shared_by(1).memory_limit, Some(9000));
        // No limit given: the default (80 % of the machine) is shared.
        let total = total_memory().expect("total memory readable") >> 20;
        let shared = LimitArgs::default().shared_by(2).memory_limit.unwrap();
        assert!(
            (shared * 2).abs_diff(total * 8 / 10) <= 2,
            "{shared} of {total}"
        );
    }
}
