//! Unit tests of `src/geometry.rs` (moved out of the crate so that the
//! library compiles once: docs/testing.md).

use adjutant_measured_core::geometry::*;

#[test]
fn the_sine_table_is_the_sine() {
    // A test, not a rule: the committed table against the platform.
    for (d, v) in SIN.iter().enumerate() {
        let want = ((d as f64).to_radians().sin() * SCALE as f64).round() as i64;
        assert_eq!(*v, want, "sin {d}");
    }
    assert_eq!(sin_s(180), 0);
    assert_eq!(sin_s(270), -SCALE);
    assert_eq!(cos_s(0), SCALE);
    assert_eq!(cos_s(180), -SCALE);
    assert_eq!(sin_s(-30), -SIN[30]);
}

#[test]
fn moving_along_a_facing() {
    let p = Pt::inches(10, 10);
    assert_eq!(offset(p, 0, 96, 0), Pt::inches(10, 16));
    assert_eq!(offset(p, 90, 96, 0), Pt::inches(16, 10));
    assert_eq!(offset(p, 180, 96, 0), Pt::inches(10, 4));
    assert_eq!(offset(p, 0, 0, 16), Pt::inches(11, 10));
    // 45 degrees, 10": 7.0710678" each way = 113.137 sixteenths -> 113.
    assert_eq!(offset(p, 45, 160, 0), Pt::new(160 + 113, 160 + 113));
    // 3-4-5: 30 degrees, 16" -> x 8", y 13.856" = 221.7 -> 222.
    assert_eq!(offset(Pt::new(0, 0), 30, 256, 0), Pt::new(128, 222));
}

#[test]
fn bearings() {
    let o = Pt::inches(0, 0);
    assert_eq!(bearing(o, Pt::inches(0, 5)), 0);
    assert_eq!(bearing(o, Pt::inches(5, 0)), 90);
    assert_eq!(bearing(o, Pt::inches(5, 5)), 45);
    assert_eq!(bearing(o, Pt::inches(-5, 0)), 270);
    assert_eq!(bearing(o, Pt::inches(0, -5)), 180);
}

#[test]
fn footprints_and_overlap() {
    let a = Footprint {
        front: Pt::inches(10, 10),
        facing: 0,
        width: 96,
        depth: 32,
    };
    assert_eq!(
        a.corners(),
        [
            Pt::inches(7, 10),
            Pt::inches(13, 10),
            Pt::inches(13, 8),
            Pt::inches(7, 8)
        ]
    );
    // Facing it, fronts touching: contact, not overlap.
    let b = Footprint {
        front: Pt::inches(10, 10),
        facing: 180,
        width: 96,
        depth: 32,
    };
    assert!(!overlap(&a, &b));
    // A sixteenth closer: overlap.
    let c = Footprint {
        front: Pt::new(160, 159),
        ..b
    };
    assert!(overlap(&a, &c));
    // Side by side, flanks touching.
    let d = Footprint {
        front: Pt::inches(16, 10),
        ..a
    };
    assert!(!overlap(&a, &d));
    let e = Footprint {
        front: Pt::new(16 * 16 - 1, 160),
        ..a
    };
    assert!(overlap(&a, &e));
    // Rotated 45 degrees through the middle of a.
    let f = Footprint {
        front: Pt::inches(10, 9),
        facing: 45,
        width: 16,
        depth: 16,
    };
    assert!(overlap(&a, &f));
    assert!(a.covers(Pt::inches(10, 9)));
    assert!(!a.covers(Pt::inches(10, 11)));
}

#[test]
fn a_fraction_of_a_sixteenth_is_rounding_a_whole_one_is_overlap() {
    // Light cavalry wheeled 20 degrees (Fuentes de Onoro, the random game
    // that found the retreat ending a sixteenth inside the 71st): its rear
    // edge runs from (314,207) to (303,212), 12.08 sixteenths long.
    let a = Footprint {
        front: Pt::new(311, 217),
        facing: 20,
        width: 12,
        depth: 8,
    };
    assert_eq!(
        a.corners(),
        [
            Pt::new(305, 219),
            Pt::new(317, 215),
            Pt::new(314, 207),
            Pt::new(303, 212)
        ]
    );
    // A line below it whose front-right corner (309,210) is 8/12.08 of a
    // sixteenth inside that rear edge: ground shared, but less than the
    // rounding of a corner.
    let b = Footprint {
        front: Pt::new(299, 210),
        facing: 0,
        width: 20,
        depth: 20,
    };
    assert_eq!(b.corners()[1], Pt::new(309, 210));
    assert!(overlap(&a, &b));
    assert!(!overlap_deeply(&a, &b));
    assert!(!overlap_deeply(&b, &a));
    // The 71st as it stood: a's rear corner (314,207) a whole sixteenth
    // inside its front edge (y 208) is an overlap, rounding or not.
    let line = Footprint {
        front: Pt::new(384, 208),
        facing: 0,
        width: 168,
        depth: 24,
    };
    assert!(overlap_deeply(&a, &line));
    assert!(overlap_deeply(&line, &a));
    // Fronts in contact: neither.
    let c = Footprint {
        front: Pt::new(384, 207),
        ..line
    };
    assert!(!overlap(&a, &c));
    assert!(!overlap_deeply(&a, &c));
}

