//! `rigor compare` on the RERS C/Java pairs: the structural proof of the
//! pairs printed from one model, the abstraction's proof of the 2019
//! challenge LTL pairs, the replayed differences of the pairs that are not
//! the same system, and planted mutations that defeat each proof.

use crate::common;

use common::{rers_dir, rigor_bin};
use std::path::Path;
use std::process::Command;

use rigor::engine::Machine;
use rigor::equivalence::lockstep::{compare, Verdict};
use rigor::runtime::Budget;

fn machine(path: &Path) -> Machine {
    let p = rigor::frontend::load(&path.to_string_lossy())
        .unwrap_or_else(|e| panic!("{} does not load: {e}", path.display()));
    Machine::compile(&p).unwrap_or_else(|e| panic!("{} does not compile: {e}", path.display()))
}

/// Every C/Java pair with both files, as (C path, Java path).
fn pairs(dir: &Path, folders: &[&str]) -> Vec<(std::path::PathBuf, std::path::PathBuf)> {
    let mut out = Vec::new();
    for f in folders {
        let Ok(entries) = std::fs::read_dir(dir.join(f)) else {
            continue;
        };
        let mut subs: Vec<_> = entries.flatten().map(|e| e.path()).collect();
        subs.sort();
        for sub in subs {
            let name = sub.file_name().unwrap().to_string_lossy().to_string();
            let c = sub.join(format!("{name}.c"));
            let j = sub.join(format!("{name}.java"));
            if c.is_file() && j.is_file() {
                out.push((c, j));
            }
        }
    }
    out
}

#[test]
fn compare_small_c_java_pairs_are_equivalent() {
    let Some(dir) = rers_dir() else { return };
    let all = pairs(
        &dir,
        &[
            "2017/seq-ltl",
            "2017/seq-reach",
            "2019/training-seq-ltl",
            "2019/seq-ltl",
        ],
    );
    assert!(
        all.len() >= 10,
        "expected the C/Java pairs, found {}",
        all.len()
    );
    let limits = Budget::unlimited().with_max_states(20_000);
    let mut proved = 0;
    for (c, j) in &all {
        let r = compare(
            &machine(c),
            &machine(j),
            &c.to_string_lossy(),
            &j.to_string_lossy(),
            &limits,
            2,
        )
        .expect("replay");
        eprintln!("{}: {:?} ({} pairs)", j.display(), r.verdict, r.pairs);
        match r.verdict {
            Verdict::Equivalent => {
                assert!(r.stopped.is_none() && r.faults.is_empty());
                proved += 1;
            }
            Verdict::Unknown => assert!(r.stopped.is_some() || !r.faults.is_empty()),
            v => panic!("{}: C and Java differ: {v:?}", j.display()),
        }
    }
    // 2017 LTL P1, P2, reach P10; 2019 LTL P1; training LTL P1-3.
    assert!(proved >= 7, "only {proved} pairs proved equivalent");
}

/// RERS prints the C and the Java version of a problem with rules, guards
/// and assignments in different orders; the structural proof matches them
/// (see `equivalence::commute`). Every pair of 2017 and of the 2019 training set
/// is proved equivalent that way, the large ones included, without
/// exploring.
#[test]
fn structure_proves_every_2017_and_2019_training_pair() {
    let Some(dir) = rers_dir() else { return };
    let all = pairs(
        &dir,
        &[
            "2017/seq-ltl",
            "2017/seq-reach",
            "2019/training-seq-ltl",
            "2019/training-seq-reach",
        ],
    );
    assert_eq!(all.len(), 11, "expected 11 C/Java pairs");
    for (c, j) in &all {
        let a = rigor::frontend::load(&c.to_string_lossy()).expect("C parses");
        let b = rigor::frontend::load(&j.to_string_lossy()).expect("Java parses");
        if let Err(why) = rigor::equivalence::structural::prove(&a, &b) {
            panic!("{}: not proved: {why}", j.display());
        }
    }
}

