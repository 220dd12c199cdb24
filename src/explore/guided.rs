//! Best-first search for error labels, ordered by a [`Guide`].
//!
//! Breadth-first search finds shortest witnesses but drowns in the wide
//! state spaces of the arithmetic problems before it reaches a deep label.
//! This search expands first the states the guide puts nearest to a label
//! not found yet (weighted A*: depth plus `weight` times the estimate), and
//! never expands a state the guide calls [`Estimate::Dead`]. Its witnesses
//! are valid but not always shortest; the checker replays each one.
//!
//! If the search runs out of states without a stop or a fault, every label
//! it did not find is unreachable: each state it skipped was dead for them.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::bfs::{path_to, Estimate, Guide};
use super::store::StateStore;
use crate::runtime::{Budget, StopReason};
use crate::system::{Outcome, StateId, System, NO_STATE};

/// What a guided search found.
#[derive(Clone, Debug, Default)]
pub struct GuidedSearch {
    /// Each label found, with the inputs of the run that reached it.
    pub found: Vec<(u32, Vec<usize>)>,
    /// States stored.
    pub states: u64,
    /// States the guide called dead.
    pub pruned: u64,
    /// Why the search stopped early; `None` when it ran out of states or
    /// found every label.
    pub stopped: Option<StopReason>,
    /// Whether some step faulted (then nothing is proved unreachable).
    pub faulted: bool,
}

impl GuidedSearch {
    /// Whether every state not called dead was expanded without a fault.
    pub fn exhausted(&self) -> bool {
        self.stopped.is_none() && !self.faulted
    }
}

/// Searches `sys` for the error labels `wanted`, best first by `guide`
/// (priority: depth + `weight` × estimate; unknown estimates inherit the
/// parent's).
pub fn guided_search<S: System>(
    sys: &S,
    budget: &Budget,
    wanted: &[u32],
    guide: &mut dyn Guide,
    weight: u32,
) -> GuidedSearch {
    let width = sys.state_width();
    let mut unfound: Vec<u32> = wanted.to_vec();
    unfound.sort_unstable();
    unfound.dedup();
    let mut out = GuidedSearch::default();
    let mut store = StateStore::new(width);
    let mut parent: Vec<StateId> = Vec::new();
    let mut parent_input: Vec<u16> = Vec::new();
    let mut depth: Vec<u32> = Vec::new();
    // Last known estimate of each state, inherited where unknown.
    let mut estimate: Vec<u32> = Vec::new();
    let mut heap: BinaryHeap<Reverse<(u64, StateId)>> = BinaryHeap::new();
    let mut scratch = sys.scratch();
    let mut cur = sys.initial_state();
    let mut next = cur.clone();
    let priority = |d: u32, h: u32| d as u64 + weight as u64 * h as u64;

    store.insert(&cur);
    parent.push(NO_STATE);
    parent_input.push(0);
    depth.push(0);
    match guide.estimate(&cur, &unfound) {
        Estimate::Dead => {
            out.pruned += 1;
            estimate.push(u32::MAX);
        }
        Estimate::AtLeast(h) => {
            estimate.push(h);
            heap.push(Reverse((priority(0, h), 0)));
        }
        Estimate::Unknown => {
            estimate.push(1);
            heap.push(Reverse((priority(0, 1), 0)));
        }
    }
    let mut expanded = 0u64;
    while let Some(Reverse((_, s))) = heap.pop() {
        if unfound.is_empty() {
            break;
        }
        expanded += 1;
        if expanded.is_multiple_of(1024) {
            if let Some(why) = budget.spent(store.len() as u64) {
                out.stopped = Some(why);
                break;
            }
        }
        let n = sys.n_inputs();
        let grow = store.bytes_to_grow(n) + super::bfs::vec_growth(&parent, n) * 30;
        if (grow > 0 && !budget.can_grow(grow))
            || !store.try_make_room(n)
            || parent.try_reserve(n).is_err()
            || parent_input.try_reserve(n).is_err()
            || depth.try_reserve(n).is_err()
            || estimate.try_reserve(n).is_err()
            || heap.try_reserve(n).is_err()
        {
            out.stopped = Some(StopReason::MemoryLimit);
            break;
        }
        store.get(s, &mut cur);
        let d = depth[s as usize];
        let mut rebuild = false;
        for i in 0..sys.n_inputs() {
            match sys.step(&mut scratch, &cur, i, &mut next) {
                Err(_) => out.faulted = true,
                Ok(Outcome::Error(n)) => {
                    if let Ok(k) = unfound.binary_search(&n) {
                        unfound.remove(k);
                        let mut p = path_to(&parent, &parent_input, s);
                        p.push(i);
                        out.found.push((n, p));
                        rebuild = true;
                    }
                }
                Ok(Outcome::Blocked) => {}
                Ok(_) if next == cur => {}
                Ok(_) => {
                    let (t, new) = store.insert(&next);
                    if !new {
                        continue;
                    }
                    parent.push(s);
                    parent_input.push(i as u16);
                    depth.push(d + 1);
                    let h = match guide.estimate(&next, &unfound) {
                        Estimate::Dead => {
                            out.pruned += 1;
                            estimate.push(u32::MAX);
                            continue;
                        }
                        Estimate::AtLeast(h) => h,
                        Estimate::Unknown => estimate[s as usize].saturating_sub(1).max(1),
                    };
                    estimate.push(h);
                    heap.push(Reverse((priority(d + 1, h), t)));
                }
            }
        }
        if rebuild && !unfound.is_empty() {
            // The estimates were for a larger set of labels: redo them.
            let old = std::mem::take(&mut heap);
            for Reverse((_, t)) in old {
                store.get(t, &mut cur);
                let h = match guide.estimate(&cur, &unfound) {
                    Estimate::Dead => {
                        out.pruned += 1;
                        continue;
                    }
                    Estimate::AtLeast(h) => h,
                    Estimate::Unknown => estimate[t as usize],
                };
                estimate[t as usize] = h;
                heap.push(Reverse((priority(depth[t as usize], h), t)));
            }
        }
    }
    out.states = store.len() as u64;
    out
}
