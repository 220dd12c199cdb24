//! The level-synchronous search as a timely dataflow: per level, Store,
//! Rank, Assign and Expand (the stages the module's documentation
//! describes), each waiting until no item of the level is in flight to
//! it, the last feeding the next level back to the first.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;

use rustc_hash::FxHashMap;
use timely::container::CapacityContainerBuilder as Builder;
use timely::dataflow::channels::pact::Exchange;
use timely::dataflow::operators::generic::operator::Operator;
use timely::dataflow::operators::{Capability, Concat, ConnectLoop, Feedback, Input, Probe};
use timely::dataflow::StreamVec;

use super::{
    owner, stop_code, Assigned, Candidate, Count, Key, Local, Notice, CHECK_EVERY, FOUND, NO_STEP,
    NO_TARGET, STOP,
};
use crate::explore::tree::{Probe as Looks, Root, Seen};
use crate::runtime::{Budget, StopReason};
use crate::system::{Outcome, System};

/// Items of the levels an operator has seen and not finished.
type Pending<T> = BTreeMap<u32, (Capability<u32>, T)>;

/// The least pending level, taken out once `in_flight` says nothing of it
/// can still arrive.
fn ready<T>(
    pending: &mut Pending<T>,
    in_flight: impl Fn(&u32) -> bool,
) -> Option<(u32, Capability<u32>, T)> {
    let time = *pending.keys().next()?;
    if in_flight(&time) {
        return None;
    }
    let (cap, items) = pending.remove(&time)?;
    Some((time, cap, items))
}

/// Adds `batches` of the level `cap` stands for to `pending`.
fn hold<T, I: IntoIterator<Item = T>>(
    pending: &mut Pending<Vec<T>>,
    cap: Capability<u32>,
    batches: impl Iterator<Item = I>,
) {
    let entry = pending
        .entry(*cap.time())
        .or_insert_with(|| (cap, Vec::new()));
    for batch in batches {
        entry.1.extend(batch);
    }
}

