//! The breadth-first search spread over several processes, on
//! timely-dataflow: a prototype of exploration on many machines.
//!
//! Every process runs the same program and the same number of timely
//! workers (threads). A state belongs to the worker a hash of its ints
//! names; that worker keeps it
//! in its own store with a local id and the link back to its parent.
//!
//! - *A level is a timestamp.* Candidates (a successor, and its key: the
//!   parent's owner and local id, and the input) are exchanged to their
//!   owner. Once timely's progress tracking says no candidate of the level
//!   is still in flight anywhere, the owner sorts them by key, stores those
//!   it has not seen (the least key wins, so the result is the same on
//!   every run with the same number of processes), and expands them at
//!   once: their successors are the next level's candidates, sent through
//!   the loop's feedback edge. The search ends when no candidate is in
//!   flight, which timely detects (no global barrier of our own).
//! - *Witnesses.* Each worker keeps, per label, the least (depth, key) that
//!   reaches it, and its faults. The last worker (the reporter) gathers
//!   them, then follows the parent links back from owner to owner, one
//!   exchange per step, so only the paths of the errors and faults ever
//!   travel.
//!
//! The result on the reporter is an [`Exploration`] like the others'
//! (`Links::Paths` for the sources of errors and faults), whose witnesses
//! the checkers replay before anything is claimed. The reporter is the
//! last process because it only connects to the others (timely has the
//! lower indices listen), so it can be the one a user starts last. Limits: the deadline,
//! the state limit (per process, on its own share), the memory limit and
//! cancellation stop expansion on the worker that sees them, which sends a
//! stop notice to every other worker (through the candidates' exchange,
//! heard as it arrives): every worker stops expanding, the search drains,
//! and the exploration is not complete; the answers found stay.
//! The processes connect and agree on the run in [`connect`]; a process
//! lost during the search ends the others with one error (module `lost`).

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::hash::BuildHasher;
use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rustc_hash::{FxBuildHasher, FxHashMap, FxHashSet};
use timely::communication::allocator::zero_copy::initialize::initialize_networking_from_sockets;
use timely::communication::allocator::{AllocatorBuilder, ProcessBuilder};
use timely::container::CapacityContainerBuilder as Builder;
use timely::dataflow::channels::pact::{Exchange, Pipeline};
use timely::dataflow::operators::generic::operator::Operator;
use timely::dataflow::operators::{Capability, Concat, ConnectLoop, Feedback, Input, Probe};
use timely::execute::execute_from;

pub mod connect;
pub mod local;
mod lost;

use super::bfs::{Exploration, FaultAt, Links};
use crate::runtime::{Budget, StopReason};
use crate::system::graph::StateGraph;
use crate::system::{Outcome, System};

/// Where this process stands among the others.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cluster {
    /// This process's index into `addresses`.
    pub process: usize,
    /// `host:port` of every process, in process order.
    pub addresses: Vec<String>,
    /// Worker threads in each process (at least 1; the same everywhere).
    pub threads: usize,
    /// The run this process belongs to: a token handed to every process
    /// of the run (empty when none was), compared before any state is
    /// exchanged ([`connect`]).
    pub run_id: String,
}

/// How long the processes of a cluster may take to connect to each other.
pub const CONNECT_LIMIT: Duration = Duration::from_secs(300);

/// Why the distributed search could not run.
#[derive(Debug, thiserror::Error)]
pub enum DistributedError {
    /// Timely could not connect the processes or a worker failed.
    #[error("distributed search: {0}")]
    Timely(String),
    /// A process was lost during the search (killed, its host or link
    /// gone): nothing found is claimed.
    #[error(
        "distributed search: a process was lost ({0}); the search stopped, every label unknown"
    )]
    Lost(String),
    /// The processes could not connect, or do not belong to one run.
    #[error("distributed search: {0}")]
    Connect(#[from] connect::ConnectError),
}

/// A parent's owner marking the initial state (it has no parent).
const ROOT: u32 = u32::MAX;

/// A parent's owner marking a stop notice, not a state: the worker that
/// sent it stopped at a limit (the key's input field holds its
/// [`stop_code`]), and the worker in the key's id field, which receives
/// it, stops expanding too.
const STOP: u32 = u32::MAX - 1;

/// The key of a candidate: its parent's owner and local id, and the input.
type Key = (u32, u64, u32);

/// A successor on its way to its owner.
type Candidate = (Vec<i32>, Key);

