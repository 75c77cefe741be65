//! Steps 1 and 2 of the move: forced moves (retire, break off, rout,
//! exhaustion), charges (with heavy cavalry riding down infantry) and
//! every other unit's movement, at once.

#[allow(clippy::wildcard_imports)]
use super::*;

/// Move a unit straight back (or, if `about`, turned to the rear) up to `d`,
/// as far as it goes without overlapping anything; off the table if `flee`.
fn move_rear(t: &mut Turn<'_, '_, '_>, id: &str, d: i64, why: &str, flee: bool) {
    let r = t.r;
    let Some(u) = t.st.unit(id).cloned() else {
        return;
    };
    let mut best = None;
    let mut k = d;
    while k > 0 {
        let end = g::offset(u.front, i64::from(u.facing), -k, 0);
        let mut v = u.clone();
        v.front = end;
        let fp = footprint(r, &v);
        let sw = Footprint {
            front: u.front,
            depth: fp.depth + k,
            ..fp
        };
        let blocked = t.st.units.iter().any(|o| {
            let ofp = footprint(r, o);
            // The end's corners are rounded apart from the sweep's.
            o.id != u.id && (g::overlap(&sw, &ofp) || g::overlap_deeply(&fp, &ofp))
        });
        if !blocked && (t.st.on_table(&fp) || flee) {
            best = Some((end, k, !t.st.on_table(&fp)));
            break;
        }
        k -= PER_INCH.min(k);
    }
    match best {
        Some((_, _, true)) => {
            t.ev.push(Charge::Fled {
                unit: id.to_string(),
                why: why.to_string(),
            });
            t.st.units.retain(|x| x.id != id);
        }
        Some((end, k, false)) => {
            if let Some(m) = t.st.unit_mut(id) {
                m.front = end;
            }
            t.ev.push(Charge::Retire {
                unit: id.to_string(),
                dist: k,
                text: fmt_len(k),
                why: why.to_string(),
            });
        }
        None => t.ev.push(Charge::Retire {
            unit: id.to_string(),
            dist: 0,
            text: "0\"".into(),
            why: format!("{why}; blocked"),
        }),
    }
}

pub(super) fn forced_moves(t: &mut Turn<'_, '_, '_>) {
    let ids: Vec<String> = t.st.units.iter().map(|u| u.id.clone()).collect();
    for id in ids {
        let Some(u) = t.st.unit(&id).cloned() else {
            continue;
        };
        let tr = troop(t.r, &u);
        let normal = allowance(tr, &u.formation, false);
        match u.forced.clone() {
            Some(Forced::Retire) => {
                move_rear(t, &id, normal, "retires a normal move", false);
                if let Some(m) = t.st.unit_mut(&id) {
                    m.forced = None;
                }
            }
            Some(Forced::BreakOff) => {
                move_rear(
                    t,
                    &id,
                    normal,
                    "breaks off: a complete move to the rear",
                    false,
                );
                if let Some(m) = t.st.unit_mut(&id) {
                    m.forced = None;
                }
            }
            Some(Forced::Rout) => move_rear(
                t,
                &id,
                normal,
                "moves directly to the rear (50% rule)",
                true,
            ),
            // "They may defend themselves if attacked": a unit fighting
            // again does not retire out of its new melee.
            Some(Forced::Exhausted { retire, rest }) if retire > 0 && u.melee.is_none() => {
                move_rear(t, &id, normal, "retires after a drawn melee", false);
                t.not_rested.insert(id.clone());
                if let Some(m) = t.st.unit_mut(&id) {
                    m.forced = Some(Forced::Exhausted {
                        retire: retire - 1,
                        rest,
                    });
                }
            }
            _ => {}
        }
    }
}

pub(super) fn charges(t: &mut Turn<'_, '_, '_>, all: &[Plan]) {
    for p in all {
        let Some((ch, tg)) = charge_made(t, p) else {
            continue;
        };
        let fired = fire_at_chargers(t, &ch, &tg);
        strike(t, p, &ch, &tg, fired);
    }
}

/// The charger and its target when plan `p` is a charge that is made this
/// move; None (with the lapse reported) when it is not.
pub(super) fn charge_made(t: &mut Turn<'_, '_, '_>, p: &Plan) -> Option<(Unit, Unit)> {
    let r = t.r;
    let Some(Action::Charge { target, .. }) = &p.action else {
        return None;
    };
    let (Some(ch), Some(tg)) = (t.st.unit(&p.unit).cloned(), t.st.unit(target).cloned()) else {
        return None;
    };
    if ch.melee.is_some() {
        t.ev.push(Charge::Lapse {
            unit: ch.id.to_string(),
            why: format!("already in melee; its charge at {target} lapses"),
        });
        return None;
    }
    // Another charge or a forced move may have put a unit in the way
    // since the orders were checked: the charge is stopped, not made.
    let ground = p
        .action
        .as_ref()
        .map(|a| charge_ground(r, &ch, a))
        .unwrap_or_default();
    if let Some(o) = t.st.units.iter().find(|o| {
        o.id != ch.id && o.id != tg.id && ground.iter().any(|s| g::overlap(s, &footprint(r, o)))
    }) {
        t.ev.push(Charge::Lapse {
            unit: ch.id.to_string(),
            why: format!("{} is in the way: its charge at {target} is not made", o.id),
        });
        return None;
    }
    Some((ch, tg))
}

