//! Global declarations of a C program: scalars, arrays, pointers, and the
//! constant expressions that initialise them.

use lang_c::ast::*;
use lang_c::span::Node;

use super::scan::*;
use super::Lowerer;
use crate::frontend::lower::Result;
use crate::ir::ScalarTy;
use crate::ir::{self, GlobalId, GlobalKind};

impl<'a> Lowerer<'a> {
    pub(super) fn global_declaration(&mut self, d: &'a Node<Declaration>) -> Result<()> {
        let spec = &d.node.specifiers;
        let is_extern = spec.iter().any(|s| {
            matches!(&s.node, DeclarationSpecifier::StorageClass(c) if c.node == StorageClassSpecifier::Extern)
        });
        let is_typedef = spec.iter().any(|s| {
            matches!(&s.node, DeclarationSpecifier::StorageClass(c) if c.node == StorageClassSpecifier::Typedef)
        });
        if is_typedef {
            return self.unsupported(d.span.start, "typedef");
        }
        let constant = spec.iter().any(|s| {
            matches!(&s.node, DeclarationSpecifier::TypeQualifier(q) if q.node == TypeQualifier::Const)
        });
        for init in &d.node.declarators {
            let decl = &init.node.declarator.node;
            let derived: Vec<&DerivedDeclarator> = decl.derived.iter().map(|n| &n.node).collect();
            if derived.iter().any(|x| {
                matches!(
                    x,
                    DerivedDeclarator::Function(_) | DerivedDeclarator::KRFunction(_)
                )
            }) {
                continue; // a prototype
            }
            if is_extern {
                continue;
            }
            self.check_int_type(spec, init.span.start)?;
            let name = match declarator_name(decl) {
                Some(n) => n,
                None => return self.unsupported(init.span.start, "declaration without a name"),
            };
            let loc = self.loc(init.span.start);
            let kind = match derived.as_slice() {
                [] => {
                    let v = match &init.node.initializer {
                        None => 0,
                        Some(i) => self.const_initializer(i)?,
                    };
                    GlobalKind::Scalar {
                        ty: ScalarTy::Int,
                        init: v,
                    }
                }
                [DerivedDeclarator::Array(arr)] => {
                    let mut values = match &init.node.initializer {
                        None => Vec::new(),
                        Some(Node {
                            node: Initializer::List(items),
                            ..
                        }) => {
                            let mut v = Vec::new();
                            for item in items {
                                if !item.node.designation.is_empty() {
                                    return self
                                        .unsupported(item.span.start, "designated initializer");
                                }
                                v.push(self.const_initializer(&item.node.initializer)?);
                            }
                            v
                        }
                        Some(i) => {
                            return self
                                .unsupported(i.span.start, "array initializer that is not a list")
                        }
                    };
                    let len = match &arr.node.size {
                        ArraySize::Unknown => values.len(),
                        ArraySize::VariableExpression(e) | ArraySize::StaticExpression(e) => {
                            match self.const_eval(e) {
                                Some(n) if n >= 0 => n as usize,
                                _ => {
                                    return self
                                        .unsupported(e.span.start, "non-constant array size")
                                }
                            }
                        }
                        ArraySize::VariableUnknown => {
                            return self.unsupported(arr.span.start, "variable-length array")
                        }
                    };
                    if values.len() > len {
                        return self.err(init.span.start, "too many initializers for the array");
                    }
                    values.resize(len, 0);
                    GlobalKind::Array {
                        elem: ScalarTy::Int,
                        init: values,
                    }
                }
                [DerivedDeclarator::Pointer(_)] => {
                    let target =
                        match &init.node.initializer {
                            Some(Node {
                                node: Initializer::Expression(e),
                                ..
                            }) => match &e.node {
                                Expression::Identifier(id) => {
                                    self.array_global(&id.node.name, e.span.start)?
                                }
                                _ => return self.unsupported(
                                    e.span.start,
                                    "pointer initialised with something other than an array name",
                                ),
                            },
                            _ => {
                                return self.unsupported(
                                    init.span.start,
                                    "pointer without an array initializer",
                                )
                            }
                        };
                    GlobalKind::Pointer { init: target }
                }
                _ => {
                    return self.unsupported(
                        init.span.start,
                        "global of this type (only int, int[] and int* are supported)",
                    )
                }
            };
            if self.global_ix.contains_key(&name) {
                return self.err(init.span.start, format!("global `{name}` declared twice"));
            }
            let id = GlobalId(self.globals.len() as u32);
            self.globals.push(ir::Global {
                name: name.clone(),
                kind,
                constant,
                loc,
            });
            self.global_ix.insert(name, id);
        }
        Ok(())
    }

    pub(super) fn check_int_type(
        &self,
        spec: &[Node<DeclarationSpecifier>],
        at: usize,
    ) -> Result<()> {
        for s in spec {
            if let DeclarationSpecifier::TypeSpecifier(t) = &s.node {
                match t.node {
                    TypeSpecifier::Int | TypeSpecifier::Signed => {}
                    _ => return self.unsupported(t.span.start, "type other than int"),
                }
            }
        }
        let _ = at;
        Ok(())
    }

    pub(super) fn array_global(&self, name: &str, at: usize) -> Result<GlobalId> {
        match self.global_ix.get(name) {
            Some(&g) if matches!(self.globals[g.0 as usize].kind, GlobalKind::Array { .. }) => {
                Ok(g)
            }
            _ => self.err(at, format!("`{name}` is not an array global")),
        }
    }

    pub(super) fn const_initializer(&self, i: &Node<Initializer>) -> Result<i32> {
        match &i.node {
            Initializer::Expression(e) => match self.const_eval(e) {
                Some(v) => Ok(v),
                None => self.unsupported(e.span.start, "non-constant initializer"),
            },
            Initializer::List(_) => self.unsupported(i.span.start, "nested initializer list"),
        }
    }

    /// Evaluates a constant expression (literals, operators, `const` globals).
    pub(super) fn const_eval(&self, e: &Node<Expression>) -> Option<i32> {
        match &e.node {
            Expression::Constant(c) => constant_value(&c.node),
            Expression::Identifier(id) => {
                let g = self.global_ix.get(&id.node.name)?;
                let gl = &self.globals[g.0 as usize];
                match (&gl.kind, gl.constant) {
                    (GlobalKind::Scalar { init, .. }, true) => Some(*init),
                    _ => None,
                }
            }
            Expression::UnaryOperator(u) => {
                let v = self.const_eval(&u.node.operand)?;
                match u.node.operator.node {
                    UnaryOperator::Minus => Some(v.wrapping_neg()),
                    UnaryOperator::Plus => Some(v),
                    UnaryOperator::Negate => Some((v == 0) as i32),
                    UnaryOperator::Complement => Some(!v),
                    _ => None,
                }
            }
            Expression::BinaryOperator(b) => {
                let l = self.const_eval(&b.node.lhs)?;
                let r = self.const_eval(&b.node.rhs)?;
                let op = binop(&b.node.operator.node)?;
                op.eval(l, r)
            }
            Expression::Cast(cst) => self.const_eval(&cst.node.expression),
            _ => None,
        }
    }
}
