//! The invariant engine (`horn`, Spacer) and its certificates.
//!
//! - On a program whose labels only a relational invariant settles
//!   (`problems/reach-relational`), `rigor reach` proves them with the
//!   invariant engine, writes the certificates, and `rigor
//!   check-certificate` accepts them and rejects a planted claim.
//! - On small generated programs, every invariant found is accepted by the
//!   checker and claims only labels a complete breadth-first search never
//!   reaches, whether the queries run in a thread or in worker processes
//!   (`rigor horn-worker`).

use crate::common;

use std::collections::{BTreeSet, HashSet};
use std::sync::atomic::AtomicBool;
use std::sync::Mutex;
use std::time::Duration;

use rand::SeedableRng;
use rigor::certificate::check_invariant;
use rigor::engine::Machine;
use rigor::explore::{explore_levels, Options};
use rigor::horn::{Prover, WorkerCommand};
use rigor::runtime::Budget;

fn problem(dir: &str) -> String {
    let d = format!("{}/problems/{dir}", env!("CARGO_MANIFEST_DIR"));
    let f = std::fs::read_dir(&d)
        .expect("bundled problem")
        .filter_map(|e| e.ok())
        .find(|e| e.path().extension().is_some_and(|x| x == "c"))
        .expect("a .c file");
    f.path().to_string_lossy().into_owned()
}

fn run(args: &[&str]) -> std::process::Output {
    std::process::Command::new(common::rigor_bin())
        .args(args)
        .output()
        .expect("rigor runs")
}

#[test]
fn relational_labels_are_proved_by_an_invariant() {
    let dir = std::env::temp_dir().join(format!("rigor-inv-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let program = problem("reach-relational");
    let cert = dir.join("c").to_string_lossy().into_owned();
    // The run ends once the engine has proved 0 and 2 (well under a
    // second alone); the timeout only bounds a machine that is busy.
    let out = run(&[
        "reach",
        &program,
        "--timeout",
        "120",
        "--json",
        "--quiet",
        "--certificate",
        &cert,
    ]);
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    let verdict = |l: u64| {
        let v = (r["verdicts"].as_array().expect("verdicts").iter())
            .find(|v| v["property"] == l)
            .expect("label");
        (
            v["verdict"].as_bool(),
            v["engine"].as_str().map(String::from),
        )
    };
    assert_eq!(verdict(0), (Some(false), Some("invariant".into())), "{r}");
    assert_eq!(verdict(2), (Some(false), Some("invariant".into())), "{r}");
    assert_eq!(verdict(1), (Some(true), Some("witness".into())), "{r}");
    // The search was ended because everything was settled, not interrupted.
    assert_eq!(r["stopped"], "AllErrorsFound", "{r}");
    // The certificate is written and accepted on its own: exit 0.
    let inv = format!("{cert}.invariant1");
    let checked = |file: &str| {
        let out = run(&["check-certificate", &program, file]);
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let (code, said) = checked(&inv);
    assert_eq!(code, Some(0), "{said}");
    let text = std::fs::read_to_string(&inv).expect("certificate");
    assert!(text.contains("; unreachable 0 2"), "{text}");
    let bad = dir.join("bad").to_string_lossy().into_owned();
    for planted in [
        // The reachable label claimed too.
        text.replace("; unreachable 0 2", "; unreachable 0 1 2"),
        // Not an invariant: x == y + 1 does not hold initially.
        "; rigor invariant certificate\n; unreachable 0 2\n(= |pre.x| (bvadd |pre.y| #x00000001))\n"
            .to_string(),
    ] {
        std::fs::write(&bad, &planted).expect("written");
        let (code, said) = checked(&bad);
        assert_eq!(code, Some(1), "{planted}: {said}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The labels a complete exploration of `m` reaches.
fn reached(m: &Machine) -> Option<HashSet<u32>> {
    let opts = Options {
        threads: 1,
        ..Options::default()
    };
    let ex = explore_levels(m, &Budget::unlimited().with_max_states(200_000), &opts);
    ex.is_complete()
        .then(|| ex.errors.iter().map(|e| e.0).collect())
}

#[test]
fn on_generated_programs_invariants_claim_only_unreachable_labels() {
    let dir = common::scratch_dir("rigor-inv-gen");
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(24);
    let (mut proved, mut programs, mut by_worker) = (0, 0, 0);
    let worker = WorkerCommand {
        program: env!("CARGO_BIN_EXE_rigor").into(),
        args: vec!["horn-worker".into()],
    };
    for n in 0..12 {
        let (path, text) = common::write_generated(&dir, n, &mut rng);
        let p = rigor::frontend::load(&path).expect("loads");
        let m = Machine::compile(&p).expect("compiles");
        let Some(labels) = reached(&m) else { continue };
        programs += 1;
        let budget = Budget::unlimited().with_timeout(Duration::from_secs(10));
        let (stop, found) = (AtomicBool::new(false), Mutex::new(BTreeSet::new()));
        let mut certs = Vec::new();
        // Every other program's queries run in worker processes.
        let prover = match n % 2 {
            0 => Prover::InThread,
            _ => Prover::Worker {
                cmd: &worker,
                source: &path,
            },
        };
        let keep = |c| certs.push(c);
        rigor::horn::prove_labels(&p, &p.error_labels, &budget, &stop, &found, keep, prover)
            .expect("encodes");
        for c in &certs {
            check_invariant(&p, c, None).unwrap_or_else(|e| panic!("program {n}: {e}\n{text}"));
            for l in &c.unreachable {
                assert!(
                    !labels.contains(l),
                    "program {n}: label {l} reachable\n{text}"
                );
                proved += 1;
                by_worker += n % 2;
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        programs >= 8 && proved >= 5 && by_worker > 0,
        "{programs} programs, {proved} labels proved ({by_worker} by workers)"
    );
}
