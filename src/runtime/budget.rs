//! One budget for every engine: how many states, until when, how much
//! memory, and whether the run was cancelled.
//!
//! Every explorer, the abstract interpreter, the emptiness check and the
//! pipelines take a [`Budget`]; when it is spent they stop and say why
//! ([`StopReason`]), and every checker then answers `unknown` for what it
//! could not finish. Deadlines are instants, so a pipeline hands each stage
//! a [`Budget::share`] of what is left.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Why a search stopped before the end.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub enum StopReason {
    /// The state limit was reached.
    MaxStates,
    /// The deadline passed.
    Timeout,
    /// Resident memory reached the limit.
    MemoryLimit,
    /// Every error label was settled (found, or proved unreachable by
    /// another engine), or every property a checkpoint looks for: nothing
    /// more to learn from going on.
    AllErrorsFound,
    /// The run was cancelled (an interrupt, or another engine finished
    /// what this stage was for).
    Interrupted,
}

impl StopReason {
    /// The reason in words, as `"time limit reached during {what}"`.
    pub fn during(self, what: &str) -> String {
        let why = match self {
            StopReason::MaxStates => "state limit reached",
            StopReason::Timeout => "time limit reached",
            StopReason::MemoryLimit => "memory limit reached",
            StopReason::AllErrorsFound => "every label settled",
            StopReason::Interrupted => "interrupted",
        };
        format!("{why} during {what}")
    }
}

/// A flag that cancels every budget holding it, and every flag made from
/// it with [`Cancel::child`].
#[derive(Clone, Debug, Default)]
pub struct Cancel {
    flag: Arc<AtomicBool>,
    parent: Option<Arc<Cancel>>,
}

impl Cancel {
    /// A flag not raised yet.
    pub fn new() -> Cancel {
        Cancel::default()
    }

    /// A flag raised when this one is, or on its own.
    pub fn child(&self) -> Cancel {
        Cancel {
            flag: Arc::default(),
            parent: Some(Arc::new(self.clone())),
        }
    }

    /// Raises the flag.
    pub fn cancel(&self) {
        self.flag.store(true, Ordering::Relaxed);
    }

    /// Whether the flag, or one it was made from, is raised.
    pub fn is_cancelled(&self) -> bool {
        self.flag.load(Ordering::Relaxed) || self.parent.as_ref().is_some_and(|p| p.is_cancelled())
    }
}

/// How many times over the steps the time left allows, at the pace so
/// far, the steps still pending must be before [`Budget::out_of_reach`]
/// gives up.
pub const OUT_OF_REACH_MARGIN: f64 = 2.0;

/// The resources one run, or one stage of a run, may use.
#[derive(Clone, Debug, Default)]
pub struct Budget {
    /// Stop after this many states.
    pub max_states: Option<u64>,
    /// Stop at this instant.
    pub deadline: Option<Instant>,
    /// Stop when the process's resident memory exceeds this many bytes.
    pub memory_limit: Option<u64>,
    /// Stop when this flag is raised.
    pub cancel: Option<Cancel>,
}

/// How long the last stages of a cancelled run may still take
/// ([`Budget::after_cancel`]): the LTL check of the graph explored so far
/// (2019 LTL P6: 100 properties on 4.5 M states in 4.6 s), a certificate
/// check in flight (2019 challenge C P18: 2,683 regions in 3-9 s).
pub const INTERRUPT_GRACE: Duration = Duration::from_secs(10);

impl Budget {
    /// No limit at all.
    pub fn unlimited() -> Budget {
        Budget::default()
    }

    /// This budget with a deadline `timeout` from now (the earlier one
    /// wins).
    pub fn with_timeout(self, timeout: Duration) -> Budget {
        self.until(Instant::now() + timeout)
    }

    /// This budget, ending at `deadline` at the latest.
    pub fn until(mut self, deadline: Instant) -> Budget {
        self.deadline = Some(self.deadline.map_or(deadline, |d| d.min(deadline)));
        self
    }

    /// This budget, also ended by a flag of its own (raised with the one
    /// it had, if any), and that flag.
    pub fn cancellable(&self) -> (Budget, Cancel) {
        let flag = self.cancel.as_ref().map_or_else(Cancel::new, Cancel::child);
        let budget = Budget {
            cancel: Some(flag.clone()),
            ..self.clone()
        };
        (budget, flag)
    }

    /// The budget of a last stage that turns what a cancelled run found
    /// into answers (the LTL pipeline's check of the graph explored so
    /// far): once cancelled, no longer cancelled but ending `grace` from
    /// now (or at the deadline, if earlier); else this budget as it is.
    pub fn after_cancel(&self, grace: Duration) -> Budget {
        match &self.cancel {
            Some(c) if c.is_cancelled() => Budget {
                cancel: None,
                ..self.clone()
            }
            .with_timeout(grace),
            _ => self.clone(),
        }
    }

    /// This budget with a state limit.
    pub fn with_max_states(mut self, max: u64) -> Budget {
        self.max_states = Some(self.max_states.map_or(max, |m| m.min(max)));
        self
    }

