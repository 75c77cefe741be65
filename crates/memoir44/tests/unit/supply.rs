//! Unit tests of `src/supply.rs` (moved out of the crate so that the
//! library compiles once: docs/testing.md).

#[allow(unused_imports)]
use crate::prelude::*;
use adjutant_memoir44::{scenario, Ruleset};

fn text(extra: &str) -> String {
    format!(
        "id = \"x\"\nruleset = \"memoir44\"\nname = \"x\"\nvictory = 4\nfirst = \"allies\"\n\
         [[sides]]\nid = \"allies\"\n[[sides]]\nid = \"axis\"\n\
         [terrain]\nG5 = \"woods\"\nE1 = \"road\"\n\
         [[units]]\nat = \"E2\"\nside = \"allies\"\ntype = \"infantry\"\n{extra}"
    )
}

/// A scenario's exclusions name units; a hex without one is refused at
/// its line and column.
#[test]
fn an_exclusion_without_a_unit_is_refused_at_its_line() {
    let r = Ruleset::builtin().unwrap();
    let e = refusal(&r, &text("[supply]\nexempt = [\"E2\", \"H4\"]\n"));
    assert!(
        e.contains("f.toml:18:17") && e.contains("no unit at H4"),
        "{e}"
    );
    let e = refusal(&r, &text("[supply]\nno_railways = [\"russians\"]\n"));
    assert!(
        e.contains("f.toml:18:") && e.contains("unknown side"),
        "{e}"
    );
    assert!(scenario::load(&r, &text("[supply]\nexempt = [\"E2\"]\n"), "f.toml").is_ok());
}

/// "Place a Battle Star on an Open Countryside hex": a Drop-Zone in
/// woods, without a side, or without the Supply rules is refused.
#[test]
fn a_drop_zone_is_checked_where_it_is_placed() {
    let r = Ruleset::builtin().unwrap();
    let star = |at: &str, side: &str| {
        format!("[[battle_stars]]\nkind = \"drop-zone\"\nat = \"{at}\"\n{side}")
    };
    let e = refusal(
        &r,
        &text(&format!("[supply]\n{}", star("G5", "side = \"allies\"\n"))),
    );
    assert!(
        e.contains("f.toml:20:6") && e.contains("Open Countryside"),
        "{e}"
    );
    let e = refusal(&r, &text(&format!("[supply]\n{}", star("F5", ""))));
    assert!(
        e.contains("f.toml:19:") && e.contains("names the side"),
        "{e}"
    );
    let e = refusal(&r, &text(&star("F5", "side = \"allies\"\n")));
    assert!(
        e.contains("f.toml:18:") && e.contains("Supply Lines"),
        "{e}"
    );
    assert!(scenario::load(
        &r,
        &text(&format!("[supply]\n{}", star("F5", "side = \"allies\"\n"))),
        "f.toml"
    )
    .is_ok());
}

/// A club's ruleset that does not play the optional rule refuses a
/// scenario's [supply] and the game option.
#[test]
fn a_ruleset_without_the_option_refuses_supply() {
    let mut r = Ruleset::builtin().unwrap();
    r.options.supply_lines = false;
    let e = refusal(&r, &text("[supply]\n"));
    assert!(
        e.contains("f.toml:17:") && e.contains("Supply Lines & Sieges"),
        "{e}"
    );
    let (_, mut st) = scenario::load(&r, &text(""), "f.toml").unwrap();
    assert!(adjutant_memoir44::supply::set(&r, &mut st, Some(vec![0, 1])).is_err());
    assert!(adjutant_memoir44::supply::set(&r, &mut st, None).is_ok());
}

/// The game option: every side, one side, or off.
#[test]
fn the_game_option_names_the_sides() {
    let r = Ruleset::builtin().unwrap();
    let (_, st) = scenario::load(&r, &text(""), "f.toml").unwrap();
    assert_eq!(
        adjutant_memoir44::supply::parse_option(&st, ""),
        Ok(Some(vec![0, 1]))
    );
    assert_eq!(
        adjutant_memoir44::supply::parse_option(&st, "Axis"),
        Ok(Some(vec![1]))
    );
    assert_eq!(
        adjutant_memoir44::supply::parse_option(&st, "false"),
        Ok(None)
    );
    assert!(adjutant_memoir44::supply::parse_option(&st, "russians").is_err());
}
