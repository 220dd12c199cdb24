//! A region's obligations for one input settled without the solver: the
//! step run on the region's box path by path ([`crate::smt::box_paths`]).
//!
//! Every path must end at no claimed label and, where the run goes on, in
//! a box that lies inside one of the regions (the hint's first; for LTL
//! claims: the targets of the region's edges on the same input and
//! output), with the certificate's congruences holding: a variable the
//! step left as it was keeps its congruence, any other must end at one
//! value that meets it. Where one region does not hold a path's box, their
//! union may: the box is cut along the bounds of the regions it meets.
//! Where the region's box still does not settle, its halves may (cut along
//! the variable a missed bound traces back to). The paths over-approximate
//! the step (spans, and the narrowing of compared variables, only ever
//! hold more states), a path that might fault gives no paths at all, and
//! the halves and pieces together hold every state of what they were cut
//! from, so an obligation settled here holds. Anything else goes to the
//! solver, which decides it.

use std::sync::atomic::{AtomicUsize, Ordering};

use super::format::{Bound, Certificate, EdgeStep, Var};
use crate::ir::{Program, Symbol};
use crate::smt::{box_paths, Beyond, Held, PathEnd, Pointing, Span};

/// The program's variables and arrays by name, as the checker reads them.
pub(super) trait Names {
    /// What a name that is not the program's gives.
    type Error;
    /// The global and element a variable names.
    fn element(&self, v: &Var) -> Result<(usize, usize), Self::Error>;
    /// The value an array name stands for in a pointer.
    fn array_value(&self, name: &str) -> Result<i32, Self::Error>;
}

/// Most boxes one region's obligations on one input are tried on: its own
/// box and the halves split from it where that does not settle them.
const MOST_BOXES: usize = 24;

/// A global element: (global, element).
type Element = (usize, usize);

/// A box: each global element's span (`None`: any value).
type SpanBox = Vec<Vec<Option<Span>>>;

/// Whether the obligations `o` hold on the region's box (`spans`); `false`
/// where this reading cannot tell.
///
/// Where the box does not settle them, it is cut in two along one of its
/// variables and each half is tried (up to [`MOST_BOXES`] boxes): the
/// successors of a narrower box are narrower, so a box whose successors
/// straddle two regions often has halves that land in one each. Halves
/// keep every state of the region (they are cut at a value, then narrowed
/// to the values the certificate's congruences allow), so what holds on
/// every half holds on the region.
///
/// A pointer the step reads through, which the box does not fix but the
/// region bounds to several arrays, is fixed to each in turn (up to
/// [`MOST_POINTINGS`] boxes in all): those boxes together hold the box.
pub(super) fn settled_on_box(o: &Obligations, spans: &[Vec<Option<Span>>]) -> bool {
    let mut boxes = vec![spans.to_vec()];
    let mut left = MOST_POINTINGS;
    while let Some(b) = boxes.pop() {
        let pointer = match settled_on_one_box(o, &b) {
            Settled::Yes => continue,
            Settled::No(_) => return false,
            Settled::Unfixed(pointer) => pointer,
        };
        let Some(arrays) = points_to(&o.r.regions[o.k], pointer) else {
            return false;
        };
        if b[pointer][0].is_some_and(|s| s.value().is_some()) {
            return false;
        }
        for &a in arrays {
            if b[pointer][0].is_none_or(|s| !s.apart(a.into(), a.into())) {
                if left == 0 {
                    return false;
                }
                left -= 1;
                let mut fixed = b.clone();
                fixed[pointer][0] = Some(Span::single(a));
                boxes.push(fixed);
            }
        }
    }
    true
}

/// Most boxes a region's box is cut into, one per array a pointer may
/// point to.
const MOST_POINTINGS: usize = 64;

/// The pointers `bounds` bound to several arrays, with those arrays.
fn pointing(bounds: &[(Element, Allowed)]) -> Pointing {
    (bounds.iter())
        .filter_map(|((g, e), allowed)| match allowed {
            Allowed::Points(arrays) if *e == 0 && arrays.len() > 1 => Some((*g, arrays.clone())),
            _ => None,
        })
        .collect()
}

