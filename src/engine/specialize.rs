//! Per-input specialisation of the step code.
//!
//! A RERS step function is a long chain of rules, each guarded by a test of
//! the input symbol and of a few state variables. For a fixed input most
//! rules can never fire, yet a generic step evaluates every guard. Since the
//! input is known before a step starts, [`specialize`] makes one copy of the
//! code per input symbol in which every comparison of the input with a
//! constant is decided at compile time, then removes what became dead:
//!
//! 1. *Input aliases*: the input register, plus any register whose only
//!    write in the whole code is a copy of an alias placed in the straight
//!    entry block (no jump lands there), so it holds the input at every read.
//! 2. *Folding*: a compare-and-branch between an alias and a constant becomes
//!    an unconditional jump or nothing.
//! 3. *Clean-up*, repeated until nothing changes: jumps to jumps are
//!    threaded, a conditional jump whose two exits lead to the same place is
//!    dropped (compares have no side effects), unreachable code is dropped.
//!
//! The result is observably the same function for that input (a test runs
//! both forms on the states of real problems); only fewer instructions run.

use super::op::Op;

/// Where constants live in `mem`: `consts.start..consts.end`.
pub(super) struct ConstRange {
    pub start: u32,
    pub end: u32,
}

/// Which addresses hold the input value, per instruction.
///
/// The input register itself is never written (else there is no
/// specialisation). Other candidates are registers that some `Mov` copies
/// the input into (inlined calls pass it as an argument). A forward
/// must-analysis over the control-flow graph gives, before each
/// instruction, the set of candidates certainly holding the input on every
/// path from the entry.
struct InputAliases {
    input_addr: u32,
    /// Candidate registers (at most 64).
    candidates: Vec<u32>,
    /// Before each instruction: bit k set if candidate k holds the input.
    before: Vec<u64>,
}

impl InputAliases {
    fn compute(code: &[Op], input_addr: u32) -> Option<InputAliases> {
        if code.iter().any(|op| op.dest() == Some(input_addr)) {
            return None;
        }
        let mut candidates: Vec<u32> = Vec::new();
        loop {
            let before = candidates.len();
            for op in code {
                if let Op::Mov { dst, src } = *op {
                    if (src == input_addr || candidates.contains(&src))
                        && !candidates.contains(&dst)
                        && candidates.len() < 64
                    {
                        candidates.push(dst);
                    }
                }
            }
            if candidates.len() == before {
                break;
            }
        }
        let n = code.len();
        let bit = |a: u32| candidates.iter().position(|&c| c == a).map(|k| 1u64 << k);
        // Transfer function of one instruction.
        let transfer = |op: &Op, set: u64| -> u64 {
            match (*op, op.dest()) {
                (Op::Mov { dst, src }, _)
                    if src == input_addr || bit(src).is_some_and(|b| set & b != 0) =>
                {
                    set | bit(dst).unwrap_or(0)
                }
                (_, Some(d)) => set & !bit(d).unwrap_or(0),
                _ => set,
            }
        };
        let mut before = vec![u64::MAX; n];
        if n == 0 {
            return Some(InputAliases {
                input_addr,
                candidates,
                before,
            });
        }
        before[0] = 0;
        let mut work = vec![0usize];
        let mut queued = vec![false; n];
        queued[0] = true;
        while let Some(pc) = work.pop() {
            queued[pc] = false;
            let op = &code[pc];
            let out = transfer(op, before[pc]);
            let mut succ = [None, None];
            if let Some(t) = op.target() {
                succ[0] = Some(t as usize);
            }
            if !matches!(op, Op::Jmp { .. }) && !op.stops() {
                succ[1] = Some(pc + 1);
            }
            for s in succ.into_iter().flatten() {
                if s < n && before[s] & out != before[s] {
                    before[s] &= out;
                    if !queued[s] {
                        queued[s] = true;
                        work.push(s);
                    }
                }
            }
        }
        Some(InputAliases {
            input_addr,
            candidates,
            before,
        })
    }

    /// Whether `a` holds the input just before instruction `pc`.
    fn holds_input(&self, pc: usize, a: u32) -> bool {
        a == self.input_addr
            || self
                .candidates
                .iter()
                .position(|&c| c == a)
                .is_some_and(|k| self.before[pc] & (1 << k) != 0)
    }
}

/// The step code specialised to each input: `None` when the input register
/// is written by the code (no specialisation possible).
pub(super) fn specialize_all(
    code: &[Op],
    input_addr: u32,
    values: &[i32],
    mem: &[i32],
    consts: &ConstRange,
) -> Option<Vec<Vec<Op>>> {
    let aliases = InputAliases::compute(code, input_addr)?;
    Some(
        values
            .iter()
            .map(|&v| specialize(code, &aliases, v, mem, consts))
            .collect(),
    )
}

