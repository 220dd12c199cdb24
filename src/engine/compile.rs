//! IR → bytecode. Calls are inlined (RERS call graphs are acyclic and each
//! helper has one call site); conditions compile to fused compare-and-branch
//! instructions with short-circuit jumps.

use super::layout::{Layout, Storage};
use super::op::Op;
use super::Machine;
use crate::source::Location;

/// Why a program cannot be compiled (the front end accepted it, but it is
/// outside what the engine runs).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CompileError {
    /// The inlined code exceeds the engine's address space.
    #[error("{at}: program too large after inlining")]
    TooLarge {
        /// The program.
        at: Location,
    },
    /// A function calls itself (RERS call graphs are acyclic).
    #[error("{at}: recursive call of `{function}`")]
    Recursion {
        /// The program.
        at: Location,
        /// The function.
        function: String,
    },
    /// A constant global is assigned.
    #[error("{at}: assignment to constant `{name}`")]
    ConstantAssigned {
        /// The program.
        at: Location,
        /// The global.
        name: String,
    },
    /// A global that is not an array is indexed.
    #[error("{at}: `{name}` is indexed but is not an array")]
    NotAnArray {
        /// The program.
        at: Location,
        /// The global.
        name: String,
    },
    /// A function without a return value is used as a value.
    #[error("{at}: `{function}` returns no value")]
    NoValue {
        /// The program.
        at: Location,
        /// The function.
        function: String,
    },
}

type Result<T> = std::result::Result<T, CompileError>;
use crate::ir::{ArrayRef, BinOp, Expr, FuncId, Place, Program, Stmt, UnOp};

/// Maximum inlined code size: guards against call-graph blow-up.
const MAX_CODE: usize = 50_000_000;

struct Compiler<'p> {
    p: &'p Program,
    layout: Layout,
    code: Vec<Op>,
    /// Locals of the function instance being compiled: tagged addresses.
    frames: Vec<Frame>,
    inline_stack: Vec<FuncId>,
}

struct Frame {
    locals: Vec<u32>,
    /// Where a `return` value goes, and the jumps to patch to the end.
    ret_value: Option<u32>,
    ret_jumps: Vec<usize>,
    root: bool,
}

/// A label to patch: indices of jump instructions waiting for a target.
type Patch = Vec<usize>;

pub(super) fn compile(p: &Program, optimize: bool) -> Result<Machine> {
    let layout = Layout::new(p);
    let mut c = Compiler {
        p,
        layout,
        code: Vec::new(),
        frames: Vec::new(),
        inline_stack: Vec::new(),
    };
    let f = p.function(p.step);
    let locals: Vec<u32> = (0..f.locals).map(|_| c.layout.reg()).collect();
    let input_tagged = locals[0];
    c.frames.push(Frame {
        locals,
        ret_value: None,
        ret_jumps: Vec::new(),
        root: true,
    });
    c.inline_stack.push(p.step);
    c.stmts(&f.body)?;
    c.code.push(Op::End);
    // Resolve tagged addresses.
    c.layout.finish();
    let layout = c.layout;
    let mut code = c.code;
    for op in &mut code {
        op.map_addrs(&|a| layout.resolve(a));
    }
    let cb = layout.state_width as usize;
    let input_addr = layout.resolve(input_tagged);
    let mut mem = vec![0; layout.mem_size()];
    mem[cb..cb + layout.consts.len()].copy_from_slice(&layout.consts);
    let consts = super::specialize::ConstRange {
        start: cb as u32,
        end: (cb + layout.consts.len()) as u32,
    };
    let has_loops = code
        .iter()
        .enumerate()
        .any(|(i, op)| matches!(op, Op::Jmp { target } if (*target as usize) <= i));
    if optimize {
        let consts_at = |a: u32| {
            (consts.start..consts.end)
                .contains(&a)
                .then(|| mem[a as usize])
        };
        super::dispatch::optimize(&mut code, &consts_at);
    }
    // One copy of the code per input symbol, when the input is read-only.
    let mut entries = vec![0u32; p.inputs.len()];
    if optimize {
        let values: Vec<i32> = p.inputs.iter().map(|s| s.value).collect();
        if let Some(versions) =
            super::specialize::specialize_all(&code, input_addr, &values, &mem, &consts)
        {
            let total: usize = versions.iter().map(Vec::len).sum();
            if total <= MAX_CODE {
                let mut all = Vec::with_capacity(total);
                for (i, mut c) in versions.into_iter().enumerate() {
                    let base = all.len() as u32;
                    for op in &mut c {
                        op.shift_target(base);
                    }
                    entries[i] = base;
                    all.extend(c);
                }
                code = all;
            }
        }
    }

    for (i, g) in p.globals.iter().enumerate() {
        match (layout.storage[i], &g.kind) {
            (Storage::State(a), crate::ir::GlobalKind::Scalar { init, .. }) => {
                mem[a as usize] = *init
            }
            (Storage::State(a), crate::ir::GlobalKind::Pointer { init }) => {
                mem[a as usize] = init.0 as i32
            }
            (Storage::Array { base, .. }, crate::ir::GlobalKind::Array { init, .. }) => {
                let b = layout.resolve(base) as usize;
                mem[b..b + init.len()].copy_from_slice(init);
            }
            _ => {}
        }
    }
    Ok(Machine {
        input_addr,
        code,
        entries,
        input_values: p.inputs.iter().map(|s| s.value).collect(),
        output_values: p.outputs.iter().map(|s| s.value).collect(),
        input_names: p.inputs.iter().map(|s| s.name.clone()).collect(),
        output_names: p.outputs.iter().map(|s| s.name.clone()).collect(),
        error_labels: p.error_labels.clone(),
        mem_template: mem,
        step_return: p.step_return,
        has_loops,
        layout,
    })
}

