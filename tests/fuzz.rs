//! A small share of the parser fuzzing (`scripts/fuzz.sh` runs 100,000
//! inputs per parser): mutations of the real files, seeded, each bounded
//! in time; no parser may panic, report an internal error or hang.

#[path = "../examples/fuzz/harness.rs"]
#[allow(dead_code)]
mod harness;

use std::path::PathBuf;
use std::time::Duration;

#[test]
fn no_parser_panics_or_hangs_on_mutated_files() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let roots = [
        root.join("problems"),
        root.join("../shared/rers"),
        root.join("../shared/svcomp"),
        root.join("tests/svcomp"),
    ];
    for p in harness::parsers() {
        let seeds = harness::seed_files(&p, &roots, 12);
        let r = harness::run(&p, &seeds, 300, 7, Duration::from_secs(60), None);
        assert!(
            r.failures.is_empty(),
            "{}: {} failure(s), first: {:?}",
            p.name,
            r.failures.len(),
            r.failures.first()
        );
        assert!(seeds.is_empty() || r.inputs == 300, "{}", p.name);
    }
}
