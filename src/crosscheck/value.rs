//! Values of the symbolic step: a 32-bit int known exactly, or a z3
//! bit-vector term with the values it may take ([`Hull`]), and conditions
//! known or as z3 terms. Operations decide what the hulls decide and build
//! terms only for the rest, so a step from a region whose variables are
//! mostly fixed stays mostly concrete.

use z3::ast::{Bool, BV};

/// Most values a [`Hull::Set`] lists before it becomes a range.
const MAX_SET: usize = 64;

/// The values a term may take.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Hull {
    /// One of these (sorted, distinct, at most [`MAX_SET`]).
    Set(Vec<i32>),
    /// Any value from `lo` to `hi`, both included.
    Range(i32, i32),
}

impl Hull {
    /// Every 32-bit value.
    pub const ANY: Hull = Hull::Range(i32::MIN, i32::MAX);

    /// The hull of the values `lo..=hi`, listed when they are few.
    pub fn range(lo: i32, hi: i32) -> Hull {
        if (hi as i64 - lo as i64) < MAX_SET as i64 {
            Hull::Set((lo..=hi).collect())
        } else {
            Hull::Range(lo, hi)
        }
    }

    fn set(mut v: Vec<i32>) -> Hull {
        v.sort_unstable();
        v.dedup();
        if v.len() > MAX_SET {
            Hull::Range(v[0], v[v.len() - 1])
        } else {
            Hull::Set(v)
        }
    }

    /// The least and the greatest value.
    pub fn bounds(&self) -> (i32, i32) {
        match self {
            Hull::Set(v) => (v[0], v[v.len() - 1]),
            Hull::Range(lo, hi) => (*lo, *hi),
        }
    }

    /// Whether `k` may be the value.
    pub fn may_be(&self, k: i32) -> bool {
        match self {
            Hull::Set(v) => v.binary_search(&k).is_ok(),
            Hull::Range(lo, hi) => (*lo..=*hi).contains(&k),
        }
    }

    /// The values, where they are listed.
    pub fn values(&self) -> Option<&[i32]> {
        match self {
            Hull::Set(v) => Some(v),
            Hull::Range(..) => None,
        }
    }

    fn join(&self, other: &Hull) -> Hull {
        match (self, other) {
            (Hull::Set(a), Hull::Set(b)) => Hull::set(a.iter().chain(b).copied().collect()),
            _ => {
                let ((a, b), (c, d)) = (self.bounds(), other.bounds());
                Hull::Range(a.min(c), b.max(d))
            }
        }
    }
}

/// A 32-bit value.
#[derive(Clone, Debug)]
pub enum Val {
    /// Known exactly.
    Known(i32),
    /// A term, with the values it may take.
    Term(BV, Hull),
}

/// A condition.
#[derive(Clone, Debug)]
pub enum Cond {
    /// Known exactly.
    Known(bool),
    /// A term.
    Term(Bool),
}

/// A 32-bit constant term.
pub fn bv(k: i32) -> BV {
    BV::from_i64(k as i64, 32)
}

impl Val {
    /// The value as a term.
    pub fn term(&self) -> BV {
        match self {
            Val::Known(k) => bv(*k),
            Val::Term(t, _) => t.clone(),
        }
    }

    /// The values it may take.
    pub fn hull(&self) -> Hull {
        match self {
            Val::Known(k) => Hull::Set(vec![*k]),
            Val::Term(_, h) => h.clone(),
        }
    }

    /// A term with its hull, known where the hull has one value.
    pub fn of(t: BV, h: Hull) -> Val {
        match h.values() {
            Some([k]) => Val::Known(*k),
            _ => Val::Term(t, h),
        }
    }

    /// Whether both are the same known value.
    pub fn same(&self, other: &Val) -> bool {
        match (self, other) {
            (Val::Known(a), Val::Known(b)) => a == b,
            (Val::Term(a, _), Val::Term(b, _)) => a == b,
            _ => false,
        }
    }

    /// `v != 0`.
    pub fn truth(&self) -> Cond {
        self.compare(Cmp::Ne, &Val::Known(0))
    }

