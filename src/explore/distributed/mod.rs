//! The breadth-first search spread over several processes, on
//! timely-dataflow: exploration on many machines.
//!
//! Every process runs the same program and the same number of timely
//! workers (threads). A state belongs to the worker a hash of its ints
//! names; that worker keeps it in its own tree-compressed store
//! ([`super::tree`], as the search in one process does), with a local id.
//!
//! - *A level is a timestamp*, and each level goes through four stages
//!   ([`search`]). **Store**: candidates (a successor, and its key: the
//!   global id of its parent and the input) are exchanged to their owner;
//!   once timely's progress tracking says no candidate of the level is in
//!   flight anywhere, the owner keeps the least key of each new state and
//!   stores them in key order. **Rank**: each new state's key goes to the
//!   worker that holds its parent's range of the previous level's ids,
//!   which sorts the keys it got and tells every worker how many. **Assign**:
//!   with every count, each range worker knows where its keys start among
//!   the level's, so each new state gets its global id: its rank in key
//!   order, as in the search in one process ([`super::levels`], whose ids
//!   are the breadth-first order of the lexicographically least shortest
//!   paths). **Expand**: the owner expands its states, their successors
//!   keyed by these ids, through the loop's feedback edge. The search ends
//!   when no candidate is in flight (no global barrier of our own).
//! - *Witnesses.* Each worker keeps, per label, the least (depth, key) that
//!   reaches it, and its faults; its states' global ids and parent keys
//!   are kept in a byte or two each ([`log`]). The last worker (the
//!   reporter) gathers them, then follows the parent links back, one
//!   exchange per step, so only the paths of the errors and faults ever
//!   travel. Since the ids are those of one process, so are the witnesses.
//!
//! The result on the reporter is an [`Exploration`] like the others'
//! (`Links::Paths` for the sources of errors and faults), whose witnesses
//! the checkers replay before anything is claimed. The reporter is the
//! last process because it only connects to the others (the lower indices
//! listen), so it can be the one a user starts last. Limits: the deadline,
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
use timely::execute::execute_from;

pub mod connect;
mod gather;
mod graph;
pub mod local;
mod log;
mod lost;
mod search;

use super::bfs::{ErrorFound, Exploration};
use super::tree::{Root, TreeStore};
use crate::runtime::{Budget, StopReason};
use crate::system::System;
use gather::gather;
use log::DeltaLog;
use search::search;

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
    /// gone): what was told before stands ([`Wanted::on_error`]), nothing
    /// else is claimed.
    #[error(
        "distributed search: a process was lost ({0}); the search stopped: the answers told before stand, every other is unknown"
    )]
    Lost(String),
    /// The processes could not connect, or do not belong to one run.
    #[error("distributed search: {0}")]
    Connect(#[from] connect::ConnectError),
}

/// A key's tag marking a stop notice, not a state: the worker that sent
/// it stopped at a limit (the key's input field holds its [`stop_code`]),
/// and the worker in the key's id field, which receives it, stops
/// expanding too. The keys of states have tag 0.
const STOP: u32 = u32::MAX - 1;

/// A key's tag marking a label found, not a state: the worker that sent
/// it reached the label (the candidate's first int) for the first time,
/// at the depth (its second int), by the key's parent id and input. It
/// goes to the reporter, which tells it as soon as no lesser find can
/// come and its path is known.
const FOUND: u32 = u32::MAX - 2;

/// The key of a candidate: a tag (0, or [`STOP`]), the global id of its
/// parent, and the input. Keys order the candidates as the search in one
/// process discovers them.
type Key = (u32, u64, u32);

/// A successor on its way to its owner, with its key and the packed
/// [`crate::system::Outcome`] of the step (read when the graph is kept).
type Candidate = (Vec<i32>, Key, u32);

/// An edge of the state graph as a worker learns it: the source's global
/// id, the input, the target's global id ([`NO_TARGET`] where the run
/// ends) and the packed outcome.
type GraphEdge = (u64, u32, u64, u32);

/// The packed outcome of the initial state's candidate, which no step
/// gave (no outcome packs to it).
const NO_STEP: u32 = u32::MAX;

/// The target of an edge after which the run ends (an error, a blocked
/// step, a fault).
const NO_TARGET: u64 = u64::MAX;

/// A new state's key on its way to the worker ranking its parent's range
/// of ids: that worker, the parent's global id, the input, and the state's
/// owner and local id.
type Notice = (u32, u64, u32, u32, u64);

/// How many new states a ranking worker holds, on its way to every
/// worker: to, from, count.
type Count = (u32, u32, u64);

/// A new state's global id on its way to its owner: owner, local id,
/// global id.
type Assigned = (u32, u64, u64);

