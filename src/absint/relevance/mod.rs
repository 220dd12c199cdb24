//! Which state slots an abstract state's future depends on.
//!
//! A RERS program encodes its hidden automaton state in a few variables
//! (`a152` picks a mode, `a95` a state within it...), and every transition
//! also writes many others that only matter in other modes. Their stale
//! values multiply the states of any abstraction that keys on every
//! variable: RERS 2017 problem 11 has 45 such variables, each with two or
//! three values, and an exact-keyed abstraction never completes.
//!
//! [`Relevance`] looks at the program once and lists its *sites*: every
//! guarded block, with the conjunction of comparisons that leads to it
//! (its enclosing conditions and its own) and the slots its condition and
//! its statements read. In a given state, a site whose conjunction has a
//! comparison that is false there cannot run; one comparison is enough to
//! tell (a comparison of a slot with a constant, or of the element at a
//! constant index of the array a pointer points to, `35 == a195[2]`),
//! and [`Relevance::relevant`] keeps just that comparison's slot,
//! preferring slots that decide many sites (the mode variables). The slots
//! of every other site are kept.
//!
//! The abstraction keys states on the relevant slots only and joins the
//! rest. Any choice of key is sound (states with one key are joined, and a
//! joined state is expanded again), so this choice only trades precision:
//! a slot left out of the key while a later step reads it before writing
//! it is joined over more states, and a path through it may be spurious,
//! to be rejected by replay.

use std::sync::Mutex;

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use super::interval::mirror;
use super::interval::Interval;
use crate::engine::{Machine, Storage};
use crate::ir::{ArrayRef, BinOp, Expr, Place, Program, Stmt};
use std::sync::atomic::{AtomicU64, Ordering};

/// Most sites a program may have before relevance is not used.
const MAX_SITES: usize = 200_000;

/// Deepest call nesting followed from the step function.
const MAX_DEPTH: u32 = 64;

/// What a comparison reads: a state slot, or the element at a constant
/// index of the array a pointer slot points to (`35 == a195[2]` with
/// `int *a195`, as the 2019 challenge programs compare).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
enum Operand {
    Slot(u32),
    Element { pointer: u32, index: u32 },
}

/// A comparison of one operand with a constant: `operand op value`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
struct Atom {
    on: Operand,
    op: BinOp,
    value: i64,
}

/// An array element a pointer atom may read: a constant (the arrays no
/// step writes) or a state slot.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
enum Element {
    Const(i64),
    Slot(u32),
}

impl Atom {
    /// The slot the atom is ranked by: the compared slot, or the pointer.
    fn slot(&self) -> u32 {
        match self.on {
            Operand::Slot(s) | Operand::Element { pointer: s, .. } => s,
        }
    }

    /// Whether the comparison is false for every value of `x`.
    fn refuted_by(&self, x: Interval) -> bool {
        let c = self.value;
        match self.op {
            BinOp::Eq => !x.contains(c),
            BinOp::Ne => x.lo == c && x.hi == c,
            BinOp::Lt => x.lo >= c,
            BinOp::Le => x.lo > c,
            BinOp::Gt => x.hi <= c,
            BinOp::Ge => x.hi < c,
            _ => false,
        }
    }
}

/// A guarded block: the comparisons that must hold besides the enclosing
/// ones for it to run, and the slots it reads when it does. Sites are
/// listed in preorder: the sites it encloses follow it, up to `end`.
#[derive(Clone, Debug)]
struct Site {
    atoms: Vec<Atom>,
    reads: Vec<u32>,
    /// One past the last site it encloses.
    end: u32,
}

/// The sites as [`Relevance::compute`] reads them: each distinct
/// comparison once (a program repeats a mode's comparisons in every rule
/// of the mode: 2019 challenge problem 18 has 19,728 comparisons in its
/// sites, 1,295 of them distinct), so that a state decides each one once,
/// and the sites' comparisons and reads in two flat lists, in site order.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct FlatSites {
    /// The distinct comparisons.
    atoms: Vec<Atom>,
    /// Per site, in preorder: its comparisons (indices into `atoms`) and
    /// the slots it reads, as ranges of `atom_of` and `reads`, and one
    /// past the last site it encloses.
    sites: Vec<FlatSite>,
    atom_of: Vec<u32>,
    reads: Vec<u32>,
}

