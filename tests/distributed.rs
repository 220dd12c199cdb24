//! The breadth-first search over several processes on localhost
//! (`rigor reach --processes N`, timely-dataflow) against the search in
//! one process: the same states, transitions, depth, verdicts and
//! witnesses (the same shortest ones, which the report has replayed), and
//! byte for byte the same answer and witness files.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{rers_dir, rigor_bin};

/// The JSON report of `rigor reach PROGRAM --json` with `flags`.
fn report(program: &Path, flags: &[&str]) -> serde_json::Value {
    let out = Command::new(rigor_bin())
        .arg("reach")
        .arg(program)
        .args(["--json", "--quiet"])
        .args(flags)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{} {flags:?}: {}",
        program.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{} {flags:?}: {e}: {}",
            program.display(),
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

/// Per label: its verdict and its witness.
fn verdicts(r: &serde_json::Value) -> Vec<(u64, Option<bool>, Option<String>)> {
    let mut v: Vec<_> = (r["verdicts"].as_array().unwrap().iter())
        .map(|v| {
            (
                v["property"].as_u64().unwrap(),
                v["verdict"].as_bool(),
                v["witness"].as_array().map(|w| format!("{w:?}")),
            )
        })
        .collect();
    v.sort();
    v
}

/// The answer lines and the witness file of `rigor reach PROGRAM` with
/// `flags`.
fn answer_files(program: &Path, flags: &[&str]) -> (String, String) {
    let dir = tempfile::tempdir().unwrap();
    let witness = dir.path().join("witness");
    let out = Command::new(rigor_bin())
        .arg("reach")
        .arg(program)
        .arg("--quiet")
        .args(flags)
        .arg("--witness")
        .arg(&witness)
        .output()
        .unwrap();
    assert!(out.status.success(), "{flags:?}: {out:?}");
    (
        String::from_utf8(out.stdout).unwrap(),
        std::fs::read_to_string(&witness).unwrap(),
    )
}

fn same_as_one_process(program: &Path, processes: &str) {
    same_as_one_process_with(program, &["--processes", processes]);
}

/// The plain search (no abstraction) over the processes `flags` give
/// against the one in one process.
fn same_as_one_process_with(program: &Path, flags: &[&str]) {
    let processes = flags.join(" ");
    let one = report(program, &["--no-abstraction", "--threads", "1"]);
    let plain: Vec<&str> = flags.iter().copied().chain(["--no-abstraction"]).collect();
    let many = report(program, &plain);
    assert_eq!(many["complete"], true, "{}", program.display());
    // The search in one process stops once every label is found; the
    // distributed one always goes to the end.
    let fields: &[&str] = if one["stopped"].is_null() {
        &["states", "transitions", "depth", "complete"]
    } else {
        &[]
    };
    for &field in fields {
        assert_eq!(
            one[field],
            many[field],
            "{} with {processes}: {field}",
            program.display()
        );
    }
    assert_eq!(
        verdicts(&one),
        verdicts(&many),
        "{} with {processes}",
        program.display()
    );
}

/// The bundled problems whose plain search ends.
fn finite_problems() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("problems");
    [
        "reach-plain/Problem901.c",
        "reach-arith/Problem902.c",
        "reach-arrays/Problem903.c",
        "reach-invalid/Problem904.c",
        "reach-deep/Problem905.c",
        "reach-modes/Problem909.c",
        "ltl-finite/Problem951.c",
    ]
    .iter()
    .map(|p| dir.join(p))
    .collect()
}

#[test]
fn two_processes_agree_with_one_on_the_bundled_problems() {
    for p in finite_problems() {
        same_as_one_process(&p, "2");
    }
}

#[test]
fn three_processes_agree_with_one() {
    same_as_one_process(&finite_problems()[1], "3");
}

#[test]
fn four_processes_agree_with_one() {
    // Four processes of two threads (eight workers), and of one thread.
    same_as_one_process_with(
        &finite_problems()[2],
        &["--processes", "4", "--threads", "2"],
    );
    same_as_one_process(&finite_problems()[4], "4");
}

#[test]
fn two_processes_of_two_threads_agree_with_one() {
    same_as_one_process_with(
        &finite_problems()[2],
        &["--processes", "2", "--threads", "2"],
    );
}

