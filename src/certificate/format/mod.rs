//! The certificate as data, and its text form (`grammars/certificate.ebnf`).

use std::fmt::Write as _;

use crate::source::Diagnostic;

pub mod invariant;

/// A variable of the program: a global, or one element of an array global.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Var {
    /// The global's name in the source.
    pub name: String,
    /// The element, for an array.
    pub index: Option<usize>,
}

impl std::fmt::Display for Var {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.index {
            Some(k) => write!(f, "{}[{k}]", self.name),
            None => write!(f, "{}", self.name),
        }
    }
}

/// What a region says of one variable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Bound {
    /// `lo <= var <= hi` (signed 32-bit values).
    Range(Var, i64, i64),
    /// The pointer `var` points to one of these arrays (by name).
    PointsTo(Var, Vec<String>),
}

impl Bound {
    /// The variable bounded.
    pub fn var(&self) -> &Var {
        match self {
            Bound::Range(v, ..) | Bound::PointsTo(v, _) => v,
        }
    }
}

/// `var` is `rest` modulo `modulus` (`0 <= rest < modulus`) in every region.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Congruence {
    /// The variable.
    pub var: Var,
    /// The modulus, at least 2.
    pub modulus: i64,
    /// The remainder (Euclidean).
    pub rest: i64,
}

/// One box of the invariant: the states meeting every bound (a variable
/// without a bound may have any value).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Region {
    /// The bounds.
    pub bounds: Vec<Bound>,
    /// The regions the step leads to from here (a hint: the checker tries
    /// these first, then every region).
    pub next: Vec<usize>,
    /// The steps from here, labelled (for LTL claims: every step that goes
    /// on must be one of them).
    pub edges: Vec<Edge>,
}

/// What a step of the regions' graph reads after its input.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EdgeStep {
    /// An output (by its name).
    Output(String),
    /// No output.
    Silent,
    /// An invalid input.
    Invalid,
    /// An invalid input that leaves every variable as it was: it ends the
    /// run, whatever the program's reading of invalid inputs.
    Unchanged,
}

/// A step of the regions' graph: from the region it is listed in, on the
/// input (by name), to the region `target`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Edge {
    /// The input symbol's name.
    pub input: String,
    /// What follows the input.
    pub step: EdgeStep,
    /// The region the step leads to.
    pub target: usize,
}

/// A claim that error labels are unreachable and LTL properties hold, with
/// its inductive invariant.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Certificate {
    /// The error labels claimed unreachable.
    pub unreachable: Vec<u32>,
    /// LTL properties claimed to hold (RERS syntax, as in the property
    /// file): no run of the regions' graph violates them.
    pub holds: Vec<String>,
    /// Congruences that hold in every region.
    pub congruences: Vec<Congruence>,
    /// The regions; the invariant is their union.
    pub regions: Vec<Region>,
    /// What the values of string variables stand for (Java): each string
    /// literal's number. A string variable's value is the number of the
    /// string it holds.
    pub strings: Vec<(i64, String)>,
}

