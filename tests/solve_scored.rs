//! Truth through the default pipeline: `rigor solve` on whole year folders
//! of `../shared/rers` (certification on: every "unreachable" passes the
//! first check and the second reading), its answer CSVs scored by
//! `rigor score` against the official solutions. No answer may be wrong
//! but the documented errata (`docs/errata.md`), and every label must be
//! answered.

use crate::common;

use common::{rers_dir, rigor_bin, rigor_json, truth, truth_file, Truth};
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

/// Official answers shown wrong (`docs/errata.md`): problem and label.
const ERRATA: &[(&str, u32)] = &[
    ("13", 16),
    ("13", 22),
    ("13", 29),
    ("13", 30),
    ("13", 40),
    ("13", 53),
    ("13", 89),
];

/// The problem number of a truth row's program (`.../Problem13.c` is 13).
fn problem_number(program: &str) -> Option<String> {
    let name = Path::new(program)
        .file_stem()?
        .to_string_lossy()
        .to_string();
    name.strip_prefix("Problem").map(str::to_string)
}

/// Solves the year folder `year` and scores its reachability answers
/// against `rows` (the C programs' rows of that year).
fn solve_and_score(year: &str, rows: &[Truth], errata: &[(&str, u32)]) {
    let Some(dir) = rers_dir() else {
        eprintln!("skipped: ../shared/rers not found");
        return;
    };
    let rows: Vec<&Truth> = (rows.iter())
        .filter(|t| t.track == "reach" && t.program.starts_with(year) && t.program.ends_with(".c"))
        .collect();
    assert!(!rows.is_empty(), "no reachability truth for {year}");
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("answers");
    let run = Command::new(rigor_bin())
        .args(["solve", "--quiet", "--timeout", "120", "--out"])
        .arg(&out)
        .arg(dir.join(year))
        .output()
        .expect("run rigor solve");
    assert!(
        run.status.success(),
        "rigor solve {year}: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    // The official solutions as a RERS CSV of the reachability track.
    let solution = tmp.path().join("solution-reach.csv");
    let lines: Vec<String> = (rows.iter())
        .map(|t| {
            let p = problem_number(&t.program).expect("a ProblemN program");
            format!("{p},{},{}", t.property, t.verdict)
        })
        .collect();
    std::fs::write(&solution, lines.join("\n") + "\n").unwrap();
    let problems: BTreeSet<String> = (rows.iter())
        .filter_map(|t| problem_number(&t.program))
        .collect();
    let answers: Vec<String> = (problems.iter())
        .map(|p| out.join(format!("Problem{p}-reach.csv")))
        .inspect(|f| assert!(f.is_file(), "{year}: no {}", f.display()))
        .map(|f| f.to_string_lossy().to_string())
        .collect();
    let mut args = vec!["score", "--json"];
    args.extend(answers.iter().map(String::as_str));
    args.extend(["--solution", solution.to_str().unwrap()]);
    let score = rigor_json(&args);
    let wrong: BTreeSet<(String, u32)> = (score["wrong"].as_array().expect("wrong answers"))
        .iter()
        .map(|w| {
            (
                w["problem"].as_str().unwrap().to_string(),
                w["property"].as_u64().unwrap() as u32,
            )
        })
        .collect();
    let expected: BTreeSet<(String, u32)> =
        (errata.iter()).map(|(p, l)| (p.to_string(), *l)).collect();
    assert_eq!(wrong, expected, "{year}: wrong answers but the errata");
    assert_eq!(
        score["answered"].as_u64(),
        Some(rows.len() as u64),
        "{year}: not every label answered: {score}"
    );
}

/// 2017: P10 and P11 reachability (the LTL problems are solved too, and
/// not scored here: their solutions are not among the truth files).
#[test]
fn rers_2017_solved_and_scored() {
    let Some(dir) = rers_dir() else { return };
    solve_and_score("2017", &truth(&dir), &[]);
}

/// 2018: P13, whose seven official "reachable" answers are errata.
#[test]
fn rers_2018_solved_and_scored() {
    let Some(dir) = rers_dir() else { return };
    let rows = truth_file(&dir.join("truth-2018.tsv"));
    solve_and_score("2018", &rows, ERRATA);
}

/// 2019 training: P11-P13 reachability (P13's labels behind counter
/// guards included).
#[test]
fn rers_2019_training_solved_and_scored() {
    let Some(dir) = rers_dir() else { return };
    solve_and_score("2019/training-seq-reach", &truth(&dir), &[]);
}
