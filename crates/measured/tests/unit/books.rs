//! Charge!'s parts of the measured core's types (`src/charge/book.rs`):
//! a stored position keeps its bytes. The book's fields
//! are flattened into the unit's and the position's JSON where the shared
//! struct had them, so a game stored before the parts were the books' own
//! reads and writes the same text (the golden corpus holds the states'
//! hashes; this holds the fields' order and the round trip).

use adjutant_measured::charge::book::SHIPPED;
use adjutant_measured::state::load;
use adjutant_measured::ChargeRuleset;

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
fn a_charge_position_carries_no_seven_years_war_field() {
    let r = adjutant_measured::Ruleset::builtin("charge").expect("ruleset");
    let (id, text) = shipped("charge");
    let mut st = load(&r, text, id).expect("loads");
    st.units[0].rallying = Some(2);
    let json = serde_json::to_string(&st).expect("serializes");
    for key in ["experience", "brigade", "marker", "syw"] {
        assert!(!json.contains(&format!("\"{key}\"")), "{key} in {json}");
    }
    let unit = serde_json::to_string(&st.units[0]).expect("serializes");
    assert!(at(&unit, "rest") < at(&unit, "rallying"), "{unit}");
    assert!(unit.ends_with("\"rallying\":2}"), "{unit}");
    let back: adjutant_measured::charge::State = serde_json::from_str(&json).expect("reads back");
    assert_eq!(back, st);
    assert_eq!(serde_json::to_string(&back).expect("serializes"), json);
}
