//! Raw mail bytes -> envelope -> commands and orders -> adjudication against
//! a real Pegasus Bridge position. Nothing that comes from a mail may panic.
#![no_main]

use adjutant::rules::Load;
use adjutant::engine::dice::ChaChaDice;
use adjutant::rules::{Chance, Orders, Rules, Scenario, State};
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

fn game() -> &'static (Rules, State) {
    static GAME: OnceLock<(Rules, State)> = OnceLock::new();
    GAME.get_or_init(|| {
        let rules = Rules::load("memoir44").expect("ruleset");
        let state = rules
            .setup(&Scenario::shipped("pegasus-bridge"), &mut ChaChaDice::from_seed([1; 32]))
            .expect("scenario");
        (rules, state)
    })
}

fuzz_target!(|data: &[u8]| {
    let env = adjutant::mail::parse::parse(data);
    let req = adjutant::protocol::parse(&env.subject, &env.text);
    if req.has_orders {
        let (rules, state) = game();
        let mut dice = ChaChaDice::from_seed([2; 32]);
        let mut deck = ChaChaDice::from_seed([3; 32]);
        let mut chance = Chance { dice: &mut dice, deck: &mut deck };
        let orders = [Orders { side: "allies".into(), text: req.orders.clone() }];
        if let Err(rej) = rules.adjudicate(state, &orders, &mut chance) {
            // A rejection names a line that exists in the orders text.
            if let Some(l) = rej.line {
                assert!(l >= 1 && l <= req.orders.lines().count().max(1), "{rej}");
            }
        }
    }
});
