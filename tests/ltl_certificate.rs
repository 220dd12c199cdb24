//! Certificates of LTL properties against the explicit LTL checker.
//!
//! - The abstraction's certificates of the properties it proves are
//!   accepted, and every claimed property holds by a complete exploration.
//! - Planted corruptions are rejected: a violated property claimed, an
//!   edge a reachable step needs removed, an edge sent to another region,
//!   an invalid step that stores something said to change nothing.
//! - On small generated programs, a claim the checker accepts is a property
//!   the explicit check proves (and many false claims are rejected).

use crate::common;

use rand::{Rng, SeedableRng};
use rigor::certificate::{Certificate, CheckError, Obligation};
use rigor::check::certify::{check_all, check_claims};
use rigor::check::ltl::{solve, LtlOptions, LtlReport};
use rigor::runtime::Budget;

fn budget() -> Budget {
    Budget::unlimited().with_timeout(std::time::Duration::from_secs(120))
}

/// The LTL run of `program` on `props`, with or without the abstraction.
fn ltl(program: &str, props: &str, abstraction: bool) -> LtlReport {
    let opts = LtlOptions {
        quotient: true,
        abstraction,
        certify: true,
        keep_certificate: true,
        ..LtlOptions::default()
    };
    solve(program, props, &budget(), &opts).expect("runs")
}

fn check(program: &str, c: &Certificate) -> Result<rigor::certificate::Checked, CheckError> {
    let p = rigor::frontend::load(program).expect("loads");
    let invalid_continues = rigor::ltl::check::invalid_continues(p.step_return);
    check_all(&p, c, invalid_continues, None)
}

/// The programs whose abstraction proves LTL properties, with their
/// property files and, for the shared ones, the verdicts of `truth.tsv`.
type Case = (String, String, Option<Vec<bool>>);

fn cases() -> Vec<Case> {
    let root = env!("CARGO_MANIFEST_DIR");
    let mut out: Vec<Case> = vec![
        (
            format!("{root}/problems/ltl-silent/Problem952.c"),
            format!("{root}/problems/ltl-silent/properties952.txt"),
            None,
        ),
        (
            format!("{root}/problems/ltl-finite/Problem951.c"),
            format!("{root}/problems/ltl-finite/constraints-Problem951.txt"),
            None,
        ),
    ];
    if let Some(rers) = common::rers_dir() {
        let truth = common::truth(&rers);
        for (program, props) in [
            ("2012/Problem4.c", "2012/properties4.txt"),
            (
                "2019/training-seq-ltl/Problem3/Problem3.c",
                "2019/training-seq-ltl/Problem3/constraints-Problem3.txt",
            ),
        ] {
            let mut rows: Vec<_> = (truth.iter())
                .filter(|t| t.program == program && t.track == "ltl")
                .collect();
            rows.sort_by_key(|t| t.property);
            out.push((
                rers.join(program).to_string_lossy().into(),
                rers.join(props).to_string_lossy().into(),
                Some(rows.iter().map(|t| t.verdict).collect()),
            ));
        }
    }
    out
}

#[test]
fn the_abstractions_ltl_certificates_are_accepted_and_true() {
    let mut claims = 0;
    for (program, props, truth) in cases() {
        let r = ltl(&program, &props, true);
        let cert = r
            .certificate
            .unwrap_or_else(|| panic!("{program}: no certificate"));
        claims += cert.holds.len();
        let text = cert.to_text();
        let back = Certificate::parse(&text, "c").expect("round trip");
        assert_eq!(back, cert);
        check(&program, &cert).unwrap_or_else(|e| panic!("{program}: {e}"));
        assert!(r.certificate_seconds.is_some(), "{program}: not certified");
        assert!(
            r.second_reading_seconds.is_some(),
            "{program}: no second reading: {:?}",
            r.notes
        );
        // Each claim holds: by the truth file, or by the explicit check.
        let truth = truth.unwrap_or_else(|| {
            let explicit = ltl(&program, &props, false);
            assert!(explicit.complete);
            (explicit.verdicts.iter())
                .map(|v| v.verdict == Some(true))
                .collect()
        });
        for (v, t) in r.verdicts.iter().zip(&truth) {
            if cert.holds.contains(&v.formula) {
                assert!(t, "{program}: {} claimed", v.formula);
                // Answered by the abstraction: certified; by the
                // exploration too: proved by it.
                assert_ne!(v.certified, Some(false), "{program}: {}", v.formula);
            }
        }
    }
    assert!(claims >= 50, "only {claims} claims");
}

