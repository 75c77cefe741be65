//! Unit tests of `src/report/` (moved out of the crate: docs/testing.md).
//! Golden reports (insta): the maps, a combat report with every kind of
//! event, the order template and every mail template; and the column limits.

use adjutant_memoir44::events::Modifier;
use adjutant_memoir44::report::{combat, orders, parts, sample, textmap};
use adjutant_memoir44::view::{view, view_with_events, View};
use adjutant_memoir44::{Event, Hex};
use adjutant_rules::report::Templates;
use adjutant_rules::Viewer;
use serde_json::json;

fn h(s: &str) -> Hex {
    Hex::parse(s).expect("hex")
}

fn side(s: &str) -> Viewer {
    Viewer::Side(s.into())
}

fn standard_view(v: &Viewer) -> View {
    let s = sample::standard();
    view_with_events(&s.r, &s.state, v, &s.events)
}

/// One event of every kind, as an Allies turn: the turn's orders and
/// battles, then what follows them.
fn every_event() -> Vec<Event> {
    let mut v = battle_events();
    v.extend(later_events());
    v
}

/// The turn's card, a move and two battles with their losses and retreats.
fn battle_events() -> Vec<Event> {
    let a = || "allies".to_string();
    let x = || "axis".to_string();
    vec![
        Event::TurnBegun { turn: 7, side: a() },
        Event::CardPlayed {
            side: a(),
            card: "counter-attack".into(),
            section: Some("centre".into()),
            as_card: Some("attack-centre".into()),
        },
        Event::UnitOrdered {
            side: a(),
            unit: "infantry".into(),
            at: h("E3"),
        },
        Event::Move {
            side: a(),
            unit: "infantry".into(),
            path: vec![h("E3"), h("E4"), h("F5")],
        },
        Event::Battle {
            side: a(),
            attacker: "infantry".into(),
            from: Some(h("F5")),
            target: "infantry".into(),
            at: h("F7"),
            range: 2,
            how: "combat".into(),
            base_dice: 2,
            modifiers: vec![Modifier {
                dice: -1,
                reason: "target in woods".into(),
            }],
            dice: 1,
            faces: vec!["grenade".into()],
            hits: 1,
            flags: 0,
            ignored_flags: 0,
        },
        Event::FiguresLost {
            side: x(),
            unit: "infantry".into(),
            at: h("F7"),
            lost: 1,
            left: 3,
            reason: "hits".into(),
        },
        Event::Battle {
            side: a(),
            attacker: "medium-armour".into(),
            from: Some(h("H4")),
            target: "infantry".into(),
            at: h("H5"),
            range: 1,
            how: "close-assault".into(),
            base_dice: 3,
            modifiers: vec![],
            dice: 3,
            faces: vec!["flag".into(), "star".into(), "infantry".into()],
            hits: 1,
            flags: 1,
            ignored_flags: 0,
        },
        Event::Retreat {
            side: x(),
            unit: "infantry".into(),
            path: vec![h("H5"), h("H6")],
            blocked: 0,
            no_retreat: false,
        },
        Event::Retreat {
            side: x(),
            unit: "infantry".into(),
            path: vec![h("B8"), h("B9")],
            blocked: 1,
            no_retreat: false,
        },
        Event::Retreat {
            side: x(),
            unit: "infantry".into(),
            path: vec![h("C7")],
            blocked: 0,
            no_retreat: true,
        },
    ]
}

