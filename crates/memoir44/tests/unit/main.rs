//! The Memoir '44 crate's unit tests, one module per source file they test.
//! They live here, not in `#[cfg(test)]` modules of the crate, so that
//! `cargo test` compiles the library once (docs/testing.md, "Build settings
//! that pay").

mod airdrop;
mod board;
mod case;
mod commissar;
mod disorder;
mod family;
mod general;
mod orders;
mod orders_canonical;
mod report_snapshots;
mod ruleset;
mod stars;
mod supply;
mod support;
mod support_motorised;
mod view_markers;
mod young_generals;

/// What the tests used to see from inside the crate.
mod prelude {
    pub use adjutant_dice::{ChaChaDice, Dice};
    pub use adjutant_memoir44::board::Hex;
    pub use adjutant_memoir44::ruleset::Ruleset;
    pub use adjutant_memoir44::{scenario, State};
    pub use adjutant_rules::{Chance, DataError, Family, Scenario, Viewer};

    /// The message a scenario text is refused with.
    pub fn refused(r: &Ruleset, text: &str, file: &str) -> String {
        scenario::load(r, text, file)
            .map(|_| ())
            .expect_err("refused")
            .to_string()
    }

    /// The error a scenario text (file name `f.toml`) is refused with.
    pub fn refusal(r: &Ruleset, text: &str) -> String {
        refused(r, text, "f.toml")
    }
}
