//! Level-synchronous breadth-first search on several threads, over the
//! tree-compressed store ([`super::tree`]).
//!
//! Each level is expanded by workers taking chunks of it in turn. During a
//! level nobody stores, so the workers look states up without locks; a
//! successor not stored yet becomes a candidate with its key
//! `parent * inputs + input`. Between levels the candidates are
//! deduplicated (split by root, on as many threads), each new state keeps
//! its least key, and the new states are stored in key order. That is the
//! order in which the sequential search ([`super::bfs::explore`]) discovers
//! them, so ids, state counts and shortest witnesses are the same whatever
//! the number of threads, and the same as the sequential search's; where
//! that search would stop once every wanted label is found, this one stops
//! at the same state.
//!
//! No parent links are kept. Ids are in breadth-first order and the
//! children of a state (the states it discovered first) take consecutive
//! ids, so one byte per state (its number of children) and a checkpoint
//! every 64 states find any state's parent; the input is found again by
//! stepping the parent. The paths a report needs (to the sources of errors
//! and faults) are rebuilt at the end ([`Links::Paths`]).

use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use rustc_hash::{FxHashMap, FxHashSet};

use super::bfs::{explore, Exploration, FaultAt, Links, Options, Sample};
use super::store::StateStore;
use super::tree::{Probe, Root, Seen, TreeStore};
use crate::system::{replay, Budget, Outcome, StateGraph, StateId, StopReason, System};

/// States a worker takes from a level at a time.
const CHUNK: u32 = 256;

/// States between two parent checkpoints.
const CHECKPOINT: usize = 64;

/// The number of children of every expanded state, with checkpoints: how
/// the parent of any state is found.
#[derive(Default)]
struct Parents {
    children: Vec<u8>,
    /// The id of the first child of every `CHECKPOINT`-th state.
    checkpoints: Vec<u32>,
    /// The id of the first child of the next state counted.
    next_first: u32,
}

impl Parents {
    fn new() -> Parents {
        Parents {
            next_first: 1,
            ..Parents::default()
        }
    }

    /// Counts the children of the next states, in id order.
    fn count(&mut self, children: &[u8]) -> bool {
        if self.children.try_reserve(children.len()).is_err()
            || self
                .checkpoints
                .try_reserve(children.len() / CHECKPOINT + 1)
                .is_err()
        {
            return false;
        }
        for &c in children {
            if self.children.len().is_multiple_of(CHECKPOINT) {
                self.checkpoints.push(self.next_first);
            }
            self.children.push(c);
            self.next_first += c as u32;
        }
        true
    }

    /// The parent of state `c` (not the initial state).
    fn parent(&self, c: StateId) -> StateId {
        let k = self.checkpoints.partition_point(|&f| f <= c) - 1;
        let mut p = k * CHECKPOINT;
        let mut first = self.checkpoints[k];
        loop {
            let n = self.children[p] as u32;
            if first + n > c {
                return p as StateId;
            }
            first += n;
            p += 1;
        }
    }
}

/// A candidate: a successor not stored before its level, and its key.
type Candidate = (Root, u64);

/// What one worker found in one level.
struct Found {
    /// Candidates, split by root into one part per merging thread.
    parts: Vec<Vec<Candidate>>,
    /// Successors with a half never stored: their roots are made between
    /// levels.
    deferred: Vec<(u64, Vec<i32>)>,
    /// The least key reaching each error label not found before.
    errors: Vec<(u32, u64)>,
    faults: Vec<FaultAt>,
}

/// What the workers of one level share.
struct Level<'a, S> {
    sys: &'a S,
    store: &'a TreeStore,
    /// Labels found in earlier levels.
    known: &'a FxHashSet<u32>,
    budget: &'a Budget,
    next: AtomicU32,
    end: u32,
    parts: usize,
    /// New candidates so far (for the state limit).
    candidates: AtomicU64,
    halt: AtomicBool,
    why: Mutex<Option<StopReason>>,
}