/// The search; what it learns goes to `local`.
///
/// With `telling` (the same on every process), the reporter also keeps
/// the way back to every state ([`way`]) and tells each label's first
/// find as soon as it is known ([`Local::tell_found`]).
pub(super) fn search<S: System + 'static>(
    worker: &mut timely::worker::Worker,
    sys: &Arc<S>,
    budget: &Budget,
    local: &Rc<RefCell<Local>>,
    telling: bool,
) where
    S::Scratch: 'static,
{
    let me = worker.index() as u32;
    let peers = worker.peers();
    let reporter = peers as u64 - 1;
    let (mut input, probe) = worker.dataflow::<u32, _, _>(|scope| {
        let (input, initial) = scope.new_input::<Vec<Candidate>>();
        let (feedback, next_level) = scope.feedback::<Vec<Candidate>>(1);
        let notices = initial
            .concat(next_level)
            .unary_frontier::<Builder<Vec<Notice>>, _, _, _>(
                Exchange::new(move |c: &Candidate| match c.1 {
                    (STOP, to, _) => to,
                    (FOUND, _, _) => reporter,
                    _ => owner(&c.0, peers),
                }),
                "Store",
                |_, _| {
                    let local = Rc::clone(local);
                    // Per level, the least key of each new state's root.
                    let mut pending: Pending<FxHashMap<Root, Key>> = BTreeMap::new();
                    move |(input, frontier), output| {
                        input.for_each_stamp(|cap, data| {
                            let Some(cap) = cap.retain_least(output.output_index()) else {
                                return;
                            };
                            let entry = pending
                                .entry(*cap.time())
                                .or_insert_with(|| (cap, FxHashMap::default()));
                            let mut l = local.borrow_mut();
                            for batch in data {
                                for candidate in batch.drain(..) {
                                    l.arrive(candidate, &mut entry.1);
                                }
                            }
                        });
                        while let Some((time, cap, level)) =
                            ready(&mut pending, |t| frontier.less_equal(t))
                        {
                            let mut l = local.borrow_mut();
                            let mut session = output.session(&cap);
                            session.give_iterator(
                                store_level(&mut l, time, level, me, peers).into_iter(),
                            );
                            // Every find of the levels before is in.
                            l.found_below = time;
                            l.tell_found();
                        }
                    }
                },
            );
        if telling {
            way(&notices, local, reporter);
        }
        let counts = notices.unary_frontier::<Builder<Vec<Count>>, _, _, _>(
            Exchange::new(|n: &Notice| n.0 as u64),
            "Rank",
            |_, _| {
                let local = Rc::clone(local);
                let mut pending: Pending<Vec<Notice>> = BTreeMap::new();
                move |(input, frontier), output| {
                    input.for_each_stamp(|cap, data| {
                        if let Some(cap) = cap.retain_least(output.output_index()) {
                            hold(&mut pending, cap, data.map(|b| b.drain(..)));
                        }
                    });
                    while let Some((time, cap, mut level)) =
                        ready(&mut pending, |t| frontier.less_equal(t))
                    {
                        // Key order: the parent's id, then the input.
                        level.sort_unstable_by_key(|n| (n.1, n.2));
                        let count = level.len() as u64;
                        let order = level.into_iter().map(|n| (n.3, n.4)).collect();
                        local.borrow_mut().ranked.insert(time, order);
                        output
                            .session(&cap)
                            .give_iterator((0..peers as u32).map(|to| (to, me, count)));
                    }
                }
            },
        );
        let assigned = counts.unary_frontier::<Builder<Vec<Assigned>>, _, _, _>(
            Exchange::new(|c: &Count| c.0 as u64),
            "Assign",
            |_, _| {
                let local = Rc::clone(local);
                let mut pending: Pending<Vec<Count>> = BTreeMap::new();
                move |(input, frontier), output| {
                    input.for_each_stamp(|cap, data| {
                        if let Some(cap) = cap.retain_least(output.output_index()) {
                            hold(&mut pending, cap, data.map(|b| b.drain(..)));
                        }
                    });
                    while let Some((time, cap, counts)) =
                        ready(&mut pending, |t| frontier.less_equal(t))
                    {
                        let mut l = local.borrow_mut();
                        let start = assign_level(&mut l, time, &counts, me);
                        let order = l.ranked.remove(&time).unwrap_or_default();
                        output.session(&cap).give_iterator(
                            (order.into_iter().enumerate())
                                .map(|(k, (owner, id))| (owner, id, start + k as u64)),
                        );
                    }
                }
            },
        );
        let sys = Arc::clone(sys);
        let budget = budget.clone();
        let local = Rc::clone(local);
        let mut expander = Expander::new(sys.as_ref(), me, peers);
        let expanded = assigned.unary_frontier::<Builder<Vec<Candidate>>, _, _, _>(
            Exchange::new(|a: &Assigned| a.0 as u64),
            "Expand",
            |_, _| {
                let mut pending: Pending<Vec<(u64, u64)>> = BTreeMap::new();
                move |(input, frontier), output| {
                    input.for_each_stamp(|cap, data| {
                        if let Some(cap) = cap.retain_least(output.output_index()) {
                            let batches = data.map(|b| b.drain(..).map(|(_, id, g)| (id, g)));
                            hold(&mut pending, cap, batches);
                        }
                    });
                    while let Some((time, cap, mut level)) =
                        ready(&mut pending, |t| frontier.less_equal(t))
                    {
                        level.sort_unstable();
                        let mut l = local.borrow_mut();
                        let mut session = output.session(&cap);
                        let mut give = |c: Candidate| session.give(c);
                        expander.level(sys.as_ref(), &budget, &mut l, time, &level, &mut give);
                    }
                }
            },
        );
        let (probe, expanded) = expanded.probe();
        expanded.connect_loop(feedback);
        (input, probe)
    });
    if me == 0 {
        input.send((sys.initial_state(), (0, 0, 0), NO_STEP));
    }
    input.close();
    worker.step_while(|| !probe.done());
}

