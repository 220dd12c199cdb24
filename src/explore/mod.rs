//! Explorers: build the reachable part of any [`crate::system::System`].
//!
//! - [`bfs`]: the breadth-first search (shortest witnesses, optionally
//!   pruned by a [`Guide`]), the one every checker uses;
//! - [`guided`]: a best-first search ordered by a [`Guide`]'s distance
//!   estimate, for deep labels;
//! - [`store`]: the compact, exact set of visited states both use;
//! - [`progress`]: a run's samples over time, recorded for plots.

pub mod bfs;
pub mod guided;
pub mod progress;
pub mod store;

pub use bfs::{
    explore, explore_pruned, ErrorFound, Estimate, Exploration, FaultAt, Guide, Observer, Options,
    Sample,
};
pub use guided::{guided_search, GuidedSearch};
pub use progress::{ProgressPoint, Recorder};
