//! Unit tests of `src/syw/template.rs` (moved out of the crate so that the
//! library compiles once: docs/testing.md).

use adjutant_syw::book::SHIPPED;
use adjutant_syw::engine;
use adjutant_syw::state::load;
use adjutant_syw::template::*;

/// Issue 28: the template was Charge!'s (canister, picking off, HOLD
/// GROUND, "move 0\"" for every unit).
#[test]
fn the_template_speaks_the_seven_years_war_language() {
    let r = adjutant_syw::builtin().unwrap();
    let (id, _, text) = SHIPPED
        .iter()
        .find(|(_, rs, _)| *rs == "seven-years-war")
        .unwrap();
    let st = load(&r, text, id).unwrap();
    let side = engine::active(&st);
    let t = template(&r, &st, side).unwrap();
    for bad in [
        "CANISTER",
        "PICK OFF",
        "HOLD GROUND",
        "FIRE AT CHARGERS",
        "move 0\"",
    ] {
        assert!(!t.contains(bad), "{bad}: {t}");
    }
    assert!(t.contains("moves 1d6\""), "{t}");
    assert!(t.contains("COUNTER-CHARGE (cavalry only)"), "{t}");
    // Below its heading (set aside by the mail reader, as text before
    // the first order word), the template is a set of orders the judge
    // accepts.
    let body = t.lines().skip(1).collect::<Vec<_>>().join("\n");
    engine::check(&r, &st, side, &body).unwrap();
    assert!(template(&r, &st, 1 - side).is_none());
}
