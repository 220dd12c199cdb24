//! Tests of the solver-free reading of a region's obligations.

use super::*;
use crate::certificate::format::Region;

/// Input 1 counts `x` up to 9, input 2 copies `x` into `y`; error 0
/// when `x` passes 9.
const COUNTER: &str = r#"
    extern void __VERIFIER_error(int);
    int inputs[] = {1, 2};
    int cf = 1;
    int x = 0;
    int y = 0;
    void errorCheck() {
        if (x > 9) { cf = 0; __VERIFIER_error(0); }
    }
    void calculate_output(int input) {
        cf = 1;
        if ((cf == 1 && input == 1) && x < 9) {
            cf = 0; x = x + 1; printf("%d\n", 21); fflush(stdout);
        }
        if (cf == 1 && input == 2) {
            cf = 0; y = x; printf("%d\n", 22); fflush(stdout);
        }
        errorCheck();
        if (cf == 1) fprintf(stderr, "Invalid input: %d\n", input);
    }
    int main() {
        while (1) {
            int input;
            scanf("%d", &input);
            if ((input != 1) && (input != 2)) return -2;
            calculate_output(input);
        }
    }
"#;

struct ByName(Program);

impl Names for ByName {
    type Error = ();
    fn element(&self, v: &Var) -> Result<Element, ()> {
        let globals = &self.0.globals;
        let g = globals.iter().position(|g| g.name == v.name).ok_or(())?;
        Ok((g, v.index.unwrap_or(0)))
    }
    fn array_value(&self, name: &str) -> Result<i32, ()> {
        let globals = &self.0.globals;
        let g = globals.iter().position(|g| g.name == name).ok_or(())?;
        Ok(g as i32)
    }
}

fn var(name: &str) -> Var {
    Var {
        name: name.into(),
        index: None,
    }
}

/// The region `x in x.0..=x.1`, and `y in y.0..=y.1` where given.
fn region(x: (i64, i64), y: Option<(i64, i64)>) -> Region {
    let mut bounds = vec![Bound::Range(var("x"), x.0, x.1)];
    if let Some((lo, hi)) = y {
        bounds.push(Bound::Range(var("y"), lo, hi));
    }
    Region {
        bounds,
        next: Vec::new(),
        edges: Vec::new(),
    }
}

fn counter(regions: Vec<Region>) -> (ByName, Certificate) {
    let p = crate::frontend::c::parse_c("counter.c", COUNTER).expect("parses");
    let c = Certificate {
        unreachable: vec![0],
        holds: Vec::new(),
        congruences: Vec::new(),
        regions,
        strings: Vec::new(),
    };
    (ByName(p), c)
}

/// The box of region `k` of `c`.
fn box_of(names: &ByName, c: &Certificate, k: usize) -> Vec<Vec<Option<Span>>> {
    let mut s: Vec<Vec<Option<Span>>> = vec![vec![None]; names.0.globals.len()];
    for b in &c.regions[k].bounds {
        if let Bound::Range(v, lo, hi) = b {
            let (g, e) = names.element(v).expect("a variable");
            s[g][e] = Some(Span {
                lo: *lo as i32,
                hi: *hi as i32,
            });
        }
    }
    s
}

/// Whether region `k`'s obligations on input `i` hold on its box, and
/// whether they do without cutting it.
fn on_box(names: &ByName, c: &Certificate, k: usize, i: usize) -> (bool, bool) {
    let r = Resolved::new(names, c).expect("resolves");
    let o = Obligations {
        p: &names.0,
        c,
        r: &r,
        k,
        input: &names.0.inputs[i],
        halving: &Halving::default(),
    };
    let b = box_of(names, c, k);
    let whole = matches!(settled_on(&o, &b, true), Settled::Yes);
    (settled_on_box(&o, &b), whole)
}

#[test]
fn halving_stops_where_it_never_pays_and_goes_on_where_it_does() {
    let never = Halving::default();
    for _ in 0..FREE_HALVINGS {
        assert!(never.worth_it());
        never.record(false);
    }
    assert!(!never.worth_it());
    let sometimes = Halving::default();
    for k in 0..10 * FREE_HALVINGS {
        assert!(sometimes.worth_it(), "stopped after {k}");
        sometimes.record(k % HALVING_PAYS_ONE_IN == 0);
    }
    let rarely = Halving::default();
    for k in 0..10 * FREE_HALVINGS {
        rarely.record(k % (4 * HALVING_PAYS_ONE_IN) == 0);
    }
    assert!(!rarely.worth_it());
}

