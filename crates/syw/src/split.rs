//! Splitting a battery (the Seven Years' War rulebook, L): "Guns are grouped into batteries of
//! one, two and rarely three. If a battery is split, then apportion crews
//! equally and treat as separate batteries. They cannot regroup." The
//! order `SPLIT <battery>` takes the battery's right-hand gun and its equal
//! share of the crew (and of the crew it started with) into a new battery
//! `<battery>-2` (or the next free number) standing where that gun stood;
//! the old battery keeps the rest, closed up on its left. It happens at
//! the start of the normal moves; the new battery takes orders from the
//! next player-turn. No order joins batteries again.

use crate::events::Syw;
use crate::geometry as g;
use crate::Ruleset;
use crate::{State, Unit};

/// Whether `u` may be split by `side` now.
pub fn check(r: &Ruleset, u: &Unit, side: usize) -> Result<(), String> {
    if u.side != side {
        return Err(format!("{} is not yours", u.id));
    }
    if r.troop(&u.troop).is_none_or(|t| t.class != "artillery") {
        return Err(format!("only batteries split; {} is not guns", u.id));
    }
    let guns = u.guns.iter().filter(|x| !x.destroyed).count();
    if guns < 2 {
        return Err(format!(
            "{} is a battery of one gun: there is nothing to split",
            u.id
        ));
    }
    if u.formation != "deployed" {
        return Err(format!("{} splits when deployed, not limbered", u.id));
    }
    if u.rf < 2 {
        return Err(format!("{} has too few crew to share", u.id));
    }
    super::engine::orderable(u)
}

/// Split the battery `id` (already checked); the events to report.
pub fn split(r: &Ruleset, st: &mut State, id: &str) -> Vec<(String, Syw)> {
    let Some(u) = st.unit(id).cloned() else {
        return Vec::new();
    };
    if check(r, &u, u.side).is_err() {
        return Vec::new();
    }
    let Some(t) = r.troop(&u.troop) else {
        return Vec::new();
    };
    let n = u.guns.len() as u32;
    let gf = t.gun_frontage;
    // Equal shares: the new battery one gun's share, rounded down.
    let crew = u.rf / n;
    let start = u.start_rf / n;
    let mut old = u.clone();
    let mut new = u.clone();
    let Some(gun) = old.guns.pop() else {
        return Vec::new();
    };
    new.guns = vec![gun];
    new.rf = crew.max(1);
    new.start_rf = start.max(new.rf);
    old.rf -= new.rf;
    old.start_rf = old.start_rf.saturating_sub(new.start_rf).max(old.rf);
    let f = i64::from(u.facing);
    old.front = g::offset(u.front, f, 0, -gf / 2);
    new.front = g::offset(u.front, f, 0, gf * i64::from(n - 1) / 2);
    let mut k = 2;
    let new_id = loop {
        let cand = format!("{}-{k}", u.id);
        if st.unit(&cand).is_none()
            && !super::entry::reserves(st)
                .iter()
                .any(|x| x.unit.id.eq_ignore_ascii_case(&cand))
        {
            break cand;
        }
        k += 1;
    };
    new.id.clone_from(&new_id);
    new.name = format!("{} (split)", u.name);
    new.melee = None;
    let text = format!(
        "{} splits: {new_id} takes 1 gun and {} crew; {} keeps {} gun{} and {} crew",
        u.id,
        new.rf,
        u.id,
        old.guns.len(),
        if old.guns.len() == 1 { "" } else { "s" },
        old.rf
    );
    let ev = (
        text,
        Syw::Split {
            unit: u.id.clone(),
            new: new_id.clone(),
            crew: [old.rf, new.rf],
        },
    );
    if let Some(x) = st.unit_mut(id) {
        *x = old;
    }
    st.units.push(new);
    vec![ev]
}
