//! The second, independent reading of the program (`rigor::crosscheck`):
//! libclang's AST, a symbolic step and a z3 encoding that share nothing with
//! the provers.
//!
//! - It accepts the abstraction's certificate of every bundled C problem.
//! - It rejects planted corruptions: a reachable label claimed, the initial
//!   state's region dropped, a bound tightened so that the initial state
//!   leaves the invariant, a region some step leads to dropped.
//! - It rejects a certificate that is right for a program other than the
//!   file (what a front end that misread the file would write).
//! - It checks the certificates of pruned searches without initiation.
//! - RERS 2018 Problem 13: the seven labels the official solution lists as
//!   reachable are proved unreachable by both readings (the errata in
//!   `docs/errata.md`), and the other 93 agree with the official solution.

use crate::common;

use std::path::{Path, PathBuf};

use rigor::absint::explore_abstract;
use rigor::certificate::{Bound, Certificate};
use rigor::check::pruning::closure;
use rigor::crosscheck::{check_regions, CrossError, Initiation};
use rigor::engine::Machine;
use rigor::runtime::Budget;

/// The abstraction's certificate of the program at `path`.
fn certificate_of(path: &Path) -> Option<Certificate> {
    let p = rigor::frontend::load(path.to_str()?).expect("loads");
    let m = Machine::compile(&p).expect("compiles");
    let budget = Budget::unlimited().with_timeout(std::time::Duration::from_secs(60));
    let g = explore_abstract(&p, &m, &budget).ok()?;
    let reached = g.error_labels();
    let claims: Vec<u32> = (m.error_labels.iter())
        .copied()
        .filter(|l| !reached.contains(l))
        .collect();
    Some(rigor::absint::certify::certificate(
        &p,
        &m,
        &g,
        &claims,
        &[],
    ))
}

/// The bundled C reachability problems.
fn bundled() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("problems");
    let mut out = Vec::new();
    for dir in std::fs::read_dir(&root).expect("problems/") {
        let dir = dir.expect("entry").path();
        if !dir
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("reach-"))
        {
            continue;
        }
        for f in std::fs::read_dir(&dir).expect("a problem folder") {
            let f = f.expect("entry").path();
            if f.extension().is_some_and(|x| x == "c") {
                out.push(f);
            }
        }
    }
    out.sort();
    assert!(out.len() >= 10, "bundled C problems: {out:?}");
    out
}

fn check(path: &Path, c: &Certificate) -> Result<(), CrossError> {
    check_regions(path.to_str().expect("utf-8"), c, Initiation::Required, None).map(|_| ())
}

fn rejected(path: &Path, c: &Certificate, what: &str) {
    match check(path, c) {
        Err(CrossError::Rejected { .. }) => {}
        other => panic!(
            "{}: {what}: expected a rejection, got {other:?}",
            path.display()
        ),
    }
}

#[test]
fn every_bundled_certificate_is_accepted() {
    let mut checked = 0;
    for path in bundled() {
        let Some(c) = certificate_of(&path) else {
            continue;
        };
        if let Err(e) = check(&path, &c) {
            panic!("{}: {e}", path.display());
        }
        checked += 1;
    }
    assert!(checked >= 8, "only {checked} certificates");
}

