//! Shared by the order-language targets: a shipped scenario's opening
//! position, and one side's orders checked and adjudicated against it.

use adjutant::rules::Load;
use adjutant::engine::dice::ChaChaDice;
use adjutant::rules::{Chance, Orders, Rules, Scenario, State};

pub fn opening(scenario: &str) -> (Rules, State) {
    let rules = Rules::for_scenario(scenario).expect("ruleset");
    let state = rules
        .setup(&Scenario::shipped(scenario), &mut ChaChaDice::from_seed([1; 32]))
        .expect("scenario");
    (rules, state)
}

/// Orders text from the fuzzer for the side that moves first: `check`, then
/// `adjudicate`, then a report of the result. Nothing may panic; a
/// rejection names a line that exists.
pub fn run(game: &(Rules, State), data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (rules, state) = game;
    let sides = rules.phase(state).sides;
    let all = rules.sides(state);
    let Some(side) = sides.first().or(all.first()).cloned() else {
        return;
    };
    let lines = text.lines().count().max(1);
    if let Err(rej) = rules.check(state, &side, text) {
        if let Some(l) = rej.line {
            assert!(l >= 1 && l <= lines, "{rej}");
        }
    }
    let mut dice = ChaChaDice::from_seed([2; 32]);
    let mut deck = ChaChaDice::from_seed([3; 32]);
    let mut chance = Chance { dice: &mut dice, deck: &mut deck };
    let orders: Vec<Orders> = sides
        .iter()
        .map(|s| Orders {
            side: s.clone(),
            text: if *s == side { text.to_string() } else { rules.pass_orders(state, s).unwrap_or_default() },
        })
        .collect();
    match rules.adjudicate(state, &orders, &mut chance) {
        Ok(adj) => {
            let _ = rules.render_text(&adj.state, &adjutant::rules::Viewer::Referee);
        }
        Err(rej) => {
            if let Some(l) = rej.line {
                assert!(l >= 1, "{rej}");
            }
        }
    }
}
