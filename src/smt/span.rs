//! Ranges of 32-bit values, for folding the encoding.
//!
//! Every term of the encoding carries a [`Span`] that holds all the values
//! it can take in the states the query is about (the region's bounds).
//! Where an operation's result might wrap around, its span is the whole
//! range of `int`. Spans decide comparisons and range tests that the
//! solver would otherwise have to prove through the bit-blasted arithmetic
//! (a remainder by 102 lies in -101..=101: trivial here, a division
//! circuit for a SAT solver).
//!
//! This is plain interval arithmetic over `i64`, written for the checker
//! alone (it shares nothing with the abstract interpreter's domain).

use crate::ir::BinOp;

/// The values from `lo` to `hi`, both included (`lo <= hi`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    /// The least value.
    pub lo: i32,
    /// The greatest value.
    pub hi: i32,
}

impl Span {
    /// Every value of `int`.
    pub const ALL: Span = Span {
        lo: i32::MIN,
        hi: i32::MAX,
    };

    /// 0 and 1 (a comparison's value).
    pub const FLAG: Span = Span { lo: 0, hi: 1 };

    /// The one value `v`.
    pub fn single(v: i32) -> Span {
        Span { lo: v, hi: v }
    }

    /// The values from `lo` to `hi` of `i64`, where they all fit in
    /// `int`; else every value (the operation may wrap around).
    fn fitting(lo: i64, hi: i64) -> Span {
        match (i32::try_from(lo), i32::try_from(hi)) {
            (Ok(lo), Ok(hi)) => Span { lo, hi },
            _ => Span::ALL,
        }
    }

    /// The only value, where there is one.
    pub fn value(self) -> Option<i32> {
        (self.lo == self.hi).then_some(self.lo)
    }

    /// Whether `v` is among the values.
    pub fn contains(self, v: i64) -> bool {
        (self.lo as i64..=self.hi as i64).contains(&v)
    }

    /// Whether every value lies in `lo..=hi`.
    pub fn inside(self, lo: i64, hi: i64) -> bool {
        lo <= self.lo as i64 && self.hi as i64 <= hi
    }

    /// Whether no value lies in `lo..=hi`.
    pub fn apart(self, lo: i64, hi: i64) -> bool {
        (self.hi as i64) < lo || hi < self.lo as i64
    }

    /// `Some(true)` where every value is true (non-zero), `Some(false)`
    /// where the only value is 0, `None` where both may be.
    pub fn truth(self) -> Option<bool> {
        match (self.contains(0), self.value()) {
            (false, _) => Some(true),
            (true, Some(_)) => Some(false),
            (true, None) => None,
        }
    }

    /// The least span holding both.
    pub fn hull(self, other: Span) -> Span {
        Span {
            lo: self.lo.min(other.lo),
            hi: self.hi.max(other.hi),
        }
    }

    /// Whether neither value is negative.
    fn natural(self) -> bool {
        self.lo >= 0
    }

    /// The values of `-a`.
    pub fn negated(self) -> Span {
        Span::fitting(-(self.hi as i64), -(self.lo as i64))
    }

    /// The values of `a * a`: never negative unless it wraps.
    pub fn square(self) -> Span {
        let (lo, hi) = (self.lo as i64, self.hi as i64);
        if lo >= 0 {
            Span::fitting(lo * lo, hi * hi)
        } else if hi <= 0 {
            Span::fitting(hi * hi, lo * lo)
        } else {
            Span::fitting(0, (lo * lo).max(hi * hi))
        }
    }

    /// The values of `~a` (that is `-a - 1`, which never wraps).
    pub fn bit_not(self) -> Span {
        Span {
            lo: !self.hi,
            hi: !self.lo,
        }
    }