/// A copy of the program `original` with its text replaced by `text`, in a
/// fresh temporary folder (kept alive by the returned guard) and under the
/// same file name.
fn planted_copy(original: &Path, text: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = tmp.path().join(original.file_name().expect("a file name"));
    std::fs::write(&path, text).expect("write");
    (tmp, path)
}

/// A planted reordering of two dependent assignments (`a183 = ...` moved
/// after `a169 = ((a120 / a183) + 10)`, which reads it) in the Java copy of
/// 2017 P11: the structural proof must fail, while moving it after an
/// independent neighbour keeps the proof.
#[test]
fn structure_rejects_a_planted_dependent_reordering() {
    let Some(dir) = rers_dir() else { return };
    let c = dir.join("2017/seq-reach/Problem11/Problem11.c");
    let j = dir.join("2017/seq-reach/Problem11/Problem11.java");
    let text = std::fs::read_to_string(&j).expect("read");
    let moved = "    \ta183 = (a74 - -2);\n";
    let at = text.find(moved).expect("the assignment is there");
    let prove_with = |mutated: String| {
        let (_tmp, path) = planted_copy(&j, &mutated);
        let a = rigor::frontend::load(&c.to_string_lossy()).expect("C parses");
        let b = rigor::frontend::load(&path.to_string_lossy()).expect("Java parses");
        rigor::equivalence::structural::prove(&a, &b)
    };
    // Move the line down past `n` following lines.
    let move_down = |n: usize| {
        let rest = &text[at + moved.len()..];
        let mut cut = 0;
        for _ in 0..n {
            cut += rest[cut..].find('\n').expect("line") + 1;
        }
        format!("{}{}{}{}", &text[..at], &rest[..cut], moved, &rest[cut..])
    };
    let independent = move_down(1);
    assert!(independent.contains("a95 = (a32 + 6);\n    \ta183 = (a74 - -2);"));
    assert!(prove_with(independent).is_ok());
    let dependent = move_down(6);
    assert!(dependent.contains("a169 = ((a120 / a183) + 10);\n    \ta183 = (a74 - -2);"));
    let why = prove_with(dependent).expect_err("a dependent reordering is not proved");
    assert!(why.0.contains("dependent assignments"), "{why}");
}

/// `rigor compare --json` with a time limit: the report and the exit code.
fn compare_json(a: &Path, b: &Path) -> (serde_json::Value, Option<i32>) {
    compare_json_within(a, b, 300)
}

/// [`compare_json`] with a time limit of `seconds` (the abstractions get
/// half of it).
fn compare_json_within(a: &Path, b: &Path, seconds: u32) -> (serde_json::Value, Option<i32>) {
    let out = Command::new(rigor_bin())
        .args([
            "compare",
            "--json",
            "--quiet",
            "--timeout",
            &seconds.to_string(),
        ])
        .arg(a)
        .arg(b)
        .output()
        .expect("run rigor");
    let report = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "rigor compare {} {}: no JSON report ({e}): {}",
            a.display(),
            b.display(),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (report, out.status.code())
}

/// The 2019 challenge LTL copies are obfuscated differently in C and Java
/// (other variables, int against string modes, modes split differently),
/// so no proof by shape applies and their state spaces are too large to
/// enumerate in lockstep (P2: no end after 82 M pairs). Problems 1-4 are
/// proved equivalent on their interval abstractions
/// (`equivalence::abstraction`), every step decided alike, and so is
/// problem 7 (about 1 000 abstract states on each side, 20 s).
#[test]
fn abstraction_proves_2019_challenge_ltl_pairs_1_to_4_and_7() {
    let Some(dir) = rers_dir() else { return };
    for n in [1, 2, 3, 4, 7] {
        let base = dir.join(format!("2019/seq-ltl/Problem{n}/Problem{n}"));
        let (r, code) = compare_json(&base.with_extension("c"), &base.with_extension("java"));
        assert_eq!(r["verdict"], "equivalent", "Problem{n}: {r}");
        assert_eq!(r["method"], "abstraction", "Problem{n}: {r}");
        assert_eq!(code, Some(0), "Problem{n}");
    }
}

