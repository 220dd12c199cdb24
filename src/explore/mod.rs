//! Explorers: build the reachable transition system of a program.

pub mod bfs;
pub mod graph;
pub mod store;

pub use bfs::{explore, Exploration, Limits, Options, StopReason};
