//! Off-table movement (the Seven Years' War rulebook, L): "Off table movement via umpire.
//! Delayed entry 1d6 plus movement bonus, requiring 6. Add 1D6 for each
//! turn delayed." A scenario places a unit `off_table = true` with the
//! point where it comes on; every player-turn of its side, before the
//! normal moves, it throws 1d6, its Movement Bonus dice (trained 1,
//! veteran 2) and one more die for every player-turn it has already been
//! delayed, and comes on if any die shows the `[off_table] needs` face (a
//! 6). The referee (the umpire) may also bring it on, or take a unit off,
//! with AMEND (docs/referee.md). Readings: docs/rules/seven-years-war.md,
//! "Off-table movement".

use super::Tables;
use crate::events::Syw;
use crate::geometry::{fmt_len, Footprint};
use crate::state::ground_taken;
use crate::Ruleset;
use crate::{State, Unit};
use serde::{Deserialize, Serialize};

/// A unit off the table, with the player-turns it has been delayed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reserve {
    /// The unit as it will stand when it comes on (its `front` is the
    /// entry point).
    pub unit: Unit,
    /// Throws failed so far: one more die each.
    #[serde(default)]
    pub delayed: u32,
}

/// Units off the table.
#[must_use]
pub fn reserves(st: &State) -> &[Reserve] {
    st.syw.as_ref().map_or(&[], |s| s.off_table.as_slice())
}

/// Scenario loading: keep `u` off the table; its entry ground must be on
/// the table.
pub fn hold_off_table(st: &mut State, u: Unit, delayed: u32, fp: &Footprint) -> Result<(), String> {
    if !st.on_table(fp) {
        return Err(format!(
            "{} comes on at a point where it does not fit on the table",
            u.id
        ));
    }
    if reserves(st).iter().any(|r| r.unit.id == u.id) {
        return Err(format!("two units named {}", u.id));
    }
    let seq = st.syw.get_or_insert_with(Box::default);
    seq.off_table.push(Reserve { unit: u, delayed });
    Ok(())
}

/// The entry throws of the active side's off-table units, in the order the
/// scenario lists them. Returns the events (text, what).
pub fn throw_for_entry(
    r: &Ruleset,
    t: &Tables,
    st: &mut State,
    side: usize,
    roll: &mut dyn FnMut() -> u32,
) -> Vec<(String, Syw)> {
    let mut out = Vec::new();
    let waiting: Vec<Reserve> = reserves(st)
        .iter()
        .filter(|res| res.unit.side == side)
        .cloned()
        .collect();
    for res in waiting {
        let u = &res.unit;
        let bonus = t.exp(u).bonus_dice;
        let n = 1 + bonus + res.delayed;
        let faces: Vec<u32> = (0..n).map(|_| roll()).collect();
        let shown = faces
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(" ");
        let how = format!(
            "1d6{}{}",
            if bonus > 0 {
                format!(" + {bonus} movement bonus")
            } else {
                String::new()
            },
            if res.delayed > 0 {
                format!(" + {} for turns delayed", res.delayed)
            } else {
                String::new()
            }
        );
        let six = faces.iter().any(|f| *f >= t.off_table_needs);
        let blocked = if six { ground_taken(r, st, u) } else { None };
        let seq = st.syw.get_or_insert_with(Box::default);
        let Some(k) = seq.off_table.iter().position(|x| x.unit.id == u.id) else {
            continue;
        };
        if six && blocked.is_none() {
            let res = seq.off_table.remove(k);
            let text = format!(
                "{} comes on the table at ({}, {}) ({how}: {shown})",
                res.unit.id,
                fmt_len(res.unit.front.x),
                fmt_len(res.unit.front.y)
            );
            out.push((
                text,
                Syw::Enters {
                    unit: res.unit.id.to_string(),
                    dice: faces.clone(),
                    delayed: res.delayed,
                },
            ));
            st.units.push(res.unit);
        } else {
            seq.off_table[k].delayed += 1;
            let why = blocked.map_or_else(
                || format!("no {}", t.off_table_needs),
                |b| format!("a {} but {b}", t.off_table_needs),
            );
            out.push((
                format!(
                    "{} is delayed off the table ({how}: {shown}, {why}); it throws {} dice next time",
                    u.id,
                    n + 1
                ),
                Syw::EntryDelayed { unit: u.id.to_string(), dice: faces.clone(), delayed: res.delayed + 1 },
            ));
        }
    }
    out
}
