//! Running out of memory as a limit, not a crash.
//!
//! Under a hard cap (`ulimit -v`, a container's limit) an allocation can
//! fail, and Rust's default is to abort: every answer found so far would
//! be lost. [`Reserve`], the binary's global allocator, keeps a block of
//! address space in reserve; the first allocation that fails gives the
//! reserve back, raises [`exhausted`] and is tried again. Every
//! [`crate::runtime::Budget`] then reads as spent
//! ([`crate::runtime::StopReason::MemoryLimit`]), and the run ends with the
//! answers it has, in the room the reserve left. The large tables of the
//! explorers grow with `try_reserve` besides, so that the doubling of a
//! table of gigabytes fails softly too.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering};

/// Bytes kept in reserve: room to stop, write the answers and exit.
const RESERVE_BYTES: usize = 64 << 20;

static RESERVE: AtomicPtr<u8> = AtomicPtr::new(std::ptr::null_mut());
static EXHAUSTED: AtomicBool = AtomicBool::new(false);

fn reserve_layout() -> Layout {
    Layout::from_size_align(RESERVE_BYTES, 4096).expect("a valid layout")
}

/// The system allocator with a reserve (see the module documentation).
/// Call [`Reserve::keep`] once at start.
pub struct Reserve;

impl Reserve {
    /// Sets the reserve aside (address space only: its pages are never
    /// touched, so it costs no resident memory).
    pub fn keep() {
        // SAFETY: the layout has a non-zero size.
        let p = unsafe { System.alloc(reserve_layout()) };
        if !p.is_null() {
            let old = RESERVE.swap(p, Ordering::SeqCst);
            if !old.is_null() {
                // SAFETY: `old` came from `System.alloc` with this layout.
                unsafe { System.dealloc(old, reserve_layout()) };
            }
        }
    }

    /// Gives the reserve back after a failed allocation; whether there was
    /// one to give.
    fn release() -> bool {
        EXHAUSTED.store(true, Ordering::SeqCst);
        let p = RESERVE.swap(std::ptr::null_mut(), Ordering::SeqCst);
        if p.is_null() {
            return false;
        }
        // SAFETY: `p` came from `System.alloc` with this layout, and the
        // swap made this the only owner.
        unsafe { System.dealloc(p, reserve_layout()) };
        true
    }
}

/// Whether an allocation has failed in this process (the memory is
/// exhausted: every budget reads as spent).
pub fn exhausted() -> bool {
    EXHAUSTED.load(Ordering::Relaxed)
}

// SAFETY: every call is forwarded to the system allocator; a failed one
// is retried once after the reserve was freed.
unsafe impl GlobalAlloc for Reserve {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if p.is_null() && Reserve::release() {
            return System.alloc(layout);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc_zeroed(layout);
        if p.is_null() && Reserve::release() {
            return System.alloc_zeroed(layout);
        }
        p
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = System.realloc(ptr, layout, new_size);
        if p.is_null() && Reserve::release() {
            return System.realloc(ptr, layout, new_size);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
}

/// Stack for the threads that walk a program's syntax or interpret its
/// step: generated `else if` chains nest thousands deep.
const DEEP_STACK: usize = 1 << 30;

/// The stack of each of `threads` threads that walk deeply nested code:
/// [`DEEP_STACK`], or their share of a quarter of a hard address-space
/// limit if that is less (a stack is address space, and under `ulimit -v`
/// the run needs the rest for its tables).
pub fn deep_stack(threads: usize) -> usize {
    let quarter = address_space_limit().map_or(u64::MAX, |l| l / 4);
    let share = quarter / threads.max(1) as u64;
    DEEP_STACK.min(usize::try_from(share).unwrap_or(usize::MAX))
}

/// The process's address-space limit (`ulimit -v`) in bytes, if it has one.
pub fn address_space_limit() -> Option<u64> {
    // SAFETY: getrlimit only writes the struct it is given.
    let mut lim: libc::rlimit = unsafe { std::mem::zeroed() };
    let ok = unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut lim) } == 0;
    (ok && lim.rlim_cur != libc::RLIM_INFINITY).then_some(lim.rlim_cur)
}

/// Under an address-space limit, keeps the allocator to few arenas: glibc
/// reserves 64 MiB of address space for each thread's arena, which a
/// `ulimit -v` counts in full although little of it is ever used (a run
/// with 3 threads started at about 370 MB of address space and 16 MB
/// resident). One arena per [`ADDRESS_PER_ARENA`] of the limit, so that
/// the arenas' reserve stays an eighth of it, and no more than the cores
/// (up to 8): threads that allocate much (the abstraction's expansions)
/// wait on each other's lock when they share one arena (2019 industrial
/// m106 under `ulimit -v` 16 GB: its abstraction took 150 s on 2 threads
/// with one arena, 60 s with two). Without a limit nothing changes.
pub fn fit_allocator_to_address_limit() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if let Some(limit) = address_space_limit() {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let arenas = arenas_within(limit, cores);
        // SAFETY: mallopt only sets an allocator parameter; called before
        // any thread is started.
        unsafe {
            libc::mallopt(libc::M_ARENA_MAX, arenas as libc::c_int);
        }
    }
}

/// Address-space limit per allocator arena: 8 times the 64 MiB glibc
/// reserves for one.
pub const ADDRESS_PER_ARENA: u64 = 512 << 20;

/// The allocator arenas for an address-space `limit` and `cores`: at
/// least 1, one per [`ADDRESS_PER_ARENA`], at most the cores and 8.
pub fn arenas_within(limit: u64, cores: usize) -> usize {
    let by_limit = usize::try_from(limit / ADDRESS_PER_ARENA).unwrap_or(usize::MAX);
    by_limit.min(cores).clamp(1, 8)
}

/// The address space this process uses, in bytes, if the platform tells.
pub fn address_space_used() -> Option<u64> {
    memory_stats::memory_stats().map(|m| m.virtual_mem as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deep_stacks_share_at_most_a_quarter_of_the_address_space() {
        let one = deep_stack(1);
        assert!(one > 8 << 20 && one <= DEEP_STACK);
        assert!(deep_stack(4) <= one && deep_stack(0) == one);
        if let Some(limit) = address_space_limit() {
            assert!(deep_stack(2) as u64 * 2 <= limit / 4);
        }
    }

    #[test]
    fn arenas_keep_to_an_eighth_of_the_limit_and_to_the_cores() {
        // A 400 MB cap keeps one arena, as it always did.
        assert_eq!(arenas_within(400 << 20, 2), 1);
        assert_eq!(arenas_within(0, 4), 1);
        assert_eq!(arenas_within(1 << 30, 4), 2);
        // 16 GB on 2 cores: one arena per core.
        assert_eq!(arenas_within(16_000_000_000, 2), 2);
        assert_eq!(arenas_within(u64::MAX, 64), 8);
        assert_eq!(arenas_within(u64::MAX, 0), 1);
    }
}
