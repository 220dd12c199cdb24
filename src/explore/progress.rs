//! A run's progress over time, recorded for plots (the HTML report).
//!
//! A [`Recorder`] is an [`Observer`] that keeps the samples every search of
//! a run reports (on its own clock, from the run's start, since each
//! search restarts its own), thinned to at most [`MAX_POINTS`] evenly spread
//! over the run, and hands them on to another observer (a progress bar) if
//! there is one.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::{Observer, Sample};

/// At most this many points are kept: beyond, every other one is dropped,
/// and from then on only every other sample is kept (the stride doubles).
pub const MAX_POINTS: usize = 400;

/// One point of a run's progress.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ProgressPoint {
    /// Seconds since the run started.
    pub seconds: f64,
    /// States stored by the search reporting.
    pub states: u64,
    /// Its breadth-first depth.
    pub depth: u32,
    /// Properties (labels) settled so far by it.
    pub settled: usize,
}

/// Records the samples of a run.
#[derive(Clone)]
pub struct Recorder {
    started: Instant,
    points: Arc<Mutex<Thinned>>,
}

/// The points kept, and which samples are kept from now on.
#[derive(Default)]
struct Thinned {
    points: Vec<ProgressPoint>,
    /// One sample in `stride` is kept.
    stride: u64,
    /// Samples offered since the last one kept.
    skipped: u64,
}

impl Default for Recorder {
    fn default() -> Self {
        Recorder::start()
    }
}

impl Recorder {
    /// A recorder whose clock starts now.
    pub fn start() -> Recorder {
        Recorder {
            started: Instant::now(),
            points: Arc::new(Mutex::new(Thinned {
                stride: 1,
                ..Thinned::default()
            })),
        }
    }

    /// An observer that records each sample, then tells `inner`.
    pub fn observer(&self, inner: Option<Observer>) -> Observer {
        let me = self.clone();
        Arc::new(move |s: &Sample| {
            me.push(ProgressPoint {
                seconds: me.started.elapsed().as_secs_f64(),
                states: s.states,
                depth: s.depth,
                settled: s.found,
            });
            if let Some(o) = &inner {
                o(s);
            }
        })
    }

    /// Adds a point, if it falls on the stride (thinning the record when
    /// it is full).
    pub fn push(&self, p: ProgressPoint) {
        let mut t = self.points.lock().unwrap_or_else(|e| e.into_inner());
        t.skipped += 1;
        if t.skipped < t.stride {
            return;
        }
        t.skipped = 0;
        Self::keep(&mut t, p);
    }

    fn keep(t: &mut Thinned, p: ProgressPoint) {
        if t.points.len() >= MAX_POINTS {
            let mut k = 0;
            t.points.retain(|_| {
                k += 1;
                k % 2 == 1
            });
            t.stride *= 2;
        }
        t.points.push(p);
    }

    /// Seconds since the run started.
    pub fn elapsed(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }

    /// The points recorded, ending with `last` (the run's final figures).
    pub fn finish(&self, last: ProgressPoint) -> Vec<ProgressPoint> {
        let mut t = self.points.lock().unwrap_or_else(|e| e.into_inner());
        Self::keep(&mut t, last);
        t.points.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_forwards_and_thins() {
        let r = Recorder::start();
        let told = Arc::new(Mutex::new(0));
        let t = Arc::clone(&told);
        let o = r.observer(Some(Arc::new(move |_: &Sample| *t.lock().unwrap() += 1)));
        for k in 0..1000u64 {
            o(&Sample {
                states: k,
                ..Sample::default()
            });
        }
        assert_eq!(*told.lock().unwrap(), 1000);
        let points = r.finish(ProgressPoint {
            states: 5000,
            ..ProgressPoint::default()
        });
        assert!(points.len() <= MAX_POINTS + 1 && points.len() > MAX_POINTS / 2);
        assert_eq!(points[0].states, 0);
        assert!(points.windows(2).all(|w| w[0].states <= w[1].states));
        assert_eq!(points.last().unwrap().states, 5000);
        // Evenly spread: no more of the points in the last tenth of the
        // samples than in any other tenth, give or take the final point
        // and one stride.
        let in_tenth = |t: u64| {
            points
                .iter()
                .filter(|p| p.states / 100 == t && p.states < 1000)
                .count()
        };
        let tenths: Vec<usize> = (0..10).map(in_tenth).collect();
        assert!(tenths[9] <= tenths[0] + 1, "{tenths:?}");
    }
}
