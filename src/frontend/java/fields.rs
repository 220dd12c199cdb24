//! Fields of a Java program: their types, initialisers and constant
//! expressions, and which of them the program only reads.

use std::collections::HashSet;

use tree_sitter::Node;

use super::{fold, named, scalar_of, Field, Lowerer, Ty};
use crate::frontend::lower::Result;
use crate::ir::ScalarTy;
use crate::ir::{self, GlobalId, GlobalKind, Loc};

impl<'a> Lowerer<'a> {
    /// Names assigned as a whole (`x = ...`) anywhere in the class: array
    /// fields among them are references that change.
    pub(super) fn wholly_assigned_names(&self, n: Node<'a>) -> HashSet<String> {
        let mut out = HashSet::new();
        let mut stack = vec![n];
        while let Some(n) = stack.pop() {
            if n.kind() == "assignment_expression" {
                if let Some(l) = n.child_by_field_name("left") {
                    match l.kind() {
                        "identifier" => {
                            out.insert(self.text(l).to_string());
                        }
                        "field_access" => {
                            if let Some(f) = l.child_by_field_name("field") {
                                out.insert(self.text(f).to_string());
                            }
                        }
                        _ => {}
                    }
                }
            }
            stack.extend(named(n));
        }
        out
    }

    pub(super) fn field_declaration(
        &mut self,
        d: Node<'a>,
        wholly_assigned: &HashSet<String>,
    ) -> Result<()> {
        let constant = named(d)
            .find(|c| c.kind() == "modifiers")
            .is_some_and(|m| self.text(m).split_whitespace().any(|w| w == "final"));
        let ty_node = self.field_of(d, "type")?;
        let base = self.type_of(ty_node);
        let mut c = d.walk();
        let declarators: Vec<Node> = d.children_by_field_name("declarator", &mut c).collect();
        for decl in declarators {
            let name = self.text(self.field_of(decl, "name")?).to_string();
            let loc = self.loc(decl);
            if self.fields.contains_key(&name) {
                return self.err(decl, format!("field `{name}` declared twice"));
            }
            let ty = match (base, decl.child_by_field_name("dimensions")) {
                (Some(Ty::Int), Some(_)) => Some(Ty::Array(ScalarTy::Int)),
                (Some(Ty::Bool), Some(_)) => Some(Ty::Array(ScalarTy::Bool)),
                (Some(Ty::Str), Some(_)) => Some(Ty::Array(ScalarTy::Str)),
                (_, Some(_)) => None,
                (t, None) => t,
            };
            let Some(ty) = ty else {
                let what = format!("field of type `{}`", self.text(ty_node));
                self.fields.insert(name, Field::Unsupported(loc, what));
                continue;
            };
            let value = decl.child_by_field_name("value");
            let kind = match ty {
                Ty::Int | Ty::Bool | Ty::Str => {
                    let init = match value {
                        None => match ty {
                            Ty::Str => {
                                // A null String: rigor has no null.
                                let what =
                                    "String field without an initial value (null)".to_string();
                                self.fields.insert(name, Field::Unsupported(loc, what));
                                continue;
                            }
                            _ => 0,
                        },
                        Some(v) => self.const_init(v, ty)?,
                    };
                    GlobalKind::Scalar {
                        ty: scalar_of(ty),
                        init,
                    }
                }
                Ty::Array(elem) => {
                    let reassigned = wholly_assigned.contains(&name);
                    match value {
                        Some(v) if v.kind() == "array_initializer" => {
                            let mut init = Vec::new();
                            for item in named(v) {
                                init.push(self.const_init(item, Ty::scalar(elem))?);
                            }
                            if reassigned {
                                // The storage gets its own (hidden) array;
                                // the field is a reference to it.
                                let store = self.push_global(
                                    format!("{name}$init"),
                                    GlobalKind::Array { elem, init },
                                    true,
                                    loc,
                                );
                                GlobalKind::Pointer { init: store }
                            } else {
                                GlobalKind::Array { elem, init }
                            }
                        }
                        Some(v) if v.kind() == "identifier" => {
                            let target = self.text(v);
                            let store = match self.fields.get(target) {
                                Some(Field::Global(g, t)) if *t == ty => match &self.globals[g.0 as usize].kind {
                                    GlobalKind::Array { .. } => *g,
                                    GlobalKind::Pointer { init } => *init,
                                    _ => return self.err(v, format!("`{target}` is not an array")),
                                },
                                _ => {
                                    return self.err(v, format!("`{target}` is not an array field of type {}", ty.name()))
                                }
                            };
                            GlobalKind::Pointer { init: store }
                        }
                        Some(v) => return self.unsupported(v, "array field initialised with something other than `{...}` or an array field"),
                        None => {
                            let what = format!("array field `{name}` without an initial value (null)");
                            self.fields.insert(name, Field::Unsupported(loc, what));
                            continue;
                        }
                    }
                }
            };
            let g = self.push_global(
                name.clone(),
                kind,
                constant && !matches!(ty, Ty::Array(_)),
                loc,
            );
            self.fields.insert(name, Field::Global(g, ty));
        }
        Ok(())
    }

