//! The independent certificate checker against the concrete engine.
//!
//! - The abstraction's certificates of the bundled problems are accepted,
//!   and claim only labels a complete breadth-first search never reaches.
//! - Planted corruptions are rejected: a reachable label claimed, the
//!   initial state changed, the regions holding a reachable state removed,
//!   a bound widened over a state that steps to a claimed label, bounds
//!   dropped; every counterexample the checker gives replays on the engine.
//! - On small generated programs the checker agrees with brute force.

use crate::common;

use std::collections::{HashMap, HashSet, VecDeque};

use rand::SeedableRng;
use rigor::absint::explore_abstract;
use rigor::certificate::{
    check, check_closed, Bound, Certificate, CheckError, Counterexample, Obligation,
};
use rigor::check::pruning::closure;
use rigor::engine::Machine;
use rigor::ir::{GlobalKind, Program};
use rigor::runtime::Budget;
use rigor::system::{Outcome, System};

/// A program, its machine and its abstraction's certificate.
struct Case {
    p: Program,
    m: Machine,
    cert: Certificate,
}

fn case_of(path: &str) -> Option<Case> {
    let p = rigor::frontend::load(path).expect("loads");
    let m = Machine::compile(&p).expect("compiles");
    let budget = Budget::unlimited().with_timeout(std::time::Duration::from_secs(60));
    let g = explore_abstract(&p, &m, &budget).ok()?;
    let reached = g.error_labels();
    let claims: Vec<u32> = (m.error_labels.iter())
        .copied()
        .filter(|l| !reached.contains(l))
        .collect();
    let cert = rigor::absint::certify::certificate(&p, &m, &g, &claims, &[]);
    Some(Case { p, m, cert })
}

/// Every state a complete breadth-first search reaches, and the labels.
fn brute_force(m: &Machine, max: usize) -> Option<(Vec<Vec<i32>>, HashSet<u32>)> {
    let mut scratch = m.scratch();
    let init = m.initial_state();
    let mut seen: HashSet<Vec<i32>> = HashSet::from([init.clone()]);
    let mut order = vec![init.clone()];
    let mut queue = VecDeque::from([init]);
    let mut labels = HashSet::new();
    let mut next = vec![0; m.state_width()];
    while let Some(s) = queue.pop_front() {
        for i in 0..m.n_inputs() {
            match m.step(&mut scratch, &s, i, &mut next) {
                Ok(Outcome::Error(l)) => {
                    labels.insert(l);
                }
                Ok(Outcome::Blocked) | Err(_) => {}
                Ok(_) => {
                    if seen.insert(next.clone()) {
                        if seen.len() > max {
                            return None;
                        }
                        order.push(next.clone());
                        queue.push_back(next.clone());
                    }
                }
            }
        }
    }
    Some((order, labels))
}

/// The values of a machine state by variable name (`x`, `a[3]`), with the
/// globals the machine keeps out of its states (never written, or written
/// before read) at their initial values.
fn named(p: &Program, m: &Machine, state: &[i32]) -> HashMap<String, i64> {
    named_over(p, m, state, None)
}

/// The same, with the globals outside the machine's states at the values a
/// counterexample gives them (the step leaves those it never writes as
/// they are).
fn named_over(
    p: &Program,
    m: &Machine,
    state: &[i32],
    base: Option<&Counterexample>,
) -> HashMap<String, i64> {
    let mut out = HashMap::new();
    for g in &p.globals {
        match &g.kind {
            GlobalKind::Scalar { init, .. } => out.insert(g.name.clone(), *init as i64),
            GlobalKind::Pointer { init } => out.insert(g.name.clone(), init.0 as i64),
            GlobalKind::Array { init, .. } => {
                for (k, v) in init.iter().enumerate() {
                    out.insert(format!("{}[{k}]", g.name), *v as i64);
                }
                None
            }
        };
    }
    for (v, x) in base.iter().flat_map(|c| &c.state) {
        out.insert(v.to_string(), *x as i64);
    }
    for (name, v) in m.layout().slot_names.iter().zip(state) {
        out.insert(name.clone(), *v as i64);
    }
    out
}

/// Whether the named state lies in region `k` and meets the congruences.
fn holds(p: &Program, c: &Certificate, k: usize, values: &HashMap<String, i64>) -> bool {
    let array_id = |name: &str| {
        p.globals
            .iter()
            .position(|g| g.name == name)
            .map(|i| i as i64)
    };
    let value = |v: &rigor::certificate::Var| values.get(&v.to_string()).copied();
    let bounds = c.regions[k].bounds.iter().all(|b| match b {
        Bound::Range(v, lo, hi) => value(v).is_some_and(|x| (*lo..=*hi).contains(&x)),
        Bound::PointsTo(v, arrays) => arrays
            .iter()
            .any(|a| array_id(a).is_some() && array_id(a) == value(v)),
    });
    bounds
        && (c.congruences.iter())
            .all(|cg| value(&cg.var).is_some_and(|x| x.rem_euclid(cg.modulus) == cg.rest))
}

