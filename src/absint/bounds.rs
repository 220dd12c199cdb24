//! Array reads and writes over intervals: the slots an index may address
//! ([`AbstractStep::elements`]), and indices that may leave their array.
//! Of the latter, the runs where every index is in bounds go on with the
//! index's variable narrowed (`a[x - 7]` with `x` in `[5, 15]` and a
//! length of 8 goes on with `x` in `[7, 14]`); the runs where one is not
//! end in a *fault site*. The abstraction records the sites instead of
//! giving up at the first one, and the rounds ([`super::rounds`]) refine
//! the keys on the slots the sites read until no abstract state reaches
//! one; an abstraction with a fault site left proves nothing.

use super::interval::Interval;
use super::run::{FaultSite, Path, Status};
use super::step::{AbstractStep, Unsound};
use crate::ir::{ArrayRef, BinOp, Expr, UnOp};

/// `e` as `k * x + c` for a variable `x` and constants `k` (not zero) and
/// `c`, where it is one (`x`, `x - 7`, `3 + x`, `2 * x + 1`, `x * 4`,
/// `7 - 2 * x`, `-x`), as `(x, k, c)`.
pub(super) fn affine_of(e: &Expr) -> Option<(&Expr, i64, i64)> {
    let constant = |e: &Expr| match e {
        Expr::Const(v) => Some(*v as i64),
        Expr::Unary(UnOp::Neg, a) => match **a {
            Expr::Const(v) => Some(-(v as i64)),
            _ => None,
        },
        _ => None,
    };
    type Affine<'e> = (&'e Expr, i64, i64);
    fn scaled(a: Affine<'_>, by: i64) -> Option<Affine<'_>> {
        let k = a.1.checked_mul(by).filter(|&k| k != 0)?;
        Some((a.0, k, a.2.checked_mul(by)?))
    }
    fn shifted(a: Affine<'_>, by: i64) -> Option<Affine<'_>> {
        Some((a.0, a.1, a.2.checked_add(by)?))
    }
    match e {
        Expr::Global(_) | Expr::Local(_) => Some((e, 1, 0)),
        Expr::Unary(UnOp::Neg, a) => scaled(affine_of(a)?, -1),
        Expr::Binary(BinOp::Mul, a, b) => match constant(b) {
            Some(k) => scaled(affine_of(a)?, k),
            None => scaled(affine_of(b)?, constant(a)?),
        },
        Expr::Binary(BinOp::Add, a, b) => match constant(b) {
            Some(k) => shifted(affine_of(a)?, k),
            None => shifted(affine_of(b)?, constant(a)?),
        },
        Expr::Binary(BinOp::Sub, a, b) => match constant(b) {
            Some(k) => shifted(affine_of(a)?, k.checked_neg()?),
            None => shifted(scaled(affine_of(b)?, -1)?, constant(a)?),
        },
        _ => None,
    }
}

/// `⌊a / b⌋` (`b` not zero).
fn floor_div(a: i64, b: i64) -> i64 {
    let q = a / b;
    if a % b != 0 && ((a < 0) != (b < 0)) {
        q - 1
    } else {
        q
    }
}

/// `⌈a / b⌉` (`b` not zero).
fn ceil_div(a: i64, b: i64) -> i64 {
    -floor_div(-a, b)
}

/// The values of `x` for which `k * x + c` does not fault, as ranges:
/// with `length`, an index in `[0, length)`; without, a divisor other
/// than zero. Bounds outside `i32` give none (the hazard is left as it is).
fn safe_ranges(x: &Expr, k: i64, c: i64, length: Option<i64>) -> Option<Vec<Expr>> {
    let int = |v: i64| i32::try_from(v).ok();
    Some(match length {
        Some(len) => {
            // 0 <= k x + c <= len - 1
            let (lo, hi) = if k > 0 {
                (ceil_div(-c, k), floor_div(len - 1 - c, k))
            } else {
                (ceil_div(len - 1 - c, k), floor_div(-c, k))
            };
            vec![within(x, Some(int(lo)?), Some(int(hi)?))]
        }
        None => {
            // k x + c != 0: below and above its one zero, if it has one.
            let z = floor_div(-c, k);
            let (below, above) = if (-c) % k == 0 {
                (z - 1, z + 1)
            } else {
                (z, z + 1)
            };
            vec![
                within(x, None, Some(int(below)?)),
                within(x, Some(int(above)?), None),
            ]
        }
    })
}

/// What may make evaluating an expression fault: a read or write of an
/// array at an index, a division or remainder by a divisor.
enum Hazard<'e> {
    Index(ArrayRef, &'e Expr),
    Divisor(&'e Expr),
}

/// The hazards of `e` that every evaluation of `e` meets, inner ones
/// first: not those in the second operand of `&&` and `||` or the branches
/// of `?:` (evaluated on some runs only, where [`AbstractStep::assume`]
/// meets them narrowed), nor those inside calls.
fn hazards_of<'e>(e: &'e Expr, out: &mut Vec<Hazard<'e>>) {
    match e {
        Expr::Index(a, i) => {
            hazards_of(i, out);
            out.push(Hazard::Index(*a, i));
        }
        Expr::Binary(BinOp::LogAnd | BinOp::LogOr, a, _) | Expr::Unary(_, a) => hazards_of(a, out),
        Expr::Cond(c, ..) => hazards_of(c, out),
        Expr::Binary(op, a, b) => {
            hazards_of(a, out);
            hazards_of(b, out);
            if matches!(op, BinOp::Div | BinOp::Rem) {
                out.push(Hazard::Divisor(b));
            }
        }
        Expr::Call(..) | Expr::Const(_) | Expr::Global(_) | Expr::Local(_) | Expr::ArrayAddr(_) => {
        }
    }
}

/// `lo <= x && x <= hi` (either bound may be left out).
fn within(x: &Expr, lo: Option<i32>, hi: Option<i32>) -> Expr {
    let bound = |op, k| Expr::Binary(op, Box::new(x.clone()), Box::new(Expr::Const(k)));
    match (
        lo.map(|k| bound(BinOp::Ge, k)),
        hi.map(|k| bound(BinOp::Le, k)),
    ) {
        (Some(l), Some(h)) => Expr::Binary(BinOp::LogAnd, Box::new(l), Box::new(h)),
        (Some(one), None) | (None, Some(one)) => one,
        (None, None) => Expr::Const(1),
    }
}

/// Most arrays a pointer interval may name before the step gives up.
const MAX_POINTER_TARGETS: i64 = 64;

impl AbstractStep<'_> {
    /// Calls `visit` with each slot an index may address in the arrays an
    /// array reference may denote, checked in bounds (nothing is
    /// allocated: most reads are of one element).
    pub(super) fn each_element(
        &self,
        a: ArrayRef,
        idx: Interval,
        path: &Path,
        mut visit: impl FnMut(u32),
    ) -> Result<(), Unsound> {
        let (ptrs, known) = match a {
            ArrayRef::Array(g) => (Interval::point(g.0 as i32), None),
            ArrayRef::Pointer(g) => (
                self.read_global(g, path)?,
                self.targets[g.0 as usize].as_deref(),
            ),
        };
        // Where the pointer's arrays are known, its interval names those
        // of them it holds (a hull of two arrays' ids names only arrays).
        let named: Vec<i64> = match known {
            Some(t) => (t.iter().map(|&v| v as i64))
                .filter(|v| (ptrs.lo..=ptrs.hi).contains(v))
                .collect(),
            None if ptrs.hi - ptrs.lo >= MAX_POINTER_TARGETS => {
                return Err(format!("a pointer may be any of {ptrs}"))
            }
            None => (ptrs.lo..=ptrs.hi).collect(),
        };
        for v in named {
            let (base, len) = (self.layout.array_at(v as i32))
                .ok_or_else(|| format!("a pointer may be {v}, not an array"))?;
            if idx.lo < 0 || idx.hi >= len as i64 {
                return Err(format!("index {idx} may be out of bounds (length {len})"));
            }
            (idx.lo..=idx.hi).for_each(|i| visit(base + i as u32));
        }
        Ok(())
    }

    /// The slots an index may address, checked in bounds.
    pub(super) fn elements(
        &self,
        a: ArrayRef,
        idx: Interval,
        path: &Path,
    ) -> Result<Vec<u32>, Unsound> {
        let mut out = Vec::new();
        self.each_element(a, idx, path, |slot| out.push(slot))?;
        Ok(out)
    }

    /// The runs of `path` in which no hazard of `e` (see [`hazards_of`])
    /// nor the index `write` of an array written to faults: every index in
    /// bounds, every divisor other than zero, their variables narrowed (a
    /// divisor that may be either side of zero splits the run in two). The
    /// runs where one may fault are pushed to `faulted`, ended in a fault
    /// site.
    ///
    /// A hazard whose operand is not `k * x + c` ([`affine_of`]), or a
    /// pointer whose arrays differ in length, is left as it is: evaluating
    /// it where it may fault gives up the step, as before.
    pub(super) fn in_bounds(
        &self,
        e: &Expr,
        write: Option<(ArrayRef, &Expr)>,
        path: Path,
        where_: &dyn std::fmt::Display,
        faulted: &mut Vec<Path>,
    ) -> Result<Vec<Path>, Unsound> {
        let mut hazards = Vec::new();
        hazards_of(e, &mut hazards);
        if let Some((a, i)) = write {
            hazards_of(i, &mut hazards);
            hazards.push(Hazard::Index(a, i));
        }
        let mut paths = vec![path];
        for hazard in hazards {
            let (operand, array) = match hazard {
                Hazard::Index(a, i) => (i, Some(a)),
                Hazard::Divisor(d) => (d, None),
            };
            let Some((var, k, c)) = affine_of(operand) else {
                continue;
            };
            let length = match array {
                Some(a) => match self.length(a) {
                    Some(len) => Some(len),
                    None => continue,
                },
                None => None,
            };
            // The values of `var` that do not fault, as ranges (built
            // when a run may fault).
            let safe = || safe_ranges(var, k, c, length);
            let mut next = Vec::with_capacity(paths.len());
            for p in paths {
                if !matches!(p.status, Status::Running) {
                    next.push(p);
                    continue;
                }
                let v = self.eval(operand, &p)?;
                let may_fault = match length {
                    Some(len) => v.lo < 0 || v.hi >= len,
                    None => v.contains(0),
                };
                let Some(safe) = may_fault.then(safe).flatten() else {
                    next.push(p);
                    continue;
                };
                let why = match length {
                    Some(len) => format!("{where_}: index {v} may be out of bounds (length {len})"),
                    None => format!("{where_}: a division by {v} may be by zero"),
                };
                let mut unsafe_runs = vec![p.clone()];
                for range in &safe {
                    let mut outside = Vec::new();
                    for q in unsafe_runs {
                        outside.extend(self.assume(q, range, false)?);
                    }
                    unsafe_runs = outside;
                    next.extend(self.assume(p.clone(), range, true)?);
                }
                for mut out in unsafe_runs {
                    out.status = Status::Faulted(Box::new(FaultSite {
                        why: why.clone(),
                        reads: self.slots_read(operand, array),
                    }));
                    faulted.push(out);
                }
            }
            paths = next;
        }
        Ok(paths)
    }

    /// The length of the array `a` names, or of every array the pointer
    /// may name where they have one length.
    fn length(&self, a: ArrayRef) -> Option<i64> {
        let length_of = |v: i32| self.layout.array_at(v).map(|(_, l)| l as i64);
        match a {
            ArrayRef::Array(g) => length_of(g.0 as i32),
            ArrayRef::Pointer(g) => {
                let arrays = self.targets[g.0 as usize].as_deref()?;
                let first = length_of(*arrays.first()?)?;
                (arrays.iter().all(|&v| length_of(v) == Some(first))).then_some(first)
            }
        }
    }

    /// The state slots read by the operand `i` of a hazard (and by the
    /// pointer of the array `a` it indexes).
    fn slots_read(&self, i: &Expr, a: Option<ArrayRef>) -> Vec<usize> {
        let mut out = Vec::new();
        let mut note = |g: crate::ir::GlobalId| {
            if let crate::engine::Storage::State(s) = self.layout.storage[g.0 as usize] {
                out.push(s as usize);
            }
        };
        if let Some(ArrayRef::Pointer(g)) = a {
            note(g);
        }
        super::analysis::walk_expr(i, &mut |x| {
            if let Expr::Global(g) = x {
                note(*g);
            }
        });
        out.sort_unstable();
        out.dedup();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::absint::step::AbstractStep;
    use crate::engine::Machine;
    use crate::system::System;

    /// Input 1 divides by `s - 3`, input 2 reads `arr[s - 2]` (length 4),
    /// input 3 sets `s`.
    const HAZARDS: &str = r#"
extern void __VERIFIER_error(int);
int inputs[] = {1,2,3};
void calculate_output(int);
int arr[] = {3,4,5,6};
int cf = 1;
int s = 0;
int r = 0;
void calculate_output(int input) {
    cf = 1;
    if((cf==1 && (input == 1))) { cf = 0; r = 100 / (s - 3); printf("%d\n", 21); }
    if((cf==1 && (input == 2))) { cf = 0; r = arr[s - 2]; printf("%d\n", 22); }
    if((cf==1 && (input == 3))) { cf = 0; s = input * 3; printf("%d\n", 23); }
    if(r == 33) { __VERIFIER_error(0); }
    if( cf==1 ) fprintf(stderr, "Invalid input: %d\n", input);
}
int main() {
    while(1) {
        int input;
        scanf("%d", &input);
        if((input != 1) && (input != 2) && (input != 3)) return -2;
        calculate_output(input);
    }
}
"#;

    /// From `s` in `[-5, 15]`, each input's step splits into the runs that
    /// do not fault, `s` narrowed (a divisor either side of zero in two),
    /// and one fault site reading `s`; every concrete step from a value in
    /// the interval either faults or is covered by a run.
    #[test]
    fn hazards_split_into_runs_and_fault_sites_that_cover_the_engine() {
        split_and_cover(HAZARDS, [(-5, 2), (4, 15)], [(2, 5)]);
    }

    /// The same for scaled operands: `100 / (3 * s - 6)` and
    /// `arr[2 * s + 1]`.
    #[test]
    fn scaled_hazards_split_too() {
        let scaled = HAZARDS
            .replace("100 / (s - 3)", "100 / (3 * s - 6)")
            .replace("arr[s - 2]", "arr[2 * s + 1]");
        split_and_cover(&scaled, [(-5, 1), (3, 15)], [(0, 1)]);
    }

    /// Steps `program` (inputs 1 and 2 as in [`HAZARDS`]) from `s` in
    /// `[-5, 15]`: the runs' values of `s` are `divided` and `read`, each
    /// step has one fault site reading `s`, and every concrete step either
    /// faults or is covered by a run.
    fn split_and_cover(
        program: &str,
        divided_values: [(i64, i64); 2],
        read_values: [(i64, i64); 1],
    ) {
        let file = std::env::temp_dir().join(format!(
            "rigor-hazards-{}-{}.c",
            std::process::id(),
            program.len()
        ));
        std::fs::write(&file, program).expect("writes");
        let p = crate::frontend::load(&file.to_string_lossy()).expect("loads");
        let _ = std::fs::remove_file(&file);
        let m = Machine::compile(&p).expect("compiles");
        let names = &m.layout().slot_names;
        let slot = |n: &str| names.iter().position(|x| x == n).expect("a state slot");
        let (s, r) = (slot("s"), slot("r"));
        let step = AbstractStep::new(&p, &m);
        let mut from = step.initial(&m);
        from[s] = Interval::new(-5, 15).expect("an interval");
        let narrowed = |input| {
            let (runs, faults) = step.step_or_faults(&from, input).expect("steps");
            assert_eq!(faults.len(), 1, "input {input}: {faults:?}");
            assert_eq!(faults[0].reads, [s]);
            let mut values: Vec<(i64, i64)> = (runs.iter())
                .map(|run| (run.post[s].lo, run.post[s].hi))
                .collect();
            values.sort_unstable();
            values.dedup();
            (runs, values)
        };
        let (divided, values) = narrowed(0);
        assert_eq!(values, divided_values);
        assert!(faults_say(&step, &from, 0).contains("by zero"));
        let (read, values) = narrowed(1);
        assert_eq!(values, read_values);
        assert!(faults_say(&step, &from, 1).contains("out of bounds"));
        let mut scratch = m.scratch();
        for v in -5..=15 {
            let mut state = m.initial_state();
            state[s] = v;
            for (input, runs) in [(0, &divided), (1, &read)] {
                let mut next = state.clone();
                match m.step(&mut scratch, &state, input, &mut next) {
                    // Inputs 1 and 2 do not write `s`: a value that faults
                    // is in no run (it went to the fault site).
                    Err(_) => assert!(
                        !runs.iter().any(|run| run.post[s].contains(v as i64)),
                        "s = {v}, input {input} faults but a run covers it"
                    ),
                    Ok(o) => assert!(
                        runs.iter().any(|run| run.outcome == o
                            && run.post[s].contains(next[s] as i64)
                            && run.post[r].contains(next[r] as i64)),
                        "s = {v}, input {input}"
                    ),
                }
            }
        }
    }

    fn faults_say(step: &AbstractStep, from: &[Interval], input: usize) -> String {
        let (_, faults) = step.step_or_faults(&from.to_vec(), input).expect("steps");
        faults.iter().map(|f| f.why.clone()).collect()
    }

    #[test]
    fn affine_operands_are_recognised() {
        let x = || Box::new(Expr::Global(crate::ir::GlobalId(3)));
        let k = |v| Box::new(Expr::Const(v));
        let bin = |op, a, b| Expr::Binary(op, a, b);
        let var = Expr::Global(crate::ir::GlobalId(3));
        assert_eq!(affine_of(&var), Some((&var, 1, 0)));
        assert_eq!(affine_of(&bin(BinOp::Sub, x(), k(7))), Some((&var, 1, -7)));
        let add_neg = bin(BinOp::Add, x(), Box::new(Expr::Unary(UnOp::Neg, k(5))));
        assert_eq!(affine_of(&add_neg), Some((&var, 1, -5)));
        assert_eq!(affine_of(&bin(BinOp::Add, k(3), x())), Some((&var, 1, 3)));
        assert_eq!(affine_of(&bin(BinOp::Mul, x(), k(2))), Some((&var, 2, 0)));
        let twice_plus_one = bin(BinOp::Add, Box::new(bin(BinOp::Mul, k(2), x())), k(1));
        assert_eq!(affine_of(&twice_plus_one), Some((&var, 2, 1)));
        let seven_minus = bin(BinOp::Sub, k(7), Box::new(bin(BinOp::Mul, x(), k(2))));
        assert_eq!(affine_of(&seven_minus), Some((&var, -2, 7)));
        assert_eq!(affine_of(&bin(BinOp::Mul, x(), k(0))), None);
        assert_eq!(affine_of(&bin(BinOp::Mul, x(), x())), None);
        assert_eq!(affine_of(&bin(BinOp::Div, x(), k(2))), None);
    }

    /// The ranges of `x` where `k x + c` does not fault are exactly those
    /// (checked against every value of a window).
    #[test]
    fn safe_ranges_are_exact() {
        let x = Expr::Global(crate::ir::GlobalId(0));
        let bounds = |e: &Expr| -> (i64, i64) {
            let side = |e: &Expr| match e {
                Expr::Binary(BinOp::Ge, _, b) => match **b {
                    Expr::Const(v) => (v as i64, i64::MAX),
                    _ => unreachable!(),
                },
                Expr::Binary(BinOp::Le, _, b) => match **b {
                    Expr::Const(v) => (i64::MIN, v as i64),
                    _ => unreachable!(),
                },
                _ => unreachable!(),
            };
            match e {
                Expr::Binary(BinOp::LogAnd, a, b) => (side(a).0, side(b).1),
                one => side(one),
            }
        };
        for k in [-3i64, -2, -1, 1, 2, 3] {
            for c in -7..=7 {
                for length in [None, Some(1), Some(4), Some(8)] {
                    let ranges = safe_ranges(&x, k, c, length).expect("small bounds");
                    for v in -20..=20 {
                        let value = k * v + c;
                        let safe = match length {
                            Some(len) => (0..len).contains(&value),
                            None => value != 0,
                        };
                        let inside = ranges.iter().any(|r| {
                            let (lo, hi) = bounds(r);
                            lo <= v && v <= hi
                        });
                        assert_eq!(safe, inside, "k {k} c {c} length {length:?} x {v}");
                    }
                }
            }
        }
    }
}
