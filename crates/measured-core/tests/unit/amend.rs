//! Unit tests of `src/amend.rs` (moved out of the crate so that the
//! library compiles once: docs/testing.md).

/// Issue 56, item 3: the core's referee correction asks the ruleset's
/// book for the units it holds off the table (`Procedures::off_table`,
/// `bring_on`) instead of reaching into the Seven Years' War's state part
/// or its modules.
#[test]
fn the_core_amend_never_reaches_into_the_seven_years_war() {
    let text = include_str!("../../src/amend.rs");
    let code: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect();
    assert!(code.len() > 100, "amend.rs was read");
    for (i, l) in code.iter().enumerate() {
        assert!(
            !l.contains("syw"),
            "amend.rs code line {} names the Seven Years' War: {l}",
            i + 1
        );
    }
}
