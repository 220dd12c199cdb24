//! `rigor`'s JSON reports, one or an array of them.

use serde_json::Value;

use super::{invalid, invalid_file};
use super::{need_problem, track_of, verdict_word};
use super::{Entry, ReadOptions};
use crate::answers::{AnswerError, Track};

type Result<T> = std::result::Result<T, AnswerError>;

pub(super) fn parse_json(path: &str, text: &str, opts: &ReadOptions) -> Result<Vec<Entry>> {
    let v: Value = serde_json::from_str(text).map_err(|e| {
        invalid(
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
        let bad = |what: &str| invalid_file(path, format!("report {}: {what}", n + 1));
        let obj = r.as_object().ok_or_else(|| bad("expected an object"))?;
        let problem = match obj.get("problem") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Number(x)) => x.to_string(),
            Some(_) => return Err(bad("`problem` must be a string or a number")),
            None => match obj.get("program").and_then(Value::as_str) {
                Some(prog) => crate::answers::naming::problem_name(prog),
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
