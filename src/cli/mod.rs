//! Subcommands of the `rigor` binary: each module has a clap `Args` struct
//! and `run(&Args) -> CliResult` returning the exit code. They parse
//! arguments, call a library pipeline ([`crate::check`], [`crate::solve`],
//! [`crate::answers`]) and print what it returns; nothing else.

pub mod check_certificate;
pub mod cluster;
pub mod compare;
pub mod consensus;
pub mod ctl;
pub mod export;
pub mod export_verdicts;
pub mod horn_worker;
pub mod info;
pub mod limits;
pub mod ltl;
pub mod reach;
pub mod replay;
pub mod report;
pub mod score;
pub mod solve;
pub mod stream;
pub mod svcomp;
pub mod validate;

/// The result subcommands return: the exit code, or the error to print.
pub type CliResult = Result<i32, crate::error::Error>;

/// A report as pretty JSON.
pub fn json<T: serde::Serialize>(report: &T) -> String {
    serde_json::to_string_pretty(report).expect("reports have string keys and serialise")
}