    /// The time left, if there is a deadline.
    pub fn remaining(&self) -> Option<Duration> {
        self.deadline
            .map(|d| d.saturating_duration_since(Instant::now()))
    }

    /// A stage's part of this budget: `fraction` of the time left (from
    /// now), the same state and memory limits and cancellation.
    pub fn share(&self, fraction: f64) -> Budget {
        Budget {
            deadline: self
                .remaining()
                .map(|r| Instant::now() + r.mul_f64(fraction)),
            ..self.clone()
        }
    }

    /// Why a search that has stored `states` states must stop, if it must.
    pub fn spent(&self, states: u64) -> Option<StopReason> {
        if self.max_states.is_some_and(|m| states >= m) {
            return Some(StopReason::MaxStates);
        }
        self.spent_time_or_memory()
    }

    /// Whether `bytes` more memory may be taken now: false when it would
    /// cross the memory limit or near the address-space limit. Tables ask
    /// before they double, since a doubling can cross a limit that the
    /// periodic checks never saw approach.
    pub fn can_grow(&self, bytes: usize) -> bool {
        let bytes = bytes as u64;
        let resident_ok = self
            .memory_limit
            .is_none_or(|m| resident_bytes().is_none_or(|r| r.saturating_add(bytes) < m));
        let address_ok = super::memory::address_space_limit().is_none_or(|limit| {
            super::memory::address_space_used().is_none_or(|used| {
                (used.saturating_add(bytes) as f64) < limit as f64 * ADDRESS_SPACE_SHARE
            })
        });
        resident_ok && address_ok
    }

    /// Whether work that did `done` steps in `elapsed` and has at least
    /// `pending` steps left cannot finish before the deadline at the same
    /// pace, with a margin: `pending` is over [`OUT_OF_REACH_MARGIN`] times
    /// the steps the time left allows. Never before a second has passed
    /// (the pace is not known yet), nor without a deadline.
    pub fn out_of_reach(&self, pending: usize, done: u64, elapsed: Duration) -> bool {
        let (Some(left), secs) = (self.remaining(), elapsed.as_secs_f64()) else {
            return false;
        };
        if secs < 1.0 || done == 0 {
            return false;
        }
        let pace = done as f64 / secs;
        pending as f64 > OUT_OF_REACH_MARGIN * pace * left.as_secs_f64()
    }

    /// [`Budget::spent`] without the state limit: the deadline, the memory
    /// limit and cancellation.
    pub fn spent_time_or_memory(&self) -> Option<StopReason> {
        if self.cancel.as_ref().is_some_and(Cancel::is_cancelled) {
            return Some(StopReason::Interrupted);
        }
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            return Some(StopReason::Timeout);
        }
        if let Some(m) = self.memory_limit {
            if resident_bytes().is_some_and(|r| r >= m) {
                return Some(StopReason::MemoryLimit);
            }
        }
        if super::memory::exhausted() || near_address_space_limit() {
            return Some(StopReason::MemoryLimit);
        }
        None
    }
}

/// A limit given on the command line that makes no sense.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum LimitError {
    /// A timeout that is negative or not a number.
    #[error("--timeout {0}: expected a number of seconds, at least 0")]
    Timeout(f64),
}

impl Budget {
    /// The budget of a run that starts now: at most `max_states` states,
    /// `timeout` seconds, `memory_limit` bytes of resident memory.
    pub fn from_flags(
        max_states: Option<u64>,
        timeout: Option<f64>,
        memory_limit: Option<u64>,
    ) -> Result<Budget, LimitError> {
        let mut b = Budget {
            max_states,
            memory_limit,
            ..Budget::default()
        };
        if let Some(t) = timeout {
            if t.is_nan() || t < 0.0 {
                return Err(LimitError::Timeout(t));
            }
            // A deadline beyond what the clock holds is no deadline.
            let d = Duration::try_from_secs_f64(t).ok();
            b.deadline = d.and_then(|d| Instant::now().checked_add(d));
        }
        Ok(b)
    }
}

/// Resident set size of this process in bytes, if the platform tells.
pub fn resident_bytes() -> Option<u64> {
    memory_stats::memory_stats().map(|m| m.physical_mem as u64)
}

/// Share of a hard address-space limit (`ulimit -v`) at which a run
/// stops, leaving room for a table to grow once more and for the answers.
const ADDRESS_SPACE_SHARE: f64 = 0.85;

/// Whether the process is close to its address-space limit, if it has one.
fn near_address_space_limit() -> bool {
    super::memory::address_space_limit().is_some_and(|limit| {
        super::memory::address_space_used()
            .is_some_and(|used| used as f64 >= limit as f64 * ADDRESS_SPACE_SHARE)
    })
}

/// Peak resident set size of this process in bytes, if the platform tells.
pub fn peak_resident_bytes() -> Option<u64> {
    // SAFETY: getrusage only writes the struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let ok = unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } == 0;
    // Linux reports kibibytes.
    (ok && usage.ru_maxrss > 0).then(|| usage.ru_maxrss as u64 * 1024)
}