#[test]
fn successors_straddling_two_regions_lie_in_their_union() {
    let (names, c) = counter(vec![region((0, 4), None), region((5, 9), None)]);
    // 0..=4 steps to 1..=5: in no one region, in the union.
    assert_eq!(on_box(&names, &c, 0, 0), (true, true));
    assert_eq!(on_box(&names, &c, 1, 0), (true, true));
}

#[test]
fn a_box_whose_successors_lie_in_no_union_is_settled_by_halves() {
    // y = x: from x in 0..=1 the spans give (x, y) in 0..=1 x 0..=1,
    // and (0, 1) lies in no region; cut along x, each half lands.
    let (names, c) = counter(vec![
        region((0, 1), Some((5, 6))),
        region((0, 0), Some((0, 0))),
        region((1, 1), Some((1, 1))),
    ]);
    assert_eq!(on_box(&names, &c, 0, 1), (true, false));
}

/// Input 1 sets `x` where `p` points to an array starting with 5 (`a`
/// or `c`, not `b`); input 2 points `p` to `b`. Error 0 when `x`
/// passes 1 (never).
const POINTERS: &str = r#"
    extern void __VERIFIER_error(int);
    int inputs[] = {1, 2};
    int a[] = {5, 6};
    int b[] = {7, 8};
    int c[] = {5, 9};
    int *p = a;
    int cf = 1;
    int x = 0;
    void errorCheck() {
        if (x > 1) { cf = 0; __VERIFIER_error(0); }
    }
    void calculate_output(int input) {
        cf = 1;
        if ((cf == 1 && input == 1) && p[0] == 5) {
            cf = 0; x = 1; printf("%d\n", 21); fflush(stdout);
        }
        if (cf == 1 && input == 2) {
            cf = 0; p = b; printf("%d\n", 22); fflush(stdout);
        }
        errorCheck();
        if (cf == 1) fprintf(stderr, "Invalid input: %d\n", input);
    }
    int main() {
        while (1) {
            int input;
            scanf("%d", &input);
            if ((input != 1) && (input != 2)) return -2;
            calculate_output(input);
        }
    }
"#;

/// Element 0 of array `a` is `v`.
fn first(a: &str, v: i64) -> Bound {
    let at = Var {
        name: a.into(),
        index: Some(0),
    };
    Bound::Range(at, v, v)
}

/// Region `k`'s obligations on input `i` on its box, in a certificate
/// of [`POINTERS`] whose regions each bound `x` and `p` (and fix the
/// arrays' first elements, which the program never writes).
fn pointing(regions: &[((i64, i64), &[&str])], k: usize, i: usize) -> bool {
    let p = crate::frontend::c::parse_c("pointers.c", POINTERS).expect("parses");
    let regions = (regions.iter())
        .map(|&((lo, hi), arrays)| Region {
            bounds: vec![
                Bound::Range(var("x"), lo, hi),
                Bound::PointsTo(var("p"), arrays.iter().map(|a| a.to_string()).collect()),
                first("a", 5),
                first("b", 7),
                first("c", 5),
            ],
            next: Vec::new(),
            edges: Vec::new(),
        })
        .collect();
    let c = Certificate {
        unreachable: vec![0],
        holds: Vec::new(),
        congruences: Vec::new(),
        regions,
        strings: Vec::new(),
    };
    on_box(&ByName(p), &c, k, i).0
}

#[test]
fn a_pointer_to_one_of_several_arrays_reads_each_of_them() {
    // From p in {a, c}, input 1 sets x either way; input 2 points p to b.
    let closed: &[((i64, i64), &[&str])] = &[((0, 1), &["a", "c"]), ((0, 1), &["b"])];
    for (k, i) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
        assert!(pointing(closed, k, i), "region {k}, input {i}");
    }
    // x = 0 with p in {a, b}: p = a sets x to 1, out of the region.
    let leaks: &[((i64, i64), &[&str])] = &[((0, 0), &["a", "b"]), ((0, 1), &["b"])];
    assert!(!pointing(leaks, 0, 0));
    // With p in {b} alone, p[0] is 7: input 1 is invalid and stays.
    let stays: &[((i64, i64), &[&str])] = &[((0, 0), &["b"])];
    assert!(pointing(stays, 0, 0));
    // Input 2 points p to b, which no region allows.
    assert!(!pointing(&[((0, 1), &["a", "c"])], 0, 1));
    // From p in {a, b}, input 1 sets x where p is a (p[0] == 5 keeps
    // a alone): a region with x = 1 and p to a holds the successor.
    let narrowed: &[((i64, i64), &[&str])] = &[((0, 0), &["a", "b"]), ((1, 1), &["a"])];
    assert!(pointing(narrowed, 0, 0));
    // From p in {a, c} both set x: the successor may point to c.
    let both: &[((i64, i64), &[&str])] = &[((0, 0), &["a", "c"]), ((1, 1), &["a"])];
    assert!(!pointing(both, 0, 0));
}