    /// The values of `a op b` with the C99/Java semantics of the engine,
    /// on the paths where the operation does not fault (a divisor that may
    /// be 0 gives every value).
    pub fn binary(op: BinOp, a: Span, b: Span) -> Span {
        let (alo, ahi, blo, bhi) = (a.lo as i64, a.hi as i64, b.lo as i64, b.hi as i64);
        let corners = |f: fn(i64, i64) -> i64| {
            let all = [f(alo, blo), f(alo, bhi), f(ahi, blo), f(ahi, bhi)];
            let lo = all.iter().copied().min().unwrap_or(i64::MIN);
            let hi = all.iter().copied().max().unwrap_or(i64::MAX);
            Span::fitting(lo, hi)
        };
        match op {
            BinOp::Add => Span::fitting(alo + blo, ahi + bhi),
            BinOp::Sub => Span::fitting(alo - bhi, ahi - blo),
            // Products of two `int`s fit in `i64`.
            BinOp::Mul => corners(|x, y| x * y),
            // With the divisor's sign fixed, truncating division is
            // monotone in each operand: the extremes are at the corners.
            BinOp::Div if b.contains(0) => Span::ALL,
            BinOp::Div => corners(|x, y| x / y),
            BinOp::Rem if b.contains(0) => Span::ALL,
            BinOp::Rem => {
                // Within one period of a fixed divisor, on one side of 0,
                // `a % b` is `a` minus one multiple of `b`: monotone.
                if let Some(d) = b.value() {
                    let d = d as i64;
                    if alo / d == ahi / d && (a.natural() || ahi <= 0) {
                        return Span::fitting(alo % d, ahi % d);
                    }
                }
                // |a % b| < |b| and |a % b| <= |a|; the sign is a's.
                let m = blo.abs().max(bhi.abs()) - 1;
                let lo = if a.natural() { 0 } else { alo.max(-m) };
                let hi = if ahi <= 0 { 0 } else { ahi.min(m) };
                Span::fitting(lo, hi)
            }
            BinOp::Shr => match b.value() {
                // An arithmetic shift by a fixed count is monotone.
                Some(s) => {
                    let s = (s & 31) as u32;
                    Span {
                        lo: a.lo >> s,
                        hi: a.hi >> s,
                    }
                }
                None => Span::ALL,
            },
            BinOp::Shl => Span::ALL,
            BinOp::BitAnd => match (a.natural(), b.natural()) {
                (true, true) => Span {
                    lo: 0,
                    hi: a.hi.min(b.hi),
                },
                (true, false) => Span { lo: 0, hi: a.hi },
                (false, true) => Span { lo: 0, hi: b.hi },
                (false, false) => Span::ALL,
            },
            BinOp::BitOr | BinOp::BitXor if a.natural() && b.natural() => {
                // Below the next power of two of the larger.
                let top = a.hi.max(b.hi) as u32;
                let bits = 32 - top.leading_zeros();
                Span::fitting(0, (1i64 << bits) - 1)
            }
            BinOp::BitOr | BinOp::BitXor => Span::ALL,
            BinOp::Eq
            | BinOp::Ne
            | BinOp::Lt
            | BinOp::Le
            | BinOp::Gt
            | BinOp::Ge
            | BinOp::LogAnd
            | BinOp::LogOr => match Span::compare(op, a, b) {
                Some(known) => Span::single(known as i32),
                None => Span::FLAG,
            },
        }
    }

