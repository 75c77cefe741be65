//! A.1 and A.2: compulsory moves and clearing disorder.

#[allow(clippy::wildcard_imports)]
use super::*;

// ------------------------------------------------------------------ A.1, A.2

pub(super) fn compulsory(tn: &mut Turn<'_, '_, '_>) {
    let ids: Vec<String> = tn
        .st
        .units
        .iter()
        .filter(|u| u.side == tn.side && matches!(u.forced, Some(Forced::Retire | Forced::Rout)))
        .map(|u| u.id.clone())
        .collect();
    for id in ids {
        let Some(u) = tn.st.unit(&id).cloned() else {
            continue;
        };
        // It has moved this player-turn (no clearing its disorder now).
        tn.moved.insert(id.clone());
        let rout = u.forced == Some(Forced::Rout);
        let dice = tn.t.troop(&u.troop).map_or(1, |t| t.move_dice);
        let thrown = tn.rolls(dice);
        let d: i64 = thrown.iter().map(|x| i64::from(*x)).sum::<i64>() * PER_INCH;
        let (target, why) = if rout && u.routed_before {
            let y = if u.side == 0 {
                -10_000
            } else {
                tn.st.depth + 10_000
            };
            (
                Pt::new(footprint(tn.r, &u).centre().x, y),
                "towards its own edge",
            )
        } else {
            let c = footprint(tn.r, &u).centre();
            let enemy = tn
                .st
                .units
                .iter()
                .filter(|e| e.side != u.side)
                .min_by_key(|e| (footprint(tn.r, e).centre().dist2(c), e.id.clone()))
                .map(|e| footprint(tn.r, e).centre());
            match enemy {
                Some(e) if e != c => (
                    Pt::new(c.x + (c.x - e.x) * 64, c.y + (c.y - e.y) * 64),
                    "directly away from the enemy",
                ),
                _ => {
                    let y = if u.side == 0 {
                        -10_000
                    } else {
                        tn.st.depth + 10_000
                    };
                    (Pt::new(c.x, y), "towards its own edge")
                }
            }
        };
        let moved = flee(tn, &id, target, d);
        let what = if rout { "routs" } else { "retreats" };
        match moved {
            Flee::Gone => {
                tn.note(
                    format!(
                        "{id} {what} {why} ({thrown:?} = {}) and leaves the table",
                        fmt_len(d)
                    ),
                    Syw::Compulsory {
                        unit: id.to_string(),
                        dice: thrown.clone(),
                        moved: None,
                    },
                );
                let k = tn.st.units.iter().position(|x| x.id == id);
                if let Some(k) = k {
                    let u = tn.st.units.remove(k);
                    let c = footprint(tn.r, &u).centre();
                    let brigade = u.brigade.clone();
                    tn.happened.push((
                        u.id,
                        u.side,
                        brigade,
                        c,
                        if rout { "rout" } else { "retreat" },
                    ));
                }
            }
            Flee::Blocked => {
                tn.destroy(&id, "its compulsory move is not possible");
            }
            Flee::Moved(m) => {
                tn.note(
                    format!("{id} {what} {} {why} (dice {thrown:?})", fmt_len(m)),
                    Syw::Compulsory {
                        unit: id.to_string(),
                        dice: thrown.clone(),
                        moved: Some(m),
                    },
                );
                let c = tn
                    .st
                    .unit(&id)
                    .map(|u| footprint(tn.r, u).centre())
                    .unwrap_or(Pt::new(0, 0));
                let brigade = u.brigade.clone();
                tn.happened.push((
                    id.clone(),
                    u.side,
                    brigade,
                    c,
                    if rout { "rout" } else { "retreat" },
                ));
                if let Some(x) = tn.st.unit_mut(&id) {
                    x.marker = Some("orange".into());
                    x.melee = None;
                    if rout {
                        x.routed_before = true;
                    } else {
                        x.forced = None;
                    }
                }
            }
        }
        // The enemy it was in melee with is free.
        for o in tn.st.units.iter_mut() {
            if o.melee.as_ref().is_some_and(|m| m.with == id) {
                o.melee = None;
            }
        }
    }
}

pub(super) enum Flee {
    Moved(i64),
    Gone,
    Blocked,
}

