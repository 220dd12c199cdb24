//! Mutation fuzzing of every parser of rigor, on stable Rust: inputs are
//! mutations of real files (byte flips, truncations, splices, repeated and
//! dropped lines, deep nesting), drawn from a seeded generator so that a
//! run is reproducible. A parser may reject an input (that is what it is
//! for); it may not panic, report an internal error, or take longer than
//! the time bound.
//!
//! Shared by `examples/fuzz` (the long runs, `scripts/fuzz.sh`) and
//! `tests/fuzz.rs` (a small share in CI).

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

/// What a parser did with one input: `Ok(())` accepted or rejected it
/// cleanly, `Err(why)` a bug (a panic or an internal error).
pub type Verdict = Result<(), String>;

/// One parser under test.
pub struct Parser {
    /// Its name on the command line.
    pub name: &'static str,
    /// File name endings of its seed files.
    pub seeds: &'static [&'static str],
    /// Runs the parser on a text.
    pub run: fn(&str) -> Verdict,
}

/// An error message that betrays a bug rather than bad input.
fn clean(message: String) -> Verdict {
    if message.contains("panicked") || message.contains("internal") {
        Err(message)
    } else {
        Ok(())
    }
}

fn check<T, E: std::fmt::Display>(r: Result<T, E>) -> Verdict {
    r.map_or_else(|e| clean(e.to_string()), |_| Ok(()))
}

/// Every parser rigor has.
pub fn parsers() -> Vec<Parser> {
    use rigor::answers::read::{parse as answers, ReadOptions};
    vec![
        Parser {
            name: "c",
            seeds: &[".c"],
            run: |t| check(rigor::frontend::c::parse_c("fuzz.c", t)),
        },
        Parser {
            name: "java",
            seeds: &[".java"],
            run: |t| check(rigor::frontend::java::parse_java("Fuzz.java", t)),
        },
        Parser {
            name: "ltl",
            seeds: &["constraints-", "properties"],
            run: |t| {
                let file = rigor::ltl::syntax::parse_properties(t);
                std::hint::black_box(file.properties.len());
                Ok(())
            },
        },
        Parser {
            name: "ctl",
            seeds: &["properties.txt", "CTL"],
            run: |t| check(rigor::ctl::syntax::parse_properties("fuzz.txt", t)),
        },
        Parser {
            name: "answers",
            seeds: &["solutions.csv", "solutions.txt", "expected.csv"],
            run: |t| {
                let opts = ReadOptions::default();
                check(answers("Problem1-fuzz.csv", t, &opts))?;
                check(answers("Problem1-solutions.txt", t, &opts))
            },
        },
        Parser {
            name: "aut",
            seeds: &[".aut"],
            run: |t| check(rigor::lts::aut::parse("fuzz.aut", t)),
        },
        Parser {
            name: "dot",
            seeds: &[".dot"],
            run: |t| check(rigor::lts::dot::parse("fuzz.dot", t)),
        },
        Parser {
            name: "c-svcomp",
            seeds: &[".c"],
            run: |t| {
                let only = rigor::frontend::c::ErrorCalls::Only("reach_error".into());
                check(rigor::frontend::c::parse_c_with("fuzz.c", t, &only))
            },
        },
        Parser {
            name: "svcomp-task",
            seeds: &[".yml"],
            run: |t| check(rigor::svcomp::task::parse_task("fuzz.yml", t)),
        },
        Parser {
            name: "prp",
            seeds: &[".prp"],
            run: |t| check(rigor::svcomp::property::parse_property("fuzz.prp", t)),
        },
        Parser {
            name: "graphml",
            seeds: &[".graphml"],
            run: |t| check(rigor::svcomp::witness::read_violation("fuzz.graphml", t)),
        },
        Parser {
            name: "abbadingo",
            seeds: &["abbadingo", ".log", "traces"],
            run: |t| check(rigor::abbadingo::parse("fuzz.txt", t)),
        },
    ]
}

