//! Where each global lives at run time.
//!
//! - A scalar or pointer never assigned is a **constant**: folded into the
//!   code, not stored in states.
//! - A scalar every step assigns before reading it (found in the straight
//!   prefix of the step: `cf = 1`, `output = -1`, `input = ...`) is a
//!   **temporary**: a register, not stored in states either.
//! - Everything else is **state**: one int per scalar, `len` ints per array.
//! - Arrays never written are constant blocks in the constant pool.

use std::collections::HashSet;

use crate::ir::{ArrayRef, Expr, GlobalId, GlobalKind, Place, Program, Stmt};

/// Storage of one global.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Storage {
    /// Never assigned: this value.
    Const(i32),
    /// Assigned before read in every step: a register (tagged address).
    Temp(u32),
    /// Part of the state, at this address.
    State(u32),
    /// An array of `len` ints starting at `base` (tagged address: state or
    /// constant pool).
    Array {
        /// Tagged address of the first element.
        base: u32,
        /// Number of elements.
        len: u32,
    },
}

/// Address tags used during compilation, resolved by [`Layout::resolve`].
pub(crate) const TAG_SHIFT: u32 = 30;
pub(crate) const TAG_CONST: u32 = 1 << TAG_SHIFT;
pub(crate) const TAG_REG: u32 = 2 << TAG_SHIFT;
const ADDR_MASK: u32 = (1 << TAG_SHIFT) - 1;

/// The memory layout of a compiled program.
#[derive(Clone, Debug)]
pub struct Layout {
    /// Storage of each global, by [`GlobalId`].
    pub storage: Vec<Storage>,
    /// Number of ints in a state.
    pub state_width: u32,
    /// Names of the state slots (for witnesses and debugging).
    pub slot_names: Vec<String>,
    /// Constant pool.
    pub consts: Vec<i32>,
    /// Number of registers.
    pub n_regs: u32,
    /// For pointer values: `arrays[g]` = (resolved base, len) of array global g.
    arrays: Vec<Option<(u32, u32)>>,
}

impl Layout {
    /// Decides the storage of every global of `p`.
    pub fn new(p: &Program) -> Layout {
        let written = written_globals(p);
        let temps = dead_at_entry(&p.function(p.step).body);
        let mut layout = Layout {
            storage: Vec::with_capacity(p.globals.len()),
            state_width: 0,
            slot_names: Vec::new(),
            consts: Vec::new(),
            n_regs: 0,
            arrays: vec![None; p.globals.len()],
        };
        for (i, g) in p.globals.iter().enumerate() {
            let id = GlobalId(i as u32);
            let is_written = written.contains(&id) && !g.constant;
            let s = match &g.kind {
                GlobalKind::Scalar { init, .. } if !is_written => Storage::Const(*init),
                GlobalKind::Pointer { init } if !is_written => Storage::Const(init.0 as i32),
                GlobalKind::Scalar { .. } | GlobalKind::Pointer { .. } if temps.contains(&id) => {
                    Storage::Temp(layout.reg())
                }
                GlobalKind::Scalar { .. } | GlobalKind::Pointer { .. } => {
                    layout.slot_names.push(g.name.clone());
                    layout.state_width += 1;
                    Storage::State(layout.state_width - 1)
                }
                GlobalKind::Array { init, .. } => {
                    let len = init.len() as u32;
                    if is_written {
                        let base = layout.state_width;
                        for k in 0..len {
                            layout.slot_names.push(format!("{}[{k}]", g.name));
                        }
                        layout.state_width += len;
                        Storage::Array { base, len }
                    } else {
                        let base = TAG_CONST | layout.consts.len() as u32;
                        layout.consts.extend_from_slice(init);
                        Storage::Array { base, len }
                    }
                }
            };
            layout.storage.push(s);
        }
        layout
    }

    /// A fresh register (tagged address).
    pub(crate) fn reg(&mut self) -> u32 {
        self.n_regs += 1;
        TAG_REG | (self.n_regs - 1)
    }

    /// The address of a constant in the pool (tagged), interning it.
    pub(crate) fn constant(&mut self, v: i32) -> u32 {
        // Scalar constants are few; a linear search over a small index keeps
        // the pool deterministic.
        if let Some(i) = self.consts.iter().position(|&x| x == v) {
            return TAG_CONST | i as u32;
        }
        self.consts.push(v);
        TAG_CONST | (self.consts.len() - 1) as u32
    }

    /// Resolves a tagged address to a final one.
    pub(crate) fn resolve(&self, a: u32) -> u32 {
        let off = a & ADDR_MASK;
        match a & !ADDR_MASK {
            0 => off,
            TAG_CONST => self.state_width + off,
            _ => self.state_width + self.consts.len() as u32 + off,
        }
    }

    /// Fills the pointer table once addresses are final.
    pub(crate) fn finish(&mut self) {
        for (i, s) in self.storage.iter().enumerate() {
            if let Storage::Array { base, len } = *s {
                self.arrays[i] = Some((self.resolve(base), len));
            }
        }
    }