impl Compiler<'_> {
    fn frame(&mut self) -> &mut Frame {
        self.frames.last_mut().expect("a frame is open")
    }

    /// The program, for errors.
    fn at(&self) -> Location {
        Location::file(&self.p.source)
    }

    fn emit(&mut self, op: Op) -> Result<usize> {
        if self.code.len() >= MAX_CODE {
            return Err(CompileError::TooLarge { at: self.at() });
        }
        self.code.push(op);
        Ok(self.code.len() - 1)
    }

    fn here(&self) -> u32 {
        self.code.len() as u32
    }

    fn patch(&mut self, patch: Patch, target: u32) {
        for i in patch {
            self.code[i].set_target(target);
        }
    }

    fn stmts(&mut self, stmts: &[Stmt]) -> Result<()> {
        for s in stmts {
            self.stmt(s)?;
        }
        Ok(())
    }

    fn stmt(&mut self, s: &Stmt) -> Result<()> {
        match s {
            Stmt::Assign(place, e, _) => self.assign(place, e)?,
            Stmt::If(c, t, f) => {
                let mut to_else = Vec::new();
                self.branch(c, false, &mut to_else)?;
                self.stmts(t)?;
                if f.is_empty() {
                    let h = self.here();
                    self.patch(to_else, h);
                } else {
                    let j = self.emit(Op::Jmp { target: 0 })?;
                    let h = self.here();
                    self.patch(to_else, h);
                    self.stmts(f)?;
                    let h = self.here();
                    self.patch(vec![j], h);
                }
            }
            Stmt::While(c, body) => {
                let top = self.here();
                let mut exit = Vec::new();
                self.branch(c, false, &mut exit)?;
                self.stmts(body)?;
                self.emit(Op::Jmp { target: top })?;
                let h = self.here();
                self.patch(exit, h);
            }
            Stmt::Call(f, args, _) => {
                self.inline_call(*f, args)?;
            }
            Stmt::Return(v) => {
                let root = self.frame().root;
                if root {
                    match v {
                        Some(e) => {
                            let a = self.operand(e)?;
                            self.emit(Op::Return { src: a })?;
                        }
                        None => {
                            self.emit(Op::End)?;
                        }
                    }
                } else {
                    if let (Some(e), Some(dst)) = (v, self.frame().ret_value) {
                        self.expr_into(e, dst)?;
                    }
                    let j = self.emit(Op::Jmp { target: 0 })?;
                    self.frame().ret_jumps.push(j);
                }
            }
            Stmt::Output(e, _) => {
                let a = self.operand(e)?;
                self.emit(Op::Output { src: a })?;
            }
            Stmt::Error(n) => {
                self.emit(Op::Error { label: *n })?;
            }
            Stmt::Invalid => {
                self.emit(Op::Invalid)?;
            }
            Stmt::Assume(c) => {
                let mut ok = Vec::new();
                self.branch(c, true, &mut ok)?;
                self.emit(Op::Blocked)?;
                let h = self.here();
                self.patch(ok, h);
            }
        }
        Ok(())
    }

    /// Inlines a call; returns the register holding the result (if any).
    fn inline_call(&mut self, f: FuncId, args: &[Expr]) -> Result<Option<u32>> {
        if self.inline_stack.contains(&f) {
            return Err(CompileError::Recursion {
                at: self.at(),
                function: self.p.function(f).name.clone(),
            });
        }
        let func = self.p.function(f);
        let mut locals = Vec::with_capacity(func.locals as usize);
        for (i, a) in args.iter().enumerate() {
            let r = self.layout.reg();
            self.expr_into(a, r)?;
            locals.push(r);
            let _ = i;
        }
        while locals.len() < func.locals as usize {
            locals.push(self.layout.reg());
        }
        let ret_value = if func.returns_value {
            Some(self.layout.reg())
        } else {
            None
        };
        self.frames.push(Frame {
            locals,
            ret_value,
            ret_jumps: Vec::new(),
            root: false,
        });
        self.inline_stack.push(f);
        self.stmts(&func.body)?;
        self.inline_stack.pop();
        let frame = self.frames.pop().expect("pushed above");
        let h = self.here();
        // A trailing `return` jumps to the very next instruction: drop it.
        let mut jumps = frame.ret_jumps;
        if let Some(&last) = jumps.last() {
            if last + 1 == h as usize {
                self.code.pop();
                jumps.pop();
            }
        }
        let h = self.here();
        self.patch(jumps, h);
        Ok(ret_value)
    }

    fn assign(&mut self, place: &Place, e: &Expr) -> Result<()> {
        match place {
            Place::Local(l) => {
                let dst = self.frame().locals[l.0 as usize];
                self.expr_into(e, dst)
            }
            Place::Global(g) => match self.layout.storage[g.0 as usize] {
                Storage::State(a) | Storage::Temp(a) => self.expr_into(e, a),
                _ => Err(CompileError::ConstantAssigned {
                    at: self.at(),
                    name: self.p.global(*g).name.clone(),
                }),
            },
            Place::Index(arr, idx) => {
                let i = self.operand(idx)?;
                let v = self.operand(e)?;
                match self.array(*arr)? {
                    ArrayAt::Direct { base, len } => self.emit(Op::Store {
                        base,
                        len,
                        idx: i,
                        src: v,
                    })?,
                    ArrayAt::Pointer(ptr) => self.emit(Op::StorePtr {
                        ptr,
                        idx: i,
                        src: v,
                    })?,
                };
                Ok(())
            }
        }
    }

    fn array(&mut self, a: ArrayRef) -> Result<ArrayAt> {
        let g = match a {
            ArrayRef::Array(g) => g,
            ArrayRef::Pointer(p) => match self.layout.storage[p.0 as usize] {
                Storage::Const(target) => crate::ir::GlobalId(target as u32),
                Storage::State(a) | Storage::Temp(a) => return Ok(ArrayAt::Pointer(a)),
                Storage::Array { .. } => unreachable!("a pointer is not stored as an array"),
            },
        };
        match self.layout.storage[g.0 as usize] {
            Storage::Array { base, len } => Ok(ArrayAt::Direct { base, len }),
            _ => Err(CompileError::NotAnArray {
                at: self.at(),
                name: self.p.global(g).name.clone(),
            }),
        }
    }

    /// The address holding the value of `e`: a constant, a variable, or a
    /// fresh register with the computed value.
    fn operand(&mut self, e: &Expr) -> Result<u32> {
        match e {
            Expr::Const(v) => Ok(self.layout.constant(*v)),
            Expr::ArrayAddr(g) => Ok(self.layout.constant(g.0 as i32)),
            Expr::Local(l) => Ok(self.frame().locals[l.0 as usize]),
            Expr::Global(g) => Ok(match self.layout.storage[g.0 as usize] {
                Storage::Const(v) => self.layout.constant(v),
                Storage::State(a) | Storage::Temp(a) => a,
                Storage::Array { .. } => self.layout.constant(g.0 as i32),
            }),
            _ => {
                let r = self.layout.reg();
                self.expr_into(e, r)?;
                Ok(r)
            }
        }
    }

    /// Computes `e` into address `dst`.
    fn expr_into(&mut self, e: &Expr, dst: u32) -> Result<()> {
        match e {
            Expr::Const(_) | Expr::ArrayAddr(_) | Expr::Local(_) | Expr::Global(_) => {
                let src = self.operand(e)?;
                if src != dst {
                    self.emit(Op::Mov { dst, src })?;
                }
            }
            Expr::Index(arr, idx) => {
                let i = self.operand(idx)?;
                match self.array(*arr)? {
                    ArrayAt::Direct { base, len } => self.emit(Op::Load {
                        dst,
                        base,
                        len,
                        idx: i,
                    })?,
                    ArrayAt::Pointer(ptr) => self.emit(Op::LoadPtr { dst, ptr, idx: i })?,
                };
            }
            Expr::Unary(op, a) => {
                let a = self.operand(a)?;
                self.emit(match op {
                    UnOp::Neg => Op::Neg { dst, a },
                    UnOp::Not => Op::Not { dst, a },
                    UnOp::BitNot => Op::BitNot { dst, a },
                })?;
            }
            Expr::Binary(BinOp::LogAnd | BinOp::LogOr, ..) | Expr::Cond(..) if false => {}
            Expr::Binary(op @ (BinOp::LogAnd | BinOp::LogOr), _, _) => {
                // dst = cond ? 1 : 0 with short-circuit.
                let _ = op;
                let mut f = Vec::new();
                self.branch(e, false, &mut f)?;
                let one = self.layout.constant(1);
                let zero = self.layout.constant(0);
                self.emit(Op::Mov { dst, src: one })?;
                let j = self.emit(Op::Jmp { target: 0 })?;
                let h = self.here();
                self.patch(f, h);
                self.emit(Op::Mov { dst, src: zero })?;
                let h = self.here();
                self.patch(vec![j], h);
            }
            Expr::Binary(op, a, b) => {
                let a = self.operand(a)?;
                let b = self.operand(b)?;
                self.emit(match op {
                    BinOp::Add => Op::Add { dst, a, b },
                    BinOp::Sub => Op::Sub { dst, a, b },
                    BinOp::Mul => Op::Mul { dst, a, b },
                    BinOp::Div => Op::Div { dst, a, b },
                    BinOp::Rem => Op::Rem { dst, a, b },
                    op => Op::Bin { op: *op, dst, a, b },
                })?;
            }
            Expr::Cond(c, t, f) => {
                let mut to_else = Vec::new();
                self.branch(c, false, &mut to_else)?;
                self.expr_into(t, dst)?;
                let j = self.emit(Op::Jmp { target: 0 })?;
                let h = self.here();
                self.patch(to_else, h);
                self.expr_into(f, dst)?;
                let h = self.here();
                self.patch(vec![j], h);
            }
            Expr::Call(f, args) => {
                let r = self
                    .inline_call(*f, args)?
                    .ok_or_else(|| CompileError::NoValue {
                        at: self.at(),
                        function: self.p.function(*f).name.clone(),
                    })?;
                self.emit(Op::Mov { dst, src: r })?;
            }
        }
        Ok(())
    }

    /// Emits code that jumps (to the targets collected in `patch`) when `c`
    /// evaluates to `when`, and falls through otherwise.
    fn branch(&mut self, c: &Expr, when: bool, patch: &mut Patch) -> Result<()> {
        match c {
            Expr::Const(v) => {
                if (*v != 0) == when {
                    patch.push(self.emit(Op::Jmp { target: 0 })?);
                }
            }
            Expr::Unary(UnOp::Not, a) => self.branch(a, !when, patch)?,
            Expr::Binary(BinOp::LogAnd, a, b) => {
                if when {
                    let mut skip = Vec::new();
                    self.branch(a, false, &mut skip)?;
                    self.branch(b, true, patch)?;
                    let h = self.here();
                    self.patch(skip, h);
                } else {
                    self.branch(a, false, patch)?;
                    self.branch(b, false, patch)?;
                }
            }
            Expr::Binary(BinOp::LogOr, a, b) => {
                if when {
                    self.branch(a, true, patch)?;
                    self.branch(b, true, patch)?;
                } else {
                    let mut skip = Vec::new();
                    self.branch(a, true, &mut skip)?;
                    self.branch(b, false, patch)?;
                    let h = self.here();
                    self.patch(skip, h);
                }
            }
            Expr::Binary(
                op @ (BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge),
                a,
                b,
            ) => {
                let a = self.operand(a)?;
                let b = self.operand(b)?;
                // Normalise to the condition that triggers the jump.
                let op = if when { *op } else { negate(*op) };
                let op = match op {
                    BinOp::Eq => Op::JEq { a, b, target: 0 },
                    BinOp::Ne => Op::JNe { a, b, target: 0 },
                    BinOp::Lt => Op::JLt { a, b, target: 0 },
                    BinOp::Le => Op::JLe { a, b, target: 0 },
                    BinOp::Gt => Op::JLt {
                        a: b,
                        b: a,
                        target: 0,
                    },
                    BinOp::Ge => Op::JLe {
                        a: b,
                        b: a,
                        target: 0,
                    },
                    _ => unreachable!("comparison operators only"),
                };
                patch.push(self.emit(op)?);
            }
            _ => {
                let a = self.operand(c)?;
                patch.push(self.emit(if when {
                    Op::JNz { a, target: 0 }
                } else {
                    Op::JZ { a, target: 0 }
                })?);
            }
        }
        Ok(())
    }
}

enum ArrayAt {
    Direct { base: u32, len: u32 },
    Pointer(u32),
}

fn negate(op: BinOp) -> BinOp {
    match op {
        BinOp::Eq => BinOp::Ne,
        BinOp::Ne => BinOp::Eq,
        BinOp::Lt => BinOp::Ge,
        BinOp::Le => BinOp::Gt,
        BinOp::Gt => BinOp::Le,
        BinOp::Ge => BinOp::Lt,
        other => other,
    }
}
