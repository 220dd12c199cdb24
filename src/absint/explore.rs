//! The abstract transition system: a finite over-approximation of the
//! program's input/output transition system.
//!
//! # Abstraction
//!
//! The state slots of the engine's layout fall into two kinds:
//! - **control** slots, never assigned the result of arithmetic (`a8 = 2`,
//!   `a52 = a157`, `a71 = a108[4]`): an abstract state keeps their exact
//!   values;
//! - **numeric** slots, assigned arithmetic somewhere (`a37 = (a37 * a80) %
//!   14999 % 24 + 222`): the program compares them only with constants, and
//!   those constants cut the integers into *cells*; an abstract state keeps
//!   an interval of values.
//!
//! Abstract states are identified by a *key*: for each slot the state's
//! future depends on ([`super::relevance::Relevance`]), the exact value of a control slot or
//! the cells of a numeric slot's interval bounds. Slots a RERS program only
//! reads in other modes are left out: their stale values would otherwise
//! multiply the abstract states (RERS 2017 problem 11 never completes with
//! every slot in the key, and has 62 abstract states without). Relevance
//! first looks one step ahead; the refinement ([`super::rounds`]) then explores again, keeping the
//! slots that a later step reads before writing them, until nothing new is
//! learnt. Counters are left out of every key ([`super::cells`]).
//!
//! Two abstract states with one key are merged into one, whose intervals
//! are the hulls; a state whose intervals grew is expanded again. After
//! [`WIDEN_AFTER`] growths a numeric interval is widened along a ladder of
//! powers of two, and after [`CELL_AFTER`] growths straight to the hull of
//! its cells, which bounds the number of growths. When a round fails because
//! the step could not be interpreted soundly (widening may give a divisor an
//! interval holding zero), it is tried once more, widening only after
//! [`WIDEN_AFTER_RETRY`] growths, before relevance is given up; so is a
//! first round that completes but is not precise enough for a caller that
//! says what it needs ([`super::rounds::explore_abstract_until`]; after
//! [`WIDEN_AFTER_SECOND`] growths for one that counts what is left open,
//! [`super::rounds::explore_abstract_best`]). The result is a least
//! fixpoint: every concrete reachable state lies in some abstract state,
//! and every step of the engine from it is matched by an abstract edge with
//! the same input and outcome ([`super::step`]). Any key is sound; the key
//! only decides what is joined, so how precise the result is.
//!
//! So a property of all (infinite) traces that holds here holds for the
//! program, and an error label no abstract edge reaches is unreachable.
//! A path found here is only a candidate: it must be replayed on the engine.

use rustc_hash::FxHashMap;
use std::sync::Mutex;
use std::time::Instant;

use super::cells::{Cells, SplitSlots};
pub use super::graph::{AbsEdge, AbsFault, AbsGraph};
use super::run::{FaultSite, InputSet};
use super::step::{AbsState, AbstractStep, Run, Unsound};
use crate::engine::Machine;
use crate::runtime::{Budget, StopReason};
use crate::system::{Outcome, StateId, NO_STATE};

/// Growths of one abstract state before its numeric intervals are widened.
pub const WIDEN_AFTER: u32 = 10;

/// Growths of one abstract state before a growing bound jumps straight to
/// its cell's bound (the ladder alone climbs up to 31 rungs per bound, and
/// each rung expands the state again).
pub const CELL_AFTER: u32 = 20;

/// [`WIDEN_AFTER`] when a round is tried again because the step could not
/// be interpreted soundly, or its result did not decide what the caller
/// needs: widening may have lost the precision the step needed (a divisor
/// widened to an interval holding zero), so intervals grow exactly for
/// longer. Bounded, like the ladder, so a round ends.
pub const WIDEN_AFTER_RETRY: u32 = 100;

/// [`WIDEN_AFTER`] when [`super::rounds::explore_abstract_best`] tries its first round
/// again: 2012 problem 15 keeps a variable's bound, and with it three
/// labels out of reach, only when widening waits (after 20 growths as after
/// 100), while a retry that does not help costs about one expansion more
/// per growth waited (2019 training problem 13: 3,537 expansions in the
/// first round, 5,493 in the retry at 20, 23,431 at 100).
pub const WIDEN_AFTER_SECOND: u32 = 20;

/// Most pieces one successor is split into, one per combination of cells.
pub const MAX_SPLIT: usize = 256;

/// Share of a run's time limit that the checkers give the abstraction.
pub const SHARE_OF_TIMEOUT: f64 = 0.3;