/// Ground taken, eliminations, medals, objectives, obstacles, cards and
/// the game's end.
fn later_events() -> Vec<Event> {
    let a = || "allies".to_string();
    let x = || "axis".to_string();
    vec![
        Event::TakeGround {
            side: a(),
            unit: "medium-armour".into(),
            from: h("H4"),
            to: h("H5"),
        },
        Event::Overrun {
            side: a(),
            unit: "medium-armour".into(),
            from: h("H5"),
            to: h("H6"),
        },
        Event::UnitEliminated {
            side: x(),
            unit: "infantry".into(),
            at: h("H6"),
            by: a(),
            medal: true,
        },
        Event::MedalGained {
            side: a(),
            medals: 2,
            reason: "infantry eliminated".into(),
        },
        Event::ObjectiveTaken {
            side: a(),
            at: h("E5"),
            held: true,
        },
        Event::ObjectiveTaken {
            side: x(),
            at: h("I5"),
            held: false,
        },
        Event::OrderSkipped {
            side: a(),
            order: "BATTLE H6 H7".into(),
            reason: "there is no enemy unit at H7 any more".into(),
        },
        Event::WireRemoved {
            at: h("D6"),
            by: "infantry".into(),
        },
        Event::SandbagPlaced { at: h("E3") },
        Event::SandbagRemoved { at: h("I9") },
        Event::FiguresReturned {
            side: a(),
            unit: "infantry".into(),
            at: h("E3"),
            returned: 1,
            now: 4,
            faces: vec!["infantry".into(), "star".into()],
        },
        Event::CrossHairPlaced {
            gun: h("B2"),
            target: h("D7"),
        },
        Event::AmbushPlayed {
            side: x(),
            at: h("H5"),
        },
        Event::OrdersByDice {
            side: a(),
            faces: vec!["infantry".into(), "star".into()],
            ordered: vec![h("E3"), h("F3")],
        },
        Event::CardsExchanged {
            side: a(),
            shown: vec!["probe-centre".into()],
            taken: vec![("ambush".into(), "probe-centre".into())],
        },
        Event::CardDiscarded {
            side: a(),
            card: "recon-centre".into(),
            private: true,
        },
        Event::DeckReshuffled { cards: 40 },
        Event::CardDrawn {
            side: a(),
            card: "air-power".into(),
            private: true,
        },
        Event::CardDrawn {
            side: x(),
            card: "barrage".into(),
            private: true,
        },
        Event::VictoryReached {
            side: a(),
            medals: 4,
            last_turn_for: Some(x()),
        },
        Event::GameOver {
            winner: Some(a()),
            score: vec![(a(), 9), (x(), 4)],
            reason: "4 medals".into(),
        },
    ]
}

#[test]
fn text_map_allies() {
    insta::assert_snapshot!(textmap::position(&standard_view(&side("allies"))));
}

#[test]
fn text_map_axis() {
    insta::assert_snapshot!(textmap::position(&standard_view(&side("axis"))));
}

#[test]
fn text_map_referee() {
    insta::assert_snapshot!(textmap::position(&standard_view(&Viewer::Referee)));
}

#[test]
fn compact_map() {
    insta::assert_snapshot!(textmap::compact_position(&standard_view(&side("axis"))));
}

fn every_event_view(v: &Viewer) -> View {
    let s = sample::standard();
    let mut vw = view(&s.r, &s.state, v);
    vw.last_turn = adjutant_memoir44::view::visible_events(&every_event(), v);
    vw
}

#[test]
fn combat_report_to_the_side_that_waited() {
    insta::assert_snapshot!(combat::report(&every_event_view(&side("axis")), "allies"));
}

#[test]
fn combat_report_to_the_mover() {
    insta::assert_snapshot!(combat::report(&every_event_view(&side("allies")), "allies"));
}

#[test]
fn order_template() {
    let s = sample::standard();
    let to_move = s.state.sides[s.state.to_move].clone();
    let v = view(&s.r, &s.state, &side(&to_move));
    insta::assert_snapshot!(orders::template(&v).expect("the side to move gets a template"));
    let other = s.state.sides[1 - s.state.to_move].clone();
    assert!(orders::template(&view(&s.r, &s.state, &side(&other))).is_none());
}

const HASH: &str = "3f1c0a9e5b7d2468ace13579bdf02468ace13579bdf02468ace13579bdf0246a";

