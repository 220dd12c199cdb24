//! Measures seeded exploration: error labels found under a fixed state
//! limit, breadth-first from the initial state versus seeded with an
//! Abbadingo log of the program's own random runs (stand-ins for the
//! industrial logs, which the C and Java reachability problems lack).
//!
//! `cargo run --release --example seeding -- MAX_STATES TRACES LENGTH PROGRAM...`

use rigor::abbadingo;
use rigor::engine::Machine;
use rigor::explore::{explore, Options};
use rigor::runtime::Budget;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 4 {
        eprintln!("usage: seeding MAX_STATES TRACES LENGTH PROGRAM...");
        std::process::exit(2);
    }
    let max_states: u64 = args[0].parse().expect("MAX_STATES");
    let traces: usize = args[1].parse().expect("TRACES");
    let length: usize = args[2].parse().expect("LENGTH");
    println!("program\tlabels\tmax_states\tlog\tunseeded_found\tseeded_found\tseed_states\tunseeded_depth\tseeded_depth\tunseeded_complete\tseeded_complete");
    for program in &args[3..] {
        let p = match rigor::frontend::load(program) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("{e}");
                continue;
            }
        };
        let m = Machine::compile(&p).expect("compiles");
        let runs = abbadingo::random_runs(&m, traces, length, 2019);
        // Through the text format, as `--seed-log` reads it.
        let log = abbadingo::parse("log", &abbadingo::write(&runs)).expect("own log parses");
        let seeds = log.input_sequences(&m).expect("own inputs");
        let limits = Budget::unlimited().with_max_states(max_states);
        let run = |seeds: Vec<Vec<usize>>| {
            explore(
                &m,
                &limits,
                &Options {
                    stop_when_all_errors_found: true,
                    seeds,
                    ..Options::default()
                },
            )
        };
        let plain = run(Vec::new());
        let seeded = run(seeds);
        let seed_states: usize = runs.iter().map(|r| r.len() / 2).sum();
        println!(
            "{}\t{}\t{}\t{}x{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
            rigor::answers::naming::problem_name(program),
            m.error_labels.len(),
            max_states,
            traces,
            length,
            plain.errors.len(),
            seeded.errors.len(),
            seed_states,
            plain.depth,
            seeded.depth,
            plain.is_complete(),
            seeded.is_complete()
        );
    }
}
