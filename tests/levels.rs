//! The level-synchronous search on several threads (`explore::levels`) is
//! the sequential breadth-first search (`explore::bfs`), state for state:
//! the same state counts, depths, errors, faults and shortest witnesses,
//! on random explicit systems and on real programs, for 1 to 3 threads and
//! levels expanded in rounds of any length.

use crate::common;

use proptest::prelude::*;
use rigor::engine::Machine;
use rigor::explore::levels::explore_in_rounds;
use rigor::explore::{explore, explore_levels, Exploration, Options};
use rigor::runtime::{Budget, StopReason};
use rigor::system::{replay, Outcome, StateGraph, System, NO_STATE};

/// What both searches must agree on.
fn summary<S: System>(sys: &S, ex: &Exploration) -> String {
    let witnesses: Vec<_> = (sys.error_labels().iter())
        .map(|&l| (l, ex.witness(l)))
        .collect();
    let faults: Vec<_> = (ex.faults.iter())
        .map(|f| (f.state, f.input, ex.path_to(f.state)))
        .collect();
    format!(
        "states {} expanded {} depth {} transitions {} stopped {:?}\nerrors {:?}\nwitnesses {:?}\nfaults {:?}",
        ex.graph.n_states,
        ex.graph.n_expanded,
        ex.depth,
        ex.transitions,
        ex.stopped,
        ex.errors,
        witnesses,
        faults
    )
}

/// The option sets compared: the whole system, stopping once every label
/// is found, and stopping once some (or none) are.
fn option_sets<S: System>(sys: &S) -> Vec<Options> {
    let labels = sys.error_labels();
    let mut sets = vec![
        Options::default(),
        Options {
            stop_when_all_errors_found: true,
            ..Options::default()
        },
    ];
    let mut subsets = vec![Vec::new()];
    subsets.extend(labels.iter().take(4).map(|&l| vec![l]));
    subsets.push(labels.iter().copied().step_by(2).collect());
    for wanted in subsets {
        sets.push(Options {
            stop_when_all_errors_found: true,
            wanted_errors: Some(wanted),
            ..Options::default()
        });
    }
    sets
}

/// Both searches, for every option set and 1 to 3 threads.
fn agree<S: System + Sync>(sys: &S, what: &str) {
    for opts in option_sets(sys) {
        // Programs with counters never end: those are compared where the
        // sequential search ends within the bound.
        let budget = Budget::unlimited().with_max_states(200_000);
        let reference = explore(sys, &budget, &opts);
        if reference.stopped == Some(StopReason::MaxStates) {
            continue;
        }
        let sequential = summary(sys, &reference);
        // Rounds of 1, 2 and 7 states, and as many as the search picks.
        for (threads, round) in [(1, 0), (2, 0), (3, 0), (1, 1), (2, 2), (3, 7)] {
            let opts = Options {
                threads,
                ..opts.clone()
            };
            let ex = match round {
                0 => explore_levels(sys, &budget, &opts),
                r => explore_in_rounds(sys, &budget, &opts, r),
            };
            assert_eq!(
                summary(sys, &ex),
                sequential,
                "{what}: {threads} threads, rounds of {round}, wanted {:?}, stop {}",
                opts.wanted_errors,
                opts.stop_when_all_errors_found
            );
            for &(l, _, _) in &ex.errors {
                let w = ex.witness(l).expect("a witness");
                assert_eq!(replay(sys, &w), Ok(Outcome::Error(l)), "{what}");
            }
        }
    }
}

/// A random explicit system: some states have no row (a step into them
/// faults when taken again), edges end in errors, blocks, invalid inputs
/// and self-loops.
fn system() -> impl Strategy<Value = StateGraph> {
    (1usize..40, 1usize..5, 1usize..4).prop_flat_map(|(rows, inputs, labels)| {
        let edge = (0u32..(rows as u32 + 3), 0u8..10, 0u32..labels as u32);
        prop::collection::vec(prop::collection::vec(edge, inputs), rows).prop_map(move |table| {
            let rows: Vec<Vec<(u32, Outcome)>> = (table.into_iter())
                .map(|row| {
                    (row.into_iter())
                        .map(|(t, kind, l)| match kind {
                            0 => (NO_STATE, Outcome::Error(l)),
                            1 => (NO_STATE, Outcome::Blocked),
                            2 => (NO_STATE, Outcome::Invalid),
                            3 => (t, Outcome::Silent),
                            _ => (t, Outcome::Output(kind as u16 % 2)),
                        })
                        .collect()
                })
                .collect();
            StateGraph::from_rows(
                (0..inputs).map(|i| format!("i{i}")).collect(),
                vec!["oX".into(), "oY".into()],
                &rows,
            )
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn agrees_with_the_sequential_search_on_random_systems(g in system()) {
        agree(&g, "random system");
    }
}

#[test]
fn a_system_without_inputs_has_its_initial_state_only() {
    let g = StateGraph::from_rows(Vec::new(), Vec::new(), &[Vec::new()]);
    agree(&g, "no inputs");
}

fn machine(path: &std::path::Path) -> Machine {
    Machine::compile(&rigor::frontend::load(&path.to_string_lossy()).expect("loads"))
        .expect("compiles")
}

#[test]
fn agrees_with_the_sequential_search_on_bundled_problems() {
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("problems");
    for e in std::fs::read_dir(dir).unwrap() {
        for f in std::fs::read_dir(e.unwrap().path()).into_iter().flatten() {
            let f = f.unwrap().path();
            if f.extension().is_some_and(|x| x == "c") {
                agree(&machine(&f), &f.to_string_lossy());
            }
        }
    }
}

#[test]
fn agrees_with_the_sequential_search_on_rers_programs() {
    let Some(dir) = common::rers_dir() else {
        return;
    };
    for rel in [
        "2012/Problem1.c",
        "2014/Problem1401_opt.c",
        "2014/Problem1402_opt.c",
    ] {
        let path = dir.join(rel);
        if path.is_file() {
            agree(&machine(&path), rel);
        }
    }
}

#[test]
fn limits_stop_the_search_with_sound_answers() {
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("problems/reach-deep/Problem905.c");
    let m = machine(&path);
    let opts = Options {
        threads: 2,
        ..Options::default()
    };
    let ex = explore_levels(&m, &Budget::unlimited().with_max_states(50), &opts);
    assert_eq!(ex.stopped, Some(StopReason::MaxStates));
    assert!(!ex.is_complete());
    for &(l, _, _) in &ex.errors {
        assert_eq!(replay(&m, &ex.witness(l).unwrap()), Ok(Outcome::Error(l)));
    }
    let timed_out = Budget::unlimited().with_timeout(std::time::Duration::ZERO);
    let ex = explore_levels(&m, &timed_out, &opts);
    assert_eq!(ex.stopped, Some(StopReason::Timeout));
}
