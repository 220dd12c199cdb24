//! The C front end: RERS C programs of every year, parsed with `lang-c` and
//! lowered into the [`crate::ir`].
//!
//! Shapes accepted (see `shared/rers/README.md`):
//! - 2012: `int calculate_output(int)` returning the output code (-1 silent,
//!   -2 invalid), errors as `error_N: assert(0);`, inputs compared as ints;
//! - 2014: `assert(!error_N)` over `const int error_N = 1`, pointers into
//!   arrays, and the `_opt` variants whose step is inlined in `main`'s
//!   `while(1)` loop with a global `output` variable and
//!   `__assert_fail` ternaries;
//! - 2017-2019: `void calculate_output(int)` with helpers, `printf` outputs,
//!   `errorCheck()` calling `__VERIFIER_error(N)`, the `cf` flag and the
//!   "Invalid input" `fprintf`;
//! - SV-COMP (`eca-rers2012`, `eca-rers2018` and rigor's own sample):
//!   `__VERIFIER_nondet_int()` input, `__VERIFIER_assume(c)`, `reach_error()`
//!   and `reach_error_N()` error calls, `exit`, `abort`, `__assert_fail` and
//!   `assert` ending the run. Which calls are errors is [`ErrorCalls`].
//!
//! Anything else is an error naming `file:line:col` and the construct: the
//! front end never guesses.

use std::collections::{BTreeSet, HashMap};

mod expr;
mod globals;
mod scan;
mod stmt;
mod sv_main;

use lang_c::ast::*;
use lang_c::span::Node;
use scan::*;

use super::lower::{self, invalid_file, on_big_stack, Locals, Result};
use crate::ir::StepReturn;
use crate::ir::{self, Expr, FuncId, GlobalId, GlobalKind, Loc, LocalId};

/// Which calls are the program's error labels.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum ErrorCalls {
    /// RERS: `reach_error_N()` is error N, and `reach_error()` is the error
    /// of the `error_N:` label it stands in (0 outside one); the step ends
    /// there, as at `__VERIFIER_error(N)`.
    #[default]
    Rers,
    /// SV-COMP: only calls of this one function are errors (numbered as
    /// above), as in the property `G ! call(f())`; every other function does
    /// what its body says, and an error function without a body nothing.
    Only(String),
}

/// Parses and lowers the C program `text` read from `path`.
pub fn parse_c(path: &str, text: &str) -> Result<ir::Program> {
    parse_c_with(path, text, &ErrorCalls::Rers)
}

/// Parses and lowers the C program `text` read from `path`, with the error
/// calls `calls`.
pub fn parse_c_with(path: &str, text: &str, calls: &ErrorCalls) -> Result<ir::Program> {
    if text.trim().is_empty() {
        return Err(invalid_file(path, "empty file, expected a RERS C program"));
    }
    // Comments and preprocessor lines become blanks byte for byte, so that
    // offsets still point into the original text; RERS programs use no macros.
    let cleaned = blank_comments_and_directives(text);
    lower::check_nesting(path, &cleaned)?;
    let path_owned = path.to_string();
    let text_owned = text.to_string();
    let calls = calls.clone();
    on_big_stack(path, "C parser", move || -> Result<ir::Program> {
        let config = lang_c::driver::Config::default();
        let parse = lang_c::driver::parse_preprocessed(&config, cleaned).map_err(|e| {
            let mut expected: Vec<&str> = e.expected.iter().copied().collect();
            expected.sort_unstable();
            let shown = expected
                .iter()
                .take(8)
                .cloned()
                .collect::<Vec<_>>()
                .join(" ");
            lower::syntax(
                &path_owned,
                e.line as u32,
                e.column as u32,
                format!("syntax error, expected one of: {shown}"),
            )
        })?;
        let result = Lowerer::new(&path_owned, &text_owned, calls).lower(&parse.unit);
        // The AST is deeply nested: drop it on this big stack.
        drop(parse);
        result
    })
}

/// State of the lowering of one translation unit.
struct Lowerer<'a> {
    file: &'a str,
    line_starts: Vec<usize>,
    globals: Vec<ir::Global>,
    global_ix: HashMap<String, GlobalId>,
    defs: HashMap<String, &'a Node<FunctionDefinition>>,
    functions: Vec<Option<ir::Function>>,
    func_ix: HashMap<String, FuncId>,
    /// Constants assigned to each global (to find the outputs of `output = k`).
    assigned_consts: HashMap<GlobalId, BTreeSet<i32>>,
    output_exprs: Vec<Expr>,
    returned_consts: BTreeSet<i32>,
    error_labels: BTreeSet<u32>,
    /// Constants compared with a variable named `input`.
    input_consts: BTreeSet<i32>,
    // Per function being lowered:
    locals: Locals<LocalId>,
    params: u32,
    /// In a step inlined in `main`: `scanf` assigns this local (the input).
    scanf_source: Option<LocalId>,
    in_step_root: bool,
    /// Which calls are errors.
    error_calls: ErrorCalls,
    /// The `error_N:` label whose statement is being lowered.
    current_label: Option<u32>,
}

impl<'a> Lowerer<'a> {
    fn new(file: &'a str, text: &'a str, error_calls: ErrorCalls) -> Self {
        let mut line_starts = vec![0];
        for (i, b) in text.bytes().enumerate() {
            if b == b'\n' {
                line_starts.push(i + 1);
            }
        }
        Lowerer {
            file,
            line_starts,
            globals: Vec::new(),
            global_ix: HashMap::new(),
            defs: HashMap::new(),
            functions: Vec::new(),
            func_ix: HashMap::new(),
            assigned_consts: HashMap::new(),
            output_exprs: Vec::new(),
            returned_consts: BTreeSet::new(),
            error_labels: BTreeSet::new(),
            input_consts: BTreeSet::new(),
            locals: Locals::default(),
            params: 0,
            scanf_source: None,
            in_step_root: false,
            error_calls,
            current_label: None,
        }
    }