/// Problem 5: the first round of the Java abstraction (widening after 10
/// growths) leaves steps undecided; the round tried again with later
/// widening decides every step (2 379 abstract states against the C
/// side's 1 479), and the two agree. About a minute on two cores; the
/// limit leaves room for a loaded machine.
#[test]
fn abstraction_proves_2019_challenge_ltl_pair_5() {
    let Some(dir) = rers_dir() else { return };
    let base = dir.join("2019/seq-ltl/Problem5/Problem5");
    let (r, code) = compare_json_within(
        &base.with_extension("c"),
        &base.with_extension("java"),
        1200,
    );
    assert_eq!(r["verdict"], "equivalent", "{r}");
    assert_eq!(r["method"], "abstraction", "{r}");
    assert_eq!(code, Some(0));
}

/// Problem 6 is the hardest pair: its programs hide a machine of about 183
/// behaviours under more than 12 million concrete states. The interval
/// abstractions now prove it (748 and 545 abstract states, about 20 s on
/// a loaded 2-core machine); under a short limit the answer may still be
/// `unknown`, with a reason for each proof that failed, and never a
/// difference: the two copies are the same system.
#[test]
fn the_unproved_2019_challenge_ltl_pair_6_is_unknown_not_different() {
    let Some(dir) = rers_dir() else { return };
    let base = dir.join("2019/seq-ltl/Problem6/Problem6");
    let (r, code) =
        compare_json_within(&base.with_extension("c"), &base.with_extension("java"), 20);
    assert_ne!(r["verdict"], "different", "{r}");
    if r["verdict"] == "unknown" {
        assert_eq!(code, Some(4));
        let notes = r["notes"].to_string();
        assert!(notes.contains("not provable by the shape"), "{r}");
        assert!(notes.contains("not provable on the abstractions"), "{r}");
    } else {
        assert_eq!(code, Some(0), "{r}");
    }
}

/// One output changed in a rule of the Java copy of 2019 challenge LTL P2
/// (`T` printed as `U`): the abstractions disagree, so no proof, and the
/// lockstep search gives a shortest replayed difference.
#[test]
fn abstraction_does_not_prove_a_planted_output_change() {
    let Some(dir) = rers_dir() else { return };
    let c = dir.join("2019/seq-ltl/Problem2/Problem2.c");
    let j = dir.join("2019/seq-ltl/Problem2/Problem2.java");
    let text = std::fs::read_to_string(&j).expect("read");
    let (_tmp, mutated) = planted_copy(
        &j,
        &text.replacen(
            "System.out.println(\"T\");",
            "System.out.println(\"U\");",
            1,
        ),
    );
    let (r, code) = compare_json(&c, &mutated);
    assert_eq!(r["verdict"], "different", "{r}");
    assert_eq!(r["inputs"], serde_json::json!(["E", "G", "I", "C"]), "{r}");
    assert_eq!(code, Some(3));
    let notes = r["notes"].to_string();
    assert!(
        notes.contains("the abstractions differ after [E, G, I, C]"),
        "{notes}"
    );
}

/// The 2019 challenge reachability copies in shared/rers are NOT the same
/// system in C and Java (different variables and error numbering; checked
/// natively with gcc and javac, see the report). rigor must say so with a
/// replayed shortest distinguishing sequence, never "equivalent".
#[test]
fn compare_2019_challenge_reach_pairs_differ() {
    let Some(dir) = rers_dir() else { return };
    let all = pairs(&dir, &["2019/seq-reach"]);
    let limits = Budget::unlimited().with_max_states(200_000);
    for (c, j) in &all {
        let r = compare(
            &machine(c),
            &machine(j),
            &c.to_string_lossy(),
            &j.to_string_lossy(),
            &limits,
            2,
        )
        .expect("the distinguishing sequence replays");
        eprintln!("{}: {:?}", j.display(), r.verdict);
        let a = rigor::frontend::load(&c.to_string_lossy()).expect("C parses");
        let b = rigor::frontend::load(&j.to_string_lossy()).expect("Java parses");
        assert!(
            rigor::equivalence::structural::prove(&a, &b).is_err(),
            "{}: the structural proof must fail on different systems",
            j.display()
        );
        assert!(
            matches!(r.verdict, Verdict::Different { .. }),
            "{}: {:?}",
            j.display(),
            r.verdict
        );
    }
}

