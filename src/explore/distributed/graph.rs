//! The state graph of a distributed search, for the LTL checks: every
//! worker's edges go to the reporter in rounds, and the reporter lays each
//! out, as it arrives, in the graph of the search in one process (the ids
//! being the same, so is the graph).

use std::cell::RefCell;
use std::rc::Rc;

use timely::container::CapacityContainerBuilder as Builder;
use timely::dataflow::channels::pact::Exchange;
use timely::dataflow::operators::generic::operator::Operator;
use timely::dataflow::operators::{Input, Probe};

use super::{GraphEdge, NO_STEP, NO_TARGET};
use crate::runtime::StopReason;
use crate::system::graph::{Edge, StateGraph, StateId, NO_STATE};

/// Edges a worker sends per round: at most a round of every worker's is
/// in flight at once.
const ROUND: usize = 1 << 16;

/// The edges of a graph of known size, filled in as they come.
pub(super) struct Layout {
    /// `inputs` slots per state, in state order; a slot no edge filled
    /// yet has the packed outcome [`NO_STEP`].
    edges: Vec<Edge>,
    states: u64,
    inputs: usize,
}

impl Layout {
    /// Room for `states` states of `inputs` edges each; fails where that
    /// does not fit in memory or in 32-bit ids.
    pub(super) fn new(states: u64, inputs: usize) -> Result<Layout, StopReason> {
        let size = usize::try_from(states)
            .ok()
            .filter(|_| states < NO_STATE as u64)
            .and_then(|n| n.checked_mul(inputs))
            .ok_or(StopReason::MemoryLimit)?;
        let mut edges = Vec::new();
        if edges.try_reserve_exact(size).is_err() {
            return Err(StopReason::MemoryLimit);
        }
        let unset = Edge {
            target: NO_STATE,
            packed: NO_STEP,
        };
        edges.resize(size, unset);
        Ok(Layout {
            edges,
            states,
            inputs,
        })
    }

    /// Puts `edge` in its slot; an edge out of range, or a second edge for
    /// a slot, is dropped.
    pub(super) fn place(&mut self, (source, input, target, packed): GraphEdge) {
        let target = match target {
            NO_TARGET => NO_STATE,
            t if t < self.states => t as StateId,
            _ => return,
        };
        if source >= self.states || input as usize >= self.inputs || packed == NO_STEP {
            return;
        }
        let slot = &mut self.edges[source as usize * self.inputs + input as usize];
        if slot.packed == NO_STEP {
            *slot = Edge { target, packed };
        }
    }

    /// The edges into `graph`: its expanded states are the longest prefix
    /// of ids whose every edge came (a search stopped at a limit expanded
    /// some states of its last levels only).
    pub(super) fn finish(mut self, graph: &mut StateGraph) {
        let inputs = self.inputs.max(1);
        let expanded = (self.edges.chunks(inputs))
            .position(|state| state.iter().any(|e| e.packed == NO_STEP))
            .unwrap_or(self.states as usize);
        self.edges.truncate(expanded * self.inputs);
        graph.edges = self.edges;
        graph.n_expanded = expanded as StateId;
    }
}

/// Sends `edges` to the reporter (the last worker), in rounds of
/// [`ROUND`]; the reporter, which passes its `layout`, places every
/// worker's there and gets it back. Every worker takes part.
pub(super) fn edges_to_reporter(
    worker: &mut timely::worker::Worker,
    edges: [Vec<GraphEdge>; 2],
    layout: Option<Layout>,
) -> Option<Layout> {
    let reporter = worker.peers() as u64 - 1;
    let layout = Rc::new(RefCell::new(layout));
    let (mut input, probe) = worker.dataflow::<u32, _, _>(|scope| {
        let (input, stream) = scope.new_input::<Vec<GraphEdge>>();
        let layout = Rc::clone(&layout);
        let (probe, _) = stream
            .unary::<Builder<Vec<()>>, _, _, _>(
                Exchange::new(move |_: &GraphEdge| reporter),
                "Edges",
                |_, _| {
                    move |input, _output| {
                        input.for_each(|_, data| {
                            if let Some(l) = layout.borrow_mut().as_mut() {
                                data.drain(..).for_each(|e| l.place(e));
                            }
                        });
                    }
                },
            )
            .probe();
        (input, probe)
    });
    let rounds = edges.iter().flat_map(|part| part.chunks(ROUND));
    for (round, chunk) in rounds.enumerate() {
        for &edge in chunk {
            input.send(edge);
        }
        // The next round waits until this one has been placed.
        input.advance_to(round as u32 + 1);
        worker.step_while(|| probe.less_than(input.time()));
    }
    input.close();
    worker.step_while(|| !probe.done());
    let layout = layout.borrow_mut().take();
    layout
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::system::Outcome;

    /// A graph of no edges yet, on inputs a and b.
    fn empty() -> StateGraph {
        StateGraph {
            inputs: vec!["a".into(), "b".into()],
            ..StateGraph::default()
        }
    }

    fn out() -> u32 {
        Outcome::Output(0).pack()
    }

    /// The graph of `states` states from `edges`.
    fn laid_out(states: u64, edges: &[GraphEdge]) -> StateGraph {
        let mut g = empty();
        let mut layout = Layout::new(states, 2).unwrap();
        edges.iter().for_each(|&e| layout.place(e));
        layout.finish(&mut g);
        g
    }

    #[test]
    fn edges_arriving_in_any_order_make_the_graph_in_state_order() {
        let error = Outcome::Error(7).pack();
        let g = laid_out(
            2,
            &[
                (1, 1, NO_TARGET, error),
                (0, 1, 1, out()),
                (1, 0, 1, out()),
                (0, 0, 0, out()),
            ],
        );
        assert_eq!((g.n_expanded, g.edges.len()), (2, 4));
        assert_eq!(g.edge(0, 1).target, 1);
        assert_eq!(g.edge(1, 1).target, NO_STATE);
        assert_eq!(g.edge(1, 1).outcome(), Outcome::Error(7));
    }

    #[test]
    fn only_the_prefix_of_states_with_every_edge_counts_as_expanded() {
        // State 1 lacks an edge; state 2 has both but comes after it.
        let edges = [
            (0, 0, 1, out()),
            (0, 1, 2, out()),
            (1, 0, 2, out()),
            (2, 0, 2, out()),
            (2, 1, 0, out()),
        ];
        let g = laid_out(3, &edges);
        assert_eq!((g.n_expanded, g.edges.len()), (1, 2));
        assert!(!g.is_complete());
    }

    #[test]
    fn an_edge_out_of_range_or_twice_is_dropped() {
        let edges = [
            (0, 0, 1, out()),
            (0, 0, 0, out()),
            (0, 1, 9, out()),
            (5, 0, 0, out()),
            (0, 7, 0, out()),
        ];
        let g = laid_out(2, &edges);
        assert_eq!(g.n_expanded, 0, "state 0's input b has no edge in range");
        let g = laid_out(1, &[(0, 0, 0, out()), (0, 1, 0, out())]);
        assert_eq!(g.n_expanded, 1);
        assert_eq!(g.edge(0, 0).target, 0);
    }

    #[test]
    fn a_graph_too_large_for_its_ids_is_refused() {
        assert!(Layout::new(u32::MAX as u64, 1).is_err());
        assert!(Layout::new(3, 2).is_ok());
    }
}
