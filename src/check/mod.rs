//! Property checkers over explored programs.

pub mod reach;