/// Most abstract states before the checkers give the abstraction up.
pub const RUN_MAX_STATES: usize = 2_000_000;

/// The abstraction's part of a run's budget: [`SHARE_OF_TIMEOUT`] of the
/// time left, the run's memory limit and cancellation, and at most
/// [`RUN_MAX_STATES`] abstract states (the run's state limit is for the
/// concrete searches).
pub fn share_of(run: &Budget) -> Budget {
    Budget {
        max_states: Some(RUN_MAX_STATES as u64),
        ..run.share(SHARE_OF_TIMEOUT)
    }
}

/// Why the abstraction gave no result.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AbstractionError {
    /// The step could not be interpreted soundly (a possible fault, a
    /// construct the interpreter does not model).
    #[error("{0}")]
    Unsound(Unsound),
    /// The budget ran out.
    #[error("{}", .0.during("the abstraction"))]
    Limit(StopReason),
    /// More abstract states than the budget allows.
    #[error("more than {0} abstract states")]
    TooManyStates(u64),
    /// A round queued more states than it could expand in the time left,
    /// at the pace it had kept so far.
    #[error(
        "the abstraction could not finish in time: {queued} abstract states queued after {expanded} expansions"
    )]
    OutOfReach {
        /// The states waiting for their first or next expansion.
        queued: u64,
        /// The expansions done so far.
        expanded: u64,
    },
}

/// The abstraction stopped before any round completed: why, and where a
/// limit stopped it, the graph its round had explored by then.
#[derive(Debug)]
pub struct Unfinished {
    /// Why no round completed.
    pub why: AbstractionError,
    /// The states and edges found before the limit. Not a fixpoint (states
    /// are missing, some have edges for part of their values only), so it
    /// proves nothing: its paths to error labels are candidates that a
    /// replay must confirm.
    pub partial: Option<Box<AbsGraph>>,
}

impl From<AbstractionError> for Unfinished {
    fn from(why: AbstractionError) -> Self {
        Unfinished { why, partial: None }
    }
}

impl std::fmt::Display for Unfinished {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.why.fmt(f)
    }
}

/// What a round learns about each abstract state for the refinement ([`super::rounds`]).
#[derive(Default)]
pub(super) struct Liveness {
    /// Per state: each successor, with the slots the step there overwrote.
    pub(super) succ: Vec<Vec<(StateId, Vec<bool>)>>,
    /// Per state: the slots the checks of its error steps read and the step
    /// did not overwrite.
    pub(super) read_by_errors: Vec<Vec<bool>>,
    /// Per state: the relevance keys of the successors joined into it.
    pub(super) origins: Vec<rustc_hash::FxHashSet<Vec<i64>>>,
}

/// Why one round of the abstraction stopped before its fixpoint.
#[derive(Debug)]
pub(super) enum RoundError {
    /// A limit ran out: no other round can do better in what is left. With
    /// the graph explored so far ([`Unfinished::partial`]).
    Limit(AbstractionError, Box<AbsGraph>),
    /// The step could not be interpreted soundly from some abstract state.
    Unsound(Unsound),
}

