//! Action-based CTL formulas (RERS 2019 syntax) and property files; the
//! grammar is `grammars/ctl.ebnf`.

use std::fmt;

use crate::source::{read_text, Diagnostic, PropertyError};

type Result<T> = std::result::Result<T, Diagnostic>;

/// An action-based CTL formula. `None` as an action means "any action".
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Formula {
    /// `true`
    True,
    /// `false`
    False,
    /// `!f` (extension)
    Not(Box<Formula>),
    /// `f & g`
    And(Box<Formula>, Box<Formula>),
    /// `f | g`
    Or(Box<Formula>, Box<Formula>),
    /// `f => g`
    Implies(Box<Formula>, Box<Formula>),
    /// `f <=> g`
    Iff(Box<Formula>, Box<Formula>),
    /// `[a] f`, or `[] f` with `None`
    Box(Option<String>, Box<Formula>),
    /// `<a> f`, or `<> f` with `None`
    Diamond(Option<String>, Box<Formula>),
    /// `A(f U g)`
    AU(Box<Formula>, Box<Formula>),
    /// `E(f U g)`
    EU(Box<Formula>, Box<Formula>),
    /// `A(f W g)`
    AW(Box<Formula>, Box<Formula>),
    /// `E(f W g)`
    EW(Box<Formula>, Box<Formula>),
    /// `AG f`
    AG(Box<Formula>),
    /// `EG f`
    EG(Box<Formula>),
    /// `AF f`
    AF(Box<Formula>),
    /// `EF f`
    EF(Box<Formula>),
}

impl Formula {
    /// Every action name the formula mentions.
    pub fn actions(&self) -> Vec<&str> {
        let mut out = Vec::new();
        self.visit(&mut |f| {
            if let Formula::Box(Some(a), _) | Formula::Diamond(Some(a), _) = f {
                out.push(a.as_str());
            }
        });
        out
    }

    fn visit<'a>(&'a self, v: &mut impl FnMut(&'a Formula)) {
        v(self);
        use Formula::*;
        match self {
            True | False => {}
            Not(f) | Box(_, f) | Diamond(_, f) | AG(f) | EG(f) | AF(f) | EF(f) => f.visit(v),
            And(f, g)
            | Or(f, g)
            | Implies(f, g)
            | Iff(f, g)
            | AU(f, g)
            | EU(f, g)
            | AW(f, g)
            | EW(f, g) => {
                f.visit(v);
                g.visit(v);
            }
        }
    }
}

impl fmt::Display for Formula {
    /// Fully parenthesised RERS syntax (parses back to the same formula).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use Formula::*;
        let act = |a: &Option<String>| a.clone().unwrap_or_default();
        match self {
            True => write!(f, "true"),
            False => write!(f, "false"),
            Not(x) => write!(f, "!{x}"),
            And(x, y) => write!(f, "({x} & {y})"),
            Or(x, y) => write!(f, "({x} | {y})"),
            Implies(x, y) => write!(f, "({x} => {y})"),
            Iff(x, y) => write!(f, "({x} <=> {y})"),
            Box(a, x) => write!(f, "[{}] {x}", act(a)),
            Diamond(a, x) => write!(f, "<{}> {x}", act(a)),
            AU(x, y) => write!(f, "A({x} U {y})"),
            EU(x, y) => write!(f, "E({x} U {y})"),
            AW(x, y) => write!(f, "A({x} W {y})"),
            EW(x, y) => write!(f, "E({x} W {y})"),
            AG(x) => write!(f, "AG {x}"),
            EG(x) => write!(f, "EG {x}"),
            AF(x) => write!(f, "AF {x}"),
            EF(x) => write!(f, "EF {x}"),
        }
    }
}

/// Parses one formula; `file`, `line` and `col0` (the column of `text`'s
/// first character, 1-based) place errors.
pub fn parse_formula_at(file: &str, line: u32, col0: u32, text: &str) -> Result<Formula> {
    let mut p = Parser {
        s: text.as_bytes(),
        text,
        pos: 0,
        file,
        line,
        col0,
    };
    let f = p.formula()?;
    p.ws();
    if p.pos < p.s.len() {
        return Err(p.err("unexpected text after the formula"));
    }
    Ok(f)
}

