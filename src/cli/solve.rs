//! `rigor solve DIR`: every problem of a RERS folder, answers written per
//! problem, and a summary table.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::limits::LimitArgs;
use super::CliResult;
use crate::answers::naming::answer_stem;
use crate::error::{write_file, Error};
use crate::solve::{find_problems, solve_problems, SolveOptions};

/// Arguments of `rigor solve`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// A RERS problem folder (searched recursively), or one program.
    pub dir: String,
    /// Where to write the answer CSVs (`Problem<N>-reach.csv`, and
    /// `Problem<N>-ltl.csv` when a property file is found) and witnesses.
    #[arg(long, default_value = "rigor-answers")]
    pub out: String,
    /// Run every reachable label's witness and every violated property's
    /// counterexample on the original program compiled natively (gcc,
    /// javac); one not confirmed there leaves its answer unknown.
    #[arg(long)]
    pub validate: bool,
    /// Also write an HTML report here (tables, plots, witnesses; one
    /// self-contained file).
    #[arg(long, value_name = "FILE.html")]
    pub report: Option<String>,
    /// Solution files to score the report's answers against (RERS CSV or
    /// text); read for the report only, after solving.
    #[arg(long, num_args = 1.., value_name = "FILES", requires = "report")]
    pub solution: Vec<String>,
    /// Threads of the searches and of the LTL checker (default: all
    /// cores). The answers are the same for any number.
    #[arg(long)]
    pub threads: Option<usize>,
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

/// Runs `rigor solve`.
pub fn run(args: &Args) -> CliResult {
    let dir = Path::new(&args.dir);
    if !dir.exists() {
        return Err(Error::Usage(format!(
            "{}: no such file or directory",
            args.dir
        )));
    }
    let problems = find_problems(dir).map_err(|e| Error::Usage(format!("{}: {e}", args.dir)))?;
    if problems.is_empty() {
        return Err(Error::Usage(format!(
            "{}: no RERS program (.c or .java) found",
            args.dir
        )));
    }
    let out_dir = PathBuf::from(&args.out);
    std::fs::create_dir_all(&out_dir).map_err(|e| Error::write(&args.out, e))?;
    args.limits.budget()?;
    let mut rows = Vec::new();
    let mut failures = 0;
    let mut written: Result<(), Error> = Ok(());
    let budget = || args.limits.budget().unwrap_or_default();
    let mut page = crate::report::Page::new(args.dir.clone());
    solve_problems(
        &problems,
        budget,
        &SolveOptions {
            observer: args.limits.observer(),
            validate: args.validate,
            threads: args.threads,
            invariant_worker: super::horn_worker::command(),
        },
        |done| {
            let p = done.problem;
            let program = p.program.to_string_lossy().to_string();
            let stem = answer_stem(&p.name);
            let mut write = |name: String, text: String| {
                if written.is_ok() {
                    written = write_file(out_dir.join(name), &text);
                }
            };
            let mut row = Row {
                problem: p.name.clone(),
                program: program.clone(),
                labels: 0,
                reachable: 0,
                unreachable: 0,
                unknown: 0,
                states: 0,
                seconds: done.seconds,
                ltl: String::new(),
                note: String::new(),
            };
            if args.report.is_some() {
                add_to_page(&mut page, &done);
            }
            match &done.reach {
                Ok(r) => {
                    (row.reachable, row.unreachable, row.unknown) = r.counts();
                    row.labels = r.verdicts.len();
                    row.states = r.states;
                    for n in &r.notes {
                        eprintln!("rigor: {}: {n}", p.name);
                    }
                    write(format!("{stem}-reach.csv"), r.csv());
                    write(format!("{stem}-reach-witnesses.txt"), r.witnesses());
                    row.note = match (&r.stopped, r.faults.is_empty()) {
                        (Some(s), _) => format!("stopped: {s:?}"),
                        (None, false) => format!("{} faulty step(s)", r.faults.len()),
                        _ => String::new(),
                    };
                }
                Err(e) => {
                    failures += 1;
                    eprintln!("rigor: {e}");
                    row.note = "error (see above)".into();
                }
            }
            match &done.ltl {
                Some(Ok(r)) => {
                    for n in &r.notes {
                        eprintln!("rigor: {}: {n}", p.name);
                    }
                    write(format!("{stem}-ltl.csv"), r.csv());
                    write(format!("{stem}-ltl-witnesses.txt"), r.witnesses());
                    let count =
                        |b: Option<bool>| r.verdicts.iter().filter(|v| v.verdict == b).count();
                    row.ltl = format!(
                        "{}/{}/{}",
                        count(Some(true)),
                        count(Some(false)),
                        count(None)
                    );
                }
                Some(Err(e)) => {
                    failures += 1;
                    eprintln!("rigor: {e}");
                    row.ltl = "error".into();
                }
                None => {}
            }
            rows.push(row);
        },
    );
    written?;
    if let Some(path) = &args.report {
        super::report::finish_page(&mut page, &args.solution, &budget(), path)?;
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

/// Adds a solved problem's reports (or its error) to the page.
fn add_to_page(page: &mut crate::report::Page, done: &crate::solve::Solved) {
    let p = done.problem;
    let program = p.program.to_string_lossy();
    match &done.reach {
        Ok(r) => {
            page.add_report(&serde_json::to_value(r).unwrap_or_default());
        }
        Err(e) => page.add_error(&p.name, &program, e.to_string()),
    }
    match &done.ltl {
        Some(Ok(r)) => {
            page.add_report(&serde_json::to_value(r).unwrap_or_default());
        }
        Some(Err(e)) => page.add_error(&p.name, &program, e.to_string()),
        None => {}
    }
}
