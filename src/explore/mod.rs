//! Explorers: build the reachable part of any [`crate::system::System`].
//!
//! - [`bfs`]: the breadth-first search (shortest witnesses, optionally
//!   pruned by a [`Guide`]), the one every checker uses;
//! - [`guided`]: a best-first search ordered by a [`Guide`]'s distance
//!   estimate, for deep labels;
//! - [`levels`]: the breadth-first search on several threads, level by
//!   level, with the same ids and witnesses as [`bfs`], over
//! - [`tree`]: the tree-compressed, exact set of visited states, with its
//!   interned parts in [`nodes`], and
//! - [`parents`]: the way back to its states, in two bytes each;
//! - [`store`]: the compact, exact set of visited states the others use;
//! - [`progress`]: a run's samples over time, recorded for plots;
//! - [`distributed`]: the breadth-first search over several processes
//!   (timely-dataflow), with the ids and witnesses of one process.

pub mod bfs;
pub mod distributed;
pub mod guided;
pub mod levels;
pub mod nodes;
pub mod parents;
pub mod progress;
pub mod store;
pub mod tree;

pub use bfs::{
    explore, explore_checkpointed, explore_pruned, Checkpoint, ErrorFound, Estimate, Exploration,
    FaultAt, Guide, Links, Observer, Options, Sample,
};
pub use guided::{guided_search, GuidedSearch};
pub use levels::explore_levels;
pub use progress::{ProgressPoint, Recorder};
