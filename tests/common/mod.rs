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

/// The path of the built `rigor` binary.
pub fn rigor_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_rigor"))
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
    let text = std::fs::read_to_string(dir.join("truth.tsv")).expect("truth.tsv");
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
