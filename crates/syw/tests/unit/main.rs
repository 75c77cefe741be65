//! The Seven Years' War family's unit tests, one module per source file they test.
//! They live here, not in `#[cfg(test)]` modules of the crate, so that
//! `cargo test` compiles the library once (docs/testing.md).

mod books;
mod events;
mod line;
mod orders;
mod predict;
mod procedures;
mod standing;
mod template;
