//! The measured core's unit tests, one module per source file they test.
//! They live here, not in `#[cfg(test)]` modules of the crate, so that
//! `cargo test` compiles the library once (docs/testing.md).

mod amend;
mod geometry;
mod labels;
mod measured_core;