#[test]
fn halves_never_settle_what_does_not_hold() {
    // From 8, x steps to 9, which no region holds.
    let (names, c) = counter(vec![region((0, 4), None), region((5, 8), None)]);
    assert_eq!(on_box(&names, &c, 1, 0), (false, false));
    assert_eq!(on_box(&names, &c, 0, 0), (true, true));
    // y = x from x in 0..=1 lands on the diagonal, which misses (1, 1).
    let (names, c) = counter(vec![
        region((0, 1), Some((5, 6))),
        region((0, 0), Some((0, 0))),
        region((1, 1), Some((0, 0))),
    ]);
    assert_eq!(on_box(&names, &c, 0, 1), (false, false));
    // x > 9 (error 0, claimed) lies past 9: a region up to 10 reaches it.
    let (names, c) = counter(vec![region((0, 10), None)]);
    assert_eq!(on_box(&names, &c, 0, 0), (false, false));
}

#[test]
fn halves_keep_only_the_congruent_values() {
    let at = (3, 0);
    let even = [(at, 2, 0)];
    assert_eq!(congruent_span(&even, at, 1, 5), Some(Span { lo: 2, hi: 4 }));
    assert_eq!(congruent_span(&even, at, 1, 1), None);
    assert_eq!(congruent_span(&even, (2, 0), 1, 1), Some(Span::single(1)));
    let (lo, hi) = (i32::MIN, i32::MAX);
    assert_eq!(
        congruent_span(&[(at, 3, 2)], at, lo, hi),
        Some(Span {
            lo: lo + 1,
            hi: hi - 2
        })
    );
}

#[test]
fn boxes_are_cut_along_the_culprit_else_the_widest_bounded_span() {
    let b = vec![
        vec![Some(Span { lo: 0, hi: 3 })],
        vec![Some(Span::ALL)],
        vec![Some(Span { lo: -10, hi: 10 }), Some(Span::single(4))],
    ];
    assert_eq!(cut_along(&b, Some((0, 0))), Some((0, 0)));
    assert_eq!(cut_along(&b, Some((2, 1))), Some((2, 0)));
    assert_eq!(cut_along(&b, None), Some((2, 0)));
    assert_eq!(cut_along(&[vec![Some(Span::single(1))]], None), None);
}

#[test]
fn the_index_of_regions_keeps_every_region_that_holds_or_meets_a_box() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_pcg::Pcg64::seed_from_u64(11);
    let span = |lo: i32, hi: i32| Span { lo, hi };
    for _ in 0..200 {
        // Regions over three elements: each bound fixed, a range, or
        // absent.
        let regions: Vec<Vec<(Element, Allowed)>> = (0..rng.random_range(0..12))
            .map(|_| {
                (0..3)
                    .filter_map(|e| {
                        let lo = rng.random_range(0..4i64);
                        match rng.random_range(0..3) {
                            0 => Some(((0, e), Allowed::Range(lo, lo))),
                            1 => Some(((0, e), Allowed::Range(lo, lo + 2))),
                            _ => None,
                        }
                    })
                    .collect()
            })
            .collect();
        let r = Resolved {
            by_value: ByValue::new(&regions),
            pointing: vec![Vec::new(); regions.len()],
            regions,
            congruences: Vec::new(),
        };
        let held = |s: Span| Held {
            span: s,
            base: None,
            modulus: 0,
            rest: 0,
        };
        let post: Vec<Vec<Held>> = vec![(0..3)
            .map(|_| {
                let lo = rng.random_range(0..5);
                held(span(lo, lo + rng.random_range(0..2)))
            })
            .collect()];
        let every = (r.regions.iter()).any(|bounds| bounds.iter().all(|b| meets(b, &post, &[])));
        assert_eq!(r.some_region_holds(&post, &[]), every);
        // No region is left out that holds the box, or meets it.
        let (holding, meeting) = (r.candidates(&post, false), r.candidates(&post, true));
        for (k, bounds) in r.regions.iter().enumerate() {
            if bounds.iter().all(|b| meets(b, &post, &[])) {
                assert!(holding.contains(&k));
            }
            if (bounds.iter()).all(|(at, a)| overlaps(post[at.0][at.1].span, a)) {
                assert!(meeting.contains(&k));
            }
        }
    }
}
