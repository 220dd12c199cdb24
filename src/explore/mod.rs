//! Explorers: build the reachable transition system of a program.

pub mod graph;
