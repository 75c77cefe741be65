//! The measured family's unit tests, one module per source file they test.
//! They live here, not in `#[cfg(test)]` modules of the crate, so that
//! `cargo test` compiles the library once (docs/testing.md).

mod amend;
mod books;
mod charge;
mod events;
mod geometry;
mod labels;
mod measured_core;
mod orders;
mod ruleset;
mod syw_line;
mod syw_orders;
mod syw_procedures;
mod syw_standing;
mod syw_template;
