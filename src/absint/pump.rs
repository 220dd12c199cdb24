//! Witnesses for labels behind counter guards.
//!
//! The abstraction joins every value of a counter (`a565 += (a565 + 20) >
//! a565 ? 2 : 0`), so its shortest path to a label may take a transition
//! guarded by `a565 == 33` with the counter still near its initial value:
//! a concrete run must first go round a cycle that steps the counter
//! sixteen times. The guided search cannot see that either, since the
//! abstract distance ignores counters, and the concrete states between
//! (every value of every arithmetic variable) are far too many to search.
//!
//! [`counter_witness`] finds the counters the abstract path needs: those a
//! step of the path narrows, by passing one of their guards
//! (`guarded_counters`). It then searches the concrete program breadth
//! first, keeping one state per abstract key and values of those counters
//! (`representative_search`). That net is small (abstract states times
//! counter values), so the search goes deep enough to pump the counters,
//! and every path it finds is a real run. Its size is bounded by memory
//! ([`MAX_NET_BYTES`]) and the budget, not by a count: labels of the 2019
//! challenge behind counters need nets of 35,000 to 140,000 states. It can
//! miss a label (the kept state may not be the one that gets there), never
//! claim a wrong one; the caller replays the path before reporting it.

use rustc_hash::FxHashSet;

use super::explore::MAX_SPLIT;
use super::graph::AbsGraph;
use super::step::{AbsState, AbstractStep};
use crate::engine::Machine;
use crate::ir::Program;
use crate::runtime::Budget;
use crate::system::{Outcome, StateId, System};

/// Most bytes the states of one `representative_search` take (a state
/// is `4 * width` bytes): the net's size is this, or the memory the budget
/// lets it grow to, whichever is less.
pub const MAX_NET_BYTES: usize = 1 << 30;

/// A run to error `label`, if the shortest abstract path to it passes
/// guards of some counters and `representative_search` keyed on those
/// finds one before `budget`'s time, memory or cancellation stops it.
pub fn counter_witness(
    p: &Program,
    m: &Machine,
    g: &AbsGraph,
    label: u32,
    budget: &Budget,
) -> Option<Vec<usize>> {
    let path = g.error_path(label)?;
    let step = AbstractStep::new(p, m).with_congruences(g.cells.congruence.clone());
    let tracked = guarded_counters(g, &step, &path, label);
    if tracked.is_empty() {
        return None;
    }
    let max_states = MAX_NET_BYTES / (4 * m.state_width().max(1));
    representative_search(m, g, label, &tracked, max_states, budget)
}

/// The counters some step of `path` (in `g`) depends on: every run of
/// the step that follows the path's edge narrows the counter's interval
/// (it passes a guard on it, `a565 == 33`).
fn guarded_counters(
    g: &AbsGraph,
    step: &AbstractStep,
    path: &[(StateId, usize)],
    label: u32,
) -> Vec<usize> {
    let counter = &g.cells.counter;
    let mut needed = Vec::new();
    for (j, &(s, input)) in path.iter().enumerate() {
        let from = &g.values[s as usize];
        let next = path.get(j + 1).map(|&(t, _)| t);
        let Ok(runs) = step.step_written(from, input) else {
            continue;
        };
        let follows = |o: Outcome, post: &AbsState| match next {
            None => o == Outcome::Error(label),
            Some(t) => {
                !matches!(o, Outcome::Error(_) | Outcome::Blocked)
                    && (g.cells.split(post.clone(), MAX_SPLIT).iter())
                        .any(|q| g.index.get(&g.cells.keys(q).0) == Some(&t))
            }
        };
        // Counters every run along the edge narrows.
        let mut narrowed: Option<Vec<bool>> = None;
        for post in (runs.iter())
            .filter(|r| follows(r.outcome, &r.post))
            .map(|r| &r.post)
        {
            let here = (0..from.len()).map(|k| {
                counter[k]
                    && from[k].as_point().is_none()
                    && (post[k].lo > from[k].lo || post[k].hi < from[k].hi)
            });
            narrowed = Some(match narrowed {
                None => here.collect(),
                Some(n) => n.iter().zip(here).map(|(a, b)| *a && b).collect(),
            });
        }
        for (k, &n) in narrowed.iter().flatten().enumerate() {
            if n && !needed.contains(&k) {
                needed.push(k);
            }
        }
    }
    needed
}

