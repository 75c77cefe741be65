//! Hills (the Seven Years' War rulebook): "Hills may impede or enhance movement or charges as
//! designated" and E, "Units on hills (which count as flat and break line
//! of sight) cannot shoot over intervening (not on hill) units, within 12";
//! then target any unit which is first in line of sight. May shoot directly
//! onto other hills but 12" rule applies in reverse for friendly units near
//! target. Gap between friendly units and target must be 12" or at least
//! twice the frontage of the target, to fire through."
//! docs/rules/seven-years-war.md, "Hills", gives the reading.

use super::{fp_dist2, front_dist2, Turn};
use crate::geometry::PER_INCH;
use crate::state::{footprint, Feature};
use crate::Ruleset;
use crate::{State, Unit};

/// The hill a unit stands on (its centre, the top contour), if any.
fn hill<'s>(r: &Ruleset, st: &'s State, u: &Unit) -> Option<&'s Feature> {
    let c = footprint(r, u).centre();
    st.features_at(c)
        .into_iter()
        .filter(|f| f.kind == "hill")
        .max_by_key(|f| f.level)
}

/// The fire-over gap of the rule: 12".
const GAP: i64 = 12 * PER_INCH;

/// True if `sh`, firing at `tg`, fires over the unit `o` that is in the
/// way: `sh` is on a hill, `o` is not, `o` is beyond 12" of `sh`'s front,
/// and, if `tg` is on a hill too and `o` is a friend of `sh`, the gap from
/// `o` to `tg` is 12" or at least twice `tg`'s frontage.
pub(super) fn fires_over(r: &Ruleset, st: &State, sh: &Unit, o: &Unit, tg: &Unit) -> bool {
    if hill(r, st, sh).is_none() || hill(r, st, o).is_some() {
        return false;
    }
    let ofp = footprint(r, o);
    if front_dist2(r, sh, &ofp).within(GAP) {
        return false;
    }
    if hill(r, st, tg).is_none() || o.side != sh.side {
        return true;
    }
    let tfp = footprint(r, tg);
    let gap = fp_dist2(&ofp, &tfp);
    gap.at_least(GAP) || gap.at_least(2 * tfp.width)
}

/// The dice a designated hill adds to (enhances) or takes off (impedes)
/// a movement throw: `move_dice` for a move, `charge_dice` for a charge,
/// read where each unit stands; a brigade takes its worst. Returns the
/// dice to add, the dice to take off and the explanation.
pub(super) fn going(
    tn: &Turn<'_, '_, '_>,
    units: &[Unit],
    charge: bool,
) -> (u32, u32, Option<String>) {
    let each: Vec<(i32, String)> = units
        .iter()
        .map(|u| match hill(tn.r, &tn.st, u) {
            Some(f) => {
                let v = if charge { f.charge_dice } else { f.move_dice };
                let name = if f.name.is_empty() { "hill" } else { &f.name };
                (v, name.to_string())
            }
            None => (0, String::new()),
        })
        .collect();
    let Some((v, name)) = each.into_iter().min_by_key(|x| x.0) else {
        return (0, 0, None);
    };
    if v == 0 {
        return (0, 0, None);
    }
    let what = if charge { "charges" } else { "movement" };
    let why = if v > 0 {
        format!("{name} enhances {what} +{v}d")
    } else {
        format!("{name} impedes {what} {v}d")
    };
    (v.max(0).unsigned_abs(), v.min(0).unsigned_abs(), Some(why))
}
