//! The end of the distributed search: every worker's figures, errors and
//! faults gathered on the reporter, and the paths to them traced back
//! through the workers that own their states.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Instant;

use rustc_hash::FxHashMap;
use timely::container::CapacityContainerBuilder as Builder;
use timely::dataflow::channels::pact::{Exchange, Pipeline};
use timely::dataflow::operators::generic::operator::Operator;
use timely::dataflow::operators::{Concat, ConnectLoop, Feedback, Input, Probe};

use super::graph::{edges_to_reporter, Layout};
use super::{stop_code, stop_reason, Key, Local, Summary, MAX_FAULTS};
use crate::explore::bfs::{bytes_per_state, Exploration, FaultAt, Links};
use crate::runtime::StopReason;
use crate::system::graph::StateGraph;
use crate::system::System;

/// Gathers the figures, errors and faults on the reporter (the last
/// worker) and rebuilds their paths there; the exploration on the
/// reporter, `None` on the others.
pub(super) fn gather<S: System>(
    worker: &mut timely::worker::Worker,
    sys: &Arc<S>,
    local: &Rc<RefCell<Local>>,
    started: Instant,
) -> Option<Exploration> {
    let l = local.borrow();
    let summary: Summary = (
        l.stored,
        l.transitions,
        l.depth,
        l.stopped.map(stop_code),
        l.store_bytes(),
        l.pruned,
    );
    let errors: Vec<(u32, u32, Key)> = l.errors.iter().map(|(&lb, &(d, k))| (lb, d, k)).collect();
    let marks = l.pruner.as_ref().map(|p| p.marks()).unwrap_or_default();
    let all = to_reporter(worker, [(summary, errors, l.faults.clone(), marks)]);
    let keep_graph = l.graph;
    drop(l);
    let is_reporter = worker.index() + 1 == worker.peers();
    // Per label, the least (depth, key) over every worker; then the faults.
    let mut best: BTreeMap<u32, (u32, Key)> = BTreeMap::new();
    let mut faults: Vec<(u32, Key)> = Vec::new();
    let (mut states, mut transitions, mut depth, mut stopped) = (0u64, 0u64, 0u32, None);
    let (mut bytes, mut pruned, mut all_marks) = (0u64, 0u64, Vec::new());
    for ((n, t, d, s, b, p), errors, fs, marks) in all {
        states += n;
        pruned += p;
        all_marks.extend(marks);
        bytes += b;
        transitions += t;
        depth = depth.max(d);
        stopped = stopped.or(s.map(stop_reason));
        for (label, d, key) in errors {
            let e = best.entry(label).or_insert((d, key));
            *e = (*e).min((d, key));
        }
        faults.extend(fs);
    }
    faults.sort();
    faults.truncate(MAX_FAULTS);
    // The graph's edges, laid out on the reporter as they come.
    let layout = (keep_graph && is_reporter).then(|| Layout::new(states, sys.n_inputs()));
    let (layout, unlaid) = match layout {
        Some(Ok(layout)) => (Some(layout), None),
        Some(Err(why)) => (None, Some(why)),
        None => (None, None),
    };
    let layout = keep_graph.then(|| {
        let edges = local.borrow_mut().take_edges();
        edges_to_reporter(worker, edges, layout)
    });
    // The states whose paths are wanted: each error's and fault's parent.
    let sources: Vec<u64> = (best.values().map(|(_, k)| k.1))
        .chain(faults.iter().map(|(_, k)| k.1))
        .collect();
    let paths = paths_back(worker, local, if is_reporter { &sources } else { &[] });
    if !is_reporter {
        return None;
    }
    let mut ex_paths = FxHashMap::default();
    let mut errors = Vec::new();
    for (k, (&label, &(depth, key))) in best.iter().enumerate() {
        ex_paths.insert(k as u32, paths[k].clone());
        errors.push(((depth, key), (label, k as u32, key.2 as usize)));
    }
    // In the order the search in one process finds them.
    errors.sort_unstable();
    let errors = errors.into_iter().map(|(_, e)| e).collect();
    let mut fault_list = Vec::new();
    for (j, (_, key)) in faults.into_iter().enumerate() {
        let id = (best.len() + j) as u32;
        let path = &paths[best.len() + j];
        match fault_of(sys.as_ref(), path, key.2 as usize) {
            Some(fault) => fault_list.push(FaultAt {
                state: id,
                input: key.2 as usize,
                fault,
            }),
            // Cannot happen with a deterministic step; if it does, the
            // search claims nothing complete.
            None => stopped = stopped.or(Some(StopReason::Interrupted)),
        }
        ex_paths.insert(id, path.clone());
    }
    let mut graph = StateGraph {
        inputs: sys.inputs().to_vec(),
        outputs: sys.outputs().to_vec(),
        edges: Vec::new(),
        n_states: states.min(u32::MAX as u64) as u32,
        n_expanded: states.min(u32::MAX as u64) as u32,
        error_labels: sys.error_labels().to_vec(),
    };
    if let Some(layout) = layout.flatten() {
        let whole = stopped.is_none() && fault_list.is_empty();
        layout.finish(&mut graph);
        // A search that stopped nowhere has every edge; if one is
        // missing, nothing is claimed complete.
        if whole && !graph.is_complete() {
            stopped = Some(StopReason::Interrupted);
        }
    }
    if let Some(why) = unlaid {
        graph.n_expanded = 0;
        stopped = stopped.or(Some(why));
    }
    Some(Exploration {
        graph,
        links: Links::Paths(ex_paths),
        errors,
        faults: fault_list,
        stopped,
        transitions,
        depth,
        elapsed: started.elapsed(),
        state_bytes: bytes_per_state(bytes, states),
        store: crate::explore::store::StateStore::new(sys.state_width()),
        pruned,
        marks: {
            all_marks.sort_unstable();
            all_marks.dedup();
            all_marks
        },
    })
}