/// The arrays a region bounds the pointer `pointer` (a global) to, if it
/// does.
fn points_to(bounds: &[(Element, Allowed)], pointer: usize) -> Option<&[i32]> {
    bounds.iter().find_map(|(at, allowed)| match allowed {
        Allowed::Points(arrays) if *at == (pointer, 0) => Some(arrays.as_slice()),
        _ => None,
    })
}

/// [`settled_on_box`] on one box, without fixing pointers.
fn settled_on_one_box(o: &Obligations, spans: &[Vec<Option<Span>>]) -> Settled {
    // Only the whole box is tried against unions of regions (the halves,
    // against one region each): that costs a pass over every region, and
    // settles few halves that one region does not.
    let culprit = match settled_on(o, spans, true) {
        Settled::No(culprit) => culprit,
        other => return other,
    };
    let no = Settled::No(None);
    if !o.halving.worth_it() {
        return no;
    }
    let Some(mut boxes) = halves(o, spans, culprit) else {
        return no;
    };
    let mut left = MOST_BOXES - 1;
    let settled = loop {
        let Some(b) = boxes.pop() else { break true };
        if left == 0 {
            break false;
        }
        left -= 1;
        let culprit = match settled_on(o, &b, false) {
            Settled::Yes => continue,
            Settled::No(culprit) => culprit,
            Settled::Unfixed(_) => break false,
        };
        match halves(o, &b, culprit) {
            Some(h) => boxes.extend(h),
            None => break false,
        }
    };
    o.halving.record(settled);
    if settled {
        Settled::Yes
    } else {
        no
    }
}

/// The two halves of box `b` cut along the variable `culprit` traces back
/// to, each narrowed to the values the congruences allow (an empty one
/// left out); `None` where there is nothing to cut along.
fn halves(
    o: &Obligations,
    b: &[Vec<Option<Span>>],
    culprit: Option<Element>,
) -> Option<Vec<SpanBox>> {
    let at = cut_along(b, culprit)?;
    let s = b[at.0][at.1]?;
    let mid = ((s.lo as i64 + s.hi as i64).div_euclid(2)) as i32;
    let mut out = Vec::with_capacity(2);
    for (lo, hi) in [(s.lo, mid), (mid + 1, s.hi)] {
        if let Some(half) = congruent_span(&o.r.congruences, at, lo, hi) {
            let mut h = b.to_vec();
            h[at.0][at.1] = Some(half);
            out.push(h);
        }
    }
    Some(out)
}

/// Boxes cut into halves before the tally says whether halving pays.
const FREE_HALVINGS: usize = 64;

/// Halving goes on while at least one in this many settles its box.
const HALVING_PAYS_ONE_IN: usize = 8;

/// How often, over one check, cutting a box into halves has settled what
/// the whole box did not. Where it never does (2019 challenge LTL P6: none
/// of 10,572 boxes, each cut into 23 halves, a third of the check's time),
/// the halves are skipped and the solver takes the box at once; where it
/// does (2019 challenge C P15), it goes on. Either way what the box leaves
/// goes to the solver, so the tally changes the time, never the verdict.
#[derive(Debug, Default)]
pub(super) struct Halving {
    /// Boxes cut into halves.
    tried: AtomicUsize,
    /// Of those, boxes their halves settled.
    paid: AtomicUsize,
}

impl Halving {
    /// Whether to cut the next box that does not settle whole.
    fn worth_it(&self) -> bool {
        let tried = self.tried.load(Ordering::Relaxed);
        let paid = self.paid.load(Ordering::Relaxed);
        tried < FREE_HALVINGS || paid * HALVING_PAYS_ONE_IN >= tried
    }

