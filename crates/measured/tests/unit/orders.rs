//! Unit tests of `src/orders.rs` (moved out of the crate so that the
//! library compiles once: docs/testing.md).

use adjutant_measured::charge::orders::*;

#[test]
fn lines_parse() {
    let p =
        parse("UNIT 5th: forward 6, wheel left 30, fire at 1ch\nstanding 5TH hold ground\n\nPASS")
            .unwrap();
    assert_eq!(p.len(), 3);
    assert_eq!(
        p[0].2,
        Line::Unit {
            id: "5TH".into(),
            steps: vec![
                Step::Forward(96),
                Step::Wheel(-30),
                Step::FireAt("1CH".into())
            ]
        }
    );
    assert_eq!(
        p[1].2,
        Line::Standing {
            id: "5TH".into(),
            orders: vec!["HOLD GROUND".into()]
        }
    );
    assert_eq!(p[2].0, 4);
}

#[test]
fn bad_lines_say_why_with_their_line() {
    let e = parse("UNIT A: FORWARD\n").unwrap_err();
    assert_eq!(e.line, Some(1));
    assert!(e.message.contains("distance"), "{e}");
    let e = parse("\nUNIT A: WHEEL LEFT 400").unwrap_err();
    assert_eq!(e.line, Some(2));
    assert!(e.message.contains("angle"));
    let e = parse("MARCH A").unwrap_err();
    assert!(e.message.contains("not an order"));
    let e = parse("UNIT A: FORWARD 6.01").unwrap_err();
    assert!(e.message.contains("sixteenths"));
    assert!(parse("UNIT A: FORWARD 7 1/2").is_ok());
    assert_eq!(Step::Forward(120).canonical(), "FORWARD 7.5");
    // Nothing from a mail may panic: huge numbers, long lines with
    // letters of several bytes where a cut would fall.
    for bad in [
        "UNIT A: FORWARD 99999999999999999999",
        "UNIT A: FORWARD 9223372036854775807",
        "UNIT A: BACK 9223372036854775807/2",
        "UNIT A: FORWARD 922337203685477580.5",
    ] {
        assert!(parse(bad).is_err(), "{bad}");
    }
    let long = format!("UNIT AB: {}", "é".repeat(300));
    let e = parse(&long).unwrap_err();
    assert!(e.message.contains("400"), "{e}");
}
