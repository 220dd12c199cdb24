//! Scoring answers against a solution, as RERS 2019 does
//! (`shared/docs/seeds/003_*.txt`).
//!
//! **Tokens.** Each answered property collects tokens by what the property
//! really is: an unreachable error or a verifiable (true) LTL property is
//! worth 2, a reachable error or a refutable (false) LTL property 1, a CTL
//! property 1. Correct answers add to `p`, wrong ones to `q`, and a track's
//! score is `p − q²` (so a wrong answer on a verifiable property costs 4).
//! Unanswered properties collect nothing. Answers to properties the solution
//! does not have are *extra*: listed, never scored.
//!
//! **Achievements** (sequential tracks, one per category of a track): no
//! wrong answer in the category, and at least as many (correct) answers as
//! the threshold: `T_bronze` = falsifiable properties (reachable errors,
//! violated LTL properties) of the bronze problems, `T_silver` = `T_bronze` +
//! those of the silver problems, `T_gold` = `T_silver` + those of the gold
//! problems. For CTL, a problem's threshold is 12 properties (fewer if it
//! has fewer). The best level reached is reported; at least one correct
//! answer is required. With [`Scheme::Industrial`] (industrial tracks) a
//! problem is *solved* when its threshold is reached with no wrong answer on
//! it, and bronze, silver and gold need a third, two thirds and all of the
//! category's problems solved.
//!
//! **Categories.** A category is a list of problems in order of difficulty,
//! split into thirds: first bronze, then silver, then gold (RERS 2019: one
//! problem each, e.g. `plain=11,12,13`). Problems of a track that no
//! category names form the category `all`, ordered by problem number.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::str::FromStr;

use serde::Serialize;

use super::AnswerError;
use super::{cmp_problems, AnswerMap, Key, Track};
use crate::source::Diagnostic;

/// Tokens a property is worth, by its true verdict.
pub fn tokens(track: Track, truth: bool) -> u64 {
    match (track, truth) {
        (Track::Reach, true) => 1,
        (Track::Reach, false) => 2,
        (Track::Ltl, true) => 2,
        (Track::Ltl, false) => 1,
        (Track::Ctl, _) => 1,
    }
}

/// Whether a property with this true verdict has a counterexample or
/// witness path (a reachable error, a violated LTL property).
pub fn falsifiable(track: Track, truth: bool) -> bool {
    match track {
        Track::Reach => truth,
        Track::Ltl | Track::Ctl => !truth,
    }
}

/// An achievement level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Medal {
    /// T_bronze reached.
    Bronze,
    /// T_silver reached.
    Silver,
    /// T_gold reached.
    Gold,
}

impl fmt::Display for Medal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Medal::Bronze => "bronze",
            Medal::Silver => "silver",
            Medal::Gold => "gold",
        })
    }
}

/// A category: a name and its problems from easiest (bronze) to hardest
/// (gold). Written `NAME=P1,P2,P3` on the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CategorySpec {
    /// The category name.
    pub name: String,
    /// Its problems, in order of difficulty.
    pub problems: Vec<String>,
}

impl FromStr for CategorySpec {
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<Self, Self::Err> {
        let (name, list) = s
            .split_once('=')
            .ok_or_else(|| format!("expected NAME=P1,P2,..., got `{s}`"))?;
        let problems: Vec<String> = list
            .split(',')
            .map(|p| p.trim().to_string())
            .filter(|p| !p.is_empty())
            .collect();
        if name.trim().is_empty() || problems.is_empty() {
            return Err(format!("expected NAME=P1,P2,..., got `{s}`"));
        }
        Ok(CategorySpec {
            name: name.trim().to_string(),
            problems,
        })
    }
}

/// The tier (0 bronze, 1 silver, 2 gold) of the `i`-th of `n` problems.
pub fn tier(i: usize, n: usize) -> usize {
    i * 3 / n.max(1)
}

