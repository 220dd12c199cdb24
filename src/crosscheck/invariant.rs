//! A certificate's invariant in the checker's own positions: each region
//! as bounds on the layout's state and as the values it allows, the
//! congruences, and whether a state (known, or a step's values) lies in
//! it.

use z3::ast::Bool;

use super::cover::{self, Allowed};
use super::layout::{Layout, Slot};
use super::value::{bv, Cond, Hull, Val};
use super::CrossError;
use crate::certificate::format::{Bound, Certificate, Var};

/// A region's bounds and the congruences, by position of the state.
#[derive(Clone, Debug)]
pub(super) struct Boxed {
    /// Position, least and greatest value.
    pub(super) ranges: Vec<(usize, i32, i32)>,
    /// Position and the array numbers it may hold (a pointer).
    pub(super) pointing: Vec<(usize, Vec<i32>)>,
    /// The regions the certificate says the step leads to from here (a
    /// hint, tried first).
    pub(super) next: Vec<usize>,
}

/// The certificate in the layout's positions.
pub(super) struct Invariant {
    pub(super) regions: Vec<Boxed>,
    /// Each region as the values it allows, for [`cover::covered`].
    pub(super) allowed: Vec<Allowed>,
    /// Position, modulus, rest.
    pub(super) congruences: Vec<(usize, i32, i32)>,
}

fn position(layout: &Layout, v: &Var) -> Result<usize, CrossError> {
    let unknown = || CrossError::Rejected {
        obligation: "the certificate's variables".into(),
        detail: format!("the program has no variable `{v}`"),
    };
    match (layout.slots.get(&v.name), v.index) {
        (Some(Slot::Scalar(at) | Slot::Pointer(at)), None) => Ok(*at),
        (Some(Slot::Array(base, len)), Some(k)) if k < *len => Ok(base + k),
        _ => Err(unknown()),
    }
}

fn clamp(x: i64) -> i32 {
    x.clamp(i32::MIN as i64, i32::MAX as i64) as i32
}

impl Invariant {
    /// The certificate's invariant, up to the positions `free` (whose
    /// values make no difference: every step writes them first).
    pub(super) fn of(
        layout: &Layout,
        c: &Certificate,
        free: &[usize],
    ) -> Result<Invariant, CrossError> {
        let mut regions = Vec::new();
        for r in &c.regions {
            let mut b = Boxed {
                ranges: Vec::new(),
                pointing: Vec::new(),
                next: r
                    .next
                    .iter()
                    .copied()
                    .filter(|&q| q < c.regions.len())
                    .collect(),
            };
            for bound in &r.bounds {
                let at = position(layout, bound.var())?;
                if free.contains(&at) {
                    continue;
                }
                match bound {
                    Bound::Range(_, lo, hi) => b.ranges.push((at, clamp(*lo), clamp(*hi))),
                    Bound::PointsTo(_, arrays) => {
                        let mut numbers = Vec::new();
                        for a in arrays {
                            match layout.array_number(a) {
                                Some(k) => numbers.push(k as i32),
                                None => {
                                    return Err(CrossError::Rejected {
                                        obligation: "the certificate's variables".into(),
                                        detail: format!("the program has no array `{a}`"),
                                    })
                                }
                            }
                        }
                        b.pointing.push((at, numbers));
                    }
                }
            }
            regions.push(b);
        }
        let congruences = (c.congruences.iter())
            .map(|k| Ok((position(layout, &k.var)?, clamp(k.modulus), clamp(k.rest))))
            .filter(|k| !k.as_ref().is_ok_and(|(at, ..)| free.contains(at)))
            .collect::<Result<_, CrossError>>()?;
        let allowed = (regions.iter())
            .map(|b| {
                let ranges = (b.ranges.iter()).map(|&(at, lo, hi)| (at, Hull::range(lo, hi)));
                let pointing = (b.pointing.iter()).map(|(at, arrays)| {
                    let mut v = arrays.clone();
                    v.sort_unstable();
                    v.dedup();
                    (*at, Hull::Set(v))
                });
                ranges.chain(pointing).collect()
            })
            .collect();
        Ok(Invariant {
            regions,
            allowed,
            congruences,
        })
    }

    /// Whether a known state lies in the invariant.
    pub(super) fn holds(&self, s: &[i32]) -> bool {
        let congruent = (self.congruences.iter())
            .all(|&(at, m, r)| (s[at] as i64).rem_euclid(m as i64) == r as i64);
        congruent
            && self.regions.iter().any(|b| {
                b.ranges
                    .iter()
                    .all(|&(at, lo, hi)| (lo..=hi).contains(&s[at]))
                    && b.pointing.iter().all(|(at, a)| a.contains(&s[*at]))
            })
    }

