//! Property checkers over explored programs.

pub mod compare;
pub mod reach;
pub mod validate;