/// What one worker learned in the search.
#[derive(Default)]
struct Local {
    /// The states this worker owns.
    seen: FxHashSet<Box<[i32]>>,
    /// Parent key of each state this worker owns, by local id.
    parents: Vec<Key>,
    /// Per label, the least (depth, key) of a step reaching it.
    errors: BTreeMap<u32, (u32, Key)>,
    /// Steps that faulted: depth and key (the reporter replays them for
    /// the fault itself).
    faults: Vec<(u32, Key)>,
    transitions: u64,
    depth: u32,
    stopped: Option<StopReason>,
}

/// A worker's figures, sent to the reporter at the end.
type Summary = (u64, u64, u32, Option<u8>);

/// Explores `sys`, the program whose [`crate::ir::Program::fingerprint`]
/// is `program`, with this process as one of `cluster`'s. The processes
/// first connect and compare their run ids, programs and thread counts
/// ([`connect`]); where any differs, the run ends with an error before any
/// state is exchanged. Returns the exploration on the last process, `None`
/// on the others.
pub fn explore_distributed<S>(
    sys: Arc<S>,
    program: u64,
    cluster: &Cluster,
    budget: &Budget,
) -> Result<Option<Exploration>, DistributedError>
where
    S: System + Send + Sync + 'static,
    S::Scratch: 'static,
{
    let started = Instant::now();
    let threads = cluster.threads.max(1);
    let identity = connect::Identity {
        run: FxBuildHasher.hash_one(&cluster.run_id),
        program,
        threads: threads as u64,
    };
    let sockets = connect::connect(&cluster.addresses, cluster.process, identity, CONNECT_LIMIT)?;
    let (builders, others) = networking(sockets, cluster.process, threads)?;
    let budget = budget.clone();
    lost::prepare();
    let guards = execute_from(
        builders,
        others,
        timely::WorkerConfig::default(),
        move |worker| {
            let local = Rc::new(RefCell::new(Local::default()));
            search(worker, &sys, &budget, &local);
            gather(worker, &sys, &local, started)
        },
    )
    .map_err(DistributedError::Timely)?;
    let mut report = None;
    for result in lost::join(guards)? {
        report = report.or(result);
    }
    Ok(report)
}

/// Timely's communication over the connected `sockets`: one builder per
/// worker thread of this process, and the guard of its network threads.
fn networking(
    sockets: Vec<Option<std::net::TcpStream>>,
    process: usize,
    threads: usize,
) -> Result<(Vec<AllocatorBuilder>, Box<dyn std::any::Any + Send>), DistributedError> {
    let hooks = timely::communication::Hooks::default();
    let local =
        ProcessBuilder::new_typed_vector(threads, hooks.refill.clone(), hooks.spill.clone());
    let (builders, guard) =
        initialize_networking_from_sockets(local, sockets, process, threads, hooks)
            .map_err(|e| DistributedError::Timely(format!("cannot start the network: {e}")))?;
    let builders = builders.into_iter().map(AllocatorBuilder::Tcp).collect();
    Ok((builders, Box::new(guard)))
}

/// The owner of a state among `peers` workers.
fn owner(state: &[i32], peers: usize) -> u64 {
    // Fx's low bits are weak; the high ones choose the owner.
    (FxBuildHasher.hash_one(state) >> 32) % peers as u64
}