    /// Counts a box cut into halves, and whether they settled it.
    fn record(&self, paid: bool) {
        self.tried.fetch_add(1, Ordering::Relaxed);
        if paid {
            self.paid.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// Region `k`'s safety and consecution on `input`.
pub(super) struct Obligations<'a> {
    /// The program.
    pub p: &'a Program,
    /// The certificate.
    pub c: &'a Certificate,
    /// Its bounds and congruences on the program's elements.
    pub r: &'a Resolved,
    /// The region.
    pub k: usize,
    /// The input.
    pub input: &'a Symbol,
    /// The check's tally of halving.
    pub halving: &'a Halving,
}

/// A certificate's bounds and congruences read onto the program's global
/// elements, once for the whole check.
pub(super) struct Resolved {
    /// Each region's bounds.
    regions: Vec<Vec<(Element, Allowed)>>,
    /// Each congruence: element, modulus, rest.
    congruences: Vec<(Element, i64, i64)>,
    /// The regions by the values they fix elements to, to look for a
    /// region holding (or meeting) a box without trying them all.
    by_value: Option<ByValue>,
    /// Each region's pointers bound to several arrays, with those arrays.
    pointing: Vec<Pointing>,
}

/// The regions by the values they fix elements to: for each element some
/// region fixes to one value, the regions fixing it to each value and those
/// that do not fix it, as bit sets over the regions.
struct ByValue {
    /// Words of one bit set.
    words: usize,
    /// Regions in all.
    regions: usize,
    /// Per element: the regions fixing it to each value, and the others.
    elements: Vec<(Element, Fixing, Vec<u64>)>,
}

/// The regions fixing an element to each value, as bit sets.
type Fixing = rustc_hash::FxHashMap<i64, Vec<u64>>;

impl ByValue {
    /// Indexes `regions` on every element some region fixes (`None` when
    /// none does).
    fn new(regions: &[Vec<(Element, Allowed)>]) -> Option<ByValue> {
        let fixed = |b: &(Element, Allowed)| match b.1 {
            Allowed::Range(lo, hi) if lo == hi => Some((b.0, lo)),
            _ => None,
        };
        let words = regions.len().div_ceil(64);
        let mut at: rustc_hash::FxHashMap<Element, usize> = Default::default();
        let mut elements: Vec<(Element, Fixing, Vec<u64>)> = Vec::new();
        for (k, bounds) in regions.iter().enumerate() {
            for (e, v) in bounds.iter().filter_map(fixed) {
                let i = *at.entry(e).or_insert_with(|| {
                    elements.push((e, Default::default(), all_of(regions.len())));
                    elements.len() - 1
                });
                let (_, fixing, others) = &mut elements[i];
                fixing.entry(v).or_insert_with(|| vec![0; words])[k / 64] |= 1 << (k % 64);
                others[k / 64] &= !(1 << (k % 64));
            }
        }
        (!elements.is_empty()).then_some(ByValue {
            words,
            regions: regions.len(),
            elements,
        })
    }

    /// The regions that may hold every value of `post` (with `overlap`:
    /// some value), as a bit set: a region fixing an element to a value
    /// holds only the boxes fixing it to that value too (meets only those
    /// holding that value).
    fn candidates(&self, post: &[Vec<Held>], overlap: bool) -> Vec<u64> {
        let mut set = all_of(self.regions);
        let mut allowed = vec![0u64; self.words];
        for (e, fixing, others) in &self.elements {
            let span = post[e.0][e.1].span;
            allowed.copy_from_slice(others);
            let mut add = |bits: &Vec<u64>| {
                for (a, b) in allowed.iter_mut().zip(bits) {
                    *a |= b;
                }
            };
            match span.value() {
                Some(v) => fixing.get(&i64::from(v)).into_iter().for_each(&mut add),
                None if overlap => (fixing.iter())
                    .filter(|(&v, _)| !span.apart(v, v))
                    .for_each(|(_, bits)| add(bits)),
                None => {}
            }
            let mut any = 0;
            for (s, a) in set.iter_mut().zip(&allowed) {
                *s &= a;
                any |= *s;
            }
            if any == 0 {
                break;
            }
        }
        set
    }
}

/// The values a bound allows.
enum Allowed {
    /// `lo..=hi`.
    Range(i64, i64),
    /// The values of these arrays (a pointer to one of them).
    Points(Vec<i32>),
}

/// The bit set of regions `0..n`.
fn all_of(n: usize) -> Vec<u64> {
    let mut set = vec![u64::MAX; n.div_ceil(64)];
    if !n.is_multiple_of(64) {
        if let Some(last) = set.last_mut() {
            *last = (1u64 << (n % 64)) - 1;
        }
    }
    set
}

/// The members of a bit set, in increasing order.
fn members(set: &[u64]) -> impl Iterator<Item = usize> + '_ {
    (set.iter().enumerate()).flat_map(|(w, &bits)| {
        let mut bits = bits;
        std::iter::from_fn(move || {
            (bits != 0).then(|| {
                let b = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                w * 64 + b
            })
        })
    })
}

impl Resolved {
    /// The certificate's bounds and congruences on `names`'s elements.
    pub(super) fn new<N: Names>(names: &N, c: &Certificate) -> Result<Self, N::Error> {
        let mut regions = Vec::with_capacity(c.regions.len());
        for region in &c.regions {
            let mut bounds = Vec::with_capacity(region.bounds.len());
            for b in &region.bounds {
                let allowed = match b {
                    Bound::Range(_, lo, hi) => Allowed::Range(*lo, *hi),
                    Bound::PointsTo(_, arrays) => {
                        let mut values = Vec::with_capacity(arrays.len());
                        for a in arrays {
                            values.push(names.array_value(a)?);
                        }
                        Allowed::Points(values)
                    }
                };
                bounds.push((names.element(b.var())?, allowed));
            }
            regions.push(bounds);
        }
        let mut congruences = Vec::with_capacity(c.congruences.len());
        for cg in &c.congruences {
            congruences.push((names.element(&cg.var)?, cg.modulus, cg.rest));
        }
        Ok(Resolved {
            by_value: ByValue::new(&regions),
            pointing: regions.iter().map(|bounds| pointing(bounds)).collect(),
            regions,
            congruences,
        })
    }

