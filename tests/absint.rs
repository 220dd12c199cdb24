//! The interval abstraction over-approximates the program: checked by
//! simulation. Every concrete state reached by a plain breadth-first search
//! on the engine must lie in some abstract state, and each of its steps must
//! be matched by an abstract edge with the same input and outcome to an
//! abstract state holding the concrete successor.

use crate::common;

use std::collections::{HashSet, VecDeque};

use rigor::absint::{explore_abstract, AbsGraph};
use rigor::engine::Machine;
use rigor::runtime::Budget;
use rigor::system::{Outcome, System, NO_STATE};

fn covers(g: &AbsGraph, s: usize, c: &[i32]) -> bool {
    g.values[s]
        .iter()
        .zip(c)
        .all(|(v, &x)| v.contains(x as i64))
}

/// Whether an abstract state among `holders` has an edge for the concrete
/// step `c --i/o--> next`. A blocked step (`exit`, `abort`, a failed
/// assumption) has no successor: the abstraction drops it, nothing to match.
/// An invalid edge without a target says the step stored nothing: it
/// matches only a step that left the state as it was.
fn step_matched(
    g: &AbsGraph,
    holders: &[usize],
    (c, i): (&[i32], usize),
    o: Outcome,
    next: &[i32],
) -> bool {
    o == Outcome::Blocked
        || holders.iter().any(|&s| {
            g.edges[s].iter().any(|e| {
                e.input as usize == i
                    && e.outcome() == o
                    && match o {
                        Outcome::Error(_) | Outcome::Blocked => e.target == NO_STATE,
                        Outcome::Invalid if e.target == NO_STATE => next == c,
                        _ => e.target != NO_STATE && covers(g, e.target as usize, next),
                    }
            })
        })
}