    fn loc(&self, offset: usize) -> Loc {
        let line = match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        Loc {
            line: line as u32 + 1,
            col: (offset - self.line_starts[line]) as u32 + 1,
        }
    }

    fn err<T>(&self, offset: usize, msg: impl Into<String>) -> Result<T> {
        Err(lower::invalid(self.file, self.loc(offset), msg))
    }

    fn unsupported<T>(&self, offset: usize, what: &str) -> Result<T> {
        Err(lower::unsupported(self.file, self.loc(offset), "C", what))
    }

    fn lower(mut self, unit: &'a TranslationUnit) -> Result<ir::Program> {
        for ext in &unit.0 {
            match &ext.node {
                ExternalDeclaration::Declaration(d) => self.global_declaration(d)?,
                ExternalDeclaration::FunctionDefinition(f) => {
                    let name = declarator_name(&f.node.declarator.node).unwrap_or_default();
                    self.defs.insert(name, f);
                }
                ExternalDeclaration::StaticAssert(s) => {
                    return self.unsupported(s.span.start, "_Static_assert")
                }
            }
        }
        let (step, step_return) = if let Some(def) = self.defs.get("calculate_output").copied() {
            let returns_int = !specifiers_are_void(&def.node.specifiers);
            let id = self.function(def, "calculate_output", true)?;
            let sr = if returns_int {
                StepReturn::OutputCode
            } else {
                StepReturn::Void
            };
            (id, sr)
        } else if let Some(main) = self.defs.get("main").copied() {
            (self.step_from_main(main)?, StepReturn::Void)
        } else {
            return Err(invalid_file(
                self.file,
                "not a RERS program: no `calculate_output` function and no `main` loop",
            ));
        };
        // (An SV-COMP program need not call its property's target at all.)
        let sv_comp = matches!(self.error_calls, ErrorCalls::Only(_));
        if self.error_labels.is_empty() && self.output_exprs.is_empty() && !sv_comp {
            return Err(invalid_file(
                self.file,
                "not a RERS program: the step has neither outputs nor error labels",
            ));
        }
        let inputs = self.input_alphabet(step_return)?;
        if sv_comp && self.defs.contains_key("calculate_output") {
            // The step runs on exactly the values `main` passes it.
            let main = self
                .defs
                .get("main")
                .copied()
                .ok_or_else(|| invalid_file(self.file, "an SV-COMP task without `main`"))?;
            let passed = self.sv_comp_main(main)?;
            let alphabet: BTreeSet<i32> = inputs.iter().map(|s| s.value).collect();
            if passed != alphabet {
                return Err(lower::invalid(
                    self.file,
                    self.loc(main.span.start),
                    format!("`main` passes the inputs {passed:?} to the step, not its alphabet {alphabet:?}"),
                ));
            }
        }
        let outputs = self.output_alphabet(step_return);
        let functions = self
            .functions
            .into_iter()
            .map(|f| f.expect("every function body is lowered before use"))
            .collect();
        Ok(ir::Program {
            source: self.file.to_string(),
            language: ir::Language::C,
            globals: self.globals,
            strings: Vec::new(),
            functions,
            step,
            step_return,
            inputs,
            outputs,
            error_labels: self.error_labels.into_iter().collect(),
        })
    }

    /// The input alphabet: the `inputs[]` array; else the symbols `main`
    /// accepts; else every constant the step compares `input` with.
    fn input_alphabet(&mut self, _sr: StepReturn) -> Result<Vec<ir::Symbol>> {
        let mut values: BTreeSet<i32> = BTreeSet::new();
        if let Some(&g) = self.global_ix.get("inputs") {
            if let GlobalKind::Array { init, .. } = &self.globals[g.0 as usize].kind {
                values.extend(init.iter().copied());
            }
        }
        if values.is_empty() {
            if let Some(main) = self.defs.get("main").copied() {
                let saved = std::mem::take(&mut self.input_consts);
                let mut found = BTreeSet::new();
                collect_input_comparisons(&main.node.statement, &mut found);
                self.input_consts = saved;
                values = found;
            }
        }
        if values.is_empty() {
            let max = self.input_consts.iter().copied().filter(|&v| v > 0).max();
            if let Some(max) = max {
                values = (1..=max).collect();
            }
        }
        if values.is_empty() {
            return Err(invalid_file(
                self.file,
                "cannot determine the input alphabet: no `inputs[]` array and no comparison with `input`",
            ));
        }
        Ok(values
            .into_iter()
            .map(|v| ir::Symbol {
                name: ir::letter(v),
                value: v,
            })
            .collect())
    }

    fn output_alphabet(&self, sr: StepReturn) -> Vec<ir::Symbol> {
        let mut values = BTreeSet::new();
        for e in &self.output_exprs {
            collect_output_values(e, &self.assigned_consts, &mut values);
        }
        if sr == StepReturn::OutputCode {
            values.extend(self.returned_consts.iter().copied());
        }
        values.remove(&-1);
        values.remove(&-2);
        values
            .into_iter()
            .map(|v| ir::Symbol {
                name: ir::letter(v),
                value: v,
            })
            .collect()
    }
}
