//! Certificates for the labels a pruned exploration proves unreachable.
//!
//! The breadth-first search of `check::reach` leaves unexpanded the states
//! whose abstract state reaches no label still looked for. When it ends,
//! the labels it never found are unreachable, but that rests on the
//! abstraction for the states it skipped. This module makes that claim
//! checkable:
//!
//! - the explored states are a complete exploration (every successor of an
//!   expanded state was stored, and those not expanded were pruned);
//! - every pruned state is checked, as the search prunes it, to lie in the
//!   certificate region of its abstract state ([`SlotBoxes`]: the region's
//!   bounds and the congruences read directly on the engine's state slots,
//!   not through the abstraction);
//! - the regions of those abstract states and every region their hints
//!   lead to form a certificate ([`closure`]) that the independent checker
//!   accepts without initiation ([`crate::certificate::check_closed`]):
//!   closed under the step and never stepping to the labels or a fault.
//!
//! Together: every reachable state is explored or lies in a region of the
//! closure, and no step from either reaches the labels.

use std::collections::BTreeSet;
use std::sync::Arc;

use super::certify::PendingCheck;

use crate::absint::{AbsGraph, AbstractGuide};
use crate::certificate::{Bound, Certificate, Region, SecondReading};
use crate::engine::{Machine, Storage};
use crate::explore::distributed::{MakePruner, Pruner};
use crate::explore::{Estimate, Guide};
use crate::ir::{GlobalKind, Program};

/// The regions of a certificate as intervals on the engine's state slots.
#[derive(Clone)]
pub struct SlotBoxes {
    /// Per region: (slot, lo, hi); `None` for a region no state lies in
    /// (a bound on a constant that the constant breaks).
    regions: Vec<Option<Vec<(usize, i64, i64)>>>,
    /// (slot, modulus, rest) of every congruence on a state slot.
    congruences: Vec<(usize, i64, i64)>,
}

impl SlotBoxes {
    /// The boxes of `c` for the compiled program `m` of `p`; `None` where a
    /// bound cannot be read on a state (a pointer bound, a variable the
    /// program does not have or keeps in no slot, a congruence broken by a
    /// constant).
    pub fn new(p: &Program, m: &Machine, c: &Certificate) -> Option<SlotBoxes> {
        let layout = m.layout();
        // Where each variable is: a state slot, or a fixed value.
        enum At {
            Slot(usize),
            Fixed(i64),
        }
        let find = |name: &str, index: Option<usize>| -> Option<At> {
            let g = p.globals.iter().position(|g| g.name == name)?;
            match (layout.storage[g], &p.globals[g].kind, index) {
                (Storage::State(a), GlobalKind::Scalar { .. }, None) => Some(At::Slot(a as usize)),
                (Storage::Const(v), GlobalKind::Scalar { .. }, None) => Some(At::Fixed(v as i64)),
                (Storage::Array { base, len }, GlobalKind::Array { init, .. }, Some(k))
                    if (k as u32) < len =>
                {
                    if base < layout.state_width {
                        Some(At::Slot((base + k as u32) as usize))
                    } else {
                        init.get(k).map(|&v| At::Fixed(v as i64))
                    }
                }
                _ => None,
            }
        };
        let mut congruences = Vec::new();
        for k in &c.congruences {
            match find(&k.var.name, k.var.index)? {
                At::Slot(s) => congruences.push((s, k.modulus, k.rest)),
                At::Fixed(v) if v.rem_euclid(k.modulus) == k.rest => {}
                At::Fixed(_) => return None,
            }
        }
        let regions = (c.regions.iter())
            .map(|r: &Region| {
                let mut slots = Vec::new();
                let mut empty = false;
                for b in &r.bounds {
                    let Bound::Range(var, lo, hi) = b else {
                        return None;
                    };
                    match find(&var.name, var.index)? {
                        At::Slot(s) => slots.push((s, *lo, *hi)),
                        At::Fixed(v) => empty |= v < *lo || v > *hi,
                    }
                }
                Some((!empty).then_some(slots))
            })
            .collect::<Option<Vec<_>>>()?;
        Some(SlotBoxes {
            regions,
            congruences,
        })
    }

    /// Whether the engine state `state` lies in region `k` (and meets the
    /// congruences).
    pub fn contains(&self, k: usize, state: &[i32]) -> bool {
        let Some(Some(slots)) = self.regions.get(k) else {
            return false;
        };
        let value = |s: usize| state.get(s).map(|&v| v as i64);
        slots
            .iter()
            .all(|&(s, lo, hi)| value(s).is_some_and(|v| lo <= v && v <= hi))
            && (self.congruences.iter())
                .all(|&(s, m, r)| value(s).is_some_and(|v| v.rem_euclid(m) == r))
    }
}

