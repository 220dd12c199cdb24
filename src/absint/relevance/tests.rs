use super::*;

/// The bundled modes problem, compiled, with the slot of each global.
fn modes() -> (Program, Machine) {
    let path = format!(
        "{}/problems/reach-modes/Problem909.c",
        env!("CARGO_MANIFEST_DIR")
    );
    let p = crate::frontend::load(&path).expect("loads");
    let m = Machine::compile(&p).expect("compiles");
    (p, m)
}

fn slot(p: &Program, m: &Machine, name: &str) -> usize {
    let g = p.globals.iter().position(|g| g.name == name).expect(name);
    match m.layout().storage[g] {
        Storage::State(a) => a as usize,
        ref other => panic!("{name} is {other:?}"),
    }
}

#[test]
fn flat_sites_hold_each_comparison_once_and_every_site_as_listed() {
    let (p, m) = modes();
    let mut b = Builder {
        p: &p,
        m: &m,
        sites: Vec::new(),
        too_big: false,
    };
    b.block(&p.function(p.step).body, 0);
    let flat = FlatSites::new(&b.sites);
    let all: usize = b.sites.iter().map(|s| s.atoms.len()).sum();
    assert!(flat.atoms.len() < all, "the modes repeat their comparisons");
    for (i, a) in flat.atoms.iter().enumerate() {
        assert!(!flat.atoms[..i].contains(a), "{a:?} listed twice");
    }
    assert_eq!(flat.sites.len(), b.sites.len());
    for (site, f) in b.sites.iter().zip(&flat.sites) {
        let atoms: Vec<Atom> = (flat.atoms_of(f).iter())
            .map(|&k| flat.atoms[k as usize])
            .collect();
        assert_eq!(atoms, site.atoms);
        assert_eq!(flat.reads_of(f), &site.reads[..]);
        assert_eq!(f.end, site.end);
    }
}

#[test]
fn the_mode_decides_what_is_relevant() {
    let (p, m) = modes();
    let r = Relevance::new(&p, &m).expect("small program");
    let (sm, ss, sc) = (slot(&p, &m, "m"), slot(&p, &m, "s"), slot(&p, &m, "c"));
    let mut state = vec![Interval::point(0); m.layout().state_width as usize];
    // Mode 1: the error checks on s may fire, so s matters; c is only
    // compared in mode 2, and the mode refutes that check.
    state[sm] = Interval::point(1);
    let rel = r.relevant(&state);
    assert!(rel[sm] && rel[ss]);
    // Mode 2: s is neither read nor checked; c is stepped and checked.
    state[sm] = Interval::point(2);
    let rel = r.relevant(&state);
    assert!(rel[sm] && rel[sc] && !rel[ss]);
}

#[test]
fn the_memo_is_given_up_when_it_seldom_answers() {
    let (p, m) = modes();
    let r = Relevance::new(&p, &m).expect("small program");
    let sm = slot(&p, &m, "m");
    let mut state = vec![Interval::point(0); m.layout().state_width as usize];
    let mut asked = Vec::new();
    for mode in 0..(MEMO_TRIAL as i32 + 8) {
        state[sm] = Interval::point(mode % 4);
        asked.push((state.clone(), r.relevant(&state)));
    }
    // Four modes: the memo answers nearly every question and stays.
    assert!(2 * r.remembered.load(Ordering::Relaxed) >= r.asked.load(Ordering::Relaxed));
    // A memo that seldom answered is given up, with the same answers.
    r.remembered.store(0, Ordering::Relaxed);
    for (state, rel) in &asked[..8] {
        assert_eq!(&r.relevant(state), rel);
    }
    assert_eq!(r.remembered.load(Ordering::Relaxed), 0);
}

/// The bundled pointers problem: rules that compare the elements of
/// the arrays pointers point to, as the 2019 challenge programs do.
/// Also the slot of `cell[0]` (the array the steps write) and the
/// initial state as points.
fn pointers() -> (Program, Machine, usize, Vec<Interval>) {
    use crate::system::System;
    let (p, m) = crate::absint::bundled("reach-pointers/Problem912.c");
    let g = p
        .globals
        .iter()
        .position(|g| g.name == "cell")
        .expect("cell");
    let (cell, _) = m.layout().array_at(g as i32).expect("an array");
    assert!(cell < m.layout().state_width, "the steps write `cell`");
    let init = (m.initial_state().iter())
        .map(|&v| Interval::point(v))
        .collect();
    (p, m, cell as usize, init)
}

#[test]
fn a_pointer_to_an_array_refutes_the_rules_its_elements_rule_out() {
    let (p, m, cell, mut state) = pointers();
    let r = Relevance::new(&p, &m).expect("small program");
    let (sp, sx, sz) = (slot(&p, &m, "p"), slot(&p, &m, "x"), slot(&p, &m, "z"));
    let global = |name: &str| p.globals.iter().position(|g| g.name == name).expect(name) as i32;
    // p points to `one`: the rule on `3 == p[0]` cannot run, so `x`,
    // which only it reads, does not matter; `cell[1]` is 0, so the rule
    // on `q[1] == 2` cannot run either, `z` does not matter, and the
    // element is the witness kept.
    assert_eq!(state[sp], Interval::point(global("one")));
    let rel = r.relevant(&state);
    assert!(rel[sp] && !rel[sx] && !rel[sz] && rel[cell + 1]);
    // p points to `two` and `cell[1]` may be 2: both rules may run.
    state[sp] = Interval::point(global("two"));
    state[cell + 1] = Interval::new(0, 2).expect("ordered");
    let rel = r.relevant(&state);
    assert!(rel[sx] && rel[sz]);
    // A pointer that may be either array refutes nothing.
    state[sp] = Interval::new(
        global("one").min(global("two")) as i64,
        global("one").max(global("two")) as i64,
    )
    .expect("ordered");
    assert!(r.relevant(&state)[sx]);
}