/// A wrong answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct WrongAnswer {
    /// The problem.
    pub problem: String,
    /// The track.
    pub track: Track,
    /// The property.
    pub property: u32,
    /// The verdict given.
    pub answered: bool,
    /// The solution's verdict.
    pub expected: bool,
    /// Tokens it adds to q.
    pub tokens: u64,
}

/// Thresholds of a category.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Thresholds {
    /// T_bronze.
    pub bronze: usize,
    /// T_silver.
    pub silver: usize,
    /// T_gold.
    pub gold: usize,
}

/// The result of one category of one track.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CategoryScore {
    /// The track.
    pub track: Track,
    /// The category name.
    pub name: String,
    /// Its problems with their tier (`bronze`, `silver`, `gold`).
    pub problems: Vec<(String, Medal)>,
    /// Correct answers in the category.
    pub correct: usize,
    /// Wrong answers in the category.
    pub wrong: usize,
    /// Problems solved: their threshold reached, no wrong answer.
    pub solved: usize,
    /// The thresholds: correct answers (sequential) or problems solved
    /// (industrial).
    pub thresholds: Thresholds,
    /// The achievement earned, if any.
    pub achievement: Option<Medal>,
}

/// The result of one track.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TrackScore {
    /// The track.
    pub track: Track,
    /// Tokens of correct answers.
    pub p: u64,
    /// Tokens of wrong answers.
    pub q: u64,
    /// p − q².
    pub score: i64,
    /// The score of answering every property correctly.
    pub max_score: u64,
    /// Answers to properties of the solution.
    pub answered: usize,
    /// Correct answers.
    pub correct: usize,
    /// Wrong answers.
    pub wrong: usize,
    /// Properties of the solution without an answer.
    pub unanswered: usize,
    /// Answers to properties the solution does not have.
    pub extra: usize,
}

/// Everything `rigor score` reports.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ScoreReport {
    /// Tokens of correct answers, all tracks.
    pub p: u64,
    /// Tokens of wrong answers, all tracks.
    pub q: u64,
    /// The sum of the tracks' scores `p − q²` (RERS ranks tracks apart; with
    /// one track this is `p − q²`).
    pub score: i64,
    /// The best possible score: every property answered correctly.
    pub max_score: u64,
    /// Answers to properties of the solution.
    pub answered: usize,
    /// Correct answers.
    pub correct: usize,
    /// Properties of the solution without an answer.
    pub unanswered: usize,
    /// Every wrong answer.
    pub wrong: Vec<WrongAnswer>,
    /// Answers to properties the solution does not have (not scored).
    pub extra: Vec<Key>,
    /// The unanswered properties.
    pub unanswered_properties: Vec<Key>,
    /// Per track.
    pub tracks: Vec<TrackScore>,
    /// Per category of each track.
    pub categories: Vec<CategoryScore>,
}

/// Merges the answers of several files (several solution files, or one
/// tool's answer files); two files disagreeing on a property is an error
/// naming both.
pub fn merge_files(files: &[(String, AnswerMap)]) -> Result<AnswerMap, AnswerError> {
    let mut out = AnswerMap::new();
    let mut from: BTreeMap<Key, &str> = BTreeMap::new();
    for (path, m) in files {
        for (k, &v) in m {
            match out.get(k) {
                Some(&w) if w != v => {
                    return Err(AnswerError::Invalid(Diagnostic::file(
                        path,
                        format!(
                            "{v} for {k} here, but {} says {w}",
                            from.get(k).copied().unwrap_or("?")
                        ),
                    )))
                }
                Some(_) => {}
                None => {
                    out.insert(k.clone(), v);
                    from.insert(k.clone(), path);
                }
            }
        }
    }
    Ok(out)
}

/// The only track the solution has for `problem`, if there is exactly one.
pub fn track_in_solution(solution: &AnswerMap, problem: &str) -> Option<Track> {
    let tracks: BTreeSet<Track> = solution
        .keys()
        .filter(|k| k.problem == problem)
        .map(|k| k.track)
        .collect();
    match tracks.len() {
        1 => tracks.into_iter().next(),
        _ => None,
    }
}