/// The fault of the step on `input` after `path` from the initial state,
/// if that step faults.
fn fault_of<S: System>(sys: &S, path: &[usize], input: usize) -> Option<crate::system::Fault> {
    let mut scratch = sys.scratch();
    let mut state = sys.initial_state();
    let mut next = vec![0; sys.state_width()];
    for &i in path {
        sys.step(&mut scratch, &state, i, &mut next).ok()?;
        std::mem::swap(&mut state, &mut next);
    }
    sys.step(&mut scratch, &state, input, &mut next).err()
}

/// Every worker's `items`, on the reporter (in worker order, each
/// worker's in the order given); empty elsewhere.
fn to_reporter<T>(worker: &mut timely::worker::Worker, items: impl IntoIterator<Item = T>) -> Vec<T>
where
    T: timely::ExchangeData + Clone,
{
    let got: Rc<RefCell<Vec<(usize, T)>>> = Rc::default();
    let me = worker.index();
    let reporter = worker.peers() as u64 - 1;
    let (mut input, probe) = worker.dataflow::<u32, _, _>(|scope| {
        let (input, stream) = scope.new_input::<Vec<(usize, T)>>();
        let got = Rc::clone(&got);
        let (probe, _) = stream
            .unary::<Builder<Vec<()>>, _, _, _>(
                Exchange::new(move |_: &(usize, T)| reporter),
                "Gather",
                |_, _| {
                    move |input, _output| {
                        input.for_each(|_, data| got.borrow_mut().append(data));
                    }
                },
            )
            .probe();
        (input, probe)
    });
    for item in items {
        input.send((me, item));
    }
    input.close();
    worker.step_while(|| !probe.done());
    let mut all = std::mem::take(&mut *got.borrow_mut());
    // Stable: one worker's items arrive in the order it sent them.
    all.sort_by_key(|(k, _)| *k);
    all.into_iter().map(|(_, t)| t).collect()
}

/// The input sequences from the initial state to each of `sources` (global
/// ids, given on the reporter), by following the parent links: one
/// exchange per step back, every path at once. A state's owner is not
/// known from its id, so each query goes to every worker, and its owner
/// answers.
fn paths_back(
    worker: &mut timely::worker::Worker,
    local: &Rc<RefCell<Local>>,
    sources: &[u64],
) -> Vec<Vec<usize>> {
    // (to, which source, global id); answers: (which source, steps back, input).
    type Query = (u32, u32, u64);
    type Answer = (u32, u32, u32);
    let answers: Rc<RefCell<Vec<Answer>>> = Rc::default();
    let peers = worker.peers() as u32;
    let reporter = peers as u64 - 1;
    let (mut input, probe) = worker.dataflow::<u32, _, _>(|scope| {
        let (input, start) = scope.new_input::<Vec<Query>>();
        let (feedback, back) = scope.feedback::<Vec<Query>>(1);
        let local = Rc::clone(local);
        let answers_out = Rc::clone(&answers);
        let step_back = start
            .concat(back)
            .unary::<Builder<Vec<(Answer, u64)>>, _, _, _>(
                Exchange::new(|q: &Query| q.0 as u64),
                "Parent",
                |_, _| {
                    move |input, output| {
                        input.for_each(|cap, data| {
                            let Some(cap) = cap.retain_least(output.output_index()) else {
                                return;
                            };
                            let steps = *cap.time();
                            let l = local.borrow();
                            let mut session = output.session(&cap);
                            for (_, which, global) in data.drain(..) {
                                // The initial state has no parent; the
                                // other workers do not own the state.
                                if global == 0 {
                                    continue;
                                }
                                let Some(id) = l.ids.find(global as u128) else {
                                    continue;
                                };
                                let (parent, via) = l.parent(id);
                                session.give(((which, steps, via), parent));
                            }
                        });
                    }
                },
            );
        // Answers go to the reporter; the parents' queries go round the loop.
        let (probe, _) = step_back
            .clone()
            .unary::<Builder<Vec<()>>, _, _, _>(
                Exchange::new(move |_: &(Answer, u64)| reporter),
                "Answers",
                |_, _| {
                    move |input, _output| {
                        input.for_each(|_, data| {
                            let mut a = answers_out.borrow_mut();
                            a.extend(data.drain(..).map(|(answer, _)| answer));
                        });
                    }
                },
            )
            .probe();
        step_back
            .unary::<Builder<Vec<Query>>, _, _, _>(Pipeline, "Next", |_, _| {
                move |input, output| {
                    input.for_each(|cap, data| {
                        let Some(cap) = cap.retain_least(output.output_index()) else {
                            return;
                        };
                        output
                            .session(&cap)
                            .give_iterator((data.drain(..)).flat_map(|((which, _, _), parent)| {
                                (0..peers).map(move |to| (to, which, parent))
                            }));
                    });
                }
            })
            .connect_loop(feedback);
        (input, probe)
    });
    for (k, &global) in sources.iter().enumerate() {
        for to in 0..peers {
            input.send((to, k as u32, global));
        }
    }
    input.close();
    worker.step_while(|| !probe.done());
    let mut paths = vec![Vec::new(); sources.len()];
    let mut answers = std::mem::take(&mut *answers.borrow_mut());
    answers.sort_unstable();
    for (which, _, via) in answers.into_iter().rev() {
        paths[which as usize].push(via as usize);
    }
    paths
}
