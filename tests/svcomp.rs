//! `rigor svcomp`: the real SV-COMP tasks (`../shared/svcomp`) answered
//! with their expected verdicts, GraphML witnesses valid against
//! `grammars/witness-graphml.xsd` and confirmed by rigor's replay, the
//! eca-rers2018 shape (error functions with bodies, per-label properties),
//! and bad tasks refused with located errors.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{rers_dir, rigor_bin, svcomp_dir, truth};
use rigor::engine::Machine;
use rigor::frontend::c::{parse_c, parse_c_with, ErrorCalls};
use rigor::system::{replay, Outcome};

fn rigor(args: &[&str], dir: &Path) -> Output {
    Command::new(rigor_bin())
        .args(args)
        .current_dir(dir)
        .output()
        .expect("rigor runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Validates `file` against the witness schema with xmllint (Debian's
/// libxml2-utils, installed by `.ci/run`); `false` with a message when
/// xmllint is missing.
fn schema_valid(file: &Path) -> Option<bool> {
    let schema = Path::new(env!("CARGO_MANIFEST_DIR")).join("grammars/witness-graphml.xsd");
    match Command::new("xmllint")
        .arg("--noout")
        .arg("--schema")
        .arg(&schema)
        .arg(file)
        .output()
    {
        Ok(o) => {
            if !o.status.success() {
                eprintln!("{}", String::from_utf8_lossy(&o.stderr));
            }
            Some(o.status.success())
        }
        Err(_) => {
            eprintln!("xmllint not found (apt install libxml2-utils): schema check skipped");
            None
        }
    }
}

/// `rigor svcomp PROGRAM --property PRP --replay WITNESS`.
fn replay_witness(program: &Path, prp: &Path, witness: &Path, dir: &Path) -> Output {
    let paths = [program, prp, witness].map(|p| p.to_str().unwrap().to_string());
    let [program, prp, witness] = &paths;
    rigor(
        &["svcomp", program, "--property", prp, "--replay", witness],
        dir,
    )
}

/// The expected verdict of the `unreach-call.prp` entry of a task file.
fn expected(task: &Path) -> bool {
    let text = std::fs::read_to_string(task).unwrap();
    let at = text
        .find("unreach-call.prp")
        .expect("an unreach-call entry");
    let verdict = text[at..]
        .split("expected_verdict:")
        .nth(1)
        .expect("a verdict");
    verdict.trim_start().starts_with("true")
}

fn tasks(dir: &Path) -> Vec<PathBuf> {
    let mut t: Vec<PathBuf> = std::fs::read_dir(dir.join("eca-rers2012"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yml"))
        .collect();
    t.sort();
    t
}

#[test]
fn every_shared_task_gets_its_expected_verdict_and_a_valid_witness() {
    let Some(dir) = svcomp_dir() else { return };
    let out = tempfile::tempdir().unwrap();
    let prp = dir.join("properties/unreach-call.prp");
    let mut checked = 0;
    for task in tasks(&dir) {
        let program = task.with_extension("c");
        let witness = out.path().join(format!("{}.graphml", checked));
        let o = rigor(
            &[
                "svcomp",
                program.to_str().unwrap(),
                "--property",
                prp.to_str().unwrap(),
                "--witness",
                witness.to_str().unwrap(),
                "--timeout",
                "120",
            ],
            &dir,
        );
        assert!(
            o.status.success(),
            "{}: {}",
            task.display(),
            String::from_utf8_lossy(&o.stderr)
        );
        let answer = stdout(&o).lines().last().unwrap_or_default().to_string();
        let want = if expected(&task) {
            "TRUE"
        } else {
            "FALSE(unreach-call)"
        };
        assert_eq!(answer, want, "{}", task.display());
        if let Some(valid) = schema_valid(&witness) {
            assert!(
                valid,
                "{}: witness not valid against the schema",
                task.display()
            );
        }
        let text = std::fs::read_to_string(&witness).unwrap();
        if want == "TRUE" {
            assert!(text.contains("correctness_witness"));
        } else {
            assert!(text.contains("violation_witness"));
            // rigor's own replay confirms the witness's values ...
            let o = replay_witness(&program, &prp, &witness, &dir);
            assert_eq!(stdout(&o).trim(), "confirmed", "{}", task.display());
            // ... and rejects a planted wrong one (the last value changed).
            let last = text.rfind("\\result == ").unwrap();
            let end = last + text[last..].find(';').unwrap();
            let planted = format!("{}\\result == 7{}", &text[..last], &text[end..]);
            let bad = out.path().join("planted.graphml");
            std::fs::write(&bad, planted).unwrap();
            let o = replay_witness(&program, &prp, &bad, &dir);
            assert_eq!(stdout(&o).trim(), "not confirmed", "{}", task.display());
            assert_eq!(o.status.code(), Some(1));
        }
        checked += 1;
    }
    assert_eq!(checked, 12);
}

#[test]
fn task_files_are_read_with_paths_relative_to_them() {
    let Some(dir) = svcomp_dir() else { return };
    let task = dir.join("eca-rers2012/Problem01_label20.yml");
    // Run from elsewhere: the task's paths resolve against its folder.
    let o = rigor(
        &["svcomp", task.to_str().unwrap(), "--json"],
        Path::new("/"),
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let results = report["results"].as_array().unwrap();
    // termination.prp is not in the folder: UNKNOWN, and the run goes on.
    assert_eq!(results.len(), 2);
    assert_eq!(results[0]["answer"], "UNKNOWN");
    assert_eq!(results[1]["answer"], "FALSE(unreach-call)");
    assert_eq!(results[1]["expected"], false);
    assert!(!results[1]["witness_values"].as_array().unwrap().is_empty());
}

#[test]
fn eca_rers2018_error_functions_do_what_their_bodies_say() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/svcomp/eca2018");
    let out = tempfile::tempdir().unwrap();
    let w = out.path().join("w.graphml");
    let o = rigor(
        &["svcomp", "Problem907.yml", "--witness", w.to_str().unwrap()],
        &dir,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // Error 1 is reached only after the (empty) reach_error_0 has been
    // called: FALSE in C, unreachable under RERS semantics (which the real
    // tasks' expected verdicts come from): rigor answers UNKNOWN.
    assert_eq!(
        stdout(&o),
        "FALSE(unreach-call) properties/unreach-call-0.prp\n\
         UNKNOWN properties/unreach-call-1.prp\n\
         TRUE properties/unreach-call-2.prp\n\
         FALSE(unreach-call) properties/unreach-call-3.prp\n"
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("under RERS semantics"));
    let w0 = out.path().join("w.unreach-call-0.graphml");
    let text = std::fs::read_to_string(&w0).unwrap();
    let values: Vec<&str> = text
        .match_indices("\\result == ")
        .map(|(k, _)| &text[k + 11..k + 12])
        .collect();
    assert_eq!(values, ["1", "1"]);
    // Error 3's shortest C run (1 1 2) passes reach_error_0; the witness is
    // the run both semantics have (2 2 2 1).
    let text = std::fs::read_to_string(out.path().join("w.unreach-call-3.graphml")).unwrap();
    let values: Vec<&str> = text
        .match_indices("\\result == ")
        .map(|(k, _)| &text[k + 11..k + 12])
        .collect();
    assert_eq!(values, ["2", "2", "2", "1"]);
    assert!(!out.path().join("w.unreach-call-1.graphml").exists());
    for f in [
        "w.unreach-call-0.graphml",
        "w.unreach-call-2.graphml",
        "w.unreach-call-3.graphml",
    ] {
        if let Some(valid) = schema_valid(&out.path().join(f)) {
            assert!(valid, "{f}");
        }
    }
    let prp = Path::new("properties/unreach-call-0.prp");
    let o = replay_witness(Path::new("Problem907.c"), prp, &w0, &dir);
    assert_eq!(stdout(&o).trim(), "confirmed");
    // `rigor reach` keeps the RERS semantics: error 1 is unreachable there.
    let o = rigor(&["reach", "Problem907.c"], &dir);
    let mut lines: Vec<String> = stdout(&o).lines().map(str::to_string).collect();
    lines.sort();
    assert_eq!(
        lines,
        ["907,0,true", "907,1,false", "907,2,false", "907,3,true"]
    );
}

#[test]
fn bundled_sv_comp_sample_with_declared_error_functions() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let props = root.join("tests/svcomp/eca2018/properties");
    for (n, want) in [(0, "FALSE(unreach-call)"), (1, "TRUE"), (2, "TRUE")] {
        let prp = props.join(format!("unreach-call-{n}.prp"));
        let o = rigor(
            &[
                "svcomp",
                "problems/reach-svcomp/Problem906.c",
                "--property",
                prp.to_str().unwrap(),
            ],
            root,
        );
        assert_eq!(
            stdout(&o).trim(),
            want,
            "{n}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

#[test]
fn bad_tasks_and_programs_are_refused_with_located_errors() {
    let d = tempfile::tempdir().unwrap();
    let w = |name: &str, text: &str| std::fs::write(d.path().join(name), text).unwrap();
    w(
        "u.prp",
        "CHECK( init(main()), LTL(G ! call(reach_error())) )\n",
    );
    w("no-format.yml", "input_files: a.c\n");
    w("broken.yml", "format_version: [\n");
    w("missing.yml", "format_version: '2.0'\ninput_files: nowhere.c\nproperties:\n  - property_file: u.prp\n    expected_verdict: true\n");
    // `main` does more than feed the step: rigor refuses rather than ignore it.
    w(
        "extra.c",
        "extern int __VERIFIER_nondet_int(void);\nextern void abort(void);\nvoid reach_error() {}\nint a = 1;\n\
         int calculate_output(int input) { if (a == 2) { error_1: {reach_error();abort();} } if (input == 1) { a = 2; return 21; } return -2; }\n\
         int main() { a = 5; while (1) { int input = __VERIFIER_nondet_int(); if ((input != 1)) return -2; calculate_output(input); } }\n",
    );
    w(
        "bad.prp",
        "CHECK( init(main()), LTL(G ! call(reach_error())) )\nnot a property\n",
    );
    for (args, want) in [
        (
            vec!["svcomp", "no-format.yml"],
            "no-format.yml: no `format_version`",
        ),
        (vec!["svcomp", "broken.yml"], "broken.yml:"),
        (vec!["svcomp", "missing.yml"], "nowhere.c"),
        (
            vec!["svcomp", "extra.c", "--property", "u.prp"],
            "extra.c:6:14: unsupported",
        ),
        (
            vec!["svcomp", "extra.c", "--property", "bad.prp"],
            "bad.prp:2:1:",
        ),
        (
            vec!["svcomp", "extra.c", "--property", "none.prp"],
            "none.prp",
        ),
    ] {
        let o = rigor(&args, d.path());
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
}

#[test]
fn the_real_tasks_parse_for_rigor_reach_too() {
    let Some(dir) = svcomp_dir() else { return };
    for task in tasks(&dir) {
        let program = task.with_extension("c");
        let o = rigor(
            &["reach", program.to_str().unwrap(), "--timeout", "60"],
            &dir,
        );
        assert!(
            o.status.success(),
            "{}: {}",
            program.display(),
            String::from_utf8_lossy(&o.stderr)
        );
        // One label: the one whose statement calls reach_error().
        let label = program.file_stem().unwrap().to_string_lossy();
        let n: u32 = label.rsplit("label").next().unwrap().parse().unwrap();
        let line = stdout(&o);
        assert!(
            line.contains(&format!(",{n},")),
            "{}: {line}",
            program.display()
        );
        let reachable = line.trim().ends_with("true");
        assert_eq!(reachable, !expected(&task), "{}", program.display());
    }
}

/// A 2012-shaped SV-COMP program: input 1 counts `a` up, 2 exits, 3 fails
/// an assertion, 4 aborts; `error_7` calls `reach_error()` when `a == 3`,
/// `error_8` calls `__VERIFIER_error()` (the error function before 2020)
/// when `a == 2`.
const ENDINGS: &str = "extern void abort(void);\nextern void exit(int);\nextern void __VERIFIER_error(void);\n\
    extern void __assert_fail(const char *, const char *, unsigned int, const char *);\n\
    void reach_error() { __assert_fail(\"0\", \"x.c\", 3, \"reach_error\"); }\n\
    int a = 0;\n\
    int calculate_output(int input) {\n\
        if (a == 3) { error_7: {reach_error();abort();} }\n\
        if (a == 2) { error_8: __VERIFIER_error(); }\n\
        if (input == 1) { a = a + 1; return 21; }\n\
        if (input == 2) { exit(0); }\n\
        if (input == 3) { assert(a == 5); return 22; }\n\
        if (input == 4) { abort(); }\n\
        return -2;\n\
    }\n\
    int main() { while (1) { int input = __VERIFIER_nondet_int(); \
        if ((input != 1) && (input != 2) && (input != 3) && (input != 4)) return -2; calculate_output(input); } }\n";

fn run(calls: &ErrorCalls, inputs: &[usize]) -> Outcome {
    let p = parse_c_with("x.c", ENDINGS, calls).unwrap();
    replay(&Machine::compile(&p).unwrap(), inputs).unwrap()
}

#[test]
fn exit_abort_and_failed_assertions_end_the_run() {
    // (Input index k is the value k + 1.)
    for calls in [ErrorCalls::Rers, ErrorCalls::Only("reach_error".into())] {
        assert_eq!(run(&calls, &[0]), Outcome::Output(0));
        for ending in [1, 2, 3] {
            assert_eq!(
                run(&calls, &[ending]),
                Outcome::Blocked,
                "input {}",
                ending + 1
            );
        }
    }
}

#[test]
fn error_functions_are_the_labels_they_stand_in() {
    // RERS: both error functions are errors, numbered by their labels, and
    // the run ends at the first.
    let p = parse_c("x.c", ENDINGS).unwrap();
    assert_eq!(p.error_labels, vec![7, 8]);
    assert_eq!(run(&ErrorCalls::Rers, &[0, 0, 0]), Outcome::Error(8));
    // SV-COMP: only the target counts; the other error function has no
    // body and does nothing, so the run goes on past `a == 2`.
    let only = ErrorCalls::Only("reach_error".into());
    assert_eq!(
        parse_c_with("x.c", ENDINGS, &only).unwrap().error_labels,
        vec![7]
    );
    assert_eq!(run(&only, &[0, 0, 0]), Outcome::Output(0));
    assert_eq!(run(&only, &[0, 0, 0, 0]), Outcome::Error(7));
    let only = ErrorCalls::Only("__VERIFIER_error".into());
    assert_eq!(
        parse_c_with("x.c", ENDINGS, &only).unwrap().error_labels,
        vec![8]
    );
    assert_eq!(run(&only, &[0, 0, 0]), Outcome::Error(8));
}

/// A RERS 2012 program turned into the shape of its `eca-rers2012` task for
/// label `target`, the way sv-benchmarks derived them: no includes, the
/// error functions declared, `error_<target>:` calling `reach_error()`, every
/// other error label `exit(0)`, and `main` reading `__VERIFIER_nondet_int()`
/// restricted to the inputs.
fn as_eca_task(rers: &str, target: u32) -> String {
    let mut out = String::from(
        "int calculate_output(int);\nextern void abort(void);\nvoid reach_error(){}\n\
         extern int __VERIFIER_nondet_int(void);\nextern void exit(int);\n",
    );
    let body = &rers[..rers.find("int main()").expect("a main")];
    let label =
        regex::Regex::new(r"(error_(\d+)|globalError)\s*:\s*assert\s*\(\s*0\s*\)\s*;").unwrap();
    let body = label.replace_all(body, |c: &regex::Captures| match c.get(2) {
        Some(n) if n.as_str() == target.to_string() => {
            format!("{}: {{reach_error();abort();}}", &c[1])
        }
        _ => format!("{}: exit(0);", &c[1]),
    });
    for line in body.lines().filter(|l| !l.trim_start().starts_with('#')) {
        out.push_str(line);
        out.push('\n');
    }
    let inputs = &rers[rers.find("// inputs").unwrap()..rers.find("// outputs").unwrap()];
    let values: Vec<String> = regex::Regex::new(r"int\s+\w+\s*=\s*(\d+)\s*;")
        .unwrap()
        .captures_iter(inputs)
        .map(|c| format!("(input != {})", &c[1]))
        .collect();
    out.push_str(&format!(
        "int main()\n{{\n    int output = -1;\n    while(1)\n    {{\n        int input;\n        \
         input = __VERIFIER_nondet_int();\n        if ({}) return -2;\n        \
         output = calculate_output(input);\n    }}\n}}\n",
        values.join(" && ")
    ));
    out
}

#[test]
fn rers_2012_programs_in_the_eca_task_shape_agree_with_truth() {
    // Other eca-rers2012 tasks are these programs, one label each: every
    // label of 2012 Problems 1 and 2 is checked against the truth.
    let Some(rers) = rers_dir() else { return };
    let truth = truth(&rers);
    let d = tempfile::tempdir().unwrap();
    let mut checked = 0;
    for problem in ["2012/Problem1.c", "2012/Problem2.c"] {
        let text = std::fs::read_to_string(rers.join(problem)).unwrap();
        for t in truth
            .iter()
            .filter(|t| t.program == problem && t.track == "reach")
        {
            let task = d.path().join(format!("t{}.c", t.property));
            std::fs::write(&task, as_eca_task(&text, t.property)).unwrap();
            let o = rigor(
                &["svcomp", task.to_str().unwrap(), "--timeout", "60"],
                d.path(),
            );
            assert!(
                o.status.success(),
                "{problem} {}: {}",
                t.property,
                String::from_utf8_lossy(&o.stderr)
            );
            // (truth: the label is reachable; SV-COMP: the call is.)
            let want = if t.verdict {
                "FALSE(unreach-call)"
            } else {
                "TRUE"
            };
            assert_eq!(stdout(&o).trim(), want, "{problem} label {}", t.property);
            checked += 1;
        }
    }
    assert_eq!(checked, 120);
}
