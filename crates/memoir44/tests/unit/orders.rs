//! Unit tests of `src/orders.rs` (moved out of the crate so that the
//! library compiles once: docs/testing.md).

#[allow(unused_imports)]
use crate::prelude::*;
use adjutant_memoir44::orders::*;

#[test]
fn parses_and_never_panics() {
    let r = Ruleset::builtin().expect("ruleset");
    let b = adjutant_memoir44::state::State::board(&r);
    let text = "play Probe-Centre # c\n\norder e4 f4\nmove e4 e5-f6\nBATTLE F6 G7 take-ground overrun g8\nstanding ambush never";
    let v = parse(&b, &r, text).expect("parse");
    assert_eq!(v.len(), 5);
    assert_eq!(
        v[2].cmd,
        Cmd::Move {
            path: vec![
                Hex::parse("E4").unwrap_or(Hex::new(0, 0)),
                Hex::parse("E5").unwrap_or(Hex::new(0, 0)),
                Hex::parse("F6").unwrap_or(Hex::new(0, 0))
            ]
        }
    );
    for junk in [
        "BATTLE",
        "MOVE E4",
        "PLAY",
        "ORDER Z9",
        "BATTLE E4 E5 OVERRUN",
        "STANDING",
        "STANDING RETREAT",
        "\u{0}\u{ffff}",
        "MOVE 5E",
        "PLAY x y z w",
        "ORDER M2",
    ] {
        assert!(parse(&b, &r, junk).is_err(), "{junk}");
    }
    let e = parse(&b, &r, "\n\nfoo bar").err().map(|e| e.line);
    assert_eq!(e, Some(Some(3)));
}
