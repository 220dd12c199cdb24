//! A parallel map over indexes, for the engines that split work into
//! independent items (properties, merge parts, a level's workers).

use rayon::prelude::*;

/// `(0..n).map(f)`, on a rayon pool of `threads` threads (on the calling
/// thread when one is enough, or when no thread can be started).
///
/// A pool of its own per call, not rayon's global one: the callers ask
/// for a number of threads (`--threads`), and the abstraction keeps pools
/// of its own with deep stacks, so no caller's work waits on another's.
pub fn par_map<T: Send>(n: usize, threads: usize, f: impl Fn(usize) -> T + Sync + Send) -> Vec<T> {
    if threads <= 1 || n <= 1 {
        return (0..n).map(f).collect();
    }
    match rayon::ThreadPoolBuilder::new()
        .num_threads(threads.min(n))
        .build()
    {
        Ok(pool) => pool.install(|| (0..n).into_par_iter().map(&f).collect()),
        Err(_) => (0..n).map(f).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_in_order_on_any_number_of_threads() {
        for threads in [0, 1, 2, 5] {
            assert_eq!(par_map(7, threads, |k| k * k), vec![0, 1, 4, 9, 16, 25, 36]);
        }
        assert!(par_map(0, 3, |k| k).is_empty());
    }
}