    /// The comparison of two values.
    pub fn compare(&self, op: Cmp, other: &Val) -> Cond {
        if let (Val::Known(a), Val::Known(b)) = (self, other) {
            return Cond::Known(op.holds(*a, *b));
        }
        let (x, y) = (self.hull(), other.hull());
        if let Some(k) = op.decided(&x, &y) {
            return Cond::Known(k);
        }
        let (a, b) = (self.term(), other.term());
        Cond::Term(match op {
            Cmp::Eq => a.eq(&b),
            Cmp::Ne => a.eq(&b).not(),
            Cmp::Lt => a.bvslt(&b),
            Cmp::Le => a.bvsle(&b),
            Cmp::Gt => a.bvsgt(&b),
            Cmp::Ge => a.bvsge(&b),
        })
    }
}

/// A comparison of signed 32-bit ints.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Cmp {
    fn holds(self, a: i32, b: i32) -> bool {
        match self {
            Cmp::Eq => a == b,
            Cmp::Ne => a != b,
            Cmp::Lt => a < b,
            Cmp::Le => a <= b,
            Cmp::Gt => a > b,
            Cmp::Ge => a >= b,
        }
    }

    /// The outcome for every pair of values the hulls allow, if it is
    /// one.
    fn decided(self, x: &Hull, y: &Hull) -> Option<bool> {
        if let (Some(a), Some(b)) = (x.values(), y.values()) {
            if a.len() * b.len() <= MAX_SET * 4 {
                let first = self.holds(a[0], b[0]);
                let all = a
                    .iter()
                    .all(|&p| b.iter().all(|&q| self.holds(p, q) == first));
                return all.then_some(first);
            }
        }
        let ((a, b), (c, d)) = (x.bounds(), y.bounds());
        let always_less = b < c;
        let always_more = a > d;
        match self {
            Cmp::Eq | Cmp::Ne => {
                let apart = always_less
                    || always_more
                    || x.values().is_some_and(|v| v.iter().all(|&p| !y.may_be(p)))
                    || y.values().is_some_and(|v| v.iter().all(|&q| !x.may_be(q)));
                apart.then_some(self == Cmp::Ne)
            }
            Cmp::Lt => (b < c).then_some(true).or((a >= d).then_some(false)),
            Cmp::Le => (b <= c).then_some(true).or((a > d).then_some(false)),
            Cmp::Gt => (a > d).then_some(true).or((b <= c).then_some(false)),
            Cmp::Ge => (a >= d).then_some(true).or((b < c).then_some(false)),
        }
    }
}

impl Cond {
    /// The condition as a term.
    pub fn term(&self) -> Bool {
        match self {
            Cond::Known(b) => Bool::from_bool(*b),
            Cond::Term(t) => t.clone(),
        }
    }

    /// Whether it is known false.
    pub fn is_false(&self) -> bool {
        matches!(self, Cond::Known(false))
    }

    /// `!c`.
    pub fn not(&self) -> Cond {
        match self {
            Cond::Known(b) => Cond::Known(!b),
            Cond::Term(t) => Cond::Term(t.not()),
        }
    }

    /// `a && b`.
    pub fn and(&self, other: &Cond) -> Cond {
        match (self, other) {
            (Cond::Known(false), _) | (_, Cond::Known(false)) => Cond::Known(false),
            (Cond::Known(true), x) | (x, Cond::Known(true)) => x.clone(),
            (Cond::Term(a), Cond::Term(b)) => Cond::Term(Bool::and(&[a, b])),
        }
    }

    /// `a || b`.
    pub fn or(&self, other: &Cond) -> Cond {
        match (self, other) {
            (Cond::Known(true), _) | (_, Cond::Known(true)) => Cond::Known(true),
            (Cond::Known(false), x) | (x, Cond::Known(false)) => x.clone(),
            (Cond::Term(a), Cond::Term(b)) => Cond::Term(Bool::or(&[a, b])),
        }
    }

