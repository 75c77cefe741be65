//! Appendix 2 (issue 12): what a scenario file switches on or may not write
//! for the tiles' comments. A Flooded Field scenario (`flooded = true`)
//! floods every hex of open countryside; "Hedgerow Tiles may not have
//! roads" is answered with the hex's line and column; a scenario allows
//! airfield reinforcements (`[[airfield_reinforcements]]`).

use adjutant::rules::memoir44::{scenario, Hex, Ruleset};

const BASE: &str = r#"id = "polder"
name = "Polder"
ruleset = "memoir44"
victory = 4
first = "allies"
flooded = true

[[sides]]
id = "allies"
name = "Allies"
cards = 4

[[sides]]
id = "axis"
name = "Axis"
cards = 4

[terrain]
E3 = "road"
E4 = ["open", "railway"]
E5 = ["open", "wire"]
F5 = "hedgerow"

[[units]]
at = "E2"
side = "allies"
type = "infantry"

[[units]]
at = "E7"
side = "axis"
type = "infantry"
"#;

#[test]
fn a_flooded_field_scenario_floods_open_countryside_only() {
    let r = Ruleset::builtin().unwrap();
    let (_, st) = scenario::load(&r, BASE, "polder.toml").unwrap();
    let at = |s: &str| st.features(Hex::parse(s).unwrap()).to_vec();
    assert_eq!(at("E2"), vec!["flooded-field"], "open, with a unit");
    assert_eq!(at("A1"), vec!["flooded-field"], "open, empty");
    assert_eq!(at("E5"), vec!["flooded-field", "wire"], "open with wire");
    assert_eq!(at("E3"), vec!["road"], "roads are treated as normal");
    assert_eq!(at("E4"), vec!["railway"], "railways are treated as normal");
    assert_eq!(at("F5"), vec!["hedgerow"]);
    let dry = BASE.replacen("flooded = true\n", "", 1);
    let (_, st) = scenario::load(&r, &dry, "polder.toml").unwrap();
    assert!(st.features(Hex::parse("A1").unwrap()).is_empty());
}

#[test]
fn a_hedgerow_with_a_road_has_its_line_and_column() {
    let r = Ruleset::builtin().unwrap();
    for road in ["road", "road-rail-crossing", "road-over-hill"] {
        let bad = BASE.replacen(
            "F5 = \"hedgerow\"",
            &format!("F5 = [\"hedgerow\", \"{road}\"]"),
            1,
        );
        let line = BASE[..BASE.find("F5 = ").unwrap()].lines().count() + 1;
        let err = scenario::load(&r, &bad, "polder.toml")
            .map(|_| ())
            .unwrap_err()
            .to_string();
        assert!(err.contains("Hedgerow Tiles may not have roads"), "{err}");
        assert!(err.contains(&format!("polder.toml:{line}:")), "{err}");
    }
}

#[test]
fn airfield_reinforcements_are_read_and_a_wrong_type_has_its_line_and_column() {
    let r = Ruleset::builtin().unwrap();
    let good = format!(
        "{BASE}\n[[airfield_reinforcements]]\nside = \"allies\"\nunits = 2\ntype = \"elite\"\n"
    );
    let (_, st) = scenario::load(&r, &good, "polder.toml").unwrap();
    assert_eq!(st.reinforcements.len(), 1);
    assert_eq!(st.reinforcements[0].kind, "elite-infantry");
    assert_eq!(st.reinforcements[0].left, 2);
    let bad = good.replacen("type = \"elite\"", "type = \"armour\"", 1);
    let line = good[..good.find("type = \"elite\"").unwrap()]
        .lines()
        .count()
        + 1;
    let err = scenario::load(&r, &bad, "polder.toml")
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(err.contains("not an infantry unit type"), "{err}");
    assert!(err.contains(&format!("polder.toml:{line}:")), "{err}");
}