/// What one worker learned in the search.
struct Local {
    /// The states this worker owns, tree-compressed (as in the search of
    /// one process).
    store: TreeStore,
    /// States stored (the next state's local id).
    stored: u64,
    /// Global id of each state this worker owns, by local id (they
    /// increase).
    ids: DeltaLog,
    /// Parent key of each state this worker owns, by local id, as one
    /// number: parent's global id times the inputs, plus the input.
    parents: DeltaLog,
    /// Inputs of the program.
    inputs: u64,
    /// The roots of each level not expanded yet, and the local id of the
    /// first.
    roots: BTreeMap<u32, (u64, Vec<Root>)>,
    /// Per level ranked here, the (owner, local id) of its new states in
    /// key order.
    ranked: BTreeMap<u32, Vec<(u32, u64)>>,
    /// Per level, the global id of its first state and its number of states.
    levels: Vec<(u64, u64)>,
    /// Per label, the least (depth, key) of a step reaching it.
    errors: BTreeMap<u32, (u32, Key)>,
    /// Steps that faulted: depth and key (the reporter replays them for
    /// the fault itself).
    faults: Vec<(u32, Key)>,
    transitions: u64,
    depth: u32,
    stopped: Option<StopReason>,
    /// Whether the other workers know that this one stopped.
    told: bool,
    /// Whether the state graph is kept (for the LTL checks): then the
    /// fields below fill.
    graph: bool,
    /// Every step that arrived here: the target's root, the source's
    /// global id, the input and the packed outcome, resolved to edges
    /// once every id is known (at the end).
    arrivals: Vec<(Root, u64, u32, u32)>,
    /// The global id of each state this worker owns, by root.
    gids: FxHashMap<Root, u64>,
    /// Edges known: those whose run ends, and self-loops, from expansion;
    /// the arrivals, resolved, at the end.
    edges: Vec<GraphEdge>,
    /// On the reporter, told of each label as soon as it is known to be
    /// the search's first find of it, with its path (the fields below
    /// fill on the reporter only).
    tell: Option<ErrorFound>,
    /// Finds sent by the workers and not told yet: depth, key, label.
    found: Vec<(u32, Key, u32)>,
    /// Finds of depths below this one have all arrived.
    found_below: u32,
    /// Labels told.
    told_labels: FxHashSet<u32>,
    /// The parent key of every state, by global id, as one number
    /// (`Local::number`), as far as the levels are ranked: the way back
    /// from any state, on the reporter.
    way: DeltaLog,
    /// Leaves states unexpanded, if the search prunes.
    pruner: Option<Box<dyn Pruner>>,
    /// On the reporter, the labels looked for, if not all: once each is
    /// told, the search stops.
    looked_for: Option<Vec<u32>>,
    /// States left unexpanded.
    pruned: u64,
}

impl Local {
    fn new(width: usize, inputs: usize, graph: bool, tell: Option<ErrorFound>) -> Local {
        Local {
            store: TreeStore::new(width),
            stored: 0,
            ids: DeltaLog::default(),
            parents: DeltaLog::default(),
            inputs: inputs.max(1) as u64,
            roots: BTreeMap::new(),
            ranked: BTreeMap::new(),
            levels: Vec::new(),
            errors: BTreeMap::new(),
            faults: Vec::new(),
            transitions: 0,
            depth: 0,
            stopped: None,
            told: false,
            graph,
            arrivals: Vec::new(),
            gids: FxHashMap::default(),
            edges: Vec::new(),
            tell,
            found: Vec::new(),
            found_below: 0,
            told_labels: FxHashSet::default(),
            way: DeltaLog::default(),
            pruner: None,
            looked_for: None,
            pruned: 0,
        }
    }

    /// Takes in a candidate of a level still in flight: a stop notice is
    /// heard at once; a state stored before is dropped (its step kept when
    /// the graph is); else its root keeps the least key in `level`.
    fn arrive(&mut self, (state, key, packed): Candidate, level: &mut FxHashMap<Root, Key>) {
        if let (STOP, _, code) = key {
            self.stopped.get_or_insert(stop_reason(code as u8));
            // The sender told every worker.
            self.told = true;
            return;
        }
        if key.0 == FOUND {
            if let [label, depth] = state[..] {
                self.found.push((depth as u32, key, label as u32));
            }
            return;
        }
        let Some(root) = self.store.root_of(&state) else {
            self.stopped.get_or_insert(StopReason::MemoryLimit);
            return;
        };
        if self.graph && packed != NO_STEP {
            if self.arrivals.try_reserve(1).is_err() {
                self.stopped.get_or_insert(StopReason::MemoryLimit);
                return;
            }
            self.arrivals.push((root, key.1, key.2, packed));
        }
        if self.store.contains(root) {
            return;
        }
        let best = level.entry(root).or_insert(key);
        *best = (*best).min(key);
    }

