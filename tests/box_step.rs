//! The certificate checker's solver-free reading of the step
//! (`smt::box_paths`) against the concrete engine, on the bundled problems
//! and some RERS problems of every shape (2012 with its value-returning
//! step, 2019 C and Java).
//!
//! From boxes around states a breadth-first search reaches (one state, or
//! the hull of a few), every concrete step of every state in the box must
//! lie on one of the box's paths: the same end (label, output, silent,
//! invalid), and a successor inside the path's spans and congruent to
//! what the path knows of it. A step the engine faults on must leave the
//! box without paths. And the reading must answer most boxes, so that
//! the test cannot pass by answering none.

use crate::common;

use rand::{Rng, SeedableRng};
use rigor::engine::Machine;
use rigor::ir::{GlobalKind, Program};
use rigor::smt::{box_paths, BoxPath, Held, PathEnd, Span};
use rigor::system::{Outcome, System};

/// Every global's values (per element) in a machine state: the slots'
/// values, and the initial values of the globals the machine keeps out of
/// its states (which the step never reads before writing).
fn values(p: &Program, m: &Machine, state: &[i32]) -> Vec<Vec<i32>> {
    let mut out: Vec<Vec<i32>> = (p.globals.iter())
        .map(|g| match &g.kind {
            GlobalKind::Scalar { init, .. } => vec![*init],
            GlobalKind::Pointer { init } => vec![init.0 as i32],
            GlobalKind::Array { init, .. } => init.clone(),
        })
        .collect();
    for (name, v) in m.layout().slot_names.iter().zip(state) {
        let (g, k) = slot(p, name);
        out[g][k] = *v;
    }
    out
}

/// The global and element a slot name (`x`, `a[3]`) stands for.
fn slot(p: &Program, name: &str) -> (usize, usize) {
    let (base, k) = match name.split_once('[') {
        Some((b, rest)) => (b, rest.trim_end_matches(']').parse().expect("index")),
        None => (name, 0),
    };
    let g = (p.globals.iter().position(|g| g.name == base)).expect("slot of a global");
    (g, k)
}

/// Whether `v` may be the value `held` stands for, given the state before
/// the step.
fn allows(held: &Held, v: i32, before: &[Vec<i32>]) -> bool {
    let base = held.base.map_or(0, |(g, k)| before[g][k] as i128);
    let apart = v as i128 - base - held.rest as i128;
    let congruent = match held.modulus {
        0 => apart == 0,
        m => apart.rem_euclid(m as i128) == 0,
    };
    held.span.contains(v as i64) && congruent
}

/// The end of a path the engine's outcome is.
fn end_of(p: &Program, o: Outcome) -> Option<PathEnd> {
    match o {
        Outcome::Output(k) => Some(PathEnd::Output(Some(p.outputs[k as usize].value))),
        Outcome::Silent => Some(PathEnd::Output(None)),
        Outcome::Invalid => Some(PathEnd::Invalid),
        Outcome::Error(l) => Some(PathEnd::Error(l)),
        Outcome::Blocked => None,
    }
}

/// Boxes tried and boxes answered.
#[derive(Default)]
struct Tally {
    tried: usize,
    answered: usize,
    /// Boxes answered whose members point to different arrays.
    pointing: usize,
}