/// Every template rendered with a realistic context (the sample game).
fn every_mail() -> Vec<(&'static str, String)> {
    let t = Templates::shipped();
    let s = sample::standard();
    let to_move = s.state.sides[s.state.to_move].clone();
    let v = view_with_events(&s.r, &s.state, &side(&to_move), &s.events);
    let p = parts(&v, Some(&s.mover));
    vec![
        ("welcome", t.render("welcome.txt", json!({
            "game_id": 3, "scenario": "pegasus-bridge", "ruleset": "memoir44",
            "side": to_move, "others": ["axis"], "secret": "k3x9v2pq",
            "deadline": "3 days; the first is Mon 26 Oct 2026 12:00 GMT (12:00 UTC)",
            "seed_commitment": HASH, "turn_commitment": HASH, "next_turn": 1,
            "waiting": "Waiting for: allies (allies to play a card and order units)",
            "map": p.map, "orders_template": p.orders, "state_hash": HASH,
        }))),
        ("receipt", t.render("receipt.txt", json!({
            "game_id": 3, "side": "allies", "turn": 13,
            "orders": ["PLAY probe-centre", "ORDER E3 F3", "MOVE E3 E4", "BATTLE E4 E6"],
            "state_hash": HASH,
        }))),
        ("error", t.render("error.txt", json!({
            "intro": "Your orders were not used:",
            "problems": ["line 3: \"MOVE E3 E9\": E9 is 6 hexes away; infantry moves 1 hex and battles, or 2 and does not battle."],
            "outro": "Send the whole set again.",
        }))),
        ("turn_report", t.render("turn_report.txt", json!({
            "game_id": 3, "scenario": "pegasus-bridge", "turn": s.state.turn, "mover": s.mover,
            "events": [], "combat": p.combat, "map": p.map, "orders_template": p.orders,
            "over": false, "result": "", "seed": "",
            "waiting": "Waiting for: allies (allies to play a card and order units)",
            "deadline": "Thu 29 Oct 2026 12:00 GMT (12:00 UTC)",
            "turn_seed": HASH, "next_commitment": HASH, "state_hash": HASH,
        }))),
        ("turn_report_over", t.render("turn_report.txt", json!({
            "game_id": 3, "scenario": "pegasus-bridge", "turn": 30, "mover": "axis",
            "events": [], "combat": "", "map": "(map)\n", "orders_template": null,
            "over": true, "result": "axis wins.", "seed": HASH,
            "waiting": "The game is over.", "deadline": null,
            "turn_seed": HASH, "next_commitment": HASH, "state_hash": HASH,
        }))),
        ("reminder", t.render("reminder.txt", json!({
            "game_id": 3, "scenario": "pegasus-bridge", "side": "allies",
            "deadline": "Thu 29 Oct 2026 12:00 GMT (12:00 UTC)",
        }))),
        ("game_over", t.render("game_over.txt", json!({
            "game_id": 3, "scenario": "pegasus-bridge", "result": "axis resigned; allies wins.", "seed": HASH,
        }))),
        ("status", t.render("status.txt", json!({
            "games": [{"id": 3, "scenario": "pegasus-bridge", "side": "allies", "turn": 12,
                       "waiting": "Waiting for: allies (allies to play a card and order units)", "secret": "k7m2p9qx"}],
        }))),
        ("status_none", t.render("status.txt", json!({"games": []}))),
    ]
}

#[test]
fn every_template() {
    for (name, text) in every_mail() {
        insta::assert_snapshot!(name, text);
    }
}

#[test]
fn every_line_of_every_text_mail_fits_80_columns() {
    let mut texts = every_mail();
    for v in [
        side("allies"),
        side("axis"),
        Viewer::Referee,
        Viewer::Observer,
    ] {
        let s = sample::standard();
        let vw = view_with_events(&s.r, &s.state, &v, &s.events);
        let p = parts(&vw, Some(&s.mover));
        texts.push(("map", p.map));
        texts.push(("combat", p.combat));
        texts.push(("orders", p.orders.unwrap_or_default()));
        texts.push((
            "every-event",
            combat::report(&every_event_view(&v), "allies"),
        ));
        for l in p.compact.lines() {
            assert!(l.chars().count() <= 40, "compact map line over 40: {l:?}");
        }
    }
    for (name, t) in texts {
        for l in t.lines() {
            assert!(
                l.chars().count() <= 80,
                "{name}: line over 80 columns: {l:?}"
            );
        }
    }
}

#[test]
fn views_hide_what_they_must() {
    let s = sample::standard();
    let axis = view(&s.r, &s.state, &side("axis"));
    assert!(axis.sides[0].hand.is_none() && axis.sides[1].hand.is_some());
    let obs = view(&s.r, &s.state, &Viewer::Observer);
    assert!(obs.sides.iter().all(|x| x.hand.is_none()));
    let rf = view(&s.r, &s.state, &Viewer::Referee);
    assert!(rf.sides.iter().all(|x| x.hand.is_some()));
    let json = serde_json::to_string(&every_event_view(&side("axis"))).expect("json");
    assert!(json.contains("\"hidden\""));
    assert!(!json.contains("air-power"), "the allies' drawn card leaked");
    assert!(
        !json.contains("recon-centre\",\"private\""),
        "a face-down discard leaked"
    );
}

#[test]
fn a_hex_name_reads_as_one_word_i9_not_i_9() {
    use adjutant_memoir44::report::svg::name_centres;
    // Issue 53 item 7: "I9" was drawn with its characters 5 apart, the
    // narrow I leaving a visible gap.
    let x = name_centres("I9", 100);
    assert!(x[1] - x[0] <= 4, "{x:?}");
    // A wide letter keeps its room, and each name stays centred.
    let x = name_centres("M9", 100);
    assert!(x[1] - x[0] >= 5, "{x:?}");
    assert!((x[0] + x[1] - 200).abs() <= 2, "{x:?}");
}
