//! Unit tests of `src/events.rs` (moved out of the crate so that the
//! library compiles once: docs/testing.md).

use adjutant_measured::events::Charge;
use adjutant_measured::syw::events::{Syw, SywNote};
use adjutant_measured::syw::SevenYearsWar;
use adjutant_measured::Book;
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

/// One of each Charge! event the engine writes, as stored.
fn charge_samples() -> Vec<serde_json::Value> {
    let cb = json!([{"unit": "B1", "gun": 1, "die": 4, "less": 1, "damage": 3}]);
    let houses = json!([
        {"section": "farm", "die": 5, "less": 0, "damage": 5, "killed": 1,
            "occupant": "IR1", "penetrates": true, "goes_on": false},
        {"section": "mill", "die": 2, "damage": 2, "killed": 0, "occupant": null}
    ]);
    vec![
        json!({"kind": "move", "turn": 2}),
        json!({"kind": "fled", "unit": "IR1", "why": "routs"}),
        json!({"kind": "retire", "unit": "IR1", "dist": 0, "text": "0\"", "why": "x; blocked"}),
        json!({"kind": "lapse", "unit": "IR1", "why": "gone"}),
        json!({"kind": "charge", "unit": "H1", "target": "IR1", "dist": 96, "text": "6\"",
            "face": "front", "impetus": true, "fire_at_chargers": null, "side": "british"}),
        json!({"kind": "charge", "unit": "H1", "target": "IR1", "dist": 96, "text": "6\"",
            "face": "rear", "impetus": false, "side": "french",
            "fire_at_chargers": {"attacker": 2, "defender": 5, "fired": true, "killed": 3}}),
        json!({"kind": "charge", "unit": "H1", "target": "IR1", "dist": 96, "text": "6\"",
            "face": "rear", "impetus": false, "side": "french",
            "fire_at_chargers": {"attacker": 5, "defender": 2, "fired": false}}),
        json!({"kind": "note", "text": "a note"}),
        json!({"kind": "blocked", "unit": "IR1", "by": "IR2"}),
        json!({"kind": "moved", "unit": "IR1", "orders": ["FORWARD 4"], "measured": ["4\""],
            "from": [0, 16], "to": [0, 80], "facing": 90, "formation": "line"}),
        json!({"kind": "limber", "unit": "B1", "formation": "limbered"}),
        json!({"kind": "gun_rests", "unit": "B1", "gun": 2, "why": "damaged"}),
        json!({"kind": "canister", "unit": "B1", "gun": 1, "target": "IR1", "range": 160,
            "text": "10\"", "figures": 4, "dice": [1, 6], "kill": [5, 6], "killed": {"IR1": 1}}),
        json!({"kind": "shell", "unit": "B1", "gun": 1, "target": "IR1", "range": 160,
            "text": "10\"", "sector": 1, "misfire": true}),
        json!({"kind": "shell", "unit": "B1", "gun": 1, "target": "IR1", "range": 160,
            "text": "10\"", "sector": 3, "figures": 2, "dice": [6], "kill": [6],
            "killed": {"IR1": 1}, "counter_battery": cb, "houses": houses,
            "aim": [10, 20], "from": [0, 0]}),
        json!({"kind": "roundshot", "unit": "B1", "gun": 1, "target": "IR1", "range": 400,
            "text": "25\"", "kill": [4, 5, 6], "plus": 3, "minus": 5, "sleeve": -32,
            "sleeve_text": "-2\"", "figures": 3, "dice": [1, 2, 3], "killed": {},
            "counter_battery": [], "houses": [], "aim": [10, 20], "from": [0, 0]}),
        json!({"kind": "gun_destroyed", "unit": "B1", "gun": 1, "damage": 6}),
        json!({"kind": "volley", "unit": "IR1", "target": "IR2", "firers": 24, "per": 4,
            "range": null, "text": null, "band_to": 64, "first": true, "cover": false,
            "deduct": 1, "dice": [{"die": 4, "hits": 3, "group": 1, "size": 6,
            "figures": [1, 2, 6]}], "killed": 3}),
        json!({"kind": "volley", "unit": "IR1", "target": "IR2", "firers": 24, "per": 4,
            "range": 100, "text": "6\"", "band_to": 128, "first": false, "cover": true,
            "deduct": 2, "dice": [], "killed": 0}),
        json!({"kind": "fires_first", "a": "IR1", "b": "IR2", "dice": [3, 3], "first": null}),
        json!({"kind": "fires_first", "a": "IR1", "b": "IR2", "dice": [4, 3], "first": "IR1"}),
        json!({"kind": "pick_off", "unit": "LI1", "target": "IR1", "range": 100, "text": "6\"",
            "kill": [6], "dice": [6, 1], "officers_hit": ["captain"]}),
        json!({"kind": "skirmish", "unit": "LI1", "target": "IR1", "range": 100, "text": "6\"",
            "cover": true, "kill": [6], "dice": [6, 1], "killed": 1}),
        json!({"kind": "officer", "unit": "IR1", "rank": "captain", "save": 3, "saved": false}),
        json!({"kind": "melee", "attacker": "H1", "defender": "IR1", "move": 1,
            "engaged": [8, 6], "mods": [1, -1], "why": [["charging"], []], "second": null,
            "combats": [{"a": 1, "d": 1, "a_die": 4, "d_die": 2, "a_score": 2.5,
            "d_score": 1.0, "winner": "attacker", "break_in": null}],
            "losses": [0, 1], "fire_credit": 0, "outcome": "continues"}),
        json!({"kind": "melee", "attacker": "H1", "defender": "IR1", "move": 2,
            "engaged": [8, 6], "mods": [0, 0], "why": [[], []],
            "second": {"throws": [[2, 2], [5, 1]], "first": "attacker",
            "batches": [["attacker", 2], ["defender", 1]], "idle": [0, 3]},
            "combats": [{"a": 2, "d": 1, "a_die": 1, "d_die": 6, "a_score": 1.0,
            "d_score": 3.0, "winner": "defender", "break_in": 4}],
            "losses": [2, 0], "fire_credit": 1, "outcome": "attacker withdraws"}),
        json!({"kind": "half", "unit": "IR1", "rf": 10, "start": 24, "note": "first"}),
        json!({"kind": "half", "unit": "IR1", "rf": 10, "start": 24, "in_house": false}),
        json!({"kind": "destroyed", "unit": "IR1"}),
        json!({"kind": "morale", "unit": "IR1", "points": 5, "losses": 2, "die": 3,
            "score": 6, "need": 7, "result": "retire"}),
        json!({"kind": "game_over", "winner": "", "removed": [3, 4]}),
        json!({"kind": "ride_down", "unit": "H1", "target": "IR1", "ranks": 2, "need": [5, 6],
            "throws": [5, 1], "broke": 1, "killed": 2, "through": false, "why": "", "next": null}),
        json!({"kind": "ride_down", "unit": "H1", "target": "IR1", "ranks": 2, "need": [5, 6],
            "throws": [5, 6], "broke": 2, "killed": 2, "through": true, "why": "",
            "next": {"target": "IR2", "dist": 32, "text": "2\"", "veer": 15}}),
        json!({"kind": "house_ruins", "section": "farm", "damage": 12, "why": "destroyed"}),
        json!({"kind": "house_ruins", "section": "farm", "moves": 3, "why": "burnt out"}),
        json!({"kind": "house_fire", "section": "farm", "shell": 4, "why": "shell fire"}),
        json!({"kind": "house_leave", "unit": "IR1", "section": "farm", "dist": 32,
            "text": "2\"", "clear": "1\""}),
        json!({"kind": "house_leave", "unit": "IR1", "section": "farm", "dist": 0,
            "text": "0\"", "clear": "1\"", "trapped": true}),
        json!({"kind": "house_spread", "from": "farm", "section": "barn", "die": 6,
            "spreads": true}),
        json!({"kind": "general_rally", "unit": "G1", "target": "IR1", "dist": 64,
            "text": "4\"", "die": 2}),
        json!({"kind": "general_falls", "unit": "G1"}),
        json!({"kind": "general_fit", "unit": "G1"}),
        json!({"kind": "amended", "text": "The referee corrects the position: REMOVED red 3",
            "lines": ["REMOVED red 3"]}),
    ]
}