    /// The condition as an int: 1 or 0.
    pub fn value(&self) -> Val {
        match self {
            Cond::Known(b) => Val::Known(*b as i32),
            Cond::Term(t) => Val::Term(t.ite(&bv(1), &bv(0)), Hull::Set(vec![0, 1])),
        }
    }

    /// `c ? a : b`.
    pub fn choose(&self, a: &Val, b: &Val) -> Val {
        match self {
            Cond::Known(true) => a.clone(),
            Cond::Known(false) => b.clone(),
            Cond::Term(_) if a.same(b) => a.clone(),
            Cond::Term(t) => Val::Term(t.ite(&a.term(), &b.term()), a.hull().join(&b.hull())),
        }
    }
}

/// An arithmetic operation on 32-bit ints.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum Arith {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Shl,
    /// Arithmetic shift right (C's `>>` on int, Java's `>>`).
    Shr,
    /// Java's `>>>`.
    UShr,
    And,
    Or,
    Xor,
}

/// The result of an arithmetic operation, and the condition under which
/// it faults (a division by zero, `INT_MIN / -1`, a shift by a negative
/// amount or by 32 or more).
pub fn arith(op: Arith, a: &Val, b: &Val) -> (Val, Cond) {
    if let (Val::Known(x), Val::Known(y)) = (a, b) {
        return match known(op, *x, *y) {
            Some(v) => (Val::Known(v), Cond::Known(false)),
            None => (Val::Known(0), Cond::Known(true)),
        };
    }
    let fault = match op {
        Arith::Div | Arith::Rem => b.compare(Cmp::Eq, &Val::Known(0)).or(&a
            .compare(Cmp::Eq, &Val::Known(i32::MIN))
            .and(&b.compare(Cmp::Eq, &Val::Known(-1)))),
        Arith::Shl | Arith::Shr | Arith::UShr => b
            .compare(Cmp::Lt, &Val::Known(0))
            .or(&b.compare(Cmp::Gt, &Val::Known(31))),
        _ => Cond::Known(false),
    };
    let (x, y) = (a.term(), b.term());
    let t = match op {
        Arith::Add => x.bvadd(&y),
        Arith::Sub => x.bvsub(&y),
        Arith::Mul => x.bvmul(&y),
        Arith::Div => x.bvsdiv(&y),
        Arith::Rem => x.bvsrem(&y),
        Arith::Shl => x.bvshl(&y),
        Arith::Shr => x.bvashr(&y),
        Arith::UShr => x.bvlshr(&y),
        Arith::And => x.bvand(&y),
        Arith::Or => x.bvor(&y),
        Arith::Xor => x.bvxor(&y),
    };
    let hull = match (op, a.same(b)) {
        (Arith::Mul, true) => square(&a.hull()),
        _ => hull_of(op, &a.hull(), &b.hull()),
    };
    (Val::of(t, hull), fault)
}

/// The values of `x * x` for `x` of `h`: never negative where it does not
/// overflow.
fn square(h: &Hull) -> Hull {
    let (lo, hi) = h.bounds();
    let (lo, hi) = (lo as i64, hi as i64);
    let most = (lo * lo).max(hi * hi);
    let least = if lo <= 0 && hi >= 0 {
        0
    } else {
        (lo * lo).min(hi * hi)
    };
    if most <= i32::MAX as i64 {
        if let Some(v) = h.values() {
            return Hull::set(v.iter().map(|x| x.wrapping_mul(*x)).collect());
        }
        Hull::range(least as i32, most as i32)
    } else {
        Hull::ANY
    }
}

/// The value of a known operation, `None` where it faults.
fn known(op: Arith, x: i32, y: i32) -> Option<i32> {
    Some(match op {
        Arith::Add => x.wrapping_add(y),
        Arith::Sub => x.wrapping_sub(y),
        Arith::Mul => x.wrapping_mul(y),
        Arith::Div => x.checked_div(y)?,
        Arith::Rem => x.checked_rem(y)?,
        Arith::Shl | Arith::Shr | Arith::UShr if !(0..32).contains(&y) => return None,
        Arith::Shl => x.wrapping_shl(y as u32),
        Arith::Shr => x >> y,
        Arith::UShr => ((x as u32) >> y) as i32,
        Arith::And => x & y,
        Arith::Or => x | y,
        Arith::Xor => x ^ y,
    })
}

