//! Unit tests of `src/view.rs` (moved out of the crate so that the
//! library compiles once: docs/testing.md).

#[allow(unused_imports)]
use crate::prelude::*;
use adjutant_memoir44::bridges::{Charge, Damage};
use adjutant_memoir44::report::{sample, svg, textmap};
use adjutant_memoir44::stars::Star;
use adjutant_memoir44::view::*;
use std::collections::BTreeSet;

fn star(kind: &str, side: Option<usize>, at: Hex, unit: Option<u32>, count: u32) -> Star {
    Star {
        kind: kind.into(),
        side,
        at,
        unit,
        count,
    }
}

/// Optional Rules, Battle Star Markers, and Bridge Demolition ("Use
/// Battle Stars to mark the accumulation of Hits"; a bridge "rigged for
/// detonation" carries one): every marker is on the text map (`!`,
/// listed in the legend) and on the SVG board (a star with its title).
#[test]
fn markers_are_drawn_and_listed() {
    let s = sample::standard();
    let mut st = s.state.clone();
    let leader = st.units.iter().find(|u| u.side == 0).expect("a unit");
    let (lid, lat) = (leader.id, leader.at);
    let e5 = Hex::parse("E5").expect("hex");
    let i5 = Hex::parse("I5").expect("hex");
    let c3 = Hex::parse("C3").expect("hex");
    st.stars = vec![
        star("heroic-leader", Some(0), lat, Some(lid), 0),
        star("dam", Some(1), c3, None, 2),
    ];
    st.charges = vec![Charge {
        at: e5,
        side: 1,
        battled: false,
    }];
    st.bridge_damage = vec![Damage { at: i5, hits: 2 }];
    let v = view(&s.r, &st, &Viewer::Side("allies".into()));
    assert_eq!(v.markers.len(), 4, "{:?}", v.markers);
    let map = textmap::map(&v);
    let hexes: BTreeSet<Hex> = v.markers.iter().map(|m| m.at).collect();
    assert_eq!(map.matches(textmap::MARKER).count(), hexes.len(), "{map}");
    let legend = textmap::legend(&v).replace("\n  ", " ");
    for want in [
        "E5 charges (rigged for detonation) of Axis",
        "I5 bridge hit 2 times",
        "C3 Dam of Axis, 2 stars",
        &format!("{lat} Heroic Leader of Allies, with the unit"),
    ] {
        assert!(legend.contains(want), "{want} not in {legend}");
    }
    let board = svg::board(&v);
    assert_eq!(board.matches("class=\"marker\"").count(), 4);
    assert!(board.contains("data-marker=\"charges\""));
    assert!(board.contains("data-legend=\"battle-star\""));
    // Without markers, no mark and no legend entry.
    let plain = view(&s.r, &s.state, &Viewer::Side("allies".into()));
    assert!(plain.markers.is_empty());
    assert!(!textmap::map(&plain).contains(textmap::MARKER));
    assert!(!svg::board(&plain).contains("battle-star"));
}

/// Kriegspiel: "Players can only 'see' enemy Units on their Board when
/// they come into Battle Range of their own Units" — a marker is seen
/// the same way: a side's own always, an enemy's with a unit only with
/// that unit, one on the board only within sight; the referee sees all,
/// an observer only what is on both boards.
#[test]
fn fog_hides_the_enemys_markers_out_of_sight() {
    let s = sample::standard();
    let mut st = s.state.clone();
    st.fog = Some(adjutant_memoir44::fog::Fog::default());
    let r = &s.r;
    let hexes = State::board(r).hexes();
    let far = *hexes
        .iter()
        .find(|h| !adjutant_memoir44::fog::sees_hex(r, &st, 0, **h))
        .expect("a hex the Allies do not see");
    let near = *hexes
        .iter()
        .find(|h| adjutant_memoir44::fog::sees_hex(r, &st, 0, **h) && st.unit_at(**h).is_none())
        .expect("a hex the Allies see");
    let hidden_axis = st
        .units
        .iter()
        .find(|u| u.side == 1 && !adjutant_memoir44::fog::sees(r, &st, 0, u))
        .map(|u| (u.id, u.at))
        .expect("an Axis unit the Allies do not see");
    let own = st.units.iter().find(|u| u.side == 0).expect("a unit");
    st.stars = vec![
        star("heroic-leader", Some(0), own.at, Some(own.id), 0),
        star(
            "heroic-leader",
            Some(1),
            hidden_axis.1,
            Some(hidden_axis.0),
            0,
        ),
        star("equipment", None, far, None, 0),
    ];
    st.charges = vec![
        Charge {
            at: far,
            side: 1,
            battled: false,
        },
        Charge {
            at: near,
            side: 1,
            battled: false,
        },
    ];
    let allies = view(r, &st, &Viewer::Side("allies".into()));
    let seen: Vec<(Hex, &str)> = allies
        .markers
        .iter()
        .map(|m| (m.at, m.kind.as_str()))
        .collect();
    assert_eq!(seen, vec![(own.at, "heroic-leader"), (near, "charges")]);
    let axis = view(r, &st, &Viewer::Side("axis".into()));
    assert!(axis.markers.iter().any(|m| m.at == hidden_axis.1));
    assert!(axis
        .markers
        .iter()
        .any(|m| m.at == far && m.kind == "charges"));
    assert_eq!(view(r, &st, &Viewer::Referee).markers.len(), 5);
    assert!(view(r, &st, &Viewer::Observer).markers.is_empty());
    // Not even a marker of no side on an empty hex both sides see: shown
    // there, its coming and going would tell the observer where the sides'
    // units stand (issue 50, docs/rules/kriegspiel.md).
    let both = *hexes
        .iter()
        .find(|h| {
            (0..2).all(|i| adjutant_memoir44::fog::sees_hex(r, &st, i, **h))
                && st.unit_at(**h).is_none()
        })
        .expect("a hex both sides see");
    st.stars.push(star("equipment", None, both, None, 0));
    let public: Vec<Hex> = view(r, &st, &Viewer::Observer)
        .markers
        .iter()
        .map(|m| m.at)
        .collect();
    assert_eq!(public, Vec::<Hex>::new());
}
