//! Unit tests of `src/events.rs` (moved out of the crate so that the
//! library compiles once: docs/testing.md).

use adjutant_measured::events::Charge;
use adjutant_measured::Book;
use serde_json::json;

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