/// The values an operation may give on values of the two hulls.
fn hull_of(op: Arith, x: &Hull, y: &Hull) -> Hull {
    if let (Some(a), Some(b)) = (x.values(), y.values()) {
        if a.len() * b.len() <= MAX_SET * 4 {
            let v: Vec<i32> = (a.iter())
                .flat_map(|&p| b.iter().filter_map(move |&q| known(op, p, q)))
                .collect();
            if v.is_empty() {
                return Hull::ANY;
            }
            return Hull::set(v);
        }
    }
    let ((a, b), (c, d)) = (x.bounds(), y.bounds());
    let (a, b, c, d) = (a as i64, b as i64, c as i64, d as i64);
    let fit = |lo: i64, hi: i64| {
        if lo >= i32::MIN as i64 && hi <= i32::MAX as i64 {
            Hull::range(lo as i32, hi as i32)
        } else {
            Hull::ANY
        }
    };
    match op {
        Arith::Add => fit(a + c, b + d),
        Arith::Sub => fit(a - d, b - c),
        Arith::Mul => {
            let p = [a * c, a * d, b * c, b * d];
            fit(*p.iter().min().unwrap_or(&0), *p.iter().max().unwrap_or(&0))
        }
        Arith::Div => {
            // Truncating division is monotone in each operand where the
            // divisor keeps its sign: the corners bound it.
            if c <= 0 && d >= 0 {
                return Hull::ANY;
            }
            let q = [a / c, a / d, b / c, b / d];
            fit(*q.iter().min().unwrap_or(&0), *q.iter().max().unwrap_or(&0))
        }
        Arith::Rem => {
            // |a % b| < |b|, and the sign is the dividend's; a dividend
            // already smaller than every divisor is the result.
            let m = c.abs().max(d.abs()) - 1;
            let least = c.abs().min(d.abs());
            if c <= 0 && d >= 0 {
                return Hull::ANY;
            }
            if a > -least && b < least {
                return fit(a, b);
            }
            // A dividend of one sign between two multiples of a constant
            // divisor: the remainder is the dividend shifted by the same
            // multiple throughout.
            if c == d && (a >= 0 || b <= 0) && a / c == b / c {
                return fit(a % c, b % c);
            }
            match (a >= 0, b <= 0) {
                (true, _) => fit(0, b.min(m)),
                (_, true) => fit(a.max(-m), 0),
                _ => fit(a.max(-m), b.min(m)),
            }
        }
        _ => Hull::ANY,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn term(name: &str, h: Hull) -> Val {
        Val::Term(BV::new_const(name, 32), h)
    }

    #[test]
    fn known_values_fold_and_faults_are_known() {
        let (v, f) = arith(Arith::Add, &Val::Known(i32::MAX), &Val::Known(1));
        assert!(matches!(v, Val::Known(i32::MIN)));
        assert!(f.is_false());
        let (_, f) = arith(Arith::Div, &Val::Known(3), &Val::Known(0));
        assert!(matches!(f, Cond::Known(true)));
        let (_, f) = arith(Arith::Rem, &Val::Known(i32::MIN), &Val::Known(-1));
        assert!(matches!(f, Cond::Known(true)));
    }

    #[test]
    fn hulls_decide_comparisons_they_settle_and_no_other() {
        let x = term("x", Hull::Set(vec![3, 5]));
        assert!(matches!(
            x.compare(Cmp::Eq, &Val::Known(4)),
            Cond::Known(false)
        ));
        assert!(matches!(
            x.compare(Cmp::Ne, &Val::Known(4)),
            Cond::Known(true)
        ));
        assert!(matches!(
            x.compare(Cmp::Lt, &Val::Known(6)),
            Cond::Known(true)
        ));
        assert!(matches!(x.compare(Cmp::Eq, &Val::Known(5)), Cond::Term(_)));
        let y = term("y", Hull::ANY);
        assert!(matches!(y.compare(Cmp::Eq, &Val::Known(0)), Cond::Term(_)));
        let z = term("z", Hull::Range(10, 1000));
        assert!(matches!(
            z.compare(Cmp::Ge, &Val::Known(10)),
            Cond::Known(true)
        ));
        assert!(matches!(z.compare(Cmp::Gt, &Val::Known(10)), Cond::Term(_)));
    }

    #[test]
    fn division_and_remainder_keep_their_ranges() {
        let x = term("x", Hull::Range(-1000, 5000));
        assert_eq!(
            arith(Arith::Div, &x, &Val::Known(10)).0.hull(),
            Hull::Range(-100, 500)
        );
        assert_eq!(
            arith(Arith::Div, &x, &Val::Known(-10)).0.hull(),
            Hull::Range(-500, 100)
        );
        assert_eq!(
            arith(Arith::Rem, &x, &Val::Known(100)).0.hull(),
            Hull::Range(-99, 99)
        );
        let y = term("y", Hull::Range(100, 5000));
        assert_eq!(
            arith(Arith::Rem, &y, &Val::Known(-300)).0.hull(),
            Hull::Range(0, 299)
        );
        let z = term("z", Hull::Range(-5, 5000));
        assert_eq!(
            arith(Arith::Rem, &z, &Val::Known(10000)).0.hull(),
            Hull::Range(-5, 5000)
        );
        assert_eq!(arith(Arith::Div, &z, &y).0.hull(), Hull::range(0, 50));
        // A divisor that may be zero or change sign bounds nothing.
        assert_eq!(arith(Arith::Div, &z, &x).0.hull(), Hull::ANY);
    }

    /// Every hull holds the values the operation gives on its operands'
    /// values (a brute-force oracle over small ranges).
    #[test]
    fn hulls_hold_every_value() {
        let ops = [
            Arith::Add,
            Arith::Sub,
            Arith::Mul,
            Arith::Div,
            Arith::Rem,
            Arith::And,
            Arith::Or,
            Arith::Xor,
            Arith::Shl,
            Arith::Shr,
        ];
        let ranges = [
            (-70, -3),
            (-9, 9),
            (0, 100),
            (3, 80),
            (-200, -101),
            (5, 5),
            (-7, -7),
            (130, 139),
            (-139, -121),
        ];
        for op in ops {
            for &(a, b) in &ranges {
                for &(c, d) in &ranges {
                    let h = hull_of(op, &Hull::range(a, b), &Hull::range(c, d));
                    for x in a..=b {
                        for y in c..=d {
                            if let Some(v) = known(op, x, y) {
                                assert!(h.may_be(v), "{op:?} {x} {y} = {v} not in {h:?}");
                            }
                        }
                    }
                    let wide = hull_of(op, &Hull::Range(a * 1000, b * 1000), &Hull::range(c, d));
                    for x in [a * 1000, b * 1000, (a + b) * 500] {
                        for y in c..=d {
                            if let Some(v) = known(op, x, y) {
                                assert!(wide.may_be(v), "{op:?} {x} {y} = {v} not in {wide:?}");
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn a_square_is_never_negative() {
        let x = term("x", Hull::Range(-29954, 42));
        assert_eq!(
            arith(Arith::Mul, &x, &x).0.hull(),
            Hull::Range(0, 897_242_116)
        );
        let y = term("y", Hull::Range(-70000, 42));
        assert_eq!(arith(Arith::Mul, &y, &y).0.hull(), Hull::ANY);
        let z = term("z", Hull::Set(vec![-3, 2]));
        assert_eq!(arith(Arith::Mul, &z, &z).0.hull(), Hull::Set(vec![4, 9]));
    }

    #[test]
    fn a_choice_joins_the_hulls() {
        let c = Cond::Term(Bool::new_const("c"));
        let v = c.choose(&Val::Known(3), &Val::Known(5));
        assert_eq!(v.hull(), Hull::Set(vec![3, 5]));
        let (s, f) = arith(Arith::Mul, &v, &Val::Known(2));
        assert_eq!(s.hull(), Hull::Set(vec![6, 10]));
        assert!(f.is_false());
    }
}
