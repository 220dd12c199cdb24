//! The Java front end on the RERS Java programs: official reachability
//! verdicts, the industrial programs, witnesses and counterexamples
//! confirmed by the javac-compiled originals, and located errors for
//! unsupported Java. The C/Java comparisons are in `compare_pairs.rs`.
//!
//! Large state spaces are left to `scripts/java-full.sh` (release build,
//! long timeouts); here everything runs within limits and asserts only what
//! the limits let rigor prove.

use crate::common;

use common::{rers_dir, rigor_bin, truth, validate};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use rigor::engine::Machine;
use rigor::runtime::Budget;
use rigor::system::System;

fn machine(path: &Path) -> Machine {
    let p = rigor::frontend::load(&path.to_string_lossy())
        .unwrap_or_else(|e| panic!("{} does not load: {e}", path.display()));
    Machine::compile(&p).unwrap_or_else(|e| panic!("{} does not compile: {e}", path.display()))
}

/// `rigor reach --json` with extra flags.
fn reach_json(program: &Path, extra: &[&str]) -> serde_json::Value {
    let out = Command::new(rigor_bin())
        // Through the default pipeline: every "unreachable" certified,
        // by the first check and the second reading.
        .args(["reach", "--json", "--quiet"])
        .args(extra)
        .arg(program)
        .output()
        .expect("run rigor");
    assert!(
        out.status.success(),
        "rigor reach {} failed: {}",
        program.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON report")
}

/// Checks every decided verdict of `program` against truth.tsv; returns
/// (decided, total).
/// A deadline far beyond what the runs need. Without one, the abstraction's
/// refinement rounds are bounded only by their state limit: 2019 training
/// reach P13 in Java ran over 10 minutes without (its certificate check
/// not reached), 54 s with `--timeout 300`, every label answered.
const DEADLINE: &[&str] = &["--timeout", "600"];

fn check_reach(dir: &Path, program: &str, extra: &[&str]) -> (usize, usize) {
    let expected: BTreeMap<u32, bool> = truth(dir)
        .into_iter()
        .filter(|t| t.program == program && t.track == "reach")
        .map(|t| (t.property, t.verdict))
        .collect();
    assert!(!expected.is_empty(), "no truth for {program}");
    let r = reach_json(&dir.join(program), extra);
    let mut decided = 0;
    for v in r["verdicts"].as_array().expect("verdicts") {
        let label = v["property"].as_u64().expect("label") as u32;
        if let Some(got) = v["verdict"].as_bool() {
            assert_eq!(
                Some(&got),
                expected.get(&label),
                "{program}: label {label}: rigor says {got}"
            );
            decided += 1;
        }
    }
    if r["complete"].as_bool() == Some(true) {
        assert_eq!(
            decided,
            expected.len(),
            "{program}: complete but not all decided"
        );
    }
    (decided, expected.len())
}

#[test]
fn reach_2017_problem10_java_matches_truth_exactly() {
    let Some(dir) = rers_dir() else { return };
    let (decided, total) = check_reach(&dir, "2017/seq-reach/Problem10/Problem10.java", &[]);
    assert_eq!(decided, total, "every label decided");
}

#[test]
fn reach_2017_problem11_java_matches_truth_exactly() {
    let Some(dir) = rers_dir() else { return };
    let (decided, total) = check_reach(&dir, "2017/seq-reach/Problem11/Problem11.java", &[]);
    assert_eq!(decided, total, "every label decided");
}

#[test]
fn reach_2019_training_problems_java_match_truth_exactly() {
    let Some(dir) = rers_dir() else { return };
    for p in [
        "2019/training-seq-reach/Problem11/Problem11.java",
        "2019/training-seq-reach/Problem12/Problem12.java",
        "2019/training-seq-reach/Problem13/Problem13.java",
    ] {
        let (decided, total) = check_reach(&dir, p, DEADLINE);
        assert_eq!(decided, total, "{p}: every label decided");
    }
}

/// The larger Java reach problems: no wrong verdict within a state budget,
/// and every reachable label found so far has a replayed witness. The full
/// runs (every verdict) are in `scripts/java-full.sh`.
#[test]
fn reach_large_java_problems_never_wrong_within_limits() {
    let Some(dir) = rers_dir() else { return };
    for p in [
        "2017/seq-reach/Problem11/Problem11.java",
        "2019/training-seq-reach/Problem11/Problem11.java",
        "2019/training-seq-reach/Problem12/Problem12.java",
        "2019/training-seq-reach/Problem13/Problem13.java",
    ] {
        let (decided, total) = check_reach(&dir, p, &["--max-states", "20000", "--timeout", "20"]);
        eprintln!("{p}: {decided} of {total} labels decided within 20000 states");
        assert!(decided > 0, "{p}: some reachable label is found early");
    }
}

/// The 2019 challenge Java problem 15 (no truth): every label answered,
/// each unreachable one by the abstraction with its certificate accepted
/// by the independent check, each reachable one by a witness the Java
/// program confirms.
#[test]
fn every_label_of_2019_challenge_java_problem15_is_answered() {
    let Some(dir) = rers_dir() else { return };
    let program = dir.join("2019/seq-reach/Problem15/Problem15.java");
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let witnesses = tmp.path().join("witnesses");
    let out = Command::new(rigor_bin())
        .args([
            "reach",
            "--json",
            "--quiet",
            "--timeout",
            "300",
            "--witness",
        ])
        .arg(&witnesses)
        .arg(&program)
        .output()
        .expect("run rigor");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    let verdicts = r["verdicts"].as_array().expect("verdicts");
    assert_eq!(verdicts.len(), 100);
    let mut reachable = 0;
    for v in verdicts {
        let label = &v["property"];
        match v["verdict"].as_bool() {
            Some(true) => reachable += 1,
            Some(false) => assert_eq!(v["certified"], true, "label {label}: not certified"),
            None => panic!("label {label} not answered"),
        }
    }
    assert!(reachable > 0);
    let (code, output) = validate(&program, &witnesses);
    assert_eq!(code, Some(0), "witnesses not confirmed:\n{output}");
}

#[test]
fn industrial_programs_all_parse_and_compile() {
    let Some(dir) = rers_dir() else { return };
    let mut n = 0;
    for cat in ["arithmetic", "data-structures"] {
        let base = dir.join("2019/industrial-reach").join(cat);
        let mut subs: Vec<_> = std::fs::read_dir(&base)
            .expect("folder")
            .flatten()
            .map(|e| e.path())
            .collect();
        subs.sort();
        for sub in subs {
            let name = sub.file_name().unwrap().to_string_lossy().to_string();
            let m = machine(&sub.join(format!("{name}_Reach.java")));
            assert!(m.n_inputs() > 0 && !m.error_labels.is_empty(), "{name}");
            n += 1;
        }
    }
    assert_eq!(n, 24);
}

#[test]
fn industrial_reach_stops_cleanly_at_limits() {
    let Some(dir) = rers_dir() else { return };
    // m135 completes quickly; m158 does not: both must give a clean report.
    for p in [
        "arithmetic/m135/m135_Reach.java",
        "arithmetic/m158/m158_Reach.java",
    ] {
        let r = reach_json(
            &dir.join("2019/industrial-reach").join(p),
            &["--max-states", "50000", "--timeout", "60"],
        );
        // An unreachable label needs a complete exploration or the
        // abstraction's proof.
        let proved = r["complete"].as_bool().unwrap() || !r["abstract_states"].is_null();
        for v in r["verdicts"].as_array().unwrap() {
            if v["verdict"] == false {
                assert!(
                    proved,
                    "{p}: unreachable claimed without a complete exploration"
                );
            }
            if v["verdict"] == true {
                assert!(v["witness"].as_array().is_some_and(|w| !w.is_empty()));
            }
        }
    }
}

#[test]
fn unsupported_java_is_a_located_error() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let p = tmp.path().join("Bad.java");
    std::fs::write(
        &p,
        "public class Bad {\n    private String[] inputs = {\"A\"};\n    public int x = 0;\n    public void calculateOutput(String input) {\n        for (int i = 0; i < 2; i++) { x++; }\n        System.out.println(\"Y\");\n    }\n}\n",
    )
    .expect("write");
    let out = Command::new(rigor_bin())
        .arg("reach")
        .arg(&p)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("Bad.java:5:9: unsupported Java construct: for loop"),
        "{err}"
    );

    std::fs::write(&p, "public class Bad {\n    public void calculateOutput(String input) {\n        x = ;\n    }\n}\n")
        .expect("write");
    let out = Command::new(rigor_bin())
        .arg("reach")
        .arg(&p)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("Bad.java:3:") && err.contains("syntax error"),
        "{err}"
    );
}

