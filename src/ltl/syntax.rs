//! LTL formulas of RERS property files: the AST, the formula parser and the
//! readers of both property-file formats (grammar: `grammars/ltl.ebnf`).
//!
//! Atoms are `iX` (input X) and `oY` (output Y). The parser never panics and
//! never prints: a malformed formula gives a [`SyntaxError`] with the
//! 1-based column and what was expected.

use std::fmt;

use crate::source::{read_text, Diagnostic, PropertyError};

/// An LTL formula over RERS input/output atoms.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Formula {
    /// `true`.
    True,
    /// `false`.
    False,
    /// An atom such as `iA` or `oZ` (the full name, prefix included).
    Atom(String),
    /// `! f`.
    Not(Box<Formula>),
    /// `f & g`.
    And(Box<Formula>, Box<Formula>),
    /// `f | g`.
    Or(Box<Formula>, Box<Formula>),
    /// `f -> g`.
    Implies(Box<Formula>, Box<Formula>),
    /// `f <-> g`.
    Iff(Box<Formula>, Box<Formula>),
    /// `X f`: next.
    Next(Box<Formula>),
    /// `F f`: eventually.
    Eventually(Box<Formula>),
    /// `G f`: globally.
    Globally(Box<Formula>),
    /// `f U g`: strong until.
    Until(Box<Formula>, Box<Formula>),
    /// `f WU g`: weak until, `(f U g) | G f`.
    WeakUntil(Box<Formula>, Box<Formula>),
    /// `f R g`: release, `!(!f U !g)`.
    Release(Box<Formula>, Box<Formula>),
}

impl Formula {
    /// The atoms of the formula, each once, in first-occurrence order.
    pub fn atoms(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        self.visit(&mut |f| {
            if let Formula::Atom(a) = f {
                if !out.contains(a) {
                    out.push(a.clone());
                }
            }
        });
        out
    }

    fn visit(&self, f: &mut impl FnMut(&Formula)) {
        f(self);
        match self {
            Formula::True | Formula::False | Formula::Atom(_) => {}
            Formula::Not(a) | Formula::Next(a) | Formula::Eventually(a) | Formula::Globally(a) => {
                a.visit(f)
            }
            Formula::And(a, b)
            | Formula::Or(a, b)
            | Formula::Implies(a, b)
            | Formula::Iff(a, b)
            | Formula::Until(a, b)
            | Formula::WeakUntil(a, b)
            | Formula::Release(a, b) => {
                a.visit(f);
                b.visit(f);
            }
        }
    }

    /// The negation `!self`.
    pub fn negated(&self) -> Formula {
        Formula::Not(Box::new(self.clone()))
    }
}

impl fmt::Display for Formula {
    /// Fully parenthesised, in the syntax the parser reads.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Formula::True => write!(f, "true"),
            Formula::False => write!(f, "false"),
            Formula::Atom(a) => write!(f, "{a}"),
            Formula::Not(a) => write!(f, "(! {a})"),
            Formula::Next(a) => write!(f, "(X {a})"),
            Formula::Eventually(a) => write!(f, "(F {a})"),
            Formula::Globally(a) => write!(f, "(G {a})"),
            Formula::And(a, b) => write!(f, "({a} & {b})"),
            Formula::Or(a, b) => write!(f, "({a} | {b})"),
            Formula::Implies(a, b) => write!(f, "({a} -> {b})"),
            Formula::Iff(a, b) => write!(f, "({a} <-> {b})"),
            Formula::Until(a, b) => write!(f, "({a} U {b})"),
            Formula::WeakUntil(a, b) => write!(f, "({a} WU {b})"),
            Formula::Release(a, b) => write!(f, "({a} R {b})"),
        }
    }
}

/// A formula that does not parse: where and what was expected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    /// 1-based column (in characters) in the formula text.
    pub col: u32,
    /// What was expected there.
    pub message: String,
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "column {}: {}", self.col, self.message)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    LParen,
    RParen,
    Not,
    And,
    Or,
    Implies,
    Iff,
    Ident(String),
    End,
}

