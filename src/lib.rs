//! Adjutant: a play-by-email judge for wargames.
//!
//! The engine and the rules (`engine`, `rules`) are pure. Everything with I/O
//! (`store`, `mail`, `daemon`) calls into them, never the other way round.
pub mod engine;
pub mod mail;
pub mod rules;
