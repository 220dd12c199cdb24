//! `rigor export MODEL --aut FILE`: writes the reachable labelled transition
//! system of a program (or of a `.dot` / `.aut` model) as an Aldebaran
//! `.aut` file, with the labelling of `rers-semantics.md`.

use super::limits::LimitArgs;
use super::CliResult;
use crate::check::ctl::{load_model, LoadOptions};
use crate::error::write_file_with;
use crate::lts;

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
    /// Limits and progress.
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// Runs `rigor export`.
pub fn run(args: &Args) -> CliResult {
    let opts = LoadOptions {
        seed_log: args.seed_log.clone(),
        observer: args.limits.observer(),
    };
    let l = load_model(&args.model, &args.limits.budget()?, &opts)?;
    drop(opts);
    write_file_with(&args.aut, |out| lts::aut::write_to(&*l, out))?;
    eprintln!(
        "rigor: wrote {}: {} states, {} transitions, {} labels{}",
        args.aut,
        l.n_states(),
        l.n_transitions(),
        l.label_names().len(),
        if l.is_complete() {
            ""
        } else {
            " (PARTIAL: the exploration stopped at a limit or faulted)"
        }
    );
    Ok(0)
}
