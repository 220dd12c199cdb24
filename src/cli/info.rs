//! `rigor info PROGRAM`: what the front end read and how the engine stores it.

use super::CliResult;
use crate::engine::Machine;
use crate::frontend;
use crate::system::System;

/// Arguments of `rigor info`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The program (.c or .java).
    pub program: String,
}

/// Runs `rigor info`.
pub fn run(args: &Args) -> CliResult {
    let p = frontend::load(&args.program)?;
    let m = Machine::compile(&p)?;
    let names = |v: &[crate::ir::Symbol]| {
        v.iter()
            .map(|s| s.name.clone())
            .collect::<Vec<_>>()
            .join(" ")
    };
    println!("program      {}", p.source);
    println!(
        "problem      {}",
        crate::answers::naming::problem_name(&p.source)
    );
    println!("language     {:?}", p.language);
    println!(
        "step         {} ({:?})",
        p.function(p.step).name,
        p.step_return
    );
    println!("inputs       {} ({})", p.inputs.len(), names(&p.inputs));
    println!("outputs      {} ({})", p.outputs.len(), names(&p.outputs));
    println!("globals      {}", p.globals.len());
    println!("functions    {}", p.functions.len());
    println!("error labels {}", p.error_labels.len());
    println!("state width  {} ints", m.state_width());
    println!("bytecode     {} instructions", m.code_len());
    Ok(0)
}
