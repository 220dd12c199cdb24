//! A parallel map over indexes, for the engines that split work into
//! independent items (properties, merge parts, a level's workers).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// `(0..n).map(f)`, on `threads` threads taking indexes in turn (on the
/// calling thread when one is enough).
pub fn par_map<T: Send>(n: usize, threads: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    if threads <= 1 || n <= 1 {
        return (0..n).map(f).collect();
    }
    let results: Mutex<Vec<Option<T>>> = Mutex::new((0..n).map(|_| None).collect());
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..threads.min(n) {
            scope.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                if k >= n {
                    break;
                }
                let v = f(k);
                results.lock().unwrap_or_else(|e| e.into_inner())[k] = Some(v);
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .map(|v| v.expect("every index mapped"))
        .collect()
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
