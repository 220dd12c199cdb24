//! What the C and the Java lowerings share: the locals of the function
//! being lowered and their block scopes, located errors, and the thread
//! with a big stack that the deeply nested generated code needs.

use std::collections::HashMap;

use super::FrontendError;
use crate::ir::{Expr, Loc, LocalId, Place};
use crate::source::{Diagnostic, Location};

/// Result of a lowering step.
pub type Result<T> = std::result::Result<T, FrontendError>;

/// Runs `lower` on a thread with a big stack; a failure to start it, or a
/// panic in it, is an internal error of `path`.
pub fn on_big_stack<T: Send + 'static>(
    path: &str,
    what: &str,
    lower: impl FnOnce() -> Result<T> + Send + 'static,
) -> Result<T> {
    let internal = |message: String| FrontendError::Internal {
        at: Location::file(path),
        message,
    };
    let handle = std::thread::Builder::new()
        .stack_size(crate::runtime::memory::deep_stack(1))
        .spawn(lower)
        .map_err(|e| internal(format!("cannot start the {what} thread: {e}")))?;
    handle
        .join()
        .unwrap_or_else(|_| Err(internal(format!("the {what} panicked"))))
}

/// An error at a place in the file being lowered.
pub fn invalid(file: &str, at: Loc, message: impl Into<String>) -> FrontendError {
    FrontendError::Invalid(Diagnostic::at(file, at.line, at.col, message))
}

/// An error about the whole file being lowered.
pub fn invalid_file(file: &str, message: impl Into<String>) -> FrontendError {
    FrontendError::Invalid(Diagnostic::file(file, message))
}

/// A construct of `language` that rigor does not model.
pub fn unsupported(file: &str, at: Loc, language: &str, what: &str) -> FrontendError {
    FrontendError::Unsupported(Diagnostic::at(
        file,
        at.line,
        at.col,
        format!("unsupported {language} construct: {what}"),
    ))
}

/// A syntax error.
pub fn syntax(file: &str, line: u32, col: u32, message: impl Into<String>) -> FrontendError {
    FrontendError::Syntax(Diagnostic::at(file, line, col, message))
}

/// How deep brackets may nest. Generated RERS programs nest them less
/// than 20 deep; the parsers' time and memory grow steeply with depth (a
/// 6,000-deep nest took lang-c 80 s and 6 GB), so deeper text is refused
/// up front.
pub const MAX_NESTING: usize = 1000;

/// Refuses `text` (C or Java) if its brackets nest deeper than
/// [`MAX_NESTING`], naming the place; comments and literals are skipped.
pub fn check_nesting(file: &str, text: &str) -> Result<()> {
    let (mut depth, mut line, mut col) = (0usize, 1u32, 0u32);
    let mut chars = text.chars().peekable();
    // Inside a comment or literal: the character or text that ends it.
    let mut until: Option<&str> = None;
    let mut escaped = false;
    while let Some(c) = chars.next() {
        col += 1;
        if c == '\n' {
            (line, col) = (line + 1, 0);
        }
        match until {
            Some("\n") if c == '\n' => until = None,
            Some("*/") if c == '*' && chars.peek() == Some(&'/') => {
                chars.next();
                col += 1;
                until = None;
            }
            Some(q @ ("\"" | "'")) => {
                if escaped {
                    escaped = false;
                } else if c == '\\' {
                    escaped = true;
                } else if q.starts_with(c) || c == '\n' {
                    until = None;
                }
            }
            Some(_) => {}
            None => match c {
                '/' if chars.peek() == Some(&'/') => until = Some("\n"),
                '/' if chars.peek() == Some(&'*') => {
                    chars.next();
                    col += 1;
                    until = Some("*/");
                }
                '"' => until = Some("\""),
                '\'' => until = Some("'"),
                '(' | '[' | '{' => {
                    depth += 1;
                    if depth > MAX_NESTING {
                        return Err(syntax(
                            file,
                            line,
                            col,
                            format!("brackets nest deeper than {MAX_NESTING}"),
                        ));
                    }
                }
                ')' | ']' | '}' => depth = depth.saturating_sub(1),
                _ => {}
            },
        }
    }
    Ok(())
}

