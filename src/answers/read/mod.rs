//! Reading answers and solutions in every format found in the RERS data
//! (grammar: `grammars/answers.ebnf`). The format is recognised from the
//! content:
//!
//! | format | shape | track | problem |
//! |---|---|---|---|
//! | JSON report (`rigor reach --json`) | `{"problem", "track", "verdicts": [{"property", "verdict"}]}`, or an array of them | `track` field | `problem` field |
//! | solution text (2012, 2017) | `error_N reachable via input sequence` …, `All other errors unreachable`, `Formula: …` / `Formula is satisfied.` / `Formula is not satisfied! …` | its section | file name |
//! | 2012 CSV | `id,yes\|no,confidence`: ids 0..=60 error labels, 61+ the LTL formulas in file order (id 60, `no` in every file, is dropped: no 2012 program has `error_60`, see [`ReadOptions::labels`]) | from the id | file name |
//! | RERS CSV | `problem,property,verdict` (also `rigor reach`'s CSV) | context | first column |
//! | track CSV | `problem,track,property,verdict` (`rigor consensus` on several tracks) | second column | first column |
//! | property CSV | `property,verdict` (2014, 2019 training solutions) | context | file name |
//! | headed CSV | a header naming the columns (`problem`, `track`, `property`/`label`/`id`/`index`, `verdict`) | column or context | column or file name |
//! | black-box checking CSV (2017 NFM'18) | header `problem,learner,property,…`: each row a property proved FALSE | LTL | column |
//!
//! Verdicts are `true`/`false` or `yes`/`no` (any case); `unknown` is read
//! as no answer. "Context" is, in order: the `--track` option
//! ([`ReadOptions::track`]), the file name ([`Track::from_file_name`]), the
//! other files of the same command ([`known_tracks`]: the only track they
//! give that problem), and, for `rigor score`, the solution (the only track
//! the solution has for that problem). A problem with answers in two tracks
//! and a file that says nothing is an error asking for `--track`. The problem, when the file does not say, comes from
//! [`ReadOptions::problem`], else from `ProblemN` in the file name or in a
//! parent folder's name.
//!
//! Solution texts list only the reachable labels and close with `All other
//! errors unreachable`; the labels not listed are read as unreachable, over
//! the label range [`ReadOptions::labels`], by default 0..=59 for the 2012
//! texts (those with an `LTL problems:` section: the 2012 programs have 60
//! labels) and 0..=99 otherwise (RERS 2016+ sequential problems).

mod csv;
mod json;
#[cfg(test)]
mod tests;
mod text;

use std::collections::HashMap;

use super::{Answer, AnswerError, AnswerMap, Key, Track};
use crate::source::{read_text, Diagnostic};

type Result<T> = std::result::Result<T, AnswerError>;

/// An error at a line of an answer file.
fn invalid(file: &str, line: u32, col: u32, message: impl Into<String>) -> AnswerError {
    AnswerError::Invalid(Diagnostic::at(file, line, col, message))
}

/// An error about a whole answer file.
fn invalid_file(file: &str, message: impl Into<String>) -> AnswerError {
    AnswerError::Invalid(Diagnostic::file(file, message))
}

/// Error labels of the 2012 programs (`error_0` .. `error_59`).
const LABELS_2012: u32 = 60;

/// How to complete what a file does not say.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct ReadOptions {
    /// Track of answers whose file does not say it (else guessed from the
    /// file name: reach, ltl/constraints, ctl).
    #[arg(long, value_enum)]
    pub track: Option<Track>,
    /// Problem of answers whose file does not say it (else `ProblemN` in the
    /// file or folder name).
    #[arg(long)]
    pub problem: Option<String>,
    /// Number of error labels (0..N-1) of the problem: the labels a solution
    /// text does not list ("All other errors unreachable") are read as
    /// unreachable up to N (default: 60 for 2012 texts, else 100); a 2012
    /// CSV's unreachable labels from N on are dropped (default 60).
    #[arg(long, value_name = "N")]
    pub labels: Option<u32>,
}

/// The format a file was recognised as.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// `rigor`'s JSON report(s).
    Json,
    /// The official solution text (2012, 2017).
    SolutionText,
    /// `id,yes|no,confidence` (2012).
    Csv2012,
    /// `problem,property,verdict`.
    RersCsv,
    /// `problem,track,property,verdict`.
    TrackCsv,
    /// `property,verdict`.
    PropertyCsv,
    /// A CSV with a header naming its columns.
    HeadedCsv,
    /// Black-box checking results: properties proved false.
    BbcCsv,
}

/// One answer as read, before its track is settled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The problem name.
    pub problem: String,
    /// The track, when the file or the options say it.
    pub track: Option<Track>,
    /// Label number or formula index.
    pub property: u32,
    /// The verdict (RERS conventions).
    pub verdict: bool,
    /// 1-based line in the file, 0 when unknown (JSON, completed labels).
    pub line: u32,
}

/// A file of answers as read.
#[derive(Clone, Debug)]
pub struct AnswerFile {
    /// The file.
    pub path: String,
    /// Its format.
    pub format: Format,
    /// The tool the file names, if any (the `learner` column of BBC files).
    pub tool: Option<String>,
    /// The answers, in file order.
    pub entries: Vec<Entry>,
}

