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
//! first looks one step ahead; [`refine`] then explores again, keeping the
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
//! says what it needs ([`explore_abstract_until`]; after
//! [`WIDEN_AFTER_SECOND`] growths for one that counts what is left open,
//! [`explore_abstract_best`]). The result is a least
//! fixpoint: every concrete reachable state lies in some abstract state,
//! and every step of the engine from it is matched by an abstract edge with
//! the same input and outcome ([`super::step`]). Any key is sound; the key
//! only decides what is joined, so how precise the result is.
//!
//! So a property of all (infinite) traces that holds here holds for the
//! program, and an error label no abstract edge reaches is unreachable.
//! A path found here is only a candidate: it must be replayed on the engine.

use rustc_hash::{FxHashMap, FxHashSet};
use std::sync::Mutex;
use std::time::Instant;

use super::analysis::state_slot;
use super::cells::{cells, congruences, counter_writes, Cells, IRRELEVANT};
pub use super::graph::{AbsEdge, AbsGraph};
use super::step::{AbsState, AbstractStep, Run, Unsound};
use crate::engine::Machine;
use crate::ir::{Expr, Program};
use crate::system::{Budget, Outcome, StateId, StopReason, NO_STATE};

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

/// [`WIDEN_AFTER`] when [`explore_abstract_best`] tries its first round
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

/// Most rounds of [`refine`]: each explores the abstraction again.
pub const MAX_ROUNDS: usize = 12;

/// Explores the abstract transition system to its fixpoint. `Err` when the
/// limits run out or the step cannot be interpreted soundly.
///
/// With [`super::relevance::Relevance`], states are first keyed on the slots their next step
/// depends on; [`refine`] then finds the slots a later step reads before
/// any step writes them, and the exploration runs again keeping those too,
/// until nothing is learnt or [`MAX_ROUNDS`]. Every round's result is a
/// sound abstraction; the last one that completes is returned.
pub fn explore_abstract(
    p: &Program,
    m: &Machine,
    budget: &Budget,
) -> Result<AbsGraph, AbstractionError> {
    Ok(rounds(p, m, budget, 1, |_| (1, ()), None)?.0)
}

/// [`explore_abstract`], stopping at the first round whose result `enough`
/// accepts (every round's result is sound; later rounds are only more
/// precise, and may take much longer). A first round that completes but is
/// not enough is tried once more with the same keys, widening only after
/// [`WIDEN_AFTER_RETRY`] growths, before any key is refined: widening may
/// be what lost the precision (the Java version of the 2019 challenge LTL
/// problem 5 joins modes whose intervals then widen to `[116, i32::MAX]`,
/// and a later guard splits there), while a refinement round keys on more
/// slots and may be far larger.
pub fn explore_abstract_until(
    p: &Program,
    m: &Machine,
    budget: &Budget,
    mut enough: impl FnMut(&AbsGraph) -> bool,
) -> Result<AbsGraph, AbstractionError> {
    let judge = |g: &AbsGraph| (usize::from(!enough(g)), ());
    Ok(rounds(p, m, budget, 1, judge, Some(WIDEN_AFTER_RETRY))?.0)
}

/// [`explore_abstract_until`] for a caller that counts what a round leaves
/// open (`judge` says how much, say the labels it reaches on no path that
/// replays, and what else the caller learnt of the round, which comes back
/// with the round kept):
/// rounds go on until one leaves nothing open, a limit is hit or nothing
/// more can be refined, and the round that left the least open is returned
/// (the later one of equals). Every round is a sound abstraction, but a
/// later round is not always more precise on every question (it joins
/// differently), so the best one is kept rather than the last. The first
/// round is tried again widening after [`WIDEN_AFTER_SECOND`] growths.
///
/// Each abstract state's successors are computed on up to `threads`
/// threads (one input each in turn); the result is the same on any number.
pub fn explore_abstract_best<T>(
    p: &Program,
    m: &Machine,
    budget: &Budget,
    threads: usize,
    judge: impl FnMut(&AbsGraph) -> (usize, T),
) -> Result<(AbsGraph, T), AbstractionError> {
    rounds(p, m, budget, threads, judge, Some(WIDEN_AFTER_SECOND))
}