impl<S: System> Level<'_, S> {
    fn stop(&self, why: StopReason) {
        self.halt.store(true, Ordering::Relaxed);
        let mut w = self.why.lock().unwrap_or_else(|e| e.into_inner());
        w.get_or_insert(why);
    }

    fn part(&self, root: Root) -> usize {
        part_of(root, self.parts)
    }

    /// One worker: expands chunks of the level until none is left.
    fn work(&self) -> Found {
        let sys = self.sys;
        let (n, width) = (sys.n_inputs(), sys.state_width());
        let labels = sys.error_labels();
        let mut f = Found {
            parts: vec![Vec::new(); self.parts],
            deferred: Vec::new(),
            errors: Vec::new(),
            faults: Vec::new(),
        };
        let (mut cur, mut next) = (vec![0i32; width], vec![0i32; width]);
        let mut scratch = sys.scratch();
        let mut probe = Probe::default();
        let limit = self.budget.max_states.unwrap_or(u64::MAX);
        while !self.halt.load(Ordering::Relaxed) {
            let lo = self.next.fetch_add(CHUNK, Ordering::Relaxed);
            if lo >= self.end {
                break;
            }
            if let Some(why) = self.budget.spent_time_or_memory() {
                self.stop(why);
                break;
            }
            let before: usize = f.parts.iter().map(Vec::len).sum();
            for s in lo..(lo.saturating_add(CHUNK)).min(self.end) {
                self.store.get(s, &mut cur);
                for i in 0..n {
                    let key = s as u64 * n as u64 + i as u64;
                    match sys.step(&mut scratch, &cur, i, &mut next) {
                        Err(fault) => f.faults.push(FaultAt {
                            state: s,
                            input: i,
                            fault,
                        }),
                        Ok(Outcome::Error(l)) => {
                            if labels.binary_search(&l).is_ok()
                                && !self.known.contains(&l)
                                && !f.errors.iter().any(|e| e.0 == l)
                            {
                                f.errors.push((l, key));
                            }
                        }
                        Ok(Outcome::Blocked) => {}
                        Ok(_) if next == cur => {}
                        Ok(_) => match self.store.look(&next, &mut probe) {
                            Seen::Stored => {}
                            Seen::New(root) => f.parts[self.part(root)].push((root, key)),
                            Seen::NewHalf => f.deferred.push((key, next.clone())),
                        },
                    }
                }
            }
            let added: usize = f.parts.iter().map(Vec::len).sum::<usize>() - before;
            let total = self.candidates.fetch_add(added as u64, Ordering::Relaxed) + added as u64;
            if (self.store.len() as u64).saturating_add(total) >= limit {
                self.stop(StopReason::MaxStates);
            }
        }
        f
    }
}

/// Runs `f(k)` for `k` in `0..n` on up to `threads` threads.
fn on_threads<T: Send>(n: usize, threads: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    if threads <= 1 || n <= 1 {
        return (0..n).map(f).collect();
    }
    let f = &f;
    std::thread::scope(|sc| {
        let handles: Vec<_> = (0..n).map(|k| sc.spawn(move || f(k))).collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    })
}

/// The new states of a level in key order: the candidates of part `p` of
/// every worker whose parent is below `cutoff`, each root once with its
/// least key.
fn new_states(found: &[Found], extra: &[Candidate], p: usize, cutoff: u64) -> Vec<(u64, Root)> {
    let mut all: Vec<Candidate> = found
        .iter()
        .flat_map(|f| f.parts[p].iter())
        .chain(extra.iter())
        .copied()
        .filter(|&(_, key)| key < cutoff)
        .collect();
    all.sort_unstable();
    all.dedup_by_key(|c| c.0);
    let mut by_key: Vec<(u64, Root)> = all.into_iter().map(|(r, k)| (k, r)).collect();
    by_key.sort_unstable();
    by_key
}

/// Merges lists sorted by key into one.
fn merge_sorted(lists: Vec<Vec<(u64, Root)>>) -> Vec<(u64, Root)> {
    let mut out = Vec::with_capacity(lists.iter().map(Vec::len).sum());
    let mut heads = vec![0usize; lists.len()];
    loop {
        let best = (0..lists.len())
            .filter(|&k| heads[k] < lists[k].len())
            .min_by_key(|&k| lists[k][heads[k]].0);
        let Some(k) = best else { return out };
        out.push(lists[k][heads[k]]);
        heads[k] += 1;
    }
}