#[test]
fn a_refuted_site_keeps_one_witness() {
    let atom = Atom {
        on: Operand::Slot(0),
        op: BinOp::Le,
        value: -90,
    };
    assert!(atom.refuted_by(Interval::new(-89, 5).unwrap()));
    assert!(!atom.refuted_by(Interval::new(-90, 5).unwrap()));
    let ne = Atom {
        on: Operand::Slot(0),
        op: BinOp::Ne,
        value: 3,
    };
    assert!(ne.refuted_by(Interval::point(3)));
    assert!(!ne.refuted_by(Interval::new(3, 4).unwrap()));
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
    /// The memo key holds the pointers and the elements they may
    /// read: asked in any order, the memo answers as the computation.
    #[test]
    fn the_memo_key_holds_the_pointers(
        picks in proptest::collection::vec((0i64..6, 0i64..6, -1i64..4, -1i64..4), 1..40)
    ) {
        let (p, m, cell, init) = pointers();
        let r = Relevance::new(&p, &m).expect("small program");
        let sp = slot(&p, &m, "p");
        for (a, b, c, d) in picks {
            let mut state = init.clone();
            state[sp] = Interval::new(a.min(b), a.max(b)).expect("ordered");
            state[cell + 1] = Interval::new(c.min(d), c.max(d)).expect("ordered");
            proptest::prop_assert_eq!(r.relevant(&state), r.compute(&state));
        }
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]
    /// The memo key holds all the result depends on: moving bounds
    /// within the gaps between the compared constants (the key stays
    /// the same) leaves the result as it was, and the memo answers as
    /// the computation does.
    #[test]
    fn the_memo_key_decides_the_result(
        picks in proptest::collection::vec((0usize..64, 0usize..64, 0u64..u64::MAX), 16)
    ) {
        let (p, m) = modes();
        let r = Relevance::new(&p, &m).expect("small program");
        let width = m.layout().state_width as usize;
        let constants = |k: usize| -> Vec<i64> {
            (r.compared.iter())
                .find(|(slot, _)| *slot as usize == k)
                .map(|(_, v)| v.clone())
                .unwrap_or_default()
        };
        // A bound near a compared constant, and another in its gap.
        let near = |k: usize, i: usize| -> i64 {
            let c = constants(k);
            match c.len() {
                0 => i as i64 - 32,
                n => c[i % n] + (i / n % 3) as i64 - 1,
            }
        };
        let moved = |k: usize, b: i64, seed: u64| -> i64 {
            let c = constants(k);
            if c.contains(&b) {
                return b;
            }
            let above = c.partition_point(|&v| v < b);
            let lo = if above == 0 { i32::MIN as i64 } else { c[above - 1] + 1 };
            let hi = c.get(above).map_or(i32::MAX as i64, |v| v - 1);
            lo + (seed % (hi - lo + 1) as u64) as i64
        };
        let s: Vec<Interval> = (0..width)
            .map(|k| {
                let (i, j, _) = picks[k % picks.len()];
                let (a, b) = (near(k, i), near(k, j));
                Interval::new(a.min(b), a.max(b)).expect("ordered bounds")
            })
            .collect();
        let t: Vec<Interval> = (s.iter().enumerate())
            .map(|(k, x)| {
                let seed = picks[k % picks.len()].2;
                let (a, b) = (moved(k, x.lo, seed), moved(k, x.hi, seed.rotate_left(17)));
                Interval::new(a.min(b), a.max(b)).expect("ordered bounds")
            })
            .collect();
        proptest::prop_assert_eq!(r.memo_key(&s), r.memo_key(&t));
        proptest::prop_assert_eq!(r.compute(&s), r.compute(&t));
        proptest::prop_assert_eq!(r.relevant(&s), r.compute(&s));
        proptest::prop_assert_eq!(r.relevant(&t), r.compute(&s));
        // One bound of one slot moved anywhere near another constant:
        // a memo key that missed it would answer with `s`'s result.
        for (k, &(i, j, seed)) in picks.iter().enumerate() {
            let slot = (seed % width as u64) as usize;
            let mut u = s.clone();
            let b = near(slot, i + j + k);
            u[slot] = if seed % 2 == 0 {
                Interval::new(b.min(u[slot].hi), u[slot].hi.max(b))
            } else {
                Interval::new(u[slot].lo.min(b), b.max(u[slot].lo))
            }
            .expect("ordered bounds");
            proptest::prop_assert_eq!(r.relevant(&u), r.compute(&u));
        }
    }
}