/// The certificates of pruned searches (`rigor::check::pruning`): the
/// closure of a region under the hints is closed and safe without the
/// initial state (accepted without initiation, and rejected with it where
/// the initial state lies outside), and claiming every label from the
/// initial regions is rejected.
#[test]
fn pruning_closures_are_checked_without_initiation() {
    let closed = |path: &Path, c: &Certificate, initiation| {
        check_regions(path.to_str().expect("utf-8"), c, initiation, None)
    };
    let (mut accepted, mut initial_left, mut planted) = (0, 0, 0);
    for path in bundled() {
        let Some(c) = certificate_of(&path) else {
            continue;
        };
        let p = rigor::frontend::load(path.to_str().expect("utf-8")).expect("loads");
        let first = rigor::certificate::check(&p, &c, None).expect("the first check accepts");
        let n = c.regions.len();
        for k in [n - 1, n / 2] {
            let from = std::collections::BTreeSet::from([k]);
            let sub = closure(&c, &from, &c.unreachable);
            if let Err(e) = closed(&path, &sub, Initiation::Skipped) {
                panic!("{}: the closure of region {k}: {e}", path.display());
            }
            accepted += 1;
            let holds_initial = rigor::certificate::check_closed(&p, &sub, None)
                .is_ok_and(|checked| !checked.initial.is_empty());
            if !holds_initial {
                let got = closed(&path, &sub, Initiation::Required);
                assert!(
                    matches!(&got, Err(CrossError::Rejected { obligation, .. }) if obligation == "initiation"),
                    "{}: {got:?}",
                    path.display()
                );
                initial_left += 1;
            }
        }
        let all = p.error_labels.clone();
        if all.len() > c.unreachable.len() {
            let sub = closure(&c, &first.initial.iter().copied().collect(), &all);
            let got = closed(&path, &sub, Initiation::Skipped);
            assert!(
                matches!(got, Err(CrossError::Rejected { .. })),
                "{}: every label claimed: {got:?}",
                path.display()
            );
            planted += 1;
        }
    }
    assert!(
        accepted >= 8 && initial_left >= 2 && planted >= 3,
        "{accepted} accepted, {initial_left} without the initial state, {planted} planted"
    );
}

#[test]
fn planted_corruptions_are_rejected() {
    let mut planted = 0;
    for path in bundled() {
        let Some(c) = certificate_of(&path) else {
            continue;
        };
        let p = rigor::frontend::load(path.to_str().expect("utf-8")).expect("loads");
        // A reachable label claimed (the labels the abstraction reaches
        // are reachable in every bundled problem: expected-reach.csv).
        let expected =
            std::fs::read_to_string(path.with_file_name("expected-reach.csv")).unwrap_or_default();
        for line in expected.lines() {
            let f: Vec<&str> = line.split(',').collect();
            if f.len() >= 3 && f[2].trim() == "true" {
                let label: u32 = f[1].trim().parse().expect("a label");
                let mut bad = c.clone();
                bad.unreachable.push(label);
                rejected(&path, &bad, &format!("reachable label {label} claimed"));
                planted += 1;
            }
        }
        // The initial state's regions dropped.
        let initial: Vec<(String, i32)> = (p.globals.iter())
            .filter_map(|g| match &g.kind {
                rigor::ir::GlobalKind::Scalar { init, .. } => Some((g.name.clone(), *init)),
                _ => None,
            })
            .collect();
        let holds_initial = |r: &rigor::certificate::Region| {
            r.bounds.iter().all(|b| match b {
                Bound::Range(v, lo, hi) if v.index.is_none() => initial
                    .iter()
                    .find(|(n, _)| *n == v.name)
                    .is_none_or(|(_, k)| (*lo..=*hi).contains(&(*k as i64))),
                _ => true,
            })
        };
        let mut bad = c.clone();
        bad.regions.retain(|r| !holds_initial(r));
        for r in &mut bad.regions {
            r.next.clear();
        }
        if bad.regions.len() < c.regions.len() {
            rejected(&path, &bad, "the initial state's regions dropped");
            planted += 1;
        }
        // A bound tightened so that the initial state leaves every region:
        // each region that holds it gets the first variable that the
        // initial state has bounded to a value beside it.
        let mut bad = c.clone();
        let mut tightened = false;
        for r in bad.regions.iter_mut() {
            if !holds_initial(r) {
                continue;
            }
            for b in r.bounds.iter_mut() {
                if let Bound::Range(v, lo, hi) = b {
                    if let Some((_, k)) = initial.iter().find(|(n, _)| *n == v.name) {
                        if v.index.is_none() {
                            let k = *k as i64 + 1;
                            (*lo, *hi) = (k, k);
                            tightened = true;
                            break;
                        }
                    }
                }
            }
        }
        if tightened {
            rejected(&path, &bad, "a bound tightened past the initial state");
            planted += 1;
        }
    }
    assert!(planted >= 15, "only {planted} corruptions planted");
}

