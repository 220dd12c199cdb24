//! Intervals of 32-bit integers with the engine's semantics.
//!
//! An [`Interval`] `[lo, hi]` stands for every `i32` between its bounds.
//! Each operation returns an interval that contains the engine's result
//! ([`crate::ir::BinOp::eval`]: wrapping arithmetic, division truncated
//! toward zero) for every pair of operands drawn from its arguments. When a
//! result could wrap around, the answer is the whole `i32` range: sound, if
//! coarse. Division and remainder also say whether the divisor may be zero
//! (the engine's fault).

use crate::ir::BinOp;

/// A non-empty interval of `i32` values; bounds kept as `i64`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Interval {
    /// Least value.
    pub lo: i64,
    /// Greatest value.
    pub hi: i64,
}

const MIN: i64 = i32::MIN as i64;
const MAX: i64 = i32::MAX as i64;

impl Interval {
    /// Every `i32`.
    pub const TOP: Interval = Interval { lo: MIN, hi: MAX };
    /// The booleans 0 and 1.
    pub const BOOL: Interval = Interval { lo: 0, hi: 1 };

    /// The single value `v`.
    pub fn point(v: i32) -> Interval {
        Interval {
            lo: v as i64,
            hi: v as i64,
        }
    }

    /// `[lo, hi]`, or `None` if empty. Bounds outside `i32` are clipped.
    pub fn new(lo: i64, hi: i64) -> Option<Interval> {
        let (lo, hi) = (lo.max(MIN), hi.min(MAX));
        (lo <= hi).then_some(Interval { lo, hi })
    }

    /// The exact result interval of an operation computed without wrapping,
    /// or [`Interval::TOP`] when it leaves the `i32` range (it may wrap).
    fn exact(lo: i128, hi: i128) -> Interval {
        if lo < MIN as i128 || hi > MAX as i128 {
            Interval::TOP
        } else {
            Interval {
                lo: lo as i64,
                hi: hi as i64,
            }
        }
    }

    /// The value, if there is only one.
    pub fn as_point(self) -> Option<i32> {
        (self.lo == self.hi).then_some(self.lo as i32)
    }

    /// Whether `v` is in the interval.
    pub fn contains(self, v: i64) -> bool {
        self.lo <= v && v <= self.hi
    }

    /// Whether every value of `other` is in `self`.
    pub fn includes(self, other: Interval) -> bool {
        self.lo <= other.lo && other.hi <= self.hi
    }

    /// The smallest interval holding both.
    pub fn join(self, other: Interval) -> Interval {
        Interval {
            lo: self.lo.min(other.lo),
            hi: self.hi.max(other.hi),
        }
    }

    /// The common values, if any.
    pub fn meet(self, other: Interval) -> Option<Interval> {
        Interval::new(self.lo.max(other.lo), self.hi.min(other.hi))
    }

    /// Whether the value may be non-zero (a condition may hold).
    pub fn may_be_true(self) -> bool {
        self.lo != 0 || self.hi != 0
    }

    /// Whether the value may be zero (a condition may fail).
    pub fn may_be_false(self) -> bool {
        self.contains(0)
    }

    fn truth(may_true: bool, may_false: bool) -> Interval {
        match (may_true, may_false) {
            (true, false) => Interval::point(1),
            (false, true) => Interval::point(0),
            _ => Interval::BOOL,
        }
    }

    /// Arithmetic negation (wrapping: `-i32::MIN` is `i32::MIN`).
    pub fn negate(self) -> Interval {
        Interval::exact(-(self.hi as i128), -(self.lo as i128))
    }

    /// `x * x` for `x` in the interval: never negative unless it wraps.
    pub fn square(self) -> Interval {
        let (lo, hi) = (self.lo as i128, self.hi as i128);
        if lo >= 0 {
            Interval::exact(lo * lo, hi * hi)
        } else if hi <= 0 {
            Interval::exact(hi * hi, lo * lo)
        } else {
            Interval::exact(0, (lo * lo).max(hi * hi))
        }
    }

    /// Logical not.
    pub fn logical_not(self) -> Interval {
        Interval::truth(self.may_be_false(), self.may_be_true())
    }

    /// Bitwise complement: `!x == -x - 1`, monotone decreasing.
    pub fn bit_not(self) -> Interval {
        Interval {
            lo: -self.hi - 1,
            hi: -self.lo - 1,
        }
    }

