//! A process of the cluster that is lost (killed, its host gone) ends the
//! run of every other with an error, at once and without panics on the
//! terminal.
//!
//! Timely does not survive a lost peer: the thread reading its socket
//! panics ("socket closed"), the workers then panic on the poisoned queue,
//! and joining the workers panics in turn when the network threads are
//! joined. [`join`] turns all of that into one error: the panics raised in
//! timely's own code are recorded here instead of printed (any other
//! panic is printed as before), and the join is caught.

use std::panic::{self, AssertUnwindSafe, PanicHookInfo};
use std::sync::{Mutex, Once};

use super::DistributedError;

/// The first panic message raised in timely's code.
static FIRST: Mutex<Option<String>> = Mutex::new(None);

/// Whether a panic was raised in the code of a timely crate.
fn in_timely(info: &PanicHookInfo) -> bool {
    info.location()
        .is_some_and(|l| l.file().contains("/timely"))
}

/// Installs, once, a panic hook that records timely's panics and leaves
/// every other to the hook before it: called before the workers start
/// (their panics may come before the join).
pub(super) fn prepare() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let before = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if !in_timely(info) {
                return before(info);
            }
            let message = (info.payload().downcast_ref::<String>().cloned())
                .or_else(|| info.payload().downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "a panic".into());
            if let Ok(mut first) = FIRST.lock() {
                first.get_or_insert(message);
            }
        }));
    });
}

/// Joins timely's workers (after [`prepare`]): their results, or why the
/// cluster was lost.
pub(super) fn join<T: Send + 'static>(
    guards: timely::communication::WorkerGuards<T>,
) -> Result<Vec<T>, DistributedError> {
    let joined = panic::catch_unwind(AssertUnwindSafe(|| guards.join()));
    let why = || {
        let first = FIRST.lock().ok().and_then(|f| f.clone());
        DistributedError::Lost(first.unwrap_or_else(|| "a worker failed".into()))
    };
    match joined {
        Ok(results) => results.into_iter().map(|r| r.map_err(|_| why())).collect(),
        Err(_) => Err(why()),
    }
}
