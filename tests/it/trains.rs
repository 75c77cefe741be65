//! Appendix 2 (issue 12), Trains, Railway Engines and Wagons: scenario files
//! name trains (`wagon`, `carries`) and a wrong one is answered with its line
//! and column; the rules the cases cannot reach (a train that lost its wagon
//! or its artillery model part-way through a game).

use adjutant::rules::memoir44::battle::{target_check, Ctx};
use adjutant::rules::memoir44::{scenario, trains, Hex, Ruleset, State};

const SCENARIO: &str = r#"id = "train-test"
name = "Train test"
ruleset = "memoir44"
victory = 4
first = "allies"

[[sides]]
id = "allies"
name = "Allies"
cards = 4

[[sides]]
id = "axis"
name = "Axis"
cards = 4

[terrain]
B3 = "station"
C3 = ["open", "railway"]
D3 = ["open", "railway"]
E3 = ["open", "railway"]
F3 = ["open", "railway"]
G3 = ["open", "railway"]
H3 = ["open", "railway"]

[[units]]
at = "E3"
side = "allies"
type = "supply-train"
wagon = "D3"
carries = ["infantry", "armour"]

[[units]]
at = "G3"
side = "axis"
type = "armoured-train"
wagon = "H3"

[[units]]
at = "G5"
side = "axis"
type = "infantry"
"#;

fn load(text: &str) -> Result<State, String> {
    let r = Ruleset::builtin().unwrap();
    scenario::load(&r, text, "train.toml")
        .map(|(_, st)| st)
        .map_err(|e| e.to_string())
}

/// The error is on the line of `from` in `text` (the changed line) or on
/// the placement's own lines just before it.
fn near(err: &str, text: &str, from: &str) {
    let line = text[..text.find(from).unwrap()].lines().count() + 1;
    let at: Vec<&str> = err.split(':').collect();
    let got: usize = at
        .iter()
        .position(|p| p.ends_with("train.toml"))
        .and_then(|i| at.get(i + 1))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(0);
    assert!(
        got + 4 >= line && got <= line + 1,
        "line {got}, want about {line}: {err}"
    );
}

fn h(s: &str) -> Hex {
    Hex::parse(s).unwrap()
}

#[test]
fn a_scenario_places_trains_and_a_wrong_one_has_its_line_and_column() {
    let st = load(SCENARIO).unwrap();
    let sup = st.unit_at(h("E3")).unwrap();
    assert_eq!(
        st.unit_at(h("D3")).map(|u| u.id),
        Some(sup.id),
        "the wagon holds D3"
    );
    let t = sup.train.as_ref().unwrap();
    assert_eq!(t.cargo, vec!["infantry", "medium-armour"]);
    assert!(!t.gun);
    assert!(st.unit_at(h("G3")).unwrap().train.as_ref().unwrap().gun);
    for (from, to, want) in [
        ("wagon = \"D3\"", "wagon = \"E4\"", "next to the engine"),
        ("wagon = \"D3\"", "wagon = \"Q3\"", "off the board"),
        ("\"armour\"]", "\"armor-x\"]", "unknown unit type 'armor-x'"),
        ("wagon = \"H3\"\n", "", "needs its wagon"),
        (
            "type = \"infantry\"\n",
            "type = \"infantry\"\nwagon = \"G6\"\n",
            "only a train has a wagon",
        ),
        (
            "wagon = \"H3\"\n",
            "wagon = \"H3\"\ncarries = [\"infantry\"]\n",
            "carries its Artillery model",
        ),
        ("at = \"E3\"", "at = \"A5\"", "has none"),
    ] {
        let bad = SCENARIO.replacen(from, to, 1);
        assert_ne!(bad, SCENARIO);
        let err = load(&bad).unwrap_err();
        assert!(err.contains(want), "{err}");
        near(&err, SCENARIO, from);
    }
}

