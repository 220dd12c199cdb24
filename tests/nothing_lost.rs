//! Nothing lost: answers are written as they are proved, an interrupted
//! run keeps them and says so, and a hard memory cap ends a run with its
//! answers instead of an abort.

use crate::common;

use common::{rers_dir, rigor_bin};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Lines of the CSV in `path`.
fn csv_lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

/// rigor started with `args`, then `paths`, its stdout and stderr written
/// to `out` and `err`.
fn spawn_rigor(args: &[&str], paths: &[&Path], out: &Path, err: &Path) -> Child {
    Command::new(rigor_bin())
        .args(args)
        .args(paths)
        .stdout(Stdio::from(std::fs::File::create(out).unwrap()))
        .stderr(Stdio::from(std::fs::File::create(err).unwrap()))
        .spawn()
        .expect("run rigor")
}

/// A large problem, interrupted with SIGTERM once it has written a few
/// answers: they stay on stdout (with their witnesses), the run says
/// "interrupted" and exits with 130.
#[test]
fn an_interrupted_run_keeps_its_answers() {
    let Some(dir) = rers_dir() else {
        eprintln!("skipped: ../shared/rers not found");
        return;
    };
    let program = dir.join("2019/seq-reach/Problem16/Problem16.c");
    if !program.is_file() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (out, err, witness) = (
        tmp.path().join("out.csv"),
        tmp.path().join("err.txt"),
        tmp.path().join("witness.txt"),
    );
    let args = [
        "reach",
        "--quiet",
        "--no-abstraction",
        "--timeout",
        "300",
        "--witness",
    ];
    let mut child = spawn_rigor(&args, &[&witness, &program], &out, &err);
    let start = Instant::now();
    while csv_lines(&out).len() < 3 && start.elapsed() < Duration::from_secs(120) {
        std::thread::sleep(Duration::from_millis(100));
    }
    let seen = csv_lines(&out);
    assert!(seen.len() >= 3, "no answer written while running");
    // SAFETY: kill only sends a signal to the child we started.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    let after = csv_lines(&out);
    assert!(after.len() >= seen.len());
    assert!(seen.iter().all(|l| after.contains(l)));
    assert!(after.iter().all(|l| l.ends_with(",true")), "{after:?}");
    let stderr = std::fs::read_to_string(&err).unwrap();
    assert!(stderr.contains("interrupted"), "{stderr}");
    assert_eq!(csv_lines(&witness).len(), after.len());
}

/// Under a hard address-space cap (`ulimit -v`), an exploration that
/// outgrows it stops at the memory limit and prints what it found; it never
/// aborts on a failed allocation.
#[test]
fn a_hard_memory_cap_ends_a_run_with_its_answers() {
    let Some(dir) = rers_dir() else {
        eprintln!("skipped: ../shared/rers not found");
        return;
    };
    // Wide states (178 slots): past 400 MB within seconds, with dozens of
    // labels found by then.
    let program = dir.join("2019/seq-reach/Problem17/Problem17.c");
    if !program.is_file() {
        return;
    }
    let script = format!(
        "ulimit -v 400000 && exec '{}' reach --quiet --no-abstraction '{}'",
        rigor_bin().display(),
        program.display()
    );
    let out = Command::new("sh")
        .args(["-c", &script])
        .output()
        .expect("run sh");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("memory allocation"), "{stderr}");
    let answers = String::from_utf8_lossy(&out.stdout);
    assert!(answers.lines().count() >= 10, "{answers}{stderr}");
    assert!(stderr.contains("MemoryLimit"), "{stderr}");
}

/// An LTL run interrupted while it explores still checks the properties
/// on the graph explored so far, as at a time limit: the counterexamples
/// found there are answered, the run says "interrupted" and exits 130.
#[test]
fn an_interrupted_ltl_run_answers_from_what_it_explored() {
    let Some(dir) = rers_dir() else {
        eprintln!("skipped: ../shared/rers not found");
        return;
    };
    let problem = dir.join("2019/seq-ltl/Problem6");
    let (program, properties) = (
        problem.join("Problem6.c"),
        problem.join("constraints-Problem6.txt"),
    );
    if !program.is_file() || !properties.is_file() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (out, err) = (tmp.path().join("out.csv"), tmp.path().join("err.txt"));
    let args = ["ltl", "--quiet", "--no-abstraction", "--timeout", "600"];
    let mut child = spawn_rigor(&args, &[&program, &properties], &out, &err);
    // Nothing is answered before the exploration stops: let it run a while.
    std::thread::sleep(Duration::from_secs(20));
    // SAFETY: kill only sends a signal to the child we started.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    let stderr = std::fs::read_to_string(&err).unwrap();
    assert!(stderr.contains("interrupted"), "{stderr}");
    let answers = csv_lines(&out);
    assert!(
        answers.iter().any(|l| l.ends_with(",false")),
        "no counterexample answered: {answers:?}\n{stderr}"
    );
    // Only counterexamples can come from a partial graph.
    assert!(answers.iter().all(|l| l.ends_with(",false")), "{answers:?}");
}
