//! The step of a program as a bit-vector formula (z3), written from the IR
//! alone.
//!
//! [`SymbolicStep::encode`] turns one step of a [`Program`] into terms over
//! 32-bit vectors: a variable per global (per element for arrays) before the
//! step, one for the input, and for every global its value after the step,
//! with the conditions under which the step ends at each error label, as an
//! invalid input, blocked (`__VERIFIER_assume`), or in a fault the engine
//! would report (division by zero, an index out of bounds, a pointer to no
//! array, an output outside the alphabet, two outputs). Both branches of
//! every `if` are encoded, their updates guarded by the branch condition,
//! so the formula grows with the program and not with its paths.
//!
//! This module shares nothing with the engine or the abstract interpreter:
//! it is the second, independent reading of the IR that certificates are
//! checked against ([`crate::certificate`]). Loops are not encoded.

use std::time::{Duration, Instant};

mod boxes;
pub mod frame;
mod held;
mod span;
mod step;
mod value;

pub use boxes::{box_paths, Beyond, BoxPath, PathEnd, Pointing};
pub use frame::{Frame, StateVar};
pub use held::Held;
pub use span::Span;
pub use step::{EncodeError, SymbolicStep};
pub use value::{Cond, Value};

/// A z3 solver for `logic` that leaves interrupts to rigor, giving up
/// once `deadline` passes (`None` if z3 does not know the logic).
///
/// By default z3 takes SIGINT over for the length of every check (its
/// `ctrl_c` parameter): the first interrupt then only cancels that one
/// query, and the run's own handler, which stops every engine and answers
/// what is proved, never hears it. rigor stops z3 itself, through its
/// budgets and watchdogs.
pub fn solver(logic: &str, deadline: Option<Instant>) -> Option<z3::Solver> {
    let solver = z3::Solver::new_for_logic(logic)?;
    let mut params = z3::Params::new();
    params.set_bool("ctrl_c", false);
    if let Some(d) = deadline {
        let left = d.saturating_duration_since(Instant::now());
        let millis = left.max(Duration::from_millis(1)).as_millis();
        params.set_u32("timeout", millis.min(u32::MAX as u128) as u32);
    }
    solver.set_params(&params);
    Some(solver)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};
    use z3::ast::BV;

    static HEARD: AtomicBool = AtomicBool::new(false);

    extern "C" fn heard(_: libc::c_int) {
        HEARD.store(true, Ordering::SeqCst);
    }

    /// An interrupt that comes while z3 checks reaches the process's own
    /// handler (z3 does not take SIGINT over for the query).
    #[test]
    fn an_interrupt_during_a_query_reaches_the_handler_of_the_run() {
        // SAFETY: installs a handler that only stores to an atomic.
        let old = unsafe { libc::signal(libc::SIGINT, heard as *const () as libc::sighandler_t) };
        let deadline = Instant::now() + Duration::from_secs(2);
        let query = std::thread::spawn(move || {
            // Factoring a 64-bit product of two 32-bit primes: far more
            // than the two seconds it is given.
            let solver = solver("QF_BV", Some(deadline)).expect("QF_BV");
            let (x, y) = (BV::new_const("x", 64), BV::new_const("y", 64));
            let small = |v: &BV| v.bvugt(BV::from_u64(1, 64)) & v.bvult(BV::from_u64(1 << 32, 64));
            solver.assert(small(&x));
            solver.assert(small(&y));
            let n = 4_294_967_291u64 * 4_294_967_279u64;
            solver.assert((x * y).eq(BV::from_u64(n, 64)));
            solver.check()
        });
        std::thread::sleep(Duration::from_millis(300));
        // SAFETY: sends SIGINT to this process, whose handler is `heard`.
        unsafe { libc::raise(libc::SIGINT) };
        let _ = query.join();
        // SAFETY: puts the handler there was back.
        unsafe { libc::signal(libc::SIGINT, old) };
        assert!(HEARD.load(Ordering::SeqCst), "z3 took the interrupt");
    }
}
