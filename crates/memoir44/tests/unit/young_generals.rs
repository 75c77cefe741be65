//! Unit tests of `src/lib.rs` (moved out of the crate so that the
//! library compiles once: docs/testing.md).

#[allow(unused_imports)]
use crate::prelude::*;
use adjutant_memoir44::*;

#[test]
fn young_generals_keep_section_cards_only_and_full_hands() {
    let r = Ruleset::builtin().unwrap();
    let mut deck = ChaChaDice::from_seed([7; 32]);
    let mut st = setup(&r, "pegasus-bridge", &mut deck).unwrap();
    let sizes: Vec<usize> = st.hands.iter().map(Vec::len).collect();
    young_generals(&r, &mut st);
    assert!(st.young_generals);
    let section = |c: &String| r.card(c).is_some_and(|s| s.kind == "section");
    for (i, h) in st.hands.iter().enumerate() {
        assert_eq!(h.len(), sizes[i], "hand {i} is full again");
        assert!(h.iter().all(section), "{h:?}");
    }
    assert!(st.deck.iter().all(section));
    let total = st.deck.len() + st.discard.len() + st.hands.iter().map(Vec::len).sum::<usize>();
    assert_eq!(total, 40, "the 40 section cards stay in the game");
}

/// docs/orders.md, "Deadlines": the pass is the first card of the hand
/// that can be played ordering no unit, a card that names a section on
/// the first section where it can be; with none, there is no pass.
#[test]
fn the_pass_plays_a_card_that_names_a_section() {
    let r = Ruleset::builtin().unwrap();
    let mut st = setup(&r, "pegasus-bridge", &mut ChaChaDice::from_seed([7; 32])).unwrap();
    let allies = st.side_index("allies").unwrap();
    st.to_move = allies;
    let hand = |names: &[&str]| names.iter().map(|c| c.to_string()).collect::<Vec<_>>();
    st.hands[allies] = hand(&["air-power", "infantry-assault", "recon-left"]);
    assert_eq!(
        Family::pass_orders(&r, &st, "allies").as_deref(),
        Some("PLAY infantry-assault LEFT\n")
    );
    // Nothing to aim these at without ORDER or TARGET lines, and no
    // unit has lost a figure at the set-up.
    st.hands[allies] = hand(&["air-power", "barrage", "medics-and-mechanics"]);
    assert_eq!(Family::pass_orders(&r, &st, "allies"), None);
}

#[test]
fn army_manoeuvres_are_game_options_of_the_ruleset() {
    let r = Ruleset::builtin().unwrap();
    let mut scen = Scenario::shipped("pegasus-bridge");
    scen.options.insert("colonel-blimp".into(), String::new());
    scen.options.insert("general-melchett".into(), "yes".into());
    let mut deck = ChaChaDice::from_seed([7; 32]);
    let st = Family::setup(&r, &scen, &mut deck).unwrap();
    assert!(st.plays("colonel-blimp") && st.plays("general-melchett"));
    assert!(!st.plays("colonel-chapman"));
    assert_eq!(st.manoeuvres_used, vec![Vec::<String>::new(); 2]);
    scen.options
        .insert("colonel-chapman".into(), "perhaps".into());
    let e = Family::setup(&r, &scen, &mut deck).unwrap_err().to_string();
    assert!(
        e.contains("colonel-chapman") && e.contains("not true or false"),
        "{e}"
    );
    scen.options.insert("colonel-bimp".into(), String::new());
    let e = Family::setup(&r, &scen, &mut deck).unwrap_err().to_string();
    assert!(
        e.contains("unknown game option") && e.contains("colonel-blimp"),
        "{e}"
    );
}