/// How achievements are earned.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Scheme {
    /// Sequential and parallel tracks: correct answers against the summed
    /// thresholds of the bronze, silver and gold problems.
    #[default]
    Sequential,
    /// Industrial tracks: problems solved (threshold reached, no wrong
    /// answer) against a third, two thirds and all of the category.
    Industrial,
}

/// Scores `answers` against `solution` (sequential achievements).
pub fn score(
    answers: &AnswerMap,
    solution: &AnswerMap,
    categories: &[CategorySpec],
) -> ScoreReport {
    score_with(answers, solution, categories, Scheme::Sequential)
}

/// Scores `answers` against `solution` with the given achievement scheme.
pub fn score_with(
    answers: &AnswerMap,
    solution: &AnswerMap,
    categories: &[CategorySpec],
    scheme: Scheme,
) -> ScoreReport {
    let mut tracks: BTreeMap<Track, TrackScore> = BTreeMap::new();
    let mut wrong = Vec::new();
    let mut unanswered_properties = Vec::new();
    let mut extra = Vec::new();
    let blank = |track| TrackScore {
        track,
        p: 0,
        q: 0,
        score: 0,
        max_score: 0,
        answered: 0,
        correct: 0,
        wrong: 0,
        unanswered: 0,
        extra: 0,
    };
    for (k, &truth) in solution {
        let t = tracks.entry(k.track).or_insert_with(|| blank(k.track));
        let w = tokens(k.track, truth);
        t.max_score += w;
        match answers.get(k) {
            None => {
                t.unanswered += 1;
                unanswered_properties.push(k.clone());
            }
            Some(&v) => {
                t.answered += 1;
                if v == truth {
                    t.correct += 1;
                    t.p += w;
                } else {
                    t.wrong += 1;
                    t.q += w;
                    wrong.push(WrongAnswer {
                        problem: k.problem.clone(),
                        track: k.track,
                        property: k.property,
                        answered: v,
                        expected: truth,
                        tokens: w,
                    });
                }
            }
        }
    }
    for k in answers.keys().filter(|k| !solution.contains_key(k)) {
        tracks
            .entry(k.track)
            .or_insert_with(|| blank(k.track))
            .extra += 1;
        extra.push(k.clone());
    }
    for t in tracks.values_mut() {
        t.score = t.p as i64 - (t.q * t.q) as i64;
    }
    let categories = category_scores(answers, solution, categories, scheme);
    let tracks: Vec<TrackScore> = tracks.into_values().collect();
    ScoreReport {
        p: tracks.iter().map(|t| t.p).sum(),
        q: tracks.iter().map(|t| t.q).sum(),
        score: tracks.iter().map(|t| t.score).sum(),
        max_score: tracks.iter().map(|t| t.max_score).sum(),
        answered: tracks.iter().map(|t| t.answered).sum(),
        correct: tracks.iter().map(|t| t.correct).sum(),
        unanswered: unanswered_properties.len(),
        wrong,
        extra,
        unanswered_properties,
        tracks,
        categories,
    }
}

const MEDALS: [Medal; 3] = [Medal::Bronze, Medal::Silver, Medal::Gold];