    /// Total memory size: state, constants, registers.
    pub fn mem_size(&self) -> usize {
        (self.state_width + self.consts.len() as u32 + self.n_regs) as usize
    }

    /// The (base, len) of the array a pointer value names.
    #[inline]
    pub fn array_at(&self, ptr: i32) -> Option<(u32, u32)> {
        *self.arrays.get(ptr as usize)?
    }
}

fn scan_stmts(
    stmts: &[Stmt],
    written: &mut HashSet<GlobalId>,
    ptr_store: &mut bool,
    addr: &mut HashSet<GlobalId>,
) {
    for s in stmts {
        match s {
            Stmt::Assign(place, e, _) => {
                match place {
                    Place::Global(g) => {
                        written.insert(*g);
                    }
                    Place::Index(ArrayRef::Array(g), i) => {
                        written.insert(*g);
                        scan_expr(i, addr);
                    }
                    Place::Index(ArrayRef::Pointer(_), i) => {
                        *ptr_store = true;
                        scan_expr(i, addr);
                    }
                    Place::Local(_) => {}
                }
                scan_expr(e, addr);
            }
            Stmt::If(c, a, b) => {
                scan_expr(c, addr);
                scan_stmts(a, written, ptr_store, addr);
                scan_stmts(b, written, ptr_store, addr);
            }
            Stmt::While(c, a) => {
                scan_expr(c, addr);
                scan_stmts(a, written, ptr_store, addr);
            }
            Stmt::Call(_, args, _) => args.iter().for_each(|a| scan_expr(a, addr)),
            Stmt::Return(Some(e)) | Stmt::Output(e, _) | Stmt::Assume(e) => scan_expr(e, addr),
            Stmt::Return(None) | Stmt::Error(_) | Stmt::Invalid => {}
        }
    }
}

/// The globals some statement of `p` may write: assigned scalars and
/// pointers, arrays indexed by an assignment, and, when some assignment
/// writes through a pointer, every array whose address is taken.
pub fn written_globals(p: &Program) -> HashSet<GlobalId> {
    let mut written = HashSet::new();
    let mut ptr_store = false;
    let mut addr_taken = HashSet::new();
    for g in &p.globals {
        if let GlobalKind::Pointer { init } = g.kind {
            addr_taken.insert(init);
        }
    }
    for f in &p.functions {
        scan_stmts(&f.body, &mut written, &mut ptr_store, &mut addr_taken);
    }
    if ptr_store {
        written.extend(addr_taken.iter().copied());
    }
    written
}

fn scan_expr(e: &Expr, addr: &mut HashSet<GlobalId>) {
    match e {
        Expr::ArrayAddr(g) => {
            addr.insert(*g);
        }
        Expr::Index(_, i) | Expr::Unary(_, i) => scan_expr(i, addr),
        Expr::Binary(_, a, b) => {
            scan_expr(a, addr);
            scan_expr(b, addr);
        }
        Expr::Cond(a, b, c) => {
            scan_expr(a, addr);
            scan_expr(b, addr);
            scan_expr(c, addr);
        }
        Expr::Call(_, args) => args.iter().for_each(|a| scan_expr(a, addr)),
        Expr::Const(_) | Expr::Global(_) | Expr::Local(_) => {}
    }
}

/// Scalar globals assigned in the straight-line prefix of the step before
/// any read of them: their value at the start of a step never matters.
fn dead_at_entry(body: &[Stmt]) -> HashSet<GlobalId> {
    let mut read = HashSet::new();
    let mut dead = HashSet::new();
    for s in body {
        match s {
            Stmt::Assign(Place::Global(g), e, _) => {
                reads(e, &mut read);
                if read.contains(&GlobalId(u32::MAX)) {
                    break;
                }
                if !read.contains(g) {
                    dead.insert(*g);
                }
            }
            Stmt::Assign(Place::Local(_), e, _) => reads(e, &mut read),
            _ => break,
        }
    }
    dead
}

fn reads(e: &Expr, out: &mut HashSet<GlobalId>) {
    match e {
        Expr::Global(g) => {
            out.insert(*g);
        }
        Expr::Index(a, i) => {
            let (ArrayRef::Pointer(g) | ArrayRef::Array(g)) = a;
            out.insert(*g);
            reads(i, out);
        }
        Expr::Unary(_, i) => reads(i, out),
        Expr::Binary(_, a, b) => {
            reads(a, out);
            reads(b, out);
        }
        Expr::Cond(a, b, c) => {
            reads(a, out);
            reads(b, out);
            reads(c, out);
        }
        // A call may read anything: be conservative.
        Expr::Call(..) => {
            out.insert(GlobalId(u32::MAX));
        }
        Expr::Const(_) | Expr::Local(_) | Expr::ArrayAddr(_) => {}
    }
}
