//! `rigor ltl` over several processes: the state graph explored by the
//! distributed search ([`crate::explore::distributed`]), gathered on the
//! last process, and checked there as one process checks its own.

use std::sync::Arc;

use super::{check_explored, exploration_budget, Checking, LtlOptions, LtlReport, Teller};
use super::{AbstractionReport, InputError};
use crate::check::ClusterRunError;
use crate::engine::Machine;
use crate::explore::distributed::{explore_distributed, Cluster, Wanted};
use crate::ltl::syntax::read_properties;
use crate::runtime::Budget;

/// The LTL properties at `properties` of the program at `program`, with
/// this process as one of `cluster`'s: the breadth-first search spread
/// over the processes keeps the state graph (the same ids and edges as the
/// search in one process), the last process gathers it, reduces it to its
/// trace quotient and checks every property, telling `opts.on_verdict`
/// each verdict as it is settled. No abstraction: every property is
/// settled on the explored graph, every counterexample replayed on the
/// program. The report on the last process, `None` on the others.
pub fn solve_distributed(
    program: &str,
    properties: &str,
    budget: &Budget,
    cluster: &Cluster,
    opts: &LtlOptions,
) -> Result<Option<LtlReport>, ClusterRunError> {
    // Every process reads the properties: a file one cannot read stops
    // the run before it starts, on every host.
    let props = read_properties(properties).map_err(InputError::from)?;
    let p = crate::frontend::load(program).map_err(InputError::from)?;
    let m = Arc::new(Machine::compile(&p).map_err(InputError::from)?);
    let explore_budget = exploration_budget(budget);
    let ex = explore_distributed(
        Arc::clone(&m),
        p.fingerprint(),
        cluster,
        &explore_budget,
        Wanted {
            keep_graph: true,
            on_error: None,
            pruners: None,
            labels: None,
        },
    )?;
    let Some(ex) = ex else {
        return Ok(None);
    };
    let threads = opts.checking_threads();
    let c = Checking {
        sys: m.as_ref(),
        props: &props,
        invalid_continues: crate::ltl::check::invalid_continues(p.step_return),
        budget,
        opts,
        threads,
    };
    let teller = Teller::new(
        opts.on_verdict.as_ref(),
        vec![false; props.properties.len()],
    );
    let r = LtlReport::new(program, properties, AbstractionReport::default());
    let mut r = check_explored(&c, r, None, ex, &|v| teller.tell(v));
    r.peak_memory = crate::runtime::peak_resident_bytes();
    Ok(Some(r))
}
