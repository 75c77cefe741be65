//! The golden corpus of issue 29 (docs/testing.md, "The golden corpus"):
//! the bytes of seeded random games of every shipped ruleset and of the
//! judge's mails for a fixed mail corpus, as SHA-256 digests in
//! tests/golden/manifest, so that a change meant to keep the behaviour (the
//! workspace split) is proven to keep every byte. `cargo test` checks a
//! quick subset; `ADJUTANT_DEEP=1` every item; `ADJUTANT_GOLDEN=write`
//! rewrites the manifest; `ADJUTANT_GOLDEN_DUMP=DIR` dumps every item's
//! bytes to diff two commits.

pub mod exports;
pub mod games;
mod mails;
mod manifest;

/// Memoir '44: every shipped scenario, Kriegspiel and other game options.
#[test]
fn golden_games_memoir44() {
    games::run("memoir44");
}

/// Memoir of Battle and Memoir of Modern Battle, on both grid kinds.
#[test]
fn golden_games_grid() {
    games::run("memoir_grid");
}

/// Charge!.
#[test]
fn golden_games_measured() {
    games::run("measured");
}

/// The Seven Years' War.
#[test]
fn golden_games_syw() {
    games::run("syw");
}

/// The judge's mails for the fixed mail corpus, through `serve --once`.
#[test]
fn golden_mails() {
    let items = mails::corpus();
    manifest::settle(&["mail ".to_string()], &items, true);
}
