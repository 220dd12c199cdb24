//! End-to-end reachability: the binary on `problems/` and on the RERS
//! programs with official verdicts; every witness confirmed by gcc.

use crate::common;

use common::{rers_dir, rigor_bin, truth_file, truth_with_large};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs `rigor reach --json --witness W PROGRAM [extra]`; returns the parsed
/// report and the witness file path.
fn reach(program: &Path, extra: &[&str], tmp: &Path) -> (serde_json::Value, PathBuf) {
    let w = tmp.join(format!(
        "{}.witnesses",
        program.file_name().unwrap().to_string_lossy()
    ));
    let out = Command::new(rigor_bin())
        .arg("reach")
        .arg("--json")
        .arg("--quiet")
        // Through the default pipeline: every "unreachable" certified,
        // by the first check and the second reading.
        .arg("--witness")
        .arg(&w)
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
    (serde_json::from_slice(&out.stdout).expect("JSON report"), w)
}

/// Runs `rigor validate` and asserts every witness is confirmed.
fn assert_validated(program: &Path, witnesses: &Path) {
    let (code, output) = common::validate(program, witnesses);
    assert_eq!(
        code,
        Some(0),
        "witnesses of {} not confirmed by gcc:\n{output}",
        program.display()
    );
}

/// `label -> Some(verdict)` (None: unknown) from a report.
fn verdicts(r: &serde_json::Value) -> BTreeMap<u32, Option<bool>> {
    r["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            (
                v["property"].as_u64().unwrap() as u32,
                v["verdict"].as_bool(),
            )
        })
        .collect()
}

fn problems_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("problems")
}

#[test]
fn bundled_problems_match_their_expected_answers() {
    let tmp = tempfile::tempdir().unwrap();
    let mut checked = 0;
    for entry in std::fs::read_dir(problems_dir()).unwrap() {
        let dir = entry.unwrap().path();
        let expected = dir.join("expected-reach.csv");
        if !expected.is_file() {
            continue;
        }
        let program = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.extension().is_some_and(|e| e == "c"))
            .expect("a C program");
        let out = Command::new(rigor_bin())
            .args(["reach", "--quiet", "--witness"])
            .arg(tmp.path().join("w.txt"))
            .arg(&program)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        // The same lines: reachable labels come first, as they are found.
        let sorted = |s: &str| {
            let mut l: Vec<String> = s.lines().map(str::to_string).collect();
            l.sort();
            l
        };
        assert_eq!(
            sorted(&String::from_utf8_lossy(&out.stdout)),
            sorted(&std::fs::read_to_string(&expected).unwrap()),
            "answers of {}",
            program.display()
        );
        // Shortest witnesses: the expected lengths.
        let lengths: BTreeMap<String, usize> = std::fs::read_to_string(tmp.path().join("w.txt"))
            .unwrap()
            .lines()
            .map(|l| {
                let (label, seq) = l.split_once(',').unwrap();
                (label.to_string(), seq.split_whitespace().count())
            })
            .collect();
        let expected_lengths: BTreeMap<String, usize> =
            std::fs::read_to_string(dir.join("expected-witness-lengths.txt"))
                .unwrap()
                .lines()
                .map(|l| {
                    let (label, n) = l.split_once(',').unwrap();
                    (label.to_string(), n.parse().unwrap())
                })
                .collect();
        assert_eq!(
            lengths,
            expected_lengths,
            "witness lengths of {}",
            program.display()
        );
        assert_validated(&program, &tmp.path().join("w.txt"));
        checked += 1;
    }
    assert!(
        checked >= 5,
        "expected at least five bundled problems, found {checked}"
    );
}

/// Checks a report against the official verdicts; with `expect_all`, every
/// label must be answered, by a complete exploration or by the abstraction.
fn check_against_truth(rel: &str, extra: &[&str], expect_all: bool) {
    let Some(dir) = rers_dir() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let program = dir.join(rel);
    let (report, w) = reach(&program, extra, tmp.path());
    let got = verdicts(&report);
    let want: BTreeMap<u32, bool> = truth_with_large(&dir)
        .into_iter()
        .filter(|t| t.program == rel && t.track == "reach")
        .map(|t| (t.property, t.verdict))
        .collect();
    assert!(!want.is_empty(), "no truth rows for {rel}");
    for (label, verdict) in &got {
        if let (Some(v), Some(t)) = (verdict, want.get(label)) {
            assert_eq!(v, t, "{rel}: error_{label} answered {v}, official {t}");
        }
    }
    if expect_all {
        assert!(
            report["complete"] == true || !report["abstract_states"].is_null(),
            "{rel}: neither a complete exploration nor an abstraction"
        );
        for (label, t) in &want {
            assert_eq!(
                got.get(label),
                Some(&Some(*t)),
                "{rel}: error_{label} not answered"
            );
        }
    }
    if std::fs::metadata(&w).map(|m| m.len() > 0).unwrap_or(false) {
        assert_validated(&program, &w);
    }
}

