//! Unit tests of `src/ruleset.rs` (moved out of the crate so that the
//! library compiles once: docs/testing.md).

#[allow(unused_imports)]
use crate::prelude::*;
use adjutant_memoir44::ruleset::*;

#[test]
fn builtin_loads() {
    let r = Ruleset::builtin().expect("ruleset");
    assert_eq!(r.deck().len(), 60);
    let tactic: u32 = r
        .cards
        .iter()
        .filter(|c| c.kind == "tactic")
        .map(|c| c.count)
        .sum();
    assert_eq!(tactic, 20);
    assert_eq!(r.unit_id("Armor").as_deref(), Some("medium-armour"));
    assert_eq!(
        r.card_id("armour-assault").as_deref(),
        Some("armor-assault")
    );
    assert_eq!(r.face_value("flag"), Some(6));
    let sniper = r.unit("sniper").expect("sniper");
    assert_eq!(sniper.figures, 1);
    assert!(!sniper.medal && !sniper.flag_losses);
    assert_eq!(sniper.retreat_up_to, Some(3));
    assert_eq!(r.unit_id("La-Resistance").as_deref(), Some("resistance"));
}

#[test]
fn errors_have_positions() {
    let text = BUILTIN.replace(
        "class = \"armour\"\nfigures = 2",
        "class = \"tank\"\nfigures = 2",
    );
    match Ruleset::from_toml(&text, "x.toml") {
        Err(DataError::At { line, message, .. }) => {
            assert!(line > 1);
            assert!(message.contains("unknown class"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    let text = BUILTIN.replace(
        "hit_only_by = [\"grenade\"]",
        "hit_only_by = [\"grenades\"]",
    );
    match Ruleset::from_toml(&text, "z.toml") {
        Err(DataError::At { line, message, .. }) => {
            assert!(line > 1);
            assert!(message.contains("unknown die face"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    // A manoeuvre card must name a variant of the [variants] table.
    let text = BUILTIN.replace(
        "variant = \"general-melchett\"",
        "variant = \"general-melchet\"",
    );
    match Ruleset::from_toml(&text, "m.toml") {
        Err(DataError::At { line, message, .. }) => {
            assert!(line > 1);
            assert!(message.contains("variant must name"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    // It is never dealt.
    let text = BUILTIN.replace(
        "count = 0                     # never dealt",
        "count = 1                     # never dealt",
    );
    match Ruleset::from_toml(&text, "n.toml") {
        Err(DataError::At { message, .. }) => {
            assert!(message.contains("never dealt"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    match Ruleset::from_toml("id = \n", "y.toml") {
        Err(DataError::At { line, .. }) => assert_eq!(line, 1),
        other => panic!("{other:?}"),
    }
}