#[test]
fn distances_are_exact_at_the_edge() {
    let a = Footprint {
        front: Pt::inches(10, 10),
        facing: 0,
        width: 96,
        depth: 32,
    };
    // 24" straight ahead of the front edge.
    let p = Pt::inches(10, 34);
    assert!(a.dist2_from(p).within(24 * 16));
    assert!(!a.dist2_from(p).within(24 * 16 - 1));
    assert_eq!(a.dist2_from(p).floor(), 24 * 16);
    // Beyond the corner: 3-4-5 from the front-right corner (13,10).
    let q = Pt::inches(16, 14);
    assert!(a.dist2_from(q).within(5 * 16));
    assert!(!a.dist2_from(q).within(5 * 16 - 1));
    // A point off a slanted edge: distance is a rational, floor is right.
    let d = dist2_point_segment(Pt::new(0, 10), Pt::new(0, 0), Pt::new(10, 10));
    assert_eq!(d.num * 2, 100 * d.den); // 50
    assert_eq!(d.floor(), 7);
}

#[test]
fn rays() {
    let t = Footprint {
        front: Pt::inches(10, 30),
        facing: 180,
        width: 96,
        depth: 32,
    };
    let (n, d) = ray_hit(Pt::inches(10, 12), 0, &t).expect("hits");
    assert_eq!(n, 18 * 16 * d);
    assert!(ray_hit(Pt::inches(20, 12), 0, &t).is_none());
    // Just grazing the corner at x = 13.
    assert!(ray_hit(Pt::inches(13, 12), 0, &t).is_some());
    assert!(ray_hit(Pt::new(13 * 16 + 1, 12 * 16), 0, &t).is_none());
}

#[test]
fn arcs_and_lines() {
    // A 6" frontage wheeling 90 degrees: quarter circle of radius 6" =
    // 9.42478" = 150.796 sixteenths -> 151.
    assert_eq!(arc(96, 90), 151);
    assert_eq!(arc(96, 0), 0);
    let wood = polygon(&[
        Pt::inches(5, 5),
        Pt::inches(10, 5),
        Pt::inches(10, 10),
        Pt::inches(5, 10),
        Pt::inches(5, 5),
    ]);
    assert!(crosses(Pt::inches(0, 7), Pt::inches(20, 7), &wood));
    assert!(!crosses(Pt::inches(0, 11), Pt::inches(20, 11), &wood));
    // Touching the corner counts (a line of fire grazing a wood).
    assert!(crosses(Pt::inches(0, 0), Pt::inches(5, 5), &wood));
    assert!(in_polygon(&wood, Pt::inches(5, 7)));
    assert!(!strictly_in_polygon(&wood, Pt::inches(5, 7)));
    assert!(in_arc(Pt::inches(0, 0), 0, 45, Pt::inches(5, 5)));
    assert!(!in_arc(Pt::inches(0, 0), 0, 45, Pt::new(81, 79)));
    assert!(in_arc(Pt::inches(0, 0), 0, 45, Pt::new(79, 81)));
    assert!(!in_arc(Pt::inches(0, 0), 0, 45, Pt::inches(0, -1)));
}

#[test]
fn lengths() {
    assert_eq!(parse_len("6"), Some(96));
    assert_eq!(parse_len("7.5"), Some(120));
    assert_eq!(parse_len("7½"), Some(120));
    assert_eq!(parse_len("7 1/2\""), Some(120));
    assert_eq!(parse_len("3/16"), Some(3));
    assert_eq!(parse_len("0.1"), None);
    assert_eq!(parse_len("x"), None);
    assert_eq!(parse_len("-3"), None);
    assert_eq!(fmt_len(120), "7 1/2\"");
    assert_eq!(fmt_len(384), "24\"");
    assert_eq!(fmt_len(3), "3/16\"");
}