/// Parses one formula (errors are placed on line 1 of `<formula>`).
pub fn parse_formula(text: &str) -> Result<Formula> {
    parse_formula_at("<formula>", 1, 1, text)
}

struct Parser<'a> {
    s: &'a [u8],
    text: &'a str,
    pos: usize,
    file: &'a str,
    line: u32,
    col0: u32,
}

fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

impl Parser<'_> {
    fn err(&self, msg: &str) -> Diagnostic {
        let found = match self.text[self.pos..].chars().next() {
            Some(c) => format!("`{c}`"),
            None => "end of formula".to_string(),
        };
        Diagnostic::at(
            self.file,
            self.line,
            self.col0 + self.text[..self.pos].chars().count() as u32,
            format!("{msg} (found {found})"),
        )
    }

    fn ws(&mut self) {
        while self.pos < self.s.len() && self.s[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }

    /// Consumes `tok` (after white space) if it is next.
    fn eat(&mut self, tok: &str) -> bool {
        self.ws();
        if self.s[self.pos..].starts_with(tok.as_bytes()) {
            self.pos += tok.len();
            true
        } else {
            false
        }
    }

    /// The word (letters, digits, `_`) at the cursor, without consuming it.
    fn peek_word(&mut self) -> &str {
        self.ws();
        let end = self.s[self.pos..]
            .iter()
            .position(|&c| !is_word(c))
            .map_or(self.s.len(), |k| self.pos + k);
        &self.text[self.pos..end]
    }

    fn formula(&mut self) -> Result<Formula> {
        let mut f = self.implication()?;
        loop {
            if self.eat("<=>") || self.eat("<->") {
                let g = self.implication()?;
                f = Formula::Iff(Box::new(f), Box::new(g));
            } else {
                return Ok(f);
            }
        }
    }

    fn implication(&mut self) -> Result<Formula> {
        let f = self.disjunction()?;
        if self.eat("=>") || self.eat("->") {
            let g = self.implication()?;
            return Ok(Formula::Implies(Box::new(f), Box::new(g)));
        }
        Ok(f)
    }

    fn disjunction(&mut self) -> Result<Formula> {
        let mut f = self.conjunction()?;
        while self.eat("||") || self.eat("|") {
            let g = self.conjunction()?;
            f = Formula::Or(Box::new(f), Box::new(g));
        }
        Ok(f)
    }

    fn conjunction(&mut self) -> Result<Formula> {
        let mut f = self.unary()?;
        while self.eat("&&") || self.eat("&") {
            let g = self.unary()?;
            f = Formula::And(Box::new(f), Box::new(g));
        }
        Ok(f)
    }

    /// The action between the brackets, `None` when empty.
    fn action(&mut self, close: u8) -> Result<Option<String>> {
        self.ws();
        let start = self.pos;
        while self.pos < self.s.len()
            && self.s[self.pos] != close
            && !self.s[self.pos].is_ascii_whitespace()
        {
            self.pos += 1;
        }
        let a = self.text[start..self.pos].to_string();
        self.ws();
        if self.pos >= self.s.len() || self.s[self.pos] != close {
            return Err(self.err(&format!("expected `{}` after the action", close as char)));
        }
        self.pos += 1;
        Ok(if a.is_empty() { None } else { Some(a) })
    }

    fn unary(&mut self) -> Result<Formula> {
        self.ws();
        if self.eat("!") {
            return Ok(Formula::Not(Box::new(self.unary()?)));
        }
        if self.eat("[") {
            let a = self.action(b']')?;
            return Ok(Formula::Box(a, Box::new(self.unary()?)));
        }
        if self.pos < self.s.len()
            && self.s[self.pos] == b'<'
            && !self.s[self.pos..].starts_with(b"<=>")
        {
            self.pos += 1;
            let a = self.action(b'>')?;
            return Ok(Formula::Diamond(a, Box::new(self.unary()?)));
        }
        let word = self.peek_word().to_string();
        let prefix = match word.as_str() {
            "AG" => Some(Formula::AG as fn(Box<Formula>) -> Formula),
            "EG" => Some(Formula::EG as fn(Box<Formula>) -> Formula),
            "AF" => Some(Formula::AF as fn(Box<Formula>) -> Formula),
            "EF" => Some(Formula::EF as fn(Box<Formula>) -> Formula),
            "AX" => Some((|f| Formula::Box(None, f)) as fn(Box<Formula>) -> Formula),
            "EX" => Some((|f| Formula::Diamond(None, f)) as fn(Box<Formula>) -> Formula),
            _ => None,
        };
        if let Some(make) = prefix {
            self.pos += 2;
            return Ok(make(Box::new(self.unary()?)));
        }
        self.primary()
    }

    fn primary(&mut self) -> Result<Formula> {
        let word = self.peek_word().to_string();
        match word.as_str() {
            "true" => {
                self.pos += 4;
                Ok(Formula::True)
            }
            "false" => {
                self.pos += 5;
                Ok(Formula::False)
            }
            "A" | "E" => {
                self.pos += 1;
                if !self.eat("(") {
                    return Err(self.err(&format!(
                        "expected `(` after `{word}` (as in `{word}(f U g)`)"
                    )));
                }
                let f = self.formula()?;
                self.ws();
                let w = self.peek_word().to_string();
                if w != "U" && w != "W" {
                    return Err(self.err("expected `U` or `W`"));
                }
                self.pos += 1;
                let g = self.formula()?;
                if !self.eat(")") {
                    return Err(self.err("expected `)`"));
                }
                let (f, g) = (Box::new(f), Box::new(g));
                Ok(match (word.as_str(), w.as_str()) {
                    ("A", "U") => Formula::AU(f, g),
                    ("E", "U") => Formula::EU(f, g),
                    ("A", _) => Formula::AW(f, g),
                    _ => Formula::EW(f, g),
                })
            }
            "" => {
                if self.eat("(") {
                    let f = self.formula()?;
                    if !self.eat(")") {
                        return Err(self.err("expected `)`"));
                    }
                    Ok(f)
                } else {
                    Err(self.err("expected a formula"))
                }
            }
            _ => Err(self.err(&format!(
                "`{word}` is not a formula: CTL here has no atoms; actions go in `[a]` or `<a>`"
            ))),
        }
    }
}

