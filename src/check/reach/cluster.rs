//! `rigor reach` over the processes of a cluster
//! ([`crate::explore::distributed`]). The reporter (the last process)
//! builds the interval abstraction once and hands it to every process;
//! each prunes its part of the breadth-first search with it, as the search
//! in one process does, and marks where the states it left lie, so that
//! the reporter can check the certificate of what the pruning proves.
//! The abstraction's own certificate is checked on the reporter beside
//! the search.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::portfolio::{abstraction_stage, certificate_check_stage, settle_stage, PrunedSearch};
use super::{
    certificate_of, early_witnesses, reached, report, wanted_labels, ReachOptions, ReachReport,
};
use crate::absint::AbsGraph;
use crate::check::pruning::{AbstractPruner, SlotBoxes};
use crate::check::{ClusterRunError, InputError};
use crate::engine::Machine;
use crate::explore::distributed::{join, Cluster, Wanted};
use crate::runtime::Budget;
use crate::system::{replay, Outcome, System};

/// What the reporter hands to every process: the abstraction, and the
/// labels the search looks for (those the abstraction reaches and no
/// early witness settled).
#[derive(serde::Serialize, serde::Deserialize)]
struct HandedOut {
    labels: Vec<u32>,
    graph: AbsGraph,
}

/// How long the other processes wait for the abstraction when the run has
/// no deadline.
const NO_DEADLINE_WAIT: Duration = Duration::from_secs(24 * 3600);

/// The breadth-first search of the program at `path` with this process
/// as one of `cluster`'s, pruned by the abstraction unless
/// `opts.abstraction` is off (every process must agree on that). The
/// report on the last process, `None` on the others; there,
/// `opts.on_verdict` is told each reachable label as soon as the search
/// knows its shortest witness and it replays, in the order the search in
/// one process finds them. A process lost later does not take back what
/// was told.
pub fn solve_distributed(
    path: &str,
    budget: &Budget,
    cluster: &Cluster,
    opts: &ReachOptions,
) -> Result<Option<ReachReport>, ClusterRunError> {
    let p = Arc::new(crate::frontend::load(path).map_err(InputError::from)?);
    let m = Arc::new(Machine::compile(&p).map_err(InputError::from)?);
    let on_error = opts.on_verdict.as_ref().map(|sink| {
        let (m, sink) = (Arc::clone(&m), Arc::clone(sink));
        Arc::new(move |label: u32, path: &[usize]| {
            if replay(m.as_ref(), path) == Ok(Outcome::Error(label)) {
                sink(&reached(label, path, m.inputs()));
            }
        }) as crate::explore::ErrorFound
    });
    let mut wanted = Wanted {
        keep_graph: false,
        on_error,
        pruners: None,
        labels: None,
    };
    let mut joined = join(p.fingerprint(), cluster, &wanted, opts.abstraction)?;
    // Stages 1 and 2 on the reporter, while the others wait for what they
    // leave: the abstraction and the labels the search looks for.
    let mut abstraction = (opts.abstraction && joined.is_reporter())
        .then(|| abstraction_stage(&p, &m, budget, cluster.threads.max(1)));
    let mut early = Vec::new();
    let handed = match &mut abstraction {
        Some(a) => {
            let handed = (a.graph.take()).map(|graph| {
                early = early_witnesses(&p, &m, &graph, budget, wanted.on_error.as_ref());
                let labels = (wanted_labels(&m, &graph).into_iter())
                    .filter(|l| !early.iter().any(|e| e.0 == *l))
                    .collect();
                HandedOut { labels, graph }
            });
            let bytes = handed.as_ref().map(bincode::serialize).transpose();
            let bytes = bytes.map_err(ClusterRunError::HandOut)?.unwrap_or_default();
            joined.hand_out(&bytes, Instant::now())?;
            handed
        }
        None if opts.abstraction => {
            let deadline = (budget.deadline).unwrap_or_else(|| Instant::now() + NO_DEADLINE_WAIT);
            let bytes = joined.hand_out(&[], deadline)?;
            (!bytes.is_empty())
                .then(|| bincode::deserialize::<HandedOut>(&bytes))
                .transpose()
                .map_err(ClusterRunError::HandOut)?
        }
        None => None,
    };
    let (graph, labels) = match handed {
        Some(h) => (Some(Arc::new(h.graph)), h.labels),
        None => (None, Vec::new()),
    };
    // Every process prunes with the same abstraction, for the same labels.
    let boxed = graph.as_ref().and_then(|g| {
        let c = certificate_of(&p, &m, g);
        SlotBoxes::new(&p, &m, &c).map(|b| (c, b))
    });
    if let Some(g) = &graph {
        let boxes = boxed.as_ref().map(|(_, b)| b.clone());
        wanted.pruners = Some(AbstractPruner::maker(Arc::clone(g), &labels, boxes));
        // With none, the pruners leave the initial state, and the search
        // ends complete.
        wanted.labels = (!labels.is_empty()).then_some(labels);
    }
    let checker = (abstraction.as_ref())
        .and_then(|a| certificate_check_stage(&p, a, budget, path, opts.certify));
    let ex = joined.explore(Arc::clone(&m), budget, wanted)?;
    let Some(ex) = ex else {
        return Ok(None);
    };
    let mut r = report(m.as_ref(), path, &ex);
    r.pruned = ex.pruned;
    if let Some(g) = &graph {
        let pruning = AbstractPruner::pruned(&ex.marks);
        let settled = PrunedSearch {
            abstraction: (&p, g),
            early: &early,
            boxed: boxed.as_ref().filter(|_| opts.certify),
            pruning: Some(&pruning),
        };
        settled.settle(&mut r, m.as_ref(), path, budget);
    }
    if let Some(tell) = &opts.on_verdict {
        // Told again (the sink keeps the first), in case the search could
        // not tell one before it ended.
        for &(label, _, _) in &ex.errors {
            let found = r.verdicts.iter().find(|v| v.property == label);
            if let Some(v) = found.filter(|v| v.verdict.is_some()) {
                tell(v);
            }
        }
    }
    if let Some(mut a) = abstraction {
        // The search's workers, and with them their pruners, are gone.
        a.graph = graph.map(|g| Arc::try_unwrap(g).unwrap_or_else(|g| (*g).clone()));
        let check = checker.map(|c| c.wait(budget));
        settle_stage(&mut r, a, check, None, budget, opts);
    }
    Ok(Some(r))
}
