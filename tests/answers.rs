//! Answers, scoring, consensus and MCC export on the real RERS files.
//!
//! Every test that needs `../shared/rers` says so and returns when it is
//! absent. Hand-computed figures come from the official 2019 training
//! solutions: reach Problem11 has 24 reachable and 76 unreachable labels
//! (max 24·1 + 76·2 = 176), Problem12 36 / 64 (164), Problem13 30 / 70
//! (170); LTL Problem1 has 32 true and 68 false properties (32·2 + 68 =
//! 132).

use crate::common;

use common::{rigor_json, rigor_ok as rigor};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use rigor::answers::read::{self, ReadOptions};
use rigor::answers::score::{self, Medal};
use rigor::answers::{AnswerMap, Key, Track};
use serde_json::Value;

/// Every official solution file under `dir`, as paths relative to it.
fn solution_files(dir: &Path) -> Vec<PathBuf> {
    fn walk(base: &Path, d: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(base, &p, out);
                continue;
            }
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            if name.ends_with("-solutions.csv")
                || name.ends_with("-solutions.txt")
                || name.ends_with("_solutions.csv")
                || name.starts_with("reachability-solution-")
                || name == "constraints-solution.csv"
            {
                out.push(p.strip_prefix(base).unwrap().to_path_buf());
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out
}

fn read_map(path: &Path) -> AnswerMap {
    let f = read::read_file(path.to_str().unwrap(), &ReadOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    f.map_with(|_| None).unwrap_or_else(|e| panic!("{e}"))
}

/// The folder of programs a solution belongs to: the year for files lying
/// directly in it (2012, 2014), else year/category (`2017/seq-reach`).
fn program_prefix(rel: &Path) -> String {
    let parts: Vec<String> = rel
        .iter()
        .map(|c| c.to_string_lossy().to_string())
        .collect();
    if parts.len() == 2 {
        parts[0].clone()
    } else {
        format!("{}/{}", parts[0], parts[1])
    }
}

fn label_in_source(source: &str, n: u32) -> bool {
    let re = regex::Regex::new(&format!(r"\berror_{n}\b|__VERIFIER_error\(\s*{n}\s*\)")).unwrap();
    re.is_match(source)
}

#[test]
fn every_solution_file_is_read_and_agrees_with_truth() {
    let Some(dir) = common::rers_dir() else {
        return;
    };
    let truth = common::truth(&dir);
    let files = solution_files(&dir);
    assert_eq!(files.len(), 28, "official solution files found: {files:?}");
    let mut covered: BTreeSet<(String, String, u32)> = BTreeSet::new();
    let mut tolerated = Vec::new();
    for rel in &files {
        let sol = read_map(&dir.join(rel));
        assert!(!sol.is_empty(), "{}: no answers", rel.display());
        let problems: BTreeSet<&str> = sol.keys().map(|k| k.problem.as_str()).collect();
        assert_eq!(problems.len(), 1, "{}: one problem per file", rel.display());
        let problem = problems.into_iter().next().unwrap();
        let tracks: BTreeSet<&str> = sol.keys().map(|k| k.track.name()).collect();
        let prefix = program_prefix(rel);
        let rows: Vec<&common::Truth> = truth
            .iter()
            .filter(|t| {
                t.program.starts_with(&format!("{prefix}/"))
                    && rigor::answers::naming::problem_name(&t.program) == problem
                    && tracks.contains(t.track.as_str())
            })
            .collect();
        assert!(!rows.is_empty(), "{}: no truth rows", rel.display());
        // C and Java programs of one problem share their verdicts.
        let mut expected: BTreeMap<Key, bool> = BTreeMap::new();
        for t in &rows {
            let k = Key::new(problem, Track::parse(&t.track).unwrap(), t.property);
            if let Some(&v) = expected.get(&k) {
                assert_eq!(v, t.verdict, "truth.tsv disagrees with itself on {k}");
            }
            expected.insert(k, t.verdict);
            covered.insert((t.program.clone(), t.track.clone(), t.property));
        }
        for (k, v) in &expected {
            assert_eq!(sol.get(k), Some(v), "{}: {k}", rel.display());
        }
        // Anything more must be a label that no program of the problem has.
        let sources: Vec<String> = rows
            .iter()
            .map(|t| t.program.clone())
            .collect::<BTreeSet<_>>()
            .iter()
            .map(|p| std::fs::read_to_string(dir.join(p)).unwrap())
            .collect();
        for (k, v) in sol.iter().filter(|(k, _)| !expected.contains_key(k)) {
            assert!(
                k.track == Track::Reach
                    && !v
                    && sources.iter().all(|s| !label_in_source(s, k.property)),
                "{}: {k} = {v} is not in truth.tsv",
                rel.display()
            );
            tolerated.push(format!("{}: {k}", rel.display()));
        }
    }
    // Every truth row is backed by some official file.
    for t in &truth {
        assert!(
            covered.contains(&(t.program.clone(), t.track.clone(), t.property)),
            "truth row without a solution file: {t:?}"
        );
    }
    // The 2012 CSVs' id 60 (a label no 2012 program has) is dropped.
    assert!(tolerated.is_empty(), "{tolerated:?}");
}

#[test]
fn black_box_checking_files_are_read() {
    let Some(dir) = common::rers_dir() else {
        return;
    };
    let bbc = dir.join("2017/seq-ltl-derived/NFM2018BBC/bbc");
    let mut n = 0;
    for e in std::fs::read_dir(&bbc).unwrap() {
        let p = e.unwrap().path();
        let f = read::read_file(p.to_str().unwrap(), &ReadOptions::default()).unwrap();
        let answers = f.answers().unwrap();
        assert!(answers.iter().all(|a| a.track == Track::Ltl && !a.verdict));
        let stem = p.file_stem().unwrap().to_string_lossy().to_string();
        assert!(stem.ends_with(&format!("-{}", f.tool.unwrap())), "{stem}");
        // A learner that refuted nothing leaves a header only.
        if !answers.is_empty() {
            n += 1;
        }
    }
    assert_eq!(n, 44);
}

#[test]
fn official_solutions_score_full_marks_against_themselves() {
    let Some(dir) = common::rers_dir() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    for rel in solution_files(&dir) {
        // A copy at the same relative path (its name carries the problem).
        let copy = tmp.path().join(&rel);
        std::fs::create_dir_all(copy.parent().unwrap()).unwrap();
        std::fs::copy(dir.join(&rel), &copy).unwrap();
        let orig = dir.join(&rel);
        let r = rigor_json(&[
            "score",
            copy.to_str().unwrap(),
            "--solution",
            orig.to_str().unwrap(),
            "--json",
        ]);
        assert_eq!(r["q"], 0, "{}", rel.display());
        assert_eq!(r["p"], r["max_score"], "{}", rel.display());
        assert_eq!(r["score"], r["max_score"], "{}", rel.display());
        assert_eq!(r["unanswered"], 0, "{}", rel.display());
        assert_eq!(r["wrong"].as_array().unwrap().len(), 0);
        assert!(r["max_score"].as_u64().unwrap() > 0);
        for c in r["categories"].as_array().unwrap() {
            assert_eq!(c["achievement"], "gold", "{}", rel.display());
        }
    }
}

/// The lines of a `label,verdict` solution with some changed, some
/// dropped, some added.
fn plant(text: &str, flip: &[u32], drop: &[u32], add: &[&str]) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let (label, verdict) = line.split_once(',').unwrap();
        let n: u32 = label.parse().unwrap();
        if drop.contains(&n) {
            continue;
        }
        let v = if flip.contains(&n) {
            (verdict != "true").to_string()
        } else {
            verdict.to_string()
        };
        out.push_str(&format!("11,{n},{v}\n"));
    }
    for a in add {
        out.push_str(a);
        out.push('\n');
    }
    out
}

