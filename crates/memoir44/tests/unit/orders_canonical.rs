//! Unit tests of `src/orders.rs` (moved out of the crate so that the
//! library compiles once: docs/testing.md).

#[allow(unused_imports)]
use crate::prelude::*;
use adjutant_memoir44::orders::*;

#[test]
fn canonical_orders_parse_back_to_themselves() {
    let r = Ruleset::builtin().unwrap();
    let board = adjutant_memoir44::battle::Ctx::new(&r).board;
    let text = "play probe-centre\norder d4 e4\nmove d4-d5-e6\nbattle e6 f7 take-ground\nstanding retreat e6 e5 d5\n";
    let lines = parse(&board, &r, text).unwrap();
    let canon: Vec<String> = lines.iter().map(|l| l.cmd.canonical()).collect();
    assert_eq!(
        canon,
        [
            "PLAY probe-centre",
            "ORDER D4 E4",
            "MOVE D4 D5 E6",
            "BATTLE E6 F7 TAKE-GROUND",
            "STANDING RETREAT E6 E5 D5"
        ]
    );
    let again = parse(&board, &r, &canon.join("\n")).unwrap();
    assert_eq!(
        again.iter().map(|l| &l.cmd).collect::<Vec<_>>(),
        lines.iter().map(|l| &l.cmd).collect::<Vec<_>>()
    );
}
