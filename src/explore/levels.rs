//! Level-synchronous breadth-first search on several threads, over the
//! tree-compressed store ([`super::tree`]).
//!
//! Each level is expanded by workers taking chunks of it in turn. During a
//! level nobody stores, so the workers look states up without locks; a
//! successor not stored yet becomes a candidate with its key
//! `parent * inputs + input`. Between levels the candidates are
//! deduplicated (split by the store's shards, on as many threads), each new
//! state keeps its least key, each thread stores its part into the shards
//! it owns ([`TreeStore::insert_parts`]), and the new states take their ids
//! in key order. That is the
//! order in which the sequential search ([`super::bfs::explore`]) discovers
//! them, so ids, state counts and shortest witnesses are the same whatever
//! the number of threads, and the same as the sequential search's; where
//! that search would stop once every wanted label is found, this one stops
//! at the same state.
//!
//! Only the roots of the level being expanded are kept in order; the way
//! back to every state is two bytes ([`super::parents`]), and the paths a
//! report needs (to the sources of errors and faults) are rebuilt at the
//! end ([`Links::Paths`]).

use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use rustc_hash::{FxHashMap, FxHashSet};

use super::bfs::{bytes_per_state, explore, Exploration, FaultAt, Links, Options, Sample};
use super::parents::Parents;
use super::store::StateStore;
use super::tree::{Probe, Root, Seen, TreeStore};
use crate::runtime::{par_map, Budget, StopReason};
use crate::system::{replay, Outcome, StateGraph, StateId, System};

/// States a worker takes from a level at a time.
const CHUNK: u32 = 256;

/// The fewest states a worker takes, at the end of a round.
const MIN_CHUNK: u32 = 16;

/// A candidate: a successor not stored before its level, and its key.
type Candidate = (Root, u64);

/// What one worker found in one level.
struct Found {
    /// Candidates, split by the store's part of their root into one part
    /// per merging thread.
    parts: Vec<Vec<Candidate>>,
    /// The keys of the successors with a half never stored: their roots
    /// are made between levels.
    deferred: Vec<u64>,
    /// Those successors, one after the other (one allocation, not one
    /// per state).
    deferred_states: Vec<i32>,
    /// The least key reaching each error label not found before.
    errors: Vec<(u32, u64)>,
    faults: Vec<FaultAt>,
}