/// Where a search's pruned states lie.
#[derive(Debug, Clone, Default)]
pub struct Pruned {
    /// The regions of the pruned states.
    pub dead: BTreeSet<usize>,
    /// Pruned states found in no region of theirs (then nothing the
    /// pruning proves can be certified).
    pub outside: u64,
}

/// The abstraction's guide, recording for every state it prunes the
/// abstract state it lies in, once [`SlotBoxes`] has confirmed it.
pub struct RecordingGuide<'a, 'g> {
    /// The guide.
    pub guide: &'a mut AbstractGuide<'g>,
    /// The certificate's regions on the state slots.
    pub boxes: &'a SlotBoxes,
    /// What it pruned so far.
    pub pruned: Pruned,
}

impl Guide for RecordingGuide<'_, '_> {
    fn estimate(&mut self, state: &[i32], unfound: &[u32]) -> Estimate {
        let e = self.guide.estimate(state, unfound);
        if e == Estimate::Dead {
            match self.guide.last {
                Some(a) if self.boxes.contains(a as usize, state) => {
                    self.pruned.dead.insert(a as usize);
                }
                _ => self.pruned.outside += 1,
            }
        }
        e
    }
}

/// The mark of a pruned state found in no region of its abstract state
/// ([`AbstractPruner`]).
const OUTSIDE: u64 = u64::MAX;

/// The abstraction's pruning on one worker of a distributed search:
/// a state whose abstract state reaches none of the labels looked for is
/// left unexpanded, and marked with its abstract state once
/// [`SlotBoxes`] has confirmed it lies in its region ([`OUTSIDE`] if not),
/// as [`RecordingGuide`] records in one process.
pub struct AbstractPruner {
    graph: Arc<AbsGraph>,
    /// Per abstract state: whether no abstract path from it reaches a label
    /// looked for.
    dead: Arc<Vec<bool>>,
    boxes: Option<Arc<SlotBoxes>>,
    marks: BTreeSet<u64>,
}

impl AbstractPruner {
    /// Makes the pruner of each worker searching for `labels` with the
    /// abstraction `graph` (and, to certify what the pruning proves, its
    /// certificate's `boxes`).
    pub fn maker(graph: Arc<AbsGraph>, labels: &[u32], boxes: Option<SlotBoxes>) -> MakePruner {
        let dead: Arc<Vec<bool>> = Arc::new(
            graph
                .distance_to(labels)
                .iter()
                .map(|&d| d == u32::MAX)
                .collect(),
        );
        let boxes = boxes.map(Arc::new);
        Arc::new(move || {
            Box::new(AbstractPruner {
                graph: Arc::clone(&graph),
                dead: Arc::clone(&dead),
                boxes: boxes.clone(),
                marks: BTreeSet::new(),
            }) as Box<dyn Pruner>
        })
    }

    /// Where the states the pruners marked with `marks` lie (every
    /// worker's marks together).
    pub fn pruned(marks: &[u64]) -> Pruned {
        Pruned {
            dead: (marks.iter())
                .filter(|&&k| k != OUTSIDE)
                .map(|&k| k as usize)
                .collect(),
            outside: u64::from(marks.contains(&OUTSIDE)),
        }
    }
}

impl Pruner for AbstractPruner {
    fn prune(&mut self, state: &[i32]) -> bool {
        let Some(a) = self.graph.locate(state) else {
            return false;
        };
        if !self.dead.get(a as usize).copied().unwrap_or(false) {
            return false;
        }
        let inside = (self.boxes.as_ref()).is_some_and(|b| b.contains(a as usize, state));
        self.marks.insert(if inside { a as u64 } else { OUTSIDE });
        true
    }

    fn marks(&self) -> Vec<u64> {
        self.marks.iter().copied().collect()
    }
}

/// The certificate that `labels` are unreachable from the regions `from`
/// of `c`: those regions and every region their hints lead to, numbered
/// anew, with `c`'s congruences.
pub fn closure(c: &Certificate, from: &BTreeSet<usize>, labels: &[u32]) -> Certificate {
    let mut keep: BTreeSet<usize> = BTreeSet::new();
    let mut todo: Vec<usize> = from
        .iter()
        .copied()
        .filter(|&k| k < c.regions.len())
        .collect();
    while let Some(k) = todo.pop() {
        if keep.insert(k) {
            todo.extend(
                c.regions[k]
                    .next
                    .iter()
                    .copied()
                    .filter(|&n| n < c.regions.len()),
            );
        }
    }
    let number: std::collections::BTreeMap<usize, usize> = keep
        .iter()
        .enumerate()
        .map(|(new, &old)| (old, new))
        .collect();
    let regions = (keep.iter())
        .map(|&k| Region {
            bounds: c.regions[k].bounds.clone(),
            next: c.regions[k].next.iter().map(|n| number[n]).collect(),
            edges: Vec::new(),
        })
        .collect();
    Certificate {
        unreachable: labels.to_vec(),
        holds: Vec::new(),
        congruences: c.congruences.clone(),
        regions,
        strings: c.strings.clone(),
    }
}