/// A concrete breadth-first search for error `label` that keeps one state
/// per abstract key (the key [`AbsGraph::locate`] looks a state up by) and
/// values of the `tracked` counter slots, at most `max_states` of them.
/// States from which no abstract path reaches the label are not expanded.
/// The inputs of the first run found to the label.
fn representative_search(
    m: &Machine,
    g: &AbsGraph,
    label: u32,
    tracked: &[usize],
    max_states: usize,
    budget: &Budget,
) -> Option<Vec<usize>> {
    use std::hash::{BuildHasher, BuildHasherDefault};
    let hasher = BuildHasherDefault::<rustc_hash::FxHasher>::default();
    let dist = g.distance_to(&[label]);
    // A state's key, kept as a hash (a collision only drops a state), if
    // some abstract path from it may still reach the label.
    let alive_key = |s: &[i32]| {
        let (key, at) = g.locate_keyed(s);
        if at.is_some_and(|a| dist[a as usize] == u32::MAX) {
            return None;
        }
        let counters: Vec<i32> = tracked.iter().map(|&c| s[c]).collect();
        Some(hasher.hash_one((key, counters)))
    };
    let width = m.state_width();
    let mut states: Vec<i32> = m.initial_state();
    let mut parent: Vec<(u32, u16)> = vec![(u32::MAX, 0)];
    let mut seen = FxHashSet::default();
    seen.extend(alive_key(&states));
    // The concrete states met, as hashes (a collision only drops a state).
    let mut met: FxHashSet<u64> = FxHashSet::default();
    met.insert(hasher.hash_one(&states));
    let mut scratch = m.scratch();
    let mut cur = vec![0; width];
    let mut next = vec![0; width];
    let mut head = 0;
    while head < parent.len() {
        if head % 1024 == 0 && budget.spent_time_or_memory().is_some() {
            return None;
        }
        cur.copy_from_slice(&states[head * width..(head + 1) * width]);
        for i in 0..m.n_inputs() {
            let Ok(o) = m.step(&mut scratch, &cur, i, &mut next) else {
                continue;
            };
            match o {
                Outcome::Error(l) if l == label => {
                    let mut path = vec![i];
                    let mut s = head;
                    while parent[s].0 != u32::MAX {
                        path.push(parent[s].1 as usize);
                        s = parent[s].0 as usize;
                    }
                    path.reverse();
                    return Some(path);
                }
                Outcome::Error(_) | Outcome::Blocked => {}
                // A state met before (an invalid input leaves it as it
                // was) is not keyed again: keying it is the search's cost.
                _ if parent.len() < max_states
                    && next != cur
                    && met.insert(hasher.hash_one(&next))
                    && alive_key(&next).is_some_and(|k| seen.insert(k)) =>
                {
                    // The states' table doubles only where the memory
                    // limit lets it.
                    if states.len() == states.capacity() && !budget.can_grow(4 * states.len()) {
                        return None;
                    }
                    states.extend_from_slice(&next);
                    parent.push((head as u32, i as u16));
                }
                _ => {}
            }
        }
        head += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::absint::bundled;
    use crate::absint::explore_abstract;
    use crate::runtime::Budget;
    use crate::system::replay;

    #[test]
    fn a_guarded_counter_is_pumped() {
        let (p, m) = bundled("reach-pump/Problem910.c");
        let g = explore_abstract(&p, &m, &Budget::unlimited()).expect("explores");
        // The abstraction joins every value of c, the initial 0 included:
        // its path to error 1 is B alone, which does not replay.
        let path = g.error_path(1).expect("an abstract path");
        let inputs: Vec<usize> = path.iter().map(|&(_, i)| i).collect();
        assert_eq!(inputs, [1]);
        assert_ne!(replay(&m, &inputs), Ok(Outcome::Error(1)));
        // Its last step passes the guard c == 20.
        let step = AbstractStep::new(&p, &m).with_congruences(g.cells.congruence.clone());
        let names: Vec<&str> = guarded_counters(&g, &step, &path, 1)
            .into_iter()
            .map(|k| m.layout().slot_names[k].as_str())
            .collect();
        assert_eq!(names, ["c"]);
        // Keyed on c, the search goes round A ten times.
        let run = counter_witness(&p, &m, &g, 1, &Budget::unlimited()).expect("a run");
        assert_eq!(replay(&m, &run), Ok(Outcome::Error(1)));
        assert_eq!(run.len(), 11);
    }

    #[test]
    fn the_net_stops_at_its_size() {
        let (p, m) = bundled("reach-pump/Problem910.c");
        let g = explore_abstract(&p, &m, &Budget::unlimited()).expect("explores");
        let path = g.error_path(1).expect("an abstract path");
        let step = AbstractStep::new(&p, &m).with_congruences(g.cells.congruence.clone());
        let tracked = guarded_counters(&g, &step, &path, 1);
        let search = |max| representative_search(&m, &g, 1, &tracked, max, &Budget::unlimited());
        // The run goes round A ten times: a net of three states cannot
        // hold it.
        assert_eq!(search(3), None);
        let run = search(1000).expect("a run");
        assert_eq!(replay(&m, &run), Ok(Outcome::Error(1)));
    }

    #[test]
    fn no_counter_no_pump() {
        // reach-arith's labels pass no counter guard: nothing to pump.
        let (p, m) = bundled("reach-arith/Problem902.c");
        let g = explore_abstract(&p, &m, &Budget::unlimited()).expect("explores");
        for l in g.error_labels() {
            assert_eq!(
                counter_witness(&p, &m, &g, l, &Budget::unlimited()),
                None,
                "label {l}"
            );
        }
    }
}
