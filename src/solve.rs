//! The `rigor solve` pipeline: every problem of a RERS folder.
//!
//! A RERS folder holds, per problem, the program in C and/or Java, property
//! files (`propertiesN.txt` in 2012, `constraints-*.txt` later) and, in the
//! copies with solutions, solution files. rigor never reads the solutions:
//! only programs and property files are picked up here ([`find_problems`]).
//! [`solve_problems`] runs the reachability and LTL pipelines on each and
//! hands over each problem's reports as soon as they are done.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::check::ltl::{LtlOptions, LtlReport};
use crate::check::reach::{ReachOptions, ReachReport};
use crate::check::InputError;
use crate::explore::Observer;
use crate::runtime::Budget;

/// What solving one problem gave.
pub struct Solved<'a> {
    /// The problem.
    pub problem: &'a Problem,
    /// Its reachability report, or why its program could not be read.
    pub reach: Result<ReachReport, InputError>,
    /// Its LTL report, when it has a property file.
    pub ltl: Option<Result<LtlReport, InputError>>,
    /// Wall time for both, seconds.
    pub seconds: f64,
}

/// How `rigor solve` runs each problem.
#[derive(Clone, Default)]
pub struct SolveOptions {
    /// Progress of each exploration.
    pub observer: Option<Observer>,
    /// Confirm witnesses and counterexamples on the natively compiled
    /// original (gcc, javac).
    pub validate: bool,
    /// Threads of the searches and of the LTL checker (None: all cores).
    pub threads: Option<usize>,
    /// Where the invariant engine's queries run
    /// ([`ReachOptions::invariant_worker`]).
    pub invariant_worker: Option<crate::horn::WorkerCommand>,
}

/// Solves each problem in turn: reachability, then LTL when there is a
/// property file, each stage with a budget from `budget` (called when the
/// stage starts, so limits apply to each separately). `done` gets each
/// problem's reports as soon as they are complete. When the budget's
/// cancellation flag is raised, the problems not started are left out.
pub fn solve_problems(
    problems: &[Problem],
    budget: impl Fn() -> Budget,
    opts: &SolveOptions,
    mut done: impl FnMut(Solved),
) {
    for p in problems {
        // An interrupted run ends after the problem it was on.
        if (budget().cancel).is_some_and(|c| c.is_cancelled()) {
            break;
        }
        let started = std::time::Instant::now();
        let program = p.program.to_string_lossy().to_string();
        let reach_opts = ReachOptions {
            abstraction: true,
            seed_log: None,
            observer: opts.observer.clone(),
            certify: true,
            keep_certificate: false,
            on_verdict: None,
            threads: opts.threads,
            invariant_worker: opts.invariant_worker.clone(),
        };
        let mut reach = crate::check::reach::solve(&program, &budget(), &reach_opts);
        if let (true, Ok(r)) = (opts.validate, reach.as_mut()) {
            confirm_natively(&program, r, NATIVE_RUN_TIMEOUT);
        }
        let ltl = p.properties.as_ref().map(|props| {
            let ltl_opts = LtlOptions {
                threads: opts.threads,
                quotient: true,
                abstraction: true,
                observer: opts.observer.clone(),
                certify: true,
                keep_certificate: false,
                on_verdict: None,
            };
            let mut r =
                crate::check::ltl::solve(&program, &props.to_string_lossy(), &budget(), &ltl_opts);
            if let (true, Ok(r)) = (opts.validate, r.as_mut()) {
                confirm_lassos_natively(&program, r, NATIVE_RUN_TIMEOUT);
            }
            r
        });
        done(Solved {
            problem: p,
            reach,
            ltl,
            seconds: started.elapsed().as_secs_f64(),
        });
    }
}

