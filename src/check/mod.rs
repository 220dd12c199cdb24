//! Property checkers over explored programs.

pub mod reach;
pub mod validate;