    /// Whether the congruences hold after a step from `pre` (where they
    /// hold) to `vals`, by the hulls alone: a value the step left alone
    /// keeps its own.
    fn congruent_by_hulls(&self, vals: &[Val], pre: &[Val]) -> bool {
        self.congruences.iter().all(|&(at, m, r)| {
            vals[at].same(&pre[at])
                || (vals[at].hull().values()).is_some_and(|v| {
                    v.iter()
                        .all(|&k| (k as i64).rem_euclid(m as i64) == r as i64)
                })
        })
    }

    /// Whether every state the hulls of `vals` allow, after a step from
    /// `pre` (whose congruences hold), lies in the invariant: the regions
    /// `first` tried first. `false` where the hulls cannot tell.
    pub(super) fn covers(&self, vals: &[Val], pre: &[Val], first: &[usize]) -> bool {
        if !self.congruent_by_hulls(vals, pre) {
            return false;
        }
        let post: Vec<Hull> = vals.iter().map(Val::hull).collect();
        cover::covered(&post, &self.allowed, first)
    }

    /// Whether every state the hulls of `vals` allow, after a step from
    /// `pre`, lies in region `target` alone; `false` where the hulls
    /// cannot tell.
    pub(super) fn covers_in(&self, vals: &[Val], pre: &[Val], target: usize) -> bool {
        let Some(region) = self.allowed.get(target) else {
            return false;
        };
        if !self.congruent_by_hulls(vals, pre) {
            return false;
        }
        let post: Vec<Hull> = vals.iter().map(Val::hull).collect();
        cover::covered(&post, std::slice::from_ref(region), &[0])
    }

    /// The condition that the state `vals`, after a step from `pre` (whose
    /// congruences hold), lies in the invariant; in one of the regions
    /// `among` only, where given.
    pub(super) fn contains(&self, vals: &[Val], pre: &[Val], among: Option<&[usize]>) -> Cond {
        let mut congruent = Cond::Known(true);
        for &(at, m, r) in &self.congruences {
            let c = match &vals[at] {
                v if v.same(&pre[at]) => Cond::Known(true),
                Val::Known(k) => Cond::Known((*k as i64).rem_euclid(m as i64) == r as i64),
                Val::Term(t, _) => Cond::Term(t.bvsmod(bv(m)).eq(bv(r))),
            };
            congruent = congruent.and(&c);
        }
        if congruent.is_false() {
            return congruent;
        }
        let mut any = Cond::Known(false);
        let all: Vec<usize>;
        let among = match among {
            Some(a) => a,
            None => {
                all = (0..self.regions.len()).collect();
                &all
            }
        };
        for b in among.iter().map(|&q| &self.regions[q]) {
            let mut all = Cond::Known(true);
            for &(at, lo, hi) in &b.ranges {
                all = all.and(&within(&vals[at], lo, hi));
                if all.is_false() {
                    break;
                }
            }
            for (at, arrays) in &b.pointing {
                if all.is_false() {
                    break;
                }
                all = all.and(&one_of(&vals[*at], arrays));
            }
            if matches!(all, Cond::Known(true)) {
                return congruent;
            }
            any = any.or(&all);
        }
        congruent.and(&any)
    }
}

/// `lo <= v <= hi`.
fn within(v: &Val, lo: i32, hi: i32) -> Cond {
    match v {
        Val::Known(k) => Cond::Known((lo..=hi).contains(k)),
        Val::Term(t, h) => {
            let (a, b) = h.bounds();
            if a >= lo && b <= hi {
                Cond::Known(true)
            } else if b < lo
                || a > hi
                || h.values()
                    .is_some_and(|v| v.iter().all(|x| !(lo..=hi).contains(x)))
            {
                Cond::Known(false)
            } else {
                Cond::Term(Bool::and(&[t.bvsge(bv(lo)), t.bvsle(bv(hi))]))
            }
        }
    }
}

/// `v` is one of `values`.
fn one_of(v: &Val, values: &[i32]) -> Cond {
    match v {
        Val::Known(k) => Cond::Known(values.contains(k)),
        Val::Term(t, h) => {
            if h.values()
                .is_some_and(|hv| hv.iter().all(|x| values.contains(x)))
            {
                return Cond::Known(true);
            }
            let eqs: Vec<Bool> = values
                .iter()
                .filter(|&&k| h.may_be(k))
                .map(|&k| t.eq(bv(k)))
                .collect();
            if eqs.is_empty() {
                Cond::Known(false)
            } else {
                Cond::Term(Bool::or(&eqs))
            }
        }
    }
}
