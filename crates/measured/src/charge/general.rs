//! The General's rally (Charge!, MORALE, "The General's rally"), and what a
//! General, a wagon and a barge may and may not be ordered to do.
//!
//! "A general may rally a retiring unit (unless it is at 50% or less) by
//! moving to the unit and attaching himself to it. When he reaches the unit
//! a single D6 is thrown to see how many moves it will take before the unit
//! is fit for action. Once this happens, the General may not leave the unit
//! during the battle."
//!
//! A General is a unit of troop class `general`: one mounted officer figure
//! and no rank and file. He moves like light cavalry (the ruleset's
//! `[troops.general]`), is hit only as an officer (picking off, then the
//! saving throw), and `RALLY <unit>` is his whole order. On reaching the
//! unit he leaves the table as a unit and stands in its officers (no morale
//! points: the book gives him none), so he can never leave it again.
//! Readings in docs/rules/charge.md, "The General's rally".

use super::orders::Step;
use super::{footprint, troop, Plan, Turn};
use crate::charge::Ruleset;
use crate::charge::{State, Unit};
use crate::events::Charge;
use crate::geometry::{fmt_len, Dist2};
use crate::ruleset::Troop;
use crate::state::{Forced, Officer};
use std::collections::BTreeSet;

/// A troop that neither tests morale nor counts as a fighting unit.
pub(super) fn non_combatant(t: &Troop) -> bool {
    t.is("general") || t.is("wagon") || t.is("barge")
}

/// Is the unit retiring, the state a General's rally answers: bad morale,
/// or a forced move to the rear (retire, break off, a drawn melee's
/// retirement). Broken units (the 50% rule) are excluded by the caller.
fn retiring(u: &Unit) -> bool {
    u.bad_morale.is_some()
        || matches!(
            u.forced,
            Some(Forced::Retire | Forced::BreakOff | Forced::Exhausted { retire: 1.., .. })
        )
}

/// Why this step may not be ordered (None: the usual checks decide).
pub(super) fn step_refusal(
    r: &Ruleset,
    st: &State,
    u: &Unit,
    s: &Step,
    steps: &[Step],
) -> Option<String> {
    let t = troop(r, u);
    let target = match s {
        Step::FireAt(x) | Step::Canister(x) | Step::PickOff(x) | Step::Charge(x) => {
            st.unit(x).map(|o| (o, troop(r, o)))
        }
        _ => None,
    };
    let movement = matches!(
        s,
        Step::Forward(_) | Step::Back(_) | Step::Wheel(_) | Step::About | Step::Hold
    );
    if t.is("general") {
        if let Step::Rally(_) = s {
            if steps.len() != 1 {
                return Some("RALLY is the General's whole order for the move".into());
            }
            return None;
        }
        if !movement {
            return Some(format!(
                "a General moves and rallies (FORWARD, BACK, WHEEL, ABOUT, HOLD, RALLY u), not {}",
                s.canonical()
            ));
        }
        return None;
    }
    if let Step::Rally(_) = s {
        return Some(format!(
            "only a General rallies a unit ({} is a {})",
            u.id,
            t.name.to_lowercase()
        ));
    }
    if (t.is("wagon") || t.is("barge")) && !movement {
        return Some(format!(
            "{} only move: the book gives a {} no fire, charge or change of formation",
            u.id,
            t.name.to_lowercase()
        ));
    }
    if let Some((o, ot)) = target {
        if ot.is("general") && !matches!(s, Step::PickOff(_)) {
            return Some(format!(
                "{} is a General: he is hit only as an officer (PICK OFF {})",
                o.id, o.id
            ));
        }
        if matches!(s, Step::PickOff(_)) && o.alive_officers().next().is_none() {
            return Some(format!("{} has no officers to pick off", o.id));
        }
        if matches!(s, Step::Charge(_)) && (ot.is("wagon") || ot.is("barge")) {
            return Some(format!(
                "{} is a {}: the book gives no melee with wagons or barges, so it is fired at, not charged",
                o.id,
                ot.name.to_lowercase()
            ));
        }
    }
    None
}

