//! Bad input never panics: a one-line error naming the file (and line where
//! there is one) and a non-zero exit.

use crate::common;

use common::rigor_bin;
use std::path::Path;
use std::process::Command;

/// Runs `rigor reach FILE` and returns (exit code, stderr).
fn reach(file: &Path) -> (i32, String) {
    let out = Command::new(rigor_bin())
        .args(["reach", "--quiet"])
        .arg(file)
        .output()
        .expect("run rigor");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

fn assert_clean_error(file: &Path, expect: &[&str]) {
    let (code, err) = reach(file);
    assert_ne!(code, 0, "{}: expected a failure", file.display());
    assert!(
        !err.contains("panicked"),
        "{}: panicked: {err}",
        file.display()
    );
    assert_eq!(
        err.trim_end().lines().count(),
        1,
        "one-line error expected, got: {err}"
    );
    let name = file.file_name().unwrap().to_string_lossy();
    assert!(err.contains(&*name), "error does not name the file: {err}");
    for e in expect {
        assert!(err.contains(e), "error `{err}` lacks `{e}`");
    }
}

#[test]
fn non_rers_c_file() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("hello.c");
    std::fs::write(
        &f,
        "#include <stdio.h>\nint main(void) {\n  printf(\"hello\\n\");\n  return 0;\n}\n",
    )
    .unwrap();
    assert_clean_error(&f, &["calculate_output"]);
}

#[test]
fn syntax_error_names_line_and_column() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("Problem1.c");
    std::fs::write(&f, "int a = 1;\nint inputs[] = {1,2};\nvoid calculate_output(int input) {\n  if (a == 1 { a = 2; }\n}\n").unwrap();
    assert_clean_error(&f, &["Problem1.c:4:"]);
}

#[test]
fn empty_file() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("Problem2.c");
    std::fs::write(&f, "").unwrap();
    assert_clean_error(&f, &[]);
}

#[test]
fn binary_file() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("Problem3.c");
    std::fs::write(&f, [0x7fu8, b'E', b'L', b'F', 0, 1, 2, 0xff, 0xfe, 0]).unwrap();
    assert_clean_error(&f, &["binary"]);
}

#[test]
fn missing_file() {
    assert_clean_error(Path::new("/nonexistent/Problem4.c"), &[]);
}

#[test]
fn unsupported_construct_is_located() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("Problem5.c");
    std::fs::write(
        &f,
        "int a = 1;\nint inputs[] = {1,2};\nvoid calculate_output(int input) {\n  float z = 1.5;\n  if (input == 1) { a = 2; printf(\"%d\\n\", 21); }\n}\n",
    )
    .unwrap();
    assert_clean_error(&f, &["Problem5.c:4:"]);
}

#[test]
fn solve_keeps_going_after_a_bad_problem() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("Problem6.c"), "garbage {").unwrap();
    let good = Path::new(env!("CARGO_MANIFEST_DIR")).join("problems/reach-plain/Problem901.c");
    std::fs::copy(good, d.path().join("Problem901.c")).unwrap();
    let out = Command::new(rigor_bin())
        .args(["solve", "--quiet", "--out"])
        .arg(d.path().join("out"))
        .arg(d.path())
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(0));
    assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
    assert!(
        d.path().join("out/Problem901-reach.csv").is_file(),
        "answers of the good problem kept"
    );
}

/// A property file without a property is an error naming the file (LTL
/// and CTL), not an empty answer.
#[test]
fn property_file_without_properties() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("problems");
    let tmp = tempfile::tempdir().unwrap();
    let empty = tmp.path().join("no-properties.txt");
    std::fs::write(&empty, "# only a comment\n\n").unwrap();
    for (cmd, model) in [
        ("ltl", root.join("ltl-finite/Problem951.c")),
        ("ctl", root.join("ctl-small/model.aut")),
    ] {
        let out = Command::new(rigor_bin())
            .args([cmd, "--quiet"])
            .arg(&model)
            .arg(&empty)
            .output()
            .expect("run rigor");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{cmd}: {err}");
        assert!(err.contains("no-properties.txt"), "{cmd}: {err}");
        assert!(out.stdout.is_empty(), "{cmd}: printed answers");
    }
}
