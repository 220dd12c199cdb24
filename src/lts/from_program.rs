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

use std::collections::HashMap;

use super::labelled::LabelledGraph;
use super::{Lts, LtsState, Transition};
use crate::system::{error_n_label, IoGraph, Outcome, StateGraph, ERROR_LABEL, NO_STATE};

/// The labelled transition system of an input/output graph (an explored
/// program, or the abstraction of one), as a view: the graph is not
/// copied; the view holds the label names and the numbering of the
/// intermediate states (see the module doc for the labelling). States
/// `0..n` are the graph's; the intermediate states and the one dead state
/// follow in the order the steps are listed.
#[derive(Clone, Debug)]
pub struct ProgramLts<G> {
    graph: G,
    complete: bool,
    labels: Vec<String>,
    /// The label of each input and output (`u32::MAX`: never used).
    input_label: Vec<u32>,
    output_label: Vec<u32>,
    /// The label of an invalid input, `error`, and of each error label N.
    invalid_label: u32,
    error_label: HashMap<u32, u32>,
    n_states: u32,
    n_transitions: usize,
}

/// Label names interned in first-use order.
#[derive(Default)]
struct Names {
    names: Vec<String>,
    index: HashMap<String, u32>,
}

impl Names {
    fn intern(&mut self, name: &str) -> u32 {
        if let Some(&i) = self.index.get(name) {
            return i;
        }
        let i = self.names.len() as u32;
        self.names.push(name.to_string());
        self.index.insert(name.to_string(), i);
        i
    }
}

impl<G: IoGraph> ProgramLts<G> {
    /// The view of `graph`; incomplete when the graph is, or when
    /// `complete` is false (the exploration that built it stopped early or
    /// faulted).
    pub fn new(graph: G, complete: bool) -> ProgramLts<G> {
        let (inputs, outputs) = (graph.input_names(), graph.output_names());
        let mut names = Names::default();
        let mut input_label = vec![u32::MAX; inputs.len()];
        let mut output_label = vec![u32::MAX; outputs.len()];
        let mut invalid_label = u32::MAX;
        let mut error_label = HashMap::new();
        let (mut intermediate, mut dead, mut n_transitions) = (0u32, 0u32, 0usize);
        let mut unfollowed = false;
        for s in 0..graph.state_count() {
            graph.for_each_step(s, &mut |i, o, t| {
                if o == Outcome::Blocked {
                    return;
                }
                if t == NO_STATE && o.continues_trace() {
                    // A step the exploration could not follow (a fault).
                    unfollowed = true;
                    return;
                }
                if input_label[i] == u32::MAX {
                    input_label[i] = names.intern(&inputs[i]);
                }
                n_transitions += 1;
                match o {
                    Outcome::Output(k) if output_label[k as usize] == u32::MAX => {
                        output_label[k as usize] = names.intern(&outputs[k as usize]);
                    }
                    Outcome::Invalid => {
                        dead = 1;
                        if invalid_label == u32::MAX {
                            invalid_label = names.intern(ERROR_LABEL);
                        }
                    }
                    Outcome::Error(n) => {
                        dead = 1;
                        error_label
                            .entry(n)
                            .or_insert_with(|| names.intern(&error_n_label(n)));
                    }
                    _ => {}
                }
                if o != Outcome::Silent {
                    intermediate += 1;
                    n_transitions += 1;
                }
            });
        }
        let complete = complete && graph.all_expanded() && !unfollowed;
        ProgramLts {
            n_states: graph.state_count().max(1) + intermediate + dead,
            graph,
            complete,
            labels: names.names,
            input_label,
            output_label,
            invalid_label,
            error_label,
            n_transitions,
        }
    }
}

impl<G: IoGraph> LabelledGraph for ProgramLts<G> {
    fn n_states(&self) -> u32 {
        self.n_states
    }

    fn initial(&self) -> LtsState {
        0
    }

    fn label_names(&self) -> Vec<String> {
        self.labels.clone()
    }

    fn for_each_transition(&self, f: &mut dyn FnMut(Transition)) {
        let mut next = self.graph.state_count().max(1);
        let mut dead = None;
        for from in 0..self.graph.state_count() {
            self.graph.for_each_step(from, &mut |i, o, t| {
                let input = self.input_label[i];
                let (label, to) = match o {
                    Outcome::Blocked => return,
                    _ if t == NO_STATE && o.continues_trace() => return,
                    Outcome::Silent => {
                        return f(Transition {
                            from,
                            label: input,
                            to: t,
                        })
                    }
                    Outcome::Output(k) => (self.output_label[k as usize], t),
                    Outcome::Invalid | Outcome::Error(_) => {
                        let label = match o {
                            Outcome::Error(n) => self.error_label[&n],
                            _ => self.invalid_label,
                        };
                        (
                            label,
                            *dead.get_or_insert_with(|| post_increment(&mut next)),
                        )
                    }
                };
                let m = post_increment(&mut next);
                f(Transition {
                    from,
                    label: input,
                    to: m,
                });
                f(Transition { from: m, label, to });
            });
        }
    }

    fn is_complete(&self) -> bool {
        self.complete
    }

    fn n_transitions(&self) -> usize {
        self.n_transitions
    }
}

/// `*x`, then `x` one more.
fn post_increment(x: &mut u32) -> u32 {
    *x += 1;
    *x - 1
}

/// The labelled system of an explored graph, copied into an [`Lts`]
/// (see [`ProgramLts`] for the view that copies nothing).
pub fn from_graph(g: &StateGraph, complete: bool) -> Lts {
    ProgramLts::new(g, complete).to_lts()
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