/// The reporter's copy of every new state's key, appended level by level
/// in key order (that is, in global id order) to [`Local::way`], after
/// which the finds waiting for their path are told.
fn way(notices: &StreamVec<'_, u32, Notice>, local: &Rc<RefCell<Local>>, reporter: u64) {
    notices.clone().unary_frontier::<Builder<Vec<()>>, _, _, _>(
        Exchange::new(move |_: &Notice| reporter),
        "Way",
        |_, _| {
            let local = Rc::clone(local);
            let mut pending: Pending<Vec<(u64, u32)>> = BTreeMap::new();
            move |(input, frontier), output| {
                input.for_each_stamp(|cap, data| {
                    if let Some(cap) = cap.retain_least(output.output_index()) {
                        hold(
                            &mut pending,
                            cap,
                            data.map(|b| b.drain(..).map(|n| (n.1, n.2))),
                        );
                    }
                });
                while let Some((_, _, mut level)) = ready(&mut pending, |t| frontier.less_equal(t))
                {
                    level.sort_unstable();
                    let mut l = local.borrow_mut();
                    for (parent, input) in level {
                        let n = l.number((0, parent, input));
                        if !l.way.push(n) {
                            l.stopped.get_or_insert(StopReason::MemoryLimit);
                            break;
                        }
                    }
                    l.tell_found();
                }
            }
        },
    );
}

/// Stores the new states of level `time` (their roots with the least key
/// of each) in key order, and returns the notices of their keys for the
/// workers that rank them.
fn store_level(
    l: &mut Local,
    time: u32,
    level: FxHashMap<Root, Key>,
    me: u32,
    peers: usize,
) -> Vec<Notice> {
    let mut level: Vec<(Key, Root)> = level.into_iter().map(|(r, k)| (k, r)).collect();
    level.sort_unstable();
    // The previous level's ids, cut into one range per worker.
    let (base, n) = match time {
        0 => (0, 1),
        _ => l.levels.get(time as usize - 1).copied().unwrap_or((0, 1)),
    };
    let first = l.stored;
    let mut roots = Vec::new();
    let mut notices = Vec::new();
    for (key, root) in level {
        if l.store.contains(root) {
            continue;
        }
        let number = l.number(key);
        if roots.try_reserve(1).is_err() || !l.store.insert(root) || !l.parents.push(number) {
            l.stopped.get_or_insert(StopReason::MemoryLimit);
            break;
        }
        roots.push(root);
        let range = ((key.1.saturating_sub(base)) as u128 * peers as u128 / n.max(1) as u128)
            .min(peers as u128 - 1) as u32;
        notices.push((range, key.1, key.2, me, l.stored));
        l.stored += 1;
        l.depth = l.depth.max(time);
    }
    if !roots.is_empty() {
        l.roots.insert(time, (first, roots));
    }
    notices
}

/// Records level `time`'s first global id and size from every ranking
/// worker's `counts`; returns the global id of the first state this
/// worker ranked.
fn assign_level(l: &mut Local, time: u32, counts: &[Count], me: u32) -> u64 {
    let base = match time {
        0 => 0,
        _ => (l.levels.get(time as usize - 1)).map_or(0, |(b, n)| b + n),
    };
    let size: u64 = counts.iter().map(|c| c.2).sum();
    let before: u64 = counts.iter().filter(|c| c.1 < me).map(|c| c.2).sum();
    if l.levels.len() <= time as usize {
        l.levels.resize(time as usize + 1, (0, 0));
    }
    l.levels[time as usize] = (base, size);
    base + before
}

/// The expansion of a worker's states, with its scratch memory.
struct Expander<S: System> {
    scratch: S::Scratch,
    state: Vec<i32>,
    next: Vec<i32>,
    looks: Looks,
    me: u32,
    peers: usize,
}

impl<S: System> Expander<S> {
    fn new(sys: &S, me: u32, peers: usize) -> Self {
        Expander {
            scratch: sys.scratch(),
            state: vec![0; sys.state_width()],
            next: vec![0; sys.state_width()],
            looks: Looks::default(),
            me,
            peers,
        }
    }