fn describe(t: &Tok) -> String {
    match t {
        Tok::LParen => "'('".into(),
        Tok::RParen => "')'".into(),
        Tok::Not => "'!'".into(),
        Tok::And => "'&'".into(),
        Tok::Or => "'|'".into(),
        Tok::Implies => "'->'".into(),
        Tok::Iff => "'<->'".into(),
        Tok::Ident(s) => format!("'{s}'"),
        Tok::End => "end of formula".into(),
    }
}

fn lex(text: &str) -> Result<Vec<(Tok, u32)>, SyntaxError> {
    let chars: Vec<char> = text.chars().collect();
    let mut toks = Vec::new();
    let mut k = 0;
    while k < chars.len() {
        let c = chars[k];
        let col = k as u32 + 1;
        let two = |s: &str| chars[k..].iter().take(s.len()).copied().eq(s.chars());
        if c.is_whitespace() {
            k += 1;
            continue;
        }
        let (tok, len) = match c {
            '(' => (Tok::LParen, 1),
            ')' => (Tok::RParen, 1),
            '!' | '~' => (Tok::Not, 1),
            '&' if two("&&") => (Tok::And, 2),
            '&' => (Tok::And, 1),
            '|' if two("||") => (Tok::Or, 2),
            '|' => (Tok::Or, 1),
            '-' if two("->") => (Tok::Implies, 2),
            '<' if two("<->") => (Tok::Iff, 3),
            c if c.is_ascii_alphabetic() || c == '_' => {
                let mut e = k;
                while e < chars.len() && (chars[e].is_ascii_alphanumeric() || chars[e] == '_') {
                    e += 1;
                }
                (Tok::Ident(chars[k..e].iter().collect()), e - k)
            }
            _ => {
                return Err(SyntaxError {
                    col,
                    message: format!("unexpected character '{c}', expected a formula"),
                })
            }
        };
        toks.push((tok, col));
        k += len;
    }
    toks.push((Tok::End, chars.len() as u32 + 1));
    Ok(toks)
}

struct Parser {
    toks: Vec<(Tok, u32)>,
    pos: usize,
}

const EXPECT_OPERAND: &str =
    "expected an atom (iX or oX), 'true', 'false', '(' or a unary operator";

impl Parser {
    fn peek(&self) -> &Tok {
        &self.toks[self.pos].0
    }

    fn col(&self) -> u32 {
        self.toks[self.pos].1
    }

    fn err<T>(&self, expected: &str) -> Result<T, SyntaxError> {
        Err(SyntaxError {
            col: self.col(),
            message: format!("{expected}, found {}", describe(self.peek())),
        })
    }

    fn implication(&mut self) -> Result<Formula, SyntaxError> {
        let lhs = self.disjunction()?;
        match self.peek() {
            Tok::Implies => {
                self.pos += 1;
                let rhs = self.implication()?;
                Ok(Formula::Implies(Box::new(lhs), Box::new(rhs)))
            }
            Tok::Iff => {
                self.pos += 1;
                let rhs = self.implication()?;
                Ok(Formula::Iff(Box::new(lhs), Box::new(rhs)))
            }
            _ => Ok(lhs),
        }
    }

    fn disjunction(&mut self) -> Result<Formula, SyntaxError> {
        let mut lhs = self.conjunction()?;
        while *self.peek() == Tok::Or {
            self.pos += 1;
            let rhs = self.conjunction()?;
            lhs = Formula::Or(Box::new(lhs), Box::new(rhs));
        }
        Ok(lhs)
    }

    fn conjunction(&mut self) -> Result<Formula, SyntaxError> {
        let mut lhs = self.temporal()?;
        while *self.peek() == Tok::And {
            self.pos += 1;
            let rhs = self.temporal()?;
            lhs = Formula::And(Box::new(lhs), Box::new(rhs));
        }
        Ok(lhs)
    }

    fn temporal(&mut self) -> Result<Formula, SyntaxError> {
        let lhs = self.unary()?;
        let op = match self.peek() {
            Tok::Ident(s) => s.clone(),
            _ => return Ok(lhs),
        };
        let make: fn(Box<Formula>, Box<Formula>) -> Formula = match op.as_str() {
            "U" => Formula::Until,
            "WU" | "W" => Formula::WeakUntil,
            "R" | "V" => Formula::Release,
            _ => return self.err("expected a binary operator or ')'"),
        };
        self.pos += 1;
        let rhs = self.temporal()?;
        Ok(make(Box::new(lhs), Box::new(rhs)))
    }