/// "Trains may also be mission objectives": a scenario writes `objective`
/// on a train (the train itself, or a hex of its tracks to reach), and a
/// wrong one is answered with its line and column.
#[test]
fn a_scenario_makes_trains_mission_objectives_and_a_wrong_one_has_its_line() {
    let text = SCENARIO
        .replacen(
            "carries = [\"infantry\", \"armour\"]\n",
            "carries = [\"infantry\", \"armour\"]\nobjective = { reach = \"B3\", medals = 2 }\n",
            1,
        )
        .replacen(
            "wagon = \"H3\"\n",
            "wagon = \"H3\"\nobjective = { medals = 3 }\n",
            1,
        );
    let st = load(&text).unwrap();
    let mission = |at: &str| {
        st.unit_at(h(at))
            .and_then(|u| u.train.as_ref())
            .and_then(|t| t.mission.clone())
            .unwrap()
    };
    assert_eq!(mission("E3").reach, Some(h("B3")));
    assert_eq!(mission("E3").medals, 2);
    assert_eq!(mission("G3").reach, None);
    assert_eq!(mission("G3").medals, 3);
    for (from, to, want) in [
        ("reach = \"B3\"", "reach = \"B5\"", "a hex of its tracks"),
        ("reach = \"B3\"", "reach = \"E3\"", "already stands on E3"),
        ("reach = \"B3\"", "reach = \"Z3\"", "off the board"),
        ("medals = 3", "medals = 0", "at least 1 medal"),
        ("medals = 3", "medal = 3", "unknown field `medal`"),
        (
            "type = \"infantry\"\n",
            "type = \"infantry\"\nobjective = { medals = 1 }\n",
            "only a train is a mission objective",
        ),
    ] {
        let bad = text.replacen(from, to, 1);
        assert_ne!(bad, text);
        let err = load(&bad).unwrap_err();
        assert!(err.contains(want), "{want}: {err}");
        near(&err, &text, from);
    }
}

#[test]
fn an_armoured_train_that_lost_its_artillery_model_does_not_battle() {
    let r = Ruleset::builtin().unwrap();
    let ctx = Ctx::new(&r);
    let mut st = load(SCENARIO).unwrap();
    let gun = st.unit_at(h("G3")).unwrap().clone();
    // With its model it may battle the supply train at E3 (range 2 from G3).
    assert_eq!(target_check(&ctx, &st, &gun, h("E3")), Ok(()));
    st.unit_mut(gun.id).unwrap().train.as_mut().unwrap().gun = false;
    let gun = st.unit(gun.id).unwrap().clone();
    let why = target_check(&ctx, &st, &gun, h("E3")).unwrap_err();
    assert!(why.contains("Artillery model is lost"), "{why}");
}

#[test]
fn a_train_without_its_wagon_moves_backwards_and_still_faces_the_same_way() {
    let r = Ruleset::builtin().unwrap();
    let ctx = Ctx::new(&r);
    // Three hits: the wagon is gone; `wagon` names the hex behind the engine.
    let text = SCENARIO.replacen(
        "wagon = \"D3\"\ncarries = [\"infantry\", \"armour\"]",
        "wagon = \"D3\"\nfigures = 1",
        1,
    );
    let mut st = load(&text).unwrap();
    let u = st.unit_at(h("E3")).unwrap().clone();
    assert!(st.unit_at(h("D3")).is_none(), "no wagon on D3");
    let path = [h("E3"), h("D3"), h("C3")];
    assert!(trains::check_move(&ctx, &st, &u, &path, 3).is_ok());
    trains::moved(&ctx, &mut st, &u, &path);
    let u = st.unit(u.id).unwrap();
    assert_eq!(u.at, h("C3"));
    // Still facing east: the hex behind it is B3, further west.
    assert_eq!(u.train.as_ref().unwrap().rear, h("B3"));
    // Forwards again: from C3 the line runs east, D3 then E3.
    let fwd = [h("C3"), h("D3"), h("E3")];
    assert!(trains::check_move(&ctx, &st, u, &fwd, 3).is_ok());
    // A train never turns back within one move.
    let back = [h("C3"), h("D3"), h("C3")];
    assert!(trains::check_move(&ctx, &st, u, &back, 3).is_err());
}
