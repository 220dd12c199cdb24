//! Back from a labelled transition system to the input/output
//! [`StateGraph`] every other checker reads (reachability, LTL), for
//! systems with the labelling of [`super::from_program`]: `.dot` Mealy
//! machines and exported `.aut` files.
//!
//! From the initial state, a *program state* has edges labelled with inputs,
//! each to an intermediate state with exactly one edge: an output to the next
//! program state, `error` (invalid input) or `error_N` (error label N) to a
//! state without successors. An input a program state lacks is a blocked
//! step (no run goes that way). Silent steps (an input edge straight to a
//! program state) cannot be told apart and are rejected.

use std::collections::{HashMap, VecDeque};

use super::{Adjacency, LabelledGraph};
use crate::system::{Outcome, StateGraph, ERROR_LABEL, NO_STATE};

/// Where a labelled transition system is not an alternating input/output
/// system.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct NotInputOutput(pub String);

/// Converts an alternating system; the error says where it is not one.
/// Program states are numbered in breadth-first order from the initial
/// state, inputs and outputs in order of first appearance.
pub fn to_state_graph(lts: &(impl LabelledGraph + ?Sized)) -> Result<StateGraph, NotInputOutput> {
    let fail = |m: String| Err(NotInputOutput(m));
    if !lts.is_complete() {
        return fail("the system is partial".into());
    }
    let adj = Adjacency::new(lts);
    let labels = lts.label_names();
    let mut inputs: Vec<String> = Vec::new();
    let mut outputs: Vec<String> = Vec::new();
    let mut input_ix: HashMap<u32, usize> = HashMap::new();
    let mut output_ix: HashMap<u32, u16> = HashMap::new();
    let mut id: HashMap<u32, u32> = HashMap::new();
    let mut order = vec![lts.initial()];
    id.insert(lts.initial(), 0);
    let mut queue = VecDeque::from([lts.initial()]);
    // rows[s] = (input index, target program state or NO_STATE, outcome)
    let mut rows: Vec<Vec<(usize, u32, Outcome)>> = Vec::new();
    while let Some(p) = queue.pop_front() {
        let mut row = Vec::new();
        for &(il, m) in adj.succ(p) {
            let out = adj.succ(m);
            if out.len() != 1 {
                return fail(format!(
                    "state {m} (after input {} from state {p}) has {} edges; expected one output edge",
                    labels[il as usize],
                    out.len()
                ));
            }
            let n_in = input_ix.len();
            let i = *input_ix.entry(il).or_insert_with(|| {
                inputs.push(labels[il as usize].clone());
                n_in
            });
            if row.iter().any(|&(j, _, _)| j == i) {
                return fail(format!("state {p} has two `{}` edges", inputs[i]));
            }
            let (ol, t) = out[0];
            let name = &labels[ol as usize];
            let error_n = name
                .strip_prefix("error_")
                .and_then(|n| n.parse::<u32>().ok());
            let outcome = if name == ERROR_LABEL || error_n.is_some() {
                if !adj.succ(t).is_empty() {
                    return fail(format!("state {t} after `{name}` has successors"));
                }
                row.push((
                    i,
                    NO_STATE,
                    error_n.map_or(Outcome::Invalid, Outcome::Error),
                ));
                continue;
            } else {
                let n_out = output_ix.len() as u16;
                Outcome::Output(*output_ix.entry(ol).or_insert_with(|| {
                    outputs.push(name.clone());
                    n_out
                }))
            };
            let next = order.len() as u32;
            let tid = *id.entry(t).or_insert_with(|| {
                order.push(t);
                queue.push_back(t);
                next
            });
            row.push((i, tid, outcome));
        }
        rows.push(row);
    }
    if output_ix.keys().any(|k| input_ix.contains_key(k)) {
        return fail("a label is used both as an input and as an output".into());
    }
    let dense: Vec<Vec<(u32, Outcome)>> = rows
        .into_iter()
        .map(|row| {
            let mut d = vec![(NO_STATE, Outcome::Blocked); inputs.len()];
            for (i, t, o) in row {
                d[i] = (t, o);
            }
            d
        })
        .collect();
    Ok(StateGraph::from_rows(inputs, outputs, &dense))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lts::{from_graph, LtsBuilder};

    #[test]
    fn program_graph_round_trips() {
        let g = StateGraph::from_rows(
            vec!["A".into(), "B".into()],
            vec!["X".into(), "Y".into()],
            &[
                vec![(1, Outcome::Output(0)), (NO_STATE, Outcome::Invalid)],
                vec![(NO_STATE, Outcome::Error(4)), (0, Outcome::Output(1))],
            ],
        );
        let back = to_state_graph(&from_graph(&g, true)).unwrap();
        assert_eq!(back.inputs, g.inputs);
        assert_eq!(back.outputs, g.outputs);
        assert_eq!(back.edges, g.edges);
    }

    #[test]
    fn rejects_non_alternating() {
        let mut b = LtsBuilder::new();
        b.edge(0, "a", 1);
        b.edge(1, "x", 2);
        b.edge(1, "y", 0);
        assert!(to_state_graph(&b.finish()).is_err());
        let mut b = LtsBuilder::new();
        b.edge(0, "a", 1);
        b.edge(1, "a", 0);
        assert!(to_state_graph(&b.finish()).unwrap_err().0.contains("both"));
    }
}
