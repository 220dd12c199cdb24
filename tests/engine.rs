//! The per-input specialised step code is the same function as the generic
//! code: both are run on every explored state and input of real programs.

use crate::common;

use rigor::engine::Machine;
use rigor::explore::{explore, Options};
use rigor::runtime::Budget;
use rigor::system::System;
use std::path::PathBuf;

/// Runs both machines on the first `max` states of `path`.
fn same_steps(path: &str, max: u64) {
    let program = rigor::frontend::load(path).expect("loads");
    let fast = Machine::compile(&program).expect("compiles");
    let generic = Machine::compile_generic(&program).expect("compiles");
    let ex = explore(
        &fast,
        &Budget::unlimited().with_max_states(max),
        &Options::default(),
    );
    let w = fast.state_width();
    let (mut s, mut n1, mut n2) = (vec![0; w], vec![0; w], vec![0; w]);
    let (mut k1, mut k2) = (fast.scratch(), generic.scratch());
    for id in 0..ex.store.len() {
        ex.store.get(id, &mut s);
        for i in 0..fast.n_inputs() {
            let a = fast.step(&mut k1, &s, i, &mut n1);
            let b = generic.step(&mut k2, &s, i, &mut n2);
            assert_eq!(
                format!("{a:?}"),
                format!("{b:?}"),
                "{path}: state {id} input {i}"
            );
            if matches!(a, Ok(o) if o.goes_on()) {
                assert_eq!(n1, n2, "{path}: state {id} input {i}");
            }
        }
    }
}

#[test]
fn specialised_code_matches_generic_code_on_bundled_problems() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("problems");
    for e in std::fs::read_dir(dir).unwrap() {
        for f in std::fs::read_dir(e.unwrap().path()).into_iter().flatten() {
            let f = f.unwrap().path();
            if f.extension().is_some_and(|x| x == "c") {
                same_steps(&f.to_string_lossy(), 100_000);
            }
        }
    }
}

#[test]
fn specialised_code_matches_generic_code_on_rers_programs() {
    let Some(dir) = common::rers_dir() else {
        return;
    };
    for rel in [
        "2012/Problem1.c",
        "2012/Problem4.c",
        "2014/Problem1402_opt.c",
        "2017/seq-reach/Problem10/Problem10.c",
        "2017/seq-reach/Problem11/Problem11.c",
        "2019/training-seq-reach/Problem11/Problem11.c",
        "2019/training-seq-reach/Problem12/Problem12.c",
        "2019/training-seq-reach/Problem13/Problem13.c",
        // Rules that set `cf = 0` and fall into the next rule's guard: the
        // shape jump threading is for.
        "2019/seq-reach/Problem14/Problem14.c",
    ] {
        same_steps(&dir.join(rel).to_string_lossy(), 20_000);
    }
}