/// A certificate file that does not follow the grammar.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(transparent)]
pub struct FormatError(#[from] pub Diagnostic);

/// The first line of every certificate.
const HEADER: &str = "rigor-certificate 1";

impl Certificate {
    /// The text form.
    pub fn to_text(&self) -> String {
        let mut s = format!("{HEADER}\n");
        let labels: Vec<String> = self.unreachable.iter().map(u32::to_string).collect();
        let _ = writeln!(s, "unreachable {}", labels.join(" "));
        for f in &self.holds {
            let _ = writeln!(s, "holds {f}");
        }
        for (id, text) in &self.strings {
            let _ = writeln!(s, "string {id} {}", escape(text));
        }
        for c in &self.congruences {
            let _ = writeln!(s, "congruence {} {} {}", c.var, c.modulus, c.rest);
        }
        for (k, r) in self.regions.iter().enumerate() {
            let _ = writeln!(s, "region {k}");
            for b in &r.bounds {
                let _ = match b {
                    Bound::Range(v, lo, hi) => writeln!(s, "{v} {lo} {hi}"),
                    Bound::PointsTo(v, arrays) => writeln!(s, "{v} -> {}", arrays.join(" ")),
                };
            }
            if !r.next.is_empty() {
                let next: Vec<String> = r.next.iter().map(usize::to_string).collect();
                let _ = writeln!(s, "next {}", next.join(" "));
            }
            for e in &r.edges {
                let step = match &e.step {
                    EdgeStep::Output(o) => format!("o{o}"),
                    EdgeStep::Silent => "silent".into(),
                    EdgeStep::Invalid => "invalid".into(),
                    EdgeStep::Unchanged => "unchanged".into(),
                };
                let _ = writeln!(s, "edge i{} {step} {}", e.input, e.target);
            }
            s.push_str("end\n");
        }
        s
    }

    /// Reads the text form; `file` names it in messages.
    pub fn parse(text: &str, file: &str) -> Result<Certificate, FormatError> {
        let err = |line: usize, col: usize, m: String| {
            FormatError(Diagnostic::at(file, line as u32 + 1, col as u32 + 1, m))
        };
        let mut lines = text
            .lines()
            .enumerate()
            .map(|(n, l)| (n, l.split('#').next().unwrap_or("").trim()))
            .filter(|(_, l)| !l.is_empty());
        match lines.next() {
            Some((_, HEADER)) => {}
            Some((n, _)) => return Err(err(n, 0, format!("expected `{HEADER}`"))),
            None => return Err(FormatError(Diagnostic::file(file, "empty certificate"))),
        }
        let mut c = Certificate::default();
        let mut open: Option<(usize, Region)> = None;
        for (n, line) in lines {
            let words: Vec<&str> = line.split_whitespace().collect();
            let col = |w: usize| line.find(words[w]).unwrap_or(0);
            let number = |w: usize| -> Result<i64, FormatError> {
                let word = words
                    .get(w)
                    .ok_or_else(|| err(n, line.len(), "expected a number".into()))?;
                word.parse()
                    .map_err(|_| err(n, col(w), format!("expected a number, found `{word}`")))
            };
            match (words[0], &mut open) {
                ("unreachable", None) => {
                    for w in 1..words.len() {
                        let l = number(w)?;
                        c.unreachable.push(
                            u32::try_from(l)
                                .map_err(|_| err(n, col(w), format!("no label {l}")))?,
                        );
                    }
                }
                ("holds", None) if words.len() > 1 => {
                    c.holds.push(line["holds".len()..].trim().to_string());
                }
                ("string", None) if words.len() <= 3 => {
                    let id = number(1)?;
                    let text = words.get(2).copied().unwrap_or("");
                    let text = unescape(text)
                        .ok_or_else(|| err(n, col(2), format!("malformed string `{text}`")))?;
                    if c.strings.iter().any(|(k, t)| *k == id || *t == text) {
                        return Err(err(n, col(1), "a string or its number given twice".into()));
                    }
                    c.strings.push((id, text));
                }
                ("congruence", None) if words.len() == 4 => {
                    let var = parse_var(words[1])
                        .ok_or_else(|| err(n, col(1), "expected a variable".into()))?;
                    let (modulus, rest) = (number(2)?, number(3)?);
                    if modulus < 2 || !(0..modulus).contains(&rest) {
                        return Err(err(
                            n,
                            col(2),
                            "expected a modulus >= 2 and 0 <= rest < modulus".into(),
                        ));
                    }
                    c.congruences.push(Congruence { var, modulus, rest });
                }
                ("region", None) if words.len() == 2 => {
                    let k = number(1)? as usize;
                    if k != c.regions.len() {
                        return Err(err(
                            n,
                            col(1),
                            format!("expected region {}", c.regions.len()),
                        ));
                    }
                    open = Some((n, Region::default()));
                }
                ("end", Some(_)) => {
                    let (_, r) = open.take().expect("open region");
                    c.regions.push(r);
                }
                ("next", Some((_, r))) => {
                    for w in 1..words.len() {
                        r.next.push(number(w)? as usize);
                    }
                }
                ("edge", Some((_, r))) if words.len() == 4 => {
                    let input = (words[1].strip_prefix('i'))
                        .filter(|i| !i.is_empty())
                        .ok_or_else(|| err(n, col(1), "expected an input `iNAME`".into()))?;
                    let step = match words[2] {
                        "silent" => EdgeStep::Silent,
                        "invalid" => EdgeStep::Invalid,
                        "unchanged" => EdgeStep::Unchanged,
                        w => match w.strip_prefix('o').filter(|o| !o.is_empty()) {
                            Some(o) => EdgeStep::Output(o.to_string()),
                            None => return Err(err(
                                n,
                                col(2),
                                "expected an output `oNAME`, `silent`, `invalid` or `unchanged`"
                                    .into(),
                            )),
                        },
                    };
                    r.edges.push(Edge {
                        input: input.to_string(),
                        step,
                        target: number(3)? as usize,
                    });
                }
                (name, Some((_, r))) => {
                    let var = parse_var(name)
                        .ok_or_else(|| err(n, 0, format!("expected a variable, found `{name}`")))?;
                    if words.get(1) == Some(&"->") {
                        let arrays = words[2..].iter().map(|s| s.to_string()).collect();
                        r.bounds.push(Bound::PointsTo(var, arrays));
                    } else if words.len() == 3 {
                        let (lo, hi) = (number(1)?, number(2)?);
                        if lo > hi {
                            return Err(err(n, col(1), format!("empty range {lo} {hi}")));
                        }
                        r.bounds.push(Bound::Range(var, lo, hi));
                    } else {
                        return Err(err(
                            n,
                            0,
                            "expected `VARIABLE LO HI` or `VARIABLE -> ARRAY...`".into(),
                        ));
                    }
                }
                (word, _) => return Err(err(n, 0, format!("unexpected `{word}`"))),
            }
        }
        if let Some((n, _)) = open {
            return Err(err(n, 0, "region without `end`".into()));
        }
        for (k, r) in c.regions.iter().enumerate() {
            let mut targets = r.next.iter().chain(r.edges.iter().map(|e| &e.target));
            if let Some(&t) = targets.find(|&&t| t >= c.regions.len()) {
                return Err(FormatError(Diagnostic::file(
                    file,
                    format!("region {k}: a step leads to region {t}, which does not exist"),
                )));
            }
        }
        Ok(c)
    }
}

/// A string as one word of the text form: every byte that is no letter,
/// digit or one of `_.-:` as `%XX`.
fn escape(text: &str) -> String {
    let mut out = String::new();
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"_.-:".contains(&b) {
            out.push(b as char);
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// The string [`escape`] wrote.
fn unescape(word: &str) -> Option<String> {
    let mut bytes = Vec::new();
    let mut rest = word.as_bytes();
    while let Some((&b, tail)) = rest.split_first() {
        if b == b'%' {
            let hex = std::str::from_utf8(tail.get(..2)?).ok()?;
            bytes.push(u8::from_str_radix(hex, 16).ok()?);
            rest = &tail[2..];
        } else {
            bytes.push(b);
            rest = tail;
        }
    }
    String::from_utf8(bytes).ok()
}

/// `name` or `name[k]`.
fn parse_var(word: &str) -> Option<Var> {
    let ok = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '.' || c == '$')
    };
    match word.strip_suffix(']').and_then(|w| w.split_once('[')) {
        Some((name, k)) if ok(name) => Some(Var {
            name: name.to_string(),
            index: Some(k.parse().ok()?),
        }),
        Some(_) => None,
        None if ok(word) => Some(Var {
            name: word.to_string(),
            index: None,
        }),
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_form_round_trips() {
        let v = |n: &str, i| Var {
            name: n.into(),
            index: i,
        };
        let c = Certificate {
            unreachable: vec![3, 17],
            holds: vec!["(G ! (iA & X oZ))".into(), "(F oY)".into()],
            congruences: vec![Congruence {
                var: v("a1", None),
                modulus: 4,
                rest: 1,
            }],
            regions: vec![
                Region {
                    bounds: vec![
                        Bound::Range(v("a1", None), -5, 9),
                        Bound::PointsTo(v("p", None), vec!["arr".into()]),
                    ],
                    next: vec![0, 1],
                    edges: vec![
                        Edge {
                            input: "A".into(),
                            step: EdgeStep::Output("Z".into()),
                            target: 1,
                        },
                        Edge {
                            input: "B".into(),
                            step: EdgeStep::Silent,
                            target: 0,
                        },
                        Edge {
                            input: "C".into(),
                            step: EdgeStep::Invalid,
                            target: 0,
                        },
                    ],
                },
                Region {
                    bounds: vec![Bound::Range(v("a", Some(2)), 0, 0)],
                    ..Region::default()
                },
            ],
            strings: vec![
                (0, "usr1_ai1_re2".into()),
                (7, "a b#%ü".into()),
                (9, String::new()),
            ],
        };
        assert_eq!(Certificate::parse(&c.to_text(), "c").unwrap(), c);
    }

    #[test]
    fn errors_are_located() {
        let e = Certificate::parse("rigor-certificate 1\nregion 0\na1 5 x\nend\n", "f.cert")
            .unwrap_err();
        assert_eq!(e.to_string(), "f.cert:3:6: expected a number, found `x`");
        let e =
            Certificate::parse("rigor-certificate 1\nregion 0\nnext 4\nend\n", "f").unwrap_err();
        assert!(e.to_string().contains("region 4"), "{e}");
        assert!(Certificate::parse("nothing", "f").is_err());
        assert!(Certificate::parse("rigor-certificate 1\nregion 0\na 1 2\n", "f").is_err());
        let twice = "rigor-certificate 1\nstring 1 e\nstring 2 e\n";
        assert!(Certificate::parse(twice, "f").is_err());
        let malformed = "rigor-certificate 1\nstring 1 %4\n";
        assert!(Certificate::parse(malformed, "f").is_err());
    }
}
