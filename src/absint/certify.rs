//! The abstraction as a certificate: its states as regions over the
//! program's variables, named as in the source, for the independent checker
//! ([`crate::certificate::check`]).

use super::graph::AbsGraph;
use crate::certificate::{Bound, Certificate, Congruence, Edge, EdgeStep, Region, Var};
use crate::engine::{Machine, Storage};
use crate::ir::{GlobalKind, Program};
use crate::system::{Outcome, StateId, NO_STATE};

/// A state slot's variable and, if it holds a pointer, the arrays it may
/// point to where they are known (`Some(None)` where not).
type SlotVar<'a> = (Var, Option<Option<&'a [i32]>>);

/// The certificate that `unreachable` (labels no abstract edge reaches)
/// cannot be reached and that the LTL properties `holds` (which the
/// abstraction proved) hold: one region per abstract state, its successors
/// as the hint, the congruences the abstraction relied on, and with LTL
/// claims the abstract edges with their inputs and outputs.
pub fn certificate(
    p: &Program,
    m: &Machine,
    g: &AbsGraph,
    unreachable: &[u32],
    holds: &[String],
) -> Certificate {
    let layout = m.layout();
    // Per state slot: its variable, and what a pointer may point to.
    let mut slots: Vec<Option<SlotVar>> = vec![None; layout.state_width as usize];
    let targets = super::analysis::pointer_targets(p);
    // Globals outside the state: their fixed values, in every region.
    let mut fixed: Vec<Bound> = Vec::new();
    let var = |name: &str, index| Var {
        name: name.to_string(),
        index,
    };
    for (i, global) in p.globals.iter().enumerate() {
        let pointer = matches!(global.kind, GlobalKind::Pointer { .. });
        let points = pointer.then(|| targets[i].as_deref());
        match (layout.storage[i], &global.kind) {
            (Storage::State(a), _) => slots[a as usize] = Some((var(&global.name, None), points)),
            (Storage::Const(v), _) if pointer => fixed.push(Bound::PointsTo(
                var(&global.name, None),
                vec![p.globals[v as usize].name.clone()],
            )),
            (Storage::Const(v), _) => {
                fixed.push(Bound::Range(var(&global.name, None), v as i64, v as i64))
            }
            (Storage::Array { base, len }, GlobalKind::Array { init, .. }) => {
                if base < layout.state_width {
                    for k in 0..len {
                        slots[(base + k) as usize] =
                            Some((var(&global.name, Some(k as usize)), None));
                    }
                } else {
                    for (k, v) in init.iter().enumerate() {
                        fixed.push(Bound::Range(
                            var(&global.name, Some(k)),
                            *v as i64,
                            *v as i64,
                        ));
                    }
                }
            }
            // Temporaries are assigned before they are read: any value.
            _ => {}
        }
    }
    let regions = (0..g.n_states())
        .map(|s| {
            let mut bounds = fixed.clone();
            for (x, slot) in g.values[s].iter().zip(&slots) {
                let Some((v, pointer)) = slot else { continue };
                if let Some(known) = pointer {
                    // The hull of a pointer's arrays holds only those.
                    let ids: Vec<i64> = match known {
                        Some(t) => (t.iter().map(|&id| id as i64))
                            .filter(|id| (x.lo..=x.hi).contains(id))
                            .collect(),
                        None => (x.lo..=x.hi).collect(),
                    };
                    let arrays = (ids.into_iter())
                        .filter_map(|id| p.globals.get(id as usize).map(|a| a.name.clone()))
                        .collect();
                    bounds.push(Bound::PointsTo(v.clone(), arrays));
                } else if x.lo > i32::MIN as i64 || x.hi < i32::MAX as i64 {
                    bounds.push(Bound::Range(v.clone(), x.lo, x.hi));
                }
            }
            // An invalid input that stored nothing stays in this region.
            let mut next: Vec<usize> = (g.edges[s].iter())
                .filter_map(|e| e.successor(s as StateId))
                .map(|t| t as usize)
                .collect();
            next.sort_unstable();
            next.dedup();
            let mut edges: Vec<Edge> = Vec::new();
            if !holds.is_empty() {
                for e in &g.edges[s] {
                    let (step, target) = match (e.outcome(), e.target) {
                        (Outcome::Error(_) | Outcome::Blocked, _) => continue,
                        // An invalid input that stored nothing: the state
                        // stays in this region.
                        (Outcome::Invalid, NO_STATE) => (EdgeStep::Unchanged, s),
                        (_, NO_STATE) => continue,
                        (Outcome::Output(k), t) => {
                            (EdgeStep::Output(g.outputs[k as usize].clone()), t as usize)
                        }
                        (Outcome::Silent, t) => (EdgeStep::Silent, t as usize),
                        (Outcome::Invalid, t) => (EdgeStep::Invalid, t as usize),
                    };
                    edges.push(Edge {
                        input: g.inputs[e.input as usize].clone(),
                        step,
                        target,
                    });
                }
                edges.sort_unstable();
                edges.dedup();
            }
            Region {
                bounds,
                next,
                edges,
            }
        })
        .collect();
    let congruences = (g.cells.congruence.iter().zip(&slots))
        .filter_map(|(c, slot)| {
            let ((modulus, rest), (var, _)) = ((*c)?, slot.as_ref()?);
            (modulus >= 2).then(|| Congruence {
                var: var.clone(),
                modulus,
                rest,
            })
        })
        .collect();
    Certificate {
        unreachable: unreachable.to_vec(),
        holds: holds.to_vec(),
        congruences,
        regions,
        // A string variable's value is its string's number here.
        strings: (p.strings.iter().enumerate())
            .map(|(id, text)| (id as i64, text.clone()))
            .collect(),
    }
}