/// One property of a property file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Property {
    /// Property number (from `#k:`, else the position in the file from 0).
    pub index: u32,
    /// The description from the `#k:` line, if any.
    pub description: String,
    /// The formula.
    pub formula: Formula,
    /// 1-based line of the formula.
    pub line: u32,
}

/// A parsed property file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PropertyFile {
    /// Names from `#inputs [...]`.
    pub inputs: Vec<String>,
    /// Names from `#outputs [...]`.
    pub outputs: Vec<String>,
    /// The properties, in file order.
    pub properties: Vec<Property>,
}

/// Parses a property file (see `grammars/ctl.ebnf`).
pub fn parse_properties(file: &str, text: &str) -> Result<PropertyFile> {
    let mut out = PropertyFile::default();
    let mut pending: Option<(u32, String)> = None;
    let mut next_index = 0u32;
    for (ln, raw) in text.lines().enumerate() {
        let ln = ln as u32 + 1;
        let line = raw.trim();
        if line.is_empty() {
            continue;
        }
        let col0 = (raw.len() - raw.trim_start().len()) as u32 + 1;
        if let Some(rest) = line.strip_prefix('#') {
            let rest_t = rest.trim_start();
            if let Some(l) = rest_t.strip_prefix("inputs") {
                out.inputs = parse_list(file, ln, l)?;
            } else if let Some(l) = rest_t.strip_prefix("outputs") {
                out.outputs = parse_list(file, ln, l)?;
            } else {
                let digits: String = rest_t.chars().take_while(|c| c.is_ascii_digit()).collect();
                let after = &rest_t[digits.len()..];
                if !digits.is_empty() && after.starts_with(':') {
                    let k = digits.parse().map_err(|_| {
                        Diagnostic::at(file, ln, col0 + 1, "property number too large")
                    })?;
                    pending = Some((k, after[1..].trim().to_string()));
                }
                // any other `#` line is a comment
            }
            continue;
        }
        let formula = parse_formula_at(file, ln, col0, line)?;
        let (index, description) = pending.take().unwrap_or((next_index, String::new()));
        next_index = index + 1;
        out.properties.push(Property {
            index,
            description,
            formula,
            line: ln,
        });
    }
    if let Some((k, _)) = pending {
        return Err(Diagnostic::file(
            file,
            format!("property #{k} has no formula line"),
        ));
    }
    Ok(out)
}

