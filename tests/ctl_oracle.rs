//! The fixpoint CTL checker agrees with the slow path-enumerating evaluator
//! on random formulas over random small systems (dead ends, self-loops,
//! parallel edges and actions the system lacks included).

use proptest::prelude::*;
use rigor::ctl::{slow, Checker, Formula};
use rigor::lts::{Lts, LtsBuilder};

fn action() -> impl Strategy<Value = Option<String>> {
    prop_oneof![
        3 => Just(None),
        3 => Just(Some("a".to_string())),
        3 => Just(Some("b".to_string())),
        1 => Just(Some("error".to_string())),
        1 => Just(Some("nosuch".to_string())),
    ]
}

fn formula() -> impl Strategy<Value = Formula> {
    let leaf = prop_oneof![Just(Formula::True), Just(Formula::False)];
    leaf.prop_recursive(5, 24, 2, |inner| {
        let b = |f: Formula| Box::new(f);
        prop_oneof![
            inner.clone().prop_map(move |f| Formula::Not(b(f))),
            (inner.clone(), inner.clone()).prop_map(move |(f, g)| Formula::And(b(f), b(g))),
            (inner.clone(), inner.clone()).prop_map(move |(f, g)| Formula::Or(b(f), b(g))),
            (inner.clone(), inner.clone()).prop_map(move |(f, g)| Formula::Implies(b(f), b(g))),
            (inner.clone(), inner.clone()).prop_map(move |(f, g)| Formula::Iff(b(f), b(g))),
            (action(), inner.clone()).prop_map(move |(a, f)| Formula::Box(a, b(f))),
            (action(), inner.clone()).prop_map(move |(a, f)| Formula::Diamond(a, b(f))),
            (inner.clone(), inner.clone()).prop_map(move |(f, g)| Formula::AU(b(f), b(g))),
            (inner.clone(), inner.clone()).prop_map(move |(f, g)| Formula::EU(b(f), b(g))),
            (inner.clone(), inner.clone()).prop_map(move |(f, g)| Formula::AW(b(f), b(g))),
            (inner.clone(), inner.clone()).prop_map(move |(f, g)| Formula::EW(b(f), b(g))),
            inner.clone().prop_map(move |f| Formula::AG(b(f))),
            inner.clone().prop_map(move |f| Formula::EG(b(f))),
            inner.clone().prop_map(move |f| Formula::AF(b(f))),
            inner.clone().prop_map(move |f| Formula::EF(b(f))),
        ]
    })
}

fn system() -> impl Strategy<Value = Lts> {
    (1u32..=5)
        .prop_flat_map(|n| {
            let edge = (0..n, prop_oneof![Just("a"), Just("b"), Just("error")], 0..n);
            (Just(n), 0..n, proptest::collection::vec(edge, 0..=9))
        })
        .prop_map(|(n, init, edges)| {
            let mut b = LtsBuilder::new();
            b.ensure_states(n);
            b.initial(init);
            for (f, l, t) in edges {
                b.edge(f, l, t);
            }
            b.finish()
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4000, ..ProptestConfig::default() })]

    #[test]
    fn fixpoints_agree_with_path_enumeration(lts in system(), f in formula()) {
        let fast = Checker::new(&lts).sat(&f);
        let slow = slow::sat(&lts, &f, lts.n_states as usize + 1);
        prop_assert_eq!(&fast, &slow, "formula {}", f);
        let kleene = slow::kleene_sat(&lts, &f);
        prop_assert_eq!(&kleene, &slow, "kleene, formula {}", f);
    }

    #[test]
    fn witnesses_are_paths_of_the_system(lts in system(), f in formula()) {
        let c = Checker::new(&lts);
        if let Some(w) = c.witness(&f) {
            prop_assert_eq!(w.states[0], lts.initial);
            prop_assert_eq!(w.labels.len() + 1, w.states.len());
            for (k, l) in w.labels.iter().enumerate() {
                let li = lts.label_index(l).unwrap();
                prop_assert!(lts.transitions.iter().any(|t| t.from == w.states[k] && t.label == li && t.to == w.states[k + 1]));
            }
            if w.deadlock {
                let last = *w.states.last().unwrap();
                prop_assert!(!lts.transitions.iter().any(|t| t.from == last));
            }
            if let Some(k) = w.cycle_from {
                prop_assert_eq!(w.states[k], *w.states.last().unwrap());
            }
        }
    }
}
