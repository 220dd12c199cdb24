//! The `rigor` command line. Each subcommand lives in `rigor::cli::<name>`;
//! this file only dispatches. Exit status: 0 done, 1 bad input or internal
//! error (message on stderr), 2 usage error (from clap).

use clap::{Parser, Subcommand};
use rigor::cli;

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
}

fn main() {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Info(a) => cli::info::run(&a),
        Command::Reach(a) => cli::reach::run(&a),
        Command::Ltl(a) => cli::ltl::run(&a),
    };
    match result {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("rigor: {e}");
            std::process::exit(1);
        }
    }
}
