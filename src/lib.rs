//! Adjutant: a play-by-email judge for wargames.
//!
//! The engine and the rules (`engine`, `rules`) are pure. Everything with I/O
//! (`store`, `mail`, `daemon`) calls into them, never the other way round.
pub mod backup;
pub mod config;
pub mod daemon;
pub mod duel;
pub mod engine;
pub mod fault;
pub mod kept_smtp;
pub mod logging;
pub mod notify;
pub mod preflight;
pub use adjutant_general as general;
pub use adjutant_mail as mail;
pub mod protocol;
pub mod replay;
pub mod report;
pub mod rules;
pub mod service;
pub mod wake;
pub use adjutant_store as store;
