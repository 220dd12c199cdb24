//! Shared helpers for integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

/// The RERS benchmark folder: `$RIGOR_RERS` if set, else `../shared/rers`
/// beside the project root. `None` (with a message on stderr) when absent, so
/// that tests can say clearly that they did not run.
pub fn rers_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("RIGOR_RERS") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/rers"),
    };
    if dir.join("truth.tsv").is_file() {
        Some(dir)
    } else {
        eprintln!(
            "RERS data not found at {} (set RIGOR_RERS): test skipped",
            dir.display()
        );
        None
    }
}

/// The SV-COMP tasks folder: `$RIGOR_SVCOMP` if set, else `svcomp` beside
/// the RERS folder, else `../shared/svcomp`. `None` (with a message) when
/// absent.
pub fn svcomp_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("RIGOR_SVCOMP") {
        Some(d) => PathBuf::from(d),
        None => match std::env::var_os("RIGOR_RERS") {
            Some(r) => PathBuf::from(r).join("../svcomp"),
            None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/svcomp"),
        },
    };
    if dir.join("properties/unreach-call.prp").is_file() {
        Some(dir)
    } else {
        eprintln!(
            "SV-COMP tasks not found at {} (set RIGOR_SVCOMP): test skipped",
            dir.display()
        );
        None
    }
}

/// `rigor validate PROGRAM WITNESSES`: its exit code and its output.
pub fn validate(program: &std::path::Path, witnesses: &std::path::Path) -> (Option<i32>, String) {
    let out = std::process::Command::new(rigor_bin())
        .arg("validate")
        .arg(program)
        .arg(witnesses)
        .output()
        .expect("run rigor validate");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr),
    )
}

/// The path of the built `rigor` binary.
pub fn rigor_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_rigor"))
}

/// Runs `rigor ARGS`; returns its stdout, panics with its stderr when it
/// fails.
pub fn rigor_ok(args: &[&str]) -> String {
    let out = std::process::Command::new(rigor_bin())
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "rigor {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// [`rigor_ok`] of a command that prints JSON, parsed.
pub fn rigor_json(args: &[&str]) -> serde_json::Value {
    serde_json::from_str(&rigor_ok(args)).unwrap()
}

/// One row of `truth.tsv`.
#[derive(Debug, Clone)]
pub struct Truth {
    pub program: String,
    pub properties: String,
    pub track: String,
    pub property: u32,
    pub verdict: bool,
}

/// Reads `truth.tsv`.
pub fn truth(dir: &std::path::Path) -> Vec<Truth> {
    truth_file(&dir.join("truth.tsv"))
}

/// [`truth`] and the reachability truth of the large 2012 problems
/// (`truth-2012-large.tsv`, which has no solution files beside it).
pub fn truth_with_large(dir: &std::path::Path) -> Vec<Truth> {
    let mut rows = truth(dir);
    rows.extend(truth_file(&dir.join("truth-2012-large.tsv")));
    rows
}

/// The rows of one truth file.
pub fn truth_file(path: &std::path::Path) -> Vec<Truth> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            Truth {
                program: f[0].to_string(),
                properties: f[1].to_string(),
                track: f[2].to_string(),
                property: f[3].parse().expect("property number"),
                verdict: f[4] == "true",
            }
        })
        .collect()
}

/// A fresh scratch folder in the system's temporary directory, named
/// `name` and this process's id.
pub fn scratch_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// Writes the `n`-th [`generated`] program of a test to `dir` as
/// `Problem{n}.c`; returns its path and its text.
pub fn write_generated(
    dir: &std::path::Path,
    n: usize,
    rng: &mut impl rand::Rng,
) -> (String, String) {
    let path = dir.join(format!("Problem{n}.c"));
    let text = generated(rng);
    std::fs::write(&path, &text).expect("written");
    (path.to_string_lossy().into_owned(), text)
}

/// A small RERS-style program: three variables kept in small ranges by
/// remainders, three inputs with guarded updates, four error checks.
pub fn generated(rng: &mut impl rand::Rng) -> String {
    use rand::Rng;
    let var = |rng: &mut dyn rand::RngCore| ["x", "y", "z"][rng.random_range(0..3)];
    let cmp =
        |rng: &mut dyn rand::RngCore| ["==", "<", ">", "!=", "<=", ">="][rng.random_range(0..6)];
    let mut s =
        String::from("extern void __VERIFIER_error(int);\nint inputs[] = {1,2,3};\nint cf = 1;\n");
    for v in ["x", "y", "z"] {
        s += &format!("int {v} = {};\n", rng.random_range(-3..4));
    }
    s += "void errorCheck() {\n";
    for l in 0..4 {
        let (a, b) = (var(rng), var(rng));
        s += &format!(
            "  if(({a} {} {} && {b} {} {})) {{ cf = 0; __VERIFIER_error({l}); }}\n",
            cmp(rng),
            rng.random_range(-8..9),
            cmp(rng),
            rng.random_range(-8..9)
        );
    }
    s += "}\nvoid calculate_output(int input) {\n  cf = 1;\n";
    for i in 1..=3 {
        let (g, t) = (var(rng), var(rng));
        s += &format!(
            "  if((cf==1 && (input == {i})) && {g} {} {}) {{\n    cf = 0;\n",
            cmp(rng),
            rng.random_range(-5..6)
        );
        for _ in 0..2 {
            let (a, b) = (var(rng), var(rng));
            let op = ["+", "-", "*"][rng.random_range(0..3)];
            s += &format!(
                "    {t} = (({a} {op} {b}) + {}) % {};\n",
                rng.random_range(-4..5),
                rng.random_range(2..9)
            );
        }
        s += &format!("    printf(\"%d\\n\", {});\n  }}\n", 20 + i);
    }
    s += "  errorCheck();\n  if( cf==1 ) fprintf(stderr, \"Invalid input: %d\\n\", input);\n}\n";
    s += "int main() {\n  while(1) {\n    int input;\n    scanf(\"%d\", &input);\n    if((input != 1) && (input != 2) && (input != 3)) return -2;\n    calculate_output(input);\n  }\n}\n";
    s
}

/// Up to `max` states a breadth-first search of the engine reaches, the
/// initial state first.
pub fn reachable_states(m: &rigor::engine::Machine, max: usize) -> Vec<Vec<i32>> {
    use rigor::system::{Outcome, System};
    let mut scratch = m.scratch();
    let init = m.initial_state();
    let mut seen = std::collections::HashSet::from([init.clone()]);
    let mut order = vec![init.clone()];
    let mut queue = std::collections::VecDeque::from([init]);
    let mut next = vec![0; m.state_width()];
    while let Some(s) = queue.pop_front() {
        for i in 0..m.n_inputs() {
            if let Ok(Outcome::Output(_) | Outcome::Silent | Outcome::Invalid) =
                m.step(&mut scratch, &s, i, &mut next)
            {
                if order.len() < max && seen.insert(next.clone()) {
                    order.push(next.clone());
                    queue.push_back(next.clone());
                }
            }
        }
    }
    order
}