/// Whether `tg` may fire at its chargers this move (its standing orders,
/// line muskets, not in melee, broken or in bad morale).
pub(super) fn fires_at_chargers(r: &Ruleset, tg: &Unit) -> bool {
    tg.standing.iter().any(|s| s == "FIRE AT CHARGERS")
        && troop(r, tg).musket == "line"
        && tg.melee.is_none()
        && !tg.broken
        && tg.bad_morale.is_none()
}

/// The band of `tg`'s volley at its chargers: the closest of its first
/// volley or, once it has volleyed, of the normal table.
pub(super) fn chargers_band(r: &Ruleset, tg: &Unit) -> Option<Band> {
    if tg.volleyed {
        r.normal.first().cloned()
    } else {
        r.first_volley.first().cloned()
    }
}

/// Firing at chargers, in the move contact is made: both sides throw a
/// D6, the defender's higher fires a close-range volley.
fn fire_at_chargers(t: &mut Turn<'_, '_, '_>, ch: &Unit, tg: &Unit) -> Option<FireAtChargers> {
    let r = t.r;
    if !fires_at_chargers(r, tg) {
        return None;
    }
    let a = t.roll();
    let d = t.roll();
    if d > a {
        let band = chargers_band(r, tg);
        let killed = band.map_or(0, |b| line_volley(t, &tg.id, &ch.id, &b, false));
        chargers_hit(t, ch, tg, killed);
        Some(FireAtChargers {
            attacker: a,
            defender: d,
            fired: true,
            killed: Some(killed),
        })
    } else {
        Some(FireAtChargers {
            attacker: a,
            defender: d,
            fired: false,
            killed: None,
        })
    }
}

/// After `tg`'s volley at its chargers killed `killed` of `ch`: it has
/// volleyed, and the dead count towards the melee's result.
pub(super) fn chargers_hit(t: &mut Turn<'_, '_, '_>, ch: &Unit, tg: &Unit, killed: u32) {
    if let Some(m) = t.st.unit_mut(&tg.id) {
        m.volleyed = true;
    }
    *t.melee_credit.entry(ch.id.clone()).or_default() += killed;
}

/// The charge strikes: the charger squared up to the face it struck, both
/// in melee, its impetus noted, and heavy cavalry's ride-down.
pub(super) fn strike(
    t: &mut Turn<'_, '_, '_>,
    p: &Plan,
    ch: &Unit,
    tg: &Unit,
    fired: Option<FireAtChargers>,
) {
    let Some(Action::Charge {
        target,
        front,
        facing,
        dist,
        face,
        impetus,
    }) = &p.action
    else {
        return;
    };
    if let Some(m) = t.st.unit_mut(&ch.id) {
        m.front = *front;
        m.facing = *facing;
        m.melee = Some(Melee {
            with: tg.id.clone(),
            moves: 0,
            attacker: *impetus,
        });
    }
    if let Some(m) = t.st.unit_mut(&tg.id) {
        if m.melee.is_none() {
            m.melee = Some(Melee {
                with: ch.id.clone(),
                moves: 0,
                attacker: false,
            });
        }
    }
    // An attacker without impetus is still the attacker of the melee.
    if !*impetus {
        if let Some(m) = t.st.unit_mut(&ch.id) {
            if let Some(ml) = m.melee.as_mut() {
                ml.attacker = true;
            }
        }
    }
    let face_name = ["front", "right flank", "rear", "left flank"][*face];
    t.ev.push(Charge::Charge {
        unit: ch.id.to_string(),
        target: tg.id.to_string(),
        dist: *dist,
        text: fmt_len(*dist),
        face: face_name.to_string(),
        impetus: *impetus,
        fire_at_chargers: fired,
        side: t.st.sides[ch.side].to_string(),
    });
    if !*impetus {
        t.ev.push(Charge::Note {
            text: format!(
                "{} moves to contact at its normal rate: no charge impetus",
                ch.id
            ),
        });
    }
    t.melee_impetus(&ch.id, *impetus);
    if *impetus {
        ride_down(t, &ch.id, target, *face, *dist);
    }
}

