//! One step of the program over interval states.
//!
//! [`AbstractStep::step`] runs the IR of the step function on an
//! [`AbsState`] (one [`Interval`] per state slot of the engine's
//! [`Layout`]) and returns every way the step may end: an outcome and the
//! state after it. Where a condition is undecided on the intervals, the run
//! splits in two and each branch narrows the variables the condition
//! compares (`a37 <= 35` with `a37` in `[-20230, 9766]` goes on as
//! `[-20230, 35]` and as `[36, 9766]`).
//!
//! Soundness: for every concrete state inside the abstract one and every
//! input, the engine's step ends with an outcome and a next state that one
//! of the returned results covers, or faults where a returned fault site
//! says it may ([`AbstractStep::step_or_faults`]: an index `x + c` that may
//! leave its array, see [`super::bounds`]). Where the engine might fault
//! otherwise (division by zero, an index of another shape out of bounds, a
//! bad output), or the IR holds something this interpreter does not model
//! (loops, calls inside expressions), the step returns an error. Either
//! way the abstraction never answers around a fault: a round with a fault
//! site left proves nothing.

use std::sync::Mutex;

use rustc_hash::FxHashSet;

use super::analysis::{input_use, note_calls_in, pointer_targets, InputUse};
use super::interval::Interval;
pub use super::run::Run;
use super::run::{merge_running, runs_per_input, InputSet, Path, SharedStep, Status};
use crate::engine::{Layout, Machine};
use crate::ir::{BinOp, Expr, FuncId, GlobalId, Place, Program, StepReturn, Stmt, UnOp};

use crate::system::{Outcome, System};

/// An abstract program state: one interval per state slot of the layout.
pub type AbsState = Vec<Interval>;

/// Why the abstract step gave up.
pub type Unsound = String;

/// Most runs one abstract step may split into.
const MAX_PATHS: usize = 4096;

/// Runs of one block beyond which the runs still going on are joined (one
/// per output so far): a sequence of undecided conditions (the 2019
/// `errorCheck`'s hundred `if`s, each negated conjunction a split in three)
/// would otherwise multiply them.
const MERGE_ABOVE: usize = 64;

/// The step function of a program, interpreted over intervals.
pub struct AbstractStep<'a> {
    pub(super) program: &'a Program,
    pub(super) layout: &'a Layout,
    /// Temporary globals (assigned before read in every step): their slot
    /// in a path's `temps`.
    pub(super) temp_slot: Vec<Option<usize>>,
    n_temps: usize,
    /// Per state slot: `(m, r)` where every reachable value is `r` modulo
    /// `m`; empty when none are known.
    congruence: Vec<Option<(i64, i64)>>,
    /// Assigned expressions to watch (by address), see [`AbstractStep::fired`].
    tracked: FxHashSet<usize>,
    /// The tracked assignments some run has executed.
    fired: Mutex<FxHashSet<usize>>,
    /// The expressions (by address) that contain a call: evaluating them
    /// runs a function, which may split the run and end the step.
    with_calls: FxHashSet<usize>,
    /// Per global: the arrays a pointer may ever point to, where that is
    /// known ([`pointer_targets`]).
    pub(super) targets: Vec<Option<Vec<i32>>>,
    /// Whether runs may stand for several inputs ([`super::inputs`]).
    pub(super) input_use: InputUse,
}

/// A run after an expression was evaluated: the value, or `None` when the
/// run ended inside a call (an error, an invalid input).
type Evaluated = (Path, Option<Interval>);

impl<'a> AbstractStep<'a> {
    /// The abstract step of `program`, over the layout `machine` uses.
    pub fn new(program: &'a Program, machine: &'a Machine) -> Self {
        let layout = machine.layout();
        let mut temp_slot = vec![None; program.globals.len()];
        let mut n_temps = 0;
        for (g, s) in layout.storage.iter().enumerate() {
            if let crate::engine::Storage::Temp(_) = s {
                temp_slot[g] = Some(n_temps);
                n_temps += 1;
            }
        }
        let mut with_calls = FxHashSet::default();
        for f in &program.functions {
            note_calls_in(&f.body, &mut with_calls);
        }
        AbstractStep {
            program,
            layout,
            temp_slot,
            n_temps,
            congruence: Vec::new(),
            tracked: FxHashSet::default(),
            fired: Mutex::default(),
            with_calls,
            targets: pointer_targets(program),
            input_use: input_use(program),
        }
    }

