//! Where each global of a [`Program`] lives in the checker's state vector.

use std::collections::HashMap;

use super::syntax::{GlobalInit, Program};
use super::ReadError;

/// Where a global lives in the state vector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Slot {
    /// A scalar at this position.
    Scalar(usize),
    /// An array: its first element's position, and its length.
    Array(usize, usize),
    /// A pointer at this position; its value is the number of the array
    /// it points to ([`Layout::arrays`]).
    Pointer(usize),
}

/// The state vector's layout: every global's slot, in declaration order.
#[derive(Clone, Debug, Default)]
pub struct Layout {
    /// Each global's slot, by name.
    pub slots: HashMap<String, Slot>,
    /// The name of each position of the state vector (`a`, `b[3]`).
    pub names: Vec<String>,
    /// The arrays pointers may point to, by number: name, first
    /// position, length.
    pub arrays: Vec<(String, usize, usize)>,
    /// The positions that hold pointers.
    pub pointers: Vec<usize>,
    /// The initial state.
    pub initial: Vec<i32>,
}

impl Layout {
    /// The layout of `p`'s globals.
    pub fn of(p: &Program) -> Result<Layout, ReadError> {
        let mut l = Layout::default();
        for g in &p.globals {
            match &g.init {
                GlobalInit::Scalar(v) => {
                    l.slots.insert(g.name.clone(), Slot::Scalar(l.names.len()));
                    l.names.push(g.name.clone());
                    l.initial.push(*v);
                }
                GlobalInit::Array(vs) => {
                    let base = l.names.len();
                    l.slots.insert(g.name.clone(), Slot::Array(base, vs.len()));
                    l.arrays.push((g.name.clone(), base, vs.len()));
                    for (k, v) in vs.iter().enumerate() {
                        l.names.push(format!("{}[{k}]", g.name));
                        l.initial.push(*v);
                    }
                }
                GlobalInit::Pointer(_) => {
                    l.slots.insert(g.name.clone(), Slot::Pointer(l.names.len()));
                    l.pointers.push(l.names.len());
                    l.names.push(g.name.clone());
                    l.initial.push(0);
                }
            }
        }
        for g in &p.globals {
            if let (GlobalInit::Pointer(target), Some(Slot::Pointer(at))) =
                (&g.init, l.slots.get(&g.name))
            {
                l.initial[*at] = l.array_number(target).ok_or_else(|| ReadError::Program {
                    what: format!("`{}` points to `{target}`, which is no array", g.name),
                })? as i32;
            }
        }
        Ok(l)
    }

    /// The number of the array named `name`.
    pub fn array_number(&self, name: &str) -> Option<usize> {
        self.arrays.iter().position(|(n, ..)| n == name)
    }
}
