//! A run's progress over time, recorded for plots (the HTML report).
//!
//! A [`Recorder`] is an [`Observer`] that keeps the samples every search of
//! a run reports (on its own clock, from the run's start, since each
//! search restarts its own), thinned to at most [`MAX_POINTS`], and hands
//! them on to another observer (a progress bar) if there is one.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::{Observer, Sample};

/// At most this many points are kept: beyond, every other one is dropped.
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
    points: Arc<Mutex<Vec<ProgressPoint>>>,
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
            points: Arc::new(Mutex::new(Vec::new())),
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

    /// Adds a point (thinning the record when it is full).
    pub fn push(&self, p: ProgressPoint) {
        let mut points = self.points.lock().unwrap_or_else(|e| e.into_inner());
        if points.len() >= MAX_POINTS {
            let mut k = 0;
            points.retain(|_| {
                k += 1;
                k % 2 == 1
            });
        }
        points.push(p);
    }

    /// Seconds since the run started.
    pub fn elapsed(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }

    /// The points recorded, ending with `last` (the run's final figures).
    pub fn finish(&self, last: ProgressPoint) -> Vec<ProgressPoint> {
        self.push(last);
        self.points
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
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
    }
}
