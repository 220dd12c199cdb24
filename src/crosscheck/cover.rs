//! Whether a box of states lies inside a union of boxes, decided on the
//! values alone, without the solver.
//!
//! A step's successor is held by the box of its values' hulls; where that
//! box lies inside the union of the certificate's regions, consecution
//! holds on that path whatever the terms say. One region rarely holds a
//! whole successor box of a wide region while their union does (a value
//! whose hull straddles the bound between two regions), and the solver may
//! find such a query hard (a product of two variables, then remainders).
//! The box is cut along the bounds of a region it meets, and each piece is
//! tried again: the pieces hold every state of the box, so a box all of
//! whose pieces lie in some region lies in the union.

use super::value::Hull;

/// A region as the values it allows, by position of the state.
pub type Allowed = Vec<(usize, Hull)>;

/// Most pieces a box is cut into before the answer is "cannot tell".
const MOST_PIECES: usize = 512;

/// Whether every state of `post` lies in one of `regions`, those numbered
/// in `first` (a hint) tried first; `false` where this cannot tell.
pub fn covered(post: &[Hull], regions: &[Allowed], first: &[usize]) -> bool {
    let order = || (first.iter().copied()).chain(0..regions.len());
    let mut todo = vec![post.to_vec()];
    let mut pieces = 0;
    while let Some(b) = todo.pop() {
        let mut meeting = None;
        let mut inside = false;
        for r in order().map(|r| &regions[r]) {
            if r.iter().all(|(at, a)| within(&b[*at], a)) {
                inside = true;
                break;
            }
            if meeting.is_none() && r.iter().all(|(at, a)| meets(&b[*at], a)) {
                meeting = Some(r);
            }
        }
        if inside {
            continue;
        }
        // Cut along the first bound of a region it meets that does not
        // hold it: the part inside that bound is nearer that region.
        let Some((at, a)) = meeting.and_then(|r| r.iter().find(|(at, a)| !within(&b[*at], a)))
        else {
            return false;
        };
        let parts = split(&b[*at], a);
        pieces += parts.len();
        if pieces > MOST_PIECES {
            return false;
        }
        for part in parts {
            let mut c = b.clone();
            c[*at] = part;
            todo.push(c);
        }
    }
    true
}

/// Whether every value of `h` is allowed by `a`.
fn within(h: &Hull, a: &Hull) -> bool {
    match (h.values(), a.values()) {
        (Some(v), _) => v.iter().all(|&k| a.may_be(k)),
        (None, Some(allowed)) => {
            // A range is within a list only where the list has all of it.
            let (lo, hi) = h.bounds();
            let n = (allowed.iter())
                .filter(|&&k| (lo..=hi).contains(&k))
                .count();
            n as i64 == hi as i64 - lo as i64 + 1
        }
        (None, None) => {
            let ((lo, hi), (p, q)) = (h.bounds(), a.bounds());
            p <= lo && hi <= q
        }
    }
}

/// Whether some value of `h` is allowed by `a`.
fn meets(h: &Hull, a: &Hull) -> bool {
    match (h.values(), a.values()) {
        (Some(v), _) => v.iter().any(|&k| a.may_be(k)),
        (None, Some(allowed)) => allowed.iter().any(|&k| h.may_be(k)),
        (None, None) => {
            let ((lo, hi), (p, q)) = (h.bounds(), a.bounds());
            lo <= q && p <= hi
        }
    }
}

/// `h` cut into the part `a` allows and the parts it does not: together
/// they hold every value of `h`, and none is empty.
fn split(h: &Hull, a: &Hull) -> Vec<Hull> {
    if let Some(v) = h.values() {
        let (yes, no): (Vec<i32>, Vec<i32>) = v.iter().partition(|&&k| a.may_be(k));
        return [yes, no]
            .into_iter()
            .filter(|p| !p.is_empty())
            .map(Hull::Set)
            .collect();
    }
    let (lo, hi) = h.bounds();
    let (lo, hi) = (lo as i64, hi as i64);
    // The values `a` allows, as ranges, and the gaps between them.
    let allowed: Vec<(i64, i64)> = match a.values() {
        Some(v) => v.iter().map(|&k| (k as i64, k as i64)).collect(),
        None => {
            let (p, q) = a.bounds();
            vec![(p as i64, q as i64)]
        }
    };
    let mut parts = Vec::new();
    let mut from = lo;
    let mut inside = Vec::new();
    for (p, q) in allowed {
        let (p, q) = (p.max(lo), q.min(hi));
        if p > q {
            continue;
        }
        if from < p {
            parts.push(Hull::range(from as i32, (p - 1) as i32));
        }
        inside.push((p, q));
        from = q + 1;
    }
    if from <= hi {
        parts.push(Hull::range(from as i32, hi as i32));
    }
    parts.extend(inside.iter().map(|&(p, q)| Hull::range(p as i32, q as i32)));
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn every(h: &Hull) -> Vec<i32> {
        let (lo, hi) = h.bounds();
        (lo..=hi).filter(|&k| h.may_be(k)).collect()
    }

    #[test]
    fn a_box_across_two_regions_is_covered_by_their_union_only() {
        let low: Allowed = vec![(0, Hull::range(-100, -50)), (1, Hull::range(0, 9))];
        let high: Allowed = vec![(0, Hull::range(-49, 200)), (1, Hull::range(0, 9))];
        let post = [Hull::range(-80, 100), Hull::Set(vec![3, 4])];
        assert!(covered(&post, &[low.clone(), high.clone()], &[0, 1]));
        assert!(!covered(&post, std::slice::from_ref(&low), &[0]));
        assert!(!covered(&post, &[high], &[0]));
        // A value no region allows.
        let post = [Hull::range(-80, 100), Hull::Set(vec![3, 10])];
        assert!(!covered(&post, &[low], &[0]));
    }

    #[test]
    fn a_region_on_listed_values_holds_only_those() {
        let pointers: Allowed = vec![(0, Hull::Set(vec![1, 3]))];
        assert!(covered(
            &[Hull::Set(vec![1, 3])],
            std::slice::from_ref(&pointers),
            &[0]
        ));
        assert!(!covered(
            &[Hull::range(1, 3)],
            std::slice::from_ref(&pointers),
            &[0]
        ));
        let two: Allowed = vec![(0, Hull::Set(vec![2]))];
        assert!(covered(&[Hull::range(1, 3)], &[pointers, two], &[0, 1]));
    }

    /// The parts of a split hold every value of the hull, no more, and
    /// each lies wholly inside or wholly outside what is allowed.
    #[test]
    fn split_parts_partition_the_hull() {
        let hulls = [
            Hull::range(-300, 300),
            Hull::range(0, 20),
            Hull::Set(vec![-5, 0, 7, 100]),
            Hull::range(50, 50),
        ];
        let allowed = [
            Hull::range(-100, 100),
            Hull::range(5, 1000),
            Hull::Set(vec![0, 7, 8, 250]),
            Hull::range(-2000, -1000),
        ];
        for h in &hulls {
            for a in &allowed {
                let parts = split(h, a);
                let mut all: Vec<i32> = parts.iter().flat_map(every).collect();
                all.sort_unstable();
                assert_eq!(all, every(h), "{h:?} split by {a:?}");
                for p in &parts {
                    assert!(within(p, a) || !meets(p, a), "{p:?} straddles {a:?}");
                }
            }
        }
    }
}