#[test]
fn every_charge_event_round_trips_through_its_stored_json() {
    let mut kinds = std::collections::BTreeSet::new();
    for stored in charge_samples() {
        let c: Charge = serde_json::from_value(stored.clone())
            .unwrap_or_else(|x| panic!("{stored} does not parse: {x}"));
        let e = &c;
        kinds.insert(c.kind());
        assert_eq!(stored["kind"], c.kind());
        assert_eq!(serde_json::to_value(e).expect("serializes"), stored);
    }
    assert_eq!(kinds.len(), Charge::KINDS, "a sample of every kind");
}

/// Every event is described: the report's words come from its fields.
#[test]
fn every_sample_is_described() {
    for stored in charge_samples() {
        let e: Charge = serde_json::from_value(stored.clone()).expect("parses");
        let line = adjutant_measured::Charge::describe(&e).expect("described");
        assert!(!line.is_empty(), "{stored}");
    }
    for stored in syw_samples() {
        let e: SywNote = serde_json::from_value(stored.clone()).expect("parses");
        let line = SevenYearsWar::describe(&e).expect("described");
        assert!(!line.is_empty(), "{stored}");
    }
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

/// A referee's correction in a Charge! game stored before each book had
/// its own events carried the Seven Years' War's marker key (`"syw":
/// true`, before `text` and `kind`): such a game still loads, the key
/// ignored.
#[test]
fn a_charge_correction_stored_with_the_old_marker_still_reads() {
    let stored = r#"{"syw":true,"text":"The referee corrects the position: REMOVED red 3","kind":"amended","lines":["REMOVED red 3"]}"#;
    let c: Charge = serde_json::from_str(stored).expect("an old stored correction reads");
    assert_eq!(
        c,
        Charge::Amended {
            text: "The referee corrects the position: REMOVED red 3".into(),
            lines: vec!["REMOVED red 3".into()],
        }
    );
    assert_eq!(c.kind(), "amended");
}

/// A Seven Years' War event is only read as one with its marker key: the
/// book's events are their own type, and a Charge! event is not one.
#[test]
fn a_charge_event_is_not_read_as_a_seven_years_war_one() {
    let charge = json!({"kind": "general_fit", "unit": "G1"});
    assert!(serde_json::from_value::<SywNote>(charge).is_err());
}
