//! Industrial-track features end to end: the hand-worked CTL problems, the
//! reference `.dot` models, `.aut` export and read-back, Abbadingo replay
//! and seeded exploration.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use rigor::check::ctl::{load_lts, LoadOptions};
use rigor::ctl::{self, slow};
use rigor::lts;
use rigor::runtime::Budget;

fn project() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn rigor(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(common::rigor_bin())
        .args(args)
        .output()
        .expect("run rigor");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

/// The model of a `problems/ctl-*` folder: its `model.aut`, or the RERS file
/// named in `model.txt` (`None` when the RERS data is absent).
fn problem_model(dir: &Path) -> Option<PathBuf> {
    let aut = dir.join("model.aut");
    if aut.is_file() {
        return Some(aut);
    }
    let rel = std::fs::read_to_string(dir.join("model.txt")).expect("model.txt");
    Some(common::rers_dir()?.join(rel.trim()))
}

#[test]
fn ctl_problems_give_the_hand_checked_verdicts() {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(project().join("problems"))
        .expect("problems/")
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("ctl-"))
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 4);
    let mut checked = 0;
    for dir in dirs {
        let Some(model) = problem_model(&dir) else {
            eprintln!("{}: RERS data absent, skipped", dir.display());
            continue;
        };
        let props = dir.join("properties.txt");
        let expected = std::fs::read_to_string(dir.join("expected.csv")).unwrap();
        let (code, out, err) = rigor(&["ctl", model.to_str().unwrap(), props.to_str().unwrap()]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(out, expected, "{}", dir.display());
        // The two oracles agree with the expected verdicts too.
        let l = load_lts(
            model.to_str().unwrap(),
            &Budget::unlimited(),
            &LoadOptions::default(),
        )
        .unwrap();
        let text = std::fs::read_to_string(&props).unwrap();
        let file = ctl::parse_properties("p", &text).unwrap();
        for (p, line) in file.properties.iter().zip(expected.lines()) {
            let want = line.ends_with(",true");
            assert_eq!(
                slow::kleene_sat(&l, &p.formula)[l.initial as usize],
                want,
                "{} #{}",
                dir.display(),
                p.index
            );
            if l.n_states <= 12 {
                assert_eq!(
                    slow::holds(&l, &p.formula),
                    want,
                    "{} #{}",
                    dir.display(),
                    p.index
                );
            }
            checked += 1;
        }
    }
    eprintln!("{checked} properties checked");
}

#[test]
fn every_reference_model_loads_and_round_trips_through_aut() {
    let Some(rers) = common::rers_dir() else {
        return;
    };
    let dir = rers.join("2019/industrial-reference-models");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let path = e.unwrap().path();
        if path.extension().is_none_or(|x| x != "dot") {
            continue;
        }
        let l = lts::dot::read(path.to_str().unwrap()).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            l.complete && l.n_states > 1 && !l.transitions.is_empty(),
            "{}",
            path.display()
        );
        assert!(
            l.label_index(rigor::system::ERROR_LABEL).is_some(),
            "{}",
            path.display()
        );
        let back = lts::aut::parse("x.aut", &lts::aut::write(&l)).unwrap();
        assert!(back == l, "{}: read-back differs", path.display());
        // and as an input/output graph, which converts back to the same system
        let g = lts::load_model_graph(path.to_str().unwrap())
            .unwrap()
            .unwrap();
        assert!(g.is_complete());
        let again = lts::from_graph(&g, true);
        assert!(
            again.bisimilar(&l),
            "{}: graph form is not bisimilar",
            path.display()
        );
        n += 1;
    }
    assert_eq!(n, 27);
}

