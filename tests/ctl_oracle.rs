//! The fixpoint CTL checker agrees with the slow path-enumerating evaluator
//! on random formulas over random small systems (dead ends, self-loops,
//! parallel edges and actions the system lacks included), and the view of
//! an input/output graph as a labelled system agrees with the labelling of
//! `rers-semantics.md`, built here on its own.

use proptest::prelude::*;
use rigor::absint::{AbsEdge, AbsGraph};
use rigor::ctl::{slow, Checker, Formula};
use rigor::lts::{LabelledGraph, Lts, LtsBuilder, ProgramLts};
use rigor::system::{Outcome, StateGraph, NO_STATE};

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

/// One step of an input/output graph: (state, input, outcome, target).
type Step = (u32, usize, Outcome, u32);

/// Random steps over `n` states, inputs `a`, `b`, outputs `x`, `b` (an
/// output may share an input's name: one label then).
fn steps(n: u32) -> impl Strategy<Value = Step> {
    let outcome = prop_oneof![
        4 => (0u16..2).prop_map(Outcome::Output),
        1 => Just(Outcome::Silent),
        2 => Just(Outcome::Invalid),
        2 => (1u32..3).prop_map(Outcome::Error),
        1 => Just(Outcome::Blocked),
    ];
    (0..n, 0usize..2, outcome, 0..n).prop_map(|(s, i, o, t)| match o {
        Outcome::Output(_) | Outcome::Silent => (s, i, o, t),
        Outcome::Invalid if t % 2 == 0 => (s, i, o, t),
        _ => (s, i, o, NO_STATE),
    })
}

const INPUTS: [&str; 2] = ["a", "b"];
const OUTPUTS: [&str; 2] = ["x", "b"];

/// The labelling of `rers-semantics.md`, built from the steps directly:
/// `s -i-> m -o-> t`, `s -i-> m -error-> dead`, `s -i-> m -error_N-> dead`,
/// `s -i-> t` for a silent step, nothing for a blocked one.
fn reference(n: u32, steps: &[Step]) -> Lts {
    let mut b = LtsBuilder::new();
    b.ensure_states(n);
    let dead = b.state();
    for &(s, i, o, t) in steps {
        let end = match o {
            Outcome::Blocked => continue,
            Outcome::Silent => {
                b.edge(s, INPUTS[i], t);
                continue;
            }
            Outcome::Output(k) => (OUTPUTS[k as usize].to_string(), t),
            Outcome::Invalid => ("error".to_string(), dead),
            Outcome::Error(l) => (format!("error_{l}"), dead),
        };
        let m = b.state();
        b.edge(s, INPUTS[i], m);
        b.edge(m, &end.0, end.1);
    }
    b.finish()
}

fn names(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// A random explored program: one step per state and input.
fn program() -> impl Strategy<Value = (u32, Vec<Step>)> {
    (1u32..=4).prop_flat_map(|n| {
        (Just(n), proptest::collection::vec(steps(n), 2 * n as usize)).prop_map(|(n, raw)| {
            let steps = (raw.into_iter().enumerate())
                .map(|(k, (_, _, o, t))| ((k / 2) as u32, k % 2, o, t))
                .collect();
            (n, steps)
        })
    })
}

fn state_graph(n: u32, steps: &[Step]) -> StateGraph {
    let rows: Vec<Vec<(u32, Outcome)>> = (0..n as usize)
        .map(|s| {
            (0..2)
                .map(|i| (steps[2 * s + i].3, steps[2 * s + i].2))
                .collect()
        })
        .collect();
    StateGraph::from_rows(names(&INPUTS), names(&OUTPUTS), &rows)
}

/// A random abstraction: any number of steps per state and input.
fn abstraction() -> impl Strategy<Value = (u32, Vec<Step>)> {
    (1u32..=4).prop_flat_map(|n| (Just(n), proptest::collection::vec(steps(n), 0..=8)))
}

fn abs_graph(n: u32, steps: &[Step]) -> AbsGraph {
    let mut edges = vec![Vec::new(); n as usize];
    for &(s, i, o, t) in steps {
        let target = if o == Outcome::Invalid && t == NO_STATE {
            NO_STATE
        } else {
            t
        };
        edges[s as usize].push(AbsEdge {
            input: i as u16,
            packed: o.pack(),
            target,
        });
    }
    let mut g = AbsGraph::default();
    g.inputs = names(&INPUTS);
    g.outputs = names(&OUTPUTS);
    g.values = vec![Vec::new(); n as usize];
    g.edges = edges;
    g
}

/// The view agrees with the reference: bisimilar, the same transition
/// count, and every formula has the same verdict.
fn agrees(view: &impl LabelledGraph, reference: &Lts, f: &Formula) -> Result<(), TestCaseError> {
    let copy = view.to_lts();
    prop_assert!(copy.bisimilar(reference));
    prop_assert_eq!(view.n_transitions(), reference.transitions.len());
    prop_assert_eq!(
        Checker::new(view).holds(f),
        slow::holds(reference, f),
        "formula {}",
        f
    );
    prop_assert_eq!(Checker::new(view).holds(f), Checker::new(&copy).holds(f));
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4000, ..ProptestConfig::default() })]

    #[test]
    fn a_programs_labelled_view_follows_the_semantics((n, steps) in program(), f in formula()) {
        let g = state_graph(n, &steps);
        let view = ProgramLts::new(&g, true);
        prop_assert!(view.is_complete());
        agrees(&view, &reference(n, &steps), &f)?;
    }

    #[test]
    fn an_abstractions_labelled_view_follows_the_semantics((n, steps) in abstraction(), f in formula()) {
        let g = abs_graph(n, &steps);
        agrees(&ProgramLts::new(&g, true), &reference(n, &steps), &f)?;
    }

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