#[test]
fn two_processes_agree_with_one_on_a_rers_program() {
    let Some(dir) = rers_dir() else {
        eprintln!("skipped: ../shared/rers not found");
        return;
    };
    same_as_one_process(&dir.join("2012/Problem1.c"), "2");
}

#[test]
fn three_processes_write_the_files_of_one_on_a_rers_program() {
    // 2019 training reach P11: 2.9 M states, depth 73, 24 labels reached.
    let Some(dir) = rers_dir() else {
        eprintln!("skipped: ../shared/rers not found");
        return;
    };
    let program = dir.join("2019/training-seq-reach/Problem11/Problem11.c");
    let one = answer_files(&program, &["--no-abstraction", "--threads", "1"]);
    let many = answer_files(&program, &["--processes", "3", "--no-abstraction"]);
    assert!(one.1.lines().count() > 20, "{}", one.1);
    assert_eq!(one.0, many.0, "answer lines");
    assert_eq!(one.1, many.1, "witness files");
    let r = report(&program, &["--processes", "3", "--no-abstraction"]);
    assert_eq!(r["states"], 2_881_669);
    let bytes = r["state_bytes"].as_u64().unwrap();
    assert!((1..=16).contains(&bytes), "{bytes} bytes per state");
}

#[test]
fn two_processes_write_the_files_of_one_on_the_bundled_problems() {
    for p in finite_problems() {
        let one = answer_files(&p, &["--no-abstraction", "--threads", "1"]);
        let many = answer_files(
            &p,
            &["--processes", "2", "--threads", "2", "--no-abstraction"],
        );
        assert_eq!(one, many, "{}", p.display());
    }
}

/// Per label: its verdict, the engine that settled it, whether it is
/// certified, and its witness.
fn settled(r: &serde_json::Value) -> Vec<String> {
    let mut v: Vec<String> = (r["verdicts"].as_array().unwrap().iter())
        .map(|v| {
            let field = |f: &str| v[f].to_string();
            ["property", "verdict", "engine", "certified", "witness"]
                .map(field)
                .join(" ")
        })
        .collect();
    v.sort();
    v
}

/// With the abstraction (the default), the last process builds it once
/// and hands it, with the labels still looked for, to every process; each
/// prunes its part of the search with it. The verdicts, the engines that
/// settled them, their certification and the witnesses are one process's;
/// a label only the pruned search settles is certified from what every
/// process pruned.
#[test]
fn the_processes_prune_with_the_abstraction_the_last_one_builds() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("problems");
    let mut programs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with("reach-")
        })
        // Its labels need the invariant engine, which a cluster does not run.
        .filter(|p| !p.ends_with("reach-relational"))
        .flat_map(|p| std::fs::read_dir(p).unwrap().map(|e| e.unwrap().path()))
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    programs.sort();
    assert!(programs.len() >= 14, "{programs:?}");
    for p in &programs {
        let one = report(p, &["--threads", "1"]);
        let many = report(p, &["--processes", "2"]);
        assert_eq!(settled(&one), settled(&many), "{}", p.display());
    }
    let pruned = dir.join("reach-pruned/Problem917.c");
    let r = report(&pruned, &["--processes", "3"]);
    assert!(r["pruned"].as_u64().unwrap() >= 1, "{r}");
    let label0 = &r["verdicts"].as_array().unwrap()[0];
    assert_eq!(label0["engine"], "pruned-exploration", "{r}");
    assert_eq!(label0["certified"], true, "{r}");
}

#[test]
fn a_limit_stops_every_process_and_the_answers_found_stay() {
    let counter = Path::new(env!("CARGO_MANIFEST_DIR")).join("problems/reach-counter/Problem907.c");
    // A state limit, not a deadline: how far a deadline gets depends on the
    // machine's load (a loaded CI machine once stored one state in 2 s).
    let flags = [
        "--processes",
        "2",
        "--max-states",
        "20000",
        "--no-abstraction",
    ];
    let r = report(&counter, &flags);
    assert_eq!(r["complete"], false);
    let found = verdicts(&r).iter().filter(|v| v.1 == Some(true)).count();
    assert!(found >= 1, "{r}");
    assert!(verdicts(&r).iter().all(|v| v.1 != Some(false)), "{r}");
}

