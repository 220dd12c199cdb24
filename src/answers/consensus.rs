//! Reference values from several tools' answers, by the Model Checking
//! Contest 2016 method (`shared/docs/seeds/000_*.txt`, E-2 and E-3.1).
//!
//! **Consistent values** (E-2.2): the properties on which a majority of the
//! tools that answered agree on one verdict, with at least three tools
//! agreeing. "Majority" is read as *more than half of the tools that gave a
//! verdict on that property* (tools that did not answer are not counted).
//!
//! **Confidence** (E-2.2): `C_tool = |V_tool| / |V|`, where `V` is the set of
//! consistent values and `V_tool` those the tool answered with the agreed
//! verdict. When there is no consistent value, every confidence is 0.
//!
//! **Reference value** of a property (E-3.1), over the tools that answered:
//! all agree → that verdict; exactly two tools disagree → the more confident
//! one, unknown on a tie; three or more disagree → the verdict with the
//! larger sum of confidences, unknown on a tie; one tool → its verdict if its
//! confidence is above 0.93, else unknown. All comparisons are exact: every
//! confidence is a multiple of `1/|V|`, so they are done on the numerators.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::{AnswerMap, Key};

/// One tool's answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tool {
    /// The tool's name.
    pub name: String,
    /// Its answers.
    pub answers: AnswerMap,
}

/// Which rule of E-3.1 decided a reference value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rule {
    /// All tools that answered agree (two or more).
    AllAgree,
    /// Three or more tools disagree; the larger confidence sum wins.
    WeightedMajority,
    /// Two tools disagree; the more confident wins.
    MoreConfident,
    /// A single tool with confidence above 0.93.
    LoneTool,
    /// Two tools, or the weighted sums, tie.
    Tie,
    /// A single tool with confidence 0.93 or below.
    LoneToolNotConfident,
}

impl Rule {
    /// The rule's name as printed.
    pub fn name(self) -> &'static str {
        match self {
            Rule::AllAgree => "all-agree",
            Rule::WeightedMajority => "weighted-majority",
            Rule::MoreConfident => "more-confident",
            Rule::LoneTool => "lone-tool",
            Rule::Tie => "tie",
            Rule::LoneToolNotConfident => "lone-tool-not-confident",
        }
    }
}

/// The reference value of one property.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Reference {
    /// The property.
    #[serde(flatten)]
    pub key: Key,
    /// The reference verdict, `None` when unknown.
    pub verdict: Option<bool>,
    /// The rule that decided it.
    pub rule: Rule,
    /// Tools that answered true.
    pub yes: usize,
    /// Tools that answered false.
    pub no: usize,
}

/// One tool's standing.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ToolReport {
    /// The tool's name.
    pub name: String,
    /// Properties it answered.
    pub answered: usize,
    /// Consistent values it answered with the agreed verdict (`|V_tool|`).
    pub agreed: usize,
    /// `|V_tool| / |V|` (0 when `V` is empty).
    pub confidence: f64,
    /// Properties where its verdict differs from a known reference value.
    pub disagreements: Vec<Key>,
}

/// Everything `rigor consensus` reports.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ConsensusReport {
    /// Number of consistent values, `|V|`.
    pub consistent: usize,
    /// The tools.
    pub tools: Vec<ToolReport>,
    /// One reference per property some tool answered.
    pub references: Vec<Reference>,
}

impl ConsensusReport {
    /// The known reference values.
    pub fn reference_answers(&self) -> AnswerMap {
        self.references
            .iter()
            .filter_map(|r| r.verdict.map(|v| (r.key.clone(), v)))
            .collect()
    }
}