    /// A binary operation. The flag is true when the engine may fault
    /// (division or remainder by an interval holding zero); the interval
    /// then covers the non-faulting operands.
    pub fn binop(op: BinOp, a: Interval, b: Interval) -> (Interval, bool) {
        use BinOp::*;
        let (a0, a1, b0, b1) = (a.lo as i128, a.hi as i128, b.lo as i128, b.hi as i128);
        let r = match op {
            Add => Interval::exact(a0 + b0, a1 + b1),
            Sub => Interval::exact(a0 - b1, a1 - b0),
            Mul => {
                let c = [a0 * b0, a0 * b1, a1 * b0, a1 * b1];
                Interval::exact(*c.iter().min().unwrap(), *c.iter().max().unwrap())
            }
            Div | Rem => return Interval::division(op, a, b),
            Eq => Interval::truth(a.meet(b).is_some(), !(a.as_point().is_some() && a == b)),
            Ne => Interval::truth(!(a.as_point().is_some() && a == b), a.meet(b).is_some()),
            Lt => Interval::truth(a.lo < b.hi, a.hi >= b.lo),
            Le => Interval::truth(a.lo <= b.hi, a.hi > b.lo),
            Gt => Interval::truth(a.hi > b.lo, a.lo <= b.hi),
            Ge => Interval::truth(a.hi >= b.lo, a.lo < b.hi),
            LogAnd => Interval::truth(
                a.may_be_true() && b.may_be_true(),
                a.may_be_false() || b.may_be_false(),
            ),
            LogOr => Interval::truth(
                a.may_be_true() || b.may_be_true(),
                a.may_be_false() && b.may_be_false(),
            ),
            Shl | Shr | BitAnd | BitOr | BitXor => match (a.as_point(), b.as_point()) {
                (Some(x), Some(y)) => {
                    Interval::point(op.eval(x, y).expect("no fault in bit operations"))
                }
                _ => Interval::TOP,
            },
        };
        (r, false)
    }

    /// Division and remainder, truncating toward zero, split on the sign
    /// of the divisor.
    fn division(op: BinOp, a: Interval, b: Interval) -> (Interval, bool) {
        let fault = b.contains(0);
        let parts = [
            Interval::new(b.lo, b.hi.min(-1)),
            Interval::new(b.lo.max(1), b.hi),
        ];
        let mut r: Option<Interval> = None;
        for d in parts.into_iter().flatten() {
            let q = if op == BinOp::Div {
                Interval::quotient(a, d)
            } else {
                Interval::remainder(a, d)
            };
            r = Some(r.map_or(q, |r| r.join(q)));
        }
        // Only zero as divisor: every operand faults; any interval will do.
        (r.unwrap_or(Interval::point(0)), fault)
    }

    /// `a / d` for a divisor of one sign: the extremes are at the corners.
    fn quotient(a: Interval, d: Interval) -> Interval {
        let q = |x: i64, y: i64| (x as i128) / (y as i128);
        let c = [q(a.lo, d.lo), q(a.lo, d.hi), q(a.hi, d.lo), q(a.hi, d.hi)];
        Interval::exact(*c.iter().min().unwrap(), *c.iter().max().unwrap())
    }

    /// `a % d` for a divisor of one sign: the sign of `a`, magnitude below
    /// `|d|`; exact when `a` stays within one period of a single divisor.
    fn remainder(a: Interval, d: Interval) -> Interval {
        if let Some(dv) = d.as_point() {
            let dv = dv as i64;
            if a.lo / dv == a.hi / dv && (a.lo >= 0 || a.hi <= 0) {
                let (x, y) = (a.lo % dv, a.hi % dv);
                return Interval {
                    lo: x.min(y),
                    hi: x.max(y),
                };
            }
        }
        let m = d.lo.abs().max(d.hi.abs()) - 1;
        Interval {
            lo: if a.lo >= 0 { 0 } else { a.lo.max(-m) },
            hi: if a.hi <= 0 { 0 } else { a.hi.min(m) },
        }
    }
}

/// Comparison operators and their reading with swapped operands / negated.
pub(crate) fn mirror(op: BinOp) -> BinOp {
    match op {
        BinOp::Lt => BinOp::Gt,
        BinOp::Le => BinOp::Ge,
        BinOp::Gt => BinOp::Lt,
        BinOp::Ge => BinOp::Le,
        other => other,
    }
}

