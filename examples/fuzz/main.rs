//! Fuzzes rigor's parsers with mutations of the real files under
//! `../shared/rers`, `../shared/svcomp` and `problems/` (see `harness`).
//!
//! `cargo run --release --example fuzz -- [INPUTS] [SEED] [PARSER...]`
//!
//! Prints, per parser, the inputs run, the failures and the slowest input;
//! failing inputs are saved under `target/fuzz-failures/`. Exit 1 when any
//! parser failed.

mod harness;

use std::path::PathBuf;
use std::time::Duration;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let inputs: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let seed: u64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(1);
    let only: Vec<&String> = args.iter().skip(2).collect();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let roots = [
        root.join("problems"),
        root.join("../shared/rers"),
        root.join("../shared/svcomp"),
        root.join("tests/svcomp"),
    ];
    let save = root.join("target/fuzz-failures");
    let mut failed = false;
    // Each parser in a process of its own (unless one is named): a hang
    // leaves a thread behind that would weigh on the next parsers.
    if only.len() != 1 {
        let me = std::env::current_exe().expect("the fuzz binary");
        for p in harness::parsers() {
            if !only.is_empty() && !only.iter().any(|o| *o == p.name) {
                continue;
            }
            let status = std::process::Command::new(&me)
                .args([&inputs.to_string(), &seed.to_string(), p.name])
                .status()
                .expect("run the fuzz binary");
            failed |= !status.success();
        }
        std::process::exit(i32::from(failed));
    }
    for p in harness::parsers() {
        if !only.iter().any(|o| *o == p.name) {
            continue;
        }
        let seeds = harness::seed_files(&p, &roots, 40);
        let r = harness::run(
            &p,
            &seeds,
            inputs,
            seed,
            Duration::from_secs(20),
            Some(&save),
        );
        println!(
            "{:<10} {:>3} seeds {:>8} inputs {:>4} failures  slowest {:.2} s",
            p.name,
            seeds.len(),
            r.inputs,
            r.failures.len(),
            r.slowest
        );
        for (k, why) in r.failures.iter().take(5) {
            println!("    input {k}: {why}");
        }
        failed |= !r.failures.is_empty();
    }
    std::process::exit(i32::from(failed));
}