/// Reads and parses a property file.
pub fn read_properties(path: &str) -> std::result::Result<PropertyFile, PropertyError> {
    let file = parse_properties(path, &read_text(path)?)?;
    if file.properties.is_empty() {
        return Err(PropertyError::Empty { file: path.into() });
    }
    Ok(file)
}

fn parse_list(file: &str, ln: u32, text: &str) -> Result<Vec<String>> {
    let t = text.trim();
    let inner = t
        .strip_prefix('[')
        .and_then(|r| r.strip_suffix(']'))
        .ok_or_else(|| Diagnostic::at(file, ln, 1, "expected a list `[a, b, ...]`"))?;
    Ok(inner
        .split(',')
        .map(|s| s.trim().trim_matches('"').to_string())
        .filter(|s| !s.is_empty())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Formula {
        parse_formula(s).unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    #[test]
    fn all_operators() {
        let f = p("AG ([usr1_ai1_re1] false) & EF <ai1_ce1> true | A(true U [] false) => E(<> true W false) <=> AF EG true");
        let shown = f.to_string();
        assert_eq!(p(&shown), f);
        assert!(matches!(f, Formula::Iff(..)));
    }

    #[test]
    fn precedence_and_prefixes() {
        assert_eq!(
            p("[a] true & <b> false"),
            Formula::And(
                Box::new(Formula::Box(Some("a".into()), Box::new(Formula::True))),
                Box::new(Formula::Diamond(Some("b".into()), Box::new(Formula::False)))
            )
        );
        assert_eq!(
            p("true => false => true"),
            Formula::Implies(
                Box::new(Formula::True),
                Box::new(Formula::Implies(
                    Box::new(Formula::False),
                    Box::new(Formula::True)
                ))
            )
        );
        assert_eq!(p("[]<>true"), p("AX EX true"));
        assert_eq!(
            p("<error>true"),
            Formula::Diamond(Some("error".into()), Box::new(Formula::True))
        );
        // action names are arbitrary identifiers, including keywords
        assert_eq!(
            p("[AG] true"),
            Formula::Box(Some("AG".into()), Box::new(Formula::True))
        );
        assert_eq!(p("A([U]false U true)"), p("A(([U] false) U true)"));
    }

    #[test]
    fn errors_are_located() {
        let e = parse_formula_at("p.txt", 3, 1, "AG (x & true)").unwrap_err();
        assert_eq!((e.at.line, e.at.col), (3, 5));
        let e = parse_formula("A(true false)").unwrap_err();
        assert!(e.message.contains("`U` or `W`"), "{e}");
        let e = parse_formula("[a true").unwrap_err();
        assert!(e.message.contains("`]`"), "{e}");
        assert!(parse_formula("true true").is_err());
        assert!(parse_formula("(true").is_err());
        assert!(parse_formula("").is_err());
    }

    #[test]
    fn property_files() {
        let text =
            "#inputs [a, b]\n#outputs [x]\n#0: never x\nAG [x] false\n\n#1: some a\nEF <a> true\n";
        let f = parse_properties("c.txt", text).unwrap();
        assert_eq!(f.inputs, vec!["a", "b"]);
        assert_eq!(f.properties.len(), 2);
        assert_eq!(f.properties[1].index, 1);
        assert_eq!(f.properties[1].description, "some a");
        assert_eq!(f.properties[1].line, 7);
        let plain = parse_properties("p.txt", "AG true\nEF false\n").unwrap();
        assert_eq!(plain.properties[1].index, 1);
        let e = parse_properties("p.txt", "AG true\n  EF foo\n").unwrap_err();
        assert_eq!((e.at.line, e.at.col), (2, 6));
    }
}
