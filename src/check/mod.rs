//! Property checkers over explored programs.

pub mod abstract_compare;
pub mod commute;
pub mod compare;
pub mod reach;
pub mod structural;
pub mod validate;