/// Heavy cavalry riding down infantry less than 4 ranks deep, once the
/// charge has struck (src/rules/measured/ride_down.rs).
fn ride_down(t: &mut Turn<'_, '_, '_>, ch: &str, target: &str, face: usize, dist: i64) {
    let r = t.r;
    let (Some(cu), Some(tu)) = (t.st.unit(ch).cloned(), t.st.unit(target).cloned()) else {
        return;
    };
    let st = t.st.clone();
    let Some(o) = ride_down::attempt(r, &st, &cu, &tu, face, dist, &mut || t.roll()) else {
        return;
    };
    t.ev.push(o.event);
    let k = t.kill(target, o.killed, cu.side);
    match o.through {
        None => {
            // Ridden down in the first move of the melee: they count
            // towards its result.
            *t.melee_credit.entry(format!("ridden:{ch}")).or_default() += k;
        }
        Some((end, next)) => {
            if let Some(m) = t.st.unit_mut(target) {
                if m.melee.as_ref().is_some_and(|x| x.with == ch) {
                    m.melee = None;
                }
            }
            if let Some(m) = t.st.unit_mut(ch) {
                m.front = end.front;
                m.facing = end.facing;
                m.melee = None;
            }
            if let Some((
                Action::Charge {
                    target: n,
                    front,
                    facing,
                    ..
                },
                _,
            )) = next
            {
                if let Some(m) = t.st.unit_mut(ch) {
                    m.front = front;
                    m.facing = facing;
                    m.melee = Some(Melee {
                        with: n.clone(),
                        moves: 0,
                        attacker: true,
                    });
                }
                if let Some(m) = t.st.unit_mut(&n) {
                    if m.melee.is_none() {
                        m.melee = Some(Melee {
                            with: ch.to_string(),
                            moves: 0,
                            attacker: false,
                        });
                    }
                }
            }
        }
    }
}

impl Turn<'_, '_, '_> {
    fn melee_impetus(&mut self, id: &str, impetus: bool) {
        if impetus {
            self.melee_credit
                .entry(format!("impetus:{id}"))
                .or_default();
        }
    }
}

pub(super) fn movement(t: &mut Turn<'_, '_, '_>, all: &[Plan]) -> BTreeSet<String> {
    let r = t.r;
    // Units engaged by a charge this move do not carry out their orders.
    let mut going: Vec<&Plan> = Vec::new();
    for p in all {
        if matches!(p.action, Some(Action::Charge { .. })) {
            continue;
        }
        if t.st.unit(&p.unit).is_some_and(|u| u.melee.is_some()) {
            t.ev.push(Charge::Lapse {
                unit: p.unit.to_string(),
                why: "charged: its orders lapse".into(),
            });
            continue;
        }
        going.push(p);
    }
    // Simultaneous: a unit whose path or ground meets another unit's final
    // ground stays where it was; repeat until nothing changes.
    let mut halted: BTreeSet<String> = BTreeSet::new();
    loop {
        let finals: BTreeMap<String, Footprint> =
            t.st.units
                .iter()
                .map(|u| {
                    let p = going
                        .iter()
                        .find(|p| p.unit == u.id && !halted.contains(&u.id));
                    (
                        u.id.clone(),
                        p.map_or_else(|| footprint(r, u), |p| footprint(r, &p.end)),
                    )
                })
                .collect();
        let mut changed = false;
        for p in &going {
            // Any change of ground counts, limbering and forming included.
            if halted.contains(&p.unit) || p.sweep.is_empty() {
                continue;
            }
            let end = footprint(r, &p.end);
            let hit = finals.iter().find(|(id, fp)| {
                **id != p.unit
                    && (p.sweep.iter().any(|s| g::overlap(s, fp)) || g::overlap_deeply(&end, fp))
            });
            if let Some((other, _)) = hit {
                t.ev.push(Charge::Blocked {
                    unit: p.unit.to_string(),
                    by: other.to_string(),
                });
                halted.insert(p.unit.clone());
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let mut moved = BTreeSet::new();
    for p in &going {
        let steps: Vec<String> = p.steps.iter().map(|s| s.canonical()).collect();
        if halted.contains(&p.unit) {
            continue;
        }
        if let Some(u) = t.st.unit_mut(&p.unit) {
            let from = u.front;
            u.front = p.end.front;
            u.facing = p.end.facing;
            u.formation = p.end.formation.clone();
            if p.battle_move {
                u.rest = u.rest.saturating_sub(1);
            }
            if let Some(n) = p.enters_ford {
                u.crossing = n.saturating_sub(1);
            }
            if p.moved {
                moved.insert(p.unit.clone());
                t.ev.push(Charge::Moved {
                    unit: p.unit.to_string(),
                    orders: steps,
                    measured: p.measured.clone(),
                    from: [from.x, from.y],
                    to: [p.end.front.x, p.end.front.y],
                    facing: p.end.facing,
                    formation: p.end.formation.to_string(),
                });
            } else if p.limber.is_some() {
                t.ev.push(Charge::Limber {
                    unit: p.unit.to_string(),
                    formation: p.end.formation.to_string(),
                });
            }
        }
    }
    moved
}

pub(super) fn positions(t: &Turn<'_, '_, '_>) -> BTreeMap<String, Unit> {
    t.st.units
        .iter()
        .map(|u| (u.id.clone(), u.clone()))
        .collect()
}