/// Physical memory of the machine in bytes, if the platform tells.
pub fn total_memory() -> Option<u64> {
    // SAFETY: sysconf only reads system constants.
    let (pages, size) = unsafe {
        (
            libc::sysconf(libc::_SC_PHYS_PAGES),
            libc::sysconf(libc::_SC_PAGESIZE),
        )
    };
    (pages > 0 && size > 0).then(|| pages as u64 * size as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn work_is_out_of_reach_only_when_its_pending_steps_exceed_the_time_left() {
        let b = Budget::unlimited().with_timeout(Duration::from_secs(100));
        let ten_secs = Duration::from_secs(10);
        // 100 steps a second, about 100 s left: 20,000 steps at most.
        assert!(!b.out_of_reach(15_000, 1_000, ten_secs));
        assert!(b.out_of_reach(25_000, 1_000, ten_secs));
        // The pace is not known before a second, nor without a step.
        assert!(!b.out_of_reach(25_000, 1_000, Duration::from_millis(500)));
        assert!(!b.out_of_reach(25_000, 0, ten_secs));
        // Without a deadline nothing is out of reach.
        assert!(!Budget::unlimited().out_of_reach(usize::MAX, 1, ten_secs));
        // Past the deadline, any pending step is.
        let past = Budget::unlimited().with_timeout(Duration::ZERO);
        assert!(past.out_of_reach(1, 1_000, ten_secs));
    }

    #[test]
    fn limits_stop_in_order() {
        let b = Budget::unlimited().with_max_states(10);
        assert_eq!(b.spent(9), None);
        assert_eq!(b.spent(10), Some(StopReason::MaxStates));
        let late = Budget::unlimited().with_timeout(Duration::from_secs(3600));
        assert_eq!(late.spent(0), None);
        let past = Budget::unlimited().until(Instant::now());
        assert_eq!(past.spent(0), Some(StopReason::Timeout));
        let c = Cancel::new();
        let b = Budget {
            cancel: Some(c.clone()),
            ..Budget::default()
        };
        assert_eq!(b.spent(0), None);
        c.cancel();
        assert_eq!(b.spent(0), Some(StopReason::Interrupted));
    }

    #[test]
    fn after_a_cancel_a_last_stage_has_its_grace_and_no_more() {
        let (b, flag) = Budget::unlimited().cancellable();
        let grace = Duration::from_secs(3600);
        assert!(
            b.after_cancel(grace).deadline.is_none(),
            "not cancelled: as it was"
        );
        flag.cancel();
        let last = b.after_cancel(grace);
        assert_eq!(last.spent(0), None);
        assert!(last.remaining().is_some_and(|r| r <= grace));
        // Never past the run's own deadline.
        let (b, flag) = Budget::unlimited()
            .with_timeout(Duration::ZERO)
            .cancellable();
        flag.cancel();
        assert_eq!(b.after_cancel(grace).spent(0), Some(StopReason::Timeout));
    }

    #[test]
    fn a_child_flag_is_raised_with_its_parent_not_the_other_way() {
        let parent = Cancel::new();
        let b = Budget {
            cancel: Some(parent.clone()),
            ..Budget::default()
        };
        let (own, flag) = b.cancellable();
        let (_, other) = b.cancellable();
        flag.cancel();
        assert_eq!(own.spent(0), Some(StopReason::Interrupted));
        assert_eq!(b.spent(0), None);
        assert!(!other.is_cancelled());
        parent.cancel();
        assert!(other.is_cancelled());
        let (alone, flag) = Budget::unlimited().cancellable();
        assert_eq!(alone.spent(0), None);
        flag.cancel();
        assert_eq!(alone.spent(0), Some(StopReason::Interrupted));
    }

    #[test]
    fn flags_are_checked() {
        assert!(Budget::from_flags(None, Some(-1.0), None).is_err());
        assert!(Budget::from_flags(None, Some(f64::NAN), None).is_err());
        let b = Budget::from_flags(Some(5), Some(1e30), Some(1 << 30)).unwrap();
        assert_eq!((b.max_states, b.memory_limit), (Some(5), Some(1 << 30)));
        let b = Budget::from_flags(None, Some(10.0), None).unwrap();
        assert!(b.remaining().unwrap() <= Duration::from_secs(10));
    }

    #[test]
    fn shares_take_part_of_the_time_left() {
        let b = Budget::unlimited().with_timeout(Duration::from_secs(100));
        let half = b.share(0.5).remaining().unwrap();
        assert!(half <= Duration::from_secs(50) && half > Duration::from_secs(49));
        assert!(Budget::unlimited().share(0.5).deadline.is_none());
    }

    #[test]
    fn memory_readings_are_plausible() {
        let r = resident_bytes().expect("resident memory readable");
        let p = peak_resident_bytes().expect("peak memory readable");
        assert!(r > 1 << 20 && p >= r / 2, "resident {r}, peak {p}");
        assert!(total_memory().expect("total memory readable") > r);
    }
}