fn in_invariant(p: &Program, c: &Certificate, values: &HashMap<String, i64>) -> bool {
    (0..c.regions.len()).any(|k| holds(p, c, k, values))
}

/// The machine state of a counterexample.
fn state_of(m: &Machine, cex: &Counterexample) -> Vec<i32> {
    let by_name: HashMap<String, i32> =
        cex.state.iter().map(|(v, x)| (v.to_string(), *x)).collect();
    (m.layout().slot_names.iter())
        .map(|n| {
            *by_name
                .get(n)
                .unwrap_or_else(|| panic!("counterexample without {n}"))
        })
        .collect()
}

/// A rejection must be real: its counterexample lies in its region and the
/// engine's step from it breaks the obligation named.
fn assert_genuine(case: &Case, cert: &Certificate, e: &CheckError, what: &str) {
    let CheckError::Fails {
        obligation,
        counterexample,
        ..
    } = e
    else {
        panic!("{what}: not rejected but {e}");
    };
    let (k, cex) = match (obligation, counterexample) {
        (Obligation::Initiation, None) => {
            let init = named(&case.p, &case.m, &case.m.initial_state());
            assert!(
                !in_invariant(&case.p, cert, &init),
                "{what}: initiation fails, yet the initial state is in"
            );
            return;
        }
        (Obligation::Safety(k) | Obligation::Consecution(k), Some(cex)) => (*k, cex),
        other => panic!("{what}: {other:?}"),
    };
    let (p, m) = (&case.p, &case.m);
    let pre = state_of(m, cex);
    assert!(
        holds(p, cert, k, &named(p, m, &pre)),
        "{what}: counterexample outside region {k}"
    );
    let input = (m.input_names.iter())
        .position(|n| *n == cex.input)
        .unwrap_or_else(|| panic!("{what}: no input {}", cex.input));
    let mut next = vec![0; m.state_width()];
    let outcome = m.step(&mut m.scratch(), &pre, input, &mut next);
    match obligation {
        Obligation::Safety(_) => assert!(
            outcome.is_err()
                || matches!(outcome, Ok(Outcome::Error(l)) if cert.unreachable.contains(&l)),
            "{what}: safety counterexample steps to {outcome:?}"
        ),
        _ => {
            assert!(
                matches!(outcome, Ok(o) if !matches!(o, Outcome::Error(_) | Outcome::Blocked)),
                "{what}: consecution counterexample steps to {outcome:?}"
            );
            assert!(
                !in_invariant(p, cert, &named_over(p, m, &next, Some(cex))),
                "{what}: the successor {:?} of {cex} is in the invariant\n{}",
                named_over(p, m, &next, Some(cex)),
                cert.to_text()
            );
        }
    }
}

/// Whether the checker refused on a safety obligation.
fn fails_safety(e: &CheckError) -> bool {
    matches!(
        e,
        CheckError::Fails {
            obligation: Obligation::Safety(_),
            ..
        }
    )
}

fn problem(dir: &str) -> String {
    let d = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("problems")
        .join(dir);
    let c = std::fs::read_dir(&d)
        .expect("problem folder")
        .map(|e| e.expect("entry").path())
        .find(|p| p.extension().is_some_and(|x| x == "c"))
        .expect("a C program");
    c.to_string_lossy().into_owned()
}

const BUNDLED: &[&str] = &[
    "reach-arith",
    "reach-counter",
    "reach-deep",
    "reach-invalid",
    "reach-modes",
    "reach-parity",
    "reach-plain",
    "reach-pump",
    "reach-svcomp",
];

#[test]
fn the_abstractions_certificates_are_accepted_and_true() {
    let mut claims = 0;
    for dir in BUNDLED {
        let Some(case) = case_of(&problem(dir)) else {
            continue;
        };
        if case.cert.unreachable.is_empty() {
            continue;
        }
        claims += case.cert.unreachable.len();
        let text = case.cert.to_text();
        let reread = Certificate::parse(&text, dir).expect("reads back");
        assert_eq!(reread, case.cert, "{dir}: text form round trip");
        if let Err(e) = check(&case.p, &case.cert, None) {
            panic!("{dir}: certificate rejected: {e}\n{text}");
        }
        if let Some((_, labels)) = brute_force(&case.m, 2_000_000) {
            for l in &case.cert.unreachable {
                assert!(
                    !labels.contains(l),
                    "{dir}: label {l} is reachable, yet certified unreachable"
                );
            }
        }
    }
    assert!(claims >= 10, "only {claims} claims checked");
}

