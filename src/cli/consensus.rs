//! `rigor consensus ANSWERS...`: reference answers from several tools'
//! answer files by the Model Checking Contest method (tool confidence,
//! confidence-weighted majority).

use std::io::Write;

use super::CliResult;
use crate::answers::consensus::{self, ConsensusReport};
use crate::answers::read::{self, ReadOptions};
use crate::answers::to_csv;

/// Arguments of `rigor consensus`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Answer files, one or more per tool. `NAME=FILE` names the tool;
    /// otherwise the tool the file names (BBC `learner`), else the file name
    /// without its extension. Files of the same tool are merged.
    #[arg(required = true)]
    pub answers: Vec<String>,
    /// Write the reference CSV to this file instead of standard output.
    #[arg(short, long)]
    pub output: Option<String>,
    /// Print one JSON object (tools, confidences, references) instead.
    #[arg(long)]
    pub json: bool,
    /// How to read answer files.
    #[command(flatten)]
    pub read: ReadOptions,
}

/// `NAME=FILE` → (Some(NAME), FILE); a plain path → (None, path).
fn split_name(arg: &str) -> (Option<&str>, &str) {
    match arg.split_once('=') {
        Some((name, path)) if !name.is_empty() && !name.contains('/') => (Some(name), path),
        _ => (None, arg),
    }
}

/// Reads the tools' files and computes the consensus.
pub fn evaluate(args: &Args) -> Result<ConsensusReport, crate::error::Error> {
    let named: Vec<(Option<&str>, &str)> = args.answers.iter().map(|a| split_name(a)).collect();
    let paths: Vec<String> = named.iter().map(|(_, p)| p.to_string()).collect();
    let files = read::read_files(&paths, &args.read)?;
    let context = read::known_tracks(&files);
    let mut parts = Vec::new();
    for ((name, path), f) in named.iter().zip(&files) {
        let name = match (name, &f.tool) {
            (Some(n), _) => n.to_string(),
            (None, Some(t)) => t.clone(),
            (None, None) => std::path::Path::new(path)
                .file_stem()
                .map(|s| s.to_string_lossy().to_string())
                .unwrap_or_else(|| path.to_string()),
        };
        parts.push((name, f.map_with(|p| context.get(p).copied())?));
    }
    let tools = consensus::group_tools(parts).map_err(|(tool, key)| {
        crate::error::Error::Usage(format!("tool {tool}: its files disagree on {key}"))
    })?;
    Ok(consensus::consensus(&tools))
}

/// The terminal table: tools with confidence and disagreements, and the
/// references that stayed unknown.
pub fn table(r: &ConsensusReport) -> String {
    let mut s = format!("consistent values: {}\n", r.consistent);
    s.push_str(&format!(
        "{:<24} {:>8} {:>7} {:>10} {:>13}\n",
        "tool", "answered", "agreed", "confidence", "disagreements"
    ));
    for t in &r.tools {
        s.push_str(&format!(
            "{:<24} {:>8} {:>7} {:>10.4} {:>13}\n",
            t.name,
            t.answered,
            t.agreed,
            t.confidence,
            t.disagreements.len()
        ));
    }
    for t in r.tools.iter().filter(|t| !t.disagreements.is_empty()) {
        s.push_str(&format!("\n{} disagrees with the reference on:\n", t.name));
        for k in &t.disagreements {
            s.push_str(&format!("  {k}\n"));
        }
    }
    let unknown: Vec<_> = r
        .references
        .iter()
        .filter(|x| x.verdict.is_none())
        .collect();
    let known = r.references.len() - unknown.len();
    s.push_str(&format!(
        "\nreferences: {} known, {} unknown\n",
        known,
        unknown.len()
    ));
    const SHOWN: usize = 20;
    let hidden = unknown.len().saturating_sub(SHOWN);
    for x in unknown.into_iter().take(SHOWN) {
        s.push_str(&format!(
            "  {}: unknown ({}; {} true, {} false)\n",
            x.key,
            x.rule.name(),
            x.yes,
            x.no
        ));
    }
    if hidden > 0 {
        s.push_str(&format!("  ... and {hidden} more (see --json)\n"));
    }
    s
}

/// Runs `rigor consensus`: the CSV on standard output (or `--output`), the
/// table on standard error.
pub fn run(args: &Args) -> CliResult {
    let r = evaluate(args)?;
    if args.json {
        writeln!(std::io::stdout().lock(), "{}", crate::cli::json(&r))?;
        return Ok(0);
    }
    let csv = to_csv(&r.reference_answers());
    match &args.output {
        Some(path) => crate::error::write_file(path, &csv)?,
        None => write!(std::io::stdout().lock(), "{csv}")?,
    }
    eprint!("{}", table(&r));
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_names() {
        assert_eq!(split_name("ttt=a/b.csv"), (Some("ttt"), "a/b.csv"));
        assert_eq!(split_name("a/b.csv"), (None, "a/b.csv"));
        assert_eq!(split_name("a/x=y.csv"), (None, "a/x=y.csv"));
    }
}
