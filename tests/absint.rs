//! The interval abstraction over-approximates the program: checked by
//! simulation. Every concrete state reached by a plain breadth-first search
//! on the engine must lie in some abstract state, and each of its steps must
//! be matched by an abstract edge with the same input and outcome to an
//! abstract state holding the concrete successor.

mod common;

use std::collections::{HashSet, VecDeque};

use rigor::absint::{explore_abstract, AbsGraph, AbsLimits};
use rigor::engine::Machine;
use rigor::explore::graph::{Outcome, NO_STATE};

fn covers(g: &AbsGraph, s: usize, c: &[i32]) -> bool {
    g.values[s]
        .iter()
        .zip(c)
        .all(|(v, &x)| v.contains(x as i64))
}

/// Checks the simulation on up to `max` concrete states; returns how many
/// were checked.
fn check_simulation(path: &str, max: usize) -> usize {
    let p = rigor::frontend::load(path).expect("loads");
    let m = Machine::compile(&p).expect("compiles");
    let g = explore_abstract(&p, &m, &AbsLimits::default()).expect("abstraction completes");
    let mut scratch = m.scratch();
    let init = m.initial_state();
    let mut seen: HashSet<Vec<i32>> = HashSet::from([init.clone()]);
    let mut queue = VecDeque::from([init]);
    let mut next = vec![0; m.state_width()];
    let mut checked = 0;
    while let Some(c) = queue.pop_front() {
        if checked == max {
            break;
        }
        checked += 1;
        let holders: Vec<usize> = (0..g.n_states()).filter(|&s| covers(&g, s, &c)).collect();
        assert!(!holders.is_empty(), "{path}: state {c:?} not covered");
        for i in 0..m.n_inputs() {
            let Ok(o) = m.step(&mut scratch, &c, i, &mut next) else {
                continue;
            };
            let matched = holders.iter().any(|&s| {
                g.edges[s].iter().any(|e| {
                    e.input as usize == i
                        && e.outcome() == o
                        && match o {
                            Outcome::Error(_) | Outcome::Blocked => e.target == NO_STATE,
                            _ => covers(&g, e.target as usize, &next),
                        }
                })
            });
            assert!(
                matched,
                "{path}: step {c:?} --{i}/{o:?}--> {next:?} not matched"
            );
            if !matches!(o, Outcome::Error(_) | Outcome::Blocked) && seen.insert(next.clone()) {
                queue.push_back(next.clone());
            }
        }
    }
    checked
}

#[test]
fn bundled_problems_are_simulated() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("problems");
    for dir in [
        "reach-arith",
        "reach-invalid",
        "reach-plain",
        "reach-deep",
        "reach-counter",
    ] {
        let d = root.join(dir);
        let file = std::fs::read_dir(&d)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|f| f.extension().is_some_and(|x| x == "c"))
            .unwrap();
        let n = check_simulation(&file.to_string_lossy(), 100_000);
        assert!(n > 0);
    }
}

#[test]
fn rers_arithmetic_problems_are_simulated() {
    let Some(dir) = common::rers_dir() else {
        return;
    };
    for program in [
        "2014/Problem1403.c",
        "2014/Problem1402_opt.c",
        "2019/training-seq-ltl/Problem2/Problem2.java",
        "2019/training-seq-ltl/Problem3/Problem3.c",
        "2019/seq-ltl/Problem2/Problem2.c",
        "2017/seq-reach/Problem10/Problem10.c",
    ] {
        let n = check_simulation(&dir.join(program).to_string_lossy(), 3_000);
        assert!(n > 0, "{program}");
    }
}

/// Where the engine might fault, the abstraction gives up instead of
/// answering: in reach-arrays, `pos = p[0] - p[0]` is `[-2, 2]` on
/// intervals (they do not know both reads are equal), so `cell[pos]` might
/// be out of bounds.
#[test]
fn a_possible_fault_abandons_the_abstraction() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("problems/reach-arrays");
    let file = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|f| f.extension().is_some_and(|x| x == "c"))
        .unwrap();
    let p = rigor::frontend::load(&file.to_string_lossy()).unwrap();
    let m = Machine::compile(&p).unwrap();
    let e = explore_abstract(&p, &m, &AbsLimits::default()).unwrap_err();
    assert!(e.contains("out of bounds"), "{e}");
}

/// Error labels found by the abstraction include every label the
/// exploration reaches (reach-arith: 0 and 2 reachable, 1 and 3 not).
#[test]
fn abstract_error_labels_cover_the_reachable_ones() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("problems/reach-arith");
    let p = rigor::frontend::load(&root.join("Problem902.c").to_string_lossy()).unwrap();
    let m = Machine::compile(&p).unwrap();
    let g = explore_abstract(&p, &m, &AbsLimits::default()).unwrap();
    let labels = g.error_labels();
    assert!(labels.contains(&0) && labels.contains(&2), "{labels:?}");
}
