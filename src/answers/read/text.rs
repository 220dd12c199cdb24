//! The official solution texts (2012, 2017): reachable labels with their
//! input sequences, `All other errors unreachable`, and LTL formulas with
//! their verdicts.

use super::need_problem;
use super::{invalid, LABELS_2012};
use super::{Entry, ReadOptions};
use crate::answers::{AnswerError, Track};

type Result<T> = std::result::Result<T, AnswerError>;

pub(super) fn is_solution_text(text: &str) -> bool {
    text.lines().any(|l| {
        let l = l.trim();
        l == "Reachability problems:"
            || l == "LTL problems:"
            || l.starts_with("Formula: ")
            || (l.starts_with("error_") && l.contains(" reachable via input sequence"))
    })
}

pub(super) fn parse_solution_text(
    path: &str,
    text: &str,
    opts: &ReadOptions,
) -> Result<Vec<Entry>> {
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
        let err = |msg: &str| invalid(path, line, 0, msg.to_string());
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
        return Err(invalid(path, line, 0, "formula without a verdict"));
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
