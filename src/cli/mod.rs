//! Subcommands of the `rigor` binary: each module has a clap `Args` struct
//! and `run(&Args) -> Result<i32, Box<dyn Error>>` returning the exit code.

pub mod compare;
pub mod consensus;
pub mod ctl;
pub mod export;
pub mod export_verdicts;
pub mod info;
pub mod limits;
pub mod ltl;
pub mod reach;
pub mod replay;
pub mod score;
pub mod solve;
pub mod validate;

/// The error type subcommands return.
pub type CliResult = Result<i32, Box<dyn std::error::Error>>;