/// The seed files of `parser` under `roots`, smallest first, at most
/// `limit` of them (large programs make slow inputs).
pub fn seed_files(parser: &Parser, roots: &[PathBuf], limit: usize) -> Vec<String> {
    let mut found: Vec<(u64, PathBuf)> = Vec::new();
    let mut stack: Vec<PathBuf> = roots.to_vec();
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            let name = p.file_name().map(|n| n.to_string_lossy().to_string());
            let name = name.unwrap_or_default();
            let size = e.metadata().map_or(u64::MAX, |m| m.len());
            if parser.seeds.iter().any(|s| name.contains(s)) && size < 400_000 {
                found.push((size, p));
            }
        }
    }
    found.sort();
    let mut texts: Vec<String> = (found.into_iter().take(limit))
        .filter_map(|(_, p)| std::fs::read_to_string(p).ok())
        .collect();
    if parser.name == "abbadingo" {
        texts.extend(generated_logs(roots));
    }
    if parser.name == "graphml" {
        texts.extend(generated_witnesses());
    }
    texts
}

/// Abbadingo logs of random runs of the bundled programs (there are no
/// log files among the shared problems).
fn generated_logs(roots: &[PathBuf]) -> Vec<String> {
    let mut logs = Vec::new();
    for dir in [
        "reach-arith",
        "reach-invalid",
        "reach-counter",
        "ltl-silent",
    ] {
        let Some(program) = (roots.iter())
            .filter_map(|r| std::fs::read_dir(r.join(dir)).ok())
            .flat_map(|d| d.flatten().map(|e| e.path()))
            .find(|p| p.extension().is_some_and(|x| x == "c"))
        else {
            continue;
        };
        let Ok(p) = rigor::frontend::load(&program.to_string_lossy()) else {
            continue;
        };
        let Ok(m) = rigor::engine::Machine::compile(&p) else {
            continue;
        };
        logs.push(rigor::abbadingo::write(&rigor::abbadingo::random_runs(
            &m, 20, 15, 7,
        )));
    }
    logs
}

/// GraphML witnesses as `rigor svcomp` writes them (no witness files are
/// among the shared problems).
fn generated_witnesses() -> Vec<String> {
    use rigor::svcomp::witness::{correctness_witness, violation_witness, WitnessContext};
    let cx = WitnessContext {
        program_file: "p.c",
        program_text: "int main() { while (1) {} }",
        specification: "CHECK( init(main()), LTL(G ! call(reach_error())) )",
        architecture: "32bit",
    };
    vec![
        violation_witness(&cx, Some(12), &[3, 1, 4, 1, 5]),
        violation_witness(&cx, None, &[]),
        correctness_witness(&cx, Some(3), Some("(a == 1 && b <= 2) || (a >= 5)")),
    ]
}