    /// The truth of a comparison (or logical operator) of values in `a`
    /// and `b`, where the spans decide it.
    pub fn compare(op: BinOp, a: Span, b: Span) -> Option<bool> {
        let below = a.hi < b.lo; // every a < every b
        let above = a.lo > b.hi;
        let same = a.value().is_some() && a == b;
        let apart = below || above;
        match op {
            BinOp::Eq => (same || apart).then_some(same),
            BinOp::Ne => (same || apart).then_some(apart),
            BinOp::Lt => (below || a.lo >= b.hi).then_some(below),
            BinOp::Ge => (below || a.lo >= b.hi).then_some(!below),
            BinOp::Gt => (above || a.hi <= b.lo).then_some(above),
            BinOp::Le => (above || a.hi <= b.lo).then_some(!above),
            BinOp::LogAnd | BinOp::LogOr => match (op, a.truth(), b.truth()) {
                (BinOp::LogAnd, Some(false), _) | (BinOp::LogAnd, _, Some(false)) => Some(false),
                (BinOp::LogAnd, Some(true), Some(true)) => Some(true),
                (BinOp::LogOr, Some(true), _) | (BinOp::LogOr, _, Some(true)) => Some(true),
                (BinOp::LogOr, Some(false), Some(false)) => Some(false),
                _ => None,
            },
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OPS: [BinOp; 18] = BinOp::ALL;

    /// A few small spans around 0 and near both ends of `int`.
    fn spans(seed: &mut u64) -> Vec<Span> {
        let mut out = Vec::new();
        let mut next = || {
            *seed ^= *seed << 13;
            *seed ^= *seed >> 7;
            *seed ^= *seed << 17;
            *seed
        };
        for base in [0i64, -20, 7, i32::MIN as i64, i32::MAX as i64 - 12, 46_000] {
            for _ in 0..6 {
                let lo = (base + (next() % 25) as i64 - 12).clamp(i32::MIN as i64, i32::MAX as i64);
                let hi = (lo + (next() % 14) as i64).min(i32::MAX as i64);
                out.push(Span {
                    lo: lo as i32,
                    hi: hi as i32,
                });
            }
        }
        out
    }

    /// Every result of every operation on every pair of values of two
    /// spans lies in the span computed, and decided comparisons are right.
    #[test]
    fn spans_hold_every_value_brute_force() {
        let mut seed = 0x9e37_79b9_7f4a_7c15;
        let all = spans(&mut seed);
        for &a in &all {
            for &b in &all {
                for op in OPS {
                    let s = Span::binary(op, a, b);
                    let decided = Span::compare(op, a, b);
                    for x in a.lo..=a.hi {
                        for y in b.lo..=b.hi {
                            let Some(v) = op.eval(x, y) else { continue };
                            assert!(
                                s.contains(v as i64),
                                "{op:?} {a:?} {b:?}: {x} {y} -> {v} not in {s:?}"
                            );
                            if let Some(d) = decided {
                                assert_eq!(d as i32, v, "{op:?} {a:?} {b:?} on {x} {y}");
                            }
                        }
                    }
                }
                for x in a.lo..=a.hi {
                    assert!(a.square().contains(x.wrapping_mul(x) as i64), "{a:?}² {x}");
                    assert!(a.negated().contains(x.wrapping_neg() as i64));
                    assert!(a.bit_not().contains(!x as i64));
                }
            }
        }
    }

    /// A remainder by a fixed divisor holds every value, and is exact
    /// where the dividend stays within one period on one side of 0.
    #[test]
    fn remainders_by_one_divisor_are_exact_within_a_period() {
        for d in (-13..=13).filter(|d| *d != 0) {
            for lo in -40..=40 {
                for hi in lo..=lo + 30 {
                    let r = Span::binary(BinOp::Rem, Span { lo, hi }, Span::single(d));
                    let values: Vec<i32> = (lo..=hi).map(|x| x % d).collect();
                    assert!(
                        values.iter().all(|v| r.contains(*v as i64)),
                        "{lo}..{hi} % {d}"
                    );
                    if lo / d == hi / d && (lo >= 0 || hi <= 0) {
                        let least = values.iter().min().copied();
                        let most = values.iter().max().copied();
                        assert_eq!((Some(r.lo), Some(r.hi)), (least, most), "{lo}..{hi} % {d}");
                    }
                }
            }
        }
        let product = Span {
            lo: 78 * 241,
            hi: 95 * 271,
        };
        let r = Span::binary(BinOp::Rem, product, Span::single(14999));
        assert_eq!(
            r,
            Span {
                lo: 3799,
                hi: 10746
            }
        );
    }

    #[test]
    fn squares_are_not_negative_unless_they_wrap() {
        assert_eq!(Span { lo: -5, hi: 3 }.square(), Span { lo: 0, hi: 25 });
        assert_eq!(Span { lo: -5, hi: -2 }.square(), Span { lo: 4, hi: 25 });
        assert_eq!(Span { lo: 2, hi: 7 }.square(), Span { lo: 4, hi: 49 });
        assert_eq!(Span { lo: -70000, hi: 3 }.square(), Span::ALL);
    }

    #[test]
    fn narrow_results_where_nothing_wraps() {
        let a = Span { lo: 178, hi: 279 };
        let b = Span { lo: 232, hi: 339 };
        let product = Span::binary(BinOp::Mul, a, b);
        assert_eq!(
            product,
            Span {
                lo: 178 * 232,
                hi: 279 * 339
            }
        );
        let r = Span::binary(BinOp::Rem, product, Span::single(14999));
        assert_eq!(r, Span { lo: 0, hi: 14998 });
        let r = Span::binary(BinOp::Rem, r, Span::single(102));
        assert_eq!(r, Span { lo: 0, hi: 101 });
        assert_eq!(
            Span::binary(BinOp::Add, Span::ALL, Span::single(1)),
            Span::ALL
        );
        assert_eq!(Span::compare(BinOp::Le, r, Span::single(101)), Some(true));
        assert_eq!(Span::compare(BinOp::Le, r, Span::single(100)), None);
    }
}