/// One site of [`FlatSites`].
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
struct FlatSite {
    atoms: (u32, u32),
    reads: (u32, u32),
    end: u32,
}

impl FlatSites {
    fn new(sites: &[Site]) -> FlatSites {
        let mut flat = FlatSites::default();
        let mut index: FxHashMap<Atom, u32> = FxHashMap::default();
        for site in sites {
            let first = (flat.atom_of.len() as u32, flat.reads.len() as u32);
            for a in &site.atoms {
                let next = flat.atoms.len() as u32;
                let k = *index.entry(*a).or_insert(next);
                if k == next {
                    flat.atoms.push(*a);
                }
                flat.atom_of.push(k);
            }
            flat.reads.extend_from_slice(&site.reads);
            flat.sites.push(FlatSite {
                atoms: (first.0, flat.atom_of.len() as u32),
                reads: (first.1, flat.reads.len() as u32),
                end: site.end,
            });
        }
        flat
    }

    /// Site `site`'s comparisons, as indices into `atoms`.
    fn atoms_of(&self, site: &FlatSite) -> &[u32] {
        &self.atom_of[site.atoms.0 as usize..site.atoms.1 as usize]
    }

    /// The slots site `site` reads.
    fn reads_of(&self, site: &FlatSite) -> &[u32] {
        &self.reads[site.reads.0 as usize..site.reads.1 as usize]
    }
}

/// The sites of a program and how often each slot decides one.
#[derive(Debug, Serialize, Deserialize)]
pub struct Relevance {
    sites: FlatSites,
    /// Per slot: the number of site comparisons on it (higher first).
    priority: Vec<u32>,
    /// Per slot: kept in every state (pointers: joining two makes a read
    /// through them name every array).
    always: Vec<bool>,
    /// The slots some comparison of a site is on (directly, or as an array
    /// element a pointer atom may read), each with the sorted constants it
    /// is compared with; with [`Relevance::pointers`], all
    /// [`Relevance::relevant`] looks at.
    compared: Vec<(u32, Vec<i64>)>,
    /// The pointer slots some comparison reads an element through.
    pointers: Vec<u32>,
    /// The element each (pointer value, index) of a pointer atom denotes,
    /// at `value * stride + index` (pointer values are global ids); `None`
    /// names no array element (the step faults). A table rather than a
    /// map: every question looks up hundreds of them.
    elements: Vec<Option<Element>>,
    /// One more than the greatest index a pointer atom reads.
    stride: u32,
    /// Per slot: the arrays a pointer slot may point to, where known
    /// ([`super::analysis::pointer_targets`]): a pointer joined over some
    /// of them still refutes a comparison all their elements refute.
    targets: Vec<Option<Vec<i32>>>,
    /// Results of [`Relevance::relevant`] by where the compared slots'
    /// bounds lie among their constants ([`Relevance::memo_key`]; a
    /// program with thousands of sites asks again and again for the few
    /// combinations its modes take).
    #[serde(skip)]
    memo: Mutex<FxHashMap<Vec<u32>, Vec<bool>>>,
    /// Questions [`Relevance::relevant`] was asked, and how many of them the
    /// memo answered: see [`MEMO_TRIAL`].
    #[serde(skip)]
    asked: AtomicU64,
    #[serde(skip)]
    remembered: AtomicU64,
}

/// Questions after which the memo is given up unless it answered at least
/// half of them: where the compared slots take many combinations (the
/// 2019 challenge problem 15 has 157 of them and misses four times out of
/// five), building the memo's key costs more than it saves.
const MEMO_TRIAL: u64 = 1 << 14;

/// Most results [`Relevance`] remembers before it starts afresh (each
/// holds the compared intervals and one flag per slot: a few KiB).
const MEMO_LIMIT: usize = 1 << 13;

impl Clone for Relevance {
    fn clone(&self) -> Self {
        Relevance {
            sites: self.sites.clone(),
            priority: self.priority.clone(),
            always: self.always.clone(),
            compared: self.compared.clone(),
            pointers: self.pointers.clone(),
            elements: self.elements.clone(),
            stride: self.stride,
            targets: self.targets.clone(),
            memo: Mutex::default(),
            asked: AtomicU64::new(0),
            remembered: AtomicU64::new(0),
        }
    }
}