    /// The regions that may hold every value of the box `post` (with
    /// `overlap`: some value), in order.
    fn candidates(&self, post: &[Vec<Held>], overlap: bool) -> Vec<usize> {
        match &self.by_value {
            Some(ix) => members(&ix.candidates(post, overlap)).collect(),
            None => (0..self.regions.len()).collect(),
        }
    }

    /// Whether some region holds every value of the box `post`, whose
    /// pointers point as `pointing` says.
    fn some_region_holds(&self, post: &[Vec<Held>], pointing: &[(usize, Vec<i32>)]) -> bool {
        (self.candidates(post, false).into_iter())
            .any(|k| self.regions[k].iter().all(|b| meets(b, post, pointing)))
    }
}

/// What one box tells of the obligations.
enum Settled {
    /// They hold on every state of the box.
    Yes,
    /// Not seen to hold; cutting along this element may help, where known.
    No(Option<Element>),
    /// Not read: the step reads through this pointer (a global), which
    /// the box does not fix.
    Unfixed(usize),
}

/// The element to cut a box along: the one named, where its span is wide,
/// else the widest span that is not every `int`.
fn cut_along(b: &[Vec<Option<Span>>], culprit: Option<Element>) -> Option<Element> {
    let width = |s: Span| s.hi as i64 - s.lo as i64;
    if let Some((g, e)) = culprit {
        if b[g][e].is_some_and(|s| s.lo < s.hi) {
            return Some((g, e));
        }
    }
    let mut widest: Option<(i64, Element)> = None;
    for (g, elements) in b.iter().enumerate() {
        for (e, s) in elements.iter().enumerate() {
            if let Some(s) = *s {
                if s.lo < s.hi && s != Span::ALL && widest.is_none_or(|(w, _)| width(s) > w) {
                    widest = Some((width(s), (g, e)));
                }
            }
        }
    }
    widest.map(|(_, at)| at)
}

/// `lo..=hi` narrowed to the values the congruences on `at` allow; `None`
/// where none is left.
fn congruent_span(
    congruences: &[(Element, i64, i64)],
    at: Element,
    lo: i32,
    hi: i32,
) -> Option<Span> {
    let (mut lo, mut hi) = (lo as i64, hi as i64);
    for &(var, m, r) in congruences {
        if var == at {
            lo += (r - lo).rem_euclid(m);
            hi -= (hi - r).rem_euclid(m);
        }
    }
    (lo <= hi).then_some(Span {
        lo: lo as i32,
        hi: hi as i32,
    })
}

/// Whether the obligations hold on every state of box `spans`; with
/// `cover`, a successor in no one region may lie in their union.
fn settled_on(o: &Obligations, spans: &[Vec<Option<Span>>], cover: bool) -> Settled {
    let (p, c, r, k, input) = (o.p, o.c, o.r, o.k, o.input);
    let paths = match box_paths(p, spans, &r.pointing[k], input.value) {
        Ok(paths) => paths,
        Err(Beyond::Pointer(g)) => return Settled::Unfixed(g),
        Err(Beyond::Other) => return Settled::No(None),
    };
    let region = &c.regions[k];
    for path in &paths {
        let step = match path.end {
            PathEnd::Error(l) if c.unreachable.contains(&l) => return Settled::No(None),
            PathEnd::Error(_) => continue,
            PathEnd::Invalid => EdgeStep::Invalid,
            PathEnd::Output(None) => EdgeStep::Silent,
            PathEnd::Output(Some(v)) => match p.outputs.iter().find(|s| s.value == v) {
                Some(s) => EdgeStep::Output(s.name.clone()),
                None => return Settled::No(None),
            },
        };
        if !congruent(r, &path.post) {
            return Settled::No(None);
        }
        // The targets: for LTL claims, the edges' on this input and output;
        // else the hint's regions, then any. Where it lands nowhere, the
        // element to cut along: the first one out of bounds of the target
        // named first that it misses least, traced back to the element it
        // was before the step where known.
        let named: Vec<usize> = if c.holds.is_empty() {
            region.next.clone()
        } else {
            (region.edges.iter())
                .filter(|e| e.input == input.name && e.step == step)
                .map(|e| e.target)
                .collect()
        };
        let pointing = &path.pointing;
        let holds = |t: usize| r.regions[t].iter().all(|b| meets(b, &path.post, pointing));
        let mut lands = named.iter().any(|&t| holds(t));
        if !lands && c.holds.is_empty() {
            lands = r.some_region_holds(&path.post, pointing);
        }
        // In no one region: maybe in their union.
        if !lands && cover {
            lands = if c.holds.is_empty() {
                covered(r, r.candidates(&path.post, true).into_iter(), &path.post)
            } else {
                covered(r, named.iter().copied(), &path.post)
            };
        }
        if !lands {
            // The first target that it misses least, counted only now: most
            // successors land.
            let nearest = (named.iter())
                .filter_map(|&t| {
                    let mut missed =
                        (r.regions[t].iter()).filter(|b| !meets(b, &path.post, pointing));
                    let &(first, _) = missed.next()?;
                    Some((1 + missed.count(), first))
                })
                .min_by_key(|&(n, _)| n);
            let culprit = nearest.map(|(_, (g, e))| path.post[g][e].base.unwrap_or((g, e)));
            return Settled::No(culprit);
        }
    }
    Settled::Yes
}

/// Most pieces a successor box is cut into to see it inside a union of
/// regions.
const MOST_PIECES: usize = 256;

/// Whether every value of the box `post` lies in one of the regions
/// `targets`: the box is cut along the bounds of a region that meets it,
/// the part inside that region is done, and the pieces outside it are
/// looked at in turn (up to [`MOST_PIECES`]).
fn covered(r: &Resolved, targets: impl Iterator<Item = usize>, post: &[Vec<Held>]) -> bool {
    // The regions that meet the box, over the elements they bound
    // (numbered in `elements`).
    let mut elements: Vec<Element> = Vec::new();
    let mut number = std::collections::HashMap::new();
    let mut meeting: Vec<Vec<(usize, &Allowed)>> = Vec::new();
    for t in targets {
        let bounds = &r.regions[t];
        if bounds
            .iter()
            .all(|(at, a)| overlaps(post[at.0][at.1].span, a))
        {
            let numbered = (bounds.iter())
                .map(|(at, a)| {
                    let n = *number.entry(*at).or_insert_with(|| {
                        elements.push(*at);
                        elements.len() - 1
                    });
                    (n, a)
                })
                .collect();
            meeting.push(numbered);
        }
    }
    let whole: Vec<Span> = elements.iter().map(|&(g, e)| post[g][e].span).collect();
    let mut pieces = vec![whole];
    let mut left = MOST_PIECES;
    while let Some(mut piece) = pieces.pop() {
        if left == 0 {
            return false;
        }
        left -= 1;
        let Some(t) = (meeting.iter()).find(|t| t.iter().all(|&(n, a)| overlaps(piece[n], a)))
        else {
            return false;
        };
        // What lies outside `t`, bound by bound; the rest is inside it.
        for &(n, a) in t {
            let Allowed::Range(lo, hi) = *a else {
                continue;
            };
            let s = piece[n];
            if (s.lo as i64) < lo {
                let mut below = piece.clone();
                below[n].hi = (lo - 1) as i32;
                pieces.push(below);
                piece[n].lo = lo as i32;
            }
            if (s.hi as i64) > hi {
                let mut above = piece.clone();
                above[n].lo = (hi + 1) as i32;
                pieces.push(above);
                piece[n].hi = hi as i32;
            }
        }
    }
    true
}

/// Whether some value of `s` meets the bound; for a pointer, whether every
/// value does (a piece is never cut along a pointer).
fn overlaps(s: Span, allowed: &Allowed) -> bool {
    match allowed {
        Allowed::Range(lo, hi) => !s.apart(*lo, *hi),
        Allowed::Points(values) => s.value().is_some_and(|v| values.contains(&v)),
    }
}

/// Whether every value of `post` meets the bound.
/// A pointer `pointing` names meets a bound when every array it may
/// point to is allowed.
fn meets(
    (at, allowed): &(Element, Allowed),
    post: &[Vec<Held>],
    pointing: &[(usize, Vec<i32>)],
) -> bool {
    let held = post[at.0][at.1].span;
    match allowed {
        Allowed::Range(lo, hi) => held.inside(*lo, *hi),
        Allowed::Points(values) => match held.value() {
            Some(v) => values.contains(&v),
            None => (pointing.iter())
                .any(|(g, arrays)| (*g, 0) == *at && arrays.iter().all(|a| values.contains(a))),
        },
    }
}

/// Whether every congruence holds after the step: met by the one value
/// left, or by what is known of the value modulo a multiple of the
/// congruence's modulus (from before the step, where the variable was
/// congruent already, or from constants alone).
fn congruent(r: &Resolved, post: &[Vec<Held>]) -> bool {
    r.congruences.iter().all(|&(at, m, rest)| {
        let held = post[at.0][at.1];
        let meets = |v: i64| v.rem_euclid(m) == rest;
        match (held.span.value(), held.base) {
            (Some(v), _) => meets(v.into()),
            _ if !held.modulus.is_multiple_of(m as u64) => false,
            (None, None) => meets(held.rest),
            // Congruent before the step, and shifted by a multiple of `m`.
            (None, Some(base)) => base == at && held.rest.rem_euclid(m) == 0,
        }
    })
}

#[cfg(test)]
mod tests;
