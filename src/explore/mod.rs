//! Explorers: build the reachable transition system of a program.

pub mod bfs;
pub mod graph;
pub mod guided;
pub mod store;

pub use bfs::{explore, explore_pruned, Estimate, Exploration, Guide, Limits, Options, StopReason};
pub use guided::{guided_search, GuidedSearch};
