//! Direct evaluation of an LTL formula on a lasso word `u v^ω`.
//!
//! Independent of the automata: it works on the parsed [`Formula`] and on
//! letter names, position by position. The word has `|u| + |v|` distinct
//! positions; the successor of the last one is `|u|`. Each subformula gets
//! one truth value per position; `U` is the least and `R`/`WU` the greatest
//! fixpoint of its expansion law, computed by iterating to stability.

use super::syntax::Formula;

/// A lasso word: a finite prefix and a non-empty cycle of letter names
/// (`iA`, `oX`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LassoWord {
    /// The prefix `u`.
    pub prefix: Vec<String>,
    /// The cycle `v` (non-empty).
    pub cycle: Vec<String>,
}

impl LassoWord {
    /// The RERS solution-text form: `[iA, oX] ([iB, oY])*`.
    pub fn to_rers(&self) -> String {
        format!(
            "[{}] ([{}])*",
            self.prefix.join(", "),
            self.cycle.join(", ")
        )
    }

    /// Reads the RERS solution-text form back ([`LassoWord::to_rers`]);
    /// `None` where `text` is not of that form or the cycle is empty.
    pub fn from_rers(text: &str) -> Option<LassoWord> {
        let letters = |s: &str| -> Option<Vec<String>> {
            let inner = s.trim().strip_prefix('[')?.strip_suffix(']')?;
            Some(
                (inner.split(','))
                    .map(|l| l.trim().to_string())
                    .filter(|l| !l.is_empty())
                    .collect(),
            )
        };
        let (prefix, cycle) = text.trim().strip_suffix(")*")?.rsplit_once(" (")?;
        let word = LassoWord {
            prefix: letters(prefix)?,
            cycle: letters(cycle)?,
        };
        (!word.cycle.is_empty()).then_some(word)
    }

    fn letter(&self, p: usize) -> &str {
        if p < self.prefix.len() {
            &self.prefix[p]
        } else {
            &self.cycle[p - self.prefix.len()]
        }
    }
}

/// Whether `u v^ω` satisfies `f`. Panics if the cycle is empty.
pub fn holds(f: &Formula, w: &LassoWord) -> bool {
    assert!(!w.cycle.is_empty(), "a lasso needs a non-empty cycle");
    eval(f, w)[0]
}

fn eval(f: &Formula, w: &LassoWord) -> Vec<bool> {
    let n = w.prefix.len() + w.cycle.len();
    let next = |p: usize| if p + 1 < n { p + 1 } else { w.prefix.len() };
    let un = |a: &Formula, g: &dyn Fn(bool) -> bool| eval(a, w).into_iter().map(g).collect();
    match f {
        Formula::True => vec![true; n],
        Formula::False => vec![false; n],
        Formula::Atom(a) => (0..n).map(|p| w.letter(p) == a).collect(),
        Formula::Not(a) => un(a, &|x| !x),
        Formula::And(a, b) => zip(eval(a, w), eval(b, w), |x, y| x && y),
        Formula::Or(a, b) => zip(eval(a, w), eval(b, w), |x, y| x || y),
        Formula::Implies(a, b) => zip(eval(a, w), eval(b, w), |x, y| !x || y),
        Formula::Iff(a, b) => zip(eval(a, w), eval(b, w), |x, y| x == y),
        Formula::Next(a) => {
            let v = eval(a, w);
            (0..n).map(|p| v[next(p)]).collect()
        }
        Formula::Eventually(a) => fix(&vec![true; n], &eval(a, w), false, n, next),
        Formula::Globally(a) => fix(&eval(a, w), &vec![false; n], true, n, next),
        // f U g = g | (f & X(f U g)), least fixpoint.
        Formula::Until(a, b) => fix(&eval(a, w), &eval(b, w), false, n, next),
        // f WU g: the same law, greatest fixpoint.
        Formula::WeakUntil(a, b) => fix(&eval(a, w), &eval(b, w), true, n, next),
        // f R g = g & (f | X(f R g)), greatest fixpoint.
        Formula::Release(a, b) => {
            let (fa, fb) = (eval(a, w), eval(b, w));
            let mut v = vec![true; n];
            loop {
                let mut changed = false;
                for p in (0..n).rev() {
                    let x = fb[p] && (fa[p] || v[next(p)]);
                    if x != v[p] {
                        v[p] = x;
                        changed = true;
                    }
                }
                if !changed {
                    return v;
                }
            }
        }
    }
}

