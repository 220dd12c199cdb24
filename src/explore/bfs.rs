//! Breadth-first exploration of any [`System`].
//!
//! States get dense ids in discovery order, and are expanded in id order, so
//! the first path found to any state is a shortest one: parent links give
//! shortest witnesses. The exploration honours a [`Budget`]; when it is
//! spent it stops and says so, and every checker then treats the unexplored
//! part as unknown. This is the one breadth-first search of rigor: the
//! reachability checker, the LTL and CTL checkers (which keep the graph),
//! `.aut`/`.dot` models and the lockstep comparison of two programs all run
//! through it.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::store::StateStore;
use crate::runtime::{Budget, StopReason};
use crate::system::{replay, Edge, Fault, Outcome, StateGraph, StateId, System, NO_STATE};

/// A snapshot of a running search, for progress displays and plots.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Sample {
    /// Time since the search started.
    pub elapsed: Duration,
    /// States stored.
    pub states: u64,
    /// States left unexpanded by a guide.
    pub pruned: u64,
    /// Breadth-first depth reached.
    pub depth: u32,
    /// Error labels found among those looked for.
    pub found: usize,
    /// Error labels looked for.
    pub wanted: usize,
}

/// Receives a [`Sample`] every few thousand states (a progress bar, a
/// recorder for plots).
pub type Observer = Arc<dyn Fn(&Sample) + Send + Sync>;

/// Told of each error label the moment a search first reaches it, with
/// the input sequence of a run that replays to it (so that answers can be
/// written before the search ends).
pub type ErrorFound = Arc<dyn Fn(u32, &[usize]) + Send + Sync>;

/// What the explorer should keep and whom it tells.
#[derive(Clone, Default)]
pub struct Options {
    /// Keep every edge (for LTL/CTL); otherwise only parent links.
    pub keep_graph: bool,
    /// Stop as soon as every error label looked for has been found.
    pub stop_when_all_errors_found: bool,
    /// Told how the search goes.
    pub observer: Option<Observer>,
    /// Extra input sequences whose states are visited first (seeding).
    pub seeds: Vec<Vec<usize>>,
    /// With `stop_when_all_errors_found`: the labels to look for, if not all
    /// of the system's (the others are known to be unreachable).
    pub wanted_errors: Option<Vec<u32>>,
    /// Told of each error label when it is first reached.
    pub on_error: Option<ErrorFound>,
    /// Threads of the level-synchronous search
    /// ([`super::levels::explore_levels`]); 0 keeps to the sequential one.
    pub threads: usize,
}

/// A step the system could not execute.
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
    /// The way back from the states to the initial state.
    pub links: Links,
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
    /// Bytes the store takes per stored state, its way back included
    /// ([`bytes_per_state`]).
    pub state_bytes: usize,
    /// The visited-state store (to decode states); empty after a
    /// level-synchronous search, which keeps its own.
    pub store: StateStore,
    /// States left unexpanded by the pruner.
    pub pruned: u64,
    /// What a distributed search's pruners marked of the states they left
    /// (every worker's, sorted: [`super::distributed::Pruner::marks`]);
    /// empty for the others.
    pub marks: Vec<u64>,
}

/// `bytes` spread over `states`, rounded up: what a search's store takes
/// per state (0 for no state).
pub fn bytes_per_state(bytes: u64, states: u64) -> usize {
    bytes.div_ceil(states.max(1)) as usize
}

impl Exploration {
    /// Whether every reachable state was expanded without a fault.
    pub fn is_complete(&self) -> bool {
        self.stopped.is_none() && self.faults.is_empty()
    }

    /// The shortest input sequence from the initial state to `s` (with
    /// [`Links::Paths`], `s` must be the source of an error or a fault;
    /// for another state the path is empty, and a replay rejects it).
    pub fn path_to(&self, s: StateId) -> Vec<usize> {
        match &self.links {
            Links::Parents { parent, input } => path_to(parent, input, s),
            Links::Paths(paths) => paths.get(&s).cloned().unwrap_or_default(),
        }
    }

    /// The input sequence of the shortest run found to error `label` (the
    /// last input is the one that reaches it), if it was found.
    pub fn witness(&self, label: u32) -> Option<Vec<usize>> {
        let &(_, s, i) = self.errors.iter().find(|e| e.0 == label)?;
        let mut path = self.path_to(s);
        path.push(i);
        Some(path)
    }

    /// Frees the store and the parent links (the graph stays).
    pub fn drop_states(&mut self) {
        self.store = StateStore::new(0);
        self.links = Links::Paths(Default::default());
    }
}