/// Checks the simulation on up to `max` concrete states; returns how many
/// were checked.
fn check_simulation(path: &str, max: usize) -> usize {
    let p = rigor::frontend::load(path).expect("loads");
    let m = Machine::compile(&p).expect("compiles");
    let g = explore_abstract(&p, &m, &Budget::unlimited()).expect("abstraction completes");
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
            let matched = step_matched(&g, &holders, (&c, i), o, &next);
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

/// Checks the simulation along `runs` random runs of up to `len` inputs
/// each (seeded: the same runs every time), where a breadth-first search
/// would stay near the initial state; returns the steps checked.
fn check_random_runs(path: &str, runs: usize, len: usize) -> usize {
    let p = rigor::frontend::load(path).expect("loads");
    check_random_runs_of(&p, path, runs, len)
}

/// [`check_random_runs`] on the program `p` (read from `path`).
fn check_random_runs_of(p: &rigor::ir::Program, path: &str, runs: usize, len: usize) -> usize {
    use rand::{Rng, SeedableRng};
    let m = Machine::compile(p).expect("compiles");
    let budget = Budget::unlimited().with_timeout(std::time::Duration::from_secs(120));
    let g = explore_abstract(p, &m, &budget).expect("abstraction completes");
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(2026);
    let mut scratch = m.scratch();
    let mut next = vec![0; m.state_width()];
    let mut checked = 0;
    for _ in 0..runs {
        let mut c = m.initial_state();
        for _ in 0..len {
            let holders: Vec<usize> = (0..g.n_states()).filter(|&s| covers(&g, s, &c)).collect();
            assert!(!holders.is_empty(), "{path}: state {c:?} not covered");
            // Every input is checked; the run goes on along a random one
            // that lets it.
            let mut goes_on = Vec::new();
            for i in 0..m.n_inputs() {
                let Ok(o) = m.step(&mut scratch, &c, i, &mut next) else {
                    continue;
                };
                checked += 1;
                let matched = step_matched(&g, &holders, (&c, i), o, &next);
                assert!(
                    matched,
                    "{path}: step {c:?} --{i}/{o:?}--> {next:?} not matched"
                );
                if o.goes_on() {
                    goes_on.push(next.clone());
                }
            }
            if goes_on.is_empty() {
                break;
            }
            c = goes_on.swap_remove(rng.random_range(0..goes_on.len()));
        }
    }
    checked
}

/// Every shape the front ends accept, along random runs: 2012 (the step
/// returns the output and calls the next `calculate_outputN` inside its
/// `return`), 2014 (the step inlined in `main`), 2017/2019 C and Java, and
/// the SV-COMP shapes (rigor's sample, the real eca-rers2012 tasks and the
/// eca-rers2018 shape, in both error-call modes).
#[test]
fn every_shape_is_simulated_along_random_runs() {
    let bundled = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("problems");
    let n = check_random_runs(
        &bundled.join("reach-svcomp/Problem906.c").to_string_lossy(),
        50,
        200,
    );
    assert!(n > 0);
    // The SV-COMP task shapes: `exit`/`abort` ending runs, error functions
    // with bodies, both error-call modes.
    use rigor::frontend::c::{parse_c_with, ErrorCalls};
    let eca2018 =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/svcomp/eca2018/Problem907.c");
    let mut sv_comp = vec![eca2018];
    if let Some(d) = common::svcomp_dir() {
        sv_comp.push(d.join("eca-rers2012/Problem01_label20.c"));
        sv_comp.push(d.join("eca-rers2012/Problem02_label43.c"));
    }
    for path in sv_comp {
        let text = std::fs::read_to_string(&path).unwrap();
        let name = path.to_string_lossy();
        for target in ["reach_error", "reach_error_1", "reach_error_3"] {
            let only = ErrorCalls::Only(target.into());
            let p = parse_c_with(&name, &text, &only).expect("parses");
            assert!(
                check_random_runs_of(&p, &name, 30, 200) > 0,
                "{name} {target}"
            );
        }
        let p = parse_c_with(&name, &text, &ErrorCalls::Rers).expect("parses");
        assert!(check_random_runs_of(&p, &name, 30, 200) > 0, "{name}");
    }
    let Some(dir) = common::rers_dir() else {
        return;
    };
    for program in [
        "2012/Problem12.c",
        "2012/Problem15.c",
        "2012/Problem19.c",
        "2012/Problem10.c",
        "2014/Problem1402_opt.c",
        "2017/seq-reach/Problem11/Problem11.java",
        "2019/training-seq-reach/Problem13/Problem13.c",
        "2019/seq-reach/Problem11/Problem11.c",
        // Rules on the arrays pointers point to (`35 == a195[2]`).
        "2019/seq-reach/Problem13/Problem13.c",
    ] {
        let path = dir.join(program);
        if !path.is_file() {
            continue;
        }
        let n = check_random_runs(&path.to_string_lossy(), 30, 300);
        assert!(n > 100, "{program}: only {n} steps checked");
    }
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
        "reach-parity",
        "reach-modes",
        "reach-pump",
        "reach-pointers",
        "reach-joined-pointers",
        "reach-index",
        "reach-scaled-index",
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
        "2019/training-seq-reach/Problem12/Problem12.c",
        "2019/training-seq-reach/Problem13/Problem13.java",
        "2017/seq-reach/Problem11/Problem11.c",
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
    let e = explore_abstract(&p, &m, &Budget::unlimited()).unwrap_err();
    assert!(e.to_string().contains("out of bounds"), "{e}");
}

/// Error labels found by the abstraction include every label the
/// exploration reaches (reach-arith: 0 and 2 reachable, 1 and 3 not).
#[test]
fn abstract_error_labels_cover_the_reachable_ones() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("problems/reach-arith");
    let p = rigor::frontend::load(&root.join("Problem902.c").to_string_lossy()).unwrap();
    let m = Machine::compile(&p).unwrap();
    let g = explore_abstract(&p, &m, &Budget::unlimited()).unwrap();
    let labels = g.error_labels();
    assert!(labels.contains(&0) && labels.contains(&2), "{labels:?}");
}

/// Per expanded state, its steps: `Ok(successor)` or `Err(error label)`.
type Steps = Vec<Vec<Result<usize, u32>>>;

/// The concrete states reachable in `m` with their steps, breadth-first,
/// expanding up to `max` states.
fn concrete_graph(m: &Machine, max: usize) -> (Vec<Vec<i32>>, Steps) {
    let mut scratch = m.scratch();
    let init = m.initial_state();
    let mut index = std::collections::HashMap::from([(init.clone(), 0usize)]);
    let mut states = vec![init];
    let mut steps = Vec::new();
    let mut next = vec![0; m.state_width()];
    let mut k = 0;
    while k < states.len() && k < max {
        let c = states[k].clone();
        let mut out = Vec::new();
        for i in 0..m.n_inputs() {
            match m.step(&mut scratch, &c, i, &mut next) {
                Ok(Outcome::Error(n)) => out.push(Err(n)),
                Ok(Outcome::Blocked) | Err(_) => {}
                Ok(_) => {
                    let n = states.len();
                    let t = *index.entry(next.clone()).or_insert(n);
                    if t == n {
                        states.push(next.clone());
                    }
                    out.push(Ok(t));
                }
            }
        }
        steps.push(out);
        k += 1;
    }
    (states, steps)
}

