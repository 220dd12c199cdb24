//! rigor's integration tests, one binary: each file of `tests/` is a module
//! here. Cargo would otherwise build and link (with the release profile's
//! link-time optimisation) one binary per file, which took most of the
//! build in CI; one binary links once, and its tests share the machine's
//! cores. Run one file's tests with `cargo test --release --test integration
//! reach::` (the module's name and `::`).

mod common;

mod absint;
mod answers;
mod architecture;
mod bad_input;
mod benchexec;
mod box_step;
mod certificate;
mod compare_pairs;
mod ctl_oracle;
mod differential;
mod distributed;
mod distributed_ltl;
mod engine;
mod fuzz;
mod industrial;
mod invariants;
mod java;
mod levels;
mod ltl_certificate;
mod ltl_oracles;
mod ltl_truth;
mod mcc_export;
mod nothing_lost;
mod reach;
mod report;
mod second_reading;
mod solve_scored;
mod svcomp;