/// Checks the boxes around groups of `group` states of `path`.
fn check_program(path: &str, group: usize, rng: &mut impl Rng, tally: &mut Tally) {
    let p = rigor::frontend::load(path).expect("loads");
    let m = Machine::compile(&p).expect("compiles");
    let reached = common::reachable_states(&m, 3000);
    let mut scratch = m.scratch();
    let mut next = vec![0; m.state_width()];
    for _ in 0..40 {
        let members: Vec<Vec<Vec<i32>>> = (0..group)
            .map(|_| values(&p, &m, &reached[rng.random_range(0..reached.len())]))
            .collect();
        let mut spans: Vec<Vec<Option<Span>>> = (0..p.globals.len())
            .map(|g| {
                (0..members[0][g].len())
                    .map(|k| {
                        let lo = members.iter().map(|s| s[g][k]).min().expect("a member");
                        let hi = members.iter().map(|s| s[g][k]).max().expect("a member");
                        Some(Span { lo, hi })
                    })
                    .collect()
            })
            .collect();
        // A pointer the members disagree on: any of the arrays they point to.
        let mut pointing = Vec::new();
        for (g, global) in p.globals.iter().enumerate() {
            let mut arrays: Vec<i32> = members.iter().map(|s| s[g][0]).collect();
            arrays.sort_unstable();
            arrays.dedup();
            if matches!(global.kind, GlobalKind::Pointer { .. }) && arrays.len() > 1 {
                spans[g][0] = None;
                pointing.push((g, arrays));
            }
        }
        for (i, sym) in p.inputs.iter().enumerate() {
            let paths: Option<Vec<BoxPath>> = box_paths(&p, &spans, &pointing, sym.value).ok();
            tally.tried += 1;
            tally.answered += usize::from(paths.is_some());
            tally.pointing += usize::from(!pointing.is_empty() && paths.is_some());
            for before in &members {
                let state: Vec<i32> = (m.layout().slot_names.iter())
                    .map(|n| {
                        let (g, k) = slot(&p, n);
                        before[g][k]
                    })
                    .collect();
                let outcome = m.step(&mut scratch, &state, i, &mut next);
                let Some(paths) = &paths else { continue };
                let o = match outcome {
                    Ok(o) => o,
                    Err(f) => panic!(
                        "{path}: input {}: the engine faults ({f:?}) in a box with paths",
                        sym.name
                    ),
                };
                let Some(end) = end_of(&p, o) else { continue };
                let after = values(&p, &m, &next);
                let on_a_path = paths.iter().any(|path| {
                    path.end == end
                        && (matches!(end, PathEnd::Error(_))
                            || ((m.layout().slot_names.iter()).all(|n| {
                                let (g, k) = slot(&p, n);
                                allows(&path.post[g][k], after[g][k], before)
                            }) && (path.pointing.iter())
                                .all(|(g, arrays)| arrays.contains(&after[*g][0]))))
                });
                assert!(
                    on_a_path,
                    "{path}: input {}: the step from {before:?} ({end:?}, to {after:?}) is on none of the box's paths {paths:?}",
                    sym.name
                );
            }
        }
    }
}

fn programs() -> Vec<String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("problems");
    let mut out = Vec::new();
    for dir in [
        "reach-arith",
        "reach-arrays",
        "reach-counter",
        "reach-invalid",
        "reach-modes",
        "reach-parity",
        "reach-plain",
        "reach-pump",
        "reach-svcomp",
        "reach-deep",
        "reach-pointers",
        "reach-joined-pointers",
    ] {
        for e in std::fs::read_dir(root.join(dir)).expect("problem folder") {
            let path = e.expect("entry").path();
            if path.extension().is_some_and(|x| x == "c" || x == "java") {
                out.push(path.to_string_lossy().into_owned());
            }
        }
    }
    if let Some(rers) = common::rers_dir() {
        for p in [
            "2012/Problem1.c",
            "2012/Problem11.c",
            "2019/training-seq-reach/Problem11/Problem11.c",
            "2019/seq-reach/Problem15/Problem15.c",
            "2019/seq-reach/Problem16/Problem16.c",
            "2019/seq-ltl/Problem1/Problem1.java",
        ] {
            let path = rers.join(p);
            if path.is_file() {
                out.push(path.to_string_lossy().into_owned());
            }
        }
    }
    out
}

#[test]
fn every_concrete_step_lies_on_a_path_of_its_box() {
    let mut rng = rand_pcg::Pcg64::seed_from_u64(7);
    let mut points = Tally::default();
    let mut boxes = Tally::default();
    for path in programs() {
        check_program(&path, 1, &mut rng, &mut points);
        check_program(&path, 3, &mut rng, &mut boxes);
    }
    eprintln!(
        "boxes of one state answered: {} of {}; of three: {} of {} ({} pointing to several arrays)",
        points.answered, points.tried, boxes.answered, boxes.tried, boxes.pointing
    );
    assert!(
        points.answered * 10 >= points.tried * 9,
        "most boxes of one state are answered"
    );
    assert!(
        boxes.answered * 2 >= boxes.tried,
        "most boxes of three states are answered"
    );
    assert!(
        boxes.pointing > 0,
        "some boxes whose pointers point to several arrays are answered"
    );
}