/// Computes confidences and reference values.
pub fn consensus(tools: &[Tool]) -> ConsensusReport {
    // Who said what on each property: (tool index, verdict).
    let mut said: BTreeMap<&Key, Vec<(usize, bool)>> = BTreeMap::new();
    for (i, t) in tools.iter().enumerate() {
        for (k, &v) in &t.answers {
            said.entry(k).or_default().push((i, v));
        }
    }
    // Consistent values: majority of the answering tools, at least three.
    let mut consistent: BTreeMap<&Key, bool> = BTreeMap::new();
    for (k, votes) in &said {
        let yes = votes.iter().filter(|(_, v)| *v).count();
        let no = votes.len() - yes;
        for (verdict, n) in [(true, yes), (false, no)] {
            if n >= 3 && 2 * n > votes.len() {
                consistent.insert(*k, verdict);
            }
        }
    }
    // Confidence numerators |V_tool| (denominator |V|).
    let agreed: Vec<usize> = tools
        .iter()
        .map(|t| {
            consistent
                .iter()
                .filter(|(k, v)| t.answers.get(**k) == Some(*v))
                .count()
        })
        .collect();
    let v_size = consistent.len();
    let mut references = Vec::new();
    for (k, votes) in &said {
        let yes = votes.iter().filter(|(_, v)| *v).count();
        let no = votes.len() - yes;
        let (verdict, rule) = if votes.len() == 1 {
            let (tool, v) = votes[0];
            // agreed / |V| > 0.93  ⇔  100·agreed > 93·|V|
            if v_size > 0 && 100 * agreed[tool] > 93 * v_size {
                (Some(v), Rule::LoneTool)
            } else {
                (None, Rule::LoneToolNotConfident)
            }
        } else if yes == 0 || no == 0 {
            (Some(yes > 0), Rule::AllAgree)
        } else {
            let weight = |want: bool| -> usize {
                votes
                    .iter()
                    .filter(|(_, v)| *v == want)
                    .map(|(t, _)| agreed[*t])
                    .sum()
            };
            let (wy, wn) = (weight(true), weight(false));
            let rule = if votes.len() == 2 {
                Rule::MoreConfident
            } else {
                Rule::WeightedMajority
            };
            match wy.cmp(&wn) {
                std::cmp::Ordering::Greater => (Some(true), rule),
                std::cmp::Ordering::Less => (Some(false), rule),
                std::cmp::Ordering::Equal => (None, Rule::Tie),
            }
        };
        references.push(Reference {
            key: (*k).clone(),
            verdict,
            rule,
            yes,
            no,
        });
    }
    let reference_of: BTreeMap<&Key, bool> = references
        .iter()
        .filter_map(|r| r.verdict.map(|v| (&r.key, v)))
        .collect();
    let tools = tools
        .iter()
        .zip(&agreed)
        .map(|(t, &a)| ToolReport {
            name: t.name.clone(),
            answered: t.answers.len(),
            agreed: a,
            confidence: if v_size == 0 {
                0.0
            } else {
                a as f64 / v_size as f64
            },
            disagreements: t
                .answers
                .iter()
                .filter(|(k, v)| reference_of.get(k).is_some_and(|r| r != *v))
                .map(|(k, _)| k.clone())
                .collect(),
        })
        .collect();
    ConsensusReport {
        consistent: v_size,
        tools,
        references,
    }
}