/// The code specialised to input value `value`.
fn specialize(
    code: &[Op],
    aliases: &InputAliases,
    value: i32,
    mem: &[i32],
    consts: &ConstRange,
) -> Vec<Op> {
    let konst = |a: u32| {
        (consts.start..consts.end)
            .contains(&a)
            .then(|| mem[a as usize])
    };
    let mut ops: Vec<Option<Op>> = code
        .iter()
        .enumerate()
        .map(|(pc, op)| {
            // Known value of an operand: the input (for aliases) or a constant.
            let known = |a: u32| {
                if aliases.holds_input(pc, a) {
                    Some(value)
                } else {
                    konst(a)
                }
            };
            let decided = match *op {
                Op::JEq { a, b, .. } => both(known(a), known(b)).map(|(x, y)| x == y),
                Op::JNe { a, b, .. } => both(known(a), known(b)).map(|(x, y)| x != y),
                Op::JLt { a, b, .. } => both(known(a), known(b)).map(|(x, y)| x < y),
                Op::JLe { a, b, .. } => both(known(a), known(b)).map(|(x, y)| x <= y),
                Op::JZ { a, .. } => known(a).map(|x| x == 0),
                Op::JNz { a, .. } => known(a).map(|x| x != 0),
                _ => None,
            };
            match (decided, op.target()) {
                (Some(true), Some(t)) => Some(Op::Jmp { target: t }),
                (Some(false), _) => None,
                _ => Some(*op),
            }
        })
        .collect();
    for _round in 0..16 {
        if !clean_up(&mut ops) {
            break;
        }
    }
    // Then the ways out of rules that fired, past the guards that their
    // constant stores decide.
    let code = super::thread::with_exits(&compact(&ops), &konst);
    let mut ops: Vec<Option<Op>> = code.into_iter().map(Some).collect();
    for _round in 0..16 {
        let threaded = super::thread::thread_known(&mut ops, &konst);
        if !clean_up(&mut ops) && !threaded {
            break;
        }
    }
    // The rules that now jump out of their run: decision trees.
    let mut code = compact(&ops);
    super::dispatch::optimize(&mut code, &konst);
    let mut ops: Vec<Option<Op>> = code.into_iter().map(Some).collect();
    for _round in 0..16 {
        if !clean_up(&mut ops) {
            break;
        }
    }
    compact(&ops)
}

fn both(a: Option<i32>, b: Option<i32>) -> Option<(i32, i32)> {
    Some((a?, b?))
}

/// Where control goes when it reaches `pc`: skips removed instructions and
/// follows unconditional jumps (with a guard against jump cycles).
fn resolve(ops: &[Option<Op>], mut pc: usize) -> usize {
    for _ in 0..ops.len() + 1 {
        match ops.get(pc) {
            Some(None) => pc += 1,
            Some(Some(Op::Jmp { target })) if (*target as usize) != pc => pc = *target as usize,
            _ => return pc,
        }
    }
    pc
}

/// One round of threading, dead-branch and dead-code removal; returns
/// whether anything changed.
fn clean_up(ops: &mut [Option<Op>]) -> bool {
    let mut changed = false;
    let n = ops.len();
    for pc in 0..n {
        let Some(op) = ops[pc] else { continue };
        let Some(t) = op.target() else { continue };
        let rt = resolve(ops, t as usize);
        let fall = resolve(ops, pc + 1);
        let conditional = !matches!(op, Op::Jmp { .. });
        if rt == fall && (conditional || rt > pc) {
            // Both exits meet (or the jump goes where control falls anyway).
            ops[pc] = None;
            changed = true;
        } else if rt != t as usize {
            let mut new = op;
            new.set_target(rt as u32);
            ops[pc] = Some(new);
            changed = true;
        }
    }
    // Unreachable code.
    let mut live = vec![false; n];
    let mut stack = vec![0usize];
    while let Some(pc) = stack.pop() {
        if pc >= n || live[pc] {
            continue;
        }
        live[pc] = true;
        match ops[pc] {
            None => stack.push(pc + 1),
            Some(op) => {
                if let Some(t) = op.target() {
                    stack.push(t as usize);
                }
                if !matches!(op, Op::Jmp { .. }) && !op.stops() {
                    stack.push(pc + 1);
                }
            }
        }
    }
    for pc in 0..n {
        if !live[pc] && ops[pc].is_some() {
            ops[pc] = None;
            changed = true;
        }
    }
    changed
}

/// Drops removed instructions and renumbers jump targets.
fn compact(ops: &[Option<Op>]) -> Vec<Op> {
    let mut new_index = vec![0u32; ops.len() + 1];
    let mut k = 0u32;
    for (pc, op) in ops.iter().enumerate() {
        new_index[pc] = k;
        if op.is_some() {
            k += 1;
        }
    }
    new_index[ops.len()] = k;
    let mut out: Vec<Op> = ops
        .iter()
        .flatten()
        .map(|op| {
            let mut op = *op;
            if let Some(t) = op.target() {
                op.set_target(new_index[t as usize]);
            }
            op
        })
        .collect();
    if out
        .last()
        .is_none_or(|op| !op.stops() && !matches!(op, Op::Jmp { .. }))
    {
        out.push(Op::End);
    }
    out
}