/// The comparison that holds where `op` fails.
pub(crate) fn negate(op: BinOp) -> BinOp {
    match op {
        BinOp::Lt => BinOp::Ge,
        BinOp::Le => BinOp::Gt,
        BinOp::Gt => BinOp::Le,
        BinOp::Ge => BinOp::Lt,
        BinOp::Eq => BinOp::Ne,
        _ => BinOp::Eq,
    }
}

/// Whether `op` compares its operands.
pub(crate) fn is_comparison(op: BinOp) -> bool {
    matches!(
        op,
        BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
    )
}

/// The values of `x` for which `x op y` may hold, `y` ranging over its interval.
pub(crate) fn narrow(x: Interval, op: BinOp, y: Interval) -> Option<Interval> {
    match op {
        BinOp::Lt => Interval::new(x.lo, x.hi.min(y.hi - 1)),
        BinOp::Le => Interval::new(x.lo, x.hi.min(y.hi)),
        BinOp::Gt => Interval::new(x.lo.max(y.lo + 1), x.hi),
        BinOp::Ge => Interval::new(x.lo.max(y.lo), x.hi),
        BinOp::Eq => x.meet(y),
        BinOp::Ne => match y.as_point().map(i64::from) {
            Some(v) if x.lo == v => Interval::new(x.lo + 1, x.hi),
            Some(v) if x.hi == v => Interval::new(x.lo, x.hi - 1),
            _ => Some(x),
        },
        _ => Some(x),
    }
}

impl std::fmt::Display for Interval {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.as_point() {
            Some(v) => write!(f, "{v}"),
            None => write!(f, "[{}, {}]", self.lo, self.hi),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const OPS: [BinOp; 18] = BinOp::ALL;

    /// Values near the interesting places: zero, small, the i32 limits.
    fn value() -> impl Strategy<Value = i32> {
        prop_oneof![
            -30i32..30,
            -20000i32..20000,
            Just(i32::MIN),
            Just(i32::MAX),
            Just(i32::MIN + 1),
            any::<i32>(),
        ]
    }

    fn interval() -> impl Strategy<Value = (Interval, i32)> {
        (value(), value(), 0u32..=100).prop_map(|(x, y, t)| {
            let (lo, hi) = (x.min(y) as i64, x.max(y) as i64);
            let v = lo + ((hi - lo) as i128 * t as i128 / 100) as i64;
            (Interval { lo, hi }, v as i32)
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(20_000))]

        /// Soundness: the engine's result for members lies in the result.
        #[test]
        fn binop_contains_the_engine_result(
            (a, x) in interval(), (b, y) in interval(), k in 0usize..OPS.len()
        ) {
            let op = OPS[k];
            let (r, fault) = Interval::binop(op, a, b);
            match op.eval(x, y) {
                Some(v) => prop_assert!(r.contains(v as i64), "{op:?} {a} {b}: {x} {y} = {v} not in {r}"),
                None => prop_assert!(fault),
            }
        }

        #[test]
        fn unary_contains_the_engine_result((a, x) in interval()) {
            prop_assert!(a.negate().contains(x.wrapping_neg() as i64));
            prop_assert!(a.bit_not().contains(!x as i64));
            prop_assert!(a.logical_not().contains((x == 0) as i64));
            prop_assert!(a.square().contains(x.wrapping_mul(x) as i64), "{a}² {x}");
        }
    }

    #[test]
    fn squares_are_not_negative_unless_they_wrap() {
        let i = |lo, hi| Interval { lo, hi };
        assert_eq!(i(-5, 3).square(), i(0, 25));
        assert_eq!(i(-5, -2).square(), i(4, 25));
        assert_eq!(i(2, 7).square(), i(4, 49));
        assert_eq!(i(-70000, 3).square(), Interval::TOP);
    }

    #[test]
    fn points_stay_points() {
        for op in OPS {
            let (r, fault) = Interval::binop(op, Interval::point(74296), Interval::point(5));
            assert!(!fault);
            assert_eq!(r.as_point(), op.eval(74296, 5), "{op:?}");
        }
    }

    #[test]
    fn rers_update_lands_in_one_cell() {
        // a37 = ((a37 * a80) % 14999 % 24) + 222, whatever a37 and a80 are.
        let p = Interval::binop(BinOp::Mul, Interval::TOP, Interval::TOP).0;
        let p = Interval::binop(BinOp::Rem, p, Interval::point(14999)).0;
        let p = Interval::binop(BinOp::Rem, p, Interval::point(24)).0;
        let p = Interval::binop(BinOp::Add, p, Interval::point(222)).0;
        assert_eq!(p, Interval { lo: 199, hi: 245 });
    }
}