/// The rounds of [`explore_abstract_best`]. `retry`: a first round that
/// leaves something open is tried again with the same keys, widening after
/// that many growths; the refinement rounds after it widen as late only if
/// that left less open (widening later costs: every growth is one more
/// expansion).
fn rounds<T>(
    p: &Program,
    m: &Machine,
    budget: &Budget,
    threads: usize,
    mut judge: impl FnMut(&AbsGraph) -> (usize, T),
    mut retry: Option<u32>,
) -> Result<(AbsGraph, T), AbstractionError> {
    let mut cells = cells(p, m);
    let tracked = counter_writes(p, m, &cells.counter);
    // Without a pool of its own (one thread, or none to be had), the
    // successors are computed on the calling thread.
    let pool = (threads > 1)
        .then(|| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                // The step is interpreted by recursion on its nesting.
                .stack_size(crate::system::memory::deep_stack(threads))
                .build()
                .ok()
        })
        .flatten();
    // The round that left the least open so far, how much, and what the
    // caller learnt of it.
    let mut best: Option<(usize, AbsGraph, T)> = None;
    let keep = |round: (usize, AbsGraph, T), best: &mut Option<(usize, AbsGraph, T)>| {
        if best.as_ref().is_none_or(|(least, _, _)| round.0 <= *least) {
            *best = Some(round);
        }
    };
    let kept = |(_, g, learnt): (usize, AbsGraph, T)| (g, learnt);
    let mut widen_after = WIDEN_AFTER;
    // Whether the round under way is the retry of the first one.
    let mut retrying = false;
    for _ in 0..MAX_ROUNDS {
        let step = AbstractStep::new(p, m)
            .with_congruences(cells.congruence.clone())
            .tracking(tracked.iter().copied());
        let (g, liveness) =
            match explore_keyed(&cells, &step, m, budget, widen_after, pool.as_ref()) {
                Ok(done) => done,
                Err(RoundError::Limit(why)) => return best.map(kept).ok_or(why),
                Err(RoundError::Unsound(why)) => {
                    if best.is_none() && widen_after == WIDEN_AFTER {
                        widen_after = WIDEN_AFTER_RETRY;
                        continue;
                    }
                    if best.is_none() && cells.relevance.is_some() {
                        // Joining the slots relevance left out lost too much:
                        // key on every slot instead.
                        cells.relevance = None;
                        widen_after = WIDEN_AFTER;
                        continue;
                    }
                    return best.map(kept).ok_or(AbstractionError::Unsound(why));
                }
            };
        let (open, learnt) = judge(&g);
        if open == 0 {
            return Ok((g, learnt));
        }
        if let Some(later) = retry.take().filter(|&w| best.is_none() && w > widen_after) {
            widen_after = later;
            retrying = true;
            keep((open, g, learnt), &mut best);
            continue;
        }
        if std::mem::take(&mut retrying) && best.as_ref().is_some_and(|b| open >= b.0) {
            // Widening later did not help: it was not what lost precision.
            widen_after = WIDEN_AFTER;
        }
        let finer = finer_congruences(p, m, &mut cells, &step.fired());
        let refined = cells.relevance.is_some() && refine(&mut cells, &g, &liveness);
        keep((open, g, learnt), &mut best);
        if !finer && !refined {
            break;
        }
    }
    Ok(kept(best.expect("at least one round")))
}

/// Narrows the counters' congruences to the steps that `fired` in a
/// complete abstraction (see [`congruences`]); returns whether any got
/// finer. Both the old and the new class hold in every reachable state and
/// both contain the initial value, so the finer of the two is kept.
fn finer_congruences(
    p: &Program,
    m: &Machine,
    cells: &mut Cells,
    fired: &FxHashSet<usize>,
) -> bool {
    let slot_of = |e: &Expr| state_slot(m, e);
    let new = congruences(p, m, &cells.counter, &slot_of, Some(fired));
    let mut finer = false;
    for (old, new) in cells.congruence.iter_mut().zip(new) {
        if new.is_some_and(|(n, _)| old.is_none_or(|(o, _)| n > o)) {
            *old = new;
            finer = true;
        }
    }
    finer
}

/// What a round learns about each abstract state for [`refine`].
#[derive(Default)]
struct Liveness {
    /// Per state: each successor, with the slots the step there overwrote.
    succ: Vec<Vec<(StateId, Vec<bool>)>>,
    /// Per state: the slots the checks of its error steps read and the step
    /// did not overwrite.
    read_by_errors: Vec<Vec<bool>>,
    /// Per state: the relevance keys of the successors joined into it.
    origins: Vec<rustc_hash::FxHashSet<Vec<i64>>>,
}

/// Why one round of the abstraction stopped before its fixpoint.
#[derive(Debug)]
enum RoundError {
    /// A limit ran out: no other round can do better in what is left.
    Limit(AbstractionError),
    /// The step could not be interpreted soundly from some abstract state.
    Unsound(Unsound),
}

