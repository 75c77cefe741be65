//! Barges on rivers and canals (Charge!, MOVEMENT: "Barges  Upriver 6"
//! Downriver 9"  Canal 7½""). A barge's ground stays on the water: every
//! corner of the ground it sweeps lies in a river, a ford or a canal. On a
//! canal it moves 7½"; on a river 9" when the step goes with the river's
//! `flow` (less than 90° off it) and 6" against it or across. Readings in
//! docs/rules/charge.md, "Wagons and barges".

use crate::charge::State;
use crate::geometry::{self as g, Footprint, Pt};
use crate::ruleset::Troop;

const WATER: &[&str] = &["river", "ford", "canal"];

/// For a barge: why the swept ground may not be here (Some(None): it may;
/// None: not a barge, the usual checks apply).
pub(super) fn refusal(st: &State, t: &Troop, sweep: &Footprint) -> Option<Option<String>> {
    if !t.is("barge") {
        return None;
    }
    let wet = |p: Pt| {
        st.terrain
            .iter()
            .any(|f| WATER.contains(&f.kind.as_str()) && g::in_polygon(&f.polygon(), p))
    };
    if !sweep.corners().iter().all(|c| wet(*c)) {
        return Some(Some(
            "a barge keeps to the water: that takes it out of the river or canal".into(),
        ));
    }
    if !st.on_table(sweep) {
        return Some(Some("that would take it off the table".into()));
    }
    Some(None)
}

/// For a barge: percent of its upriver move allowed for a step from `from`
/// to `to` over `sweep` (None: not a barge).
pub(super) fn percent(
    st: &State,
    t: &Troop,
    sweep: &Footprint,
    from: Pt,
    to: Pt,
) -> Option<(u32, String)> {
    if !t.is("barge") {
        return None;
    }
    let base = t.moves.get("column").copied().unwrap_or(0).max(1);
    let pct = |k: &str| -> u32 {
        t.moves
            .get(k)
            .map_or(100, |m| (m * 100 / base).clamp(1, 1000) as u32)
    };
    let poly = sweep.polygon();
    let on_river: Vec<_> = st
        .terrain
        .iter()
        .filter(|f| {
            (f.kind == "river" || f.kind == "ford")
                && geo::Intersects::intersects(&poly, &f.polygon())
        })
        .collect();
    if on_river.is_empty() {
        return Some((pct("canal"), "on the canal".into()));
    }
    let flow = on_river.iter().find_map(|f| f.flow);
    let Some(flow) = flow else {
        return Some((100, "upriver (the river has no flow given)".into()));
    };
    if from == to {
        return Some((100, "upriver".into()));
    }
    let heading = g::bearing(from, to);
    let diff = (i64::from(heading) - i64::from(flow)).rem_euclid(360);
    let diff = diff.min(360 - diff);
    if diff < 90 {
        Some((pct("downriver"), "downriver".into()))
    } else {
        Some((100, "upriver".into()))
    }
}