impl AnswerFile {
    /// The answers; every entry must have a track.
    pub fn answers(&self) -> Result<Vec<Answer>> {
        self.answers_with(|_| None)
    }

    /// The answers, asking `fallback(problem)` for the track of entries
    /// whose file did not say it. Repeated answers are merged; two different
    /// verdicts on one property are an error naming both lines.
    pub fn answers_with(&self, fallback: impl Fn(&str) -> Option<Track>) -> Result<Vec<Answer>> {
        let mut seen: HashMap<Key, (bool, u32)> = HashMap::new();
        let mut out = Vec::new();
        for e in &self.entries {
            let track = match e.track.or_else(|| fallback(&e.problem)) {
                Some(t) => t,
                None => {
                    return Err(invalid(
                        &self.path,
                        e.line,
                        0,
                        format!(
                            "cannot tell the track of problem {}: pass --track, or name the file \
                             with reach, ltl or ctl",
                            e.problem
                        ),
                    ))
                }
            };
            let key = Key::new(e.problem.clone(), track, e.property);
            match seen.get(&key) {
                Some(&(v, _)) if v == e.verdict => continue,
                Some(&(v, first)) => {
                    return Err(invalid(
                        &self.path,
                        e.line,
                        0,
                        format!(
                            "conflicting answers for {key}: {} here, {v} at line {first}",
                            e.verdict
                        ),
                    ))
                }
                None => {
                    seen.insert(key.clone(), (e.verdict, e.line));
                    out.push(Answer::new(key.problem, key.track, key.property, e.verdict));
                }
            }
        }
        Ok(out)
    }

    /// The answers as a map (see [`AnswerFile::answers_with`]).
    pub fn map_with(&self, fallback: impl Fn(&str) -> Option<Track>) -> Result<AnswerMap> {
        Ok(self
            .answers_with(fallback)?
            .into_iter()
            .map(|a| (a.key(), a.verdict))
            .collect())
    }
}

/// Reads several files.
pub fn read_files(paths: &[String], opts: &ReadOptions) -> Result<Vec<AnswerFile>> {
    paths.iter().map(|p| read_file(p, opts)).collect()
}

/// The track of each problem that the files give for it, when they give
/// exactly one: context for the entries of other files that do not say.
pub fn known_tracks(files: &[AnswerFile]) -> HashMap<String, Track> {
    let mut seen: HashMap<String, std::collections::BTreeSet<Track>> = HashMap::new();
    for e in files.iter().flat_map(|f| &f.entries) {
        if let Some(t) = e.track {
            seen.entry(e.problem.clone()).or_default().insert(t);
        }
    }
    seen.into_iter()
        .filter(|(_, ts)| ts.len() == 1)
        .filter_map(|(p, ts)| ts.into_iter().next().map(|t| (p, t)))
        .collect()
}

/// Reads an answer or solution file.
pub fn read_file(path: &str, opts: &ReadOptions) -> Result<AnswerFile> {
    let text = read_text(path)?;
    parse(path, &text, opts)
}

/// Reads answers from `text`, the content of file `path` (the name is used
/// for errors and, where the content does not say, for problem and track).
pub fn parse(path: &str, text: &str, opts: &ReadOptions) -> Result<AnswerFile> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let first = text.trim_start();
    let (format, tool, entries) = if first.starts_with('{') || first.starts_with('[') {
        (Format::Json, None, json::parse_json(path, text, opts)?)
    } else if text::is_solution_text(text) {
        (
            Format::SolutionText,
            None,
            text::parse_solution_text(path, text, opts)?,
        )
    } else {
        csv::parse_csv(path, text, opts)?
    };
    Ok(AnswerFile {
        path: path.to_string(),
        format,
        tool,
        entries,
    })
}

/// The problem of a file that does not name it: the option, else `ProblemN`
/// in the file name, else in the nearest parent folder that has one.
pub(super) fn problem_of(path: &str, opts: &ReadOptions) -> Option<String> {
    if let Some(p) = &opts.problem {
        return Some(p.clone());
    }
    super::naming::problem_in_path(path)
}

pub(super) fn need_problem(path: &str, opts: &ReadOptions) -> Result<String> {
    problem_of(path, opts).ok_or_else(|| {
        invalid_file(
            path,
            "cannot tell the problem: pass --problem, or name the file ProblemN...",
        )
    })
}

/// The track a file's context gives: the option, else the file name.
pub(super) fn track_of(path: &str, opts: &ReadOptions) -> Option<Track> {
    opts.track.or_else(|| Track::from_file_name(path))
}

/// A verdict word: `Some(Some(v))`, `Some(None)` for unknown, `None` if not
/// a verdict.
pub(super) fn verdict_word(s: &str) -> Option<Option<bool>> {
    match s.trim().to_ascii_lowercase().as_str() {
        "true" | "yes" => Some(Some(true)),
        "false" | "no" => Some(Some(false)),
        "unknown" | "?" | "" => Some(None),
        _ => None,
    }
}

/// A property number: `5`, or `error_5` for labels.
pub(super) fn property_number(s: &str) -> Option<u32> {
    let s = s.trim();
    let s = s.strip_prefix("error_").unwrap_or(s);
    let s = s.strip_prefix('#').unwrap_or(s);
    s.parse().ok()
}
