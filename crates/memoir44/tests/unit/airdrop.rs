//! Unit tests of `src/airdrop.rs` (moved out of the crate so that the
//! library compiles once: docs/testing.md).

#[allow(unused_imports)]
use crate::prelude::*;
use adjutant_memoir44::airdrop::*;

#[test]
fn straight_lines_along_rows_and_diagonals() {
    let a = Hex::parse("A5").unwrap();
    assert_eq!(straight(a, Hex::parse("M5").unwrap()), Some(0));
    assert_eq!(straight(Hex::parse("M5").unwrap(), a), Some(3));
    // A1 -> A3 is not a straight hex line (it zig-zags).
    assert_eq!(
        straight(Hex::parse("A1").unwrap(), Hex::parse("A3").unwrap()),
        None
    );
    assert_eq!(straight(a, a), None);
    // E1 up-right: E1 (col 8,row 0) -> (9,1) E2 -> (10,2) F3.
    assert_eq!(
        straight(Hex::parse("E1").unwrap(), Hex::parse("F3").unwrap()),
        Some(1)
    );
}
