//! `rigor compare A B`: are two programs (e.g. the C and Java versions of one
//! problem) the same input/output transition system?
//!
//! Exit status: 0 equivalent (proved), 3 different (a shortest
//! distinguishing input sequence is printed), 4 unknown (a limit or an
//! engine fault stopped the search before it was complete), 5 the input
//! alphabets differ.

use std::io::Write;

use super::limits::LimitArgs;
use super::CliResult;
use crate::check::compare::{compare, CompareReport, Verdict};
use crate::check::{abstract_compare, structural};
use crate::engine::Machine;
use crate::frontend;

/// Arguments of `rigor compare`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The first program (.c or .java).
    pub a: String,
    /// The second program (.c or .java).
    pub b: String,
    /// Print a JSON report instead of text.
    #[arg(long)]
    pub json: bool,
    /// Do not try the proof on the interval abstractions (structure and
    /// lockstep search only; for measurements and cross-checks).
    #[arg(long)]
    pub no_abstraction: bool,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// Exit status for a verdict.
pub fn exit_code(v: &Verdict) -> i32 {
    match v {
        Verdict::Equivalent => 0,
        Verdict::Different { .. } => 3,
        Verdict::Unknown => 4,
        Verdict::AlphabetsDiffer { .. } => 5,
    }
}

/// Loads, compiles and compares two programs.
pub fn solve(
    a: &str,
    b: &str,
    limits: &LimitArgs,
    try_abstraction: bool,
) -> Result<CompareReport, Box<dyn std::error::Error>> {
    let pa = frontend::load(a)?;
    let pb = frontend::load(b)?;
    let ma = Machine::compile(&pa)?;
    let mb = Machine::compile(&pb)?;
    let mut limits = limits.limits();
    let start = std::time::Instant::now();
    let structure = structural::prove(&pa, &pb);
    // Without a proof by shape, try one on the two abstractions.
    let abstraction = match &structure {
        Ok(_) => Err(String::new()),
        Err(_) if !try_abstraction => Err("not tried (--no-abstraction)".to_string()),
        Err(_) => {
            // The proof that can answer for large programs: half the time.
            let share = crate::absint::AbsLimits {
                deadline: limits.timeout.map(|t| start + t / 2),
                ..crate::absint::AbsLimits::share_of(&limits, start)
            };
            abstract_compare::prove((&pa, &ma), (&pb, &mb), &share)
        }
    };
    // The lockstep search gets what the proofs left of the time.
    limits.timeout = limits.timeout.map(|t| t.saturating_sub(start.elapsed()));
    if structure.is_ok() || abstraction.is_ok() {
        // Proved; the lockstep search only runs as a bounded sanity check
        // (a difference here would be a bug in the proof).
        limits.max_states = Some(limits.max_states.unwrap_or(u64::MAX).min(SANITY_PAIRS));
    }
    let mut r = compare(&ma, &mb, a, b, &limits)?;
    // The proof, if any: its method and what it rests on.
    let proof = match (structure, abstraction) {
        (Ok(c), _) => Some((
            "structure",
            format!(
                "proved by the shape of the code: {} globals ({} with renamed values) and {} functions correspond",
                c.globals, c.renamed, c.functions
            ),
        )),
        (Err(shape), abstraction) => {
            r.notes
                .push(format!("not provable by the shape of the code: {shape}"));
            match abstraction {
                Ok(p) => Some((
                    "abstraction",
                    format!(
                        "proved on the interval abstractions ({} and {} abstract states): {} pairs of abstract-state sets, every step decided and the same on both sides",
                        p.states_a, p.states_b, p.pairs
                    ),
                )),
                Err(why) => {
                    r.notes
                        .push(format!("not provable on the abstractions: {why}"));
                    None
                }
            }
        }
    };
    if let Some((method, note)) = proof {
        match r.verdict {
            Verdict::Unknown | Verdict::Equivalent => {
                r.verdict = Verdict::Equivalent;
                r.method = method;
                r.notes.push(format!(
                    "{note}; {} state pairs also explored in lockstep without a difference",
                    r.pairs
                ));
            }
            _ => r.notes.push(format!(
                "internal: proved by {method} but the programs differ; the difference wins"
            )),
        }
    }
    Ok(r)
}

/// State pairs explored to sanity-check an equivalence proved without it.
const SANITY_PAIRS: u64 = 200_000;

/// The text form of a report.
pub fn text(r: &CompareReport) -> String {
    let mut s = match &r.verdict {
        Verdict::Equivalent if r.method == "structure" => {
            "equivalent: the two programs have the same code up to renaming (see the note)\n"
                .to_string()
        }
        Verdict::Equivalent if r.method == "abstraction" => {
            "equivalent: every step decided alike on the two programs' interval abstractions (see the note)\n"
                .to_string()
        }
        Verdict::Equivalent => format!(
            "equivalent: {} state pairs, {} transitions, exploration complete\n",
            r.pairs, r.transitions
        ),
        Verdict::Different { inputs, a, b } => format!(
            "different after {} input(s): [{}]\n  {}: {a}\n  {}: {b}\n",
            inputs.len(),
            inputs.join(", "),
            r.program_a,
            r.program_b
        ),
        Verdict::AlphabetsDiffer { only_a, only_b } => format!(
            "input alphabets differ: only in {}: [{}]; only in {}: [{}]\n",
            r.program_a,
            only_a.join(", "),
            r.program_b,
            only_b.join(", ")
        ),
        Verdict::Unknown => format!(
            "unknown: no difference in {} state pairs expanded ({} discovered), but the search is incomplete{}; NOT proved equivalent\n",
            r.expanded,
            r.pairs,
            r.stopped
                .as_ref()
                .map(|s| format!(" (stopped: {s:?})"))
                .unwrap_or_else(|| " (engine faults)".to_string())
        ),
    };
    for f in &r.faults {
        s.push_str(&format!("fault: {f}\n"));
    }
    for n in &r.notes {
        s.push_str(&format!("note: {n}\n"));
    }
    s
}

/// Runs `rigor compare`.
pub fn run(args: &Args) -> CliResult {
    let r = solve(&args.a, &args.b, &args.limits, !args.no_abstraction)?;
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&r)?)?;
    } else {
        write!(out, "{}", text(&r))?;
    }
    Ok(exit_code(&r.verdict))
}