#[test]
fn a_reachable_label_claimed_is_rejected() {
    let mut planted = 0;
    for dir in BUNDLED {
        let Some(case) = case_of(&problem(dir)) else {
            continue;
        };
        let Some((_, labels)) = brute_force(&case.m, 2_000_000) else {
            continue;
        };
        for &l in &labels {
            let mut cert = case.cert.clone();
            cert.unreachable.push(l);
            let e = check(&case.p, &cert, None).expect_err("a reachable label claimed");
            assert_genuine(&case, &cert, &e, &format!("{dir} claiming {l}"));
            assert!(fails_safety(&e), "{dir}: {e}");
            planted += 1;
        }
    }
    assert!(planted >= 8, "only {planted} planted");
}

#[test]
fn a_changed_initial_state_is_rejected() {
    let mut planted = 0;
    for dir in BUNDLED {
        let Some(case) = case_of(&problem(dir)) else {
            continue;
        };
        // A scalar every region bounds: start it above every bound.
        let bounded = |name: &str| {
            let mut top = None;
            for r in &case.cert.regions {
                let hi = r.bounds.iter().find_map(|b| match b {
                    Bound::Range(v, _, hi) if v.name == name && v.index.is_none() => Some(*hi),
                    _ => None,
                })?;
                top = Some(top.unwrap_or(hi).max(hi));
            }
            top
        };
        let mut p = case.p.clone();
        let Some((g, top)) = (p.globals.iter().enumerate())
            .filter(|(_, g)| !g.constant && matches!(g.kind, GlobalKind::Scalar { .. }))
            .find_map(|(i, g)| Some((i, bounded(&g.name)?)))
            .filter(|(_, top)| *top < i32::MAX as i64)
        else {
            continue;
        };
        if let GlobalKind::Scalar { init, .. } = &mut p.globals[g].kind {
            *init = top as i32 + 1;
        }
        let e = check(&p, &case.cert, None).expect_err("initial state outside");
        assert!(
            matches!(
                e,
                CheckError::Fails {
                    obligation: Obligation::Initiation,
                    ..
                }
            ),
            "{dir}: {e}"
        );
        planted += 1;
    }
    assert!(planted >= 5, "only {planted} planted");
}

#[test]
fn removing_the_regions_of_a_reachable_state_is_rejected() {
    let mut planted = 0;
    for dir in BUNDLED {
        let Some(case) = case_of(&problem(dir)) else {
            continue;
        };
        if case.cert.regions.len() < 2 {
            continue;
        }
        let Some((states, _)) = brute_force(&case.m, 2_000_000) else {
            continue;
        };
        // The last state found, and every region holding it, gone.
        let last = named(&case.p, &case.m, states.last().expect("a state"));
        let mut cert = case.cert.clone();
        let keep: Vec<usize> = (0..cert.regions.len())
            .filter(|&k| !holds(&case.p, &cert, k, &last))
            .collect();
        if keep.is_empty() {
            continue;
        }
        let renumber: HashMap<usize, usize> = keep
            .iter()
            .enumerate()
            .map(|(new, &old)| (old, new))
            .collect();
        cert.regions = keep.iter().map(|&k| case.cert.regions[k].clone()).collect();
        for r in &mut cert.regions {
            r.next = r
                .next
                .iter()
                .filter_map(|t| renumber.get(t).copied())
                .collect();
        }
        let e = check(&case.p, &cert, None).expect_err("a reachable state left out");
        assert_genuine(
            &case,
            &cert,
            &e,
            &format!("{dir} without a reachable state"),
        );
        planted += 1;
    }
    assert!(planted >= 3, "only {planted} planted");
}

#[test]
fn a_widened_bound_over_a_bad_state_is_rejected() {
    // Problem902: error_3 is `y > 12`, and input A halves y: from y = 30
    // the step reaches it. Widening y's bounds to take in 30 must fail.
    let case = case_of(&problem("reach-arith")).expect("abstraction");
    assert!(case.cert.unreachable.contains(&3));
    let mut cert = case.cert.clone();
    for r in &mut cert.regions {
        for b in &mut r.bounds {
            if let Bound::Range(v, lo, hi) = b {
                if v.name == "y" {
                    (*lo, *hi) = ((*lo).min(30), (*hi).max(30));
                }
            }
        }
    }
    cert.congruences.retain(|c| c.var.name != "y");
    let e = check(&case.p, &cert, None).expect_err("widened");
    assert_genuine(&case, &cert, &e, "reach-arith widened");
}

