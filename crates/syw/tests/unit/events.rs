//! Unit tests of `src/events.rs` (moved out of the crate so that the
//! library compiles once: docs/testing.md).

use adjutant_syw::events::{Syw, SywNote};
use adjutant_syw::Book;
use adjutant_syw::SevenYearsWar;
use serde_json::json;

/// One of each Seven Years' War event the engine writes, as stored.
fn syw_samples() -> Vec<serde_json::Value> {
    let n = |kind: &str, extra: serde_json::Value| {
        let mut v = json!({"kind": kind, "syw": true, "text": "a sentence"});
        if let (Some(m), serde_json::Value::Object(x)) = (v.as_object_mut(), extra) {
            m.extend(x);
        }
        v
    };
    vec![
        n("player_turn", json!({"turn": 3, "side": "prussia"})),
        n("destroyed", json!({"unit": "IR1"})),
        n("rain", json!({"die": 1})),
        n("rain", json!({})),
        n("effect_ends", json!({"event": "rain"})),
        n("fog_roll", json!({"die": 6})),
        n(
            "fog_roll",
            json!({"die": 1, "dice": [3, 4], "event": "lost"}),
        ),
        n(
            "fog_event",
            json!({"event": "lost", "side": "austria", "units": ["A", "B"]}),
        ),
        n("fog_move", json!({"unit": "IR1", "moved": 40})),
        n("compulsory", json!({"unit": "IR1", "dice": [2, 5]})),
        n(
            "compulsory",
            json!({"unit": "IR1", "dice": [2, 5], "moved": 70}),
        ),
        n("interpenetrated", json!({"unit": "IR2", "by": "IR1"})),
        n("clear", json!({"unit": "IR1", "cleared": false})),
        n(
            "clear",
            json!({"unit": "IR1", "dice": [[4, 5], [6]], "cleared": true}),
        ),
        n("stop", json!({"unit": "IR1"})),
        n("terrain", json!({"unit": "IR1"})),
        n(
            "response_fire",
            json!({"unit": "IR1", "target": "H1", "dice": [1, 6], "killed": 1}),
        ),
        n("lapse", json!({"unit": "IR1"})),
        n(
            "regiment_support",
            json!({"regiment": "R", "charger": "R-1", "units": ["R-2"]}),
        ),
        n(
            "moved",
            json!({"unit": "IR1", "moved": 80, "at": [100, -20], "facing": 270}),
        ),
        n(
            "charge",
            json!({"unit": "H1", "target": "IR1", "path": 90, "allowance": 120}),
        ),
        n("evade", json!({"unit": "IR1", "dice": [3]})),
        n("evade", json!({"unit": "IR1"})),
        n("evade", json!({"unit": "IR1", "dice": [3], "moved": 30})),
        n("pursuit", json!({"unit": "H1", "target": "IR1"})),
        n(
            "secondary_charge",
            json!({"unit": "H1", "evader": "IR1", "target": "IR2"}),
        ),
        n("charge_short", json!({"unit": "H1"})),
        n(
            "counter_charge",
            json!({"unit": "H2", "dice": [4, 4], "reached": true}),
        ),
        n("stand", json!({"unit": "IR1"})),
        n("contact", json!({"unit": "H1", "target": "G1"})),
        n("contact", json!({"unit": "H1", "target": "IR1", "face": 2})),
        n("over_obstacle", json!({"unit": "H1"})),
        n("soft_ground", json!({"unit": "H1"})),
        n(
            "fire",
            json!({"unit": "IR1", "target": "IR2", "dice": [1, 2, 3], "killed": 2}),
        ),
        n(
            "test",
            json!({"unit": "IR1", "score": -1, "die": 2, "result": null}),
        ),
        n(
            "test",
            json!({"unit": "IR1", "score": 7, "die": 5, "result": "rout"}),
        ),
        n(
            "game_over",
            json!({"winner": "prussia", "removed": [10, 30]}),
        ),
        n(
            "melee",
            json!({"attacker": "H1", "attackers": ["H1", "H2"], "defender": "IR1",
            "scores": [5, -2], "dice": [4, 1]}),
        ),
        n(
            "melee_result",
            json!({"winner": "H1", "loser": "IR1", "losers": ["IR1"]}),
        ),
        n("melee_draw", json!({"attacker": "H1", "defender": "IR1"})),
        n(
            "melee_draw",
            json!({"attacker": "H1", "defender": "IR1", "retreat": 30}),
        ),
        n("retreat", json!({"unit": "IR1", "distance": 30})),
        n("manufactured_retreat", json!({"unit": "IR1", "killed": 3})),
        n(
            "enters",
            json!({"unit": "IR1", "dice": [5, 6], "delayed": 0}),
        ),
        n(
            "entry_delayed",
            json!({"unit": "IR1", "dice": [1], "delayed": 1}),
        ),
        n(
            "split",
            json!({"unit": "B1", "new": "B1-2", "crew": [8, 8]}),
        ),
        n("amended", json!({"lines": ["MOVE IR1 TO 10 20"]})),
    ]
}

#[test]
fn every_syw_event_round_trips_through_its_stored_json() {
    let mut kinds = std::collections::BTreeSet::new();
    for stored in syw_samples() {
        let note: SywNote = serde_json::from_value(stored.clone()).expect("parses");
        let e = &note;
        kinds.insert(note.what.kind());
        assert_eq!(stored["kind"], note.what.kind());
        assert_eq!(serde_json::to_value(e).expect("serializes"), stored);
    }
    assert_eq!(kinds.len(), Syw::KINDS, "a sample of every kind");
}

/// Every event is described: the report's words come from its fields.
#[test]
fn every_sample_is_described() {
    for stored in syw_samples() {
        let e: SywNote = serde_json::from_value(stored.clone()).expect("parses");
        let line = SevenYearsWar::describe(&e).expect("described");
        assert!(!line.is_empty(), "{stored}");
    }
}

/// A Seven Years' War event is only read as one with its marker key: the
/// book's events are their own type, and a Charge! event is not one.
#[test]
fn a_charge_event_is_not_read_as_a_seven_years_war_one() {
    let charge = json!({"kind": "general_fit", "unit": "G1"});
    assert!(serde_json::from_value::<SywNote>(charge).is_err());
}