#[test]
fn a_certificate_of_a_misread_program_is_rejected() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("problems/reach-plain/Problem901.c");
    let c = certificate_of(&root).expect("a certificate");
    assert!(c.unreachable.contains(&1), "{:?}", c.unreachable);
    check(&root, &c).expect("accepted on the program it is about");
    // The same program with one rule that a front end might misread:
    // taking the `else` of a negated condition for its `then`.
    let text = std::fs::read_to_string(&root).expect("readable");
    let rule = "    \tcf = 0;\n    \ta = 3;\n    \tb = 1;\n";
    assert!(text.contains(rule), "the rule to change");
    let changed = text.replace(
        rule,
        "    \tcf = 0;\n    \tif (!(b == 0)) { a = 3; b = 1; } else { a = 2; b = 2; }\n",
    );
    let dir = common::scratch_dir("second_reading_misread");
    let other = dir.join("Problem901.c");
    std::fs::write(&other, changed).expect("written");
    rejected(&other, &c, "the certificate of another program");
}

#[test]
fn check_certificate_reports_both_readings() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("problems/reach-arith/Problem902.c");
    let dir = common::scratch_dir("second_reading_cli");
    let cert = dir.join("Problem902.cert");
    let p = path.to_str().expect("utf-8");
    let c = cert.to_str().expect("utf-8");
    common::rigor_ok(&["reach", p, "--certificate", c, "--quiet"]);
    let out = common::rigor_ok(&["check-certificate", p, c]);
    assert!(
        out.contains("certificate accepted") && out.contains("second, independent reading"),
        "{out}"
    );
}

/// The labels of RERS 2018 Problem 13 that the official solution lists as
/// reachable and that both readings prove unreachable (`docs/errata.md`).
const ERRATA_2018_P13: [u32; 7] = [16, 22, 29, 30, 40, 53, 89];

#[test]
fn rers_2018_problem_13_through_the_default_pipeline() {
    let Some(dir) = common::rers_dir() else {
        return;
    };
    let program = dir.join("2018/seq-reach/Problem13.c");
    let truth = common::truth_file(&dir.join("truth-2018.tsv"));
    if !program.is_file() || truth.is_empty() {
        eprintln!("RERS 2018 Problem 13 not found: test skipped");
        return;
    }
    let r = common::rigor_json(&[
        "reach",
        program.to_str().expect("utf-8"),
        "--json",
        "--quiet",
    ]);
    assert!(r["second_reading_seconds"].is_number(), "{}", r["notes"]);
    let verdicts = r["verdicts"].as_array().expect("verdicts");
    assert_eq!(verdicts.len(), 100);
    for v in verdicts {
        let label = v["property"].as_u64().expect("label") as u32;
        let official = (truth.iter())
            .find(|t| t.property == label)
            .map(|t| t.verdict)
            .expect("an official verdict");
        let ours = v["verdict"].as_bool().expect("every label answered");
        if ERRATA_2018_P13.contains(&label) {
            assert!(official && !ours, "label {label}: erratum no longer stands");
            assert_eq!(v["certified"], true, "label {label}");
        } else {
            assert_eq!(ours, official, "label {label}");
        }
    }
}

/// The LTL certificates of the C and Java programs: the abstraction's
/// certificate with its claims and edges.
fn ltl_cases() -> Vec<(PathBuf, PathBuf)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("problems");
    let mut out = vec![
        (
            root.join("ltl-silent/Problem952.c"),
            root.join("ltl-silent/properties952.txt"),
        ),
        (
            root.join("ltl-finite/Problem951.c"),
            root.join("ltl-finite/constraints-Problem951.txt"),
        ),
    ];
    if let Some(rers) = common::rers_dir() {
        out.push((
            rers.join("2012/Problem4.c"),
            rers.join("2012/properties4.txt"),
        ));
        for ext in ["c", "java"] {
            let dir = rers.join("2019/seq-ltl/Problem1");
            out.push((
                dir.join(format!("Problem1.{ext}")),
                dir.join("constraints-Problem1.txt"),
            ));
        }
    }
    out
}

