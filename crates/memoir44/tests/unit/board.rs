//! Unit tests of `src/board.rs` (moved out of the crate so that the
//! library compiles once: docs/testing.md).

#[allow(unused_imports)]
use crate::prelude::*;
use adjutant_memoir44::board::*;

fn board() -> Board {
    Board {
        columns: 13,
        rows: 9,
        lines: [7, 17],
    }
}
fn h(s: &str) -> Hex {
    Hex::parse(s).expect("hex")
}

#[test]
fn coordinates_round_trip() {
    let b = board();
    assert_eq!(b.hexes().len(), 13 * 5 + 12 * 4);
    for x in b.hexes() {
        assert_eq!(Hex::parse(&x.to_string()), Some(x));
    }
    assert!(b.parse("M1").is_some());
    assert!(b.parse("M2").is_none());
    assert!(b.parse("L2").is_some());
    assert!(b.parse("A10").is_none());
    assert!(b.parse("").is_none());
    assert!(b.parse("5E").is_none());
    assert!(b.parse("É5").is_none());
    // A2 sits up-right of A1.
    assert_eq!(h("A2"), Hex::new(1, 1));
    assert!(h("A1").adjacent(h("A2")));
    assert!(h("B1").adjacent(h("A2")));
    assert!(!h("B1").adjacent(h("B2")) || h("B2").col == 3);
}

#[test]
fn distances() {
    assert_eq!(h("A1").distance(h("M1")), 12);
    assert_eq!(h("A1").distance(h("A9")), 8);
    assert_eq!(h("E5").distance(h("E6")), 1);
    assert_eq!(h("E5").distance(h("D6")), 1);
    assert_eq!(h("E5").distance(h("F6")), 2);
    assert_eq!(h("E5").distance(h("E7")), 2);
}

#[test]
fn sections_straddle() {
    let b = board();
    // D2 (doubled column 7) is cut by the left line.
    assert_eq!(
        b.sections(h("D2"), true),
        vec![Section::Left, Section::Centre]
    );
    assert_eq!(b.sections(h("D1"), true), vec![Section::Left]);
    assert_eq!(b.sections(h("E1"), true), vec![Section::Centre]);
    assert_eq!(
        b.sections(h("I2"), true),
        vec![Section::Centre, Section::Right]
    );
    // The far seat sees it mirrored.
    assert_eq!(b.sections(h("A1"), false), vec![Section::Right]);
    let left: usize = (0..13)
        .filter(|l| b.in_section(Hex::from_letter(*l, 0), Section::Left, true))
        .count();
    let centre: usize = (0..13)
        .filter(|l| b.in_section(Hex::from_letter(*l, 0), Section::Centre, true))
        .count();
    assert_eq!((left, centre), (4, 5));
}

#[test]
fn los_straight_row_is_crossed() {
    let b = board();
    // Along a row: every hex between is crossed.
    let hs = line_hexes(&b, h("A1"), h("D1"));
    assert_eq!(hs, vec![(h("B1"), Meet::Crossed), (h("C1"), Meet::Crossed)]);
    assert!(!line_of_sight(&b, h("A1"), h("D1"), |x| x == h("C1")));
    assert!(line_of_sight(&b, h("A1"), h("D1"), |x| x == h("C2")));
}

#[test]
fn los_along_edges() {
    let b = board();
    // Straight "up" two rows: E1 -> E3 runs along the edge between D2 and E2.
    let hs = line_hexes(&b, h("E1"), h("E3"));
    assert_eq!(hs.len(), 2);
    assert!(hs.iter().all(|(_, m)| *m != Meet::Crossed));
    // One side obstructed: clear. Both sides: blocked.
    assert!(line_of_sight(&b, h("E1"), h("E3"), |x| x == h("D2")));
    assert!(line_of_sight(&b, h("E1"), h("E3"), |x| x == h("E2")));
    assert!(!line_of_sight(&b, h("E1"), h("E3"), |x| x == h("D2") || x == h("E2")));
    // Longer edge line: E1 -> E5 passes E3's centre (crossed) and edges elsewhere.
    let hs = line_hexes(&b, h("E1"), h("E5"));
    assert!(hs.contains(&(h("E3"), Meet::Crossed)));
    // Obstructions on opposite sides at different places still block.
    assert!(!line_of_sight(&b, h("E1"), h("E5"), |x| x == h("D2") || x == h("E4")));
    assert!(line_of_sight(&b, h("E1"), h("E5"), |x| x == h("D2") || x == h("D4")));
}

#[test]
fn los_adjacent_always_clear() {
    let b = board();
    for n in h("E5").neighbours() {
        assert!(line_of_sight(&b, h("E5"), n, |_| true));
    }
}

#[test]
fn los_is_symmetric() {
    let b = board();
    let blockers = [h("C3"), h("F4"), h("G6"), h("E5")];
    for x in b.hexes() {
        for y in b.hexes() {
            let f = |z: Hex| blockers.contains(&z);
            assert_eq!(
                line_of_sight(&b, x, y, f),
                line_of_sight(&b, y, x, f),
                "{x} {y}"
            );
        }
    }
}
