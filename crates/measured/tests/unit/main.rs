//! The Charge! family's unit tests, one module per source file they test.
//! They live here, not in `#[cfg(test)]` modules of the crate, so that
//! `cargo test` compiles the library once (docs/testing.md).

mod books;
mod charge;
mod events;
mod orders;
mod ruleset;