/// The part of the time left a pruning certificate's check may take (the
/// searches for the other labels wait for it).
const PRUNING_SHARE: f64 = 0.25;

/// Why a pruned search's claims have no accepted certificate.
#[derive(Debug, thiserror::Error)]
pub enum PruningError {
    /// Some pruned states were not in the region of their abstract state.
    #[error(
        "{outside} pruned state(s) lie outside the region of their abstract state: \
         the pruned search for {labels:?} has no certificate"
    )]
    Outside {
        /// How many.
        outside: u64,
        /// The labels the search settled.
        labels: Vec<u32>,
    },
    /// The checker did not accept the certificate.
    #[error(
        "the certificate of the pruned search for {labels:?} ({regions} regions) \
         was not accepted: {error}"
    )]
    Rejected {
        /// The labels the search settled.
        labels: Vec<u32>,
        /// Regions of the certificate.
        regions: usize,
        /// Why.
        error: crate::certificate::CheckError,
    },
}

/// Checks the certificate of `labels`, which only a pruned search (the
/// breadth-first or a guided one) of the program `p` read from `path`
/// proved unreachable: the regions of the states it pruned, closed under
/// the hints (every pruned state was seen to lie in its region), within
/// [`PRUNING_SHARE`] of the time left; then the second, independent
/// reading of the program checks the same regions
/// ([`super::certify::second_reading`], without initiation). An
/// undecided second reading leaves the labels certified by the first
/// check and says so in the note returned. An interrupt leaves the check
/// in flight only [`crate::runtime::INTERRUPT_GRACE`] to end.
pub fn check_pruning(
    p: &Arc<Program>,
    path: &str,
    c: &Certificate,
    labels: &[u32],
    pruned: &Pruned,
    budget: &crate::runtime::Budget,
) -> Result<Option<String>, PruningError> {
    if pruned.outside > 0 {
        return Err(PruningError::Outside {
            outside: pruned.outside,
            labels: labels.to_vec(),
        });
    }
    let sub = closure(c, &pruned.dead, labels);
    let regions = sub.regions.len();
    let deadline = budget.share(PRUNING_SHARE).deadline;
    let (p, path) = (Arc::clone(p), path.to_string());
    let checked = PendingCheck::start(move || {
        let start = std::time::Instant::now();
        let checked = crate::certificate::check_closed(&p, &sub, deadline)?;
        let second = super::certify::second_reading_deadline(start.elapsed(), deadline);
        let skipped = crate::crosscheck::Initiation::Skipped;
        super::certify::second_reading(&path, &sub, checked, skipped, second, false)
    })
    .wait(budget)
    .map_err(|error| PruningError::Rejected {
        labels: labels.to_vec(),
        regions,
        error,
    })?;
    Ok(match checked.second_reading {
        SecondReading::Undecided { why } => Some(format!(
            "the second reading of the pruned search's certificate for {labels:?} \
             did not decide ({why}): the first check's acceptance stands"
        )),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::certificate::{Congruence, Var};

    fn var(name: &str) -> Var {
        Var {
            name: name.into(),
            index: None,
        }
    }

    fn region(bounds: Vec<Bound>, next: Vec<usize>) -> Region {
        Region {
            bounds,
            next,
            edges: Vec::new(),
        }
    }

    #[test]
    fn the_closure_follows_the_hints_and_renumbers() {
        let c = Certificate {
            unreachable: vec![1, 2],
            holds: Vec::new(),
            congruences: Vec::new(),
            regions: vec![
                region(vec![Bound::Range(var("a"), 0, 0)], vec![1]),
                region(vec![Bound::Range(var("a"), 1, 1)], vec![3]),
                region(vec![Bound::Range(var("a"), 2, 2)], vec![0]),
                region(vec![Bound::Range(var("a"), 3, 3)], vec![1, 3]),
            ],
            strings: Vec::new(),
        };
        let sub = closure(&c, &BTreeSet::from([1]), &[7]);
        assert_eq!(sub.unreachable, vec![7]);
        assert_eq!(sub.regions.len(), 2);
        assert_eq!(sub.regions[0].bounds, c.regions[1].bounds);
        assert_eq!(sub.regions[0].next, vec![1]);
        assert_eq!(sub.regions[1].bounds, c.regions[3].bounds);
        assert_eq!(sub.regions[1].next, vec![0, 1]);
    }

    #[test]
    fn a_pruner_marks_the_regions_of_what_it_prunes_and_outside_when_not_in_one() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/problems/reach-pruned/Problem917.c"
        );
        let p = crate::frontend::load(path).unwrap();
        let m = Machine::compile(&p).unwrap();
        let budget = crate::runtime::Budget::unlimited();
        let g = Arc::new(crate::absint::explore_abstract(&p, &m, &budget).unwrap());
        let c = crate::check::reach::certificate_of(&p, &m, &g);
        // Looking for label 0 (`a == 1 && x != y`), mode 2 is dead.
        let slot = |name: &str| {
            let k = p.globals.iter().position(|g| g.name == name).unwrap();
            match m.layout().storage[k] {
                Storage::State(a) => a as usize,
                s => panic!("{name}: {s:?}"),
            }
        };
        let mut mode2 = crate::system::System::initial_state(&m);
        mode2[slot("a")] = 2;
        mode2[slot("x")] = 3;
        mode2[slot("y")] = 3;
        let init = crate::system::System::initial_state(&m);
        let mut boxed = AbstractPruner::maker(Arc::clone(&g), &[0], SlotBoxes::new(&p, &m, &c))();
        assert!(!boxed.prune(&init), "mode 1 reaches label 0");
        assert!(boxed.prune(&mode2));
        let marks = boxed.marks();
        assert_eq!(marks.len(), 1);
        let pruned = AbstractPruner::pruned(&marks);
        assert_eq!((pruned.dead.len(), pruned.outside), (1, 0));
        // Without the boxes, a pruned state is in no region it can be seen
        // in: nothing it proves is certified.
        let mut bare = AbstractPruner::maker(g, &[0], None)();
        assert!(bare.prune(&mode2));
        let pruned = AbstractPruner::pruned(&bare.marks());
        assert_eq!((pruned.dead.len(), pruned.outside), (0, 1));
    }

    #[test]
    fn boxes_read_the_bounds_and_congruences_on_the_slots() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/problems/reach-arith/Problem902.c"
        );
        let p = crate::frontend::load(path).unwrap();
        let m = Machine::compile(&p).unwrap();
        let slot = |name: &str| {
            let g = p.globals.iter().position(|g| g.name == name).unwrap();
            match m.layout().storage[g] {
                Storage::State(a) => a as usize,
                s => panic!("{name}: {s:?}"),
            }
        };
        // `inputs` is a constant array: inputs[0] is 1.
        let first_input = |lo, hi| {
            let v = Var {
                name: "inputs".into(),
                index: Some(0),
            };
            region(vec![Bound::Range(v, lo, hi)], vec![])
        };
        let c = Certificate {
            unreachable: Vec::new(),
            holds: Vec::new(),
            congruences: vec![Congruence {
                var: var("x"),
                modulus: 2,
                rest: 1,
            }],
            regions: vec![
                region(
                    vec![Bound::Range(var("x"), 1, 9), Bound::Range(var("y"), 2, 3)],
                    vec![],
                ),
                // No state has inputs[0] in 2..3.
                first_input(2, 3),
                first_input(1, 1),
            ],
            strings: Vec::new(),
        };
        let boxes = SlotBoxes::new(&p, &m, &c).unwrap();
        let mut state = vec![0; m.layout().state_width as usize];
        state[slot("x")] = 3;
        state[slot("y")] = 3;
        assert!(boxes.contains(0, &state));
        assert!(!boxes.contains(1, &state));
        assert!(boxes.contains(2, &state));
        state[slot("y")] = 4;
        assert!(!boxes.contains(0, &state));
        state[slot("y")] = 2;
        state[slot("x")] = 4;
        assert!(!boxes.contains(0, &state), "x breaks its congruence");
        assert!(!boxes.contains(3, &state), "no such region");
        // A variable the program does not have: no boxes at all.
        let mut bad = c.clone();
        bad.regions[0].bounds.push(Bound::Range(var("nope"), 0, 1));
        assert!(SlotBoxes::new(&p, &m, &bad).is_none());
        // A pointer bound: not read on states.
        let mut pointer = c;
        pointer.regions[0]
            .bounds
            .push(Bound::PointsTo(var("a"), vec![]));
        assert!(SlotBoxes::new(&p, &m, &pointer).is_none());
    }
}