/// The shared 2012 problem `n` and its property file, if the shared
/// problems are there (else the test says it is skipped).
fn shared_2012(n: u32) -> Option<(String, String)> {
    let Some(rers) = common::rers_dir() else {
        eprintln!("skipped: ../shared/rers not found");
        return None;
    };
    let path = |name: String| rers.join(name).to_string_lossy().into_owned();
    Some((
        path(format!("2012/Problem{n}.c")),
        path(format!("2012/properties{n}.txt")),
    ))
}

/// Each of the `n` properties of `r` answered: true ones certified, false
/// ones with a lasso that replays.
fn every_property_settled(r: &LtlReport, n: usize) {
    assert_eq!(r.verdicts.len(), n);
    for v in &r.verdicts {
        assert!(
            matches!(v.engine, Some("abstraction" | "exploration")),
            "{}: settled by {:?}",
            v.formula,
            v.engine
        );
        match v.verdict {
            Some(true) => assert_eq!(v.certified, Some(true), "{}", v.formula),
            Some(false) => assert!(v.counterexample.is_some(), "{}", v.formula),
            None => panic!("{} unknown: {:?}", v.formula, v.note),
        }
    }
}

/// 2012 P15: the abstraction's first round leaves a property open (its
/// abstract lasso does not replay, and no exploration ends); the round
/// that widens later settles every property, each one that holds with an
/// accepted certificate, each violated one with a lasso that replays.
#[test]
fn every_property_of_2012_problem15_is_answered_by_the_abstraction() {
    let Some((program, props)) = shared_2012(15) else {
        return;
    };
    every_property_settled(&ltl(&program, &props, true), 50);
}

/// 2012 P13 declares no input A: every step on A is invalid and stores
/// nothing, so it ends the run (2012 programs let only invalid inputs
/// that change the state go on). The abstraction's edges say so
/// (`unchanged`), which proves the six properties about A, each certified;
/// an `invalid` edge turned into `unchanged` where the step stores
/// something is rejected.
#[test]
fn invalid_inputs_that_store_nothing_end_the_run() {
    use rigor::certificate::EdgeStep;
    let Some((program, props)) = shared_2012(13) else {
        return;
    };
    let program = program.as_str();
    let r = ltl(program, &props, true);
    every_property_settled(&r, 100);
    let cert = r.certificate.expect("a certificate");
    let steps = |s: &EdgeStep| {
        cert.regions
            .iter()
            .flat_map(|r| &r.edges)
            .filter(|e| e.step == *s)
            .count()
    };
    assert!(steps(&EdgeStep::Unchanged) > 0);
    // Each region's `invalid` edges made `unchanged`, one region at a time:
    // where a step stores something, the region's consecution fails.
    let mut rejected = 0;
    for k in 0..cert.regions.len() {
        let mut bad = cert.clone();
        let mut changed = false;
        for e in &mut bad.regions[k].edges {
            if e.step == EdgeStep::Invalid {
                e.step = EdgeStep::Unchanged;
                e.target = k;
                changed = true;
            }
        }
        if !changed {
            continue;
        }
        match check(program, &bad) {
            Ok(_) => {}
            Err(CheckError::Fails {
                obligation: Obligation::Consecution(r),
                ..
            }) if r == k => rejected += 1,
            Err(e) => panic!("region {k}: {e}"),
        }
        if rejected >= 3 {
            break;
        }
    }
    assert!(rejected > 0, "no `invalid` edge of a storing step");
}

