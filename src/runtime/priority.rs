//! The scheduling priority of the calling thread, for runs in which a
//! proof's check and a search share the cores.
//!
//! While a certificate check runs beside a search, the search runs on a
//! thread that steps back ([`deferred`]): the check settles every label its
//! certificate claims at once but counts only if it ends before the
//! deadline, while the search settles labels one by one and keeps each.
//! The search still gets whatever core the check leaves idle, and once the
//! check has ended the lower priority changes nothing (no thread competes
//! with it).

/// How many nice steps a deferred thread goes down.
const DEFER_BY: i32 = 10;

/// Stack of the thread [`deferred`] starts (the size of a main thread's).
const STACK: usize = 8 << 20;

/// Runs `f` on a thread of its own whose priority, and that of the threads
/// it starts, is lowered ([`defer_this_thread`]), and returns what it
/// returns; the calling thread keeps its priority. A panic in `f` goes on
/// in the caller.
pub fn deferred<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    let f = std::sync::Mutex::new(Some(f));
    let take = || f.lock().unwrap_or_else(|e| e.into_inner()).take();
    std::thread::scope(|scope| {
        let run = std::thread::Builder::new()
            .stack_size(STACK)
            .spawn_scoped(scope, || {
                defer_this_thread();
                take().map(|f| f())
            });
        let done = match run {
            Ok(handle) => handle
                .join()
                .unwrap_or_else(|e| std::panic::resume_unwind(e)),
            // No thread to be had: `f` runs here, at the caller's priority.
            Err(_) => None,
        };
        match done {
            Some(v) => v,
            None => take().map(|f| f()).expect("`f` runs exactly once"),
        }
    })
}

/// Lowers the calling thread's scheduling priority, and that of the
/// threads it starts from now on (on Linux, where the nice value is per
/// thread; elsewhere, or where the system refuses, nothing changes). It
/// cannot be raised back without privileges, so call it only on a thread
/// whose remaining work is the deferred kind.
pub fn defer_this_thread() {
    #[cfg(target_os = "linux")]
    // SAFETY: plain system calls on the calling thread's own id, with no
    // pointers; a failure only leaves the priority as it was.
    unsafe {
        let tid = libc::gettid() as libc::id_t;
        *libc::__errno_location() = 0;
        let now = libc::getpriority(libc::PRIO_PROCESS, tid);
        if now != -1 || *libc::__errno_location() == 0 {
            libc::setpriority(libc::PRIO_PROCESS, tid, (now + DEFER_BY).min(19));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deferred_work_returns_its_value() {
        assert_eq!(deferred(|| 6 * 7), 42);
    }

    #[test]
    fn a_deferred_thread_is_nicer_and_the_others_are_not() {
        #[cfg(target_os = "linux")]
        {
            // SAFETY: reads of the calling thread's and the process's nice.
            let nice =
                || unsafe { libc::getpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t) };
            let before = nice();
            let inside = std::thread::spawn(move || {
                defer_this_thread();
                nice()
            })
            .join()
            .expect("the thread ends");
            assert_eq!(inside, (before + DEFER_BY).min(19));
            assert_eq!(nice(), before);
        }
    }
}
