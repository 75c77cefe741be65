//! The Seven Years' War's parts of the measured core's types (`src/book.rs`):
//! a stored position keeps its bytes. The book's fields
//! are flattened into the unit's and the position's JSON where the shared
//! struct had them, so a game stored before the parts were the books' own
//! reads and writes the same text (the golden corpus holds the states'
//! hashes; this holds the fields' order and the round trip).

use adjutant_syw::book::SHIPPED;
use adjutant_syw::state::load;
use adjutant_syw::{self as syw, Refusal};

fn shipped(ruleset: &str) -> (&'static str, &'static str) {
    let (id, _, text) = SHIPPED
        .iter()
        .find(|(_, rs, _)| *rs == ruleset)
        .expect("a shipped scenario");
    (id, text)
}

/// Where `key` starts in `json` (a key of the first unit).
fn at(json: &str, key: &str) -> usize {
    json.find(&format!("\"{key}\":"))
        .unwrap_or_else(|| panic!("no {key} in {json}"))
}

#[test]
fn a_seven_years_war_position_keeps_its_stored_fields_and_their_order() {
    let r = syw::builtin().expect("ruleset");
    let (id, text) = shipped("seven-years-war");
    let mut st = load(&r, text, id).expect("loads");
    st.syw.get_or_insert_with(Box::default).active = 1;
    let u = &mut st.units[0];
    u.regiment = "R1".into();
    u.refused = vec![Refusal {
        end: "left".into(),
        files: 2,
        angle: -90,
    }];
    u.marker = Some("orange".into());
    u.tested = 3;
    u.routed_before = true;
    let json = serde_json::to_string(&st).expect("serializes");
    let unit = serde_json::to_string(&st.units[0]).expect("serializes");
    // The order the shared unit had: its own fields, then the book's.
    let keys = [
        "id",
        "rest",
        "experience",
        "brigade",
        "regiment",
        "refused",
        "marker",
        "tested",
        "routed_before",
    ];
    for w in keys.windows(2) {
        assert!(at(&unit, w[0]) < at(&unit, w[1]), "{w:?} in {unit}");
    }
    assert!(!unit.contains("\"rallying\""), "no Charge! field: {unit}");
    // The position's own part last, after the winner, as `syw` was.
    assert!(at(&json, "winner") < at(&json, "syw"), "{json}");
    let back: syw::State = serde_json::from_str(&json).expect("reads back");
    assert_eq!(back, st);
    assert_eq!(serde_json::to_string(&back).expect("serializes"), json);
}
