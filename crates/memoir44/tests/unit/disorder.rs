//! Unit tests of `src/disorder.rs` (moved out of the crate so that the
//! library compiles once: docs/testing.md).

#[allow(unused_imports)]
use crate::prelude::*;
use adjutant_memoir44::{scenario, Ruleset};

fn file(extra: &str) -> String {
    format!(
        "id = \"x\"\nruleset = \"memoir44\"\nname = \"x\"\nvictory = 4\nfirst = \"allies\"\n\
         [[sides]]\nid = \"allies\"\n[[sides]]\nid = \"axis\"\n\
         [[units]]\nat = \"E2\"\nside = \"allies\"\ntype = \"infantry\"\n\
         [[units]]\nat = \"F8\"\nside = \"axis\"\ntype = \"armour\"\n\
         [[demoralisation]]\n{extra}"
    )
}

fn refused(extra: &str) -> String {
    let r = Ruleset::builtin().unwrap();
    crate::prelude::refused(&r, &file(extra), "d.toml")
}

/// "by a factor of 1 ... Only in exceptional cases of near-collapse
/// should these be reduced by a factor of 2": a factor 3 is refused at
/// its line.
#[test]
fn a_factor_other_than_one_or_two_is_refused_at_its_line() {
    let e = refused("side = \"axis\"\nfactor = 3\n");
    assert!(e.contains("d.toml:20:10") && e.contains("factor 3"), "{e}");
}

/// "Effected Units should be clearly defined": a selector that is not a
/// class or a unit type, a hex without a unit of the side, a selector
/// naming no unit on the board, are each refused at their line.
#[test]
fn affected_units_must_be_clearly_defined() {
    let e = refused("side = \"axis\"\nunits = \"rumanians\"\n");
    assert!(e.contains("d.toml:20:9") && e.contains("rumanians"), "{e}");
    let e = refused("side = \"axis\"\nat = [\"E2\"]\n");
    assert!(
        e.contains("d.toml:20:7") && e.contains("no unit of axis"),
        "{e}"
    );
    let e = refused("side = \"axis\"\nunits = \"infantry\"\n");
    assert!(e.contains("d.toml:20:9") && e.contains("no unit"), "{e}");
    let e = refused("side = \"russians\"\n");
    assert!(e.contains("d.toml:19:8"), "{e}");
}

/// A club's ruleset that does not play the optional rule refuses it.
#[test]
fn a_ruleset_without_the_option_refuses_it() {
    let mut r = Ruleset::builtin().unwrap();
    r.options.demoralisation = false;
    let e = crate::prelude::refused(&r, &file("side = \"axis\"\n"), "d.toml");
    assert!(
        e.contains("d.toml:19:8") && e.contains("Demoralisation"),
        "{e}"
    );
}

/// The game option sets and clears the units, figures included.
#[test]
fn the_game_option_sets_and_clears() {
    let r = Ruleset::builtin().unwrap();
    let (_, mut st) = scenario::load(&r, &file("side = \"axis\"\n"), "d.toml").unwrap();
    assert_eq!(st.units[1].figures, 2);
    adjutant_memoir44::disorder::set_option(&r, &mut st, "allies:infantry:2").unwrap();
    assert_eq!((st.units[0].figures, st.units[1].figures), (2, 3));
    adjutant_memoir44::disorder::set_option(&r, &mut st, "none").unwrap();
    assert_eq!((st.units[0].figures, st.units[1].figures), (4, 3));
    assert!(st.disorder.is_empty());
    assert!(adjutant_memoir44::disorder::set_option(&r, &mut st, "axis:infantry").is_err());
    assert!(adjutant_memoir44::disorder::set_option(&r, &mut st, "axis:3").is_err());
}