    /// Records the global ids of level `time`'s states (`level`: local
    /// id and global id, in local id order) and expands them, giving each
    /// successor that may be new, or a stop notice for every other worker
    /// once this one stops.
    fn level(
        &mut self,
        sys: &S,
        budget: &Budget,
        l: &mut Local,
        time: u32,
        level: &[(u64, u64)],
        give: &mut impl FnMut(Candidate),
    ) {
        let (first, roots) = l.roots.remove(&time).unwrap_or_default();
        if l.graph {
            let known = level.iter().filter_map(|&(id, global)| {
                let root = roots.get(id.checked_sub(first)? as usize)?;
                Some((*root, global))
            });
            if l.gids.try_reserve(level.len()).is_err() {
                l.stopped.get_or_insert(StopReason::MemoryLimit);
            } else {
                l.gids.extend(known);
            }
        }
        for &(id, global) in level {
            // Every state stored gets its id, in local id order; if one
            // were missing, no way back could be trusted.
            if l.ids.len() != id {
                l.stopped.get_or_insert(StopReason::Interrupted);
            } else if !l.ids.push(global as u128) {
                l.stopped.get_or_insert(StopReason::MemoryLimit);
            }
            // The limits are looked at every few states (the memory
            // limit reads /proc).
            if l.stopped.is_none() && id % CHECK_EVERY == 0 {
                l.stopped = budget.spent(l.stored.saturating_mul(self.peers as u64));
            }
            if let (Some(why), false) = (l.stopped, l.told) {
                l.told = true;
                let code = stop_code(why) as u32;
                for w in (0..self.peers as u64).filter(|&w| w != self.me as u64) {
                    give((Vec::new(), (STOP, w, code), NO_STEP));
                }
            }
            if l.stopped.is_some() {
                continue;
            }
            let Some(&root) = id.checked_sub(first).and_then(|k| roots.get(k as usize)) else {
                continue;
            };
            self.expand(sys, l, time, root, global, give);
        }
    }

    /// Expands the state with root `root` and global id `global`.
    fn expand(
        &mut self,
        sys: &S,
        l: &mut Local,
        depth: u32,
        root: Root,
        global: u64,
        give: &mut impl FnMut(Candidate),
    ) {
        l.store.decode(root, &mut self.state);
        if let Some(pruner) = l.pruner.as_mut() {
            if pruner.prune(&self.state) {
                l.pruned += 1;
                return;
            }
        }
        for i in 0..sys.n_inputs() {
            let key = (0, global, i as u32);
            l.transitions += 1;
            let step = sys.step(&mut self.scratch, &self.state, i, &mut self.next);
            // Where the run ends or stays, the edge is known here.
            let ends = |o: Outcome| (global, i as u32, NO_TARGET, o.pack());
            match step {
                Err(_) => {
                    l.faults.push((depth, key));
                    if l.graph {
                        l.edge(ends(Outcome::Blocked));
                    }
                }
                Ok(o @ Outcome::Error(label)) => {
                    // This worker's first find of the label is its least:
                    // the reporter hears of it at once.
                    if !l.errors.contains_key(&label) {
                        let found = vec![label as i32, depth as i32];
                        give((found, (FOUND, global, i as u32), NO_STEP));
                    }
                    let best = l.errors.entry(label).or_insert((depth, key));
                    *best = (*best).min((depth, key));
                    if l.graph {
                        l.edge(ends(o));
                    }
                }
                Ok(o @ Outcome::Blocked) if l.graph => l.edge(ends(o)),
                Ok(Outcome::Blocked) => {}
                Ok(o) if self.next == self.state => {
                    if l.graph {
                        l.edge((global, i as u32, global, o.pack()));
                    }
                }
                // A state this worker stored already need not travel
                // (unless the edge to it is wanted: its id is known at
                // the end only).
                Ok(_)
                    if !l.graph
                        && owner(&self.next, self.peers) == self.me as u64
                        && l.store
                            .look_near(&self.next, &self.state, root, &mut self.looks)
                            == Seen::Stored => {}
                Ok(o) => give((self.next.clone(), key, o.pack())),
            }
        }
    }
}
