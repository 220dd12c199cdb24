//! Breadth-first exploration of a compiled program.
//!
//! States get dense ids in discovery order, and are expanded in id order, so
//! the first path found to any state is a shortest one: parent links give
//! shortest witnesses. The exploration honours a state limit, a timeout and
//! a memory limit; when one is hit it stops and says so, and every checker
//! then treats the unexplored part as unknown.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use super::graph::{Edge, Outcome, StateGraph, StateId, NO_STATE};
use super::store::StateStore;
use crate::engine::{Fault, Machine};

/// Resource limits of an exploration.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// Stop after this many states.
    pub max_states: Option<u64>,
    /// Stop after this long.
    pub timeout: Option<Duration>,
    /// Stop when the process's resident memory exceeds this many bytes.
    pub memory_limit: Option<u64>,
}

/// What the explorer should keep and show.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Keep every edge (for LTL/CTL); otherwise only parent links.
    pub keep_graph: bool,
    /// Stop as soon as every error label of the program has been found.
    pub stop_when_all_errors_found: bool,
    /// Show a progress bar on a terminal.
    pub progress: bool,
    /// Extra input sequences whose states are visited first (seeding).
    pub seeds: Vec<Vec<usize>>,
    /// With `stop_when_all_errors_found`: the labels to look for, if not all
    /// of the program's (the others are known to be unreachable).
    pub wanted_errors: Option<Vec<u32>>,
}

/// Why an exploration stopped before the end.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub enum StopReason {
    /// `--max-states` reached.
    MaxStates,
    /// `--timeout` reached.
    Timeout,
    /// `--memory-limit` reached.
    MemoryLimit,
    /// Every error label was found; nothing more to learn for reachability.
    AllErrorsFound,
}

/// A step the engine could not execute.
#[derive(Clone, Debug)]
pub struct FaultAt {
    /// The state it was taken from.
    pub state: StateId,
    /// The input.
    pub input: usize,
    /// What went wrong.
    pub fault: Fault,
}

/// The result of an exploration.
pub struct Exploration {
    /// The graph (edges only if `keep_graph`; always the state counts).
    pub graph: StateGraph,
    /// Parent of each state (`NO_STATE` for the initial state).
    pub parent: Vec<StateId>,
    /// Input taken from the parent.
    pub parent_input: Vec<u16>,
    /// For each error label found: the first (shallowest) state and input
    /// reaching it.
    pub errors: Vec<(u32, StateId, usize)>,
    /// Steps that faulted (the exploration is then not complete).
    pub faults: Vec<FaultAt>,
    /// Why it stopped early, if it did.
    pub stopped: Option<StopReason>,
    /// Number of transitions executed.
    pub transitions: u64,
    /// BFS depth reached.
    pub depth: u32,
    /// Wall time.
    pub elapsed: Duration,
    /// Bytes per stored state row.
    pub state_bytes: usize,
    /// The visited-state store (to decode states).
    pub store: StateStore,
    /// States left unexpanded by the pruner.
    pub pruned: u64,
}

impl Exploration {
    /// Whether every reachable state was expanded without a fault.
    pub fn is_complete(&self) -> bool {
        self.stopped.is_none() && self.faults.is_empty()
    }

    /// The shortest input sequence from the initial state to `s`.
    pub fn path_to(&self, mut s: StateId) -> Vec<usize> {
        let mut path = Vec::new();
        while self.parent[s as usize] != NO_STATE {
            path.push(self.parent_input[s as usize] as usize);
            s = self.parent[s as usize];
        }
        path.reverse();
        path
    }
}

/// Resident set size of this process in bytes (Linux), if known.
pub fn resident_bytes() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = s.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

/// Peak resident set size of this process in bytes (Linux), if known.
pub fn peak_resident_bytes() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// What a [`Guide`] knows of the distance from a state to some labels.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Estimate {
    /// No run from the state ends in any of the labels (a sound claim).
    Dead,
    /// Every run from the state to one of the labels takes at least this
    /// many steps (the last one included).
    AtLeast(u32),
    /// Nothing known.
    Unknown,
}