    pub(super) fn push_global(
        &mut self,
        name: String,
        kind: GlobalKind,
        constant: bool,
        loc: Loc,
    ) -> GlobalId {
        let id = GlobalId(self.globals.len() as u32);
        self.globals.push(ir::Global {
            name,
            kind,
            constant,
            loc,
        });
        id
    }

    /// The scalar type named by a type node (`int`, `boolean`, `String`),
    /// `None` for any other.
    pub(super) fn type_of(&self, t: Node) -> Option<Ty> {
        match t.kind() {
            "integral_type" if self.text(t) == "int" => Some(Ty::Int),
            "boolean_type" => Some(Ty::Bool),
            "type_identifier" if self.text(t) == "String" => Some(Ty::Str),
            "array_type" => {
                let elem = t.child_by_field_name("element")?;
                let dims = t.child_by_field_name("dimensions")?;
                if self.text(dims).chars().filter(|&c| c == '[').count() != 1 {
                    return None;
                }
                match self.type_of(elem)? {
                    Ty::Int => Some(Ty::Array(ScalarTy::Int)),
                    Ty::Bool => Some(Ty::Array(ScalarTy::Bool)),
                    Ty::Str => Some(Ty::Array(ScalarTy::Str)),
                    Ty::Array(_) => None,
                }
            }
            _ => None,
        }
    }

    /// The value of a field initialiser: a constant expression over
    /// literals and the initial values of fields declared before.
    pub(super) fn const_init(&mut self, v: Node<'a>, ty: Ty) -> Result<i32> {
        let (e, t) = self.const_expr(v)?;
        if t != ty {
            return self.err(
                v,
                format!("initial value of type {}, expected {}", t.name(), ty.name()),
            );
        }
        Ok(e)
    }

    pub(super) fn const_expr(&mut self, v: Node<'a>) -> Result<(i32, Ty)> {
        match v.kind() {
            "parenthesized_expression" => self.const_expr(self.only_child(v)?),
            "string_literal" => {
                let s = self.string_value(v)?;
                Ok((ir::intern(&mut self.strings, &s), Ty::Str))
            }
            "identifier" => match self.fields.get(self.text(v)) {
                Some(Field::Global(g, t)) => match &self.globals[g.0 as usize].kind {
                    GlobalKind::Scalar { init, .. } => Ok((*init, *t)),
                    _ => self.unsupported(v, "array used as a value in an initialiser"),
                },
                _ => self.err(
                    v,
                    format!("unknown field `{}` in an initialiser", self.text(v)),
                ),
            },
            _ => {
                // Literals and operators: lower as an expression, then fold.
                let saved = std::mem::take(&mut self.locals);
                let r = self.expr(v);
                self.locals = saved;
                let (e, t) = r?;
                match fold(&e) {
                    Some(k) => Ok((k, t)),
                    None => self.unsupported(v, "non-constant field initialiser"),
                }
            }
        }
    }

    pub(super) fn only_child(&self, n: Node<'a>) -> Result<Node<'a>> {
        match named(n).next() {
            Some(c) => Ok(c),
            None => self.err(n, format!("malformed {}", n.kind())),
        }
    }

    /// The text of a string literal, with the simple escapes decoded.
    pub(super) fn string_value(&self, n: Node) -> Result<String> {
        let raw = self.text(n);
        if raw.starts_with("\"\"\"")
            || !raw.starts_with('"')
            || !raw.ends_with('"')
            || raw.len() < 2
        {
            return self.unsupported(n, "text block or malformed string literal");
        }
        let inner = &raw[1..raw.len() - 1];
        let mut out = String::new();
        let mut chars = inner.chars();
        while let Some(c) = chars.next() {
            if c != '\\' {
                out.push(c);
                continue;
            }
            match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some('"') => out.push('"'),
                Some('\'') => out.push('\''),
                Some('\\') => out.push('\\'),
                _ => return self.unsupported(n, "string escape other than \\n \\t \\\" \\' \\\\"),
            }
        }
        Ok(out)
    }
}
