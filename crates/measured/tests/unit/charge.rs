//! Unit tests of `src/charge/` (moved out of the crate so that the
//! library compiles once: docs/testing.md).

/// Charge!'s procedures, as compiled.
const CHARGE: &[(&str, &str)] = &[
    ("mod.rs", include_str!("../../src/charge/mod.rs")),
    (
        "procedures.rs",
        include_str!("../../src/charge/procedures.rs"),
    ),
    ("check.rs", include_str!("../../src/charge/check.rs")),
    ("sight.rs", include_str!("../../src/charge/sight.rs")),
    ("moves.rs", include_str!("../../src/charge/moves.rs")),
    (
        "artillery.rs",
        include_str!("../../src/charge/artillery.rs"),
    ),
    ("fire.rs", include_str!("../../src/charge/fire.rs")),
    ("officers.rs", include_str!("../../src/charge/officers.rs")),
    ("melee.rs", include_str!("../../src/charge/melee.rs")),
    ("morale.rs", include_str!("../../src/charge/morale.rs")),
    ("orders.rs", include_str!("../../src/charge/orders.rs")),
    ("general.rs", include_str!("../../src/charge/general.rs")),
    ("houses.rs", include_str!("../../src/charge/houses.rs")),
    ("water.rs", include_str!("../../src/charge/water.rs")),
    (
        "ride_down.rs",
        include_str!("../../src/charge/ride_down.rs"),
    ),
    ("pinning.rs", include_str!("../../src/charge/pinning.rs")),
];

/// Issue 30, acceptance 3: Charge!'s procedures never ask whether the
/// game is the Seven Years' War (its tables, its state part, a unit's
/// experience), and never call into the set's code.
#[test]
fn charge_procedures_never_ask_for_the_seven_years_war() {
    for (file, text) in CHARGE {
        // The code before any test module (this one names the words).
        let body = text.split("#[cfg(test)]").next().unwrap_or(text);
        let code: String = body
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .filter(|l| !l.contains("Seven Years' War keys"))
            .collect::<Vec<_>>()
            .join("\n");
        for word in ["syw", "experience", "seven"] {
            assert!(
                !code.to_lowercase().contains(word),
                "{file} mentions '{word}' outside its comments"
            );
        }
    }
}