/// One exploration of the abstraction keyed by `cells`, widening an
/// interval after `widen_after` growths (straight to its cells after twice
/// as many). A step that may fault ends the round at once where
/// `stop_at_fault` (the caller will not learn from its fault sites), and is
/// recorded in [`AbsGraph::faults`] otherwise.
pub(super) fn explore_keyed(
    cells: &Cells,
    step: &AbstractStep,
    m: &Machine,
    budget: &Budget,
    widen_after: u32,
    pool: Option<&rayon::ThreadPool>,
    stop_at_fault: bool,
) -> Result<(AbsGraph, Liveness), RoundError> {
    let width = m.layout().state_width as usize;
    let mut live = Liveness::default();
    let mut g = AbsGraph {
        inputs: m.input_names.clone(),
        outputs: m.output_names.clone(),
        numeric_slots: cells.cuts.iter().filter(|c| c.is_some()).count(),
        ..AbsGraph::default()
    };
    let mut index: FxHashMap<Vec<i64>, StateId> = FxHashMap::default();
    let mut growth: Vec<u32> = Vec::new();
    let mut queued: Vec<bool> = Vec::new();
    // First in, first out: ARCHITECTURE.md says what a priority on the
    // earliest-found state cost where it was measured.
    let mut queue = std::collections::VecDeque::new();
    let init = step.initial(m);
    let (key, coarse) = cells.keys(&init);
    index.insert(key, 0);
    g.values.push(init);
    g.edges.push(Vec::new());
    live.succ.push(Vec::new());
    live.read_by_errors.push(vec![false; width]);
    live.origins.push(coarse.into_iter().collect());
    growth.push(0);
    queued.push(true);
    queue.push_back(0);
    let started = Instant::now();
    while let Some(s) = queue.pop_front() {
        queued[s as usize] = false;
        g.expansions += 1;
        if g.expansions.is_multiple_of(256) {
            if let Some(why) = budget.spent_time_or_memory() {
                let why = AbstractionError::Limit(why);
                return Err(RoundError::Limit(why, partial(g, cells, index)));
            }
            let (queued, expanded) = (queue.len(), g.expansions);
            if budget.out_of_reach(queued, expanded, started.elapsed()) {
                let why = AbstractionError::OutOfReach {
                    queued: queued as u64,
                    expanded,
                };
                return Err(RoundError::Limit(why, partial(g, cells, index)));
            }
        }
        let mut edges = Vec::new();
        let mut succ = Vec::new();
        let Successors {
            by_input,
            groups,
            read_by_errors,
            faults,
        } = successors(cells, step, &g.values[s as usize], g.inputs.len(), pool)?;
        if let Some((_, why)) = faults.first().filter(|_| stop_at_fault) {
            return Err(RoundError::Unsound(why.clone()));
        }
        g.faults.retain(|f| f.state != s);
        (g.faults).extend(faults.into_iter().map(|(input, why)| AbsFault {
            state: s,
            input,
            why,
        }));
        // Many inputs lead to one successor: it is joined once, its
        // targets kept for the others.
        let mut groups: Vec<Option<Vec<Group>>> = groups.into_iter().map(Some).collect();
        let mut targets_of: Vec<Vec<StateId>> = vec![Vec::new(); groups.len()];
        for (input, steps) in by_input.iter().enumerate() {
            for (outcome, written, post) in steps {
                let edge = |target| AbsEdge {
                    input: input as u16,
                    packed: outcome.pack(),
                    target,
                };
                let Some(at) = *post else {
                    edges.push(edge(NO_STATE));
                    continue;
                };
                if let Some(pieces) = groups[at].take() {
                    for (key, coarse, post) in pieces {
                        let target = match index.get(&key) {
                            Some(&t) => {
                                let old = &g.values[t as usize];
                                let mut joined: AbsState =
                                    old.iter().zip(&post).map(|(a, b)| a.join(*b)).collect();
                                if &joined != old {
                                    growth[t as usize] += 1;
                                    if growth[t as usize] > widen_after {
                                        let to_cell = growth[t as usize]
                                            > widen_after * CELL_AFTER / WIDEN_AFTER;
                                        cells.widen(old, &mut joined, to_cell);
                                    }
                                    g.values[t as usize] = joined;
                                    if !queued[t as usize] {
                                        queued[t as usize] = true;
                                        queue.push_back(t);
                                    }
                                }
                                live.origins[t as usize].extend(coarse);
                                t
                            }
                            None => {
                                let t = g.values.len() as StateId;
                                if budget.max_states.is_some_and(|n| t as u64 >= n) {
                                    let why = AbstractionError::TooManyStates(t as u64);
                                    return Err(RoundError::Limit(why, partial(g, cells, index)));
                                }
                                index.insert(key, t);
                                g.values.push(post);
                                g.edges.push(Vec::new());
                                live.succ.push(Vec::new());
                                live.read_by_errors.push(vec![false; width]);
                                live.origins.push(coarse.into_iter().collect());
                                growth.push(0);
                                queued.push(true);
                                queue.push_back(t);
                                t
                            }
                        };
                        targets_of[at].push(target);
                    }
                }
                for &target in &targets_of[at] {
                    succ.push((target, written.clone()));
                    edges.push(edge(target));
                }
            }
        }
        edges.sort_unstable();
        edges.dedup();
        g.edges[s as usize] = edges;
        succ.sort_unstable();
        succ.dedup();
        live.succ[s as usize] = succ;
        live.read_by_errors[s as usize] = read_by_errors;
    }
    g.cells = cells.clone();
    g.index = index;
    Ok((g, live))
}

/// The graph a round had explored when a limit stopped it, with its keys.
fn partial(mut g: AbsGraph, cells: &Cells, index: FxHashMap<Vec<i64>, StateId>) -> Box<AbsGraph> {
    g.cells = cells.clone();
    g.index = index;
    Box::new(g)
}

