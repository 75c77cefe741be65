//! Property test over random games: no report to a side (text, HTML, JSON)
//! holds the opponent's hand, the deck order or the seed before the game
//! ends. Reports are built the way the service builds them: through the
//! `Rules` facade from the stored JSON state and events.

use adjutant::engine::dice::{deck_seed, turn_seed, ChaChaDice, Seed};
use adjutant::rules::memoir44::{self, Event, Ruleset};
use adjutant::rules::Load;
use adjutant::rules::{Chance, Rules, Viewer};
use proptest::prelude::*;
use std::collections::BTreeSet;

fn seed_of(n: u64) -> Seed {
    let mut s = [0u8; 32];
    s[..8].copy_from_slice(&n.to_le_bytes());
    s[9] = 0x55;
    s
}

/// Card ids made public by the events (played, shown, exchanged, discarded
/// face up) and the words battles use that are also card names.
fn public_cards(events: &[Event]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for e in events {
        match e {
            Event::CardPlayed { card, as_card, .. } => {
                out.insert(card.clone());
                out.extend(as_card.clone());
            }
            Event::CardsExchanged { shown, taken, .. } => {
                out.extend(shown.iter().cloned());
                for (a, b) in taken {
                    out.insert(a.clone());
                    out.insert(b.clone());
                }
            }
            Event::CardDiscarded {
                card,
                private: false,
                ..
            } => {
                out.insert(card.clone());
            }
            Event::Battle { how, .. } => {
                out.insert(how.clone());
            }
            Event::AmbushPlayed { .. } => {
                out.insert("ambush".into());
            }
            _ => {}
        }
    }
    out
}

fn name(id: &str) -> String {
    memoir44::render::card_name(id)
}

fn check_game(n: u64, turns: u32) {
    let r = Ruleset::builtin().expect("ruleset");
    let rules = Rules::load("memoir44").expect("rules");
    let scenarios = memoir44::scenario_ids();
    let scenario = &scenarios[(n as usize) % scenarios.len()];
    let seed = seed_of(n);
    let mut deck = ChaChaDice::from_seed(deck_seed(&seed));
    let mut rng = ChaChaDice::from_seed([n as u8 ^ 0x33; 32]);
    let mut st = memoir44::setup(&r, scenario, &mut deck).expect("setup");
    let mut events: Vec<Event> = Vec::new();
    let mut mover: Option<String> = None;
    for t in 1..=turns {
        let state_json = adjutant::rules::State::of(st.clone());
        let events_json: Vec<adjutant::rules::Event> = events
            .iter()
            .cloned()
            .map(adjutant::rules::Event::of)
            .collect();
        let public = public_cards(&events);
        let secrets = [
            hex::encode(seed),
            hex::encode(deck_seed(&seed)),
            hex::encode(turn_seed(&seed, t)),
        ];
        for (i, side) in st.sides.iter().enumerate() {
            let viewer = Viewer::Side(side.clone());
            let p = rules.report_parts(&state_json, &events_json, &viewer, mover.as_deref());
            let text = format!(
                "{}\n{}\n{}\n{}",
                p.combat,
                p.map,
                p.compact,
                p.orders.clone().unwrap_or_default()
            );
            let html = p.html("report", &text);
            let own: BTreeSet<&String> = st.hands[i].iter().collect();
            let other = &st.hands[1 - i];
            // The opponent's cards that the viewer has no other way to know.
            let hidden: Vec<&String> = other
                .iter()
                .chain(st.deck.iter().take(3))
                .filter(|c| !own.contains(c) && !public.contains(*c))
                .filter(|c| st.last_played.iter().flatten().all(|lp| &lp.card != *c))
                .collect();
            for out in [&text, &html, &p.json] {
                for c in &hidden {
                    assert!(
                        !out.contains(c.as_str()) && !out.contains(&name(c)),
                        "{scenario} seed {n} turn {t}: the report to {side} names {c}\n{out}"
                    );
                }
                for s in &secrets {
                    assert!(
                        !out.contains(s),
                        "{scenario} seed {n} turn {t}: a seed leaked"
                    );
                }
                assert!(!out.contains("\"deck\""), "the deck itself is in the view");
                assert!(!out.contains("\"hands\""), "the hands are in the view");
            }
            let json: serde_json::Value = serde_json::from_str(&p.json).expect("view json");
            let hand_of_other = &json["sides"][1 - i]["hand"];
            assert!(
                hand_of_other.is_null(),
                "the opponent's hand is in the view"
            );
        }
        let Some(side) = memoir44::waiting(&st).sides.first().cloned() else {
            break;
        };
        let orders = memoir44::random_orders(&r, &st, &side, &mut rng);
        let mut dice = ChaChaDice::stream(&turn_seed(&seed, t), "battle");
        let mut chance = Chance {
            dice: &mut dice,
            deck: &mut deck,
        };
        let (next, ev) =
            memoir44::adjudicate(&r, &st, &side, &orders, &mut chance).expect("legal orders");
        st = next;
        events = ev;
        mover = Some(side);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        crate::common::depth::games("NO_LEAK_GAMES", 12, 24) as u32
    ))]
    #[test]
    fn no_report_leaks_hidden_state(n in 0u64..1_000_000, turns in 1u32..60) {
        check_game(n, turns);
    }
}
