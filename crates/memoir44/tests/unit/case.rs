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

/// `[expect.predict]` (docs/testing.md): GOOD's battle is 3 dice - 1 for
/// the woods = 2; a die hits infantry on 3 faces of 6, so 0, 1, 2 hits with
/// 1/4, 2/4, 1/4.
const PREDICT: &str = r#"
[expect.predict]
lines = ["Close assault, range 1: 3 dice, -1 target in Woods & Forests = 2", "Hits:  0 hits 25.0%, 1 hit 50.0%, 2 hits 25.0%"]
"#;

#[test]
fn predict_lines_are_checked() {
    let r = run_case_text(&format!("{GOOD}{PREDICT}"), "p.toml");
    assert!(r.passed, "{}", r.detail);
    // A wrong line fails the case, and the failure shows the answer.
    let wrong = PREDICT.replace("2 hits 25.0%", "2 hits 30.0%");
    let r = run_case_text(&format!("{GOOD}{wrong}"), "p.toml");
    assert!(!r.passed);
    assert!(r.detail.contains("PREDICT: no \"Hits:"), "{}", r.detail);
    assert!(r.detail.contains("PREDICT answered:"), "{}", r.detail);
    // Orders of its own: refused as a submission would be.
    let own = PREDICT.replace(
        "[expect.predict]\n",
        "[expect.predict]\norders = \"PLAY probe-centre\\nORDER E4\\nBATTLE E4 E7\\n\"\n",
    );
    let r = run_case_text(&format!("{GOOD}{own}"), "p.toml");
    assert!(!r.passed);
    assert!(
        r.detail.contains("PREDICT refused the orders"),
        "{}",
        r.detail
    );
    // An unknown key is refused, like every key of the format.
    let r = run_case_text(
        &format!("{GOOD}{}", PREDICT.replace("lines", "line")),
        "p.toml",
    );
    assert!(!r.passed);
}