    fn unary(&mut self) -> Result<Formula, SyntaxError> {
        let make: fn(Box<Formula>) -> Formula = match self.peek() {
            Tok::Not => Formula::Not,
            Tok::Ident(s) if s == "X" => Formula::Next,
            Tok::Ident(s) if s == "F" => Formula::Eventually,
            Tok::Ident(s) if s == "G" => Formula::Globally,
            _ => return self.primary(),
        };
        self.pos += 1;
        Ok(make(Box::new(self.unary()?)))
    }

    fn primary(&mut self) -> Result<Formula, SyntaxError> {
        match self.peek().clone() {
            Tok::LParen => {
                self.pos += 1;
                let f = self.implication()?;
                if *self.peek() != Tok::RParen {
                    return self.err("expected ')' or a binary operator");
                }
                self.pos += 1;
                Ok(f)
            }
            Tok::Ident(s) => {
                let f = match s.as_str() {
                    "true" => Formula::True,
                    "false" => Formula::False,
                    _ if is_atom(&s) => Formula::Atom(s),
                    _ => return self.err(EXPECT_OPERAND),
                };
                self.pos += 1;
                Ok(f)
            }
            _ => self.err(EXPECT_OPERAND),
        }
    }
}

fn is_atom(s: &str) -> bool {
    s.len() >= 2 && (s.starts_with('i') || s.starts_with('o'))
}

/// Parses one formula.
pub fn parse_formula(text: &str) -> Result<Formula, SyntaxError> {
    let toks = lex(text)?;
    let mut p = Parser { toks, pos: 0 };
    let f = p.implication()?;
    if *p.peek() != Tok::End {
        return p.err("expected a binary operator or the end of the formula");
    }
    Ok(f)
}

/// One property of a property file.
#[derive(Clone, Debug)]
pub struct Property {
    /// 0-based number in file order.
    pub index: usize,
    /// 1-based line of the formula in the file.
    pub line: u32,
    /// The formula text as written.
    pub text: String,
    /// The English description, if any.
    pub description: String,
    /// The parsed formula, or why it does not parse.
    pub formula: Result<Formula, SyntaxError>,
}

impl Property {
    /// The parse error, located in `file`.
    pub fn error(&self, file: &str) -> Option<Diagnostic> {
        self.formula.as_ref().err().map(|e| {
            Diagnostic::at(
                file,
                self.line,
                e.col,
                format!("property {}: {}", self.index, e.message),
            )
        })
    }
}

/// A parsed property file.
#[derive(Clone, Debug, Default)]
pub struct PropertyFile {
    /// The input alphabet declared by `#inputs` (2014+ files), if any.
    pub inputs: Option<Vec<String>>,
    /// The output alphabet declared by `#outputs`, if any.
    pub outputs: Option<Vec<String>>,
    /// The properties in file order.
    pub properties: Vec<Property>,
}

fn parse_list(s: &str) -> Vec<String> {
    s.trim()
        .trim_start_matches('[')
        .trim_end_matches(']')
        .split(',')
        .map(|x| x.trim().to_string())
        .filter(|x| !x.is_empty())
        .collect()
}

fn property(index: usize, line: usize, text: &str, description: String) -> Property {
    Property {
        index,
        line: line as u32 + 1,
        text: text.to_string(),
        description,
        formula: parse_formula(text),
    }
}

/// Parses a property file of either RERS format. Malformed formulas are
/// kept as properties with an error, so the others can still be checked.
pub fn parse_properties(text: &str) -> PropertyFile {
    let lines: Vec<&str> = text.lines().collect();
    let constraints = lines.iter().any(|l| l.trim_start().starts_with('#'));
    let mut file = PropertyFile::default();
    if constraints {
        let mut description: Option<String> = None;
        for (n, raw) in lines.iter().enumerate() {
            let l = raw.trim();
            if l.is_empty() {
                continue;
            }
            if let Some(rest) = l.strip_prefix("#inputs") {
                file.inputs = Some(parse_list(rest));
            } else if let Some(rest) = l.strip_prefix("#outputs") {
                file.outputs = Some(parse_list(rest));
            } else if let Some(rest) = l.strip_prefix('#') {
                let d = rest.split_once(':').map(|(_, d)| d).unwrap_or(rest);
                description = Some(d.trim().to_string());
            } else {
                let idx = file.properties.len();
                let d = description.take().unwrap_or_default();
                file.properties.push(property(idx, n, l, d));
            }
        }
    } else {
        let mut in_block = false;
        for (n, raw) in lines.iter().enumerate() {
            let l = raw.trim();
            if l.starts_with("---") && l.chars().all(|c| c == '-') {
                in_block = false;
                continue;
            }
            if l.is_empty() {
                continue;
            }
            if !in_block {
                let idx = file.properties.len();
                file.properties.push(property(idx, n, l, String::new()));
                in_block = true;
            } else if let Some(p) = file.properties.last_mut() {
                if !p.description.is_empty() {
                    p.description.push(' ');
                }
                p.description.push_str(l);
            }
        }
    }
    file
}