/// A successor's pieces of one key, joined: the key, the relevance keys
/// of the pieces joined in, and their hull.
type Group = (Vec<i64>, Vec<Vec<i64>>, AbsState);

/// One step from an abstract state: its outcome, the slots it overwrote,
/// and its successor if it goes on (an index into [`Successors::groups`]).
type Step = (Outcome, Vec<bool>, Option<usize>);

/// Every input's step from one abstract state.
struct Successors {
    /// Per input, its steps.
    by_input: Vec<Vec<Step>>,
    /// Per distinct successor, in the order first met: its groups.
    groups: Vec<Vec<Group>>,
    /// The slots the checks of the error steps read and the step did not
    /// overwrite, and those the indices of its fault sites read.
    read_by_errors: Vec<bool>,
    /// Per input that may fault, why.
    faults: Vec<(u16, String)>,
}

/// The steps from `from` on each of `inputs`, each distinct successor split
/// and keyed ([`grouped`]): the part of an expansion that depends on
/// nothing but `from`, the inputs taken in turn by `pool`'s threads.
fn successors(
    cells: &Cells,
    step: &AbstractStep,
    from: &AbsState,
    inputs: usize,
    pool: Option<&rayon::ThreadPool>,
) -> Result<Successors, RoundError> {
    // One step's outcome, the slots it overwrote, the slots its error
    // check reads, and the number of its successor among those claimed
    // (with the successor's groups if this step was the first to claim
    // it).
    type Stepped = (
        Outcome,
        Vec<bool>,
        Option<Vec<bool>>,
        Option<(usize, Option<Vec<Group>>)>,
    );
    // Many inputs lead to one successor: the first thread to meet it
    // splits and keys it.
    let claimed: Mutex<FxHashMap<AbsState, usize>> = Mutex::default();
    // The inputs in [`INPUT_CHUNKS`] contiguous chunks, each stepped as one
    // ([`AbstractStep::step_inputs`]) on one of `pool`'s threads.
    let chunks = INPUT_CHUNKS.clamp(1, inputs.max(1));
    let chunk_of = |c: usize| (c * inputs / chunks)..((c + 1) * inputs / chunks);
    type Shared = (Vec<(InputSet, Stepped)>, Vec<(InputSet, FaultSite)>);
    let stepped = each_input(pool, chunks, |c| -> Result<Shared, Unsound> {
        let mut set = InputSet::with_capacity(inputs);
        set.insert_range(chunk_of(c));
        let (runs, faults) = step.step_inputs(from, &set)?;
        let each = |Run {
                        outcome,
                        post,
                        written,
                        touched,
                    }: Run| {
            let (rel, claim) = match outcome {
                Outcome::Error(_) => (cells.relevance.as_ref().map(|r| r.relevant(&post)), None),
                // An invalid input that stored nothing leaves the state as
                // it was: no successor to explore, and where invalid inputs
                // go on in LTL (2012), an end of the run.
                Outcome::Invalid if !touched => (None, None),
                Outcome::Blocked => (None, None),
                _ => {
                    let mut claimed = claimed.lock().unwrap_or_else(|e| e.into_inner());
                    let next = claimed.len();
                    let (at, first) = match claimed.get(&post) {
                        Some(&at) => (at, false),
                        None => (*claimed.entry(post.clone()).or_insert(next), true),
                    };
                    drop(claimed);
                    (None, Some((at, first.then(|| grouped(cells, &post)))))
                }
            };
            (outcome, written, rel, claim)
        };
        let runs = runs.into_iter().map(|(s, r)| (s, each(r))).collect();
        Ok((runs, faults))
    });
    let mut read_by_errors = vec![false; from.len()];
    let mut faults = Vec::new();
    let mut claimed_groups: Vec<Option<Vec<Group>>> = Vec::new();
    let mut all = Vec::with_capacity(inputs);
    for (c, shared) in stepped.into_iter().enumerate() {
        let (mut runs, sites) = shared.map_err(RoundError::Unsound)?;
        // Each run's successor groups, once, for the first input to take it.
        for (_, (_, _, _, claim)) in &mut runs {
            if let Some((at, grouped)) = claim {
                if let Some(g) = grouped.take() {
                    claimed_groups.resize_with(claimed_groups.len().max(*at + 1), || None);
                    claimed_groups[*at] = Some(g);
                }
            }
        }
        for input in chunk_of(c) {
            let mut seen: Vec<&FaultSite> = Vec::new();
            for (set, site) in &sites {
                if set.contains(input) && !seen.contains(&site) {
                    seen.push(site);
                    for &k in &site.reads {
                        read_by_errors[k] = true;
                    }
                    faults.push((input as u16, site.why.clone()));
                }
            }
            let mut these = Vec::new();
            for (set, (outcome, written, rel, claim)) in &runs {
                if !set.contains(input) {
                    continue;
                }
                if let Some(rel) = rel {
                    for (k, read) in read_by_errors.iter_mut().enumerate() {
                        *read |= rel[k] && !written[k];
                    }
                }
                these.push((*outcome, written.clone(), claim.as_ref().map(|(at, _)| *at)));
            }
            all.push(these);
        }
    }
    // The successors numbered in the order first met, input by input, as
    // on one thread.
    let mut groups: Vec<Vec<Group>> = Vec::new();
    let mut number_of: Vec<Option<usize>> = vec![None; claimed_groups.len()];
    let mut number = |at: usize| {
        *number_of[at].get_or_insert_with(|| {
            let g = claimed_groups[at].take();
            groups.push(g.expect("every successor is claimed once"));
            groups.len() - 1
        })
    };
    let by_input = (all.into_iter())
        .map(|these| {
            (these.into_iter())
                .map(|(outcome, written, at)| (outcome, written, at.map(&mut number)))
                .collect()
        })
        .collect();
    Ok(Successors {
        by_input,
        groups,
        read_by_errors,
        faults,
    })
}