/// Knows, of a concrete state, how far it is from some error labels.
pub trait Guide {
    /// The estimate for `state` and the error labels `unfound` (sorted).
    fn estimate(&mut self, state: &[i32], unfound: &[u32]) -> Estimate;
}

/// Explores the reachable states of `m` breadth-first.
pub fn explore(m: &Machine, limits: &Limits, opts: &Options) -> Exploration {
    explore_pruned(m, limits, opts, None)
}

/// [`explore`], leaving unexpanded the states `prune` says are
/// [`Estimate::Dead`] for the wanted error labels not found yet. Then an exploration that ends
/// without a stop proves those labels unreachable, but its graph is not the
/// program's: use it for reachability only (with `keep_graph` off).
pub fn explore_pruned(
    m: &Machine,
    limits: &Limits,
    opts: &Options,
    mut prune: Option<&mut dyn Guide>,
) -> Exploration {
    assert!(
        prune.is_none() || !opts.keep_graph,
        "a pruned exploration keeps no graph"
    );
    let start = Instant::now();
    let n_inputs = m.n_inputs();
    let width = m.state_width();
    let mut store = StateStore::new(width);
    let mut parent: Vec<StateId> = Vec::new();
    let mut parent_input: Vec<u16> = Vec::new();
    let mut edges: Vec<Edge> = Vec::new();
    let mut errors: Vec<(u32, StateId, usize)> = Vec::new();
    let mut error_seen: rustc_hash::FxHashSet<u32> = Default::default();
    let mut faults = Vec::new();
    let mut scratch = m.scratch();
    let mut cur = vec![0i32; width];
    let mut next = vec![0i32; width];
    let mut transitions = 0u64;

    let init = m.initial_state();
    store.insert(&init);
    parent.push(NO_STATE);
    parent_input.push(0);

    // Seeding: states on the seed traces get the first ids (their parent
    // links still give valid, if not shortest, witnesses).
    for seed in &opts.seeds {
        let mut s = 0u32;
        cur.copy_from_slice(&init);
        for &i in seed {
            match m.step(&mut scratch, &cur, i, &mut next) {
                Ok(o) if o.continues_trace() || o == Outcome::Invalid => {
                    let (id, new) = store.insert(&next);
                    if new {
                        parent.push(s);
                        parent_input.push(i as u16);
                    }
                    s = id;
                    std::mem::swap(&mut cur, &mut next);
                }
                _ => break,
            }
        }
    }

    let bar = if opts.progress && std::io::stderr().is_terminal() {
        let b = indicatif::ProgressBar::new_spinner();
        b.set_style(
            indicatif::ProgressStyle::with_template("{spinner} {elapsed_precise} {msg}")
                .expect("valid progress template"),
        );
        Some(b)
    } else {
        None
    };

    let mut stopped = None;
    let mut expanded: u32 = 0;
    let mut depth = 0u32;
    let mut level_end = store.len();
    let wanted = opts
        .wanted_errors
        .clone()
        .unwrap_or_else(|| m.error_labels.clone());
    let total_errors = wanted.len();
    let mut wanted_found = 0usize;
    // The wanted labels not found yet, sorted (for the pruner).
    let mut unfound: Vec<u32> = wanted.clone();
    unfound.sort_unstable();
    let mut pruned = 0u64;
    while expanded < store.len() {
        if expanded == level_end {
            depth += 1;
            level_end = store.len();
        }
        if limits.max_states.is_some_and(|m| store.len() as u64 >= m) && expanded < store.len() {
            stopped = Some(StopReason::MaxStates);
            break;
        }
        if expanded.is_multiple_of(4096) {
            if let Some(reason) = check_limits(limits, &store, start) {
                stopped = Some(reason);
                break;
            }
            if let Some(b) = &bar {
                let secs = start.elapsed().as_secs_f64().max(1e-9);
                b.set_message(format!(
                    "{} states ({} pruned), {:.0} states/s, depth {}, {} of {} labels found",
                    store.len(),
                    pruned,
                    store.len() as f64 / secs,
                    depth,
                    wanted_found,
                    total_errors
                ));
                b.tick();
            }
        }
        let s = expanded;
        store.get(s, &mut cur);
        if let Some(p) = prune.as_deref_mut() {
            if p.estimate(&cur, &unfound) == Estimate::Dead {
                pruned += 1;
                expanded += 1;
                continue;
            }
        }
        for i in 0..n_inputs {
            transitions += 1;
            let (target, outcome) = match m.step(&mut scratch, &cur, i, &mut next) {
                Err(fault) => {
                    faults.push(FaultAt {
                        state: s,
                        input: i,
                        fault,
                    });
                    (NO_STATE, Outcome::Blocked)
                }
                Ok(o @ Outcome::Error(n)) => {
                    if error_seen.insert(n) && m.error_labels.binary_search(&n).is_ok() {
                        errors.push((n, s, i));
                        wanted_found += wanted.contains(&n) as usize;
                        unfound.retain(|&l| l != n);
                    }
                    (NO_STATE, o)
                }
                Ok(Outcome::Blocked) => (NO_STATE, Outcome::Blocked),
                // Invalid inputs (and some rules) leave the state as it
                // was: no lookup needed.
                Ok(o) if next == cur => (s, o),
                Ok(o) => {
                    let (id, new) = store.insert(&next);
                    if new {
                        parent.push(s);
                        parent_input.push(i as u16);
                    }
                    (id, o)
                }
            };
            if opts.keep_graph {
                edges.push(Edge {
                    target,
                    packed: outcome.pack(),
                });
            }
        }
        expanded += 1;
        // An empty wanted list stops at once; a program without labels
        // is explored to the end.
        let something_to_find = total_errors > 0 || opts.wanted_errors.is_some();
        if opts.stop_when_all_errors_found && something_to_find && wanted_found == total_errors {
            stopped = Some(StopReason::AllErrorsFound);
            break;
        }
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    errors.sort_unstable();
    let graph = StateGraph {
        inputs: m.input_names.clone(),
        outputs: m.output_names.clone(),
        edges,
        n_states: store.len(),
        n_expanded: expanded,
    };
    Exploration {
        graph,
        parent,
        parent_input,
        errors,
        faults,
        stopped,
        transitions,
        depth,
        elapsed: start.elapsed(),
        state_bytes: store.row_bytes(),
        store,
        pruned,
    }
}

/// Which limit, if any, a search that started at `start` and stored
/// `store`'s states has reached.
pub(crate) fn check_limits(
    limits: &Limits,
    store: &StateStore,
    start: Instant,
) -> Option<StopReason> {
    if let Some(max) = limits.max_states {
        if store.len() as u64 >= max {
            return Some(StopReason::MaxStates);
        }
    }
    if let Some(t) = limits.timeout {
        if start.elapsed() >= t {
            return Some(StopReason::Timeout);
        }
    }
    if let Some(mem) = limits.memory_limit {
        if resident_bytes().is_some_and(|r| r >= mem) {
            return Some(StopReason::MemoryLimit);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problem(rel: &str) -> Machine {
        let path = format!("{}/problems/{rel}", env!("CARGO_MANIFEST_DIR"));
        Machine::compile(&crate::frontend::load(&path).expect("loads")).expect("compiles")
    }

    fn options(wanted: Option<Vec<u32>>) -> Options {
        Options {
            keep_graph: false,
            stop_when_all_errors_found: true,
            progress: false,
            seeds: Vec::new(),
            wanted_errors: wanted,
        }
    }

    #[test]
    fn stops_once_the_wanted_labels_are_found() {
        let m = problem("reach-arith/Problem902.c");
        let all = explore(&m, &Limits::default(), &options(None));
        let some = explore(&m, &Limits::default(), &options(Some(vec![0])));
        assert!(some.errors.iter().any(|e| e.0 == 0));
        assert_eq!(some.stopped, Some(StopReason::AllErrorsFound));
        assert!(some.store.len() <= all.store.len());
        // Nothing wanted: stops after the first state.
        let none = explore(&m, &Limits::default(), &options(Some(Vec::new())));
        assert_eq!(none.stopped, Some(StopReason::AllErrorsFound));
        assert!(none.store.len() <= 1 + m.n_inputs() as u32);
    }
}