/// The level-synchronous search; what it learns goes to `local`.
fn search<S: System + 'static>(
    worker: &mut timely::worker::Worker,
    sys: &Arc<S>,
    budget: &Budget,
    local: &Rc<RefCell<Local>>,
) where
    S::Scratch: 'static,
{
    let me = worker.index() as u32;
    let peers = worker.peers();
    let (mut input, probe) = worker.dataflow::<u32, _, _>(|scope| {
        let (input, initial) = scope.new_input::<Vec<Candidate>>();
        let (feedback, next_level) = scope.feedback::<Vec<Candidate>>(1);
        let fresh = initial
            .concat(next_level)
            .unary_frontier::<Builder<Vec<(Vec<i32>, u64)>>, _, _, _>(
                Exchange::new(move |c: &Candidate| match c.1 {
                    (STOP, to, _) => to,
                    _ => owner(&c.0, peers),
                }),
                "Store",
                |_, _| {
                    let local = Rc::clone(local);
                    let mut pending: BTreeMap<u32, (Capability<u32>, Vec<Candidate>)> =
                        BTreeMap::new();
                    move |(input, frontier), output| {
                        input.for_each_stamp(|cap, data| {
                            let Some(cap) = cap.retain_least(output.output_index()) else {
                                return;
                            };
                            let entry = pending
                                .entry(*cap.time())
                                .or_insert_with(|| (cap, Vec::new()));
                            for batch in data {
                                // A stop notice is heard at once, not
                                // with its level.
                                let mut l = local.borrow_mut();
                                batch.retain(|c| match c.1 {
                                    (STOP, _, code) => {
                                        l.stopped.get_or_insert(stop_reason(code as u8));
                                        false
                                    }
                                    _ => true,
                                });
                                entry.1.append(batch);
                            }
                        });
                        // A level is stored once no candidate of it is in flight.
                        while let Some(time) = pending.keys().next().copied() {
                            if frontier.less_equal(&time) {
                                break;
                            }
                            let Some((cap, mut level)) = pending.remove(&time) else {
                                break;
                            };
                            level.sort_unstable_by_key(|c| c.1);
                            let mut l = local.borrow_mut();
                            let mut session = output.session(&cap);
                            for (state, key) in level {
                                if l.seen.contains(state.as_slice()) {
                                    continue;
                                }
                                l.seen.insert(state.clone().into_boxed_slice());
                                let id = l.parents.len() as u64;
                                l.parents.push(key);
                                l.depth = l.depth.max(time);
                                session.give((state, id));
                            }
                        }
                    }
                },
            );
        let (probe, fresh) = fresh.probe();
        let sys = Arc::clone(sys);
        let budget = budget.clone();
        let local = Rc::clone(local);
        let mut scratch = sys.scratch();
        let mut next = vec![0; sys.state_width()];
        let expanded =
            fresh.unary::<Builder<Vec<Candidate>>, _, _, _>(Pipeline, "Expand", |_, _| {
                move |input, output| {
                    input.for_each(|cap, data| {
                        let Some(cap) = cap.retain_least(output.output_index()) else {
                            return;
                        };
                        let depth = *cap.time();
                        let mut l = local.borrow_mut();
                        let mut session = output.session(&cap);
                        for (state, id) in data.drain(..) {
                            // The limits are looked at every few states
                            // (the memory limit reads /proc).
                            if l.stopped.is_none() && id % CHECK_EVERY == 0 {
                                let stored = l.parents.len() as u64;
                                l.stopped = budget.spent(stored.saturating_mul(peers as u64));
                                // Every other worker stops with this one.
                                if let Some(why) = l.stopped {
                                    let code = stop_code(why) as u32;
                                    session.give_iterator(
                                        (0..peers as u64)
                                            .filter(|&w| w != me as u64)
                                            .map(|w| (Vec::new(), (STOP, w, code))),
                                    );
                                }
                            }
                            if l.stopped.is_some() {
                                continue;
                            }
                            for i in 0..sys.n_inputs() {
                                let key = (me, id, i as u32);
                                l.transitions += 1;
                                match sys.step(&mut scratch, &state, i, &mut next) {
                                    Err(_) => l.faults.push((depth, key)),
                                    Ok(Outcome::Error(label)) => {
                                        let best = l.errors.entry(label).or_insert((depth, key));
                                        *best = (*best).min((depth, key));
                                    }
                                    Ok(Outcome::Blocked) => {}
                                    Ok(_) if next == state => {}
                                    // A state this worker stored already
                                    // need not travel.
                                    Ok(_)
                                        if owner(&next, peers) == me as u64
                                            && l.seen.contains(next.as_slice()) => {}
                                    Ok(_) => session.give((next.clone(), key)),
                                }
                            }
                        }
                    });
                }
            });
        expanded.connect_loop(feedback);
        (input, probe)
    });
    if me == 0 {
        input.send((sys.initial_state(), (ROOT, 0, 0)));
    }
    input.close();
    worker.step_while(|| !probe.done());
}