/// Move a unit's whole ground toward `target` up to `d`, keeping its
/// facing, passing through friends, stopping short of enemies.
pub(super) fn flee(tn: &mut Turn<'_, '_, '_>, id: &str, target: Pt, d: i64) -> Flee {
    let Some(u) = tn.st.unit(id).cloned() else {
        return Flee::Blocked;
    };
    let c = footprint(tn.r, &u).centre();
    let mut best = 0;
    let mut k = PER_INCH / 4;
    while k <= d {
        let p = toward(c, target, k);
        let mut v = u.clone();
        v.front = Pt::new(u.front.x + p.x - c.x, u.front.y + p.y - c.y);
        let fp = footprint(tn.r, &v);
        if !tn.st.on_table(&fp) {
            return Flee::Gone;
        }
        if tn
            .st
            .units
            .iter()
            .any(|o| o.id != u.id && o.side != u.side && g::overlap(&footprint(tn.r, o), &fp))
        {
            break;
        }
        best = k;
        k += PER_INCH / 4;
    }
    if best == 0 && d > 0 {
        return Flee::Blocked;
    }
    let p = toward(c, target, best);
    // Interpenetrated friends: ends clear of them if it can.
    let mut end = best;
    loop {
        let q = toward(c, target, end);
        let mut v = u.clone();
        v.front = Pt::new(u.front.x + q.x - c.x, u.front.y + q.y - c.y);
        let fp = footprint(tn.r, &v);
        if !tn
            .st
            .units
            .iter()
            .any(|o| o.id != u.id && g::overlap(&footprint(tn.r, o), &fp))
            || end == 0
        {
            break;
        }
        end -= PER_INCH / 4;
    }
    let _ = p;
    let q = toward(c, target, end);
    // J.6: "Interpenetrating friendly unit (except if at least one unit is
    // light and friendly)" disorders the friends passed through.
    let mut through: Vec<String> = Vec::new();
    let mut k = PER_INCH / 4;
    while k <= end {
        let s = toward(c, target, k);
        let mut v = u.clone();
        v.front = Pt::new(u.front.x + s.x - c.x, u.front.y + s.y - c.y);
        let fp = footprint(tn.r, &v);
        for o in &tn.st.units {
            if o.id != u.id
                && o.side == u.side
                && !through.contains(&o.id)
                && g::overlap(&footprint(tn.r, o), &fp)
            {
                through.push(o.id.clone());
            }
        }
        k += PER_INCH / 4;
    }
    if let Some(x) = tn.st.unit_mut(id) {
        x.front = Pt::new(u.front.x + q.x - c.x, u.front.y + q.y - c.y);
    }
    tn.through.clone_from(&through);
    for o in through {
        let Some(ou) = tn.st.unit(&o).cloned() else {
            continue;
        };
        if tn.is_light(&u) || tn.is_light(&ou) || tn.troop_class(&ou) == "command" {
            continue;
        }
        if !Turn::disordered(&ou) {
            tn.disorder(&o);
            tn.note(
                format!("{id} passes through {o}: {o} is disordered (J.6)"),
                Syw::Interpenetrated {
                    unit: o.to_string(),
                    by: id.to_string(),
                },
            );
        }
    }
    Flee::Moved(end)
}

pub(super) fn clear_disorder(tn: &mut Turn<'_, '_, '_>) {
    let ids: Vec<String> = tn
        .st
        .units
        .iter()
        .filter(|u| u.side == tn.side && u.marker.is_some() && u.forced.is_none())
        .filter(|u| !tn.moved.contains(&u.id))
        .map(|u| u.id.clone())
        .collect();
    for id in ids {
        let Some(u) = tn.st.unit(&id).cloned() else {
            continue;
        };
        // J.5: "Incorrect formation" disorders; the disorder stays while
        // the formation does.
        if let Some(why) = line::incorrect(&u) {
            tn.note(
                format!("{id} is in an incorrect formation ({why}): it stays disordered"),
                Syw::Clear {
                    unit: id.to_string(),
                    cleared: false,
                    dice: None,
                },
            );
            continue;
        }
        let exp = tn.t.exp(&u);
        let mut thrown = Vec::new();
        let mut cleared = false;
        for n in &exp.clear {
            let d = tn.rolls(*n);
            let fail = d.iter().all(|x| *x == 1);
            thrown.push(d);
            if !fail {
                cleared = true;
                break;
            }
        }
        let what = if u.marker.as_deref() == Some("red") {
            "reforms"
        } else {
            "clears its disorder"
        };
        if cleared {
            if let Some(x) = tn.st.unit_mut(&id) {
                x.marker = None;
            }
            tn.note(
                format!("{id} ({}) {what}: {thrown:?}", u.experience),
                Syw::Clear {
                    unit: id.to_string(),
                    dice: Some(thrown.clone()),
                    cleared: true,
                },
            );
        } else {
            tn.note(
                format!(
                    "{id} ({}) fails to clear its {} marker: {thrown:?}",
                    u.experience,
                    u.marker.clone().unwrap_or_default()
                ),
                Syw::Clear {
                    unit: id.to_string(),
                    dice: Some(thrown.clone()),
                    cleared: false,
                },
            );
        }
    }
}