/// The working lists of [`Relevance::compute`], kept between questions.
#[derive(Default)]
struct Scratch {
    /// Per distinct comparison: 0 not decided yet, 1 refuted, 2 not.
    decided: Vec<u8>,
    /// The sites refuted by a comparison of their own, with the first one.
    own_refuted: Vec<(u32, u32)>,
    /// The comparisons refuting one site.
    witnesses: Vec<u32>,
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::default();
}

struct Builder<'a> {
    p: &'a Program,
    m: &'a Machine,
    sites: Vec<Site>,
    too_big: bool,
}

impl Builder<'_> {
    fn slot_of(&self, g: crate::ir::GlobalId) -> Option<u32> {
        match self.m.layout().storage[g.0 as usize] {
            Storage::State(a) => Some(a),
            _ => None,
        }
    }

    /// The state slots `e` reads (all slots of a state array it indexes).
    fn reads(&self, e: &Expr, out: &mut Vec<u32>) {
        let layout = self.m.layout();
        match e {
            Expr::Global(g) => out.extend(self.slot_of(*g)),
            Expr::Index(a, i) => {
                self.array_reads(*a, out);
                self.reads(i, out);
            }
            Expr::Unary(_, a) => self.reads(a, out),
            Expr::Binary(_, a, b) => {
                self.reads(a, out);
                self.reads(b, out);
            }
            Expr::Cond(c, a, b) => {
                self.reads(c, out);
                self.reads(a, out);
                self.reads(b, out);
            }
            // A call inside an expression (the abstract step gives up on
            // those anyway): it may read anything.
            Expr::Call(..) => out.extend(0..layout.state_width),
            Expr::Const(_) | Expr::Local(_) | Expr::ArrayAddr(_) => {}
        }
    }

    /// The slots an index into `a` may read: the pointer, and every
    /// element of every array it may point to.
    fn array_reads(&self, a: ArrayRef, out: &mut Vec<u32>) {
        let layout = self.m.layout();
        let arrays: Vec<crate::ir::GlobalId> = match a {
            ArrayRef::Array(g) => vec![g],
            ArrayRef::Pointer(p) => {
                out.extend(self.slot_of(p));
                (0..self.p.globals.len() as u32)
                    .map(crate::ir::GlobalId)
                    .collect()
            }
        };
        for g in arrays {
            if let Some((base, len)) = layout.array_at(g.0 as i32) {
                if base < layout.state_width {
                    out.extend(base..base + len);
                }
            }
        }
    }

    /// The slots a statement without nested statements reads.
    fn stmt_reads(&self, s: &Stmt, out: &mut Vec<u32>) {
        match s {
            Stmt::Assign(place, e, _) => {
                if let Place::Index(a, i) = place {
                    // Which slot is written depends on the pointer.
                    if let ArrayRef::Pointer(p) = a {
                        out.extend(self.slot_of(*p));
                    }
                    self.reads(i, out);
                }
                self.reads(e, out);
            }
            // Statements with nested ones are sites of their own ([`Builder::block`]).
            Stmt::If(..) | Stmt::While(..) | Stmt::Call(..) => {}
            Stmt::Return(Some(e)) | Stmt::Output(e, _) | Stmt::Assume(e) => self.reads(e, out),
            Stmt::Return(None) | Stmt::Error(_) | Stmt::Invalid => {}
        }
    }

    /// What `e` reads, if it is a state slot or a pointer's element at a
    /// constant index.
    fn operand(&self, e: &Expr) -> Option<Operand> {
        match e {
            Expr::Global(g) => Some(Operand::Slot(self.slot_of(*g)?)),
            Expr::Index(ArrayRef::Pointer(p), i) => {
                let index = u32::try_from(super::analysis::constant(i, self.m)?).ok()?;
                let layout = self.m.layout();
                match layout.storage[p.0 as usize] {
                    Storage::State(pointer) => Some(Operand::Element { pointer, index }),
                    // A pointer no step writes: the element is known.
                    Storage::Const(v) => {
                        let (base, len) = layout.array_at(v)?;
                        (index < len && base + index < layout.state_width)
                            .then_some(Operand::Slot(base + index))
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// The comparison `e`, if it compares an [`Operand`] with a constant.
    fn atom(&self, e: &Expr) -> Option<Atom> {
        let Expr::Binary(op, a, b) = e else {
            return None;
        };
        if !matches!(
            op,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
        ) {
            return None;
        }
        let constant = |e: &Expr| super::analysis::constant(e, self.m);
        if let (Some(on), Some(value)) = (self.operand(a), constant(b)) {
            return Some(Atom { on, op: *op, value });
        }
        Some(Atom {
            on: self.operand(b)?,
            op: mirror(*op),
            value: constant(a)?,
        })
    }

    /// The comparisons among the conjuncts of `c`.
    fn conjuncts(&self, c: &Expr, out: &mut Vec<Atom>) {
        match c {
            Expr::Binary(BinOp::LogAnd, a, b) => {
                self.conjuncts(a, out);
                self.conjuncts(b, out);
            }
            other => out.extend(self.atom(other)),
        }
    }

    /// Adds the sites of `stmts` (the sites of an `if`'s then-branch are
    /// enclosed by its own site; those of its else-branch run under the
    /// enclosing comparisons, and follow it).
    fn block(&mut self, stmts: &[Stmt], depth: u32) {
        if self.too_big || depth > MAX_DEPTH || self.sites.len() > MAX_SITES {
            self.too_big = true;
            return;
        }
        let mut reads = Vec::new();
        for s in stmts {
            match s {
                Stmt::If(c, then, other) => {
                    let mut atoms = Vec::new();
                    self.conjuncts(c, &mut atoms);
                    let mut cond_reads = Vec::new();
                    self.reads(c, &mut cond_reads);
                    let site = self.push(atoms, cond_reads);
                    self.block(then, depth + 1);
                    self.sites[site].end = self.sites.len() as u32;
                    self.block(other, depth + 1);
                }
                Stmt::While(c, body) => {
                    self.reads(c, &mut reads);
                    self.block(body, depth + 1);
                }
                Stmt::Call(f, args, _) => {
                    args.iter().for_each(|a| self.reads(a, &mut reads));
                    let body = &self.p.function(*f).body;
                    self.block(body, depth + 1);
                }
                other => self.stmt_reads(other, &mut reads),
            }
        }
        if !reads.is_empty() {
            self.push(Vec::new(), reads);
        }
    }

    /// Adds a site enclosing nothing (yet); returns its index.
    fn push(&mut self, atoms: Vec<Atom>, mut reads: Vec<u32>) -> usize {
        reads.sort_unstable();
        reads.dedup();
        let at = self.sites.len();
        self.sites.push(Site {
            atoms,
            reads,
            end: at as u32 + 1,
        });
        at
    }
}

impl Relevance {
    /// The sites of `p`'s step function; `None` where it is too large to
    /// list.
    pub fn new(p: &Program, m: &Machine) -> Option<Relevance> {
        let mut b = Builder {
            p,
            m,
            sites: Vec::new(),
            too_big: false,
        };
        b.block(&p.function(p.step).body, 0);
        if b.too_big {
            return None;
        }
        let width = m.layout().state_width as usize;
        // A pointer whose arrays are not known is kept in every key: a
        // hull of its values would name whatever lies between them. One
        // whose arrays are known is joined like any slot (its hull names
        // only those arrays).
        let targets = super::analysis::pointer_targets(p);
        let mut always = vec![false; width];
        let mut slot_targets = vec![None; width];
        for (g, global) in p.globals.iter().enumerate() {
            if let crate::ir::GlobalKind::Pointer { .. } = global.kind {
                if let Some(s) = b.slot_of(crate::ir::GlobalId(g as u32)) {
                    always[s as usize] = targets[g].is_none();
                    slot_targets[s as usize] = targets[g].clone();
                }
            }
        }
        // A comparison counts once for each site it encloses (itself
        // included).
        let mut priority = vec![0u32; width];
        for (k, site) in b.sites.iter().enumerate() {
            for a in &site.atoms {
                priority[a.slot() as usize] += site.end - k as u32;
            }
        }
        let layout = m.layout();
        let mut atoms: Vec<(u32, i64)> = Vec::new();
        let mut pointers = Vec::new();
        let stride = (b.sites.iter().flat_map(|site| &site.atoms))
            .filter_map(|a| match a.on {
                Operand::Element { index, .. } => Some(index + 1),
                Operand::Slot(_) => None,
            })
            .max()
            .unwrap_or(0);
        let mut elements = vec![None; p.globals.len() * stride as usize];
        // Each element comparison once: the programs repeat them in many
        // rules, and each is resolved against every array.
        let mut through = Vec::new();
        for a in b.sites.iter().flat_map(|site| &site.atoms) {
            match a.on {
                Operand::Slot(slot) => atoms.push((slot, a.value)),
                Operand::Element { pointer, index } => through.push((index, a.value, pointer)),
            }
        }
        through.sort_unstable();
        through.dedup();
        for &(index, value, pointer) in &through {
            pointers.push(pointer);
            for g in 0..p.globals.len() {
                let Some((base, len)) = layout.array_at(g as i32) else {
                    continue;
                };
                if index >= len {
                    continue;
                }
                let at = base + index;
                let element = match at.checked_sub(layout.state_width) {
                    Some(c) => Element::Const(layout.consts[c as usize] as i64),
                    None => {
                        atoms.push((at, value));
                        Element::Slot(at)
                    }
                };
                elements[g * stride as usize + index as usize] = Some(element);
            }
        }
        pointers.sort_unstable();
        pointers.dedup();
        atoms.sort_unstable();
        atoms.dedup();
        let compared = (atoms.chunk_by(|a, b| a.0 == b.0))
            .map(|run| (run[0].0, run.iter().map(|&(_, v)| v).collect()))
            .collect();
        Some(Relevance {
            sites: FlatSites::new(&b.sites),
            priority,
            always,
            compared,
            pointers,
            elements,
            stride,
            targets: slot_targets,
            memo: Mutex::default(),
            asked: AtomicU64::new(0),
            remembered: AtomicU64::new(0),
        })
    }

    /// Per slot, whether the step from `s` may depend on its value: it is
    /// read by a site that may run in `s`, or it is the chosen witness that
    /// a site cannot, or it is a pointer.
    pub fn relevant(&self, s: &[Interval]) -> Vec<bool> {
        let asked = self.asked.fetch_add(1, Ordering::Relaxed) + 1;
        if asked > MEMO_TRIAL && 2 * self.remembered.load(Ordering::Relaxed) < asked {
            return self.compute(s);
        }
        let key = self.memo_key(s);
        // A poisoned lock only means another thread panicked mid-insert:
        // the memo is a cache, so start it afresh.
        let lock = || self.memo.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(rel) = lock().get(&key) {
            self.remembered.fetch_add(1, Ordering::Relaxed);
            return rel.clone();
        }
        // Computed without the lock, so that other threads may ask.
        let rel = self.compute(s);
        let mut memo = lock();
        if memo.len() >= MEMO_LIMIT {
            memo.clear();
        }
        memo.insert(key, rel.clone());
        rel
    }

    /// What [`Relevance::relevant`] depends on: for each compared slot,
    /// where its bounds lie among the constants it is compared with (below
    /// the k-th constant: `2k`, equal to it: `2k + 1`). Every comparison
    /// of a site is decided by these positions, so the result is too.
    fn memo_key(&self, s: &[Interval]) -> Vec<u32> {
        let position = |v: i64, values: &[i64]| {
            let below = values.partition_point(|&c| c < v);
            2 * below as u32 + u32::from(values.get(below) == Some(&v))
        };
        let mut key = Vec::with_capacity(2 * self.compared.len());
        for (slot, values) in &self.compared {
            let x = s[*slot as usize];
            key.push(position(x.lo, values));
            key.push(position(x.hi, values));
        }
        for &p in &self.pointers {
            let x = s[p as usize];
            key.extend([x.lo as u32, x.hi as u32]);
        }
        key
    }

    /// [`Relevance::relevant`], computed.
    fn compute(&self, s: &[Interval]) -> Vec<bool> {
        // The working lists are kept per thread: a question is asked a
        // hundred thousand times a second, and growing them anew each time
        // cost a fifth of the abstraction's time (C P18).
        self.compute_consulting(s, None)
    }

    /// [`Relevance::relevant`] of `s`, and per slot whether the answer
    /// depends on it beyond the relevant slots: the slots the comparisons
    /// of a site are on (pointer, element and compared slot) where a
    /// witness had to be chosen for it. A state within `s` that differs
    /// from it only in slots neither relevant nor marked mostly gets the
    /// same answer: the sites that may run in `s` read only relevant
    /// slots, and every other site is refuted in it by the same
    /// comparisons. It may not where a site refuted in `s` needed no
    /// witness there (a comparison of it was on a slot kept for another
    /// reason) and does in the smaller state, whose witness may then be
    /// another: a different key, never an unsound one.
    pub fn relevant_and_consulted(&self, s: &[Interval]) -> (Vec<bool>, Vec<bool>) {
        let mut consulted = vec![false; s.len()];
        let rel = self.compute_consulting(s, Some(&mut consulted));
        (rel, consulted)
    }

    /// [`Relevance::compute`], marking in `consulted` the slots the
    /// comparisons are on of each site it chooses a witness for.
    fn compute_consulting(&self, s: &[Interval], consulted: Option<&mut Vec<bool>>) -> Vec<bool> {
        SCRATCH.with(|scratch| match scratch.try_borrow_mut() {
            Ok(mut scratch) => self.compute_with(s, &mut scratch, consulted),
            Err(_) => self.compute_with(s, &mut Scratch::default(), consulted),
        })
    }

    /// [`Relevance::compute_consulting`] on the working lists `scratch`.
    fn compute_with(
        &self,
        s: &[Interval],
        scratch: &mut Scratch,
        mut consulted: Option<&mut Vec<bool>>,
    ) -> Vec<bool> {
        let flat = &self.sites;
        let Scratch {
            decided,
            own_refuted,
            witnesses,
        } = scratch;
        // Each comparison decided once, when a site first asks (most sites
        // are skipped with the site that encloses them): 0 not yet, 1
        // refuted, 2 not.
        decided.clear();
        decided.resize(flat.atoms.len(), 0);
        let mut refuted = |a: u32| {
            let d = &mut decided[a as usize];
            if *d == 0 {
                *d = if self.refutes(&flat.atoms[a as usize], s) {
                    1
                } else {
                    2
                };
            }
            *d == 1
        };
        let mut rel = self.always.clone();
        // The sites that cannot run in `s` by a comparison of their own
        // (with the first comparison that tells); the sites they enclose
        // cannot either, and need no witness.
        own_refuted.clear();
        let mut k = 0;
        while k < flat.sites.len() {
            let site = &flat.sites[k];
            if let Some(first) = flat.atoms_of(site).iter().copied().find(|&a| refuted(a)) {
                own_refuted.push((k as u32, first));
                k = site.end as usize;
            } else {
                for &r in flat.reads_of(site) {
                    rel[r as usize] = true;
                }
                k += 1;
            }
        }
        let kept = |a: &Atom, rel: &[bool]| {
            self.witness(a, s)
                .iter()
                .flatten()
                .all(|&k| rel[k as usize])
        };
        for &(site, first) in own_refuted.iter() {
            // Mostly the comparison that refuted the site is on a slot
            // kept already (the mode, which the rules that may run read).
            if kept(&flat.atoms[first as usize], &rel) {
                continue;
            }
            let site = &flat.sites[site as usize];
            witnesses.clear();
            for &a in flat.atoms_of(site) {
                if refuted(a) {
                    witnesses.push(a);
                }
            }
            let refuting = witnesses.iter().map(|&a| &flat.atoms[a as usize]);
            if refuting.clone().any(|a| kept(a, &rel)) {
                continue;
            }
            // The witness is chosen among the comparisons that refute the
            // site: in a smaller state, any of them may.
            if let Some(consulted) = consulted.as_deref_mut() {
                for &a in flat.atoms_of(site) {
                    self.consult(&flat.atoms[a as usize], s, consulted);
                }
            }
            let best = refuting
                .max_by_key(|a| {
                    (
                        self.priority[a.slot() as usize],
                        std::cmp::Reverse(a.slot()),
                    )
                })
                .expect("a refuted site has a refuting comparison");
            for k in self.witness(best, s).into_iter().flatten() {
                rel[k as usize] = true;
            }
        }
        rel
    }
}

mod atoms;

#[cfg(test)]
mod tests;
