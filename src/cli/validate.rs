//! `rigor validate PROGRAM WITNESSES`: confirms reachability witnesses on
//! the original program, C compiled by gcc or Java compiled by javac.

use super::CliResult;
use crate::answers::witness::read_witnesses;
use crate::error::Error;
use crate::validate::java::{validate_java, JavaHarness};
use crate::validate::{validate, Harness};
use std::io::Write;
use std::path::Path;
use std::time::Duration;

/// Arguments of `rigor validate`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The original program (.c or .java).
    pub program: String,
    /// Witness file as written by `rigor reach --witness`: `label,IN IN ...`.
    pub witnesses: String,
    /// Seconds allowed per native run.
    #[arg(long, default_value_t = 10)]
    pub run_timeout: u64,
}

/// Runs `rigor validate`.
pub fn run(args: &Args) -> CliResult {
    let program = crate::frontend::load(&args.program)?;
    let named = read_witnesses(&args.witnesses)?;
    let mut witnesses = Vec::with_capacity(named.len());
    for (label, seq) in named {
        let mut values = Vec::with_capacity(seq.len());
        for name in &seq {
            let sym = program
                .inputs
                .iter()
                .find(|s| &s.name == name)
                .ok_or_else(|| {
                    Error::Usage(format!(
                        "{}: unknown input `{name}` in the witness of error_{label}",
                        args.witnesses
                    ))
                })?;
            values.push(sym.value);
        }
        witnesses.push((label, values, seq));
    }
    let timeout = Duration::from_secs(args.run_timeout);
    let path = Path::new(&args.program);
    let (checks, runner) = if program.language == crate::ir::Language::Java {
        let harness = JavaHarness::build(path)?;
        let named: Vec<(u32, Vec<String>)> = (witnesses.into_iter())
            .map(|(l, _, names)| (l, names))
            .collect();
        (validate_java(&harness, &named, timeout)?, "javac-compiled")
    } else {
        let harness = Harness::build(path)?;
        let values: Vec<(u32, Vec<i32>)> = (witnesses.into_iter())
            .map(|(l, values, _)| (l, values))
            .collect();
        (validate(&harness, &values, timeout)?, "gcc-compiled")
    };
    let mut out = std::io::stdout().lock();
    let mut failed = 0;
    for c in &checks {
        if c.confirmed {
            writeln!(out, "error_{}: confirmed", c.label)?;
        } else {
            failed += 1;
            writeln!(
                out,
                "error_{}: NOT confirmed (native run: {:?})",
                c.label, c.native
            )?;
        }
    }
    eprintln!(
        "rigor: {} of {} witnesses confirmed by the {runner} program",
        checks.len() - failed,
        checks.len()
    );
    Ok(if failed == 0 { 0 } else { 1 })
}