    /// The same step, noting which of the assignments whose right-hand
    /// sides are `tracked` (by address in the program) it executes.
    pub fn tracking(mut self, tracked: impl IntoIterator<Item = *const Expr>) -> Self {
        self.tracked = tracked.into_iter().map(|e| e as usize).collect();
        self
    }

    /// This step as if no pointer's arrays were known: a read through a
    /// pointer that may hold several values names every array between
    /// them ([`super::rounds`] tries it where joining pointers lost
    /// precision).
    pub fn without_pointer_targets(mut self) -> Self {
        self.targets.fill(None);
        self
    }

    /// The tracked assignments (right-hand sides, by address) that some
    /// step so far executed on some run. Every assignment a concrete step
    /// from a state inside the explored ones executes is among them.
    pub fn fired(&self) -> FxHashSet<usize> {
        self.fired.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The same step, told that every reachable value of state slot `s` is
    /// `r` modulo `m` wherever `congruence[s] == Some((m, r))`: a narrowed
    /// interval is then cut to its first and last such value, and a guard
    /// no such value meets is false. The caller vouches for the invariant.
    pub fn with_congruences(mut self, congruence: Vec<Option<(i64, i64)>>) -> Self {
        self.congruence = congruence;
        self
    }

    /// `x` cut to the values the congruence of `e`'s slot allows, if any.
    pub(super) fn reduce(&self, e: &Expr, x: Interval) -> Option<Interval> {
        let Expr::Global(g) = e else { return Some(x) };
        let crate::engine::Storage::State(a) = self.layout.storage[g.0 as usize] else {
            return Some(x);
        };
        match self.congruence.get(a as usize) {
            Some(&Some((m, r))) => Interval::new(
                x.lo + (r - x.lo).rem_euclid(m),
                x.hi - (x.hi - r).rem_euclid(m),
            ),
            _ => Some(x),
        }
    }

    /// Number of slots in a state.
    pub fn width(&self) -> usize {
        self.layout.state_width as usize
    }

    /// The initial state of the engine, as points.
    pub fn initial(&self, machine: &Machine) -> AbsState {
        machine
            .initial_state()
            .into_iter()
            .map(Interval::point)
            .collect()
    }

    /// Every way one step on input number `input` may end from `state`.
    pub fn step(
        &self,
        state: &AbsState,
        input: usize,
    ) -> Result<Vec<(Outcome, AbsState)>, Unsound> {
        Ok(self
            .step_written(state, input)?
            .into_iter()
            .map(|run| (run.outcome, run.post))
            .collect())
    }

    /// [`AbstractStep::step`], with what each run wrote. A run that may
    /// fault gives the step up (see [`AbstractStep::step_or_faults`]).
    pub fn step_written(&self, state: &AbsState, input: usize) -> Result<Vec<Run>, Unsound> {
        let (runs, faults) = self.step_or_faults(state, input)?;
        match faults.into_iter().next() {
            Some(site) => Err(site.why),
            None => Ok(runs),
        }
    }

    /// [`AbstractStep::step_or_faults`] for every input of `inputs` in one
    /// go, each run with the inputs it stands for ([`super::inputs`]).
    pub(super) fn step_shared(
        &self,
        state: &AbsState,
        inputs: &InputSet,
    ) -> Result<SharedStep, Unsound> {
        let p = self.program;
        let f = p.function(p.step);
        let mut locals = vec![Interval::TOP; f.locals as usize];
        if let Some(l) = locals.first_mut() {
            *l = self.input_hull(inputs);
        }
        let start = Path {
            inputs: inputs.clone(),
            input_locals: u64::from(!locals.is_empty()),
            mem: state.clone(),
            temps: vec![Interval::TOP; self.n_temps],
            locals,
            output: None,
            status: Status::Running,
            written: vec![false; state.len()],
            touched: false,
            ret: None,
        };
        let paths = self.block(&f.body, vec![start], 0)?;
        let mut out = Vec::with_capacity(paths.len());
        let mut faults = Vec::new();
        for path in paths {
            let outcome = match path.status {
                Status::Faulted(site) => {
                    faults.push((path.inputs, *site));
                    continue;
                }
                Status::Ended(o) => o,
                Status::Running | Status::Returned => match path.output {
                    Some(k) => Outcome::Output(k),
                    None => Outcome::Silent,
                },
            };
            let run = Run {
                outcome,
                post: path.mem,
                written: path.written,
                touched: path.touched,
            };
            out.push((path.inputs, run));
        }
        Ok((out, faults))
    }

    fn block(
        &self,
        stmts: &[Stmt],
        mut paths: Vec<Path>,
        depth: u32,
    ) -> Result<Vec<Path>, Unsound> {
        // Most `else` branches of a RERS step are empty.
        if stmts.is_empty() {
            return Ok(paths);
        }
        // Two lists of runs, swapped after each statement, so that a run
        // of statements allocates none.
        let mut next = Vec::with_capacity(paths.len());
        for s in stmts {
            for path in paths.drain(..) {
                if matches!(path.status, Status::Running) {
                    self.stmt(s, path, depth, &mut next)?;
                } else {
                    next.push(path);
                }
            }
            if next.len() > MERGE_ABOVE {
                next = merge_running(next);
            }
            // Runs stand for sets of inputs: the bound is on the runs per
            // input, on average over the inputs still running.
            if next.len() > MAX_PATHS && runs_per_input(&next) > MAX_PATHS {
                return Err(format!("a step splits into more than {MAX_PATHS} runs"));
            }
            std::mem::swap(&mut paths, &mut next);
        }
        Ok(paths)
    }

    fn stmt(
        &self,
        s: &Stmt,
        mut path: Path,
        depth: u32,
        out: &mut Vec<Path>,
    ) -> Result<(), Unsound> {
        match s {
            Stmt::Assign(place, e, loc) => {
                let at = e as *const Expr as usize;
                if self.tracked.contains(&at) {
                    (self.fired.lock().unwrap_or_else(|e| e.into_inner())).insert(at);
                }
                if !self.has_call(e) {
                    // One run, one value (as `values` would say, without
                    // the list), once every index is in bounds.
                    let write = match place {
                        Place::Index(a, i) => Some((*a, i)),
                        _ => None,
                    };
                    for mut path in self.in_bounds(e, write, path, loc, out)? {
                        let v = self.eval(e, &path).map_err(|w| format!("{loc}: {w}"))?;
                        self.store(place, v, &mut path)
                            .map_err(|w| format!("{loc}: {w}"))?;
                        out.push(path);
                    }
                    return Ok(());
                }
                for (mut path, v) in self
                    .values(e, path, depth)
                    .map_err(|w| format!("{loc}: {w}"))?
                {
                    if let Some(v) = v {
                        self.store(place, v, &mut path)
                            .map_err(|w| format!("{loc}: {w}"))?;
                    }
                    out.push(path);
                }
            }
            Stmt::If(c, then_, else_) if self.has_call(c) => {
                // A condition that calls a function: each way the call
                // ends decides, or not, without narrowing any variable.
                for (path, v) in self.values(c, path, depth)? {
                    let Some(v) = v else {
                        out.push(path);
                        continue;
                    };
                    match (v.may_be_true(), v.may_be_false()) {
                        (true, true) => {
                            out.extend(self.block(then_, vec![path.clone()], depth)?);
                            out.extend(self.block(else_, vec![path], depth)?);
                        }
                        (true, false) => out.extend(self.block(then_, vec![path], depth)?),
                        (false, _) => out.extend(self.block(else_, vec![path], depth)?),
                    }
                }
            }
            Stmt::If(c, then_, else_) => match self.decided(c, &path) {
                // Most conditions of a RERS step are decided (another
                // input, another mode): the other branch would be empty,
                // so the run is not copied for it.
                Some(truth) => {
                    let branch = if truth { then_ } else { else_ };
                    // `assume` gives back a run whose `&&` or `||` is decided
                    // as a whole unchanged, evaluating it once more.
                    let taken = match c {
                        Expr::Binary(BinOp::LogAnd | BinOp::LogOr, ..) => vec![path],
                        _ => self.assume(path, c, truth)?,
                    };
                    out.extend(self.block(branch, taken, depth)?);
                }
                None => {
                    let yes = self.assume(path.clone(), c, true)?;
                    let no = self.assume(path, c, false)?;
                    out.extend(self.block(then_, yes, depth)?);
                    out.extend(self.block(else_, no, depth)?);
                }
            },
            Stmt::While(..) => return Err("loops are not interpreted over intervals".into()),
            Stmt::Call(f, args, loc) => {
                for (r, _) in self
                    .call(*f, args, path, depth)
                    .map_err(|w| format!("{loc}: {w}"))?
                {
                    out.push(r);
                }
            }
            Stmt::Return(e) if depth > 0 => match e {
                Some(e) => {
                    for (mut path, v) in self.values(e, path, depth)? {
                        if v.is_some() {
                            path.status = Status::Returned;
                            path.ret = v;
                        }
                        out.push(path);
                    }
                }
                None => {
                    path.status = Status::Returned;
                    out.push(path);
                }
            },
            Stmt::Return(e) => {
                // The step returns: `return f(input)` (2012) gives the
                // value of each way `f` returns.
                let returned = match e {
                    Some(e) => self.values(e, path, depth)?,
                    None => vec![(path, None)],
                };
                for (path, v) in returned {
                    self.end_step(e.is_some(), v, path, out)?;
                }
            }
            Stmt::Output(e, loc) => {
                if path.output.is_some() {
                    return Err(format!("{loc}: a step may output twice"));
                }
                for path in self.in_bounds(e, None, path, loc, out)? {
                    let v = self.eval(e, &path).map_err(|w| format!("{loc}: {w}"))?;
                    let covered = self.fork_outputs(v, &path, |mut q, k| {
                        q.output = Some(k);
                        out.push(q);
                    });
                    if covered < v.hi - v.lo + 1 {
                        return Err(format!("{loc}: output {v} may be outside the alphabet"));
                    }
                }
            }
            Stmt::Error(n) => {
                path.status = Status::Ended(Outcome::Error(*n));
                out.push(path);
            }
            Stmt::Invalid => {
                path.status = Status::Ended(Outcome::Invalid);
                out.push(path);
            }
            Stmt::Assume(c) => out.extend(self.assume(path, c, true)?),
        }
        Ok(())
    }

    /// Ends the step of `path` at its `return` (with a value when
    /// `with_value`: `v` is it, `None` if the run already ended in a call):
    /// a 2012 output code becomes the outcome it stands for.
    fn end_step(
        &self,
        with_value: bool,
        v: Option<Interval>,
        mut path: Path,
        out: &mut Vec<Path>,
    ) -> Result<(), Unsound> {
        if matches!(path.status, Status::Ended(_) | Status::Faulted(_)) {
            out.push(path);
            return Ok(());
        }
        match (self.program.step_return, with_value, v) {
            (StepReturn::OutputCode, true, Some(v)) => {
                let mut covered = 0i64;
                for (code, o) in [(-1, Outcome::Silent), (-2, Outcome::Invalid)] {
                    if v.contains(code) {
                        covered += 1;
                        let mut q = path.clone();
                        q.status = Status::Ended(o);
                        out.push(q);
                    }
                }
                covered += self.fork_outputs(v, &path, |mut q, k| {
                    q.status = Status::Ended(Outcome::Output(k));
                    out.push(q);
                });
                if covered < v.hi - v.lo + 1 {
                    return Err(format!("the step may return {v}, not all of it outputs"));
                }
            }
            _ => {
                path.status = Status::Ended(match path.output {
                    Some(k) => Outcome::Output(k),
                    None => Outcome::Silent,
                });
                out.push(path);
            }
        }
        Ok(())
    }

    /// Whether evaluating `e` runs a function.
    fn has_call(&self, e: &Expr) -> bool {
        !self.with_calls.is_empty() && self.with_calls.contains(&(e as *const Expr as usize))
    }

    /// Every way evaluating `e` in `path` may go: the run after it and the
    /// value (`None` when a call ended the step). Without calls that is
    /// `path` itself and [`AbstractStep::eval`]'s interval; a call runs the
    /// function and takes each value it may return. Operands are evaluated
    /// in order, the second of `&&`, `||` and `?:` only on the runs where
    /// the first may take it there.
    fn values(&self, e: &Expr, path: Path, depth: u32) -> Result<Vec<Evaluated>, Unsound> {
        if !self.has_call(e) {
            let v = self.eval(e, &path)?;
            return Ok(vec![(path, Some(v))]);
        }
        // Continues every run that has a value with `then`.
        let then = |runs: Vec<Evaluated>,
                    f: &mut dyn FnMut(Path, Interval) -> Result<Vec<Evaluated>, Unsound>|
         -> Result<Vec<Evaluated>, Unsound> {
            let mut out = Vec::new();
            for (p, v) in runs {
                match v {
                    Some(v) => out.extend(f(p, v)?),
                    None => out.push((p, None)),
                }
            }
            if out.len() > MAX_PATHS {
                return Err(format!("a step splits into more than {MAX_PATHS} runs"));
            }
            Ok(out)
        };
        match e {
            Expr::Call(f, args) => self.call(*f, args, path, depth),
            Expr::Unary(op, a) => then(self.values(a, path, depth)?, &mut |p, v| {
                let v = match op {
                    UnOp::Neg => v.negate(),
                    UnOp::Not => v.logical_not(),
                    UnOp::BitNot => v.bit_not(),
                };
                Ok(vec![(p, Some(v))])
            }),
            Expr::Binary(op @ (BinOp::LogAnd | BinOp::LogOr), a, b) => {
                let and = *op == BinOp::LogAnd;
                then(self.values(a, path, depth)?, &mut |p, va| {
                    let mut out = Vec::new();
                    // The runs where `a` decides (false for `&&`, true for
                    // `||`), then those where `b` is evaluated too.
                    if (and && va.may_be_false()) || (!and && va.may_be_true()) {
                        out.push((p.clone(), Some(Interval::point((!and) as i32))));
                    }
                    if (and && va.may_be_true()) || (!and && va.may_be_false()) {
                        for (q, vb) in self.values(b, p, depth)? {
                            let v =
                                vb.map(|vb| Interval::binop(BinOp::Ne, vb, Interval::point(0)).0);
                            out.push((q, v));
                        }
                    }
                    Ok(out)
                })
            }
            Expr::Binary(op, a, b) => then(self.values(a, path, depth)?, &mut |p, va| {
                then(self.values(b, p, depth)?, &mut |q, vb| {
                    let (r, fault) = Interval::binop(*op, va, vb);
                    if fault {
                        return Err("a division by zero is possible".into());
                    }
                    Ok(vec![(q, Some(r))])
                })
            }),
            Expr::Cond(c, a, b) => then(self.values(c, path, depth)?, &mut |p, vc| {
                let mut out = Vec::new();
                if vc.may_be_true() {
                    out.extend(self.values(a, p.clone(), depth)?);
                }
                if vc.may_be_false() {
                    out.extend(self.values(b, p, depth)?);
                }
                Ok(out)
            }),
            Expr::Index(arr, i) => then(self.values(i, path, depth)?, &mut |p, idx| {
                let mut v: Option<Interval> = None;
                for addr in self.elements(*arr, idx, &p)? {
                    let x = self.read_addr(addr, &p);
                    v = Some(v.map_or(x, |v| v.join(x)));
                }
                let v = v.ok_or("an empty array")?;
                Ok(vec![(p, Some(v))])
            }),
            Expr::Const(_) | Expr::Global(_) | Expr::Local(_) | Expr::ArrayAddr(_) => {
                let v = self.eval(e, &path)?;
                Ok(vec![(path, Some(v))])
            }
        }
    }

    /// The value `c` has in every run of `path`, if it has one and its
    /// evaluation cannot fault: then [`AbstractStep::assume`] of the other
    /// value has no run (it evaluates the same operands).
    fn decided(&self, c: &Expr, path: &Path) -> Option<bool> {
        let v = self.eval(c, path).ok()?;
        match (v.may_be_true(), v.may_be_false()) {
            (true, false) => Some(true),
            (false, true) => Some(false),
            _ => None,
        }
    }

    /// Calls `emit` once per output symbol whose value lies in `v`, with a
    /// copy of `path`; returns how many there were.
    fn fork_outputs(&self, v: Interval, path: &Path, mut emit: impl FnMut(Path, u16)) -> i64 {
        let mut n = 0;
        for (k, s) in self.program.outputs.iter().enumerate() {
            if v.contains(s.value as i64) {
                n += 1;
                emit(path.clone(), k as u16);
            }
        }
        n
    }

    /// Runs function `f` on `args` from `path`: every way it may end, with
    /// the value it returns (`None` for a void function, or when the run
    /// ended the step inside it).
    fn call(
        &self,
        f: FuncId,
        args: &[Expr],
        path: Path,
        depth: u32,
    ) -> Result<Vec<Evaluated>, Unsound> {
        if depth > 64 {
            return Err("calls nested deeper than 64".into());
        }
        let func = self.program.function(f);
        // Which arguments pass the input on as it is.
        let passes_input = |path: &Path| -> u64 {
            let mut mask = 0;
            for (k, a) in args.iter().enumerate().take(64) {
                if let Expr::Local(l) = a {
                    if l.0 < 64 && path.input_locals & (1 << l.0) != 0 {
                        mask |= 1 << k;
                    }
                }
            }
            mask
        };
        let callee_inputs = passes_input(&path);
        // The arguments, in order; each may call a function itself.
        let mut runs: Vec<(Path, Vec<Interval>)> = vec![(path, Vec::new())];
        let mut ended = Vec::new();
        for a in args {
            let mut next = Vec::new();
            for (p, vals) in runs {
                for (q, v) in self.values(a, p, depth)? {
                    match v {
                        Some(v) => {
                            let mut vals = vals.clone();
                            vals.push(v);
                            next.push((q, vals));
                        }
                        None => ended.push((q, None)),
                    }
                }
            }
            runs = next;
        }
        let mut out = ended;
        for (path, vals) in runs {
            let mut locals = vec![Interval::TOP; func.locals as usize];
            for (k, v) in vals.into_iter().enumerate() {
                if k < locals.len() {
                    locals[k] = v;
                }
            }
            let mut inner = path;
            let caller = std::mem::replace(&mut inner.locals, locals);
            let caller_inputs = std::mem::replace(&mut inner.input_locals, callee_inputs);
            self.sync_input_locals(&mut inner);
            inner.ret = None;
            for mut p in self.block(&func.body, vec![inner], depth + 1)? {
                if matches!(p.status, Status::Ended(_) | Status::Faulted(_)) {
                    out.push((p, None));
                    continue;
                }
                let ret = p.ret.take();
                if func.returns_value && ret.is_none() {
                    return Err(format!("`{}` may end without a value", func.name));
                }
                p.status = Status::Running;
                p.locals = caller.clone();
                p.input_locals = caller_inputs;
                self.sync_input_locals(&mut p);
                out.push((p, ret));
            }
        }
        Ok(out)
    }

    pub(super) fn read_global(&self, g: GlobalId, path: &Path) -> Result<Interval, Unsound> {
        use crate::engine::Storage;
        Ok(match self.layout.storage[g.0 as usize] {
            Storage::Const(v) => Interval::point(v),
            Storage::Temp(_) => path.temps[self.temp_slot[g.0 as usize].expect("temp slot")],
            Storage::State(a) => path.mem[a as usize],
            Storage::Array { .. } => return Err("an array read as a scalar".into()),
        })
    }

    fn read_addr(&self, addr: u32, path: &Path) -> Interval {
        let w = self.layout.state_width;
        if addr < w {
            path.mem[addr as usize]
        } else {
            Interval::point(self.layout.consts[(addr - w) as usize])
        }
    }

    pub(super) fn eval(&self, e: &Expr, path: &Path) -> Result<Interval, Unsound> {
        Ok(match e {
            Expr::Const(v) => Interval::point(*v),
            Expr::Global(g) => self.read_global(*g, path)?,
            Expr::Local(l) => path.locals[l.0 as usize],
            Expr::Index(a, i) => {
                let idx = self.eval(i, path)?;
                let mut v: Option<Interval> = None;
                self.each_element(*a, idx, path, |addr| {
                    let x = self.read_addr(addr, path);
                    v = Some(v.map_or(x, |v| v.join(x)));
                })?;
                v.ok_or("an empty array")?
            }
            Expr::ArrayAddr(g) => Interval::point(g.0 as i32),
            Expr::Unary(op, a) => {
                let a = self.eval(a, path)?;
                match op {
                    UnOp::Neg => a.negate(),
                    UnOp::Not => a.logical_not(),
                    UnOp::BitNot => a.bit_not(),
                }
            }
            Expr::Binary(op @ (BinOp::LogAnd | BinOp::LogOr), a, b) => {
                let va = self.eval(a, path)?;
                let decided = if *op == BinOp::LogAnd {
                    !va.may_be_true()
                } else {
                    !va.may_be_false()
                };
                if decided {
                    Interval::point((*op == BinOp::LogOr) as i32)
                } else {
                    Interval::binop(*op, va, self.eval(b, path)?).0
                }
            }
            // The same variable twice: a square.
            Expr::Binary(BinOp::Mul, a, b) if a.is_variable() && a == b => {
                self.eval(a, path)?.square()
            }
            Expr::Binary(op, a, b) => {
                let (r, fault) = Interval::binop(*op, self.eval(a, path)?, self.eval(b, path)?);
                if fault {
                    return Err("a division by zero is possible".into());
                }
                r
            }
            Expr::Cond(c, a, b) => {
                let vc = self.eval(c, path)?;
                match (vc.may_be_true(), vc.may_be_false()) {
                    (true, false) => self.eval(a, path)?,
                    (false, true) => self.eval(b, path)?,
                    _ => self.eval(a, path)?.join(self.eval(b, path)?),
                }
            }
            // Evaluated by `values`, which runs the function.
            Expr::Call(..) => return Err("a call evaluated without running it".into()),
        })
    }

    fn store(&self, place: &Place, v: Interval, path: &mut Path) -> Result<(), Unsound> {
        use crate::engine::Storage;
        match place {
            Place::Global(g) => match self.layout.storage[g.0 as usize] {
                Storage::State(a) => {
                    path.touched = true;
                    path.mem[a as usize] = v;
                    path.written[a as usize] = true;
                }
                Storage::Temp(_) => {
                    path.touched = true;
                    path.temps[self.temp_slot[g.0 as usize].expect("temp slot")] = v
                }
                _ => return Err("an assignment to a constant".into()),
            },
            Place::Local(l) => {
                path.locals[l.0 as usize] = v;
                if l.0 < 64 {
                    path.input_locals &= !(1 << l.0);
                }
            }
            Place::Index(a, i) => {
                let idx = self.eval(i, path)?;
                let slots = self.elements(*a, idx, path)?;
                let w = self.layout.state_width;
                if slots.iter().any(|&s| s >= w) {
                    return Err("a write to a constant array".into());
                }
                path.touched = true;
                if let [one] = slots[..] {
                    path.mem[one as usize] = v;
                    path.written[one as usize] = true;
                } else {
                    // Weak update: any of them may be the one written.
                    for s in slots {
                        path.mem[s as usize] = path.mem[s as usize].join(v);
                    }
                }
            }
        }
        Ok(())
    }
}
