//! Subcommands of the `rigor` binary: each module has a clap `Args` struct
//! and `run(&Args) -> Result<i32, Box<dyn Error>>` returning the exit code.

pub mod info;
pub mod limits;
pub mod ltl;
pub mod reach;

/// The error type subcommands return.
pub type CliResult = Result<i32, Box<dyn std::error::Error>>;
