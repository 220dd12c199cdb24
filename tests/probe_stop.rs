use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};
#[test]
#[ignore]
fn probe_stop() {
    let path = std::env::var("PROBE").unwrap();
    let labels: Vec<u32> = std::env::var("LABELS")
        .unwrap()
        .split(',')
        .map(|l| l.parse().unwrap())
        .collect();
    let secs: u64 = std::env::var("SECS")
        .map(|s| s.parse().unwrap())
        .unwrap_or(60);
    let p = rigor::frontend::load(&path).unwrap();
    let frame = rigor::smt::Frame::encode(&p).unwrap();
    let stop = AtomicBool::new(false);
    let budget = rigor::system::Budget::unlimited();
    let t = Instant::now();
    let v = rigor::horn::prove(
        &frame,
        &labels,
        Instant::now() + Duration::from_secs(secs),
        &budget,
        None,
        &stop,
    );
    eprintln!(
        "{labels:?}: {v:?} after {:?} (deadline {secs} s)",
        t.elapsed()
    );
}