/// Chunks of the alphabet an expansion steps apart, each as one run that
/// splits where the input is compared ([`super::inputs`]). A fixed number,
/// not one per thread, so that the abstraction is the same on any number
/// of threads (how runs are joined depends on how many a step has).
const INPUT_CHUNKS: usize = 4;

/// `(0..inputs).map(f)`, on `pool`'s threads if there is one.
fn each_input<T: Send>(
    pool: Option<&rayon::ThreadPool>,
    inputs: usize,
    f: impl Fn(usize) -> T + Sync + Send,
) -> Vec<T> {
    use rayon::prelude::*;
    match pool {
        Some(pool) => pool.install(|| (0..inputs).into_par_iter().map(f).collect()),
        None => (0..inputs).map(f).collect(),
    }
}

/// `post` split along the cells into at most [`MAX_SPLIT`] pieces, keyed,
/// and grouped by key ([`group`]).
///
/// Only the slots that may tell the pieces' keys apart are split
/// ([`Cells::split_slots`]): the groups are those of splitting along every
/// slot (but where a witness is chosen differently; any key is sound),
/// without the pieces that were joined right back, each
/// at the cost of a relevance question (2019 challenge C P18: 113 pieces
/// per successor, 1.06 keys).
fn grouped(cells: &Cells, post: &AbsState) -> Vec<Group> {
    grouped_along(cells, post, cells.split_slots(post))
}

/// [`grouped`], splitting along the slots `split` marks (all if `None`).
/// A successor left whole takes the relevance `split` has of it.
fn grouped_along(cells: &Cells, post: &AbsState, split: Option<SplitSlots>) -> Vec<Group> {
    let mut groups = Vec::new();
    let mut group_of = FxHashMap::default();
    let along = split.as_ref().map(|s| s.along.as_slice());
    let pieces = cells.split_along(post.clone(), MAX_SPLIT, along);
    let whole = pieces.len() == 1;
    for piece in pieces {
        let (key, coarse) = match &split {
            Some(s) if whole => cells.keys_of_relevant(&piece, &s.relevant),
            _ => cells.keys(&piece),
        };
        group(&mut groups, &mut group_of, piece, key, coarse);
    }
    // Pieces of one key often have one relevance key too: each is added
    // to the target's origins once.
    for (_, origins, _) in &mut groups {
        origins.sort_unstable();
        origins.dedup();
    }
    groups
}