/// Runs the counterexample of every violated property of `r` on the
/// original `program` compiled natively (gcc for C, javac for Java,
/// [`crate::validate::lasso`]); a property whose counterexample the
/// native program does not print becomes unknown. What happened is said
/// in `r`'s notes.
pub fn confirm_lassos_natively(program: &str, r: &mut LtlReport, timeout: std::time::Duration) {
    use crate::ltl::lasso::LassoWord;
    use crate::validate::lasso::confirm_lassos;
    let lassos: Vec<(usize, LassoWord)> = (r.verdicts.iter())
        .filter(|v| v.verdict == Some(false))
        .filter_map(|v| {
            Some((
                v.property,
                LassoWord::from_rers(v.counterexample.as_ref()?)?,
            ))
        })
        .collect();
    if lassos.is_empty() {
        return;
    }
    let checks = crate::frontend::load(program)
        .map_err(|e| e.to_string())
        .and_then(|p| {
            confirm_lassos(Path::new(program), &p.inputs, &p.outputs, &lassos, timeout)
                .map_err(|e| e.to_string())
        });
    match checks {
        Err(e) => r
            .notes
            .push(format!("counterexamples not validated natively: {e}")),
        Ok(checks) => {
            let mut refuted = Vec::new();
            for c in checks.iter().filter(|c| !c.confirmed) {
                if let Some(v) = r.verdicts.iter_mut().find(|v| v.property == c.property) {
                    v.verdict = None;
                    v.note = Some(format!(
                        "internal: the counterexample is not confirmed natively ({:?}, printed {})",
                        c.native,
                        c.word.join(" ")
                    ));
                    refuted.push(c.property.to_string());
                }
            }
            tell_confirmed(&mut r.notes, "counterexamples", checks.len(), &refuted);
        }
    }
}

/// How long one witness may run natively.
pub const NATIVE_RUN_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// Runs the witness of every reachable label of `r` on the original
/// `program` compiled natively (gcc for C, javac for Java); a label whose
/// witness is not confirmed there becomes unknown. What happened is said
/// in `r`'s notes.
pub fn confirm_natively(program: &str, r: &mut ReachReport, timeout: std::time::Duration) {
    use crate::validate::java::{validate_java, JavaHarness};
    use crate::validate::{validate, Harness};
    let named: Vec<(u32, Vec<String>)> = (r.verdicts.iter())
        .filter(|v| v.verdict == Some(true))
        .filter_map(|v| Some((v.property, v.witness.clone()?)))
        .collect();
    if named.is_empty() {
        return;
    }
    let path = Path::new(program);
    let checks = if program.ends_with(".java") {
        JavaHarness::build(path).and_then(|h| validate_java(&h, &named, timeout))
    } else {
        let inputs = crate::frontend::load(program)
            .map(|p| p.inputs)
            .unwrap_or_default();
        let value = |name: &String| inputs.iter().find(|s| &s.name == name).map(|s| s.value);
        let values: Vec<(u32, Vec<i32>)> = (named.iter())
            .map(|(l, w)| (*l, w.iter().filter_map(value).collect()))
            .collect();
        Harness::build(path).and_then(|h| validate(&h, &values, timeout))
    };
    match checks {
        Err(e) => r
            .notes
            .push(format!("witnesses not validated natively: {e}")),
        Ok(checks) => {
            let mut refuted = Vec::new();
            for c in checks.iter().filter(|c| !c.confirmed) {
                if let Some(v) = r.verdicts.iter_mut().find(|v| v.property == c.label) {
                    v.verdict = None;
                    v.engine = None;
                    refuted.push(format!("{} ({:?})", c.label, c.native));
                }
            }
            tell_confirmed(&mut r.notes, "witnesses", checks.len(), &refuted);
        }
    }
}

/// Notes how many of `checked` witnesses (or counterexamples: `what`)
/// the native program confirmed, and which answers it left unknown.
fn tell_confirmed(notes: &mut Vec<String>, what: &str, checked: usize, refuted: &[String]) {
    notes.push(format!(
        "{} of {checked} {what} confirmed by the natively compiled program",
        checked - refuted.len()
    ));
    if !refuted.is_empty() {
        notes.push(format!(
            "internal: {what} not confirmed natively, answers unknown: {}",
            refuted.join(", ")
        ));
    }
}

/// One problem found in a folder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// Problem name (`11` for `Problem11.c`, `m135` for `m135_Reach.java`).
    pub name: String,
    /// The program to solve (C preferred when both languages are present).
    pub program: PathBuf,
    /// The other-language version of the same problem, if any.
    pub twin: Option<PathBuf>,
    /// The LTL/CTL property file, if one is found beside the program.
    pub properties: Option<PathBuf>,
}

