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
    ("placement.rs", include_str!("../../src/placement.rs")),
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

/// The placement keys both books read: `Shared::KEYS` (by which the
/// placement reader sorts a table's keys, crates/measured-core/src/
/// placement.rs) names exactly the fields of `Shared`, and neither
/// book's keys are among them (each book reads its own, issue 56).
#[test]
fn the_shared_placement_keys_are_its_fields_and_no_books() {
    let state = include_str!("../../src/state.rs");
    let body = struct_body(state, "Shared");
    let fields: Vec<&str> = body
        .lines()
        .filter_map(|l| l.trim().strip_prefix("pub "))
        .filter_map(|l| l.split_once(':').map(|(f, _)| f.trim_start_matches("r#")))
        .collect();
    assert!(fields.len() > 15, "the fields were read: {fields:?}");
    assert_eq!(
        fields,
        adjutant_measured_core::state::Shared::KEYS,
        "Shared::KEYS and the fields of Shared"
    );
    for key in [
        "experience",
        "brigade",
        "regiment",
        "refused",
        "marker",
        "forced",
        "off_table",
        "delayed",
        "rallying",
    ] {
        assert!(!fields.contains(&key), "the shared placement reads {key}");
    }
}

/// A placement key neither the core nor the book reads is refused at the
/// key (line and column), listing the keys it may be; the book's own keys
/// go to the book.
#[test]
fn a_placement_key_no_one_reads_is_refused_at_the_key() {
    use adjutant_measured_core::state::Placement;
    #[derive(Debug, Default)]
    struct Keys {
        colour: Option<String>,
    }
    adjutant_measured_core::book_keys!(Keys { colour });
    let unit = "id = \"A\"\nside = \"british\"\ntype = \"line\"\nat = [1, 2]\n";
    let p: Placement<Keys> = toml::from_str(&format!("{unit}colour = \"red\"\n")).expect("read");
    assert_eq!(p.book.colour.as_deref(), Some("red"));
    assert_eq!(p.id.get_ref(), "A");
    let e = toml::from_str::<Placement<Keys>>(&format!("{unit}rallying = 2\n")).unwrap_err();
    assert_eq!(
        e.span(),
        Some(unit.len()..unit.len() + "rallying".len()),
        "{e}"
    );
    assert!(
        e.message()
            .starts_with("unknown field `rallying`, expected one of `id`"),
        "{e}"
    );
    assert!(e.message().ends_with("`exhausted`, `colour`"), "{e}");
    let e = toml::from_str::<Placement<()>>(&format!("{unit}colour = \"red\"\n")).unwrap_err();
    assert_eq!(
        e.span(),
        Some(unit.len()..unit.len() + "colour".len()),
        "{e}"
    );
    let e = toml::from_str::<Placement<Keys>>("id = \"A\"\n").unwrap_err();
    assert!(e.message().contains("missing field `side`"), "{e}");
    let e = toml::from_str::<Placement<Keys>>(&format!("{unit}colour = 3\n")).unwrap_err();
    assert_eq!(e.span(), Some(unit.len() + 9..unit.len() + 10), "{e}");
}

/// The core's ruleset.rs reads no book's file: Charge!'s ruleset-file
/// structs and tables (its bands, melee combats, houses) are the Charge!
/// crate's (`crates/measured/src/charge/file.rs`), as the Seven Years'
/// War's are its own.
#[test]
fn the_core_ruleset_holds_no_books_file() {
    let ruleset = include_str!("../../src/ruleset.rs");
    assert!(ruleset.contains("pub struct Reader"), "ruleset.rs was read");
    for name in [
        "RuleFile",
        "TroopFile",
        "TerrainFile",
        "BandFile",
        "Band",
        "HousesFile",
        "Houses",
        "MeleeFile",
        "MoraleFile",
        "RideDown",
        "Combat",
    ] {
        assert!(
            !ruleset.contains(&format!("pub struct {name} ")),
            "the core's ruleset.rs holds Charge!'s {name}"
        );
    }
}