/// A mutation of `seeds[k]` for some k.
pub fn mutate(rng: &mut Pcg64, seeds: &[String]) -> String {
    let base = seeds[rng.random_range(0..seeds.len())].as_bytes();
    let mut b = base.to_vec();
    for _ in 0..rng.random_range(1..=4) {
        let len = b.len().max(1);
        match rng.random_range(0..8) {
            // Byte flips.
            0 => {
                for _ in 0..rng.random_range(1..=8) {
                    let i = rng.random_range(0..len);
                    if i < b.len() {
                        b[i] ^= 1 << rng.random_range(0..8);
                    }
                }
            }
            // Truncation.
            1 => b.truncate(rng.random_range(0..len)),
            // Splice from another seed.
            2 => {
                let other = seeds[rng.random_range(0..seeds.len())].as_bytes();
                let from = rng.random_range(0..other.len().max(1));
                let n = rng
                    .random_range(0..=256)
                    .min(other.len() - from.min(other.len()));
                let at = rng.random_range(0..=b.len());
                let piece = other[from..from + n].to_vec();
                b.splice(at..at, piece);
            }
            // Deep nesting.
            3 => {
                let depth = rng.random_range(1..=20_000);
                let (open, close) = match rng.random_range(0..4) {
                    0 => ("(", ")"),
                    1 => ("{", "}"),
                    2 => ("!", ""),
                    _ => ("if (a) ", ""),
                };
                let at = rng.random_range(0..=b.len());
                let nest = format!("{}x{}", open.repeat(depth), close.repeat(depth));
                b.splice(at..at, nest.into_bytes());
            }
            // A line repeated or dropped.
            4 | 5 => {
                let text = String::from_utf8_lossy(&b).to_string();
                let mut lines: Vec<&str> = text.lines().collect();
                if !lines.is_empty() {
                    let i = rng.random_range(0..lines.len());
                    if rng.random_bool(0.5) {
                        lines.insert(i, lines[i]);
                    } else {
                        lines.remove(i);
                    }
                }
                b = lines.join("\n").into_bytes();
            }
            // A number made extreme.
            6 => {
                let at = rng.random_range(0..=b.len());
                let n = [
                    "2147483648",
                    "-2147483649",
                    "99999999999999999999",
                    "0x7fffffff",
                    "-0",
                ][rng.random_range(0..5)];
                b.splice(at..at, n.bytes());
            }
            // Random bytes.
            _ => {
                let at = rng.random_range(0..=b.len());
                let junk: Vec<u8> = (0..rng.random_range(1..=16))
                    .map(|_| rng.random())
                    .collect();
                b.splice(at..at, junk);
            }
        }
    }
    String::from_utf8_lossy(&b).into_owned()
}

/// What a run found.
#[derive(Debug, Default)]
pub struct Report {
    /// Inputs run.
    pub inputs: usize,
    /// Inputs that showed a bug: (input number, what happened).
    pub failures: Vec<(usize, String)>,
    /// The slowest input, seconds.
    pub slowest: f64,
}

/// Runs `inputs` mutations of `seeds` through `parser` (seeded with
/// `seed`), each on a thread of its own with a big stack and at most
/// `bound` of time. Failing inputs are written to `save` when given. A
/// hang ends the run (its thread cannot be stopped).
pub fn run(
    parser: &Parser,
    seeds: &[String],
    inputs: usize,
    seed: u64,
    bound: Duration,
    save: Option<&Path>,
) -> Report {
    let mut rng = Pcg64::seed_from_u64(seed);
    let mut report = Report::default();
    if seeds.is_empty() {
        return report;
    }
    std::panic::set_hook(Box::new(|_| {}));
    for k in 0..inputs {
        let text = mutate(&mut rng, seeds);
        let (tx, rx) = mpsc::channel();
        let run = parser.run;
        let input = text.clone();
        let started = Instant::now();
        let spawned = std::thread::Builder::new()
            .stack_size(256 << 20)
            .spawn(move || {
                let v = std::panic::catch_unwind(|| run(&input))
                    .unwrap_or_else(|_| Err("panicked".to_string()));
                let _ = tx.send(v);
            });
        if spawned.is_err() {
            report.failures.push((k, "cannot start a thread".into()));
            break;
        }
        let outcome = rx.recv_timeout(bound);
        let took = started.elapsed();
        report.slowest = report.slowest.max(took.as_secs_f64());
        // Slow inputs are kept too, for a look at what takes the time.
        if let (Some(dir), true) = (save, took > bound / 4) {
            let _ = std::fs::create_dir_all(dir);
            let _ = std::fs::write(dir.join(format!("slow-{}-{seed}-{k}", parser.name)), &text);
        }
        report.inputs += 1;
        let failure = match outcome {
            Ok(Ok(())) => None,
            Ok(Err(why)) => Some(why),
            Err(_) => Some(format!("no answer within {bound:?}")),
        };
        if let Some(why) = failure {
            if let Some(dir) = save {
                let _ = std::fs::create_dir_all(dir);
                let _ = std::fs::write(dir.join(format!("{}-{seed}-{k}", parser.name)), &text);
            }
            let hang = why.starts_with("no answer");
            report.failures.push((k, why));
            if hang {
                break;
            }
        }
    }
    let _ = std::panic::take_hook();
    report
}
