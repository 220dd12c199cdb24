//! `rigor solve DIR`: every problem of a RERS folder, answers written per
//! problem, and a summary table.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::limits::LimitArgs;
use super::CliResult;
use crate::solve::find_problems;

/// Arguments of `rigor solve`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// A RERS problem folder (searched recursively), or one program.
    pub dir: String,
    /// Where to write the answer CSVs (`Problem<N>-reach.csv`, and
    /// `Problem<N>-ltl.csv` when a property file is found) and witnesses.
    #[arg(long, default_value = "rigor-answers")]
    pub out: String,
    /// Limits, applied to each problem separately.
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// One line of the summary table.
struct Row {
    problem: String,
    program: String,
    labels: usize,
    reachable: usize,
    unreachable: usize,
    unknown: usize,
    states: u64,
    seconds: f64,
    /// LTL properties `true/false/unknown`, when a property file was found.
    ltl: String,
    note: String,
}

fn write_file(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("{}: cannot write: {e}", path.display()))
}

/// File-name stem of a problem's answers: `Problem11`, or `m135`.
fn answer_stem(name: &str) -> String {
    if name.chars().all(|c| c.is_ascii_digit()) {
        format!("Problem{name}")
    } else {
        name.to_string()
    }
}

/// Runs `rigor solve`.
pub fn run(args: &Args) -> CliResult {
    let dir = Path::new(&args.dir);
    if !dir.exists() {
        return Err(format!("{}: no such file or directory", args.dir).into());
    }
    let problems = find_problems(dir).map_err(|e| format!("{}: {e}", args.dir))?;
    if problems.is_empty() {
        return Err(format!("{}: no RERS program (.c or .java) found", args.dir).into());
    }
    let out_dir = PathBuf::from(&args.out);
    std::fs::create_dir_all(&out_dir).map_err(|e| format!("{}: cannot create: {e}", args.out))?;
    let mut rows = Vec::new();
    let mut failures = 0;
    for p in &problems {
        let program = p.program.to_string_lossy().to_string();
        let started = std::time::Instant::now();
        match super::reach::solve(&program, &args.limits, true) {
            Ok(r) => {
                let (reachable, unreachable, unknown) = r.counts();
                let stem = answer_stem(&p.name);
                write_file(
                    &out_dir.join(format!("{stem}-reach.csv")),
                    &super::reach::csv(&r),
                )?;
                write_file(
                    &out_dir.join(format!("{stem}-reach-witnesses.txt")),
                    &super::reach::witnesses(&r),
                )?;
                let note = match (&r.stopped, r.faults.is_empty()) {
                    (Some(s), _) => format!("stopped: {s:?}"),
                    (None, false) => format!("{} faulty step(s)", r.faults.len()),
                    _ => String::new(),
                };
                rows.push(Row {
                    problem: p.name.clone(),
                    program: program.clone(),
                    labels: r.verdicts.len(),
                    reachable,
                    unreachable,
                    unknown,
                    states: r.states,
                    seconds: started.elapsed().as_secs_f64(),
                    ltl: String::new(),
                    note,
                });
            }
            Err(e) => {
                failures += 1;
                eprintln!("rigor: {e}");
                rows.push(Row {
                    problem: p.name.clone(),
                    program: program.clone(),
                    labels: 0,
                    reachable: 0,
                    unreachable: 0,
                    unknown: 0,
                    states: 0,
                    seconds: started.elapsed().as_secs_f64(),
                    ltl: String::new(),
                    note: "error (see above)".into(),
                });
            }
        }
        if let (Some(props), Some(row)) = (&p.properties, rows.last_mut()) {
            let stem = answer_stem(&p.name);
            let props = props.to_string_lossy().to_string();
            match super::ltl::solve(&program, &props, &args.limits, None, true, true) {
                Ok(r) => {
                    write_file(
                        &out_dir.join(format!("{stem}-ltl.csv")),
                        &super::ltl::csv(&r),
                    )?;
                    write_file(
                        &out_dir.join(format!("{stem}-ltl-witnesses.txt")),
                        &super::ltl::witnesses(&r),
                    )?;
                    let count =
                        |b: Option<bool>| r.verdicts.iter().filter(|v| v.verdict == b).count();
                    row.ltl = format!(
                        "{}/{}/{}",
                        count(Some(true)),
                        count(Some(false)),
                        count(None)
                    );
                    row.seconds = started.elapsed().as_secs_f64();
                }
                Err(e) => {
                    failures += 1;
                    eprintln!("rigor: {e}");
                    row.ltl = "error".into();
                }
            }
        }
    }
    let mut o = std::io::stdout().lock();
    writeln!(
        o,
        "{:<8} {:>6} {:>9} {:>11} {:>7} {:>11} {:>12} {:>9}  program",
        "problem",
        "labels",
        "reachable",
        "unreachable",
        "unknown",
        "states",
        "ltl t/f/?",
        "time(s)"
    )?;
    for r in &rows {
        writeln!(
            o,
            "{:<8} {:>6} {:>9} {:>11} {:>7} {:>11} {:>12} {:>9.2}  {}{}",
            r.problem,
            r.labels,
            r.reachable,
            r.unreachable,
            r.unknown,
            r.states,
            if r.ltl.is_empty() { "-" } else { &r.ltl },
            r.seconds,
            r.program,
            if r.note.is_empty() {
                String::new()
            } else {
                format!("  ({})", r.note)
            }
        )?;
    }
    eprintln!("rigor: answers written to {}", out_dir.display());
    Ok(if failures == 0 { 0 } else { 1 })
}
