//! What the solver-free reading of the step ([`super::boxes`]) knows of
//! one value on one path: a span, and a congruence, possibly to a
//! variable's value before the step.

use super::Span;
use crate::ir::BinOp;

/// A value on one path: the values it may take, and what is known of it
/// modulo some number: it is congruent to `rest`, plus the value before
/// the step of the global element `base` where there is one, modulo
/// `modulus` (0: equal to it, 1: nothing known). `int` arithmetic is exact
/// modulo 2^32, so what may wrap keeps what is known modulo a divisor of
/// 2^32.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Held {
    /// The values it may take.
    pub span: Span,
    /// The element (global, element) of the state before the step it is
    /// congruent to (plus `rest`), if any.
    pub base: Option<(usize, usize)>,
    /// The modulus (0: an equality).
    pub modulus: u64,
    /// The rest (reduced when the modulus is not 0).
    pub rest: i64,
}

/// 2^32: every `int` operation is exact modulo it.
const WRAP: u128 = 1 << 32;

fn gcd(a: u128, b: u128) -> u128 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

impl Held {
    /// A value of which only the span is known (exactly, where it is one).
    pub(super) fn new(span: Span) -> Held {
        match span.value() {
            Some(v) => Held {
                span,
                base: None,
                modulus: 0,
                rest: v as i64,
            },
            None => Held {
                span,
                base: None,
                modulus: 1,
                rest: 0,
            },
        }
    }

    /// The value of element `at` before the step, among `span`.
    pub(super) fn before(span: Span, at: (usize, usize)) -> Held {
        Held {
            span,
            base: Some(at),
            modulus: 0,
            rest: 0,
        }
    }

    /// Congruent to `base` plus `rest` modulo `modulus`, among `span`.
    pub(super) fn modulo(
        span: Span,
        base: Option<(usize, usize)>,
        modulus: u128,
        rest: i128,
    ) -> Held {
        if span.value().is_some() {
            return Held::new(span);
        }
        // A modulus too large to keep is weakened to a divisor of 2^32.
        let modulus = if modulus > WRAP {
            gcd(modulus, WRAP)
        } else {
            modulus
        };
        let rest = match modulus {
            0 => rest,
            m => rest.rem_euclid(m as i128),
        };
        match i64::try_from(rest) {
            Ok(rest) if modulus != 1 => Held {
                span,
                base,
                modulus: modulus as u64,
                rest,
            },
            _ => Held::new(span),
        }
    }

    /// The same value, known to lie in `span`.
    pub(super) fn narrowed_to(self, span: Span) -> Held {
        match span.value() {
            Some(_) => Held::new(span),
            None => Held { span, ..self },
        }
    }

    /// Either value.
    pub(super) fn join(self, other: Held) -> Held {
        let span = self.span.hull(other.span);
        if self.base != other.base {
            return Held::new(span);
        }
        let apart = (self.rest as i128 - other.rest as i128).unsigned_abs();
        let m = gcd(gcd(self.modulus as u128, other.modulus as u128), apart);
        Held::modulo(span, self.base, m, self.rest as i128)
    }

    /// The result of `op` on `a` and `b`, whose values are `span`.
    pub(super) fn arith(op: BinOp, a: Held, b: Held, span: Span) -> Held {
        let (ma, mb) = (a.modulus as u128, b.modulus as u128);
        let (ra, rb) = (a.rest as i128, b.rest as i128);
        let known = match (op, a.base, b.base) {
            (BinOp::Add, x, None) | (BinOp::Add, None, x) => Some((x, gcd(ma, mb), ra + rb)),
            (BinOp::Sub, x, None) => Some((x, gcd(ma, mb), ra - rb)),
            (BinOp::Sub, Some(x), Some(y)) if x == y => Some((None, gcd(ma, mb), ra - rb)),
            (BinOp::Mul, None, None) => Some((
                None,
                gcd(gcd(ma * mb, ma * rb.unsigned_abs()), mb * ra.unsigned_abs()),
                ra * rb,
            )),
            _ => None,
        };
        match known {
            // What may wrap is known modulo a divisor of 2^32 at most.
            Some((base, m, r)) if span == Span::ALL => Held::modulo(span, base, gcd(m, WRAP), r),
            Some((base, m, r)) => Held::modulo(span, base, m, r),
            None => Held::new(span),
        }
    }
}