/// The abstract distance the guide gives is a lower bound of the concrete
/// one, and a state it calls dead reaches none of the labels: checked on
/// every state of the small bundled arithmetic problems (the first 50 000
/// of reach-counter's), for each label alone and for all together.
#[test]
fn the_abstract_guide_never_overestimates() {
    use rigor::absint::AbstractGuide;
    use rigor::explore::{Estimate, Guide};
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("problems");
    for file in [
        "reach-arith/Problem902.c",
        "reach-counter/Problem907.c",
        "reach-modes/Problem909.c",
    ] {
        let p = rigor::frontend::load(&root.join(file).to_string_lossy()).unwrap();
        let m = Machine::compile(&p).unwrap();
        let g = explore_abstract(&p, &m, &Budget::unlimited()).unwrap();
        // Where the graph is cut, its distances are at least the true
        // ones, so the checks below still hold.
        let (states, steps) = concrete_graph(&m, 50_000);
        let mut sets: Vec<Vec<u32>> = m.error_labels.iter().map(|&l| vec![l]).collect();
        sets.push(m.error_labels.clone());
        let mut located = 0;
        for labels in sets {
            // Concrete distances by value iteration (few states).
            let mut dist = vec![u32::MAX; states.len()];
            loop {
                let mut changed = false;
                for (s, out) in steps.iter().enumerate() {
                    for st in out {
                        let d = match *st {
                            Err(n) if labels.contains(&n) => 1,
                            Err(_) => u32::MAX,
                            Ok(t) => dist[t].saturating_add(1),
                        };
                        if d < dist[s] {
                            dist[s] = d;
                            changed = true;
                        }
                    }
                }
                if !changed {
                    break;
                }
            }
            let mut guide = AbstractGuide::new(&g);
            for (s, c) in states.iter().enumerate() {
                match guide.estimate(c, &labels) {
                    Estimate::Dead => assert_eq!(dist[s], u32::MAX, "{file} {labels:?}: {c:?}"),
                    Estimate::AtLeast(h) => {
                        located += 1;
                        assert!(h <= dist[s], "{file} {labels:?}: {c:?}: {h} > {}", dist[s])
                    }
                    Estimate::Unknown => {}
                }
            }
        }
        assert!(located > 0, "{file}: the guide located no state");
    }
}

/// The guided search, one label at a time: a label it finds replays to
/// that label, and a search that runs out of states proves the label
/// unreachable; both agree with the bundled expected answers.
#[test]
fn guided_search_finds_or_refutes_each_label() {
    use rigor::absint::AbstractGuide;
    use rigor::explore::guided_search;
    use rigor::system::replay;
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("problems");
    for (file, expected) in [
        ("reach-arith/Problem902.c", "reach-arith/expected-reach.csv"),
        (
            "reach-counter/Problem907.c",
            "reach-counter/expected-reach.csv",
        ),
        ("reach-modes/Problem909.c", "reach-modes/expected-reach.csv"),
        ("reach-pump/Problem910.c", "reach-pump/expected-reach.csv"),
    ] {
        let p = rigor::frontend::load(&root.join(file).to_string_lossy()).unwrap();
        let m = Machine::compile(&p).unwrap();
        let g = explore_abstract(&p, &m, &Budget::unlimited()).unwrap();
        let mut guide = AbstractGuide::new(&g);
        let text = std::fs::read_to_string(root.join(expected)).unwrap();
        for line in text.lines().filter(|l| !l.is_empty()) {
            let f: Vec<&str> = line.split(',').collect();
            let (label, reachable): (u32, bool) = (f[1].parse().unwrap(), f[2] == "true");
            let gs = guided_search(&m, &Budget::unlimited(), &[label], &mut guide, 1000);
            match gs.found.first() {
                Some((l, path)) => {
                    assert!(reachable, "{file}: {label} found but expected unreachable");
                    assert_eq!(*l, label);
                    assert_eq!(replay(&m, path).unwrap(), Outcome::Error(label), "{file}");
                }
                None => {
                    assert!(!reachable, "{file}: {label} not found");
                    assert!(gs.exhausted(), "{file}: {label}: search did not end");
                }
            }
        }
    }
}

