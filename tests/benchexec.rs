//! The BenchExec tool-info module (`contrib/benchexec/rigor_tools/rigor.py`)
//! checked with BenchExec's own classes: its command lines for every SV-COMP
//! task run, and `determine_result` reads the expected verdict from the
//! output; `benchexec.test_tool_info` accepts the module. Needs a Python
//! with BenchExec (`$RIGOR_BENCHEXEC_PYTHON`, else the venv `.ci/run` makes
//! in `target/benchexec-venv`, else `python3`); skipped with a message
//! otherwise.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{rigor_bin, svcomp_dir};

fn python() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let candidates = [
        std::env::var_os("RIGOR_BENCHEXEC_PYTHON").map(PathBuf::from),
        Some(root.join("target/benchexec-venv/bin/python")),
        Some(PathBuf::from("python3")),
    ];
    let found = candidates.into_iter().flatten().find(|p| {
        Command::new(p)
            .args(["-c", "import benchexec, yaml"])
            .output()
            .is_ok_and(|o| o.status.success())
    });
    if found.is_none() {
        eprintln!("no Python with BenchExec (pip install benchexec, or set RIGOR_BENCHEXEC_PYTHON): test skipped");
    }
    found
}

fn contrib() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("contrib/benchexec")
}

fn tool_directory() -> PathBuf {
    rigor_bin().parent().unwrap().to_path_buf()
}

#[test]
fn tool_info_module_answers_every_task_as_expected() {
    let Some(python) = python() else { return };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut folders = vec![root.join("tests/svcomp")];
    folders.extend(svcomp_dir());
    for folder in folders {
        let o = Command::new(&python)
            .arg(contrib().join("test_rigor_tool.py"))
            .arg(tool_directory())
            .arg(&folder)
            .output()
            .unwrap();
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(
            o.status.success(),
            "{}:\n{out}\n{}",
            folder.display(),
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(out.contains(" 0 wrong"), "{out}");
    }
}

#[test]
fn benchexec_test_tool_info_accepts_the_module() {
    let Some(python) = python() else { return };
    let o = Command::new(&python)
        .args([
            "-m",
            "benchexec.test_tool_info",
            "rigor_tools.rigor",
            "--no-container",
            "--tool-directory",
        ])
        .arg(tool_directory())
        .env("PYTHONPATH", contrib())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains(&format!("Version: “{}”", env!("CARGO_PKG_VERSION"))),
        "{err}"
    );
    assert!(err.contains("'--property', 'PROPERTY.PRP'"), "{err}");
}