#[test]
fn solve_accepts_a_java_folder() {
    let Some(dir) = rers_dir() else { return };
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = Command::new(rigor_bin())
        .args(["solve", "--quiet", "--out"])
        .arg(tmp.path())
        .arg(dir.join("2019/industrial-reach/arithmetic/m159"))
        .output()
        .expect("run rigor solve");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let csv: String = std::fs::read_dir(tmp.path())
        .expect("answers")
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "csv"))
        .map(|e| std::fs::read_to_string(e.path()).expect("read"))
        .collect();
    // m159: 92 states, complete; 55 reachable labels (cross-checked on the JVM
    // with scripts/native-java), the other 45 unreachable.
    assert_eq!(
        csv.lines().filter(|l| l.ends_with(",true")).count(),
        55,
        "{csv}"
    );
    assert_eq!(
        csv.lines().filter(|l| l.ends_with(",false")).count(),
        45,
        "{csv}"
    );
}

/// Industrial programs whose whole state space rigor explores, with the
/// figures of a native JVM breadth-first search of the original classes
/// (`scripts/native-java`): states, transitions, reachable labels.
#[test]
fn industrial_complete_runs_match_the_jvm() {
    let Some(dir) = rers_dir() else { return };
    for (p, states, transitions, reachable) in [
        ("data-structures/m49/m49_Reach.java", 7, 413, 0),
        ("arithmetic/m135/m135_Reach.java", 432, 41472, 58),
        ("arithmetic/m164/m164_Reach.java", 76, 5776, 80),
        ("arithmetic/m172/m172_Reach.java", 310, 21700, 96),
    ] {
        let r = reach_json(
            &dir.join("2019/industrial-reach").join(p),
            &["--no-abstraction"],
        );
        assert_eq!(r["complete"], true, "{p}");
        assert_eq!(r["states"], states, "{p}");
        assert_eq!(r["transitions"], transitions, "{p}");
        let n = r["verdicts"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|v| v["verdict"] == true)
            .count();
        assert_eq!(n, reachable, "{p}");
    }
}