fn zip(a: Vec<bool>, b: Vec<bool>, f: impl Fn(bool, bool) -> bool) -> Vec<bool> {
    a.into_iter().zip(b).map(|(x, y)| f(x, y)).collect()
}

/// Fixpoint of `v[p] = g[p] | (f[p] & v[next p])` from all-`start`.
fn fix(f: &[bool], g: &[bool], start: bool, n: usize, next: impl Fn(usize) -> usize) -> Vec<bool> {
    let mut v = vec![start; n];
    loop {
        let mut changed = false;
        for p in (0..n).rev() {
            let x = g[p] || (f[p] && v[next(p)]);
            if x != v[p] {
                v[p] = x;
                changed = true;
            }
        }
        if !changed {
            return v;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ltl::syntax::parse_formula;

    #[test]
    fn the_rers_form_reads_back() {
        let x = w(&["iA", "oX"], &["iB", "oY", "iC"]);
        assert_eq!(LassoWord::from_rers(&x.to_rers()), Some(x));
        let empty_prefix = w(&[], &["iB", "oY"]);
        assert_eq!(
            LassoWord::from_rers(&empty_prefix.to_rers()),
            Some(empty_prefix)
        );
        assert_eq!(LassoWord::from_rers("[iA] ([])*"), None);
        assert_eq!(LassoWord::from_rers("iA oX"), None);
    }

    fn w(prefix: &[&str], cycle: &[&str]) -> LassoWord {
        LassoWord {
            prefix: prefix.iter().map(|s| s.to_string()).collect(),
            cycle: cycle.iter().map(|s| s.to_string()).collect(),
        }
    }

    fn h(f: &str, word: &LassoWord) -> bool {
        holds(&parse_formula(f).unwrap(), word)
    }

    #[test]
    fn basics() {
        let x = w(&["iA", "oX"], &["iB", "oY"]);
        assert!(h("iA", &x));
        assert!(h("X oX", &x));
        assert!(h("G F oY", &x));
        assert!(!h("F G oY", &x));
        assert!(h("F G ! oX", &x));
        assert!(h("iA U oX", &x));
        assert!(!h("iA U oY", &x));
        assert!(!h("! oY U iC", &x));
        assert!(h("! oY WU iC", &w(&[], &["iA", "oX"])));
        assert!(!h("! oX WU iC", &w(&[], &["iA", "oX"])));
        assert!(h("false R ! iC", &x));
        assert!(h("oX R ! oY", &x));
        assert!(!h("oZ R ! oY", &x));
        assert!(h("X X X X X X iB", &x));
        assert!(h("X X X X X X X oY", &x));
    }

    #[test]
    fn official_counterexample() {
        // 2012 Problem1: "output Z occurs at most twice" is violated by this lasso.
        let f = "(! oZ WU (oZ WU (! oZ WU (oZ WU (false R ! oZ)))))";
        let x = LassoWord {
            prefix: "iC oU iD oU iD oZ iA"
                .split(' ')
                .map(String::from)
                .collect(),
            cycle: "oZ iD oY iD oZ iA".split(' ').map(String::from).collect(),
        };
        assert!(!h(f, &x));
        assert_eq!(
            x.to_rers(),
            "[iC, oU, iD, oU, iD, oZ, iA] ([oZ, iD, oY, iD, oZ, iA])*"
        );
    }
}
