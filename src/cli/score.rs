//! `rigor score ANSWERS... --solution SOLUTION...`: RERS 2019 score of
//! answer files against solutions (tokens p and q, p − q², achievements).

use std::io::Write;

use super::CliResult;
use crate::answers::read::{self, ReadOptions};
use crate::answers::score::{
    self, merge_files, track_in_solution, CategorySpec, Scheme, ScoreReport,
};
use crate::answers::AnswerMap;

/// Arguments of `rigor score`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Answer files (RERS CSV, rigor's JSON reports, any format of
    /// grammars/answers.ebnf).
    #[arg(required = true)]
    pub answers: Vec<String>,
    /// Solution files (official CSV or text, or any answer format).
    #[arg(long, required = true, num_args = 1..)]
    pub solution: Vec<String>,
    /// A category of problems from bronze to gold, NAME=P1,P2,P3
    /// (repeatable; problems in none form the category `all`).
    #[arg(long = "category", value_name = "NAME=PROBLEMS")]
    pub categories: Vec<CategorySpec>,
    /// Achievement scheme: sequential (answers against the falsifiable
    /// counts of the bronze, silver, gold problems) or industrial (problems
    /// solved).
    #[arg(long, value_enum, default_value_t = Scheme::Sequential)]
    pub scheme: Scheme,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
    /// How to read answer files.
    #[command(flatten)]
    pub read: ReadOptions,
}

/// Reads the solutions and answers and scores them.
pub fn evaluate(args: &Args) -> Result<ScoreReport, crate::error::Error> {
    // --track and --problem are for the answers; solutions say theirs.
    let sol_opts = ReadOptions {
        labels: args.read.labels,
        ..ReadOptions::default()
    };
    let solution = read_solution(&args.solution, &sol_opts)?;
    let files = read::read_files(&args.answers, &args.read)?;
    let context = read::known_tracks(&files);
    let mut parts = Vec::new();
    for f in &files {
        let fallback = |p: &str| {
            context
                .get(p)
                .copied()
                .or_else(|| track_in_solution(&solution, p))
        };
        parts.push((f.path.clone(), f.map_with(fallback)?));
    }
    let answers: AnswerMap = merge_files(&parts)?;
    Ok(score::score_with(
        &answers,
        &solution,
        &args.categories,
        args.scheme,
    ))
}

/// Reads solution files into one map (each file says its tracks).
pub fn read_solution(
    files: &[String],
    opts: &ReadOptions,
) -> Result<AnswerMap, crate::error::Error> {
    let files = read::read_files(files, opts)?;
    let context = read::known_tracks(&files);
    let mut parts = Vec::new();
    for f in &files {
        parts.push((f.path.clone(), f.map_with(|p| context.get(p).copied())?));
    }
    Ok(merge_files(&parts)?)
}

/// The terminal table of a report.
pub fn table(r: &ScoreReport) -> String {
    let mut s = String::new();
    s.push_str(&format!(
        "{:<7} {:>8} {:>7} {:>5} {:>10} {:>5} {:>6} {:>5} {:>7} {:>7}\n",
        "track", "answered", "correct", "wrong", "unanswered", "extra", "p", "q", "score", "max"
    ));
    for t in &r.tracks {
        s.push_str(&format!(
            "{:<7} {:>8} {:>7} {:>5} {:>10} {:>5} {:>6} {:>5} {:>7} {:>7}\n",
            t.track.name(),
            t.answered,
            t.correct,
            t.wrong,
            t.unanswered,
            t.extra,
            t.p,
            t.q,
            t.score,
            t.max_score
        ));
    }
    if r.tracks.len() > 1 {
        s.push_str(&format!(
            "{:<7} {:>8} {:>7} {:>5} {:>10} {:>5} {:>6} {:>5} {:>7} {:>7}\n",
            "total",
            r.answered,
            r.correct,
            r.wrong.len(),
            r.unanswered,
            r.extra.len(),
            r.p,
            r.q,
            r.score,
            r.max_score
        ));
    }
    s.push('\n');
    s.push_str(&format!(
        "{:<7} {:<12} {:<24} {:>7} {:>5} {:>6} {:>17}  achievement\n",
        "track", "category", "problems (tier)", "correct", "wrong", "solved", "bronze/silver/gold"
    ));
    for c in &r.categories {
        let problems: Vec<String> = c
            .problems
            .iter()
            .map(|(p, m)| format!("{p}({})", &m.to_string()[..1]))
            .collect();
        let th = format!(
            "{}/{}/{}",
            c.thresholds.bronze, c.thresholds.silver, c.thresholds.gold
        );
        s.push_str(&format!(
            "{:<7} {:<12} {:<24} {:>7} {:>5} {:>6} {:>17}  {}\n",
            c.track.name(),
            c.name,
            problems.join(" "),
            c.correct,
            c.wrong,
            c.solved,
            th,
            c.achievement
                .map(|m| m.to_string())
                .unwrap_or_else(|| "none".into())
        ));
    }
    if !r.wrong.is_empty() {
        s.push_str(&format!("\nwrong answers ({}):\n", r.wrong.len()));
        for w in &r.wrong {
            let k = crate::answers::Key::new(w.problem.clone(), w.track, w.property);
            s.push_str(&format!(
                "  {k}: answered {}, solution {} ({} token{})\n",
                w.answered,
                w.expected,
                w.tokens,
                if w.tokens == 1 { "" } else { "s" }
            ));
        }
    }
    if !r.extra.is_empty() {
        s.push_str(&format!(
            "\nanswers not in the solution, not scored ({}):\n",
            r.extra.len()
        ));
        for k in &r.extra {
            s.push_str(&format!("  {k}\n"));
        }
    }
    s
}

/// Runs `rigor score`.
pub fn run(args: &Args) -> CliResult {
    let r = evaluate(args)?;
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{}", crate::cli::json(&r))?;
    } else {
        write!(out, "{}", table(&r))?;
    }
    Ok(0)
}