/// Check `RALLY x` for General `u`: the report's measure, or the refusal.
pub(super) fn rally_check(r: &Ruleset, st: &State, u: &Unit, x: &str) -> Result<String, String> {
    let tg = st.unit(x).ok_or_else(|| format!("there is no unit {x}"))?;
    if tg.side != u.side {
        return Err(format!(
            "{} is not yours: a General rallies his own side",
            tg.id
        ));
    }
    let tt = troop(r, tg);
    if non_combatant(tt) {
        return Err(format!("a {} is not rallied", tt.name.to_lowercase()));
    }
    if tg.broken || tg.rf * r.morale.half[1] <= tg.start_rf * r.morale.half[0] {
        return Err(format!(
            "{} is at 50% or less of its rank and file ({} of {}): no General may rally it",
            tg.id, tg.rf, tg.start_rf
        ));
    }
    if tg.rallying.is_some() {
        return Err(format!("{} is already being rallied", tg.id));
    }
    if !retiring(tg) {
        return Err(format!(
            "{} is not retiring (its morale is good): a General rallies a retiring unit",
            tg.id
        ));
    }
    let reach = troop(r, u).moves.get("line").copied().unwrap_or(0);
    let d = footprint(r, tg).dist2_from(u.front);
    if !d.within(reach) {
        return Err(format!(
            "{} is {} away, beyond the General's move of {}",
            tg.id,
            fmt_len(d.floor()),
            fmt_len(reach)
        ));
    }
    Ok(format!("rides {} to {}", fmt_len(d.floor()), tg.id))
}

/// The rallies of this move, after all movement: each General reaches his
/// unit where it now stands (after its forced move) if it is within his
/// move, joins its officers, and a D6 gives the moves until it is fit for
/// action. The units rallied now.
pub(super) fn rallies(t: &mut Turn<'_, '_, '_>, all: &[Plan]) -> BTreeSet<String> {
    let r = t.r;
    let mut now = BTreeSet::new();
    for p in all {
        let Some(Step::Rally(x)) = p.steps.first() else {
            continue;
        };
        let (Some(gen), Some(tg)) = (t.st.unit(&p.unit).cloned(), t.st.unit(x).cloned()) else {
            t.ev.push(Charge::Lapse {
                unit: p.unit.to_string(),
                why: format!("{x} is gone"),
            });
            continue;
        };
        if tg.broken || tg.rf * r.morale.half[1] <= tg.start_rf * r.morale.half[0] {
            t.ev.push(Charge::Lapse {
                unit: gen.id.to_string(),
                why: format!("{} is at 50% or less: it cannot be rallied", tg.id),
            });
            continue;
        }
        let reach = troop(r, &gen).moves.get("line").copied().unwrap_or(0);
        let d: Dist2 = footprint(r, &tg).dist2_from(gen.front);
        if !d.within(reach) {
            t.ev.push(Charge::Lapse {
                unit: gen.id.to_string(),
                why: format!(
                    "{} retired to {} away, beyond the General's move of {}: he stays",
                    tg.id,
                    fmt_len(d.floor()),
                    fmt_len(reach)
                ),
            });
            continue;
        }
        let die = t.roll();
        t.st.units.retain(|u| u.id != gen.id);
        if let Some(m) = t.st.unit_mut(&tg.id) {
            for o in gen.officers.iter().filter(|o| o.alive) {
                m.officers.push(Officer {
                    rank: format!("{} ({})", o.rank, gen.id),
                    points: o.points,
                    mounted: o.mounted,
                    alive: true,
                });
            }
            m.rallying = Some(die);
            m.bad_morale = None;
            m.forced = None;
            m.melee = None;
        }
        now.insert(tg.id.clone());
        t.ev.push(Charge::GeneralRally {
            unit: gen.id.to_string(),
            target: tg.id.to_string(),
            dist: d.floor(),
            text: fmt_len(d.floor()),
            die,
        });
    }
    now
}

/// A General picked off and not saved leaves the field: with no rank and
/// file, a General unit whose officer is dead is removed.
pub(super) fn fallen(t: &mut Turn<'_, '_, '_>) {
    let r = t.r;
    let dead: Vec<String> =
        t.st.units
            .iter()
            .filter(|u| troop(r, u).is("general") && u.alive_officers().next().is_none())
            .map(|u| u.id.clone())
            .collect();
    for id in dead {
        t.st.units.retain(|u| u.id != id);
        t.ev.push(Charge::GeneralFalls {
            unit: id.to_string(),
        });
    }
}

/// The end of a move: a rallying unit that failed a morale test (it lost
/// figures and tested bad) is retiring again, its General still with it;
/// otherwise one move of the die's count is spent (not the move he arrived
/// in), and at none left the unit is fit for action.
pub(super) fn end_of_move(t: &mut Turn<'_, '_, '_>, now: &BTreeSet<String>) {
    let mut fit = Vec::new();
    for u in t.st.units.iter_mut() {
        let Some(n) = u.rallying else { continue };
        if u.bad_morale.is_some() || u.broken {
            u.rallying = None;
            continue;
        }
        if now.contains(&u.id) {
            continue;
        }
        if n <= 1 {
            u.rallying = None;
            fit.push(u.id.clone());
        } else {
            u.rallying = Some(n - 1);
        }
    }
    for id in fit {
        t.ev.push(Charge::GeneralFit {
            unit: id.to_string(),
        });
    }
}
