//! Unit tests of `src/support.rs` (moved out of the crate so that the
//! library compiles once: docs/testing.md).

#[allow(unused_imports)]
use crate::prelude::*;
use adjutant_memoir44::{scenario, Ruleset};

/// "A Scenario may also state that only particular Infantry Support
/// Weapons are Special Units": only a support weapon may be named.
#[test]
fn only_a_support_weapon_is_made_motorised() {
    let r = Ruleset::builtin().unwrap();
    let f = |t: &str| {
        format!(
            "id = \"x\"\nruleset = \"memoir44\"\nname = \"x\"\nvictory = 4\nfirst = \"allies\"\n\
             [[sides]]\nid = \"allies\"\n[[sides]]\nid = \"axis\"\n\
             [[units]]\nat = \"E2\"\nside = \"allies\"\ntype = \"{t}\"\nmotorised = true\n"
        )
    };
    let (_, st) = scenario::load(&r, &f("mortar"), "m.toml").unwrap();
    assert_eq!(st.motorised, vec![st.units[0].id]);
    let e = refused(&r, &f("infantry"), "m.toml");
    assert!(e.contains("m.toml:14:13") && e.contains("motorised"), "{e}");
}
