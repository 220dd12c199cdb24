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

use std::collections::HashMap;

use serde_json::Value;

use super::{Answer, AnswerMap, Key, Track};
use crate::error::{Error, Result};

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
                    return Err(Error::at(
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
                    return Err(Error::at(
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
    let text = crate::error::read_text(path)?;
    parse(path, &text, opts)
}

/// Reads answers from `text`, the content of file `path` (the name is used
/// for errors and, where the content does not say, for problem and track).
pub fn parse(path: &str, text: &str, opts: &ReadOptions) -> Result<AnswerFile> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let first = text.trim_start();
    let (format, tool, entries) = if first.starts_with('{') || first.starts_with('[') {
        (Format::Json, None, parse_json(path, text, opts)?)
    } else if is_solution_text(text) {
        (
            Format::SolutionText,
            None,
            parse_solution_text(path, text, opts)?,
        )
    } else {
        parse_csv(path, text, opts)?
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
fn problem_of(path: &str, opts: &ReadOptions) -> Option<String> {
    if let Some(p) = &opts.problem {
        return Some(p.clone());
    }
    let p = std::path::Path::new(path);
    let names = p
        .file_name()
        .into_iter()
        .chain(p.ancestors().skip(1).filter_map(|a| a.file_name()));
    for name in names {
        let name = name.to_string_lossy();
        if let Some(i) = name.find("Problem") {
            let digits: String = name[i + 7..]
                .chars()
                .take_while(|c| c.is_ascii_digit())
                .collect();
            if !digits.is_empty() {
                return Some(digits);
            }
        }
    }
    None
}

fn need_problem(path: &str, opts: &ReadOptions) -> Result<String> {
    problem_of(path, opts).ok_or_else(|| {
        Error::file(
            path,
            "cannot tell the problem: pass --problem, or name the file ProblemN...",
        )
    })
}

/// The track a file's context gives: the option, else the file name.
fn track_of(path: &str, opts: &ReadOptions) -> Option<Track> {
    opts.track.or_else(|| Track::from_file_name(path))
}

/// A verdict word: `Some(Some(v))`, `Some(None)` for unknown, `None` if not
/// a verdict.
fn verdict_word(s: &str) -> Option<Option<bool>> {
    match s.trim().to_ascii_lowercase().as_str() {
        "true" | "yes" => Some(Some(true)),
        "false" | "no" => Some(Some(false)),
        "unknown" | "?" | "" => Some(None),
        _ => None,
    }
}

/// A property number: `5`, or `error_5` for labels.
fn property_number(s: &str) -> Option<u32> {
    let s = s.trim();
    let s = s.strip_prefix("error_").unwrap_or(s);
    let s = s.strip_prefix('#').unwrap_or(s);
    s.parse().ok()
}

// ---------------------------------------------------------------- JSON

fn parse_json(path: &str, text: &str, opts: &ReadOptions) -> Result<Vec<Entry>> {
    let v: Value = serde_json::from_str(text).map_err(|e| {
        Error::at(
            path,
            e.line() as u32,
            e.column() as u32,
            format!("invalid JSON: {e}"),
        )
    })?;
    let reports: Vec<&Value> = match &v {
        Value::Array(items) => items.iter().collect(),
        other => vec![other],
    };
    let mut out = Vec::new();
    for (n, r) in reports.iter().enumerate() {
        let bad = |what: &str| Error::file(path, format!("report {}: {what}", n + 1));
        let obj = r.as_object().ok_or_else(|| bad("expected an object"))?;
        let problem = match obj.get("problem") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Number(x)) => x.to_string(),
            Some(_) => return Err(bad("`problem` must be a string or a number")),
            None => match obj.get("program").and_then(Value::as_str) {
                Some(prog) => crate::ir::problem_name(prog),
                None => need_problem(path, opts)?,
            },
        };
        let track = match obj.get("track") {
            Some(Value::String(s)) => {
                Some(Track::parse(s).ok_or_else(|| bad(&format!("unknown track `{s}`")))?)
            }
            Some(_) => return Err(bad("`track` must be a string")),
            None => track_of(path, opts),
        };
        let verdicts = obj
            .get("verdicts")
            .and_then(Value::as_array)
            .ok_or_else(|| bad("expected a `verdicts` array"))?;
        for (i, item) in verdicts.iter().enumerate() {
            let bad = |what: &str| bad(&format!("verdict {}: {what}", i + 1));
            let property = ["property", "label", "index"]
                .iter()
                .find_map(|f| item.get(*f))
                .and_then(Value::as_u64)
                .and_then(|p| u32::try_from(p).ok())
                .ok_or_else(|| bad("expected a `property` number"))?;
            let verdict = match item.get("verdict") {
                Some(Value::Bool(b)) => *b,
                Some(Value::Null) | None => continue,
                Some(Value::String(s)) => match verdict_word(s) {
                    Some(Some(b)) => b,
                    Some(None) => continue,
                    None => return Err(bad(&format!("unknown verdict `{s}`"))),
                },
                Some(_) => return Err(bad("`verdict` must be true, false or null")),
            };
            out.push(Entry {
                problem: problem.clone(),
                track,
                property,
                verdict,
                line: 0,
            });
        }
    }
    Ok(out)
}

// ------------------------------------------------------- solution text

fn is_solution_text(text: &str) -> bool {
    text.lines().any(|l| {
        let l = l.trim();
        l == "Reachability problems:"
            || l == "LTL problems:"
            || l.starts_with("Formula: ")
            || (l.starts_with("error_") && l.contains(" reachable via input sequence"))
    })
}

fn parse_solution_text(path: &str, text: &str, opts: &ReadOptions) -> Result<Vec<Entry>> {
    let problem = need_problem(path, opts)?;
    let mut out = Vec::new();
    let mut rest_unreachable = false;
    let mut has_ltl = false;
    // Index of the next formula, and the line of the formula still waiting
    // for its verdict.
    let mut formulas = 0u32;
    let mut pending: Option<u32> = None;
    let (mut holds, mut fails) = (0u32, 0u32);
    let entry = |track, property, verdict, line| Entry {
        problem: problem.clone(),
        track: Some(track),
        property,
        verdict,
        line,
    };
    for (i, raw) in text.lines().enumerate() {
        let line = i as u32 + 1;
        let l = raw.trim();
        let err = |msg: &str| Error::at(path, line, 0, msg.to_string());
        if l.is_empty()
            || l.chars().all(|c| c == '-' || c == '=')
            || l == "Reachability problems:"
            || (l.starts_with('"') && l.ends_with('"') && l.len() >= 2)
        {
            continue;
        }
        if l.starts_with('[') {
            // An input sequence or a counterexample lasso: not needed here.
            continue;
        }
        if l == "LTL problems:" {
            has_ltl = true;
        } else if l == "All other errors unreachable" {
            rest_unreachable = true;
        } else if let Some(rest) = l.strip_prefix("error_") {
            let (num, tail) = rest.split_once(' ').unwrap_or((rest, ""));
            let label = num
                .parse()
                .map_err(|_| err("expected a label number after error_"))?;
            let verdict = match tail.trim() {
                "reachable via input sequence" | "reachable" => true,
                "unreachable" => false,
                _ => return Err(err("expected `error_N reachable via input sequence`")),
            };
            out.push(entry(Track::Reach, label, verdict, line));
        } else if l.starts_with("Formula: ") {
            if pending.is_some() {
                return Err(err("a new formula before the previous one's verdict"));
            }
            pending = Some(line);
        } else if l == "Formula is satisfied." || l.starts_with("Formula is not satisfied!") {
            if pending.take().is_none() {
                return Err(err("a formula verdict without a `Formula:` line before it"));
            }
            let holds_here = l == "Formula is satisfied.";
            if holds_here {
                holds += 1;
            } else {
                fails += 1;
            }
            out.push(entry(Track::Ltl, formulas, holds_here, line));
            formulas += 1;
        } else if let Some((a, b)) = l
            .strip_suffix(" unsatisfied.")
            .and_then(|s| s.split_once(" constraints satisfied, "))
        {
            let (a, b): (u32, u32) = match (a.parse(), b.parse()) {
                (Ok(a), Ok(b)) => (a, b),
                _ => return Err(err("expected `N constraints satisfied, M unsatisfied.`")),
            };
            if (a, b) != (holds, fails) {
                return Err(err(&format!(
                    "the summary says {a} satisfied, {b} unsatisfied, the file lists {holds} and {fails}"
                )));
            }
        } else {
            return Err(err(&format!("unrecognised line in a solution text: `{l}`")));
        }
    }
    if let Some(line) = pending {
        return Err(Error::at(path, line, 0, "formula without a verdict"));
    }
    if rest_unreachable {
        let n = opts
            .labels
            .unwrap_or(if has_ltl { LABELS_2012 } else { 100 });
        let listed: std::collections::HashSet<u32> = out
            .iter()
            .filter(|e| e.track == Some(Track::Reach))
            .map(|e| e.property)
            .collect();
        for label in (0..n).filter(|l| !listed.contains(l)) {
            out.push(entry(Track::Reach, label, false, 0));
        }
    }
    Ok(out)
}

// ----------------------------------------------------------------- CSV

/// The columns of a CSV.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Shape {
    /// `id,verdict,confidence` (2012).
    Csv2012,
    /// Column positions; `verdict: None` means every row is a `false`
    /// (black-box checking lists only refuted properties).
    Columns {
        problem: Option<usize>,
        track: Option<usize>,
        property: usize,
        verdict: Option<usize>,
        tool: Option<usize>,
        width: Option<usize>,
    },
}

/// Largest 2012 CSV id that is an error label; later ids are LTL formulas.
const LAST_2012_LABEL_ID: u32 = 60;

/// Error labels of the 2012 programs (`error_0` .. `error_59`).
const LABELS_2012: u32 = 60;

fn split(l: &str) -> Vec<&str> {
    l.split(',').map(str::trim).collect()
}

fn is_number(s: &str) -> bool {
    !s.is_empty() && s.parse::<f64>().is_ok()
}

/// The shape of a header line, if it is one.
fn header_shape(fields: &[&str]) -> Option<(Format, Shape)> {
    let lower: Vec<String> = fields.iter().map(|f| f.to_ascii_lowercase()).collect();
    let pos = |names: &[&str]| lower.iter().position(|f| names.contains(&f.as_str()));
    let property = pos(&["property", "label", "id", "index", "error"])?;
    if fields
        .iter()
        .any(|f| verdict_word(f).is_some_and(|v| v.is_some()))
    {
        return None;
    }
    let verdict = pos(&["verdict", "result", "answer", "value"]);
    let tool = pos(&["learner", "tool"]);
    let format = match (verdict, tool) {
        (None, Some(_)) => Format::BbcCsv,
        (None, None) => return None,
        _ => Format::HeadedCsv,
    };
    Some((
        format,
        Shape::Columns {
            problem: pos(&["problem"]),
            track: pos(&["track"]),
            property,
            verdict,
            tool,
            width: None,
        },
    ))
}

/// The shape of a header-less CSV from its first line.
fn data_shape(fields: &[&str]) -> Option<(Format, Shape)> {
    let col = |problem, track, property, verdict| Shape::Columns {
        problem,
        track,
        property,
        verdict: Some(verdict),
        tool: None,
        width: Some(fields.len()),
    };
    let is_verdict = |s: &str| verdict_word(s).is_some();
    match fields {
        [_, v] if is_verdict(v) => Some((Format::PropertyCsv, col(None, None, 0, 1))),
        [_, v, c] if is_verdict(v) && !v.is_empty() && is_number(c) => {
            Some((Format::Csv2012, Shape::Csv2012))
        }
        [_, _, v] if is_verdict(v) => Some((Format::RersCsv, col(Some(0), None, 1, 2))),
        [_, _, _, v] if is_verdict(v) => Some((Format::TrackCsv, col(Some(0), Some(1), 2, 3))),
        _ => None,
    }
}

type CsvRead = (Format, Option<String>, Vec<Entry>);

fn parse_csv(path: &str, text: &str, opts: &ReadOptions) -> Result<CsvRead> {
    let mut shape: Option<(Format, Shape)> = None;
    let mut out = Vec::new();
    let mut tool: Option<String> = None;
    let file_problem = problem_of(path, opts);
    let file_track = track_of(path, opts);
    for (i, raw) in text.lines().enumerate() {
        let line = i as u32 + 1;
        let l = raw.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        let fields = split(l);
        let err = |msg: String| Error::at(path, line, 0, msg);
        if shape.is_none() {
            if let Some(h) = header_shape(&fields) {
                shape = Some(h);
                continue;
            }
            shape = Some(data_shape(&fields).ok_or_else(|| {
                err(format!(
                    "unrecognised answer line `{l}`: expected `problem,property,verdict`, \
                     `property,verdict` or `id,yes|no,confidence`"
                ))
            })?);
        }
        let (_, sh) = shape.as_ref().expect("set above");
        match sh {
            Shape::Csv2012 => {
                let [id, v, c] = fields.as_slice() else {
                    return Err(err(format!("expected `id,yes|no,confidence`, got `{l}`")));
                };
                let id: u32 = id.parse().map_err(|_| err(format!("bad id `{id}`")))?;
                let verdict = match verdict_word(v) {
                    Some(Some(b)) => b,
                    Some(None) => continue,
                    None => return Err(err(format!("bad verdict `{v}`: expected yes or no"))),
                };
                if !is_number(c) {
                    return Err(err(format!("bad confidence `{c}`: expected a number")));
                }
                if id <= LAST_2012_LABEL_ID && id >= opts.labels.unwrap_or(LABELS_2012) && !verdict
                {
                    // Id 60 is listed as unreachable, but no 2012 program
                    // has error_60: a label not in the program is not a
                    // property.
                    continue;
                }
                let (track, property) = if id <= LAST_2012_LABEL_ID {
                    (Track::Reach, id)
                } else {
                    (Track::Ltl, id - LAST_2012_LABEL_ID - 1)
                };
                let problem = file_problem.clone().ok_or_else(|| {
                    err(
                        "cannot tell the problem: pass --problem or name the file ProblemN.."
                            .into(),
                    )
                })?;
                out.push(Entry {
                    problem,
                    track: Some(track),
                    property,
                    verdict,
                    line,
                });
            }
            Shape::Columns {
                problem,
                track,
                property,
                verdict,
                tool: tool_col,
                width,
            } => {
                let need = [Some(*property), *problem, *track, *verdict, *tool_col]
                    .into_iter()
                    .flatten()
                    .max()
                    .unwrap_or(0);
                let ok_width = match width {
                    Some(w) => fields.len() == *w,
                    None => fields.len() > need,
                };
                if !ok_width {
                    return Err(err(format!(
                        "expected {} fields like the first line, got `{l}`",
                        width.unwrap_or(need + 1)
                    )));
                }
                let v = match verdict {
                    Some(c) => match verdict_word(fields[*c]) {
                        Some(Some(b)) => b,
                        Some(None) => continue,
                        None => {
                            return Err(err(format!(
                                "bad verdict `{}`: expected true, false, yes or no",
                                fields[*c]
                            )))
                        }
                    },
                    None => false,
                };
                let p = property_number(fields[*property])
                    .ok_or_else(|| err(format!("bad property `{}`", fields[*property])))?;
                let prob = match problem {
                    Some(c) if !fields[*c].is_empty() => fields[*c].to_string(),
                    _ => file_problem.clone().ok_or_else(|| {
                        err(
                            "cannot tell the problem: pass --problem or name the file ProblemN.."
                                .into(),
                        )
                    })?,
                };
                let t = match track {
                    Some(c) => Some(
                        Track::parse(fields[*c])
                            .ok_or_else(|| err(format!("unknown track `{}`", fields[*c])))?,
                    ),
                    None if verdict.is_none() => Some(Track::Ltl),
                    None => file_track,
                };
                if let Some(c) = tool_col {
                    let name = fields[*c];
                    match &tool {
                        None => tool = Some(name.to_string()),
                        Some(t) if t != name => {
                            return Err(err(format!(
                                "a second tool `{name}` in a file of `{t}`'s answers"
                            )))
                        }
                        Some(_) => {}
                    }
                }
                out.push(Entry {
                    problem: prob,
                    track: t,
                    property: p,
                    verdict: v,
                    line,
                });
            }
        }
    }
    let format = shape.map(|(f, _)| f).unwrap_or(Format::RersCsv);
    if format == Format::BbcCsv && tool.is_none() {
        // A learner that refuted nothing: its name from `ProblemN-LEARNER`.
        tool = std::path::Path::new(path).file_stem().and_then(|s| {
            s.to_string_lossy()
                .split_once('-')
                .map(|(_, t)| t.to_string())
        });
    }
    Ok((format, tool, out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(path: &str, text: &str) -> Result<AnswerFile> {
        parse(path, text, &ReadOptions::default())
    }

    fn triples(f: &AnswerFile) -> Vec<(String, Track, u32, bool)> {
        f.answers()
            .unwrap()
            .into_iter()
            .map(|a| (a.problem, a.track, a.property, a.verdict))
            .collect()
    }

    fn t(p: &str, tr: Track, n: u32, v: bool) -> (String, Track, u32, bool) {
        (p.to_string(), tr, n, v)
    }

    #[test]
    fn rers_csv_with_track_from_file_name() {
        let f = read("out/reach-11.csv", "11,3,true\n11,4,false\n").unwrap();
        assert_eq!(f.format, Format::RersCsv);
        assert_eq!(
            triples(&f),
            [
                t("11", Track::Reach, 3, true),
                t("11", Track::Reach, 4, false)
            ]
        );
    }

    #[test]
    fn rers_csv_without_track_needs_context() {
        let f = read("answers.csv", "11,3,true\n").unwrap();
        let e = f.answers().unwrap_err();
        assert!(e.message.contains("--track"), "{e}");
        assert_eq!(e.line, 1);
        let a = f
            .answers_with(|p| (p == "11").then_some(Track::Reach))
            .unwrap();
        assert_eq!(a, [Answer::new("11", Track::Reach, 3, true)]);
        let opts = ReadOptions {
            track: Some(Track::Ltl),
            ..Default::default()
        };
        let f = parse("answers.csv", "11,3,true\n", &opts).unwrap();
        assert_eq!(f.answers().unwrap()[0].track, Track::Ltl);
    }

    #[test]
    fn property_csv_takes_problem_from_folder() {
        let f = read("x/Problem2/constraints-solution.csv", "0,false\n1,TRUE\n").unwrap();
        assert_eq!(f.format, Format::PropertyCsv);
        assert_eq!(
            triples(&f),
            [t("2", Track::Ltl, 0, false), t("2", Track::Ltl, 1, true)]
        );
        let f = read("Problem1402_reachability_solutions.csv", "7,yes\n").unwrap();
        assert_eq!(triples(&f), [t("1402", Track::Reach, 7, true)]);
    }

    #[test]
    fn csv_2012_splits_labels_and_formulas() {
        let text = "0,no,9\n60,no,9\n61,yes,9\n160,no,9\n";
        let f = read("Problem3-solutions.csv", text).unwrap();
        assert_eq!(f.format, Format::Csv2012);
        assert_eq!(
            triples(&f),
            [
                t("3", Track::Reach, 0, false),
                t("3", Track::Ltl, 0, true),
                t("3", Track::Ltl, 99, false)
            ]
        );
        // Label 60 is kept when said reachable, or when asked for.
        let f = read("Problem3-solutions.csv", "60,yes,9\n").unwrap();
        assert_eq!(triples(&f), [t("3", Track::Reach, 60, true)]);
        let opts = ReadOptions {
            labels: Some(61),
            ..Default::default()
        };
        let f = parse("Problem3-solutions.csv", text, &opts).unwrap();
        assert_eq!(
            f.answers().unwrap()[1],
            Answer::new("3", Track::Reach, 60, false)
        );
    }

    #[test]
    fn track_csv_and_headers() {
        let f = read(
            "a.csv",
            "problem,track,property,verdict\n1,ltl,0,true\n11,reach,error_5,no\n",
        )
        .unwrap();
        assert_eq!(f.format, Format::HeadedCsv);
        assert_eq!(
            triples(&f),
            [t("1", Track::Ltl, 0, true), t("11", Track::Reach, 5, false)]
        );
        let f = read("a.csv", "1,ltl,0,true\n").unwrap();
        assert_eq!(f.format, Format::TrackCsv);
        assert_eq!(triples(&f), [t("1", Track::Ltl, 0, true)]);
    }

    #[test]
    fn bbc_rows_are_refuted_properties() {
        let text =
            "problem,learner,property,fixed,relative\n1,TTT,25,0,0\n1,TTT,12,0,0\n1,TTT,25,3,0\n";
        let f = read("Problem1-TTT.csv", text).unwrap();
        assert_eq!(f.format, Format::BbcCsv);
        assert_eq!(f.tool.as_deref(), Some("TTT"));
        assert_eq!(
            triples(&f),
            [t("1", Track::Ltl, 25, false), t("1", Track::Ltl, 12, false)]
        );
        let f = read(
            "bbc/Problem8-MalerPnueli.csv",
            "problem,learner,property,fixed\n",
        )
        .unwrap();
        assert_eq!(
            (f.format, f.tool.as_deref()),
            (Format::BbcCsv, Some("MalerPnueli"))
        );
        assert!(f.entries.is_empty());
        let e = read("x.csv", "problem,learner,property\n1,TTT,2\n1,ADT,3\n").unwrap_err();
        assert_eq!(e.line, 3);
    }

    #[test]
    fn unknown_answers_are_left_out() {
        let f = read("reach.csv", "\u{feff}11,1,unknown\r\n11,2,true\r\n").unwrap();
        assert_eq!(triples(&f), [t("11", Track::Reach, 2, true)]);
    }

    #[test]
    fn malformed_lines_name_file_and_line() {
        let e = read("reach.csv", "11,1,true\n11,2,maybe\n").unwrap_err();
        assert_eq!((e.file.as_str(), e.line), ("reach.csv", 2));
        let e = read("reach.csv", "11,1,true\n\n11,true\n").unwrap_err();
        assert_eq!(e.line, 3);
        let e = read("reach.csv", "hello world\n").unwrap_err();
        assert_eq!(e.line, 1);
        let e = read("reach.csv", "11,x,true\n").unwrap_err();
        assert!(e.message.contains("bad property"), "{e}");
        let e = read("Problem1-solutions.csv", "0,no,9\n1,no,high\n").unwrap_err();
        assert_eq!(e.line, 2);
    }

    #[test]
    fn conflicting_answers_are_an_error() {
        let f = read("reach.csv", "11,1,true\n11,1,true\n11,1,false\n").unwrap();
        let e = f.answers().unwrap_err();
        assert_eq!(e.line, 3);
        assert!(e.message.contains("line 1"), "{e}");
    }

    const TEXT_2012: &str = "Reachability problems:
===============================
error_44 reachable via input sequence
[A, B, C, A]
---------------

All other errors unreachable


LTL problems:
===============================
Formula: (! oZ WU (oU & ! oZ))
\"output U occurs before output Z\"
Formula is satisfied.
---------------

Formula: (! oV WU oX)
\"output V does never occur before output X\"
Formula is not satisfied! An error path is 
[iB, oV] ([iA, oX])*
---------------

1 constraints satisfied, 1 unsatisfied.
";

    #[test]
    fn solution_text_2012() {
        let f = read("Problem1-solutions.txt", TEXT_2012).unwrap();
        assert_eq!(f.format, Format::SolutionText);
        let a = triples(&f);
        assert_eq!(a.len(), 62);
        assert!(a.contains(&t("1", Track::Reach, 44, true)));
        assert!(a.contains(&t("1", Track::Reach, 0, false)));
        assert!(a.contains(&t("1", Track::Reach, 59, false)));
        assert!(!a.iter().any(|x| x.1 == Track::Reach && x.2 == 60));
        assert!(a.contains(&t("1", Track::Ltl, 0, true)));
        assert!(a.contains(&t("1", Track::Ltl, 1, false)));
    }

    #[test]
    fn solution_text_reach_only_has_100_labels() {
        let text = "Reachability problems:\n=====\nerror_1 reachable via input sequence\n[E, C]\n-----\n\nAll other errors unreachable\n";
        let f = read("solutions/Problem10-solutions.txt", text).unwrap();
        let a = triples(&f);
        assert_eq!(a.len(), 100);
        assert_eq!(a.iter().filter(|x| x.3).count(), 1);
        let opts = ReadOptions {
            labels: Some(10),
            ..Default::default()
        };
        let f = parse("Problem10-solutions.txt", text, &opts).unwrap();
        assert_eq!(f.answers().unwrap().len(), 10);
    }

    #[test]
    fn solution_text_errors() {
        let bad = TEXT_2012.replace("1 constraints satisfied", "2 constraints satisfied");
        let e = read("Problem1-solutions.txt", &bad).unwrap_err();
        assert_eq!(e.line, 23);
        let bad = TEXT_2012.replace("Formula is satisfied.", "Formula holds, probably.");
        let e = read("Problem1-solutions.txt", &bad).unwrap_err();
        assert_eq!(e.line, 14);
        let e = read("notes.txt", "Formula: (true)\nFormula is satisfied.\n").unwrap_err();
        assert!(e.message.contains("problem"), "{e}");
    }

    #[test]
    fn json_reports() {
        let text = r#"{"program": "p/Problem11.c", "problem": "11", "track": "reach",
            "verdicts": [{"property": 0, "verdict": true, "witness": ["A"]},
                         {"property": 1, "verdict": false},
                         {"property": 2, "verdict": null}], "states": 3}"#;
        let f = read("r.json", text).unwrap();
        assert_eq!(f.format, Format::Json);
        assert_eq!(
            triples(&f),
            [
                t("11", Track::Reach, 0, true),
                t("11", Track::Reach, 1, false)
            ]
        );
        let arr = format!("[{text}, {{\"problem\": 2, \"track\": \"ltl\", \"verdicts\": []}}]");
        assert_eq!(read("r.json", &arr).unwrap().entries.len(), 2);
        let e = read("r.json", "{\"problem\": \"1\"}").unwrap_err();
        assert!(e.message.contains("verdicts"), "{e}");
        let e = read("r.json", "{\"problem\": \n\"1\",,}").unwrap_err();
        assert_eq!(e.line, 2);
    }
}