#[test]
fn compare_finds_a_planted_mutation() {
    let Some(dir) = rers_dir() else { return };
    let c = dir.join("2017/seq-ltl/Problem1/Problem1.c");
    let j = dir.join("2017/seq-ltl/Problem1/Problem1.java");
    let text = std::fs::read_to_string(&j).expect("read");
    // Plant: the first rule printing "Y" prints "Z" instead.
    let needle = "System.out.println(\"Y\");";
    let at = text.find(needle).expect("a rule prints Y");
    let mutated = format!(
        "{}System.out.println(\"Z\");{}",
        &text[..at],
        &text[at + needle.len()..]
    );
    let (_tmp, mj) = planted_copy(&j, &mutated);
    let out = Command::new(rigor_bin())
        .args(["compare", "--json", "--quiet"])
        .arg(&c)
        .arg(&mj)
        .output()
        .expect("run rigor compare");
    assert_eq!(
        out.status.code(),
        Some(3),
        "exit 3 = different: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(r["verdict"], "different");
    assert_eq!(r["a"]["Output"], "Y");
    assert_eq!(r["b"]["Output"], "Z");
    assert!(!r["inputs"].as_array().unwrap().is_empty());
    // And the unmutated pair is equivalent (exit 0).
    let out = Command::new(rigor_bin())
        .args(["compare", "--quiet"])
        .arg(&c)
        .arg(&j)
        .output()
        .expect("run");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("equivalent"));
}

#[test]
fn compare_incomplete_is_not_equivalent() {
    let Some(dir) = rers_dir() else { return };
    // Code shapes too different for the structural proof, state space too
    // large for 5000 pairs, and the proof on the abstractions turned off.
    let c = dir.join("2019/seq-ltl/Problem2/Problem2.c");
    let j = dir.join("2019/seq-ltl/Problem2/Problem2.java");
    let out = Command::new(rigor_bin())
        .args([
            "compare",
            "--quiet",
            "--no-abstraction",
            "--max-states",
            "5000",
        ])
        .arg(&c)
        .arg(&j)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(4), "exit 4 = unknown");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with("unknown") && text.contains("NOT proved equivalent"),
        "{text}"
    );
}

/// 2019 training LTL Problem1 has the same code in C and Java up to
/// renaming: `compare` proves it by structure. Planting a difference in the
/// Java copy defeats the structural proof, and the lockstep search finds
/// the difference.
#[test]
fn compare_by_structure_and_its_planted_mutation() {
    let Some(dir) = rers_dir() else { return };
    let c = dir.join("2019/training-seq-ltl/Problem1/Problem1.c");
    let j = dir.join("2019/training-seq-ltl/Problem1/Problem1.java");
    let run = |b: &Path| {
        let out = Command::new(rigor_bin())
            .args(["compare", "--json", "--quiet"])
            .arg(&c)
            .arg(b)
            .output()
            .expect("run rigor compare");
        let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        (out.status.code(), r)
    };
    let (code, r) = run(&j);
    assert_eq!(code, Some(0), "{r}");
    assert_eq!(r["method"], "structure");

    let text = std::fs::read_to_string(&j).expect("read");
    // Plant: the first assignment of a string field's value "e" becomes "f".
    let needle = " = \"e\";";
    let at = text.rfind(needle).expect("a field is set to \"e\"");
    let mutated = format!("{} = \"f\";{}", &text[..at], &text[at + needle.len()..]);
    let (_tmp, mj) = planted_copy(&j, &mutated);
    let (code, r) = run(&mj);
    assert_ne!(r["method"], "structure", "{r}");
    assert_ne!(code, Some(0), "{r}");
}