/// Adds a piece of a successor, with its `key` and relevance key `coarse`,
/// to the successor's `groups`: the pieces of one key are
/// joined first, one group each, so that a successor split into 200 pieces
/// of one key (the stale slots split too) is one growth of its state, not
/// 199.
fn group(
    groups: &mut Vec<Group>,
    group_of: &mut FxHashMap<Vec<i64>, usize>,
    piece: AbsState,
    key: Vec<i64>,
    coarse: Option<Vec<i64>>,
) {
    match group_of.entry(key) {
        std::collections::hash_map::Entry::Occupied(i) => {
            let (_, origins, joined) = &mut groups[*i.get()];
            for (a, b) in joined.iter_mut().zip(&piece) {
                *a = a.join(*b);
            }
            origins.extend(coarse);
        }
        std::collections::hash_map::Entry::Vacant(slot) => {
            let key = slot.key().clone();
            slot.insert(groups.len());
            groups.push((key, coarse.into_iter().collect(), piece));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::absint::cells::cells;
    use crate::absint::interval::Interval;
    use crate::system::System;

    /// Splitting only along [`Cells::split_slots`] gives the groups (keys,
    /// relevance keys, joined values, order) of splitting along every
    /// slot, on the successors of every abstract state of the bundled
    /// problems with relevance, as explored and with every numeric slot
    /// widened to any `int` (so that the limit on pieces is met too).
    #[test]
    fn splitting_along_the_slots_that_matter_changes_no_group() {
        let mut skipped = 0;
        let root = format!("{}/problems", env!("CARGO_MANIFEST_DIR"));
        let mut programs: Vec<_> = (std::fs::read_dir(&root).expect("problems").flatten())
            .flat_map(|d| std::fs::read_dir(d.path()).into_iter().flatten().flatten())
            .map(|f| f.path())
            .filter(|f| f.extension().is_some_and(|e| e == "c"))
            .collect();
        programs.sort();
        // Beside the bundled problems, one where a numeric slot is written
        // in one mode and compared only in the other: the successors of
        // the first mode need no split along it.
        let stale = std::env::temp_dir().join(format!("rigor-split-{}.c", std::process::id()));
        std::fs::write(&stale, STALE).expect("writes");
        programs.push(stale.clone());
        for path in programs {
            let name = path.display();
            let p = crate::frontend::load(&path.to_string_lossy()).expect("loads");
            let m = Machine::compile(&p).expect("compiles");
            let Ok(g) = crate::absint::explore_abstract(&p, &m, &Budget::unlimited()) else {
                continue;
            };
            let cells = cells(&p, &m);
            if cells.relevance.is_none() {
                continue;
            }
            let step = AbstractStep::new(&p, &m);
            let wide = |s: &AbsState| -> AbsState {
                (s.iter().zip(&cells.cuts))
                    .map(|(v, c)| if c.is_some() { Interval::TOP } else { *v })
                    .collect()
            };
            let states = g.values.iter().flat_map(|s| [s.clone(), wide(s)]);
            for from in states {
                for input in 0..m.inputs().len() {
                    let Ok(runs) = step.step_written(&from, input) else {
                        continue;
                    };
                    for run in runs {
                        let every = grouped_along(&cells, &run.post, None);
                        let split = cells.split_slots(&run.post);
                        let along = split.as_ref().map(|s| s.along.as_slice());
                        let fewer = cells.split_along(run.post.clone(), MAX_SPLIT, along);
                        if fewer.len() < cells.split(run.post.clone(), MAX_SPLIT).len() {
                            skipped += 1;
                        }
                        assert_eq!(grouped(&cells, &run.post), every, "{name}, input {input}");
                    }
                }
            }
        }
        let _ = std::fs::remove_file(&stale);
        assert!(skipped > 0, "some successor is split along fewer slots");
    }

    /// Mode 0 writes `x` or leaves it (four cells: up to 10, up to 29, up
    /// to 40, above), mode 1 and the error check compare it.
    const STALE: &str = r#"
extern void __VERIFIER_error(int);
int inputs[] = {1,2,3};
void errorCheck();
void calculate_output(int);
int cf = 1;
int m = 0;
int x = 0;
void errorCheck() {
    if((m == 1 && x > 40)){ cf = 0; __VERIFIER_error(0); }
}
void calculate_output(int input) {
    cf = 1;
    if((cf==1 && (input == 1)) && m == 0) { cf = 0; x = input * 7 + 30; printf("%d\n", 21); }
    if((cf==1 && (input == 2)) && m == 0) { cf = 0; printf("%d\n", 22); }
    if((cf==1 && (input == 3)) && m == 0) { cf = 0; m = 1; printf("%d\n", 23); }
    if((cf==1 && (input == 1)) && m == 1 && x > 10 && x < 30) { cf = 0; m = 0; printf("%d\n", 24); }
    errorCheck();
    if( cf==1 ) fprintf(stderr, "Invalid input: %d\n", input);
}
int main() {
    while(1) {
        int input;
        scanf("%d", &input);
        if((input != 1) && (input != 2) && (input != 3)) return -2;
        calculate_output(input);
    }
}
"#;
}