/// Gathers the figures, errors and faults on the reporter (the last
/// worker) and rebuilds their paths there; the exploration on the
/// reporter, `None` on the others.
fn gather<S: System>(
    worker: &mut timely::worker::Worker,
    sys: &Arc<S>,
    local: &Rc<RefCell<Local>>,
    started: Instant,
) -> Option<Exploration> {
    let l = local.borrow();
    let summary: Summary = (
        l.parents.len() as u64,
        l.transitions,
        l.depth,
        l.stopped.map(stop_code),
    );
    let errors: Vec<(u32, u32, Key)> = l.errors.iter().map(|(&lb, &(d, k))| (lb, d, k)).collect();
    let all = to_reporter(worker, (summary, errors, l.faults.clone()));
    drop(l);
    let is_reporter = worker.index() + 1 == worker.peers();
    // Per label, the least (depth, key) over every worker; then the faults.
    let mut best: BTreeMap<u32, (u32, Key)> = BTreeMap::new();
    let mut faults: Vec<(u32, Key)> = Vec::new();
    let (mut states, mut transitions, mut depth, mut stopped) = (0u64, 0u64, 0u32, None);
    for ((n, t, d, s), errors, fs) in all {
        states += n;
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
    // The states whose paths are wanted: each error's and fault's parent.
    let sources: Vec<(u32, u64)> = (best.values().map(|(_, k)| (k.0, k.1)))
        .chain(faults.iter().map(|(_, k)| (k.0, k.1)))
        .collect();
    let paths = paths_back(worker, local, if is_reporter { &sources } else { &[] });
    if !is_reporter {
        return None;
    }
    let mut ex_paths = FxHashMap::default();
    let mut errors = Vec::new();
    for (k, (&label, &(_, key))) in best.iter().enumerate() {
        ex_paths.insert(k as u32, paths[k].clone());
        errors.push((label, k as u32, key.2 as usize));
    }
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
    let graph = StateGraph {
        inputs: sys.inputs().to_vec(),
        outputs: sys.outputs().to_vec(),
        edges: Vec::new(),
        n_states: states.min(u32::MAX as u64) as u32,
        n_expanded: states.min(u32::MAX as u64) as u32,
        error_labels: sys.error_labels().to_vec(),
    };
    Some(Exploration {
        graph,
        links: Links::Paths(ex_paths),
        errors,
        faults: fault_list,
        stopped,
        transitions,
        depth,
        elapsed: started.elapsed(),
        state_bytes: 0,
        store: crate::explore::store::StateStore::new(sys.state_width()),
        pruned: 0,
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

/// States expanded between two looks at the limits.
const CHECK_EVERY: u64 = 256;

/// At most this many faults are gathered and traced back.
const MAX_FAULTS: usize = 16;

fn stop_code(s: StopReason) -> u8 {
    match s {
        StopReason::MaxStates => 0,
        StopReason::Timeout => 1,
        StopReason::MemoryLimit => 2,
        StopReason::AllErrorsFound => 3,
        StopReason::Interrupted => 4,
    }
}

fn stop_reason(c: u8) -> StopReason {
    match c {
        0 => StopReason::MaxStates,
        1 => StopReason::Timeout,
        2 => StopReason::MemoryLimit,
        3 => StopReason::AllErrorsFound,
        _ => StopReason::Interrupted,
    }
}

/// Every worker's `item`, on the reporter (in worker order); empty
/// elsewhere.
fn to_reporter<T>(worker: &mut timely::worker::Worker, item: T) -> Vec<T>
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
    input.send((me, item));
    input.close();
    worker.step_while(|| !probe.done());
    let mut all = std::mem::take(&mut *got.borrow_mut());
    all.sort_by_key(|(k, _)| *k);
    all.into_iter().map(|(_, t)| t).collect()
}

/// The input sequences from the initial state to each of `sources` (given
/// on the reporter as (owner, local id)), by following the parent links from
/// owner to owner: one exchange per step back, every path at once.
fn paths_back(
    worker: &mut timely::worker::Worker,
    local: &Rc<RefCell<Local>>,
    sources: &[(u32, u64)],
) -> Vec<Vec<usize>> {
    // (which source, owner, local id); answers: (which source, steps back, input).
    type Query = (u32, u32, u64);
    let answers: Rc<RefCell<Vec<(u32, u32, u32)>>> = Rc::default();
    let reporter = worker.peers() as u64 - 1;
    let (mut input, probe) = worker.dataflow::<u32, _, _>(|scope| {
        let (input, start) = scope.new_input::<Vec<Query>>();
        let (feedback, back) = scope.feedback::<Vec<Query>>(1);
        let local = Rc::clone(local);
        let answers_out = Rc::clone(&answers);
        let step_back = start
            .concat(back)
            .unary::<Builder<Vec<(Query, Option<(u32, u32, u32)>)>>, _, _, _>(
                Exchange::new(|q: &Query| q.1 as u64),
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
                            for (which, _, id) in data.drain(..) {
                                let (owner, parent, via) = l.parents[id as usize];
                                if owner == ROOT {
                                    continue;
                                }
                                session.give(((which, owner, parent), Some((which, steps, via))));
                            }
                        });
                    }
                },
            );
        // Answers go to the reporter; the queries go round the loop.
        let (probe, _) = step_back
            .clone()
            .unary::<Builder<Vec<()>>, _, _, _>(
                Exchange::new(move |_: &(Query, Option<(u32, u32, u32)>)| reporter),
                "Answers",
                |_, _| {
                    move |input, _output| {
                        input.for_each(|_, data| {
                            let mut a = answers_out.borrow_mut();
                            a.extend(data.drain(..).filter_map(|(_, answer)| answer));
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
                            .give_iterator(data.drain(..).map(|(q, _)| q));
                    });
                }
            })
            .connect_loop(feedback);
        (input, probe)
    });
    for (k, &(owner, id)) in sources.iter().enumerate() {
        if owner != ROOT {
            input.send((k as u32, owner, id));
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
