//! B: "Retreat A unit may manufacture a retreat by following results for
//! lost melee by one factor (may result in a route) [Fc]". The order
//! `RETREAT <unit>` gives the unit the results of a melee lost by one: it
//! removes the melee casualties of one point (3 figures), TESTs as a melee
//! loser, and routs if the TEST says rout, else retreats; either way it
//! moves next turn ("Retreats (moves next turn)"). A unit in a drawn melee
//! may do so and leaves it. docs/rules/seven-years-war.md, "A manufactured
//! retreat", gives the reading.

use super::{melee::loser_test, Turn};
use crate::events::Syw;
use crate::state::Forced;
use crate::Ruleset;
use crate::State;

/// Whether `side` may order unit `id` to manufacture a retreat.
pub(super) fn check(r: &Ruleset, st: &State, side: usize, id: &str) -> Result<(), String> {
    let u = st.unit(id).ok_or_else(|| super::no_unit(st, id))?;
    if u.side != side {
        return Err(format!("{} is not yours", u.id));
    }
    if r.troop(&u.troop).is_none_or(|t| t.class == "command") {
        return Err(format!(
            "{} is a command unit: it does not TEST, so it cannot take a lost melee's results (it may evade)",
            u.id
        ));
    }
    match u.forced {
        Some(Forced::Rout) => Err(format!("{} is routing", u.id)),
        Some(Forced::Retire) => Err(format!("{} must retreat this turn already", u.id)),
        _ => Ok(()),
    }
}

/// Carry out a manufactured retreat (already checked).
pub(super) fn manufacture(tn: &mut Turn<'_, '_, '_>, id: &str) {
    let Some(u) = tn.st.unit(id).cloned() else {
        return;
    };
    // It leaves any drawn melee, and so does every unit fighting it.
    for o in &mut tn.st.units {
        if o.id == u.id || o.melee.as_ref().is_some_and(|m| m.with == u.id) {
            o.melee = None;
        }
    }
    let n = tn.t.test.melee_casualties;
    let k = tn.kill(id, n, 1 - u.side.min(1));
    tn.note(
        format!(
            "{id} manufactures a retreat: the results of a melee lost by one, {k} figures removed"
        ),
        Syw::ManufacturedRetreat {
            unit: id.to_string(),
            killed: k,
        },
    );
    tn.sweep_destroyed();
    loser_test(tn, id);
}