/// Whether a file is a program rigor can read.
fn is_program(p: &Path) -> bool {
    let name = p
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    let ext = p
        .extension()
        .map(|e| e.to_string_lossy().to_string())
        .unwrap_or_default();
    match ext.as_str() {
        "c" => true,
        "java" => name != "Errors.java",
        _ => false,
    }
}

/// Whether a file is a property file (never a solution file).
fn is_property_file(p: &Path) -> bool {
    let name = p
        .file_name()
        .map(|n| n.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    if name.contains("solution") || !name.ends_with(".txt") {
        return false;
    }
    name.starts_with("properties") || name.starts_with("constraints")
}

/// The property file for problem `name` in `dir`: `propertiesN.txt`,
/// `constraints-ProblemN.txt`, or the folder's only `constraints-*.txt`.
fn properties_for(dir: &Path, name: &str, files: &[PathBuf]) -> Option<PathBuf> {
    let here: Vec<&PathBuf> = files
        .iter()
        .filter(|f| f.parent() == Some(dir) && is_property_file(f))
        .collect();
    let named = |f: &&&PathBuf| {
        let n = f
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        n == format!("properties{name}.txt") || n == format!("constraints-Problem{name}.txt")
    };
    if let Some(f) = here.iter().find(named) {
        return Some((*f).clone());
    }
    let generic: Vec<&&PathBuf> = here
        .iter()
        .filter(|f| {
            f.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("constraints"))
        })
        .collect();
    (generic.len() == 1).then(|| (*generic[0]).clone())
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let p = e.path();
        if e.file_type()?.is_dir() {
            walk(&p, out)?;
        } else {
            out.push(p);
        }
    }
    Ok(())
}

/// The problems under `dir` (or the single program `dir` names), in path
/// order. Problems with the same name in the same folder are one problem.
pub fn find_problems(dir: &Path) -> std::io::Result<Vec<Problem>> {
    let mut files = Vec::new();
    if dir.is_file() {
        files.push(dir.to_path_buf());
    } else {
        walk(dir, &mut files)?;
    }
    let mut by_key: BTreeMap<(PathBuf, String), Vec<PathBuf>> = BTreeMap::new();
    for f in files.iter().filter(|f| is_program(f)) {
        let name = crate::answers::naming::problem_name(&f.to_string_lossy());
        let parent = f.parent().map(Path::to_path_buf).unwrap_or_default();
        by_key.entry((parent, name)).or_default().push(f.clone());
    }
    let mut out = Vec::new();
    for ((parent, name), mut progs) in by_key {
        // C before Java; the shortest name first (`Problem1403.c` before
        // `Problem1403_opt.c`).
        progs.sort_by_key(|p| {
            (
                p.extension().is_some_and(|e| e == "java"),
                p.as_os_str().len(),
            )
        });
        let program = progs[0].clone();
        let twin = progs
            .iter()
            .find(|p| p.extension() != program.extension())
            .cloned();
        let properties = properties_for(&parent, &name, &files);
        out.push(Problem {
            name,
            program,
            twin,
            properties,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_programs_and_properties_but_never_solutions() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path();
        for f in [
            "Problem1.c",
            "Problem1.java",
            "Errors.java",
            "properties1.txt",
            "Problem1-solutions.txt",
            "sub/Problem2.c",
            "sub/constraints-RERS.txt",
            "sub/constraints-solution.csv",
        ] {
            let path = p.join(f);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "").unwrap();
        }
        let probs = find_problems(p).unwrap();
        assert_eq!(probs.len(), 2);
        assert_eq!(probs[0].name, "1");
        assert_eq!(probs[0].program, p.join("Problem1.c"));
        assert_eq!(probs[0].twin, Some(p.join("Problem1.java")));
        assert_eq!(probs[0].properties, Some(p.join("properties1.txt")));
        assert_eq!(probs[1].name, "2");
        assert_eq!(
            probs[1].properties,
            Some(p.join("sub/constraints-RERS.txt"))
        );
    }
}