#[test]
fn a_process_index_outside_the_cluster_is_an_error() {
    let out = Command::new(rigor_bin())
        .args([
            "reach",
            "--process",
            "2",
            "--addresses",
            "127.0.0.1:1,127.0.0.1:2",
        ])
        .arg(&finite_problems()[0])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--process 2"));
}

/// Two free `127.0.0.1` addresses.
fn two_addresses() -> String {
    let ls: Vec<std::net::TcpListener> = (0..2)
        .map(|_| std::net::TcpListener::bind("127.0.0.1:0").unwrap())
        .collect();
    let a: Vec<String> = ls
        .iter()
        .map(|l| l.local_addr().unwrap().to_string())
        .collect();
    a.join(",")
}

/// Runs processes 0 and 1 of one cluster, each `(program, run id)`:
/// their exit successes and standard errors.
fn pair(members: [(&Path, &str); 2]) -> Vec<(bool, String)> {
    let runs = members.map(|(program, run)| (program, vec!["--run-id", run]));
    (pair_with(runs).into_iter())
        .map(|out| {
            let err = String::from_utf8_lossy(&out.stderr).into_owned();
            (out.status.success(), err)
        })
        .collect()
}

/// Process `k` of the cluster at `addresses`, on `program` with `flags`,
/// its output piped; the plain search (no abstraction).
fn member(program: &Path, k: usize, addresses: &str, flags: &[&str]) -> std::process::Child {
    Command::new(rigor_bin())
        .arg("reach")
        .arg(program)
        .args([
            "--quiet",
            "--no-abstraction",
            "--process",
            &k.to_string(),
            "--addresses",
            addresses,
        ])
        .args(flags)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

/// Runs processes 0 and 1 of one cluster, each `(program, flags)`: their
/// outputs.
fn pair_with(members: [(&Path, Vec<&str>); 2]) -> Vec<std::process::Output> {
    let addresses = two_addresses();
    let children: Vec<_> = (members.iter().enumerate())
        .map(|(k, (program, flags))| member(program, k, &addresses, flags))
        .collect();
    (children.into_iter())
        .map(|c| c.wait_with_output().unwrap())
        .collect()
}

/// Three counters, one per input: a state space that grows with the
/// square of the depth, through every process.
const THREE_COUNTERS: &str = r#"
#include <stdio.h>
    extern void __VERIFIER_error(int);
	int inputs[] = {1,2,3};
	void errorCheck();
	void calculate_output(int);
	int cf = 1;
	int a = 0;
	int b = 0;
	int c = 0;
	void errorCheck() {
	    if((a == 5000 && b == 5000)){
	    cf = 0;
	    __VERIFIER_error(0);
	    }
	}
 void calculate_output(int input) {
        cf = 1;
    if((cf==1 && (input == 1))) {
    	cf = 0;
    	a = a + 1;
    	printf("%d\n", 21); fflush(stdout);
    }
    if((cf==1 && (input == 2))) {
    	cf = 0;
    	b = b + 1;
    	printf("%d\n", 22); fflush(stdout);
    }
    if((cf==1 && (input == 3))) {
    	cf = 0;
    	c = c + 1;
    	printf("%d\n", 23); fflush(stdout);
    }
    errorCheck();
    if( cf==1 )
    	fprintf(stderr, "Invalid input: %d\n", input);
}
int main()
{
    while(1)
    {
        int input;
        scanf("%d", &input);
        if((input != 1) && (input != 2) && (input != 3))
          return -2;
        calculate_output(input);
    }
}
"#;

#[test]
fn one_process_at_its_limit_stops_every_process() {
    let dir = std::env::temp_dir().join(format!("rigor-stop-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let program = dir.join("Problem920.c");
    std::fs::write(&program, THREE_COUNTERS).unwrap();
    // Process 1 alone would go on to half a million states of its own:
    // three in four successors of its states are new, half of them its.
    let outs = pair_with([
        (&program, vec!["--run-id", "r", "--max-states", "50"]),
        (
            &program,
            vec!["--run-id", "r", "--max-states", "1000000", "--json"],
        ),
    ]);
    let _ = std::fs::remove_dir_all(&dir);
    for out in &outs {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let r: serde_json::Value = serde_json::from_slice(&outs[1].stdout).unwrap();
    assert_eq!(r["complete"], false, "{r}");
    assert_eq!(r["stopped"], "MaxStates", "{r}");
    let states = r["states"].as_u64().unwrap();
    assert!(states < 100_000, "process 1 went on to {states} states");
}

#[test]
fn only_the_processes_of_one_run_and_program_search_together() {
    let owned = finite_problems();
    let ps: Vec<&Path> = owned.iter().map(PathBuf::as_path).collect();
    for (k, (ok, err)) in pair([(ps[0], "r1"), (ps[0], "r1")]).into_iter().enumerate() {
        assert!(ok, "process {k}: {err}");
    }
    for (members, what) in [
        ([(ps[0], "r1"), (ps[0], "r2")], "another run"),
        ([(ps[0], "r1"), (ps[1], "r1")], "another program"),
    ] {
        for (k, (ok, err)) in pair(members).into_iter().enumerate() {
            assert!(!ok, "process {k} of a mixed cluster succeeded");
            assert!(
                err.contains(what) && err.contains("no state was exchanged"),
                "{err}"
            );
        }
    }
}

/// Starts processes 0 and 1 of a cluster on `source` (the three
/// counters, or a variant) in a directory of its own named `case`, kills
/// process `victim` once they search and, if `told` is set, once the
/// witness file holds it, and returns the other's output and witness file.
fn kill_one(
    case: &str,
    victim: usize,
    source: &str,
    told: Option<&str>,
) -> (std::process::Output, String) {
    let dir =
        std::env::temp_dir().join(format!("rigor-kill-{case}-{}-{victim}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let program = dir.join("Problem921.c");
    std::fs::write(&program, source).unwrap();
    let witness = dir.join("witness");
    let addresses = two_addresses();
    // Far more states than the search reaches before the kill.
    let flags = ["--run-id", "r", "--max-states", "12000000", "--witness"];
    let flags: Vec<&str> = flags.into_iter().chain(witness.to_str()).collect();
    let mut children: Vec<std::process::Child> = (0..2)
        .map(|k| member(&program, k, &addresses, &flags))
        .collect();
    std::thread::sleep(std::time::Duration::from_secs(2));
    // Under load the search may start late: wait (a minute at most) for
    // the answer that is to be told before the kill.
    for _ in 0..600 {
        let seen = std::fs::read_to_string(&witness).unwrap_or_default();
        if told.is_none_or(|line| seen.contains(line)) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let mut killed = children.remove(victim);
    killed.kill().unwrap();
    killed.wait().unwrap();
    let out = children.pop().unwrap().wait_with_output().unwrap();
    let witnesses = std::fs::read_to_string(&witness).unwrap_or_default();
    let _ = std::fs::remove_dir_all(&dir);
    (out, witnesses)
}

#[test]
fn a_killed_process_ends_the_others_with_an_error_and_no_panic() {
    for victim in [0, 1] {
        let (out, witnesses) = kill_one("none", victim, THREE_COUNTERS, None);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success(),
            "the run went on without process {victim}"
        );
        assert!(err.contains("a process was lost"), "{err}");
        assert!(!err.contains("panicked"), "{err}");
        // Nothing was found before the kill, so nothing is claimed.
        assert!(
            out.stdout.is_empty(),
            "stdout: {}\nstderr: {err}",
            String::from_utf8_lossy(&out.stdout)
        );
        assert!(witnesses.is_empty(), "{witnesses}");
    }
}

#[test]
fn a_killed_process_leaves_the_answers_told_before_it() {
    // Label 1 is three steps deep (a = 2, b = 1); label 0 is 10,000 deep.
    let early = THREE_COUNTERS.replacen(
        "    if((a == 5000 && b == 5000)){",
        "    if((a == 2 && b == 1)){ cf = 0; __VERIFIER_error(1); }\n    if((a == 5000 && b == 5000)){",
        1,
    );
    assert_ne!(early, THREE_COUNTERS);
    // Process 1 reports: it has told label 1 before process 0 is killed.
    let (out, witnesses) = kill_one("early", 0, &early, Some("1,A A B\n"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains("a process was lost"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "921,1,true\n",
        "{err}"
    );
    // The shortest witness, least first: input 1 twice, then input 2.
    assert_eq!(witnesses, "1,A A B\n");
}
