//! The measured core's files (crates/measured-core/src/*.rs, neither
//! book's crate) as compiled, read as text.

/// The core's files: none names a module of the Seven Years' War (issue 56
/// item 3), nor Charge!'s.
const CORE: &[(&str, &str)] = &[
    ("amend.rs", include_str!("../../src/amend.rs")),
    ("book.rs", include_str!("../../src/book.rs")),
    ("case.rs", include_str!("../../src/case.rs")),
    ("geometry.rs", include_str!("../../src/geometry.rs")),
    ("lib.rs", include_str!("../../src/lib.rs")),
    ("labels.rs", include_str!("../../src/labels.rs")),
    ("order_line.rs", include_str!("../../src/order_line.rs")),
    ("predict.rs", include_str!("../../src/predict.rs")),
    ("random.rs", include_str!("../../src/random.rs")),
    ("report.rs", include_str!("../../src/report.rs")),
    ("ruleset.rs", include_str!("../../src/ruleset.rs")),
    ("state.rs", include_str!("../../src/state.rs")),
];

/// The text of `pub struct <name>` in `text`, to its closing brace.
fn struct_body<'a>(text: &'a str, name: &str) -> &'a str {
    let start = text
        .find(&format!("pub struct {name}"))
        .unwrap_or_else(|| panic!("no struct {name}"));
    let end = text[start..].find("\n}\n").expect("the struct ends") + start;
    &text[start..end]
}

/// Neither book's fields in the shared types (issue 56 item 3): the
/// unit, the position and the ruleset carry the book's part as `book`
/// (`B::Unit`, `B::State`, `B::Tables`), never the Seven Years' War's
/// experience, brigade, marker, sequence or tables, nor Charge!'s
/// rallying or tables (roundshot, canister, houses, riding down...).
#[test]
fn the_shared_types_carry_neither_books_fields() {
    let state = include_str!("../../src/state.rs");
    let ruleset = include_str!("../../src/ruleset.rs");
    for (name, body) in [
        ("Unit", struct_body(state, "Unit")),
        ("State", struct_body(state, "State")),
        ("Ruleset", struct_body(ruleset, "Ruleset")),
    ] {
        for field in [
            "experience",
            "brigade",
            "regiment",
            "refused",
            "marker",
            "tested",
            "routed_before",
            "rallying",
            "syw",
            "procedures",
            "roundshot",
            "canister_range",
            "houses",
            "ride_down",
        ] {
            assert!(
                !body.contains(&format!("pub {field}:")),
                "the shared {name} carries {field}"
            );
        }
        assert!(body.contains("pub book: B::"), "{name} has the book's part");
    }
}

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
            assert!(
                !l.contains("charge::"),
                "{file}:{} names charge: {l}",
                i + 1
            );
        }
    }
}
