//! How one comparison of a site is decided in an abstract state: on its
//! slot, or on the pointer it reads through and the element that names,
//! with the arrays a pointer may name where they are known.

use super::{Atom, Element, Operand, Relevance};
use crate::absint::interval::Interval;

impl Relevance {
    /// Marks the slots `a` is decided on in `s`: its slot, or its pointer
    /// and the element that names; only the pointer where it may name
    /// several arrays whose elements there are constants
    /// ([`Relevance::constant_elements`]); every slot where the pointer is
    /// not known otherwise (the element could be any array's).
    pub(super) fn consult(&self, a: &Atom, s: &[Interval], consulted: &mut [bool]) {
        match a.on {
            Operand::Slot(k) => consulted[k as usize] = true,
            Operand::Element { pointer, index } if s[pointer as usize].as_point().is_none() => {
                match self.constant_elements(pointer, index, s) {
                    Some(_) => consulted[pointer as usize] = true,
                    None => consulted.fill(true),
                }
            }
            Operand::Element { .. } => {
                for k in self.witness(a, s).into_iter().flatten() {
                    consulted[k as usize] = true;
                }
            }
        }
    }

    /// The array element a pointer atom reads in `s`, if its pointer is
    /// known there and names an array long enough.
    fn element(&self, pointer: u32, index: u32, s: &[Interval]) -> Option<Element> {
        let p = usize::try_from(s[pointer as usize].as_point()?).ok()?;
        let at = p.checked_mul(self.stride as usize)? + index as usize;
        (index < self.stride)
            .then(|| self.elements.get(at).copied().flatten())
            .flatten()
    }

    /// This relevance as if no pointer's arrays were known: every pointer
    /// slot kept in every state. `None` where no pointer's arrays are
    /// known (it would be the same).
    pub fn without_pointer_targets(&self) -> Option<Relevance> {
        if self.targets.iter().all(Option::is_none) {
            return None;
        }
        let mut kept = self.clone();
        for (k, t) in kept.targets.iter_mut().enumerate() {
            if t.take().is_some() {
                kept.always[k] = true;
            }
        }
        Some(kept)
    }

    /// The elements at `index` of the arrays pointer slot `pointer` may
    /// name in `s`, where its arrays are known, it names at least one of
    /// them, and each has a constant there.
    fn constant_elements(&self, pointer: u32, index: u32, s: &[Interval]) -> Option<Vec<i64>> {
        let x = s[pointer as usize];
        let targets = self.targets[pointer as usize].as_ref()?;
        let mut out = Vec::new();
        for &t in targets.iter().filter(|&&t| x.contains(t as i64)) {
            let at = (t as usize).checked_mul(self.stride as usize)? + index as usize;
            match self.elements.get(at).copied().flatten() {
                Some(Element::Const(v)) if index < self.stride => out.push(v),
                _ => return None,
            }
        }
        (!out.is_empty()).then_some(out)
    }

    /// Whether `a` is false in every state of `s`.
    pub(super) fn refutes(&self, a: &Atom, s: &[Interval]) -> bool {
        match a.on {
            Operand::Slot(k) => a.refuted_by(s[k as usize]),
            Operand::Element { pointer, index } if s[pointer as usize].as_point().is_none() => {
                (self.constant_elements(pointer, index, s))
                    .is_some_and(|vs| vs.iter().all(|&v| a.refuted_by(Interval::point(v as i32))))
            }
            Operand::Element { pointer, index } => match self.element(pointer, index, s) {
                Some(Element::Const(v)) => a.refuted_by(Interval::point(v as i32)),
                Some(Element::Slot(k)) => a.refuted_by(s[k as usize]),
                None => false,
            },
        }
    }

    /// The slots that must keep their values for `a` to stay refuted: its
    /// slot, or the pointer and the element it reads if that is a slot.
    pub(super) fn witness(&self, a: &Atom, s: &[Interval]) -> [Option<u32>; 2] {
        match a.on {
            Operand::Slot(k) => [Some(k), None],
            Operand::Element { pointer, index } => match self.element(pointer, index, s) {
                Some(Element::Slot(k)) => [Some(pointer), Some(k)],
                _ => [Some(pointer), None],
            },
        }
    }
}
