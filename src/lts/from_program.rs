//! The labelled transition system of an explored program.
//!
//! This is the one place where the labelling of `rers-semantics.md`
//! ("Action-based CTL") is implemented:
//!
//! - program state `s` is LTS state `s` (so the initial state is 0);
//! - a step on input `i` printing output `o` is `s --i--> m --o--> t`, with a
//!   fresh intermediate state `m` per (state, input);
//! - an invalid input is `s --i--> m --error--> dead`, where `dead` is one
//!   shared state without successors (the valid run ends there);
//! - reaching error label N (`__VERIFIER_error(N)`) is
//!   `s --i--> m --error_N--> dead`: the run ends too;
//! - a silent step (2012 `return -1`) is `s --i--> t`, with no output edge;
//! - a blocked step (failed `__VERIFIER_assume`) has no edge at all.
//!
//! A state the exploration did not expand has no edges, and the system is
//! then marked incomplete.

use super::{Lts, LtsBuilder};
use crate::system::{error_n_label, Outcome, StateGraph, ERROR_LABEL};

/// The system of an explored graph (see the module doc for the labelling);
/// incomplete when the graph is, or when `complete` is false (the
/// exploration that built it stopped early or faulted).
pub fn from_graph(g: &StateGraph, complete: bool) -> Lts {
    let mut b = LtsBuilder::new();
    b.ensure_states(g.n_states.max(1));
    b.initial(0);
    // Labels are interned in first-use order, as a `.aut` reader sees them.
    let mut dead = None;
    let n_inputs = g.n_inputs();
    if !complete
        || !g.is_complete()
        || (g.n_expanded > 0 && g.edges.len() < g.n_expanded as usize * n_inputs)
    {
        b.incomplete();
    }
    if g.edges.len() < g.n_expanded as usize * n_inputs {
        // The exploration did not keep its edges: nothing to convert.
        return b.finish();
    }
    for s in 0..g.n_expanded {
        for (i, e) in g.edges_of(s).iter().enumerate() {
            let input = &g.inputs[i];
            let end = match e.outcome() {
                Outcome::Blocked => continue,
                Outcome::Silent => {
                    b.edge(s, input, e.target);
                    continue;
                }
                Outcome::Output(k) => (g.outputs[k as usize].clone(), e.target),
                Outcome::Invalid => (
                    ERROR_LABEL.to_string(),
                    *dead.get_or_insert_with(|| b.state()),
                ),
                Outcome::Error(n) => (error_n_label(n), *dead.get_or_insert_with(|| b.state())),
            };
            let m = b.state();
            b.edge(s, input, m);
            b.edge(m, &end.0, end.1);
        }
    }
    b.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::system::NO_STATE;

    #[test]
    fn labelling_follows_the_semantics_doc() {
        let g = StateGraph::from_rows(
            vec!["A".into(), "B".into()],
            vec!["X".into(), "Y".into()],
            &[
                vec![(1, Outcome::Output(0)), (0, Outcome::Invalid)],
                vec![(NO_STATE, Outcome::Error(7)), (NO_STATE, Outcome::Blocked)],
            ],
        );
        let l = from_graph(&g, true);
        assert!(l.complete);
        let show: Vec<(u32, &str, u32)> = l
            .transitions
            .iter()
            .map(|t| (t.from, l.labels[t.label as usize].as_str(), t.to))
            .collect();
        // states 0,1 program; 2 = mid(0,A); 3 = dead; 4 = mid(0,B); 5 = mid(1,A)
        assert_eq!(
            show,
            vec![
                (0, "A", 2),
                (2, "X", 1),
                (0, "B", 4),
                (4, "error", 3),
                (1, "A", 5),
                (5, "error_7", 3)
            ]
        );
    }
}
