//! Unit tests of `src/syw/orders.rs` (moved out of the crate so that the
//! library compiles once: docs/testing.md).

use adjutant_syw::orders::*;

#[test]
fn lines_parse_and_bad_ones_say_why() {
    let p = parse("UNIT a: forward 6, wheel left 20\nBRIGADE W: FORWARD ALL\nSTANDING X: EVADE\nFOG GUNS B1 B2\nPASS").unwrap();
    assert_eq!(p.len(), 5);
    assert_eq!(
        p[1].2,
        Line::Brigade {
            id: "W".into(),
            steps: vec![Step::Forward(None)]
        }
    );
    assert_eq!(p[3].2, Line::FogGuns(vec!["B1".into(), "B2".into()]));
    let e = parse("UNIT A: CHARGE X, FORWARD 2").unwrap_err();
    assert!(e.message.contains("last step"), "{e}");
    let e = parse("\nSTANDING A: RUN AWAY").unwrap_err();
    assert_eq!(e.line, Some(2));
    let e = parse("FOG GUNS A B C D").unwrap_err();
    assert!(e.message.contains("FOG GUNS"), "{e}");
    for bad in [
        "UNIT A: FORWARD 99999999999999999999",
        "UNIT A: WHEEL LEFT 9999999999999999",
    ] {
        assert!(parse(bad).is_err(), "{bad}");
    }
}