#[test]
fn export_then_read_back_is_equivalent() {
    let Some(rers) = common::rers_dir() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    for rel in [
        "2019/training-seq-ltl/Problem1/Problem1.c",
        "2012/Problem1.c",
        "2019/industrial-reference-models/m54.dot",
    ] {
        let model = rers.join(rel);
        let out = tmp.path().join("x.aut");
        let (code, _, err) = rigor(&[
            "export",
            model.to_str().unwrap(),
            "--aut",
            out.to_str().unwrap(),
            "--quiet",
        ]);
        assert_eq!(code, 0, "{err}");
        let back = lts::aut::read(out.to_str().unwrap()).unwrap();
        let direct = load_lts(
            model.to_str().unwrap(),
            &Budget::unlimited(),
            &LoadOptions::default(),
        )
        .unwrap();
        assert!(direct.complete, "{rel}");
        // (no Debug dump of whole systems on failure: they are large)
        assert!(
            back == direct,
            "{rel}: read-back differs from the direct system"
        );
        assert!(back.bisimilar(&direct.reachable()), "{rel}");
        // The exported file is an input/output graph again.
        // (2012 programs have silent steps, which that form cannot tell
        // from outputs: they are rejected.)
        match lts::to_state_graph(&back) {
            Ok(g) => assert!(lts::from_graph(&g, true).bisimilar(&back), "{rel}"),
            Err(e) => assert!(rel.starts_with("2012/"), "{rel}: {e}"),
        }
        // The same CTL answers on the program and on its exported system.
        let props =
            "AG <> true\nEF [] false\nEG <> true\nAG EF <> true\nA(<> true U <error> true)\n";
        let pf = tmp.path().join("p.txt");
        std::fs::write(&pf, props).unwrap();
        let (_, a, _) = rigor(&[
            "ctl",
            model.to_str().unwrap(),
            pf.to_str().unwrap(),
            "--quiet",
        ]);
        let (_, b, _) = rigor(&[
            "ctl",
            out.to_str().unwrap(),
            pf.to_str().unwrap(),
            "--quiet",
        ]);
        let strip = |s: &str| {
            s.lines()
                .map(|l| l.split_once(',').unwrap().1.to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(strip(&a), strip(&b), "{rel}");
        assert_eq!(strip(&a).len(), 5);
    }
}

#[test]
fn replay_of_own_runs_passes_and_a_planted_mismatch_is_located() {
    let Some(rers) = common::rers_dir() else {
        return;
    };
    let program = rers.join("2019/training-seq-ltl/Problem1/Problem1.c");
    let p = program.to_str().unwrap();
    let m = rigor::engine::Machine::compile(&rigor::frontend::load(p).unwrap()).unwrap();
    let runs = rigor::abbadingo::random_runs(&m, 12, 40, 7);
    assert!(runs.iter().all(|r| r.len() >= 2));
    let tmp = tempfile::tempdir().unwrap();
    let log = tmp.path().join("log.txt");
    let log_s = log.to_str().unwrap();
    std::fs::write(&log, rigor::abbadingo::write(&runs)).unwrap();
    let (code, out, err) = rigor(&["replay", p, log_s]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("12 trace(s) replayed: 12 match, 0 mismatch"),
        "{out}"
    );

    // Plant a wrong output in the third trace (line 4), fourth step.
    let mut bad = runs.clone();
    let step = 3.min(bad[2].len() / 2 - 1);
    let right = bad[2][2 * step + 1].clone();
    let wrong = m
        .output_names
        .iter()
        .find(|o| **o != right)
        .unwrap()
        .clone();
    bad[2][2 * step + 1] = wrong.clone();
    let text = rigor::abbadingo::write(&bad);
    std::fs::write(&log, &text).unwrap();
    let line4 = text.lines().nth(3).unwrap();
    // column of symbol number 2 + 2*step + 1 on the line (1-based)
    let col = {
        let mut c = 0;
        let mut k = 0;
        let target = 2 + 2 * step + 1;
        for (i, ch) in line4.char_indices() {
            if ch != ' ' && (i == 0 || line4.as_bytes()[i - 1] == b' ') {
                if k == target {
                    c = i + 1;
                    break;
                }
                k += 1;
            }
        }
        c
    };
    let (code, out, _) = rigor(&["replay", p, log_s, "--quiet-ok"]);
    assert_eq!(code, 3, "{out}");
    let want = format!(
        "{log_s}:4:{col}: mismatch at step {}: after input {} the log says {wrong}, the program gives {right}",
        step + 1,
        bad[2][2 * step]
    );
    assert!(out.contains(&want), "{out}\nwanted {want}");
    assert!(out.contains("1 mismatch"), "{out}");

    // The same logs against the program's exported .aut model.
    let aut = tmp.path().join("p.aut");
    let (code, _, err) = rigor(&["export", p, "--aut", aut.to_str().unwrap(), "--quiet"]);
    assert_eq!(code, 0, "{err}");
    let (code, out, _) = rigor(&["replay", aut.to_str().unwrap(), log_s, "--quiet-ok"]);
    assert_eq!(code, 3, "{out}");
    assert!(
        out.contains(&want.replace("the program", "the model")),
        "{out}"
    );
    std::fs::write(&log, rigor::abbadingo::write(&runs)).unwrap();
    let (code, out, _) = rigor(&["replay", aut.to_str().unwrap(), log_s]);
    assert_eq!(code, 0, "{out}");

    // An input the program does not have is a located error.
    std::fs::write(&log, "1 2\n1 2 nosuch X\n").unwrap();
    let (code, _, err) = rigor(&["replay", p, log_s]);
    assert_eq!(code, 1);
    assert!(err.contains(&format!("{log_s}:2:5:")), "{err}");
}

#[test]
fn seeded_reach_gives_the_same_verdicts() {
    let Some(rers) = common::rers_dir() else {
        return;
    };
    let program = rers.join("2012/Problem1.c");
    let p = program.to_str().unwrap();
    let m = rigor::engine::Machine::compile(&rigor::frontend::load(p).unwrap()).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let log = tmp.path().join("log.txt");
    std::fs::write(
        &log,
        rigor::abbadingo::write(&rigor::abbadingo::random_runs(&m, 5, 30, 1)),
    )
    .unwrap();
    let (c1, plain, e1) = rigor(&["reach", p, "--quiet"]);
    let (c2, seeded, e2) = rigor(&["reach", p, "--quiet", "--seed-log", log.to_str().unwrap()]);
    assert_eq!((c1, c2), (0, 0), "{e1}{e2}");
    // The same answers (written in the order they were proved).
    let sorted = |s: &str| {
        let mut l: Vec<String> = s.lines().map(str::to_string).collect();
        l.sort();
        l
    };
    assert_eq!(sorted(&plain), sorted(&seeded));
}

#[test]
fn ctl_json_carries_witnesses() {
    let dir = project().join("problems/ctl-small");
    let (code, out, err) = rigor(&[
        "ctl",
        dir.join("model.aut").to_str().unwrap(),
        dir.join("properties.txt").to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["track"], "ctl");
    assert_eq!(v["complete"], true);
    let p4 = &v["verdicts"][4];
    assert_eq!(p4["verdict"], false);
    assert_eq!(p4["witness"], "[b, error] (deadlock)");
    let p5 = &v["verdicts"][5];
    assert_eq!(p5["witness"], "[] ([a, x, a, y])*");
    assert_eq!(v["verdicts"][21]["unknown_actions"][0], "c");
}

#[test]
fn partial_exploration_gives_no_ctl_verdict() {
    let Some(rers) = common::rers_dir() else {
        return;
    };
    let program = rers.join("2019/training-seq-ltl/Problem2/Problem2.c");
    let tmp = tempfile::tempdir().unwrap();
    let pf = tmp.path().join("p.txt");
    std::fs::write(&pf, "EF [] false\nAG <> true\n").unwrap();
    let (code, out, err) = rigor(&[
        "ctl",
        program.to_str().unwrap(),
        pf.to_str().unwrap(),
        "--max-states",
        "10",
        "--quiet",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "");
    assert!(err.contains("partial"), "{err}");
}

/// One path for programs and models: a program exported to `.aut` answers
/// the same reachability and LTL questions as the program itself (the model
/// is explored as a `System`): the same reachable labels with witnesses of
/// the same lengths (the model's inputs are in another order), the same LTL
/// verdicts.
#[test]
fn reach_and_ltl_run_on_exported_models_as_on_programs() {
    let tmp = tempfile::tempdir().unwrap();
    let props = project().join("problems/ltl-finite/constraints-Problem951.txt");
    let props = props.to_str().unwrap();
    // Not the 2012 shapes: the labelling sends every invalid input to the
    // dead state, so a 2012 invalid step that changed the state, and a
    // silent step, have no `.aut` form to come back from.
    for program in [
        "problems/ltl-finite/Problem951.c",
        "problems/reach-plain/Problem901.c",
        "problems/reach-arrays/Problem903.c",
    ] {
        let p = project().join(program);
        let p = p.to_str().unwrap();
        let aut = tmp.path().join("m.aut");
        let aut = aut.to_str().unwrap();
        let (code, _, err) = rigor(&["export", p, "--aut", aut, "--quiet"]);
        assert_eq!(code, 0, "{err}");
        let json = |args: &[&str]| -> serde_json::Value {
            let (code, out, err) = rigor(args);
            assert_eq!(code, 0, "{err}");
            serde_json::from_str(&out).unwrap()
        };
        // Reachable label -> witness length.
        let reachable = |target: &str| -> Vec<(u64, usize)> {
            let r = json(&["reach", target, "--json", "--quiet", "--no-abstraction"]);
            let mut v: Vec<(u64, usize)> = (r["verdicts"].as_array().unwrap().iter())
                .filter(|v| v["verdict"] == true)
                .map(|v| {
                    let w = v["witness"].as_array().unwrap().len();
                    (v["property"].as_u64().unwrap(), w)
                })
                .collect();
            v.sort();
            v
        };
        let from_program = reachable(p);
        assert!(!from_program.is_empty(), "{program}: a reachable label");
        assert_eq!(reachable(aut), from_program, "{program}");
        if program.contains("ltl-finite") {
            let ltl = |target: &str| -> Vec<serde_json::Value> {
                let r = json(&[
                    "ltl",
                    target,
                    props,
                    "--json",
                    "--quiet",
                    "--no-abstraction",
                ]);
                (r["verdicts"].as_array().unwrap().iter())
                    .map(|v| v["verdict"].clone())
                    .collect()
            };
            let from_program = ltl(p);
            assert!(
                from_program.iter().all(|v| v.is_boolean()),
                "{from_program:?}"
            );
            assert_eq!(ltl(aut), from_program, "{program}");
        }
    }
}

/// An industrial data-structures problem (2019, m106: 62 slots, 51 inputs)
/// is answered whole: its abstraction converges (6,746 abstract states) and
/// proves the 23 labels it does not reach, with the certificate checked,
/// and the search finds the other 77. No time limit: the abstraction's
/// share of one would depend on the machine.
#[test]
fn every_label_of_an_industrial_data_structures_problem_is_answered() {
    let Some(dir) = common::rers_dir() else {
        return;
    };
    let program = dir.join("2019/industrial-reach/data-structures/m106/m106_Reach.java");
    let (code, stdout, stderr) = rigor(&["reach", "--json", "--quiet", &program.to_string_lossy()]);
    assert_eq!(code, 0, "{stderr}");
    let r: serde_json::Value = serde_json::from_str(&stdout).expect("JSON report");
    let verdicts = r["verdicts"].as_array().expect("verdicts");
    assert_eq!(verdicts.len(), 100);
    let (mut reachable, mut unreachable) = (0, 0);
    for v in verdicts {
        let label = &v["property"];
        match v["verdict"].as_bool() {
            Some(true) => reachable += 1,
            Some(false) => {
                assert_eq!(v["certified"], true, "label {label}: not certified");
                unreachable += 1;
            }
            None => panic!("label {label} not answered"),
        }
    }
    assert!(
        reachable > 0 && unreachable > 0,
        "{reachable} {unreachable}"
    );
}