/// Every reachable-label witness of the shared Java programs with truth is
/// confirmed by the javac-compiled original; planted wrong witnesses (the
/// last input dropped, another label claimed) are not.
#[test]
fn java_witnesses_are_confirmed_by_javac() {
    let Some(dir) = rers_dir() else { return };
    if Command::new("javac").arg("-version").output().is_err() {
        eprintln!("skipped: javac not found (Debian's default-jdk-headless)");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    for rel in [
        "2017/seq-reach/Problem10/Problem10.java",
        "2017/seq-reach/Problem11/Problem11.java",
        "2019/training-seq-reach/Problem11/Problem11.java",
        "2019/training-seq-reach/Problem12/Problem12.java",
        "2019/training-seq-reach/Problem13/Problem13.java",
    ] {
        let program = dir.join(rel);
        let w = tmp.path().join("witnesses.txt");
        let flags: Vec<&str> = [w.to_str().unwrap()]
            .into_iter()
            .chain(DEADLINE.iter().copied())
            .collect();
        let r = reach_json(&program, &[&["--witness"], &flags[..]].concat());
        let reachable = (r["verdicts"].as_array().unwrap().iter())
            .filter(|v| v["verdict"] == true)
            .count();
        let text = std::fs::read_to_string(&w).unwrap();
        assert_eq!(text.lines().count(), reachable, "{rel}");
        let (code, out) = validate(&program, &w);
        assert_eq!(code, Some(0), "{rel}: {out}");
        assert_eq!(
            out.matches("confirmed").count() - 1,
            reachable,
            "{rel}: {out}"
        );
        if rel.starts_with("2019/training-seq-reach/Problem11") {
            let first = text.lines().next().unwrap();
            let (label, inputs) = first.split_once(',').unwrap();
            let shorter = inputs.rsplit_once(' ').map_or("", |(a, _)| a);
            let other: u32 = label.parse::<u32>().unwrap() + 1;
            for planted in [
                format!("{label},{shorter}\n"),
                format!("{other},{inputs}\n"),
            ] {
                std::fs::write(&w, &planted).unwrap();
                let (code, out) = validate(&program, &w);
                assert_eq!(code, Some(1), "{planted} accepted: {out}");
                assert!(out.contains("NOT confirmed"), "{out}");
            }
        }
    }
}

/// `rigor solve --validate` on a folder holding a Java program: every
/// reachable label's witness runs on the javac-compiled original.
#[test]
fn solve_validates_java_witnesses_natively() {
    let Some(dir) = rers_dir() else { return };
    if Command::new("javac").arg("-version").output().is_err() {
        eprintln!("skipped: javac not found (Debian's default-jdk-headless)");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let folder = tmp.path().join("problems");
    std::fs::create_dir(&folder).unwrap();
    std::fs::copy(
        dir.join("2019/training-seq-reach/Problem11/Problem11.java"),
        folder.join("Problem11.java"),
    )
    .unwrap();
    let out = Command::new(rigor_bin())
        .args(["solve", "--quiet", "--validate", "--out"])
        .arg(tmp.path().join("answers"))
        .arg(&folder)
        .output()
        .expect("run rigor solve");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let csv = std::fs::read_to_string(tmp.path().join("answers/Problem11-reach.csv")).unwrap();
    let reachable = csv.lines().filter(|l| l.ends_with(",true")).count();
    assert!(reachable > 0);
    assert!(
        err.contains(&format!("{reachable} of {reachable} witnesses confirmed")),
        "{err}"
    );
}

/// Every counterexample of the 2019 LTL problem 1, in C and in Java, is
/// printed by the natively compiled original (gcc, javac) fed its inputs;
/// a lasso with a wrong output, or one output short, is not; and `rigor
/// solve --validate` says how many it confirmed.
#[test]
fn counterexamples_are_confirmed_natively() {
    use rigor::check::ltl::{solve, LtlOptions};
    use rigor::ltl::lasso::LassoWord;
    use rigor::validate::lasso::confirm_lassos;
    let Some(dir) = rers_dir() else { return };
    if Command::new("javac").arg("-version").output().is_err() {
        eprintln!("skipped: javac not found (Debian's default-jdk-headless)");
        return;
    }
    let folder = dir.join("2019/seq-ltl/Problem1");
    let props = folder.join("constraints-Problem1.txt");
    for ext in ["c", "java"] {
        let program = folder.join(format!("Problem1.{ext}"));
        let name = program.to_string_lossy().to_string();
        let budget = Budget::unlimited().with_timeout(std::time::Duration::from_secs(120));
        let r = solve(
            &name,
            &props.to_string_lossy(),
            &budget,
            &LtlOptions::default(),
        )
        .expect("runs");
        let lassos: Vec<(usize, LassoWord)> = (r.verdicts.iter())
            .filter(|v| v.verdict == Some(false))
            .map(|v| {
                let text = v.counterexample.as_ref().expect("a counterexample");
                (v.property, LassoWord::from_rers(text).expect("RERS form"))
            })
            .collect();
        assert!(lassos.len() > 10, "{name}: {} violated", lassos.len());
        let p = rigor::frontend::load(&name).expect("loads");
        let timeout = std::time::Duration::from_secs(10);
        let checks = confirm_lassos(&program, &p.inputs, &p.outputs, &lassos, timeout)
            .expect("harness builds");
        for c in &checks {
            assert!(
                c.confirmed,
                "{name}: property {} not confirmed: {c:?}",
                c.property
            );
        }
        // Planted: another output at the cycle's last output, and the
        // cycle without its last letter.
        let mut planted = Vec::new();
        for (k, l) in lassos.iter().take(5) {
            let last = l.cycle.iter().rposition(|x| x.starts_with('o'));
            if let Some(at) = last {
                let other = (p.outputs.iter())
                    .map(|s| format!("o{}", s.name))
                    .find(|o| *o != l.cycle[at])
                    .expect("two outputs");
                let mut wrong = l.clone();
                wrong.cycle[at] = other;
                planted.push((*k, wrong));
            }
            let mut short = l.clone();
            short.cycle.pop();
            if !short.cycle.is_empty() {
                planted.push((*k, short));
            }
        }
        assert!(!planted.is_empty());
        let checks = confirm_lassos(&program, &p.inputs, &p.outputs, &planted, timeout)
            .expect("harness builds");
        for (c, (_, l)) in checks.iter().zip(&planted) {
            assert!(!c.confirmed, "{name}: planted {} confirmed", l.to_rers());
        }
    }
}