/// The number of threads the machine runs at once.
pub fn all_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Whether [`explore_levels`] runs `opts` itself (else it hands them to the
/// sequential search): no graph, no seeds, at most 255 inputs.
pub fn supports<S: System>(sys: &S, opts: &Options) -> bool {
    !opts.keep_graph && opts.seeds.is_empty() && sys.n_inputs() <= 255 && opts.threads > 0
}

/// Explores `sys` breadth-first, level by level, on `opts.threads` threads
/// (the sequential [`explore`] when [`supports`] says no).
pub fn explore_levels<S: System + Sync>(sys: &S, budget: &Budget, opts: &Options) -> Exploration {
    if !supports(sys, opts) {
        return explore(sys, budget, opts);
    }
    let start = Instant::now();
    let threads = opts.threads;
    let n = sys.n_inputs() as u64;
    let labels = sys.error_labels();
    let mut store = TreeStore::new(sys.state_width());
    let init = sys.initial_state();
    let root = store.root_of(&init);
    store.try_make_room(1);
    store.push(root);
    let mut parents = Parents::new();
    let mut errors: Vec<(u32, StateId, usize)> = Vec::new();
    let mut known: FxHashSet<u32> = FxHashSet::default();
    let mut faults: Vec<FaultAt> = Vec::new();
    let mut paths: FxHashMap<StateId, Vec<usize>> = FxHashMap::default();
    let mut stopped = None;
    let (mut expanded, mut depth, mut transitions) = (0u32, 0u32, 0u64);
    let wanted = opts
        .wanted_errors
        .clone()
        .unwrap_or_else(|| labels.to_vec());
    let something_to_find = !wanted.is_empty() || opts.wanted_errors.is_some();
    let stop_when_found = opts.stop_when_all_errors_found && something_to_find;
    let found_wanted = |known: &FxHashSet<u32>| wanted.iter().filter(|l| known.contains(l)).count();
    let tell = |store: &TreeStore, known: &FxHashSet<u32>, depth: u32| {
        if let Some(o) = &opts.observer {
            o(&Sample {
                elapsed: start.elapsed(),
                states: store.len() as u64,
                pruned: 0,
                depth,
                found: found_wanted(known),
                wanted: wanted.len(),
            });
        }
    };
    let mut level: Range<u32> = 0..1;
    while !level.is_empty() {
        if let Some(why) = budget.spent(store.len() as u64) {
            stopped = Some(why);
            break;
        }
        tell(&store, &known, depth);
        let shared = Level {
            sys,
            store: &store,
            known: &known,
            budget,
            next: AtomicU32::new(level.start),
            end: level.end,
            parts: threads,
            candidates: AtomicU64::new(0),
            halt: AtomicBool::new(false),
            why: Mutex::new(None),
        };
        let workers = threads.min((level.len() as u32).div_ceil(CHUNK) as usize);
        let found = on_threads(workers, threads, |_| shared.work());
        let halted = shared.why.into_inner().unwrap_or_else(|e| e.into_inner());
        // The least key of each label found in this level.
        let mut level_errors: Vec<(u64, u32)> = Vec::new();
        for &(l, key) in found.iter().flat_map(|f| f.errors.iter()) {
            match level_errors.iter_mut().find(|e| e.1 == l) {
                Some(e) => e.0 = e.0.min(key),
                None => level_errors.push((key, l)),
            }
        }
        level_errors.sort_unstable();
        // The sequential search stops right after the state that finds the
        // last wanted label; nothing after that state counts.
        let mut cutoff = level.end as u64 * n;
        if stop_when_found && halted.is_none() {
            let missing = wanted.len() - found_wanted(&known);
            let keys: Vec<u64> = level_errors
                .iter()
                .filter(|e| wanted.contains(&e.1))
                .map(|e| e.0)
                .collect();
            if missing == 0 {
                cutoff = (level.start as u64 + 1) * n;
            } else if keys.len() == missing {
                cutoff = (keys.iter().max().unwrap() / n + 1) * n;
            }
        }
        for &(key, l) in level_errors.iter().filter(|e| e.0 < cutoff) {
            known.insert(l);
            errors.push((l, (key / n) as StateId, (key % n) as usize));
            if let Some(tell) = &opts.on_error {
                let mut path = path_to(sys, &store, &parents, (key / n) as StateId);
                path.push((key % n) as usize);
                if replay(sys, &path) == Ok(Outcome::Error(l)) {
                    tell(l, &path);
                }
            }
        }
        let mut level_faults: Vec<FaultAt> = found
            .iter()
            .flat_map(|f| f.faults.iter().cloned())
            .filter(|f| (f.state as u64) < cutoff / n)
            .collect();
        level_faults.sort_by_key(|f| (f.state, f.input));
        faults.extend(level_faults);
        if let Some(why) = halted {
            stopped = Some(why);
            break;
        }
        let last = (cutoff / n) as u32;
        expanded = last;
        transitions += (last - level.start) as u64 * n;
        // Successors with a new half get their roots now.
        let mut deferred: Vec<&(u64, Vec<i32>)> = found
            .iter()
            .flat_map(|f| f.deferred.iter())
            .filter(|d| d.0 < cutoff)
            .collect();
        deferred.sort_unstable_by_key(|d| d.0);
        let mut extra: Vec<Vec<Candidate>> = vec![Vec::new(); threads];
        for (key, state) in deferred {
            let root = store.root_of(state);
            if !store.contains(root) {
                extra[part_of(root, threads)].push((root, *key));
            }
        }
        let lists = on_threads(threads, threads, |p| {
            new_states(&found, &extra[p], p, cutoff)
        });
        drop(found);
        let new = merge_sorted(lists);
        if !budget.can_grow(store.bytes_to_grow(new.len()) + new.len())
            || !store.try_make_room(new.len())
        {
            stopped = Some(StopReason::MemoryLimit);
            break;
        }
        let mut children = vec![0u8; (last - level.start) as usize];
        for &(key, root) in &new {
            store.push(root);
            children[(key / n) as usize - level.start as usize] += 1;
        }
        if !parents.count(&children) {
            stopped = Some(StopReason::MemoryLimit);
            break;
        }
        if last < level.end || (stop_when_found && found_wanted(&known) == wanted.len()) {
            stopped = Some(StopReason::AllErrorsFound);
            break;
        }
        level = level.end..store.len();
        if !level.is_empty() {
            depth += 1;
        }
    }
    tell(&store, &known, depth);
    errors.sort_unstable();
    for &(_, s, _) in &errors {
        paths.insert(s, path_to(sys, &store, &parents, s));
    }
    for f in &faults {
        paths
            .entry(f.state)
            .or_insert_with(|| path_to(sys, &store, &parents, f.state));
    }
    let state_bytes = store.root_bytes();
    Exploration {
        graph: StateGraph {
            inputs: sys.inputs().to_vec(),
            outputs: sys.outputs().to_vec(),
            edges: Vec::new(),
            n_states: store.len(),
            n_expanded: expanded,
            error_labels: labels.to_vec(),
        },
        links: Links::Paths(paths),
        errors,
        faults,
        stopped,
        transitions,
        depth,
        elapsed: start.elapsed(),
        state_bytes,
        store: StateStore::new(0),
        pruned: 0,
    }
}

/// The part of the merge a root belongs to.
fn part_of(root: Root, parts: usize) -> usize {
    ((root.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as usize) % parts
}

/// The shortest input sequence to state `s`: up the parents, each input
/// found again as the least one taking the parent to the child.
fn path_to<S: System>(sys: &S, store: &TreeStore, parents: &Parents, mut s: StateId) -> Vec<usize> {
    let width = sys.state_width();
    let (mut from, mut to, mut next) = (vec![0; width], vec![0; width], vec![0; width]);
    let mut scratch = sys.scratch();
    let mut path = Vec::new();
    while s != 0 {
        let p = parents.parent(s);
        store.get(p, &mut from);
        store.get(s, &mut to);
        let step = (0..sys.n_inputs()).find(|&i| {
            matches!(sys.step(&mut scratch, &from, i, &mut next), Ok(o) if o.goes_on())
                && next == to
        });
        let Some(i) = step else {
            // Not possible for a stored state; a replay rejects the path.
            return Vec::new();
        };
        path.push(i);
        s = p;
    }
    path.reverse();
    path
}