#[test]
fn planted_corruptions_are_rejected() {
    let (program, props, _) = cases()
        .into_iter()
        .find(|(p, _, _)| p.ends_with("Problem952.c"))
        .expect("bundled");
    let r = ltl(&program, &props, true);
    let cert = r.certificate.expect("a certificate");
    // A violated property claimed.
    let violated = (r.verdicts.iter())
        .find(|v| v.verdict == Some(false))
        .expect("a violated property");
    let mut bad = cert.clone();
    bad.holds.push(violated.formula.clone());
    let e = check(&program, &bad).expect_err("violated claim");
    // Claim by claim: only that one fails.
    let p = rigor::frontend::load(&program).expect("loads");
    let continues = rigor::ltl::check::invalid_continues(p.step_return);
    let (_, claims) = check_claims(&p, &bad, continues, None).expect("the invariant holds");
    let failing: Vec<usize> = (claims.iter().enumerate())
        .filter(|(_, c)| c.is_err())
        .map(|(k, _)| k)
        .collect();
    assert_eq!(failing, vec![bad.holds.len() - 1]);
    assert!(
        matches!(e, CheckError::Fails { obligation: Obligation::Property(k), .. } if k == bad.holds.len() - 1),
        "{e}"
    );
    // Every edge removed in turn: each removal the runs need is rejected
    // at that region's consecution, and at least one is.
    let mut rejected = 0;
    for k in 0..cert.regions.len() {
        for j in 0..cert.regions[k].edges.len() {
            let mut bad = cert.clone();
            bad.regions[k].edges.remove(j);
            match check(&program, &bad) {
                Ok(_) => {}
                Err(CheckError::Fails {
                    obligation: Obligation::Consecution(r),
                    counterexample: Some(_),
                    ..
                }) if r == k => rejected += 1,
                Err(e) => panic!("region {k} edge {j}: {e}"),
            }
        }
    }
    assert!(rejected > 0);
    // An edge sent to a region its successors are not in.
    let mut bad = cert.clone();
    let n = bad.regions.len();
    let mut moved = false;
    'all: for k in 0..n {
        for j in 0..bad.regions[k].edges.len() {
            let e = &bad.regions[k].edges[j];
            if bad.regions[e.target].bounds != bad.regions[(e.target + 1) % n].bounds {
                bad.regions[k].edges[j].target = (e.target + 1) % n;
                moved = true;
                break 'all;
            }
        }
    }
    if moved {
        assert!(check(&program, &bad).is_err());
    }
}

/// Claims over a generated program's letters.
fn formulas(rng: &mut impl Rng, inputs: &[String], outputs: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for _ in 0..8 {
        let i = &inputs[rng.random_range(0..inputs.len())];
        let o = &outputs[rng.random_range(0..outputs.len())];
        let p = &outputs[rng.random_range(0..outputs.len())];
        out.push(
            match rng.random_range(0..6) {
                0 => format!("(G ! o{o})"),
                1 => format!("(F o{o})"),
                2 => format!("(G (! i{i} | (F o{o})))"),
                3 => format!("(! o{o} WU i{i})"),
                4 => format!("(G (! o{o} | X (! o{p})))"),
                _ => format!("(G (F o{o}))"),
            }
            .to_string(),
        );
    }
    out
}

#[test]
fn on_generated_programs_accepted_claims_hold() {
    let dir = common::scratch_dir("rigor-ltl-cert");
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(26);
    let (mut accepted, mut rejected) = (0, 0);
    for n in 0..40 {
        let (path, text) = common::write_generated(&dir, n, &mut rng);
        let p = rigor::frontend::load(&path).expect("loads");
        let m = rigor::engine::Machine::compile(&p).expect("compiles");
        let g = match rigor::absint::explore_abstract(&p, &m, &budget()) {
            Ok(g) => g,
            Err(e) => {
                eprintln!("program {n}: {e}");
                continue;
            }
        };
        let fs = formulas(&mut rng, &g.inputs, &g.outputs);
        let props = dir.join(format!("properties{n}.txt"));
        let file: Vec<String> = (fs.iter().enumerate())
            .map(|(k, f)| format!("#{k}: claim\n{f}\n"))
            .collect();
        std::fs::write(&props, file.join("\n")).expect("written");
        let explicit = ltl(&path, &props.to_string_lossy(), false);
        assert!(explicit.complete, "program {n} explored");
        for (f, v) in fs.iter().zip(&explicit.verdicts) {
            let cert =
                rigor::absint::certify::certificate(&p, &m, &g, &[], std::slice::from_ref(f));
            match check(&path, &cert) {
                Ok(_) => {
                    assert_eq!(v.verdict, Some(true), "program {n}: `{f}` accepted\n{text}");
                    accepted += 1;
                }
                Err(CheckError::Fails {
                    obligation: Obligation::Property(0),
                    ..
                }) => rejected += 1,
                Err(e) => panic!("program {n}: `{f}`: {e}\n{text}"),
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        accepted >= 20 && rejected >= 20,
        "accepted {accepted}, rejected {rejected}"
    );
}