    /// A parent key as one number ([`Local::parents`]).
    fn number(&self, (_, parent, input): Key) -> u128 {
        parent as u128 * self.inputs as u128 + input as u128
    }

    /// The parent's global id and the input of the state with local id
    /// `id`.
    fn parent(&self, id: u64) -> (u64, u32) {
        let n = self.parents.get(id);
        (
            (n / self.inputs as u128) as u64,
            (n % self.inputs as u128) as u32,
        )
    }

    /// Records an edge found in expansion; where memory runs out, the
    /// edge is lost and the search stops (its source then counts as not
    /// expanded).
    fn edge(&mut self, edge: GraphEdge) {
        if self.edges.try_reserve(1).is_err() {
            self.stopped.get_or_insert(StopReason::MemoryLimit);
        } else {
            self.edges.push(edge);
        }
    }

    /// Every edge this worker knows, once every state's global id is: the
    /// arrivals resolved (in place; a step whose target was never stored,
    /// at a limit, is dropped), and the edges found in expansion. The
    /// graph's fields are left empty.
    fn take_edges(&mut self) -> [Vec<GraphEdge>; 2] {
        let gids = std::mem::take(&mut self.gids);
        let arrivals = std::mem::take(&mut self.arrivals);
        // The same size: collected in the arrivals' own memory.
        let resolved = (arrivals.into_iter())
            .filter_map(|(root, source, input, packed)| {
                Some((source, input, *gids.get(&root)?, packed))
            })
            .collect();
        [resolved, std::mem::take(&mut self.edges)]
    }

    /// Tells the finds that are first finds of their label, in the order
    /// of one process's search ((depth, key)), as long as each is
    /// complete (no lesser find can still come) and its path is known;
    /// once every label looked for is told, the search stops.
    fn tell_found(&mut self) {
        let Some(tell) = self.tell.clone() else {
            self.found.clear();
            return;
        };
        self.found.sort_unstable();
        let mut done = 0;
        for &(depth, (_, source, input), label) in &self.found {
            if depth >= self.found_below {
                break;
            }
            if !self.told_labels.contains(&label) {
                let Some(mut path) = self.path_to(source) else {
                    break;
                };
                path.push(input as usize);
                self.told_labels.insert(label);
                tell(label, &path);
            }
            done += 1;
        }
        self.found.drain(..done);
        let looked_for = self.looked_for.as_deref().unwrap_or_default();
        if self.looked_for.is_some() && looked_for.iter().all(|l| self.told_labels.contains(l)) {
            self.stopped.get_or_insert(StopReason::AllErrorsFound);
        }
    }

    /// The inputs from the initial state to the state of global id `id`
    /// by [`Local::way`], if its level is ranked there.
    fn path_to(&self, mut id: u64) -> Option<Vec<usize>> {
        let mut path = Vec::new();
        while id != 0 {
            if id >= self.way.len() || path.len() as u64 >= self.way.len() {
                return None;
            }
            let n = self.way.get(id);
            path.push((n % self.inputs as u128) as usize);
            id = (n / self.inputs as u128) as u64;
        }
        path.reverse();
        Some(path)
    }

    /// Heap bytes of the states and the way back.
    fn store_bytes(&self) -> u64 {
        (self.store.heap_bytes() + self.ids.heap_bytes() + self.parents.heap_bytes()) as u64
    }
}

/// A worker's figures, sent to the reporter at the end: states,
/// transitions, depth, why it stopped, the bytes of its store, and the
/// states it left unexpanded.
type Summary = (u64, u64, u32, Option<u8>, u64, u64);

/// What a distributed search keeps and whom it tells.
#[derive(Clone, Default)]
pub struct Wanted {
    /// Keep the state graph, every edge, gathered on the last process.
    pub keep_graph: bool,
    /// Told, on the last process, of each label the moment the search's
    /// first find of it is known, with its path (shortest, the one the
    /// search in one process finds), in the order one process finds
    /// them.
    pub on_error: Option<ErrorFound>,
    /// Makes each worker's [`Pruner`]: the states it prunes are stored but
    /// not expanded (then the graph cannot be kept).
    pub pruners: Option<MakePruner>,
    /// The labels looked for, if not all: with `on_error`, the search stops
    /// ([`StopReason::AllErrorsFound`]) once each was told.
    pub labels: Option<Vec<u32>>,
}

