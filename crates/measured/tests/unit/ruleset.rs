//! Unit tests of `src/ruleset.rs` (moved out of the crate so that the
//! library compiles once: docs/testing.md).

use adjutant_measured::charge::tables::CHARGE;
use adjutant_measured::ruleset::*;
use adjutant_measured::ChargeRuleset;

#[test]
fn the_shipped_ruleset_reads() {
    let r = Ruleset::builtin("charge").expect("charge.toml");
    let line = r.troop("line").expect("line");
    assert_eq!(line.moves["line"], 96);
    assert_eq!(line.moves["column"], 120);
    assert_eq!(line.officers.iter().map(|o| o.points).sum::<u32>(), 6);
    // "ALL UNITS BEGIN WITH POINTS TOTAL OF 6": the units of the MORALE
    // table; a General, wagons and barges are not in it and have none.
    for t in r.troops.values() {
        let none = ["general", "wagon", "barge"].contains(&t.class.as_str());
        assert_eq!(
            t.officers.iter().map(|o| o.points).sum::<u32>(),
            if none { 0 } else { 6 },
            "{}",
            t.id
        );
    }
    let h = r.houses.as_ref().expect("[houses]");
    assert_eq!(h.penetration[0].to, 36 * 16);
    assert_eq!(h.penetration[1].kills, [0, 0, 0, 1, 2, 2]);
    assert_eq!((h.destroyed, h.fire, h.burn), (20, 10, 15));
    assert_eq!(r.roundshot[0].to, 24 * 16);
    assert_eq!(r.roundshot[3].kill, vec![6]);
}

#[test]
fn a_bad_ruleset_names_line_and_column() {
    let bad = CHARGE.replace("sleeve_length = 4", "sleeve_length = \"four\"");
    let e = Ruleset::from_toml(&bad, "x.toml").unwrap_err().to_string();
    assert!(e.starts_with("x.toml:"), "{e}");
    let bad = CHARGE.replace("sleeve_length = 4", "sleeve_length = 4.01");
    let e = Ruleset::from_toml(&bad, "x.toml").unwrap_err().to_string();
    assert!(e.contains("sixteenths"), "{e}");
}

/// Charge! is a family of its own (issue 56 item 3): a club's ruleset file
/// for it that names another book's `procedures` is refused at that key,
/// never read as Charge!'s nor handed to the other book.
#[test]
fn a_charge_file_naming_another_books_procedures_is_refused_at_the_key() {
    let text = format!("procedures = \"some-other-book\"\n{CHARGE}");
    let err = Ruleset::from_toml(&text, "club.toml")
        .expect_err("refused")
        .to_string();
    assert!(
        err.contains("procedures: 'some-other-book' is another book's"),
        "{err}"
    );
    assert!(err.contains("club.toml"), "{err}");
}
