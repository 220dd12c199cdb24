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
