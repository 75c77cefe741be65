//! Unit tests of `src/case.rs` (moved out of the crate so that the
//! library compiles once: docs/testing.md).

#[allow(unused_imports)]
use crate::prelude::*;
use adjutant_memoir44::case::*;

const GOOD: &str = r#"
name = "woods"
[board]
terrain = { E5 = "woods" }
[[units]]
at = "E4"
side = "allies"
type = "infantry"
[[units]]
at = "E5"
side = "axis"
type = "infantry"
[turn]
side = "allies"
orders = """
PLAY probe-centre
ORDER E4
BATTLE E4 E5
"""
dice = ["infantry", "grenade"]
[expect]
dice_rolled = 2
units = [{ at = "E5", side = "axis", type = "infantry", figures = 2 }]
"#;

#[test]
fn a_good_case_passes() {
    let r = run_case_text(GOOD, "good.toml");
    assert!(r.passed, "{}", r.detail);
}

#[test]
fn too_few_dice_fail() {
    let r = run_case_text(
        &GOOD.replace(
            "dice = [\"infantry\", \"grenade\"]",
            "dice = [\"infantry\"]",
        ),
        "x.toml",
    );
    assert!(!r.passed);
    assert!(r.detail.contains("forces only 1"), "{}", r.detail);
}

#[test]
fn wrong_expectations_fail() {
    let r = run_case_text(&GOOD.replace("figures = 2 }", "figures = 3 }"), "x.toml");
    assert!(!r.passed);
    assert!(r.detail.contains("expected 3 figure"), "{}", r.detail);
    let r = run_case_text(
        &GOOD.replace("[expect]", "[expect]\nrejected = \"nope\""),
        "x.toml",
    );
    assert!(!r.passed);
}

#[test]
fn malformed_cases_fail_with_positions() {
    let r = run_case_text(
        &GOOD.replace(
            "type = \"infantry\"\n[[units]]",
            "type = \"panzer\"\n[[units]]",
        ),
        "x.toml",
    );
    assert!(!r.passed);
    assert!(r.detail.starts_with("x.toml:8:"), "{}", r.detail);
    let r = run_case_text("name = \"x\"\n[turn\n", "y.toml");
    assert!(!r.passed);
    assert!(r.detail.starts_with("y.toml:2:"), "{}", r.detail);
    let r = run_case_text(&GOOD.replace("\"grenade\"]", "\"tank-shell\"]"), "z.toml");
    assert!(r.detail.contains("not a die face"), "{}", r.detail);
}
