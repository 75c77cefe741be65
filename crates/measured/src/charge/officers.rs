//! An officer hit by fire: the saving throw.

#[allow(clippy::wildcard_imports)]
use super::*;

/// An officer hit: the saving throw (5 or 6 saves him).
pub(super) fn officer_hit(t: &mut Turn<'_, '_, '_>, unit: &str, i: usize) {
    let die = t.roll();
    let saved = t.r.morale.officer_save.contains(&die);
    let mut rank = String::new();
    if let Some(u) = t.st.unit_mut(unit) {
        if let Some(o) = u.officers.get_mut(i) {
            rank = o.rank.clone();
            if !saved {
                o.alive = false;
            }
        }
    }
    if !saved {
        *t.lost.entry(unit.to_string()).or_default() += 0;
        t.melee_credit.entry(format!("officer:{unit}")).or_default();
    }
    t.ev.push(Charge::Officer {
        unit: unit.to_string(),
        rank: rank.to_string(),
        save: die,
        saved,
    });
}