/// On RERS 2019 training P13 (C), breadth-first search runs out of time
/// long before error 81 (40 steps deep); the search guided by the
/// abstract distance finds it within a few hundred stored states.
#[test]
fn guided_search_reaches_a_deep_rers_label() {
    use rigor::absint::AbstractGuide;
    use rigor::explore::guided_search;
    use rigor::system::replay;
    let Some(dir) = common::rers_dir() else {
        return;
    };
    let path = dir.join("2019/training-seq-reach/Problem13/Problem13.c");
    let p = rigor::frontend::load(&path.to_string_lossy()).unwrap();
    let m = Machine::compile(&p).unwrap();
    let g = explore_abstract(&p, &m, &Budget::unlimited()).unwrap();
    let mut guide = AbstractGuide::new(&g);
    let limits = Budget::unlimited().with_max_states(100_000);
    let gs = guided_search(&m, &limits, &[81], &mut guide, 1000);
    let (l, witness) = gs.found.first().expect("error 81 found");
    assert_eq!(*l, 81);
    assert_eq!(replay(&m, witness).unwrap(), Outcome::Error(81));
}

/// 2019 challenge reach P15 (C), error 14: the label's guard is reached
/// by a rule that needs the counter `a1224489519` at 32, sixteen steps of
/// +2 from its initial 0. The abstraction joins the counter, so its path
/// to the label (nine steps) does not replay, and no breadth-first search
/// gets 58 steps deep; the search that keeps one state per abstract key and
/// counter value does, but its net needs more than the 20,000 states it
/// was once capped at (with that cap it found nothing).
#[test]
fn a_counter_is_pumped_past_a_small_net() {
    use rigor::absint::{counter_witness, explore_abstract_best};
    use rigor::system::replay;
    let Some(dir) = common::rers_dir() else {
        return;
    };
    let path = dir.join("2019/seq-reach/Problem15/Problem15.c");
    let p = rigor::frontend::load(&path.to_string_lossy()).unwrap();
    let m = Machine::compile(&p).unwrap();
    // The first round that completes is enough.
    let (g, ()) = explore_abstract_best(&p, &m, &Budget::unlimited(), 2, |_| (0, ())).unwrap();
    let abstract_path = g
        .path_to_error(14)
        .expect("the abstraction reaches error 14");
    assert_ne!(replay(&m, &abstract_path), Ok(Outcome::Error(14)));
    let run = counter_witness(&p, &m, &g, 14, &Budget::unlimited()).expect("a run to error 14");
    assert_eq!(replay(&m, &run), Ok(Outcome::Error(14)));
    assert!(
        run.len() > 32,
        "the counter is stepped 16 times: {}",
        run.len()
    );
}

/// The abstraction computes each state's successors on several threads;
/// what it builds is the same on any number (RERS 2019 training problems,
/// C and Java, with relevance, splitting and refinement rounds).
#[test]
fn the_abstraction_is_the_same_on_one_thread_and_on_several() {
    let Some(dir) = common::rers_dir() else {
        return;
    };
    for (n, ext) in [(11, "c"), (12, "java")] {
        let path = dir.join(format!(
            "2019/training-seq-reach/Problem{n}/Problem{n}.{ext}"
        ));
        let p = rigor::frontend::load(path.to_str().unwrap()).unwrap();
        let m = Machine::compile(&p).unwrap();
        let judge = |g: &AbsGraph| (g.unreplayed_labels(&m), ());
        let explored = |threads| {
            let r =
                rigor::absint::explore_abstract_best(&p, &m, &Budget::unlimited(), threads, judge);
            let (g, ()) = r.expect("explores");
            (g.values, g.edges, g.expansions)
        };
        let one = explored(1);
        assert!(
            one.0.len() > 30,
            "{}: {} states",
            path.display(),
            one.0.len()
        );
        assert_eq!(one, explored(2), "{}", path.display());
    }
}
