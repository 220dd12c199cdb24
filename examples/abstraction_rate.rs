//! Measures the cost of the interval abstraction per abstract state: the
//! first round that completes (or what a limit stopped), its abstract
//! states, expansions, seconds and expansions per second, per program.
//!
//! `cargo run --release --example abstraction_rate -- SECONDS THREADS PROGRAM...`

use std::time::{Duration, Instant};

use rigor::absint::explore_abstract_best;
use rigor::engine::Machine;
use rigor::runtime::Budget;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 3 {
        eprintln!("usage: abstraction_rate SECONDS THREADS PROGRAM...");
        std::process::exit(2);
    }
    let seconds: u64 = args[0].parse().expect("SECONDS");
    let threads: usize = args[1].parse().expect("THREADS");
    println!("program\tdone\tstates\texpansions\tseconds\texpansions_per_s\tnote");
    for program in &args[2..] {
        let loaded = rigor::frontend::load(program).map_err(|e| e.to_string());
        let compiled = loaded.and_then(|p| {
            let m = Machine::compile(&p).map_err(|e| e.to_string())?;
            Ok((p, m))
        });
        let (p, m) = match compiled {
            Ok(pm) => pm,
            Err(e) => {
                eprintln!("{program}: {e}");
                continue;
            }
        };
        let budget = Budget::unlimited().with_timeout(Duration::from_secs(seconds));
        let started = Instant::now();
        let result = explore_abstract_best(&p, &m, &budget, threads, |_| (0, ()));
        let secs = started.elapsed().as_secs_f64();
        let (done, states, expansions, note) = match result {
            Ok((g, ())) => (true, g.n_states(), g.expansions, String::new()),
            Err(u) => match &u.partial {
                Some(g) => (false, g.n_states(), g.expansions, u.why.to_string()),
                None => (false, 0, 0, u.why.to_string()),
            },
        };
        println!(
            "{program}\t{done}\t{states}\t{expansions}\t{secs:.1}\t{:.0}\t{note}",
            expansions as f64 / secs.max(1e-9)
        );
    }
}