/// One exploration of the abstraction keyed by `cells`, widening an
/// interval after `widen_after` growths (straight to its cells after twice
/// as many).
fn explore_keyed(
    cells: &Cells,
    step: &AbstractStep,
    m: &Machine,
    budget: &Budget,
    widen_after: u32,
    pool: Option<&rayon::ThreadPool>,
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
                return Err(RoundError::Limit(AbstractionError::Limit(why)));
            }
            let (queued, expanded) = (queue.len(), g.expansions);
            if budget.out_of_reach(queued, expanded, started.elapsed()) {
                return Err(RoundError::Limit(AbstractionError::OutOfReach {
                    queued: queued as u64,
                    expanded,
                }));
            }
        }
        let mut edges = Vec::new();
        let mut succ = Vec::new();
        let Successors {
            by_input,
            groups,
            read_by_errors,
        } = successors(cells, step, &g.values[s as usize], g.inputs.len(), pool)?;
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
                                    return Err(RoundError::Limit(
                                        AbstractionError::TooManyStates(t as u64),
                                    ));
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
    /// overwrite.
    read_by_errors: Vec<bool>,
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
    let stepped = each_input(pool, inputs, |input| -> Result<Vec<Stepped>, Unsound> {
        let steps = step.step_written(from, input)?;
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
        Ok(steps.into_iter().map(each).collect())
    });
    let mut read_by_errors = vec![false; from.len()];
    let mut claimed_groups: Vec<Option<Vec<Group>>> = Vec::new();
    let mut all = Vec::with_capacity(inputs);
    for steps in stepped {
        let steps = steps.map_err(RoundError::Unsound)?;
        let mut these = Vec::with_capacity(steps.len());
        for (outcome, written, rel, claim) in steps {
            if let Some(rel) = rel {
                for (k, read) in read_by_errors.iter_mut().enumerate() {
                    *read |= rel[k] && !written[k];
                }
            }
            let at = claim.map(|(at, grouped)| {
                if let Some(g) = grouped {
                    claimed_groups.resize_with(claimed_groups.len().max(at + 1), || None);
                    claimed_groups[at] = Some(g);
                }
                at
            });
            these.push((outcome, written, at));
        }
        all.push(these);
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
    })
}

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
fn grouped(cells: &Cells, post: &AbsState) -> Vec<Group> {
    let mut groups = Vec::new();
    let mut group_of = FxHashMap::default();
    for piece in cells.split(post.clone(), MAX_SPLIT) {
        let (key, coarse) = cells.keys(&piece);
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

/// Learns, from one round's abstraction, the slots each state's future
/// reads before writing them (a backward fixpoint over its edges, from
/// what [`super::relevance::Relevance`] finds each step reads) and records those the state's
/// key left out, under the relevance keys of the states joined into it.
/// Returns whether anything was learnt.
fn refine(cells: &mut Cells, g: &AbsGraph, liveness: &Liveness) -> bool {
    let Some(r) = &cells.relevance else {
        return false;
    };
    let n = g.n_states();
    let width = cells.cuts.len();
    let mut live: Vec<Vec<bool>> = (0..n)
        .map(|s| {
            let mut l = r.relevant(&g.values[s]);
            let errors = &liveness.read_by_errors[s];
            for ((x, &e), &counter) in l.iter_mut().zip(errors).zip(&cells.counter) {
                *x = (*x || e) && !counter;
            }
            l
        })
        .collect();
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (s, succ) in liveness.succ.iter().enumerate() {
        for (t, _) in succ {
            preds[*t as usize].push(s);
        }
    }
    let mut queue: std::collections::VecDeque<usize> = (0..n).collect();
    let mut queued = vec![true; n];
    while let Some(t) = queue.pop_front() {
        queued[t] = false;
        for &s in &preds[t] {
            let mut grew = false;
            for (t2, written) in &liveness.succ[s] {
                if *t2 as usize != t {
                    continue;
                }
                for k in 0..width {
                    if live[t][k] && !written[k] && !live[s][k] {
                        live[s][k] = true;
                        grew = true;
                    }
                }
            }
            if grew && !queued[s] {
                queued[s] = true;
                queue.push_back(s);
            }
        }
    }
    let mut learnt = false;
    for (s, l) in live.iter().enumerate() {
        let key = cells.key(&g.values[s]);
        if !(0..width).any(|k| l[k] && key[k] == IRRELEVANT) {
            continue;
        }
        for coarse in &liveness.origins[s] {
            let kept = cells
                .live
                .entry(coarse.clone())
                .or_insert_with(|| vec![false; width]);
            for k in 0..width {
                if l[k] && !kept[k] {
                    kept[k] = true;
                    learnt = true;
                }
            }
        }
    }
    learnt
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A bundled problem (under `problems/`), lowered and compiled.
    fn bundled(rel: &str) -> (Program, Machine) {
        let path = format!("{}/problems/{rel}", env!("CARGO_MANIFEST_DIR"));
        let p = crate::frontend::load(&path).expect("loads");
        let m = Machine::compile(&p).expect("compiles");
        (p, m)
    }

    #[test]
    fn refinement_keeps_a_slot_read_after_a_mode_change() {
        let (p, m) = bundled("reach-modes/Problem909.c");
        let limits = Budget::unlimited();
        // Keyed on the next step alone, mode 2 joins s = 0 and s = 9 into [0, 9], and
        // back in mode 1 error 0 (s == 7) looks reachable.
        let cells = cells(&p, &m);
        assert!(cells.relevance.is_some());
        let step = AbstractStep::new(&p, &m).with_congruences(cells.congruence.clone());
        let (first, _) =
            explore_keyed(&cells, &step, &m, &limits, WIDEN_AFTER, None).expect("explores");
        assert_eq!(first.error_labels(), [0, 1, 2]);
        // Refined: s is kept in mode 2, and only the reachable labels remain.
        let g = explore_abstract(&p, &m, &limits).expect("explores");
        assert_eq!(g.error_labels(), [1, 2]);
    }

    #[test]
    fn the_round_that_leaves_the_least_open_is_kept() {
        let (p, m) = bundled("reach-modes/Problem909.c");
        let limits = Budget::unlimited();
        // Problem909 takes three rounds: the first, the same keys widened
        // later, and the refined keys. Scripted counts of what each leaves
        // open: the second round is the best, and it is what comes back.
        let mut sizes = Vec::new();
        let mut script = [3usize, 1, 2].into_iter();
        let (g, ()) = explore_abstract_best(&p, &m, &limits, 2, |g| {
            sizes.push(g.error_labels());
            (script.next().unwrap_or(5), ())
        })
        .expect("explores");
        assert_eq!(sizes, [vec![0, 1, 2], vec![0, 1, 2], vec![1, 2]]);
        assert_eq!(
            g.error_labels(),
            [0, 1, 2],
            "the second round, not the last"
        );
        // A round that leaves nothing open ends the rounds at once.
        let mut rounds = 0;
        let (g, learnt) = explore_abstract_best(&p, &m, &limits, 2, |_| {
            rounds += 1;
            (0, rounds)
        })
        .expect("explores");
        assert_eq!((rounds, learnt), (1, 1));
        assert_eq!(g.error_labels(), [0, 1, 2]);
        // Counting the labels whose abstract path does not replay: the
        // refined round leaves none, and only the reachable labels remain.
        let judge = |g: &AbsGraph| (g.unreplayed_labels(&m), ());
        let (g, ()) = explore_abstract_best(&p, &m, &limits, 2, judge).expect("explores");
        assert_eq!(g.error_labels(), [1, 2]);
    }

    #[test]
    fn the_abstraction_is_the_same_on_any_number_of_threads() {
        for problem in [
            "reach-modes/Problem909.c",
            "reach-arith/Problem902.c",
            "reach-invalid/Problem904.c",
        ] {
            let (p, m) = bundled(problem);
            let judge = |g: &AbsGraph| (g.unreplayed_labels(&m), ());
            let explored = |threads| {
                let r = explore_abstract_best(&p, &m, &Budget::unlimited(), threads, judge);
                let (g, ()) = r.expect("explores");
                (g.values, g.edges, g.expansions)
            };
            let one = explored(1);
            assert!(one.0.len() > 1, "{problem}");
            assert_eq!(one, explored(2), "{problem}");
            assert_eq!(one, explored(3), "{problem}");
        }
    }

    #[test]
    fn congruence_follows_the_steps_that_run() {
        // c steps by +2 and, where x == 9, by +1: syntactically nothing is
        // known. No run sets x to 9, so the +1 never runs and c is even:
        // error 0 (c == 7) is unreachable.
        let (p, m) = bundled("reach-pump/Problem910.c");
        let g = explore_abstract(&p, &m, &Budget::unlimited()).expect("explores");
        let c = m.layout().slot_names.iter().position(|n| n == "c").unwrap();
        assert_eq!(g.cells.congruence[c], Some((2, 0)));
        assert_eq!(g.error_labels(), [1]);
    }
}