/// The certificate the LTL pipeline writes for `program` on `props`.
fn ltl_certificate(program: &Path, props: &Path) -> Certificate {
    let opts = rigor::check::ltl::LtlOptions {
        abstraction: true,
        certify: true,
        keep_certificate: true,
        ..Default::default()
    };
    let budget = Budget::unlimited().with_timeout(std::time::Duration::from_secs(120));
    let (program, props) = (
        program.to_str().expect("utf-8"),
        props.to_str().expect("utf-8"),
    );
    let r = rigor::check::ltl::solve(program, props, &budget, &opts).expect("runs");
    r.certificate
        .unwrap_or_else(|| panic!("{program}: no certificate"))
}

/// The edges of an LTL certificate (which input, which output, into which
/// region) are read by the second reading too: it accepts the pipeline's
/// certificates, and on edges taken away, given another output or kind,
/// or sent elsewhere, it agrees with the first checker, rejecting where
/// the regions' graph no longer holds the program's steps.
#[test]
fn ltl_edges_are_checked_by_both_readings_alike() {
    use rigor::certificate::EdgeStep;
    let (mut accepted, mut rejected, mut tried) = (0, 0, 0);
    for (program, props) in ltl_cases() {
        let c = ltl_certificate(&program, &props);
        assert!(!c.holds.is_empty(), "{}: no claims", program.display());
        check(&program, &c).unwrap_or_else(|e| panic!("{}: {e}", program.display()));
        accepted += 1;
        let p = rigor::frontend::load(program.to_str().expect("utf-8")).expect("loads");
        let outputs: Vec<String> = p.outputs.iter().map(|o| o.name.clone()).collect();
        let edges: Vec<(usize, usize)> = (c.regions.iter().enumerate())
            .flat_map(|(k, r)| (0..r.edges.len()).map(move |j| (k, j)))
            .collect();
        // Up to 20 edges, spread over the certificate.
        let stride = (edges.len() / 20).max(1);
        for &(k, j) in edges.iter().step_by(stride) {
            let e = c.regions[k].edges[j].clone();
            let mut changes: Vec<Certificate> = Vec::new();
            let mut removed = c.clone();
            removed.regions[k].edges.remove(j);
            changes.push(removed);
            let other = match &e.step {
                EdgeStep::Output(o) => (outputs.iter())
                    .find(|x| *x != o)
                    .map(|x| EdgeStep::Output(x.clone())),
                EdgeStep::Invalid | EdgeStep::Unchanged => {
                    outputs.first().cloned().map(EdgeStep::Output)
                }
                EdgeStep::Silent => Some(EdgeStep::Invalid),
            };
            if let Some(step) = other {
                let mut relabeled = c.clone();
                relabeled.regions[k].edges[j].step = step;
                changes.push(relabeled);
            }
            let mut moved = c.clone();
            moved.regions[k].edges[j].target = (e.target + 1) % c.regions.len();
            changes.push(moved);
            for bad in changes {
                let first = rigor::certificate::check(&p, &bad, None).is_ok();
                let second = check(&program, &bad);
                assert_eq!(
                    first,
                    second.is_ok(),
                    "{}: region {k}, edge {j} ({e:?}) changed: first {first}, second {second:?}",
                    program.display()
                );
                tried += 1;
                rejected += usize::from(!first);
            }
        }
    }
    eprintln!("{accepted} accepted, {rejected} of {tried} changes rejected");
    assert!(
        accepted >= 2 && rejected >= 20,
        "{accepted} accepted, {rejected} of {tried} changes rejected"
    );
}
