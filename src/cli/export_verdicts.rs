//! `rigor export-verdicts ANSWERS... --model NAME`: answers as a Model
//! Checking Contest `propertiesverdict` XML file (grammar 2.0).

use std::io::Write;

use super::CliResult;
use crate::answers::mcc;
use crate::answers::read::{self, ReadOptions};

/// Arguments of `rigor export-verdicts`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Answer files.
    #[arg(required = true)]
    pub answers: Vec<String>,
    /// The model name for `modelreference`.
    #[arg(long)]
    pub model: String,
    /// Write the XML to this file instead of standard output.
    #[arg(short, long)]
    pub output: Option<String>,
    /// Leave the date out of `statedby` (reproducible output).
    #[arg(long)]
    pub no_date: bool,
    /// How to read answer files.
    #[command(flatten)]
    pub read: ReadOptions,
}

/// Runs `rigor export-verdicts`.
pub fn run(args: &Args) -> CliResult {
    let files = read::read_files(&args.answers, &args.read)?;
    let context = read::known_tracks(&files);
    let mut parts = Vec::new();
    for f in &files {
        parts.push((f.path.clone(), f.map_with(|p| context.get(p).copied())?));
    }
    let answers: Vec<crate::answers::Answer> = crate::answers::score::merge_files(&parts)?
        .into_iter()
        .map(|(k, v)| crate::answers::Answer::new(k.problem, k.track, k.property, v))
        .collect();
    let date = (!args.no_date).then(mcc::utc_now);
    let xml = mcc::verdicts_xml(&args.model, &answers, date.as_deref())?;
    match &args.output {
        Some(path) => crate::error::write_file(path, &xml)?,
        None => write!(std::io::stdout().lock(), "{xml}")?,
    }
    Ok(0)
}