#[test]
fn dropped_bounds_are_rejected_only_with_a_real_counterexample() {
    let mut rejected = 0;
    for dir in [
        "reach-arith",
        "reach-counter",
        "reach-modes",
        "reach-svcomp",
    ] {
        let Some(case) = case_of(&problem(dir)) else {
            continue;
        };
        for k in 0..case.cert.regions.len() {
            for b in 0..case.cert.regions[k].bounds.len() {
                let mut cert = case.cert.clone();
                cert.regions[k].bounds.remove(b);
                if let Err(e) = check(&case.p, &cert, None) {
                    assert_genuine(
                        &case,
                        &cert,
                        &e,
                        &format!("{dir} region {k} without bound {b}"),
                    );
                    rejected += 1;
                }
            }
        }
    }
    assert!(rejected >= 5, "only {rejected} rejected");
}

#[test]
fn on_generated_programs_the_checker_agrees_with_brute_force() {
    let dir = common::scratch_dir("rigor-cert");
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(25);
    let (mut accepted, mut rejected) = (0, 0);
    for n in 0..60 {
        let (path, text) = common::write_generated(&dir, n, &mut rng);
        let Some(case) = case_of(&path) else {
            continue;
        };
        let (_, labels) = brute_force(&case.m, 100_000).expect("small state space");
        // The abstraction's own certificate: accepted, and true.
        if !case.cert.unreachable.is_empty() {
            match check(&case.p, &case.cert, None) {
                Ok(_) => accepted += 1,
                Err(e) => panic!("program {n}: {e}\n{text}\n{}", case.cert.to_text()),
            }
            for l in &case.cert.unreachable {
                assert!(
                    !labels.contains(l),
                    "program {n}: label {l} reachable\n{text}"
                );
            }
        }
        // Claiming every label: accepted exactly when none is reachable.
        let mut all = case.cert.clone();
        all.unreachable = case.m.error_labels.clone();
        match check(&case.p, &all, None) {
            Ok(_) => assert!(
                labels.is_empty(),
                "program {n}: reachable labels {labels:?} accepted\n{text}"
            ),
            Err(e) => {
                assert_genuine(&case, &all, &e, &format!("program {n}"));
                rejected += 1;
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        accepted >= 10 && rejected >= 10,
        "accepted {accepted}, rejected {rejected}"
    );
}

#[test]
fn check_certificate_exit_codes() {
    let dir = std::env::temp_dir().join(format!("rigor-cert-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let program = problem("reach-arith");
    let cert = dir.join("ok.cert");
    let run = |args: &[&str]| {
        std::process::Command::new(common::rigor_bin())
            .args(args)
            .output()
            .expect("rigor runs")
    };
    let out = run(&["reach", &program, "--certificate", &cert.to_string_lossy()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = run(&["check-certificate", &program, &cert.to_string_lossy()]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    // Claim label 0 too (reachable): rejected, exit 1, naming the obligation.
    let text = std::fs::read_to_string(&cert).expect("certificate");
    let bad = dir.join("bad.cert");
    std::fs::write(&bad, text.replacen("unreachable", "unreachable 0", 1)).expect("written");
    let out = run(&["check-certificate", &program, &bad.to_string_lossy()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("safety of region"));
    // A malformed file: a located error, not a verdict.
    std::fs::write(&bad, "rigor-certificate 1\nregion 3\n").expect("written");
    let out = run(&["check-certificate", &program, &bad.to_string_lossy()]);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("bad.cert:2:"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn closed_parts_of_certificates_are_accepted_without_initiation() {
    use std::collections::BTreeSet;
    let (mut accepted, mut planted) = (0, 0);
    for dir in BUNDLED {
        let Some(case) = case_of(&problem(dir)) else {
            continue;
        };
        let Ok(checked) = check(&case.p, &case.cert, None) else {
            continue;
        };
        let n = case.cert.regions.len();
        // The regions a pruned search might start from: a few, and their
        // closure under the hints.
        for k in [n - 1, n / 2] {
            let sub = closure(&case.cert, &BTreeSet::from([k]), &case.cert.unreachable);
            if let Err(e) = check_closed(&case.p, &sub, None) {
                panic!("{dir}: the closure of region {k} is rejected: {e}");
            }
            accepted += 1;
        }
        // From the initial regions every reachable label is reached, so
        // claiming them all is rejected.
        let all: Vec<u32> = case.m.error_labels.clone();
        if all.len() > case.cert.unreachable.len() {
            let initial: BTreeSet<usize> = checked.initial.iter().copied().collect();
            let sub = closure(&case.cert, &initial, &all);
            let e = check_closed(&case.p, &sub, None).expect_err("reachable labels claimed");
            assert!(fails_safety(&e), "{dir}: {e}");
            planted += 1;
        }
    }
    assert!(
        accepted >= 6 && planted >= 3,
        "{accepted} accepted, {planted} planted"
    );
}
