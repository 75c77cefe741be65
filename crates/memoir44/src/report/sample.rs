//! A deterministic sample game, for snapshot tests, the browser test and the
//! benchmark: a shipped scenario played for some turns with random legal
//! orders.

use crate::{Event, Ruleset, State};
use adjutant_dice::{deck_seed, turn_seed, ChaChaDice, Seed};
use adjutant_rules::Chance;

/// A game in progress: the position after `turns` turns and the events of
/// the last one.
pub struct Sample {
    pub r: Ruleset,
    pub state: State,
    pub events: Vec<Event>,
    /// The side that moved last.
    pub mover: String,
}

/// Play `scenario` for up to `turns` turns from `seed` (the game may end first).
#[must_use]
pub fn play(scenario: &str, seed: Seed, turns: u32) -> Option<Sample> {
    let r = Ruleset::builtin().ok()?;
    let mut deck = ChaChaDice::from_seed(deck_seed(&seed));
    let mut rng = ChaChaDice::from_seed(adjutant_dice::derive("sample/orders", &[&seed]));
    let mut st = crate::setup(&r, scenario, &mut deck).ok()?;
    let mut events = Vec::new();
    let mut mover = String::new();
    for t in 1..=turns {
        let Some(side) = crate::waiting(&st).sides.first().cloned() else {
            break;
        };
        let orders = crate::random_orders(&r, &st, &side, &mut rng);
        let mut dice = ChaChaDice::stream(&turn_seed(&seed, t), "battle");
        let mut chance = Chance {
            dice: &mut dice,
            deck: &mut deck,
        };
        let (next, ev) = crate::adjudicate(&r, &st, &side, &orders, &mut chance).ok()?;
        st = next;
        events = ev;
        mover = side;
    }
    Some(Sample {
        r,
        state: st,
        events,
        mover,
    })
}

/// The sample the snapshots use: Pegasus Bridge after 12 turns.
#[must_use]
pub fn standard() -> Sample {
    play("pegasus-bridge", [5; 32], 12).expect("the sample game plays")
}
