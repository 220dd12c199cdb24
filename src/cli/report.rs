//! `rigor report REPORTS.json... -o FILE.html`: the HTML report of saved
//! `--json` reports of `rigor reach`, `ltl` and `ctl` (the page `rigor
//! solve --report` writes).

use super::CliResult;
use crate::answers::read::ReadOptions;
use crate::error::{write_file, Error};
use crate::report::{html, Page};
use crate::runtime::Budget;

/// Arguments of `rigor report`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// JSON reports (`rigor reach --json`, `rigor ltl --json`, `rigor ctl --json`).
    #[arg(required = true)]
    pub reports: Vec<String>,
    /// The HTML file to write.
    #[arg(short, long, value_name = "FILE.html")]
    pub output: String,
    /// Solution files to score the answers against.
    #[arg(long, num_args = 1.., value_name = "FILES")]
    pub solution: Vec<String>,
    /// The page's title (default: the report files).
    #[arg(long)]
    pub title: Option<String>,
}

/// Runs `rigor report`.
pub fn run(args: &Args) -> CliResult {
    let title = args
        .title
        .clone()
        .unwrap_or_else(|| args.reports.join(", "));
    let mut page = Page::new(title);
    for path in &args.reports {
        let text = crate::source::read_text(path)?;
        let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
            Error::Usage(format!("{path}:{}:{}: not JSON: {e}", e.line(), e.column()))
        })?;
        if !page.add_report(&value) {
            return Err(Error::Usage(format!(
                "{path}: not a report of rigor reach, ltl or ctl (no `track` and `problem`)"
            )));
        }
    }
    let budget = Budget::unlimited().with_timeout(std::time::Duration::from_secs(10));
    finish_page(&mut page, &args.solution, &budget, &args.output)?;
    Ok(0)
}

/// Draws the small systems, scores against `solution` if given, and
/// writes the page to `path`.
pub fn finish_page(
    page: &mut Page,
    solution: &[String],
    budget: &Budget,
    path: &str,
) -> Result<(), Error> {
    let names: Vec<String> = page.problems.keys().map(|k| k.0.clone()).collect();
    for n in names {
        page.draw_small_system(&n, budget);
    }
    if !solution.is_empty() {
        let solution = super::score::read_solution(solution, &ReadOptions::default())?;
        page.score_against(&solution);
    }
    write_file(path, &html::render(page, &crate::answers::mcc::utc_now()))?;
    eprintln!("rigor: report written to {path}");
    Ok(())
}