#[test]
fn rers_2012_small_problems() {
    for p in 1..=6 {
        check_against_truth(&format!("2012/Problem{p}.c"), &[], true);
    }
}

#[test]
fn rers_2012_problem7() {
    check_against_truth("2012/Problem7.c", &[], true);
}

#[test]
fn rers_2012_problem10() {
    check_against_truth("2012/Problem10.c", &[], true);
}

#[test]
fn rers_2017_problem10() {
    check_against_truth("2017/seq-reach/Problem10/Problem10.c", &[], true);
}

#[test]
fn rers_2019_training_problem11() {
    check_against_truth("2019/training-seq-reach/Problem11/Problem11.c", &[], true);
}

/// Training P12: the abstraction with the counters' parity leaves only
/// the reachable labels; the pruned search finds them all.
#[test]
fn rers_2019_training_problem12() {
    check_against_truth("2019/training-seq-reach/Problem12/Problem12.c", &[], true);
}

/// 2017 P11: keyed on every variable the abstraction never completes;
/// keyed on the relevant ones it has a few hundred states and proves the
/// 85 unreachable labels, and the pruned search finds the other 15.
#[test]
fn rers_2017_problem11() {
    check_against_truth("2017/seq-reach/Problem11/Problem11.c", &[], true);
}

/// Training P13: twelve labels sit behind counter guards (`a565163524 ==
/// 33`). With the counters' congruences learnt from the steps that run,
/// the abstraction reaches none of the unreachable ones; the reachable
/// ones are found by pumping the guarded counters.
#[test]
fn rers_2019_training_problem13() {
    check_against_truth("2019/training-seq-reach/Problem13/Problem13.c", &[], true);
}

/// 2014 P1402_opt has too many concrete states, but the interval
/// abstraction proves every label it does not reach unreachable.
#[test]
fn rers_2014_problem1402_opt_by_abstraction() {
    check_against_truth("2014/Problem1402_opt.c", &["--timeout", "120"], true);
}

/// The large 2012 problems (P11-P19 with reachability truth): the
/// abstraction, retried with later widening where a label's abstract path
/// does not replay, proves every unreachable label (before, 2012 P15's
/// labels 12, 32 and 52 stayed unknown: widening took a variable's bound
/// past the one value that keeps them out of reach).
#[test]
fn rers_2012_large_problems_all_answered() {
    let Some(dir) = rers_dir() else { return };
    let large: BTreeSet<String> = truth_file(&dir.join("truth-2012-large.tsv"))
        .into_iter()
        .filter(|t| t.track == "reach")
        .map(|t| t.program)
        .collect();
    assert!(large.len() >= 8, "large 2012 truth rows: {large:?}");
    for rel in &large {
        check_against_truth(rel, &["--timeout", "300"], true);
    }
}

/// The large ones stop at a limit: whatever is answered must agree.
#[test]
fn rers_large_problems_partial_answers_agree() {
    for rel in [
        "2017/seq-reach/Problem11/Problem11.c",
        "2019/training-seq-reach/Problem12/Problem12.c",
        "2019/training-seq-reach/Problem13/Problem13.c",
    ] {
        check_against_truth(rel, &["--max-states", "300000", "--timeout", "30"], false);
    }
    // Without the abstraction, the search alone.
    check_against_truth(
        "2014/Problem1402_opt.c",
        &["--max-states", "300000", "--no-abstraction"],
        false,
    );
}

#[test]
fn solve_writes_one_csv_per_problem() {
    // The same answers on one thread and on two.
    let mut written = Vec::new();
    for threads in ["1", "2"] {
        let tmp = tempfile::tempdir().unwrap();
        let out = Command::new(rigor_bin())
            .args(["solve", "--quiet", "--threads", threads, "--out"])
            .arg(tmp.path())
            .arg(problems_dir())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let table = String::from_utf8_lossy(&out.stdout);
        assert!(table.starts_with("problem"), "{table}");
        for n in 901..=905 {
            let csv = tmp.path().join(format!("Problem{n}-reach.csv"));
            assert!(csv.is_file(), "missing {}", csv.display());
        }
        let mut files: Vec<(String, String)> = std::fs::read_dir(tmp.path())
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "csv"))
            .map(|p| {
                let name = p.file_name().unwrap().to_string_lossy().to_string();
                (name, std::fs::read_to_string(&p).unwrap())
            })
            .collect();
        files.sort();
        written.push(files);
    }
    assert_eq!(written[0], written[1]);
}