/// The locals of the function being lowered, parameters first, and the
/// block scopes mapping source names to them; `T` is what a front end
/// keeps of each name (its id, and its type where the language has
/// several).
#[derive(Clone, Debug)]
pub struct Locals<T> {
    names: Vec<String>,
    scopes: Vec<HashMap<String, T>>,
}

impl<T> Default for Locals<T> {
    fn default() -> Self {
        Locals {
            names: Vec::new(),
            scopes: Vec::new(),
        }
    }
}

impl<T: Copy> Locals<T> {
    /// No locals, one open scope.
    pub fn new() -> Self {
        Locals {
            names: Vec::new(),
            scopes: vec![HashMap::new()],
        }
    }

    /// Declares `name` in the innermost scope; `info` makes what is kept of
    /// it from its fresh id.
    pub fn declare(&mut self, name: &str, info: impl FnOnce(LocalId) -> T) -> LocalId {
        let id = LocalId(self.names.len() as u32);
        self.names.push(name.to_string());
        if self.scopes.is_empty() {
            self.scopes.push(HashMap::new());
        }
        let scope = self.scopes.last_mut().expect("a scope is open");
        scope.insert(name.to_string(), info(id));
        id
    }

    /// Opens a block scope.
    pub fn enter(&mut self) {
        self.scopes.push(HashMap::new());
    }

    /// Closes the innermost block scope.
    pub fn leave(&mut self) {
        self.scopes.pop();
    }

    /// What is kept of `name` in the innermost scope declaring it.
    pub fn lookup(&self, name: &str) -> Option<T> {
        self.scopes.iter().rev().find_map(|s| s.get(name).copied())
    }

    /// Whether some open scope declares `name` (it shadows a global).
    pub fn shadows(&self, name: &str) -> bool {
        self.scopes.iter().any(|s| s.contains_key(name))
    }

    /// Number of locals so far.
    pub fn count(&self) -> u32 {
        self.names.len() as u32
    }

    /// The names of the locals, by id; the scopes are closed.
    pub fn finish(self) -> Vec<String> {
        self.names
    }
}

/// The value a place holds, as an expression (for compound assignments).
pub fn place_value(p: &Place) -> Expr {
    match p {
        Place::Global(g) => Expr::Global(*g),
        Place::Local(l) => Expr::Local(*l),
        Place::Index(a, i) => Expr::Index(*a, Box::new(i.clone())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deep_nesting_is_refused_where_it_happens() {
        let ok = format!("int x = {}1{};", "(".repeat(900), ")".repeat(900));
        assert!(check_nesting("a.c", &ok).is_ok());
        let deep = format!("int x;\n y = {}1{};", "(".repeat(1200), ")".repeat(1200));
        let e = check_nesting("a.c", &deep).unwrap_err().to_string();
        assert!(e.starts_with("a.c:2:1006:"), "{e}");
        let quoted = format!(
            "s = \"{}\"; // {}\n/* {} */",
            "(".repeat(2000),
            "{".repeat(2000),
            "[".repeat(2000)
        );
        assert!(check_nesting("a.c", &quoted).is_ok());
    }

    #[test]
    fn inner_scopes_shadow_and_close() {
        let mut l: Locals<LocalId> = Locals::new();
        let a = l.declare("x", |id| id);
        l.enter();
        let b = l.declare("x", |id| id);
        assert_eq!(l.lookup("x"), Some(b));
        l.leave();
        assert_eq!(l.lookup("x"), Some(a));
        assert!(l.shadows("x") && !l.shadows("y"));
        assert_eq!(l.count(), 2);
        assert_eq!(l.finish(), ["x", "x"]);
    }

    #[test]
    fn a_panicking_lowering_is_an_internal_error() {
        let r: Result<()> = on_big_stack("p.c", "parser", || panic!("boom"));
        assert!(matches!(r, Err(FrontendError::Internal { .. })));
    }
}
