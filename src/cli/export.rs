//! `rigor export MODEL --aut FILE`: writes the reachable labelled transition
//! system of a program (or of a `.dot` / `.aut` model) as an Aldebaran
//! `.aut` file, with the labelling of `rers-semantics.md`.

use super::limits::LimitArgs;
use super::CliResult;
use crate::lts::{self, LoadOptions};

/// Arguments of `rigor export`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The program (.c or .java), or a .dot / .aut model.
    pub model: String,
    /// Write the system to this `.aut` file.
    #[arg(long, value_name = "FILE")]
    pub aut: String,
    /// Explore the traces of this Abbadingo log first.
    #[arg(long, value_name = "LOG")]
    pub seed_log: Option<String>,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// Runs `rigor export`.
pub fn run(args: &Args) -> CliResult {
    let l = lts::load(
        &args.model,
        &LoadOptions {
            limits: args.limits.limits(),
            seed_log: args.seed_log.clone(),
            progress: args.limits.progress(),
        },
    )?;
    std::fs::write(&args.aut, lts::aut::write(&l))
        .map_err(|e| format!("{}: cannot write: {e}", args.aut))?;
    eprintln!(
        "rigor: wrote {}: {} states, {} transitions, {} labels{}",
        args.aut,
        l.n_states,
        l.transitions.len(),
        l.labels.len(),
        if l.complete {
            ""
        } else {
            " (PARTIAL: the exploration stopped at a limit or faulted)"
        }
    );
    Ok(0)
}