/// What the workers of one level share.
struct Level<'a, S> {
    sys: &'a S,
    store: &'a TreeStore,
    /// The roots of the level's states, in id order from `first`.
    frontier: &'a [Root],
    first: u32,
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
        self.store.part_of(root, self.parts)
    }

    /// The next states to expand: [`CHUNK`] at a time, fewer towards the
    /// end of the round so that the workers finish together.
    fn take(&self) -> Option<Range<u32>> {
        let mut lo = self.next.load(Ordering::Relaxed);
        loop {
            let left = self.end.checked_sub(lo).filter(|&l| l > 0)?;
            let size = (left / (4 * self.parts as u32)).clamp(MIN_CHUNK, CHUNK);
            let hi = lo.saturating_add(size).min(self.end);
            match (self.next).compare_exchange_weak(lo, hi, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => return Some(lo..hi),
                Err(now) => lo = now,
            }
        }
    }

    /// One worker: expands chunks of the level until none is left.
    fn work(&self) -> Found {
        let sys = self.sys;
        let (n, width) = (sys.n_inputs(), sys.state_width());
        let labels = sys.error_labels();
        let mut f = Found {
            parts: vec![Vec::new(); self.parts],
            deferred: Vec::new(),
            deferred_states: Vec::new(),
            errors: Vec::new(),
            faults: Vec::new(),
        };
        let (mut cur, mut next) = (vec![0i32; width], vec![0i32; width]);
        let mut scratch = sys.scratch();
        let mut probe = Probe::default();
        // The state limit is checked between levels; within one, only a
        // level that would take it over twice (duplicates included) stops.
        let limit = (self.budget.max_states).map_or(u64::MAX, |m| m.saturating_mul(2));
        let mut taken = 0u32;
        while !self.halt.load(Ordering::Relaxed) {
            let Some(chunk) = self.take() else { break };
            // The budget every 16 chunks (reading the resident memory
            // costs a system call).
            taken += 1;
            if taken.is_multiple_of(16) {
                if let Some(why) = self.budget.spent_time_or_memory() {
                    self.stop(why);
                    break;
                }
            }
            let before: usize = f.parts.iter().map(Vec::len).sum();
            for s in chunk {
                let root = self.frontier[(s - self.first) as usize];
                self.store.decode(root, &mut cur);
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
                        Ok(_) => match self.store.look_near(&next, &cur, root, &mut probe) {
                            Seen::Stored => {}
                            Seen::New(root) => f.parts[self.part(root)].push((root, key)),
                            Seen::NewHalf => {
                                f.deferred.push(key);
                                f.deferred_states.extend_from_slice(&next);
                            }
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

/// The new states of a level in key order: the candidates of one part
/// (from every worker, each list in key order) whose parent is below
/// `cutoff`, each root once with its least key, that is at its first
/// occurrence in key order.
fn new_states(lists: Vec<Vec<Candidate>>, cutoff: u64) -> Vec<(u64, Root)> {
    let n = lists.iter().map(Vec::len).sum();
    let mut seen: FxHashSet<Root> = FxHashSet::with_capacity_and_hasher(n, Default::default());
    let mut out = Vec::with_capacity(n);
    let slices: Vec<&[Candidate]> = lists.iter().map(Vec::as_slice).collect();
    merge_by_key(
        &slices,
        |c| c.1,
        |(root, key)| {
            if key < cutoff && seen.insert(root) {
                out.push((key, root));
            }
        },
    );
    out
}

/// Visits the entries of lists each sorted by `key`, in key order (the
/// lists' keys are distinct).
fn merge_by_key<T: Copy>(lists: &[&[T]], key: impl Fn(&T) -> u64, mut visit: impl FnMut(T)) {
    let mut heads: Vec<&[T]> = lists.to_vec();
    heads.retain(|h| !h.is_empty());
    while heads.len() > 2 {
        let k = (0..heads.len())
            .min_by_key(|&j| key(&heads[j][0]))
            .unwrap_or(0);
        // Every entry of the least list below the others' least key, in
        // one run.
        let bound = (0..heads.len())
            .filter(|&j| j != k)
            .map(|j| key(&heads[j][0]))
            .min()
            .unwrap_or(u64::MAX);
        let run = heads[k].iter().take_while(|e| key(e) < bound).count();
        heads[k][..run].iter().for_each(|&e| visit(e));
        heads[k] = &heads[k][run..];
        if heads[k].is_empty() {
            heads.swap_remove(k);
        }
    }
    // Two lists, then one: a plain merge.
    if let [mut a, mut b] = heads[..] {
        while let (Some(x), Some(y)) = (a.first(), b.first()) {
            if key(x) < key(y) {
                visit(*x);
                a = &a[1..];
            } else {
                visit(*y);
                b = &b[1..];
            }
        }
        heads = vec![a, b];
    }
    heads.iter().flat_map(|h| h.iter()).for_each(|&e| visit(e));
}

/// The number of threads the machine runs at once.
pub fn all_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Whether [`explore_levels`] runs `opts` itself (else it hands them to the
/// sequential search): no graph, no seeds, 1 to 255 inputs.
pub fn supports<S: System>(sys: &S, opts: &Options) -> bool {
    !opts.keep_graph
        && opts.seeds.is_empty()
        && (1..=255).contains(&sys.n_inputs())
        && opts.threads > 0
}

/// Explores `sys` breadth-first, level by level, on `opts.threads` threads
/// (the sequential [`explore`] when [`supports`] says no).
pub fn explore_levels<S: System + Sync>(sys: &S, budget: &Budget, opts: &Options) -> Exploration {
    let round = round_states(sys.state_width(), sys.n_inputs(), opts.threads);
    explore_in_rounds(sys, budget, opts, round)
}

/// [`explore_levels`], expanding at most `round_len` states of a level
/// before storing what they found (the same exploration for any length).
pub fn explore_in_rounds<S: System + Sync>(
    sys: &S,
    budget: &Budget,
    opts: &Options,
    round_len: u32,
) -> Exploration {
    let round_len = round_len.max(1);
    if !supports(sys, opts) {
        return explore(sys, budget, opts);
    }
    let start = Instant::now();
    let threads = opts.threads;
    let n = sys.n_inputs() as u64;
    let labels = sys.error_labels();
    let mut store = TreeStore::new(sys.state_width());
    let init = store.root_of(&sys.initial_state());
    let frontier_len = u32::from(init.is_some_and(|root| store.insert(root)));
    let mut frontier: Vec<Root> = init.into_iter().collect();
    let mut parents = Parents::new();
    let mut errors: Vec<(u32, StateId, usize)> = Vec::new();
    let mut known: FxHashSet<u32> = FxHashSet::default();
    let mut faults: Vec<FaultAt> = Vec::new();
    let mut stopped = (frontier_len == 0).then_some(StopReason::MemoryLimit);
    let (mut expanded, mut depth, mut transitions) = (0u32, 0u32, 0u64);
    let wanted = opts
        .wanted_errors
        .clone()
        .unwrap_or_else(|| labels.to_vec());
    let something_to_find = !wanted.is_empty() || opts.wanted_errors.is_some();
    let stop_when_found = opts.stop_when_all_errors_found && something_to_find;
    let found_wanted = |known: &FxHashSet<u32>| wanted.iter().filter(|l| known.contains(l)).count();
    let tell = |states: usize, known: &FxHashSet<u32>, depth: u32| {
        if let Some(o) = &opts.observer {
            o(&Sample {
                elapsed: start.elapsed(),
                states: states as u64,
                pruned: 0,
                depth,
                found: found_wanted(known),
                wanted: wanted.len(),
            });
        }
    };
    // A level is expanded in rounds of consecutive states, each stored
    // before the next starts: a state first found in a round has its least
    // key there, so the order is the same, and a round's candidates stay
    // within a bound however wide the level.
    let mut level: Range<u32> = 0..frontier_len;
    let mut round: Range<u32> = 0..frontier_len;
    let mut next_frontier: Vec<Root> = Vec::new();
    while !round.is_empty() {
        if let Some(why) = budget.spent(store.len() as u64) {
            stopped = Some(why);
            break;
        }
        tell(store.len(), &known, depth);
        let shared = Level {
            sys,
            store: &store,
            frontier: &frontier,
            first: level.start,
            known: &known,
            budget,
            next: AtomicU32::new(round.start),
            end: round.end,
            parts: threads,
            candidates: AtomicU64::new(0),
            halt: AtomicBool::new(false),
            why: Mutex::new(None),
        };
        let workers = threads.min((round.len() as u32).div_ceil(CHUNK) as usize);
        let mut found = par_map(workers, workers, |_| shared.work());
        let halted = shared.why.into_inner().unwrap_or_else(|e| e.into_inner());
        // The least key of each label found in this round.
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
        let mut cutoff = round.end as u64 * n;
        if stop_when_found && halted.is_none() {
            let missing = wanted.len() - found_wanted(&known);
            let keys: Vec<u64> = (level_errors.iter())
                .filter(|e| wanted.contains(&e.1))
                .map(|e| e.0)
                .collect();
            if missing == 0 {
                cutoff = (round.start as u64 + 1) * n;
            } else if keys.len() == missing {
                cutoff = (keys.iter().max().unwrap() / n + 1) * n;
            }
        }
        for &(key, l) in level_errors.iter().filter(|e| e.0 < cutoff) {
            let (s, i) = ((key / n) as StateId, (key % n) as usize);
            known.insert(l);
            errors.push((l, s, i));
            if let Some(tell) = &opts.on_error {
                let mut path = parents.path_to(s);
                path.push(i);
                if replay(sys, &path) == Ok(Outcome::Error(l)) {
                    tell(l, &path);
                }
            }
        }
        let mut level_faults: Vec<FaultAt> = (found.iter())
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
        transitions += (last - round.start) as u64 * n;
        // Successors with a new half get their roots now (states of no
        // ints never wait: their halves are the initial state's).
        let width = sys.state_width();
        let mut deferred: Vec<(u64, &[i32])> = (found.iter())
            .flat_map(|f| {
                f.deferred
                    .iter()
                    .copied()
                    .zip(f.deferred_states.chunks(width.max(1)))
            })
            .filter(|d| d.0 < cutoff)
            .collect();
        deferred.sort_unstable_by_key(|d| d.0);
        // Every part's candidates, from every worker, to one thread each.
        let mut parts: Vec<Vec<Vec<Candidate>>> = vec![Vec::new(); threads];
        let mut extra: Vec<Vec<Candidate>> = vec![Vec::new(); threads];
        let states: Vec<&[i32]> = deferred.iter().map(|d| d.1).collect();
        let Some(roots) = store.roots_of(&states, threads) else {
            stopped = Some(StopReason::MemoryLimit);
            break;
        };
        drop(states);
        for (&(key, _), root) in deferred.iter().zip(roots) {
            if !store.contains(root) {
                extra[store.part_of(root, threads)].push((root, key));
            }
        }
        for (p, list) in extra.into_iter().enumerate() {
            parts[p].push(list);
        }
        for f in &mut found {
            for (p, list) in f.parts.iter_mut().enumerate() {
                parts[p].push(std::mem::take(list));
            }
        }
        drop(found);
        let parts: Vec<Mutex<Vec<Vec<Candidate>>>> = parts.into_iter().map(Mutex::new).collect();
        let lists = par_map(threads, threads, |p| {
            let lists = std::mem::take(&mut *parts[p].lock().unwrap_or_else(|e| e.into_inner()));
            new_states(lists, cutoff)
        });
        let n_new: usize = lists.iter().map(Vec::len).sum();
        // Each part's roots are stored by a thread of its own, into shards
        // of their own; the shards may then grow on every thread at once.
        if !budget.can_grow(store.bytes_to_grow() * threads + n_new * 13)
            || next_frontier.try_reserve_exact(n_new).is_err()
            || !parents.make_room(n_new)
        {
            stopped = Some(StopReason::MemoryLimit);
            break;
        }
        let stored = store.insert_parts(lists.iter().map(|l| l.iter().map(|e| e.1)).collect());
        let mut children = vec![0u8; (last - round.start) as usize];
        let slices: Vec<&[(u64, Root)]> = lists.iter().map(Vec::as_slice).collect();
        merge_by_key(
            &slices,
            |e| e.0,
            |(key, root)| {
                next_frontier.push(root);
                parents.discovered((key % n) as u8);
                children[(key / n) as usize - round.start as usize] += 1;
            },
        );
        drop(lists);
        if !stored || !parents.count(&children) {
            stopped = Some(StopReason::MemoryLimit);
            break;
        }
        if last < round.end || (stop_when_found && found_wanted(&known) == wanted.len()) {
            stopped = Some(StopReason::AllErrorsFound);
            break;
        }
        if round.end < level.end {
            round = round.end..(round.end.saturating_add(round_len)).min(level.end);
            continue;
        }
        // SAFETY: `malloc_trim` only returns free memory to the system.
        unsafe { libc::malloc_trim(0) };
        frontier = std::mem::take(&mut next_frontier);
        level = level.end..level.end + frontier.len() as u32;
        round = level.start..(level.start.saturating_add(round_len)).min(level.end);
        if !level.is_empty() {
            depth += 1;
        }
    }
    tell(store.len(), &known, depth);
    errors.sort_unstable();
    let mut paths: FxHashMap<StateId, Vec<usize>> = FxHashMap::default();
    for s in errors
        .iter()
        .map(|e| e.1)
        .chain(faults.iter().map(|f| f.state))
    {
        paths.entry(s).or_insert_with(|| parents.path_to(s));
    }
    Exploration {
        graph: StateGraph {
            inputs: sys.inputs().to_vec(),
            outputs: sys.outputs().to_vec(),
            edges: Vec::new(),
            n_states: store.len() as u32,
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
        state_bytes: bytes_per_state(
            (store.heap_bytes() + parents.heap_bytes()) as u64,
            store.len() as u64,
        ),
        store: StateStore::new(0),
        pruned: 0,
        marks: Vec::new(),
    }
}

/// Transient bytes a round may take (its candidates and the successors
/// whose roots wait for the round's end).
const ROUND_BYTES: usize = 64 << 20;

/// States per round: as many as keep the round within [`ROUND_BYTES`] if
/// every successor were a candidate with a new half, and at least a few
/// chunks per thread.
fn round_states(width: usize, inputs: usize, threads: usize) -> u32 {
    let per_state = inputs.max(1) * (16 + 32 + 4 * width);
    (ROUND_BYTES / per_state).max(CHUNK as usize * 4 * threads.max(1)) as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    #[test]
    fn new_states_keep_each_root_once_with_its_least_key_below_the_cutoff() {
        let lists = vec![
            vec![(7, 1), (5, 4), (9, 8), (6, 30)],
            vec![(5, 2), (7, 3), (6, 9), (8, 31)],
            vec![(5, 0), (8, 40)],
        ];
        assert_eq!(new_states(lists, 30), vec![(0, 5), (1, 7), (8, 9), (9, 6)]);
    }

    #[test]
    fn merging_visits_every_entry_in_key_order() {
        let mut rng = rand_pcg::Pcg64::seed_from_u64(7);
        for lists in 0..5 {
            let mut keys: Vec<u64> = (0..500).map(|_| rng.random_range(0..100_000)).collect();
            keys.sort_unstable();
            keys.dedup();
            let mut parts: Vec<Vec<(u64, Root)>> = vec![Vec::new(); lists.max(1)];
            for &k in &keys {
                parts[rng.random_range(0..lists.max(1))].push((k, k * 3));
            }
            let mut seen = Vec::new();
            let slices: Vec<&[(u64, Root)]> = parts[..lists].iter().map(Vec::as_slice).collect();
            merge_by_key(&slices, |e| e.0, |e| seen.push(e));
            let want: Vec<(u64, Root)> = if lists == 0 {
                Vec::new()
            } else {
                keys.iter().map(|&k| (k, k * 3)).collect()
            };
            assert_eq!(seen, want);
        }
    }
}