fn category_scores(
    answers: &AnswerMap,
    solution: &AnswerMap,
    specs: &[CategorySpec],
    scheme: Scheme,
) -> Vec<CategoryScore> {
    let mut out = Vec::new();
    for track in Track::ALL {
        let mut problems: Vec<&str> = solution
            .keys()
            .filter(|k| k.track == track)
            .map(|k| k.problem.as_str())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        if problems.is_empty() {
            continue;
        }
        problems.sort_by(|a, b| cmp_problems(a, b));
        let mut groups: Vec<(String, Vec<(String, Medal)>)> = Vec::new();
        let mut named: BTreeSet<&str> = BTreeSet::new();
        for spec in specs {
            let n = spec.problems.len();
            let members: Vec<(String, Medal)> = spec
                .problems
                .iter()
                .enumerate()
                .filter(|(_, p)| problems.contains(&p.as_str()))
                .map(|(i, p)| (p.clone(), MEDALS[tier(i, n)]))
                .collect();
            named.extend(spec.problems.iter().map(String::as_str));
            if !members.is_empty() {
                groups.push((spec.name.clone(), members));
            }
        }
        let rest: Vec<&str> = problems
            .iter()
            .copied()
            .filter(|p| !named.contains(p))
            .collect();
        if !rest.is_empty() {
            let n = rest.len();
            let members = rest
                .iter()
                .enumerate()
                .map(|(i, p)| (p.to_string(), MEDALS[tier(i, n)]))
                .collect();
            groups.push(("all".to_string(), members));
        }
        for (name, members) in groups {
            let mut level = [0usize; 3];
            let (mut correct, mut wrong, mut solved) = (0, 0, 0);
            for (problem, medal) in &members {
                let props: Vec<(&Key, bool)> = solution
                    .iter()
                    .filter(|(k, _)| k.track == track && &k.problem == problem)
                    .map(|(k, &v)| (k, v))
                    .collect();
                let need = match track {
                    Track::Ctl => props.len().min(12),
                    _ => props.iter().filter(|(_, v)| falsifiable(track, *v)).count(),
                };
                level[*medal as usize] += need;
                let (mut right_here, mut wrong_here) = (0, 0);
                for (k, truth) in props {
                    match answers.get(k) {
                        Some(&v) if v == truth => right_here += 1,
                        Some(_) => wrong_here += 1,
                        None => {}
                    }
                }
                if wrong_here == 0 && right_here > 0 && right_here >= need {
                    solved += 1;
                }
                correct += right_here;
                wrong += wrong_here;
            }
            let n = members.len();
            let (thresholds, reached) = match scheme {
                Scheme::Sequential => (
                    Thresholds {
                        bronze: level[0],
                        silver: level[0] + level[1],
                        gold: level[0] + level[1] + level[2],
                    },
                    correct,
                ),
                // Problems solved: a third, two thirds, all.
                Scheme::Industrial => (
                    Thresholds {
                        bronze: n.div_ceil(3),
                        silver: (2 * n).div_ceil(3),
                        gold: n,
                    },
                    solved,
                ),
            };
            let achievement = if wrong > 0 || reached == 0 {
                None
            } else if reached >= thresholds.gold {
                Some(Medal::Gold)
            } else if reached >= thresholds.silver {
                Some(Medal::Silver)
            } else if reached >= thresholds.bronze {
                Some(Medal::Bronze)
            } else {
                None
            };
            out.push(CategoryScore {
                track,
                name,
                problems: members,
                correct,
                wrong,
                solved,
                thresholds,
                achievement,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(items: &[(&str, Track, u32, bool)]) -> AnswerMap {
        items
            .iter()
            .map(|&(p, t, n, v)| (Key::new(p, t, n), v))
            .collect()
    }

    #[test]
    fn token_values() {
        assert_eq!(tokens(Track::Reach, false), 2);
        assert_eq!(tokens(Track::Reach, true), 1);
        assert_eq!(tokens(Track::Ltl, true), 2);
        assert_eq!(tokens(Track::Ltl, false), 1);
        assert_eq!(tokens(Track::Ctl, true), 1);
        assert_eq!(tokens(Track::Ctl, false), 1);
    }

    #[test]
    fn tiers_split_in_thirds() {
        let t = |n| (0..n).map(|i| tier(i, n)).collect::<Vec<_>>();
        assert_eq!(t(1), [0]);
        assert_eq!(t(3), [0, 1, 2]);
        assert_eq!(t(4), [0, 0, 1, 2]);
        assert_eq!(t(6), [0, 0, 1, 1, 2, 2]);
    }

    #[test]
    fn category_specs_parse() {
        let c: CategorySpec = "plain=11, 12,13".parse().unwrap();
        assert_eq!(c.name, "plain");
        assert_eq!(c.problems, ["11", "12", "13"]);
        assert!("plain".parse::<CategorySpec>().is_err());
        assert!("plain=".parse::<CategorySpec>().is_err());
    }

    /// Problem 1, reach: labels 0,1 reachable, 2,3 unreachable (max 1+1+2+2
    /// = 6). LTL: #0 true, #1 false (max 2+1 = 3).
    fn solution() -> AnswerMap {
        map(&[
            ("1", Track::Reach, 0, true),
            ("1", Track::Reach, 1, true),
            ("1", Track::Reach, 2, false),
            ("1", Track::Reach, 3, false),
            ("1", Track::Ltl, 0, true),
            ("1", Track::Ltl, 1, false),
        ])
    }

    #[test]
    fn perfect_answers() {
        let s = solution();
        let r = score(&s, &s, &[]);
        assert_eq!((r.p, r.q, r.score, r.max_score), (9, 0, 9, 9));
        assert_eq!((r.answered, r.unanswered), (6, 0));
        assert!(r.wrong.is_empty() && r.extra.is_empty());
        assert!(r
            .categories
            .iter()
            .all(|c| c.achievement == Some(Medal::Gold)));
    }

    #[test]
    fn wrong_missing_and_extra_answers() {
        // reach: 0 right (1), 1 wrong (reachable said unreachable: q 1),
        // 2 wrong (unreachable said reachable: q 2), 3 missing, 7 extra.
        let a = map(&[
            ("1", Track::Reach, 0, true),
            ("1", Track::Reach, 1, false),
            ("1", Track::Reach, 2, true),
            ("1", Track::Reach, 7, false),
            ("1", Track::Ltl, 0, true),
        ]);
        let r = score(&a, &solution(), &[]);
        let reach = &r.tracks[0];
        assert_eq!((reach.p, reach.q, reach.score), (1, 3, 1 - 9));
        assert_eq!(
            (reach.answered, reach.wrong, reach.unanswered, reach.extra),
            (3, 2, 1, 1)
        );
        let ltl = &r.tracks[1];
        assert_eq!((ltl.p, ltl.q, ltl.score, ltl.max_score), (2, 0, 2, 3));
        assert_eq!((r.p, r.q, r.score, r.max_score), (3, 3, -8 + 2, 9));
        assert_eq!(r.wrong.len(), 2);
        assert_eq!(r.wrong[1].tokens, 2);
        assert_eq!(r.extra, [Key::new("1", Track::Reach, 7)]);
        assert_eq!(r.categories[0].achievement, None);
        // LTL: one falsifiable property, one correct answer: gold (only
        // one problem, so every threshold is 1).
        assert_eq!(r.categories[1].thresholds.gold, 1);
        assert_eq!(r.categories[1].achievement, Some(Medal::Gold));
    }

    #[test]
    fn achievement_levels_follow_thresholds() {
        // Three problems, each with 2 reachable and 2 unreachable labels:
        // thresholds 2 / 4 / 6.
        let mut s = AnswerMap::new();
        for p in ["11", "12", "13"] {
            for l in 0..4 {
                s.insert(Key::new(p, Track::Reach, l), l < 2);
            }
        }
        let answered =
            |n: usize| -> AnswerMap { s.iter().take(n).map(|(k, &v)| (k.clone(), v)).collect() };
        let medal = |n| score(&answered(n), &s, &[]).categories[0].achievement;
        assert_eq!(medal(0), None);
        assert_eq!(medal(1), None);
        assert_eq!(medal(2), Some(Medal::Bronze));
        assert_eq!(medal(4), Some(Medal::Silver));
        assert_eq!(medal(5), Some(Medal::Silver));
        assert_eq!(medal(6), Some(Medal::Gold));
        let r = score(&answered(6), &s, &[]);
        assert_eq!(
            r.categories[0].thresholds,
            Thresholds {
                bronze: 2,
                silver: 4,
                gold: 6
            }
        );
    }

    #[test]
    fn named_categories() {
        let mut s = AnswerMap::new();
        for p in ["11", "12", "14"] {
            s.insert(Key::new(p, Track::Reach, 0), true);
        }
        let spec: CategorySpec = "plain=12,11".parse().unwrap();
        let r = score(&s, &s, &[spec]);
        assert_eq!(r.categories.len(), 2);
        assert_eq!(r.categories[0].name, "plain");
        assert_eq!(
            r.categories[0].problems,
            [
                ("12".to_string(), Medal::Bronze),
                ("11".to_string(), Medal::Silver)
            ]
        );
        assert_eq!(r.categories[1].name, "all");
    }

    #[test]
    fn ctl_threshold_is_twelve_per_problem() {
        let mut s = AnswerMap::new();
        for n in 0..20 {
            s.insert(Key::new("101", Track::Ctl, n), n % 2 == 0);
        }
        let a: AnswerMap = s.iter().take(12).map(|(k, &v)| (k.clone(), v)).collect();
        let r = score(&a, &s, &[]);
        assert_eq!(r.categories[0].thresholds.gold, 12);
        assert_eq!(r.categories[0].achievement, Some(Medal::Gold));
        assert_eq!((r.p, r.max_score), (12, 20));
    }

    #[test]
    fn industrial_achievements_count_solved_problems() {
        // Four problems, two reachable labels each (+1 unreachable):
        // thresholds 2 / 3 / 4 problems.
        let mut s = AnswerMap::new();
        for p in ["a", "b", "c", "d"] {
            for l in 0..3 {
                s.insert(Key::new(p, Track::Reach, l), l < 2);
            }
        }
        let solve = |ps: &[&str], partial: &[&str]| -> AnswerMap {
            let mut a = AnswerMap::new();
            for (k, &v) in &s {
                if ps.contains(&k.problem.as_str())
                    || (partial.contains(&k.problem.as_str()) && k.property == 0)
                {
                    a.insert(k.clone(), v);
                }
            }
            a
        };
        let medal = |a: &AnswerMap| {
            let r = score_with(a, &s, &[], Scheme::Industrial);
            let c = &r.categories[0];
            assert_eq!(
                (c.thresholds.bronze, c.thresholds.silver, c.thresholds.gold),
                (2, 3, 4)
            );
            (c.solved, c.achievement)
        };
        assert_eq!(medal(&solve(&["a"], &["b", "c"])), (1, None));
        assert_eq!(medal(&solve(&["a", "b"], &["c"])), (2, Some(Medal::Bronze)));
        assert_eq!(
            medal(&solve(&["a", "b", "c"], &[])),
            (3, Some(Medal::Silver))
        );
        assert_eq!(
            medal(&solve(&["a", "b", "c", "d"], &[])),
            (4, Some(Medal::Gold))
        );
        // The sequential scheme counts answers: 7 against 4 / 6 / 8.
        let r = score(&solve(&["a", "b"], &["c"]), &s, &[]);
        assert_eq!(r.categories[0].achievement, Some(Medal::Silver));
        let mut a = solve(&["a", "b", "c", "d"], &[]);
        a.insert(Key::new("d", Track::Reach, 2), true);
        assert_eq!(medal(&a), (3, None));
    }

    #[test]
    fn merging_solutions_detects_conflicts() {
        let a = map(&[("1", Track::Reach, 0, true)]);
        let b = map(&[("1", Track::Reach, 0, false)]);
        assert_eq!(
            merge_files(&[("a".into(), a.clone()), ("a2".into(), a.clone())]).unwrap(),
            a
        );
        let e = merge_files(&[("a".into(), a), ("b".into(), b)]).unwrap_err();
        let e = e.diagnostic().expect("located");
        assert_eq!(e.at.file, "b");
        assert!(e.message.contains("a says true"), "{e}");
    }

    #[test]
    fn track_from_solution() {
        let s = solution();
        assert_eq!(track_in_solution(&s, "1"), None);
        let s = map(&[("11", Track::Reach, 0, true)]);
        assert_eq!(track_in_solution(&s, "11"), Some(Track::Reach));
        assert_eq!(track_in_solution(&s, "12"), None);
    }
}