/// Leaves states of a distributed search unexpanded, marking each one it
/// leaves; every worker has its own.
pub trait Pruner {
    /// Whether `state` need not be expanded (then it is marked).
    fn prune(&mut self, state: &[i32]) -> bool;
    /// The marks of the states left so far: numbers whose meaning the
    /// maker gives them. The reporter's exploration has every worker's,
    /// merged ([`Exploration::marks`]).
    fn marks(&self) -> Vec<u64>;
}

/// Makes a worker's [`Pruner`].
pub type MakePruner = Arc<dyn Fn() -> Box<dyn Pruner> + Send + Sync>;

/// A process connected to the others of its cluster, which all agreed to
/// belong to one run ([`connect`]), before the search.
pub struct Joined {
    sockets: Vec<Option<std::net::TcpStream>>,
    process: usize,
    threads: usize,
    started: Instant,
}

/// Connects this process to the others of `cluster`, which must run the
/// program whose [`crate::ir::Program::fingerprint`] is `program` and want
/// the same of the search (`wanted`'s graph and telling, and `pruned`:
/// whether the search will be given pruners); where anything differs, the
/// run ends with an error before any state is exchanged.
pub fn join(
    program: u64,
    cluster: &Cluster,
    wanted: &Wanted,
    pruned: bool,
) -> Result<Joined, DistributedError> {
    let started = Instant::now();
    let threads = cluster.threads.max(1);
    let identity = connect::Identity {
        run: FxBuildHasher.hash_one(&cluster.run_id),
        // A search that keeps the graph, tells finds or prunes exchanges
        // other things: all must agree.
        program: FxBuildHasher.hash_one((
            program,
            wanted.keep_graph,
            wanted.on_error.is_some(),
            pruned,
        )),
        threads: threads as u64,
    };
    let sockets = connect::connect(&cluster.addresses, cluster.process, identity, CONNECT_LIMIT)?;
    Ok(Joined {
        sockets,
        process: cluster.process,
        threads,
        started,
    })
}

impl Joined {
    /// Whether this process is the reporter (the last), which gathers the
    /// search's results.
    pub fn is_reporter(&self) -> bool {
        self.process + 1 == self.sockets.len()
    }

    /// Hands the reporter's `bytes` to every process: the reporter sends
    /// them (and gets them back), the others wait for them until
    /// `deadline` and return them.
    pub fn hand_out(
        &mut self,
        bytes: &[u8],
        deadline: Instant,
    ) -> Result<Vec<u8>, DistributedError> {
        Ok(connect::hand_out(
            &mut self.sockets,
            self.process,
            bytes,
            deadline,
        )?)
    }

    /// The search of `sys` on the joined processes, keeping and telling
    /// what `wanted` says (the same `wanted` as [`join`]'s): with the
    /// graph, the exploration's graph has every edge, as the search in one
    /// process gives it. Returns the exploration on the last process,
    /// `None` on the others.
    pub fn explore<S>(
        self,
        sys: Arc<S>,
        budget: &Budget,
        wanted: Wanted,
    ) -> Result<Option<Exploration>, DistributedError>
    where
        S: System + Send + Sync + 'static,
        S::Scratch: 'static,
    {
        let Joined {
            sockets,
            process,
            threads,
            started,
        } = self;
        let (builders, others) = networking(sockets, process, threads)?;
        let budget = budget.clone();
        let telling = wanted.on_error.is_some();
        lost::prepare();
        let guards = execute_from(
            builders,
            others,
            timely::WorkerConfig::default(),
            move |worker| {
                let (width, inputs) = (sys.state_width(), sys.n_inputs());
                let reporter = worker.index() + 1 == worker.peers();
                let tell = wanted.on_error.clone().filter(|_| reporter);
                let keep_graph = wanted.keep_graph && wanted.pruners.is_none();
                let mut local = Local::new(width, inputs, keep_graph, tell);
                local.pruner = wanted.pruners.as_ref().map(|make| make());
                local.looked_for = wanted.labels.clone().filter(|_| reporter);
                let local = Rc::new(RefCell::new(local));
                search(worker, &sys, &budget, &local, telling);
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
}

/// Explores `sys`, the program whose [`crate::ir::Program::fingerprint`]
/// is `program`, with this process as one of `cluster`'s: [`join`], then
/// [`Joined::explore`]. Returns the exploration on the last process,
/// `None` on the others.
pub fn explore_distributed<S>(
    sys: Arc<S>,
    program: u64,
    cluster: &Cluster,
    budget: &Budget,
    wanted: Wanted,
) -> Result<Option<Exploration>, DistributedError>
where
    S: System + Send + Sync + 'static,
    S::Scratch: 'static,
{
    let pruned = wanted.pruners.is_some();
    join(program, cluster, &wanted, pruned)?.explore(sys, budget, wanted)
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