/// How an exploration finds its way back from a state to the initial state.
pub enum Links {
    /// The parent of every state and the input taken from it.
    Parents {
        /// Parent of each state (`NO_STATE` for the initial state).
        parent: Vec<StateId>,
        /// Input taken from the parent.
        input: Vec<u16>,
    },
    /// Shortest paths to the states a report needs, the sources of errors
    /// and faults: the level-synchronous search keeps no parent links and
    /// rebuilds these paths from its child counts.
    Paths(rustc_hash::FxHashMap<StateId, Vec<usize>>),
}

/// The input sequence from the initial state to `s`, following the parent
/// links of a search.
pub(super) fn path_to(parent: &[StateId], parent_input: &[u16], mut s: StateId) -> Vec<usize> {
    let mut path = Vec::new();
    while parent[s as usize] != NO_STATE {
        path.push(parent_input[s as usize] as usize);
        s = parent[s as usize];
    }
    path.reverse();
    path
}

/// How many more elements `v` would take if it had to grow to hold `n`
/// more (0 when it has the room): its capacity, as it doubles.
pub(super) fn vec_growth<T>(v: &Vec<T>, n: usize) -> usize {
    if v.capacity() - v.len() < n {
        v.capacity().max(n)
    } else {
        0
    }
}

/// Tells `on_error` of label `n`, first reached by input `i` from state
/// `s`, if the run replays to it.
fn tell_error<S: System>(
    sys: &S,
    on_error: &ErrorFound,
    (parent, parent_input): (&[StateId], &[u16]),
    s: StateId,
    i: usize,
    n: u32,
) {
    let mut path = path_to(parent, parent_input, s);
    path.push(i);
    if replay(sys, &path) == Ok(Outcome::Error(n)) {
        on_error(n, &path);
    }
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

/// How often (in expanded states) the budget is checked and observers told.
const CHECK_EVERY: u32 = 4096;

/// Explores the reachable states of `sys` breadth-first.
pub fn explore<S: System>(sys: &S, budget: &Budget, opts: &Options) -> Exploration {
    explore_pruned(sys, budget, opts, None)
}

/// [`explore`], leaving unexpanded the states `prune` says are
/// [`Estimate::Dead`] for the wanted error labels not found yet. Then an
/// exploration that ends without a stop proves those labels unreachable,
/// but its graph is not the system's: use it for reachability only (with
/// `keep_graph` off).
pub fn explore_pruned<S: System>(
    sys: &S,
    budget: &Budget,
    opts: &Options,
    prune: Option<&mut dyn Guide>,
) -> Exploration {
    explore_inner(sys, budget, opts, prune, None)
}

/// Told now and then of the graph explored so far (the edges of the
/// expanded states, as a stopped exploration leaves them); returning true
/// ends the exploration with [`StopReason::AllErrorsFound`]: whatever the
/// caller looks for in the graph is settled.
pub type Checkpoint<'a> = &'a mut dyn FnMut(&StateGraph) -> bool;

/// States stored before the first [`Checkpoint`]; each later one comes
/// when the store has grown this many times over.
const FIRST_CHECKPOINT: u32 = 1 << 16;
const CHECKPOINT_GROWTH: u32 = 4;

/// [`explore`] keeping the graph, calling `checkpoint` with the graph so
/// far at geometrically spaced sizes (64 Ki states, then 4 times as many
/// each time), so that a caller that can settle its questions on a part
/// of the graph need not wait for the whole.
pub fn explore_checkpointed<S: System>(
    sys: &S,
    budget: &Budget,
    opts: &Options,
    checkpoint: Checkpoint,
) -> Exploration {
    let opts = Options {
        keep_graph: true,
        ..opts.clone()
    };
    explore_inner(sys, budget, &opts, None, Some(checkpoint))
}

fn explore_inner<S: System>(
    sys: &S,
    budget: &Budget,
    opts: &Options,
    mut prune: Option<&mut dyn Guide>,
    mut checkpoint: Option<Checkpoint>,
) -> Exploration {
    assert!(
        prune.is_none() || !opts.keep_graph,
        "a pruned exploration keeps no graph"
    );
    let start = Instant::now();
    let n_inputs = sys.n_inputs();
    let width = sys.state_width();
    let labels = sys.error_labels();
    let mut store = StateStore::new(width);
    let mut parent: Vec<StateId> = Vec::new();
    let mut parent_input: Vec<u16> = Vec::new();
    let mut edges: Vec<Edge> = Vec::new();
    let mut errors: Vec<(u32, StateId, usize)> = Vec::new();
    let mut error_seen: rustc_hash::FxHashSet<u32> = Default::default();
    let mut faults = Vec::new();
    let mut scratch = sys.scratch();
    let mut cur = vec![0i32; width];
    let mut next = vec![0i32; width];
    let mut transitions = 0u64;

    let init = sys.initial_state();
    store.insert(&init);
    parent.push(NO_STATE);
    parent_input.push(0);

    // Seeding: states on the seed traces get the first ids (their parent
    // links still give valid, if not shortest, witnesses).
    for seed in &opts.seeds {
        let mut s = 0u32;
        cur.copy_from_slice(&init);
        for &i in seed {
            match sys.step(&mut scratch, &cur, i, &mut next) {
                Ok(o) if o.goes_on() => {
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

    let mut stopped = None;
    let mut expanded: u32 = 0;
    let mut depth = 0u32;
    let mut level_end = store.len();
    let wanted = opts
        .wanted_errors
        .clone()
        .unwrap_or_else(|| labels.to_vec());
    let total_errors = wanted.len();
    let mut wanted_found = 0usize;
    // The wanted labels not found yet, sorted (for the pruner).
    let mut unfound: Vec<u32> = wanted.clone();
    unfound.sort_unstable();
    let mut pruned = 0u64;
    let mut next_checkpoint = FIRST_CHECKPOINT;
    let sample = |states: u32, pruned: u64, depth: u32, found: usize| Sample {
        elapsed: start.elapsed(),
        states: states as u64,
        pruned,
        depth,
        found,
        wanted: total_errors,
    };
    while expanded < store.len() {
        if expanded == level_end {
            depth += 1;
            level_end = store.len();
        }
        if budget.max_states.is_some_and(|m| store.len() as u64 >= m) {
            stopped = Some(StopReason::MaxStates);
            break;
        }
        if expanded.is_multiple_of(CHECK_EVERY) {
            if let Some(reason) = budget.spent(store.len() as u64) {
                stopped = Some(reason);
                break;
            }
            if let Some(o) = &opts.observer {
                o(&sample(store.len(), pruned, depth, wanted_found));
            }
            if let Some(c) = checkpoint
                .as_deref_mut()
                .filter(|_| store.len() >= next_checkpoint)
            {
                next_checkpoint = store.len().saturating_mul(CHECKPOINT_GROWTH);
                // The edges move into the graph and back: no copy.
                let graph = graph_of(sys, std::mem::take(&mut edges), store.len(), expanded);
                let settled = c(&graph);
                edges = graph.edges;
                if settled {
                    stopped = Some(StopReason::AllErrorsFound);
                    break;
                }
            }
        }
        // The tables grow here, or the run stops at the memory limit.
        let edge_bytes = std::mem::size_of::<Edge>() * usize::from(opts.keep_graph);
        let grow = store.bytes_to_grow(n_inputs)
            + vec_growth(&parent, n_inputs) * 6
            + vec_growth(&edges, n_inputs) * edge_bytes;
        if (grow > 0 && !budget.can_grow(grow))
            || !store.try_make_room(n_inputs)
            || parent.try_reserve(n_inputs).is_err()
            || parent_input.try_reserve(n_inputs).is_err()
            || (opts.keep_graph && edges.try_reserve(n_inputs).is_err())
        {
            stopped = Some(StopReason::MemoryLimit);
            break;
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
            let (target, outcome) = match sys.step(&mut scratch, &cur, i, &mut next) {
                Err(fault) => {
                    faults.push(FaultAt {
                        state: s,
                        input: i,
                        fault,
                    });
                    (NO_STATE, Outcome::Blocked)
                }
                Ok(o @ Outcome::Error(n)) => {
                    if error_seen.insert(n) && labels.binary_search(&n).is_ok() {
                        errors.push((n, s, i));
                        if let Some(tell) = &opts.on_error {
                            tell_error(sys, tell, (&parent, &parent_input), s, i, n);
                        }
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
        // An empty wanted list stops at once; a system without labels
        // is explored to the end.
        let something_to_find = total_errors > 0 || opts.wanted_errors.is_some();
        if opts.stop_when_all_errors_found && something_to_find && wanted_found == total_errors {
            stopped = Some(StopReason::AllErrorsFound);
            break;
        }
    }
    if let Some(o) = &opts.observer {
        o(&sample(store.len(), pruned, depth, wanted_found));
    }
    errors.sort_unstable();
    let state_bytes = bytes_per_state(
        (store.heap_bytes() + parent.capacity() * 4 + parent_input.capacity() * 2) as u64,
        store.len() as u64,
    );
    Exploration {
        graph: graph_of(sys, edges, store.len(), expanded),
        links: Links::Parents {
            parent,
            input: parent_input,
        },
        errors,
        faults,
        stopped,
        transitions,
        depth,
        elapsed: start.elapsed(),
        state_bytes,
        store,
        pruned,
        marks: Vec::new(),
    }
}

/// The graph of an exploration of `sys`: its edges, the states found and
/// the states expanded.
fn graph_of<S: System>(sys: &S, edges: Vec<Edge>, n_states: u32, n_expanded: u32) -> StateGraph {
    StateGraph {
        inputs: sys.inputs().to_vec(),
        outputs: sys.outputs().to_vec(),
        edges,
        n_states,
        n_expanded,
        error_labels: sys.error_labels().to_vec(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Machine;

    fn problem(rel: &str) -> Machine {
        let path = format!("{}/problems/{rel}", env!("CARGO_MANIFEST_DIR"));
        Machine::compile(&crate::frontend::load(&path).expect("loads")).expect("compiles")
    }

    fn options(wanted: Option<Vec<u32>>) -> Options {
        Options {
            stop_when_all_errors_found: true,
            wanted_errors: wanted,
            ..Options::default()
        }
    }

    #[test]
    fn stops_once_the_wanted_labels_are_found() {
        let m = problem("reach-arith/Problem902.c");
        let b = Budget::unlimited();
        let all = explore(&m, &b, &options(None));
        let some = explore(&m, &b, &options(Some(vec![0])));
        assert!(some.errors.iter().any(|e| e.0 == 0));
        assert_eq!(some.stopped, Some(StopReason::AllErrorsFound));
        assert!(some.store.len() <= all.store.len());
        // Nothing wanted: stops after the first state.
        let none = explore(&m, &b, &options(Some(Vec::new())));
        assert_eq!(none.stopped, Some(StopReason::AllErrorsFound));
        assert!(none.store.len() <= 1 + m.n_inputs() as u32);
    }

    #[test]
    fn an_explored_graph_explores_to_itself() {
        // The graph of a program, explored as a system, has the same
        // states, edges and witnesses.
        let m = problem("reach-arith/Problem902.c");
        let opts = Options {
            keep_graph: true,
            ..Options::default()
        };
        let ex = explore(&m, &Budget::unlimited(), &opts);
        assert!(ex.is_complete());
        let again = explore(&ex.graph, &Budget::unlimited(), &opts);
        assert!(again.is_complete());
        assert_eq!(again.graph.n_states, ex.graph.n_states);
        assert_eq!(again.graph.edges, ex.graph.edges);
        for &(l, _, _) in &ex.errors {
            assert_eq!(again.witness(l), ex.witness(l));
        }
    }

    /// A binary tree of `n` states on inputs a and b, its leaves looping.
    fn tree(n: u32) -> StateGraph {
        let packed = Outcome::Output(0).pack();
        let edges = (0..n)
            .flat_map(|s| (1..=2).map(move |d| (2 * s + d, s)))
            .map(|(t, s)| Edge {
                target: if t < n { t } else { s },
                packed,
            })
            .collect();
        StateGraph {
            inputs: vec!["a".into(), "b".into()],
            outputs: vec!["x".into()],
            edges,
            n_states: n,
            n_expanded: n,
            error_labels: Vec::new(),
        }
    }

    #[test]
    fn checkpoints_see_growing_prefixes_and_can_stop_the_search() {
        let sys = tree(1 << 20);
        let b = Budget::unlimited();
        let opts = Options {
            keep_graph: true,
            ..Options::default()
        };
        let whole = explore(&sys, &b, &opts).graph.edges;
        // Never settled: the whole graph, every checkpoint a prefix of it.
        let mut seen = Vec::new();
        let mut never = |g: &StateGraph| {
            assert_eq!(g.edges.len(), g.n_expanded as usize * 2);
            assert!(g.edges.iter().all(|e| e.target < g.n_states));
            seen.push(g.n_states);
            false
        };
        let ex = explore_checkpointed(&sys, &b, &Options::default(), &mut never);
        assert!(ex.is_complete());
        assert_eq!(ex.graph.edges, whole);
        assert!(seen.len() >= 2 && seen[0] >= FIRST_CHECKPOINT, "{seen:?}");
        assert!(seen.windows(2).all(|w| w[1] >= w[0] * CHECKPOINT_GROWTH));
        // Settled at the second checkpoint: the search stops there, with
        // the graph it showed.
        let mut calls = 0;
        let mut second = |_: &StateGraph| {
            calls += 1;
            calls == 2
        };
        let ex = explore_checkpointed(&sys, &b, &Options::default(), &mut second);
        assert_eq!(ex.stopped, Some(StopReason::AllErrorsFound));
        assert_eq!(ex.graph.n_states, seen[1]);
        assert_eq!(ex.graph.edges, whole[..ex.graph.edges.len()]);
    }

    #[test]
    fn observers_see_the_end() {
        let m = problem("reach-arith/Problem902.c");
        let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
        let log = seen.clone();
        let opts = Options {
            observer: Some(Arc::new(move |s: &Sample| {
                log.lock().unwrap().push(s.states)
            })),
            ..Options::default()
        };
        let ex = explore(&m, &Budget::unlimited(), &opts);
        let seen = seen.lock().unwrap();
        assert_eq!(seen.last().copied(), Some(ex.store.len() as u64));
    }
}
