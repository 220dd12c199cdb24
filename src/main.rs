//! The `rigor` command line. Each subcommand lives in `rigor::cli::<name>`;
//! this file only dispatches. Exit status: 0 done, 1 bad input or internal
//! error (message on stderr), 2 usage error (from clap), 130 interrupted
//! (after printing the answers proved so far).

use clap::{Parser, Subcommand};
use rigor::cli;
use rigor::runtime::memory::Reserve;

/// An allocation that fails under a hard memory cap stops the run with its
/// answers instead of aborting it.
#[global_allocator]
static ALLOCATOR: Reserve = Reserve;

/// rigor: a verifier for RERS problems.
#[derive(Parser)]
#[command(name = "rigor", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print the program's summary (alphabets, globals, error labels).
    Info(cli::info::Args),
    /// Reachability of error labels: RERS CSV `problem,label,true|false`.
    Reach(cli::reach::Args),
    /// LTL properties: RERS CSV `problem,property,true|false`.
    Ltl(cli::ltl::Args),
    /// Replay an Abbadingo log through a program; report mismatches.
    Replay(cli::replay::Args),
    /// Write a program's (or model's) transition system as a .aut file.
    Export(cli::export::Args),
    /// Action-based CTL on a program, .aut or .dot model: RERS CSV.
    Ctl(cli::ctl::Args),
    /// Compare two programs' input/output behaviour (e.g. C against Java).
    Compare(cli::compare::Args),
    /// Confirms reachability witnesses on the original program (gcc or javac).
    Validate(cli::validate::Args),
    /// Re-checks a certificate of unreachability (independent SMT checker).
    CheckCertificate(cli::check_certificate::Args),
    /// Solves every problem of a RERS folder and writes the answer CSVs.
    Solve(cli::solve::Args),
    /// SV-COMP tasks (.yml) or a program with a property file: TRUE / FALSE / UNKNOWN.
    Svcomp(cli::svcomp::Args),
    /// An HTML report of saved --json reports (tables, plots, witnesses).
    Report(cli::report::Args),
    /// Score answers against solutions (RERS 2019: p − q², achievements).
    Score(cli::score::Args),
    /// Reference answers from several tools' answers (MCC confidence method).
    Consensus(cli::consensus::Args),
    /// Write answers as an MCC propertiesverdict XML file.
    ExportVerdicts(cli::export_verdicts::Args),
    /// One query of the invariant engine, in a process of its own (started
    /// by `reach` and `solve`).
    #[command(hide = true)]
    HornWorker(cli::horn_worker::Args),
}

fn main() {
    rigor::runtime::memory::fit_allocator_to_address_limit();
    Reserve::keep();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Info(a) => cli::info::run(&a),
        Command::Reach(a) => cli::reach::run(&a),
        Command::Ltl(a) => cli::ltl::run(&a),
        Command::Replay(a) => cli::replay::run(&a),
        Command::Export(a) => cli::export::run(&a),
        Command::Ctl(a) => cli::ctl::run(&a),
        Command::Compare(a) => cli::compare::run(&a),
        Command::Validate(a) => cli::validate::run(&a),
        Command::CheckCertificate(a) => cli::check_certificate::run(&a),
        Command::Solve(a) => cli::solve::run(&a),
        Command::Svcomp(a) => cli::svcomp::run(&a),
        Command::Report(a) => cli::report::run(&a),
        Command::Score(a) => cli::score::run(&a),
        Command::Consensus(a) => cli::consensus::run(&a),
        Command::ExportVerdicts(a) => cli::export_verdicts::run(&a),
        Command::HornWorker(a) => cli::horn_worker::run(&a),
    };
    match result {
        Ok(_) if cli::limits::interrupted() => std::process::exit(cli::limits::EXIT_INTERRUPTED),
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("rigor: {e}");
            std::process::exit(1);
        }
    }
}