/// Reads and parses a property file.
pub fn read_properties(path: &str) -> Result<PropertyFile, PropertyError> {
    let file = parse_properties(&read_text(path)?);
    if file.properties.is_empty() {
        return Err(PropertyError::Empty { file: path.into() });
    }
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Formula {
        parse_formula(s).unwrap()
    }

    #[test]
    fn precedence() {
        assert_eq!(
            p("! iB & (true U iE)").to_string(),
            "((! iB) & (true U iE))"
        );
        assert_eq!(p("! X (! iD U iF)").to_string(), "(! (X ((! iD) U iF)))");
        assert_eq!(p("iA -> iB -> iC"), p("iA -> (iB -> iC)"));
        assert_eq!(p("iA U iB U iC").to_string(), "(iA U (iB U iC))");
        assert_eq!(p("iA & iB | iC").to_string(), "((iA & iB) | iC)");
        assert_eq!(
            p("(! oZ WU (oU & ! oZ))").to_string(),
            "((! oZ) WU (oU & (! oZ)))"
        );
        assert_eq!(p("G F oX").to_string(), "(G (F oX))");
    }

    #[test]
    fn roundtrip() {
        for s in [
            "(false R (! iG | (true U oW)))",
            "(! (true U oV) | (! oV U ((oY & ! oV) & X (! oV U oX))))",
            "((G ! oW) | (F (oW & (F oU))))",
        ] {
            let f = p(s);
            assert_eq!(p(&f.to_string()), f);
        }
    }

    #[test]
    fn errors_are_located() {
        let e = parse_formula("(iA U )").unwrap_err();
        assert_eq!(e.col, 7);
        assert!(e.message.contains("expected an atom"), "{}", e.message);
        let e = parse_formula("(iA U iB").unwrap_err();
        assert_eq!(e.col, 9);
        let e = parse_formula("iA iB").unwrap_err();
        assert_eq!(e.col, 4);
        let e = parse_formula("iA $ iB").unwrap_err();
        assert_eq!(e.col, 4);
        assert!(parse_formula("").is_err());
        assert!(parse_formula("Q").is_err());
    }

    #[test]
    fn file_2012() {
        let t = "(! oZ WU (oU & ! oZ))\noutput U occurs before output Z\n----------\n\n(G (! iC | (F oZ)))\noutput Z responds to input C\n----------\n\n(iA U\nbroken\n-----\n";
        let f = parse_properties(t);
        assert_eq!(f.properties.len(), 3);
        assert_eq!(f.properties[1].line, 5);
        assert_eq!(f.properties[1].description, "output Z responds to input C");
        assert!(f.properties[0].formula.is_ok());
        let e = f.properties[2].error("p.txt").unwrap();
        assert_eq!((e.at.line, e.at.col), (9, 6));
        assert!(e.message.starts_with("property 2:"));
    }

    #[test]
    fn file_constraints() {
        let t = "#inputs [A, B, C]\n#outputs [X, Y]\n#0: output X responds\n(false R (! iA | (true U oX)))\n\n#1: y\n(true U oY)\n";
        let f = parse_properties(t);
        assert_eq!(
            f.inputs.as_deref(),
            Some(&["A".to_string(), "B".into(), "C".into()][..])
        );
        assert_eq!(f.outputs.as_ref().unwrap().len(), 2);
        assert_eq!(f.properties.len(), 2);
        assert_eq!(f.properties[0].description, "output X responds");
        assert_eq!(f.properties[1].line, 7);
    }
}