/// Merges answer sets that belong to the same tool name (several files of
/// one tool, e.g. one per problem), keeping first-seen order. Returns the
/// tools and, on a conflict, the tool and property concerned.
pub fn group_tools(parts: Vec<(String, AnswerMap)>) -> Result<Vec<Tool>, (String, Key)> {
    let mut order: Vec<String> = Vec::new();
    let mut by_name: BTreeMap<String, AnswerMap> = BTreeMap::new();
    for (name, answers) in parts {
        if !by_name.contains_key(&name) {
            order.push(name.clone());
        }
        let m = by_name.entry(name.clone()).or_default();
        for (k, v) in answers {
            if let Some(&w) = m.get(&k) {
                if w != v {
                    return Err((name, k));
                }
            }
            m.insert(k, v);
        }
    }
    let names: BTreeSet<&String> = order.iter().collect();
    debug_assert_eq!(names.len(), order.len());
    Ok(order
        .into_iter()
        .map(|name| {
            let answers = by_name.remove(&name).unwrap_or_default();
            Tool { name, answers }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::super::Track;
    use super::*;

    fn k(n: u32) -> Key {
        Key::new("1", Track::Ltl, n)
    }

    fn tool(name: &str, answers: &[(u32, bool)]) -> Tool {
        Tool {
            name: name.to_string(),
            answers: answers.iter().map(|&(n, v)| (k(n), v)).collect(),
        }
    }

    fn reference(r: &ConsensusReport, n: u32) -> (Option<bool>, Rule) {
        let x = r
            .references
            .iter()
            .find(|x| x.key == k(n))
            .expect("property");
        (x.verdict, x.rule)
    }

    #[test]
    fn no_answers() {
        let r = consensus(&[tool("a", &[]), tool("b", &[])]);
        assert_eq!(r.consistent, 0);
        assert!(r.references.is_empty());
        assert!(r.tools.iter().all(|t| t.confidence == 0.0));
        assert!(consensus(&[]).references.is_empty());
    }

    #[test]
    fn all_agree() {
        let r = consensus(&[tool("a", &[(0, true)]), tool("b", &[(0, true)])]);
        assert_eq!(reference(&r, 0), (Some(true), Rule::AllAgree));
        // Two tools agreeing are not a consistent value (three needed).
        assert_eq!(r.consistent, 0);
    }

    /// Four tools; properties 0..=9 are consistent (a, b, c agree, d gives
    /// the opposite on 0..=4 and nothing on 5..=9): confidences a, b, c =
    /// 10/10, d = 0/10.
    fn four_tools(extra: &[(&str, u32, bool)]) -> Vec<Tool> {
        let mut tools: Vec<Tool> = ["a", "b", "c", "d"].iter().map(|n| tool(n, &[])).collect();
        for n in 0..10 {
            for t in &mut tools[..3] {
                t.answers.insert(k(n), true);
            }
            if n < 5 {
                tools[3].answers.insert(k(n), false);
            }
        }
        for &(name, n, v) in extra {
            let t = tools.iter_mut().find(|t| t.name == name).unwrap();
            t.answers.insert(k(n), v);
        }
        tools
    }

    #[test]
    fn confidence_and_planted_disagreements() {
        let r = consensus(&four_tools(&[]));
        assert_eq!(r.consistent, 10);
        let conf: Vec<f64> = r.tools.iter().map(|t| t.confidence).collect();
        assert_eq!(conf, [1.0, 1.0, 1.0, 0.0]);
        assert_eq!(reference(&r, 0), (Some(true), Rule::WeightedMajority));
        assert_eq!(r.tools[3].disagreements, (0..5).map(k).collect::<Vec<_>>());
        assert!(r.tools[0].disagreements.is_empty());
    }

    #[test]
    fn weighted_majority_beats_head_count() {
        // Property 20, two against two: a + b (10 + 10) say true, c + d
        // (10 + 0) say false → true.
        let r = consensus(&four_tools(&[
            ("a", 20, true),
            ("b", 20, true),
            ("c", 20, false),
            ("d", 20, false),
        ]));
        assert_eq!(reference(&r, 20), (Some(true), Rule::WeightedMajority));
        // Property 21, two against one but weights 10 + 0 against 10: a tie,
        // so unknown.
        let r = consensus(&four_tools(&[
            ("a", 21, true),
            ("d", 21, true),
            ("c", 21, false),
        ]));
        assert_eq!(reference(&r, 21), (None, Rule::Tie));
    }

    #[test]
    fn minority_with_more_confidence_wins() {
        // A fifth tool e answers 0..=4 only: confidence 5/10. Property 30:
        // a (10) says false, d (0) and e (5) say true: 10 against 5, so the
        // minority's false wins.
        let mut tools = four_tools(&[("a", 30, false), ("d", 30, true)]);
        let mut e = tool("e", &[(30, true)]);
        for n in 0..5 {
            e.answers.insert(k(n), true);
        }
        tools.push(e);
        let r = consensus(&tools);
        assert_eq!(r.tools[4].agreed, 5);
        assert_eq!(reference(&r, 30), (Some(false), Rule::WeightedMajority));
        assert_eq!(r.tools[3].disagreements.last(), Some(&k(30)));
    }

    #[test]
    fn two_tools_more_confident_wins() {
        let r = consensus(&four_tools(&[("a", 40, true), ("d", 40, false)]));
        assert_eq!(reference(&r, 40), (Some(true), Rule::MoreConfident));
        let r = consensus(&four_tools(&[("d", 41, true), ("b", 41, false)]));
        assert_eq!(reference(&r, 41), (Some(false), Rule::MoreConfident));
        let r = consensus(&four_tools(&[("a", 42, true), ("b", 42, false)]));
        assert_eq!(reference(&r, 42), (None, Rule::Tie));
    }

    #[test]
    fn lone_tool_needs_more_than_093() {
        let r = consensus(&four_tools(&[("a", 50, false)]));
        assert_eq!(reference(&r, 50), (Some(false), Rule::LoneTool));
        let r = consensus(&four_tools(&[("d", 51, true)]));
        assert_eq!(reference(&r, 51), (None, Rule::LoneToolNotConfident));
        // Exactly at the bound: 93 agreed of 100 is not above 0.93.
        let mut tools: Vec<Tool> = ["a", "b", "c", "e"].iter().map(|n| tool(n, &[])).collect();
        for n in 0..100 {
            for t in &mut tools[..3] {
                t.answers.insert(k(n), true);
            }
            if n < 93 {
                tools[3].answers.insert(k(n), true);
            }
        }
        tools[3].answers.insert(k(200), true);
        let r = consensus(&tools);
        assert_eq!(r.consistent, 100);
        assert_eq!(reference(&r, 200), (None, Rule::LoneToolNotConfident));
        tools[3].answers.insert(k(93), true);
        let r = consensus(&tools);
        assert_eq!(reference(&r, 200), (Some(true), Rule::LoneTool));
    }

    #[test]
    fn consistent_needs_majority_and_three() {
        // 3 of 5 agree: consistent; 3 of 6: no majority.
        let five: Vec<Tool> = (0..5)
            .map(|i| tool(&format!("t{i}"), &[(0, i < 3)]))
            .collect();
        assert_eq!(consensus(&five).consistent, 1);
        let six: Vec<Tool> = (0..6)
            .map(|i| tool(&format!("t{i}"), &[(0, i < 3)]))
            .collect();
        assert_eq!(consensus(&six).consistent, 0);
        // Tools that did not answer do not count against the majority.
        let mut some: Vec<Tool> = (0..3)
            .map(|i| tool(&format!("t{i}"), &[(0, true)]))
            .collect();
        some.extend((3..7).map(|i| tool(&format!("t{i}"), &[])));
        assert_eq!(consensus(&some).consistent, 1);
    }

    #[test]
    fn grouping_tools_by_name() {
        let a1: AnswerMap = [(k(0), true)].into_iter().collect();
        let a2: AnswerMap = [(k(1), false)].into_iter().collect();
        let b: AnswerMap = [(k(0), false)].into_iter().collect();
        let tools = group_tools(vec![
            ("a".into(), a1.clone()),
            ("b".into(), b.clone()),
            ("a".into(), a2),
        ])
        .unwrap();
        assert_eq!(tools.len(), 2);
        assert_eq!(tools[0].answers.len(), 2);
        assert_eq!(
            group_tools(vec![("a".into(), a1), ("a".into(), b)]).unwrap_err(),
            ("a".to_string(), k(0))
        );
    }
}
