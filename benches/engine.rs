//! Speed of the step engine (steps/s) and of the explorer (states/s) on the
//! 2019 training reachability problems 11-13.
//!
//! Run with `cargo bench --bench engine` (release profile). Reads the RERS
//! folder from `$RIGOR_RERS` or `../shared/rers`. Explorations of P12 and
//! P13 stop at `$RIGOR_BENCH_STATES` states (default 5,000,000).

use rigor::engine::Machine;
use rigor::explore::{explore, Options};
use rigor::runtime::{peak_resident_bytes, Budget};
use rigor::system::System;
use std::time::Instant;

fn main() {
    let dir = std::env::var("RIGOR_RERS")
        .unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/rers").to_string());
    let cap: u64 = std::env::var("RIGOR_BENCH_STATES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5_000_000);
    println!(
        "{:<10} {:>12} {:>14} {:>10} {:>12} {:>9} {:>10}",
        "problem", "steps/s", "states", "seconds", "states/s", "complete", "peak MiB"
    );
    for p in [11, 12, 13] {
        let path = format!("{dir}/2019/training-seq-reach/Problem{p}/Problem{p}.c");
        if !std::path::Path::new(&path).is_file() {
            eprintln!("{path} not found: skipped");
            continue;
        }
        let program = rigor::frontend::load(&path).expect("program loads");
        let m = Machine::compile(&program).expect("program compiles");

        // Engine alone: every input from the first 100,000 states.
        let sample = explore(
            &m,
            &Budget::unlimited().with_max_states(100_000),
            &Options::default(),
        );
        let mut states = Vec::new();
        let mut buf = vec![0; m.state_width()];
        for id in 0..sample.store.len() {
            sample.store.get(id, &mut buf);
            states.push(buf.clone());
        }
        let mut scratch = m.scratch();
        let mut next = vec![0; m.state_width()];
        let t = Instant::now();
        let mut steps = 0u64;
        let mut sink = 0u64;
        for _ in 0..3 {
            for s in &states {
                for i in 0..m.n_inputs() {
                    if m.step(&mut scratch, s, i, &mut next).is_ok() {
                        sink = sink.wrapping_add(next[0] as u64);
                    }
                    steps += 1;
                }
            }
        }
        let steps_per_s = steps as f64 / t.elapsed().as_secs_f64();
        std::hint::black_box(sink);

        // Explorer.
        let t = Instant::now();
        let ex = explore(
            &m,
            &Budget::unlimited().with_max_states(cap),
            &Options::default(),
        );
        let secs = t.elapsed().as_secs_f64();
        let peak = peak_resident_bytes().unwrap_or(0) as f64 / (1 << 20) as f64;
        println!(
            "{:<10} {:>12.0} {:>14} {:>10.2} {:>12.0} {:>9} {:>10.0}",
            format!("P{p}"),
            steps_per_s,
            ex.store.len(),
            secs,
            ex.store.len() as f64 / secs,
            ex.is_complete(),
            peak
        );
    }
}
