//! Unit tests of `src/commissar.rs` (moved out of the crate so that the
//! library compiles once: docs/testing.md).

#[allow(unused_imports)]
use crate::prelude::*;
use adjutant_memoir44::{scenario, Ruleset};

fn file(side: &str) -> String {
    format!(
        "id = \"x\"\nruleset = \"memoir44\"\nname = \"x\"\nvictory = 4\nfirst = \"allies\"\n\
         commissar = \"{side}\"\n\
         [[sides]]\nid = \"allies\"\n[[sides]]\nid = \"axis\"\n"
    )
}

/// A scenario names the Russian side; a wrong one, or a ruleset that
/// does not play the rule, is refused at its line.
#[test]
fn the_scenario_names_the_side_with_line_column_errors() {
    let mut r = Ruleset::builtin().unwrap();
    let (_, st) = scenario::load(&r, &file("allies"), "c.toml").unwrap();
    assert_eq!(st.commissar.map(|c| c.side), Some(0));
    let e = refused(&r, &file("russians"), "c.toml");
    assert!(e.contains("c.toml:6:13") && e.contains("russians"), "{e}");
    r.options.political_commissar = false;
    let e = refused(&r, &file("allies"), "c.toml");
    assert!(
        e.contains("c.toml:6:13") && e.contains("Political Commissar"),
        "{e}"
    );
}

/// The game option gives the marker or takes it away (its card back to
/// the hand).
#[test]
fn the_game_option_sets_and_clears() {
    let r = Ruleset::builtin().unwrap();
    let (_, mut st) = scenario::load(&r, &file("allies"), "c.toml").unwrap();
    adjutant_memoir44::commissar::set_option(&r, &mut st, "axis").unwrap();
    assert_eq!(st.commissar.as_ref().map(|c| c.side), Some(1));
    st.commissar.as_mut().unwrap().card = Some("probe-centre".into());
    adjutant_memoir44::commissar::set_option(&r, &mut st, "none").unwrap();
    assert!(st.commissar.is_none());
    assert_eq!(st.hands[1], vec!["probe-centre".to_string()]);
    assert!(adjutant_memoir44::commissar::set_option(&r, &mut st, "russians").is_err());
}