#[test]
fn planted_wrong_missing_and_extra_answers() {
    let Some(dir) = common::rers_dir() else {
        return;
    };
    let sol = dir.join("2019/training-seq-reach/Problem11/reachability-solution-Problem11.csv");
    let text = std::fs::read_to_string(&sol).unwrap();
    let sol = sol.to_str().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let answers = tmp.path().join("answers.csv");
    let ans = answers.to_str().unwrap();

    // Labels 16, 18 are reachable (1 token), 0, 1 unreachable (2 tokens).
    // Wrong: 16 (q 1) and 0 (q 2). Missing: 18 and 1. Extra: label 100 and
    // problem 99 (not scored).
    let planted = plant(&text, &[16, 0], &[18, 1], &["11,100,false", "99,5,true"]);
    std::fs::write(&answers, planted).unwrap();
    let r = rigor_json(&[
        "score",
        ans,
        "--solution",
        sol,
        "--track",
        "reach",
        "--json",
    ]);
    assert_eq!(r["max_score"], 176);
    assert_eq!(r["p"], 176 - 1 - 2 - 1 - 2);
    assert_eq!(r["q"], 3);
    assert_eq!(r["score"], 170 - 9);
    assert_eq!(r["answered"], 98);
    assert_eq!(r["correct"], 96);
    assert_eq!(r["unanswered"], 2);
    let wrong: Vec<(u64, bool, bool, u64)> = r["wrong"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| {
            (
                w["property"].as_u64().unwrap(),
                w["answered"].as_bool().unwrap(),
                w["expected"].as_bool().unwrap(),
                w["tokens"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(wrong, [(0, true, false, 2), (16, false, true, 1)]);
    assert_eq!(r["extra"].as_array().unwrap().len(), 2);
    assert_eq!(r["categories"][0]["achievement"], Value::Null);

    // Quadratic penalty: three unreachable labels claimed reachable, q = 6.
    std::fs::write(&answers, plant(&text, &[0, 1, 2], &[], &[])).unwrap();
    let r = rigor_json(&[
        "score",
        ans,
        "--solution",
        sol,
        "--track",
        "reach",
        "--json",
    ]);
    assert_eq!((r["p"].as_i64(), r["q"].as_i64()), (Some(170), Some(6)));
    assert_eq!(r["score"], 170 - 36);

    // Without --track, the track comes from the solution (only reach for 11).
    std::fs::write(&answers, plant(&text, &[], &[], &[])).unwrap();
    let r = rigor_json(&["score", ans, "--solution", sol, "--json"]);
    assert_eq!((r["p"].as_i64(), r["q"].as_i64()), (Some(176), Some(0)));

    // The table lists the wrong answers.
    std::fs::write(&answers, plant(&text, &[16, 0], &[], &[])).unwrap();
    let table = rigor(&["score", ans, "--solution", sol]);
    assert!(table.contains("wrong answers (2):"), "{table}");
    assert!(table.contains("problem 11 reach error_0: answered true, solution false (2 tokens)"));
    assert!(table.contains("problem 11 reach error_16: answered false, solution true (1 token)"));
}

#[test]
fn planted_ltl_answers() {
    let Some(dir) = common::rers_dir() else {
        return;
    };
    let sol = dir.join("2019/training-seq-ltl/Problem1/constraints-solution.csv");
    let tmp = tempfile::tempdir().unwrap();
    // #2 holds (2 tokens), #0 fails (1 token): both flipped; #3 (holds)
    // and #4 (fails) left out.
    let text = std::fs::read_to_string(&sol).unwrap();
    let mut out = String::new();
    for line in text.lines() {
        let (n, v) = line.split_once(',').unwrap();
        match n {
            "0" | "2" => out.push_str(&format!("1,{n},{}\n", v != "true")),
            "3" | "4" => {}
            _ => out.push_str(&format!("1,{n},{v}\n")),
        }
    }
    let answers = tmp.path().join("p1-ltl.csv");
    std::fs::write(&answers, out).unwrap();
    let r = rigor_json(&[
        "score",
        answers.to_str().unwrap(),
        "--solution",
        sol.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(r["max_score"], 132);
    assert_eq!(r["p"], 132 - 3 - 3);
    assert_eq!(r["q"], 3);
    assert_eq!(r["score"], 126 - 9);
    assert_eq!(
        (r["answered"].as_u64(), r["unanswered"].as_u64()),
        (Some(98), Some(2))
    );
}

#[test]
fn achievements_over_three_problems() {
    let Some(dir) = common::rers_dir() else {
        return;
    };
    let mut sol = AnswerMap::new();
    for p in [11, 12, 13] {
        let path = dir.join(format!(
            "2019/training-seq-reach/Problem{p}/reachability-solution-Problem{p}.csv"
        ));
        sol.extend(read_map(&path));
    }
    // Thresholds: bronze 24 (Problem11), silver 24 + 36, gold + 30.
    let reachable = |p: &str| -> AnswerMap {
        sol.iter()
            .filter(|(k, v)| k.problem == p && **v)
            .map(|(k, v)| (k.clone(), *v))
            .collect()
    };
    let medal = |a: &AnswerMap| {
        let r = score::score(a, &sol, &[]);
        assert_eq!(r.categories.len(), 1);
        let t = r.categories[0].thresholds;
        assert_eq!((t.bronze, t.silver, t.gold), (24, 60, 90));
        r.categories[0].achievement
    };
    let mut a = reachable("11");
    assert_eq!(medal(&a), Some(Medal::Bronze));
    a.pop_last();
    assert_eq!(medal(&a), None);
    // Unreachability claims count too: one unreachable label of 13 makes
    // up for the dropped witness.
    a.insert(Key::new("13", Track::Reach, 0), false);
    assert!(!sol[&Key::new("13", Track::Reach, 0)]);
    assert_eq!(medal(&a), Some(Medal::Bronze));
    a.extend(reachable("12"));
    assert_eq!(medal(&a), Some(Medal::Silver));
    a.extend(reachable("13"));
    assert_eq!(medal(&a), Some(Medal::Gold));
    // One wrong answer and there is none.
    let (unreachable, _) = sol
        .iter()
        .find(|(k, v)| k.problem == "13" && !**v && k.property != 0)
        .unwrap();
    a.insert(unreachable.clone(), true);
    assert_eq!(medal(&a), None);

    // Named categories from the command line: each problem alone is gold.
    let tmp = tempfile::tempdir().unwrap();
    let answers = tmp.path().join("reach.csv");
    std::fs::write(&answers, rigor::answers::to_csv(&reachable("12"))).unwrap();
    let mut args = vec![
        "score".to_string(),
        answers.to_str().unwrap().to_string(),
        "--solution".into(),
    ];
    for p in [11, 12, 13] {
        let path = dir.join(format!(
            "2019/training-seq-reach/Problem{p}/reachability-solution-Problem{p}.csv"
        ));
        args.push(path.to_str().unwrap().to_string());
    }
    args.extend(
        [
            "--category",
            "a=11",
            "--category",
            "b=12",
            "--category",
            "c=13",
            "--json",
        ]
        .map(String::from),
    );
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let r = rigor_json(&args);
    let medals: Vec<&Value> = r["categories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| &c["achievement"])
        .collect();
    assert_eq!(medals, [&Value::Null, &Value::from("gold"), &Value::Null]);
    assert_eq!(r["max_score"], 176 + 164 + 170);
}

#[test]
fn consensus_of_learners_and_planted_disagreements() {
    let Some(dir) = common::rers_dir() else {
        return;
    };
    // Eight learners on 2017 LTL Problem1, all proving the same properties
    // false: every value is consistent and every confidence 1.
    let bbc = dir.join("2017/seq-ltl-derived/NFM2018BBC/bbc");
    let mut files: Vec<String> = std::fs::read_dir(&bbc)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("Problem1-")
        })
        .map(|p| p.to_str().unwrap().to_string())
        .collect();
    files.sort();
    let mut args = vec!["consensus"];
    args.extend(files.iter().map(String::as_str));
    args.push("--json");
    let r = rigor_json(&args);
    assert_eq!(r["tools"].as_array().unwrap().len(), 8);
    assert_eq!(r["consistent"], 52);
    for t in r["tools"].as_array().unwrap() {
        assert_eq!(t["confidence"], 1.0);
    }
    assert!(r["references"]
        .as_array()
        .unwrap()
        .iter()
        .all(|x| x["verdict"] == false && x["rule"] == "all-agree"));

    // Three tools give the official answers of 2019 training reach 11, a
    // fourth flips labels 16 and 0 and misses 18: its confidence is 97/100
    // and the reference CSV is the solution.
    let sol = dir.join("2019/training-seq-reach/Problem11/reachability-solution-Problem11.csv");
    let text = std::fs::read_to_string(&sol).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let mut paths = Vec::new();
    for (name, flip, drop) in [
        ("a", &[][..], &[][..]),
        ("b", &[], &[]),
        ("c", &[], &[]),
        ("d", &[16, 0], &[18]),
    ] {
        let p = tmp.path().join(format!("{name}-reach.csv"));
        std::fs::write(&p, plant(&text, flip, drop, &[])).unwrap();
        paths.push(p.to_str().unwrap().to_string());
    }
    let mut args = vec!["consensus"];
    args.extend(paths.iter().map(String::as_str));
    let mut json_args = args.clone();
    json_args.push("--json");
    let r = rigor_json(&json_args);
    assert_eq!(r["consistent"], 100);
    let d = &r["tools"][3];
    assert_eq!(d["agreed"], 97);
    assert_eq!(d["confidence"], 0.97);
    let dis: Vec<u64> = d["disagreements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["property"].as_u64().unwrap())
        .collect();
    assert_eq!(dis, [0, 16]);
    let csv = rigor(&args);
    let reference = tmp.path().join("reference-reach.csv");
    std::fs::write(&reference, &csv).unwrap();
    let s = rigor_json(&[
        "score",
        reference.to_str().unwrap(),
        "--solution",
        sol.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!((s["p"].as_u64(), s["q"].as_u64()), (Some(176), Some(0)));
}

#[test]
fn malformed_files_are_errors_naming_file_and_line() {
    let tmp = tempfile::tempdir().unwrap();
    let sol = tmp.path().join("Problem11-reach-solution.csv");
    std::fs::write(&sol, "0,true\n1,false\n").unwrap();
    let bad = tmp.path().join("answers-reach.csv");
    std::fs::write(&bad, "11,0,true\n11,1,perhaps\n").unwrap();
    let out = Command::new(common::rigor_bin())
        .args([
            "score",
            bad.to_str().unwrap(),
            "--solution",
            sol.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&format!("{}:2:", bad.display())), "{err}");
    assert!(err.contains("bad verdict `perhaps`"), "{err}");

    // Answers whose track nobody can tell.
    let untracked = tmp.path().join("answers.csv");
    std::fs::write(&untracked, "12,0,true\n").unwrap();
    let out = Command::new(common::rigor_bin())
        .args(["consensus", untracked.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--track"));

    // The consensus table names each tool's disagreements.
    let files: Vec<String> = [("a", "true"), ("b", "true"), ("c", "true"), ("d", "false")]
        .iter()
        .map(|(n, v)| {
            let p = tmp.path().join(format!("{n}.csv"));
            std::fs::write(&p, format!("12,0,{v}\n12,1,true\n")).unwrap();
            p.to_str().unwrap().to_string()
        })
        .collect();
    let mut args = vec!["consensus", "--track", "ltl"];
    args.extend(files.iter().map(String::as_str));
    let out = Command::new(common::rigor_bin())
        .args(&args)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "12,0,true\n12,1,true\n"
    );
    let table = String::from_utf8_lossy(&out.stderr);
    assert!(
        table.contains("d disagrees with the reference on:\n  problem 12 ltl #0\n"),
        "{table}"
    );
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    fn key_strategy() -> impl Strategy<Value = Key> {
        (
            prop_oneof![Just("1"), Just("11"), Just("m24")],
            prop_oneof![Just(Track::Reach), Just(Track::Ltl), Just(Track::Ctl)],
            0u32..20,
        )
            .prop_map(|(p, t, n)| Key::new(p, t, n))
    }

    fn map_strategy() -> impl Strategy<Value = AnswerMap> {
        proptest::collection::btree_map(key_strategy(), any::<bool>(), 0..40)
    }

    proptest! {
        /// Every token of the maximum is either earned, lost to a wrong
        /// answer, or left unanswered.
        #[test]
        fn tokens_add_up(solution in map_strategy(), answers in map_strategy()) {
            let r = score::score(&answers, &solution, &[]);
            let lost: u64 = r.wrong.iter().map(|w| w.tokens).sum();
            let open: u64 = r
                .unanswered_properties
                .iter()
                .map(|k| score::tokens(k.track, solution[k]))
                .sum();
            prop_assert_eq!(r.p + lost + open, r.max_score);
            prop_assert_eq!(r.q, lost);
            prop_assert_eq!(r.answered + r.unanswered, solution.len());
            prop_assert_eq!(r.answered + r.extra.len(), answers.len());
            let by_track: i64 = r.tracks.iter().map(|t| t.p as i64 - (t.q * t.q) as i64).sum();
            prop_assert_eq!(r.score, by_track);
            let own = score::score(&solution, &solution, &[]);
            prop_assert_eq!((own.p, own.q), (own.max_score, 0));
        }

        /// The CSV rigor writes reads back to the same answers.
        #[test]
        fn csv_round_trip(answers in map_strategy()) {
            let text = rigor::answers::to_csv(&answers);
            let opts = ReadOptions { track: Some(Track::Ctl), ..ReadOptions::default() };
            let f = read::parse("out.csv", &text, &opts).unwrap();
            let back = f.map_with(|_| None).unwrap();
            let tracks: BTreeSet<Track> = answers.keys().map(|k| k.track).collect();
            if tracks.len() <= 1 {
                // One track: the CSV has none, the option supplies it.
                let expect: AnswerMap = answers
                    .iter()
                    .map(|(k, v)| (Key::new(k.problem.clone(), Track::Ctl, k.property), *v))
                    .collect();
                prop_assert_eq!(back, expect);
            } else {
                prop_assert_eq!(back, answers);
            }
        }

        /// Tools that all give the same answers agree with themselves.
        #[test]
        fn identical_tools_are_the_reference(answers in map_strategy(), n in 1usize..5) {
            let tools: Vec<rigor::answers::consensus::Tool> = (0..n)
                .map(|i| rigor::answers::consensus::Tool { name: format!("t{i}"), answers: answers.clone() })
                .collect();
            let r = rigor::answers::consensus::consensus(&tools);
            let expect = if n >= 3 { answers.len() } else { 0 };
            prop_assert_eq!(r.consistent, expect);
            if n >= 2 {
                prop_assert_eq!(r.reference_answers(), answers);
            }
        }
    }
}
