//! Random legal orders, for property tests and benchmarks.

use super::ruleset::Ruleset;
use super::state::State;
use crate::engine::dice::Dice;

/// A legal order text for `side` (the side to move).
pub fn random_orders(_r: &Ruleset, s: &State, side: &str, _rng: &mut dyn Dice) -> String {
    let i = s.side_index(side).unwrap_or(0);
    s.hands[i]
        .first()
        .map(|c| format!("PLAY {c}\n"))
        .unwrap_or_default()
}
