//! Unit tests of `src/syw/standing.rs` (moved out of the crate so that the
//! library compiles once: docs/testing.md).

use adjutant_syw::standing::*;

fn v(s: &[&str]) -> Vec<String> {
    s.iter().map(|x| (*x).to_string()).collect()
}

#[test]
fn contradictions_are_two_of_one_group_after_the_last_none() {
    assert!(contradiction(&v(&["EVADE", "HOLD FIRE", "BREAK OFF"])).is_none());
    assert_eq!(
        contradiction(&v(&["EVADE", "STAND"])),
        Some(("EVADE".into(), "STAND".into()))
    );
    assert!(contradiction(&v(&["RESPONSE FIRE", "HOLD FIRE"])).is_some());
    assert!(contradiction(&v(&["FIGHT ON", "BREAK OFF"])).is_some());
    assert!(contradiction(&v(&["EVADE", "NONE", "STAND"])).is_none());
    assert!(contradiction(&v(&["STAND", "STAND"])).is_none());
}

#[test]
fn counter_charge_is_for_cavalry() {
    assert!(unfit("COUNTER-CHARGE", "cavalry", "x").is_none());
    for c in ["infantry", "artillery", "command"] {
        assert!(unfit("COUNTER-CHARGE", c, "x").is_some(), "{c}");
    }
    assert!(unfit("EVADE", "command", "x").is_none());
}
