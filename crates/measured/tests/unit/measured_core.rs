//! The measured core's files (crates/measured/src/*.rs, neither book's
//! folder) as compiled, read as text.

/// The core's files that no longer name a module of the Seven Years' War
/// (issue 56 item 3). The rest (state.rs, ruleset.rs, predict.rs) still
/// do; a file joins this list when it stops.
const CORE: &[(&str, &str)] = &[
    ("amend.rs", include_str!("../../src/amend.rs")),
    ("case.rs", include_str!("../../src/case.rs")),
    ("events.rs", include_str!("../../src/events.rs")),
    ("geometry.rs", include_str!("../../src/geometry.rs")),
    ("lib.rs", include_str!("../../src/lib.rs")),
    ("order_line.rs", include_str!("../../src/order_line.rs")),
    ("random.rs", include_str!("../../src/random.rs")),
    ("report.rs", include_str!("../../src/report.rs")),
];

/// The core reaches the Seven Years' War only through the ruleset's
/// `Procedures` (off-table units, the umpire's lines, a case's position),
/// never by a path into `syw::` (its template's comment helper, its
/// reserves): a code line naming `syw::` fails.
#[test]
fn the_core_names_no_module_of_the_seven_years_war() {
    for (file, text) in CORE {
        assert!(text.lines().count() > 20, "{file} was read");
        for (i, l) in text.lines().enumerate() {
            if l.trim_start().starts_with("//") {
                continue;
            }
            assert!(!l.contains("syw::"), "{file}:{} names syw: {l}", i + 1);
        }
    }
}
