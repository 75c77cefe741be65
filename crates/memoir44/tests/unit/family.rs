//! Unit tests of `src/lib.rs` (the family) (moved out of the crate so that the
//! library compiles once: docs/testing.md).

#[allow(unused_imports)]
use crate::prelude::*;
use adjutant_dice::ChaChaDice;
use adjutant_memoir44::*;

#[test]
fn every_scenario_sets_up() {
    let r = Ruleset::builtin().expect("ruleset");
    for id in scenario_ids() {
        let st = setup(&r, &id, &mut ChaChaDice::from_seed([1; 32]))
            .unwrap_or_else(|e| panic!("{id}: {e}"));
        assert_eq!(st.sides.len(), 2);
        let cards: usize =
            st.hands.iter().map(Vec::len).sum::<usize>() + st.deck.len() + st.discard.len();
        assert_eq!(cards, 60, "{id}");
        let json = serde_json::to_value(&st).expect("json");
        let back: State = serde_json::from_value(json).expect("back");
        assert_eq!(back, st);
        let map = render_text(&r, &st, &Viewer::Side(st.sides[0].clone()));
        assert!(map.contains(" 1 "), "{map}");
    }
}

#[test]
fn pegasus_matches_the_house_setup() {
    let r = Ruleset::builtin().expect("ruleset");
    let st = setup(&r, "pegasus-bridge", &mut ChaChaDice::from_seed([2; 32])).expect("setup");
    let count = |t: &str| {
        st.terrain
            .values()
            .filter(|v| v.iter().any(|x| x == t))
            .count()
    };
    assert_eq!((count("river"), count("town"), count("woods")), (20, 4, 9));
    assert_eq!(
        (count("bridge"), count("wire"), count("sandbag")),
        (2, 4, 1)
    );
    assert_eq!(st.hands[0].len(), 6);
    assert_eq!(st.hands[1].len(), 2);
    assert!(st.hands[1].iter().any(|c| c == "direct-from-hq"));
    assert_eq!(st.sides[st.to_move], "allies");
    assert_eq!(st.objectives.len(), 2);
    assert!(st
        .objectives
        .iter()
        .all(|o| st.sides[o.side] == "allies" && st.has_feature(o.at, "bridge")));
}

#[test]
fn scenario_errors_have_positions() {
    let r = Ruleset::builtin().expect("ruleset");
    let good = scenario::text("pegasus-bridge").unwrap_or_default();
    for (bad, want) in [
        (
            good.replace("type = \"armour\"", "type = \"panzer\""),
            "unknown unit type",
        ),
        (good.replace("at = \"K8\"", "at = \"M8\""), "off the board"),
        (good.replace("at = \"K8\"", "at = \"H8\""), "two units"),
        (
            good.replace("B5 = \"town\"", "B5 = \"swamp\""),
            "unknown terrain",
        ),
        (good.replace("victory = 4", "victory = "), ""),
    ] {
        match load_scenario(&r, &bad, "x.toml") {
            Err(DataError::At { line, message, .. }) => {
                assert!(line > 1, "{message}");
                assert!(message.contains(want), "{message}");
            }
            other => panic!("{want}: {other:?}"),
        }
    }
}

#[test]
fn junk_orders_never_panic() {
    use adjutant_dice::Dice;
    let r = Ruleset::builtin().expect("ruleset");
    let st = setup(&r, "pegasus-bridge", &mut ChaChaDice::from_seed([5; 32])).expect("setup");
    let words = [
        "PLAY",
        "ORDER",
        "MOVE",
        "BATTLE",
        "TARGET",
        "STANDING",
        "DISCARD",
        "EXCHANGE",
        "KEEP",
        "ALL",
        "TAKE-GROUND",
        "OVERRUN",
        "REMOVE-WIRE",
        "E4",
        "F4",
        "G4",
        "E5",
        "F5",
        "M9",
        "Z1",
        "A0",
        "",
        "probe-centre",
        "air-power",
        "counter-attack",
        "infantry-assault",
        "LEFT",
        "#",
        "-",
        "\u{0}",
        "NO-RETREAT",
        "AMBUSH",
        "\n",
        "\n",
        "\n",
    ];
    let mut rng = ChaChaDice::from_seed([6; 32]);
    for _ in 0..3000 {
        let n = rng.roll(12);
        let mut text = String::new();
        for _ in 0..n {
            text.push_str(words[(rng.roll(words.len() as u32) - 1) as usize]);
            text.push(' ');
        }
        let mut dice = ChaChaDice::from_seed([7; 32]);
        let mut deck = ChaChaDice::from_seed([8; 32]);
        let mut chance = Chance {
            dice: &mut dice,
            deck: &mut deck,
        };
        let hand = st.hands[0][(rng.roll(6) - 1) as usize].clone();
        let _ = adjudicate(&r, &st, "allies", &text, &mut chance);
        let _ = adjudicate(
            &r,
            &st,
            "allies",
            &format!("PLAY {hand}\n{text}"),
            &mut chance,
        );
    }
}
