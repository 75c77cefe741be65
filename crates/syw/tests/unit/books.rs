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

/// view.json (schema 2, docs/report-json.md) leaves out what the mail's
/// text already says, and only that: a unit's fields at their default and
/// an event's sentence (the report's line), never a field that says
/// something (issue 53, acceptance 3: Minden's view.json was 18 KB).
#[test]
fn view_json_leaves_out_only_what_the_report_already_says() {
    use adjutant_rules::Viewer;
    use adjutant_syw::events::{Syw, SywNote};
    let r = syw::builtin().expect("ruleset");
    let (id, text) = shipped("seven-years-war");
    let mut st = load(&r, text, id).expect("loads");
    st.units[1].broken = true;
    st.units[1].rest = 2;
    let moved = SywNote::new(
        "GENDARM forward 3\": now at (1\", 2\") facing 180\u{b0}, line".into(),
        Syw::Moved {
            unit: st.units[0].id.clone(),
            moved: 48,
            at: [16, 32],
            facing: 180,
            from: Some([16, 80]),
        },
    );
    let p = syw::report::parts(&r, &st, std::slice::from_ref(&moved), &Viewer::Observer);
    let v: serde_json::Value = serde_json::from_str(&p.json).expect("json");
    assert_eq!(v["schema"], 2);
    let (u0, u1) = (&v["units"][0], &v["units"][1]);
    for k in ["officers", "volleyed", "broken", "crossing", "rest"] {
        assert!(u0.get(k).is_none(), "{k} at its default left out: {u0}");
    }
    assert_eq!(u1["broken"], true, "{u1}");
    assert_eq!(u1["rest"], 2, "{u1}");
    for k in ["id", "name", "side", "front", "facing", "rf", "start_rf"] {
        assert!(u0.get(k).is_some(), "{k} kept: {u0}");
    }
    // Side 0 is a default value too, but a field that says something.
    assert_eq!(u0["side"], 0);
    let e = &v["last"][0];
    assert!(e.get("text").is_none() && e.get("syw").is_none(), "{e}");
    assert_eq!(e["kind"], "moved");
    assert_eq!(e["from"], serde_json::json!([16, 80]));
    // The sentence is the report's line.
    assert!(p.combat.contains("GENDARM forward 3\""), "{}", p.combat);
}
