//! Unit tests of `src/syw/procedures.rs` (moved out of the crate so that the
//! library compiles once: docs/testing.md).

/// The Seven Years' War's procedures, as compiled.
const SYW: &[(&str, &str)] = &[
    (
        "engine/charge.rs",
        include_str!("../../src/engine/charge.rs"),
    ),
    ("engine/check.rs", include_str!("../../src/engine/check.rs")),
    (
        "engine/compulsory.rs",
        include_str!("../../src/engine/compulsory.rs"),
    ),
    ("engine/fire.rs", include_str!("../../src/engine/fire.rs")),
    ("engine/fog.rs", include_str!("../../src/engine/fog.rs")),
    ("engine/hills.rs", include_str!("../../src/engine/hills.rs")),
    ("engine/melee.rs", include_str!("../../src/engine/melee.rs")),
    ("engine/mod.rs", include_str!("../../src/engine/mod.rs")),
    (
        "engine/morale.rs",
        include_str!("../../src/engine/morale.rs"),
    ),
    ("engine/moves.rs", include_str!("../../src/engine/moves.rs")),
    (
        "engine/retreat.rs",
        include_str!("../../src/engine/retreat.rs"),
    ),
    ("engine/sight.rs", include_str!("../../src/engine/sight.rs")),
    ("engine/tests.rs", include_str!("../../src/engine/tests.rs")),
    ("entry.rs", include_str!("../../src/entry.rs")),
    ("line.rs", include_str!("../../src/line.rs")),
    ("lib.rs", include_str!("../../src/lib.rs")),
    ("orders.rs", include_str!("../../src/orders.rs")),
    ("procedures.rs", include_str!("../../src/procedures.rs")),
    ("split.rs", include_str!("../../src/split.rs")),
    ("standing.rs", include_str!("../../src/standing.rs")),
    ("template.rs", include_str!("../../src/template.rs")),
];

/// Issue 30, acceptance 3: the Seven Years' War's procedures never ask
/// whether the game is Charge! (no test of the ruleset's or a unit's
/// SYW part being absent) and never call Charge!'s procedures.
#[test]
fn syw_procedures_never_ask_for_charge() {
    for (file, text) in SYW {
        let body = text.split("#[cfg(test)]").next().unwrap_or(text);
        for word in [
            "r.syw.is_none",
            "r.syw.is_some",
            "experience.is_empty",
            "adjutant_measured::",
            "crate::charge",
        ] {
            assert!(!body.contains(word), "{file} has '{word}'");
        }
    }
}
