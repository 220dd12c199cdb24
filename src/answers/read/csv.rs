//! Every CSV shape of the RERS data, recognised from a header or from the
//! first line, read with the `csv` crate (quoting, line positions).

use super::{invalid, LABELS_2012};
use super::{problem_of, property_number, track_of, verdict_word};
use super::{Entry, Format, ReadOptions};
use crate::answers::{AnswerError, Track};

type Result<T> = std::result::Result<T, AnswerError>;

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

pub(super) type CsvRead = (Format, Option<String>, Vec<Entry>);

pub(super) fn parse_csv(path: &str, text: &str, opts: &ReadOptions) -> Result<CsvRead> {
    let mut shape: Option<(Format, Shape)> = None;
    let mut out = Vec::new();
    let mut tool: Option<String> = None;
    let file_problem = problem_of(path, opts);
    let file_track = track_of(path, opts);
    let mut reader = ::csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .trim(::csv::Trim::All)
        .comment(Some(b'#'))
        .from_reader(text.as_bytes());
    for record in reader.records() {
        // The line from the byte offset: the reader does not count the
        // blank lines it skips.
        let line_of = |p: Option<&::csv::Position>| {
            p.map_or(0, |p| {
                let bytes = text.as_bytes();
                let mut at = (p.byte() as usize).min(bytes.len());
                while at < bytes.len() && (bytes[at] == b'\n' || bytes[at] == b'\r') {
                    at += 1;
                }
                bytes[..at].iter().filter(|&&b| b == b'\n').count() as u32 + 1
            })
        };
        let record = record.map_err(|e| invalid(path, line_of(e.position()), 0, e.to_string()))?;
        let line = line_of(record.position());
        let fields: Vec<&str> = record.iter().collect();
        if fields.iter().all(|f| f.is_empty()) {
            continue;
        }
        let l = fields.join(",");
        let err = |msg: String| invalid(path, line, 0, msg);
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
