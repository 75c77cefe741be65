//! Unit tests of `src/support.rs` (moved out of the crate so that the
//! library compiles once: docs/testing.md).

#[allow(unused_imports)]
use crate::prelude::*;
use adjutant_memoir44::{scenario, Ruleset};

fn two_flame_throwers(second_side: &str) -> String {
    format!(
        "id = \"x\"\nruleset = \"memoir44\"\nname = \"x\"\nvictory = 4\nfirst = \"allies\"\n\
         [[sides]]\nid = \"allies\"\n[[sides]]\nid = \"axis\"\n\
         [[units]]\nat = \"E2\"\nside = \"allies\"\ntype = \"flame-thrower\"\n\
         [[units]]\nat = \"F2\"\nside = \"{second_side}\"\ntype = \"flame-thrower\"\n"
    )
}

/// "A player may only have one Flame-Thrower Unit on the Board."
#[test]
fn a_second_flame_thrower_of_one_side_is_refused_at_its_line() {
    let r = Ruleset::builtin().unwrap();
    let e = scenario::load(&r, &two_flame_throwers("allies"), "f.toml")
        .map(|_| ())
        .expect_err("refused")
        .to_string();
    assert!(
        e.contains("f.toml:17:8") && e.contains("only have one Flame-Thrower"),
        "{e}"
    );
    // One each is allowed.
    assert!(scenario::load(&r, &two_flame_throwers("axis"), "f.toml").is_ok());
}

/// A club's ruleset that does not play the optional rule refuses them.
#[test]
fn a_ruleset_without_the_option_refuses_support_weapons() {
    let mut r = Ruleset::builtin().unwrap();
    r.options.infantry_support_weapons = false;
    let e = scenario::load(&r, &two_flame_throwers("axis"), "f.toml")
        .map(|_| ())
        .expect_err("refused")
        .to_string();
    assert!(
        e.contains("f.toml:13:8") && e.contains("Infantry Support Weapons"),
        "{e}"
    );
}
