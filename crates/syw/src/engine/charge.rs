//! B. Charges, the target answering by its standing orders.

#[allow(clippy::wildcard_imports)]
use super::*;

/// A charge, with the target's response by its standing orders.
pub(super) fn charge(tn: &mut Turn<'_, '_, '_>, id: &str, target: &str, allow: i64, throw: &str) {
    let (Some(ch), Some(tg)) = (tn.st.unit(id).cloned(), tn.st.unit(target).cloned()) else {
        return;
    };
    let geo = charge_geometry(tn.r, &tn.st, &ch, &tg);
    tn.note(
        format!(
            "{id} charges {target} [{throw}]: {} to contact with its {} edge",
            fmt_len(geo.path),
            ["front", "right flank", "rear", "left flank"][geo.face]
        ),
        Syw::Charge {
            unit: id.to_string(),
            target: target.to_string(),
            path: geo.path,
            allowance: allow,
        },
    );
    let response = standing_response(tn, &tg);
    // Responses before contact.
    if response == "EVADE" && tg.melee.is_none() {
        let c = Charging {
            id,
            target,
            ch: &ch,
            tg: &tg,
            geo: &geo,
            allow,
            throw,
        };
        if evade(tn, &c) {
            return;
        }
    }
    if geo.path > allow {
        fall_short(tn, id, &ch, &geo, allow);
        return;
    }
    if !await_contact(tn, (id, target), &tg, &geo, &response) {
        return;
    }
    contact(tn, id, target, &geo, true);
}

/// A charge under way: the charger and its target as they stood, the
/// geometry, the charge allowance and the throw that gave it.
pub(super) struct Charging<'a> {
    pub(super) id: &'a str,
    pub(super) target: &'a str,
    pub(super) ch: &'a Unit,
    pub(super) tg: &'a Unit,
    pub(super) geo: &'a ChargeGeo,
    pub(super) allow: i64,
    pub(super) throw: &'a str,
}

/// The target evades by its standing orders: whether the charge is over
/// (it left the table, was pursued, or a secondary charge took over).
pub(super) fn evade(tn: &mut Turn<'_, '_, '_>, c: &Charging<'_>) -> bool {
    let (ch, tg, geo, allow) = (c.ch, c.tg, c.geo, c.allow);
    let (id, target) = (c.id, c.target);
    let dice = tn.t.troop(&tg.troop).map_or(1, |t| t.move_dice);
    let thrown = tn.rolls(dice);
    let d: i64 = thrown.iter().map(|x| i64::from(*x)).sum::<i64>() * PER_INCH;
    let centre = footprint(tn.r, tg).centre();
    let from = footprint(tn.r, ch).centre();
    // A point far out on the line from the attacker through the
    // evader (not just as far again: an evade may go further).
    let away = Pt::new(
        centre.x + (centre.x - from.x) * 64,
        centre.y + (centre.y - from.y) * 64,
    );
    let res = flee(tn, target, away, d);
    let c2 = tn
        .st
        .unit(target)
        .map(|u| footprint(tn.r, u).centre())
        .unwrap_or(centre);
    tn.happened.push((
        target.to_string(),
        tg.side,
        tg.brigade.clone(),
        c2,
        "retreat",
    ));
    match res {
        Flee::Gone => {
            tn.note(
                format!(
                    "{target} evades ({thrown:?} = {}) and leaves the table",
                    fmt_len(d)
                ),
                Syw::Evade {
                    unit: target.to_string(),
                    dice: Some(thrown.clone()),
                    moved: None,
                },
            );
            if let Some(k) = tn.st.units.iter().position(|x| x.id == target) {
                tn.st.units.remove(k);
            }
            stop_charge(tn, id, geo, allow, "its target left the table");
            true
        }
        Flee::Blocked => {
            tn.note(
                format!("{target} cannot evade: it stands"),
                Syw::Evade {
                    unit: target.to_string(),
                    dice: None,
                    moved: None,
                },
            );
            false
        }
        Flee::Moved(m) => {
            tn.disorder(target);
            tn.note(
                format!(
                    "{target} evades {} directly away from {id} (dice {thrown:?}); disordered",
                    fmt_len(m)
                ),
                Syw::Evade {
                    unit: target.to_string(),
                    dice: Some(thrown.clone()),
                    moved: Some(m),
                },
            );
            pursue(tn, c);
            true
        }
    }
}

/// After the target evaded: the charger catches it, charges a unit it
/// evaded through, or stops.
pub(super) fn pursue(tn: &mut Turn<'_, '_, '_>, c: &Charging<'_>) {
    let (ch, tg, geo, allow, throw) = (c.ch, c.tg, c.geo, c.allow, c.throw);
    let (id, target) = (c.id, c.target);
    let tg2 = tn.st.unit(target).cloned().unwrap_or(tg.clone());
    let geo2 = charge_geometry(tn.r, &tn.st, ch, &tg2);
    if geo2.path <= allow {
        tn.note(
            format!(
                "{id} pursues: {} is within its {} and catches {target}",
                fmt_len(geo2.path),
                fmt_len(allow)
            ),
            Syw::Pursuit {
                unit: id.to_string(),
                target: target.to_string(),
            },
        );
        contact(tn, id, target, &geo2, false);
    } else if let Some(next) = secondary_target(tn, id, target, allow) {
        // "Secondary charge. If target evades through friendly
        // unit then this unit can be charges as if it were the
        // original target."
        tn.secondary.insert(id.to_string());
        tn.note(
            format!(
                "{target} evaded out of reach ({} needed) through {next}: {id} charges {next} instead (secondary charge)",
                fmt_len(geo2.path)
            ),
            Syw::SecondaryCharge { unit: id.to_string(), evader: target.to_string(), target: next.to_string() },
        );
        charge(tn, id, &next, allow, throw);
    } else {
        stop_charge(
            tn,
            id,
            geo,
            allow,
            &format!(
                "{target} evaded out of reach ({} needed)",
                fmt_len(geo2.path)
            ),
        );
    }
}

/// The charge falls short: the charger moves its throw along the path,
/// takes response fire and is disordered.
pub(super) fn fall_short(
    tn: &mut Turn<'_, '_, '_>,
    id: &str,
    ch: &Unit,
    geo: &ChargeGeo,
    allow: i64,
) {
    let d = allow;
    let start = ch.front;
    let direct = isqrt_up(start.dist2(geo.contact)) <= tn.t.charge_distance;
    let first = if direct { geo.contact } else { geo.approach };
    let leg = isqrt_up(start.dist2(first));
    let end = if d <= leg {
        toward(start, first, d)
    } else {
        toward(geo.approach, geo.contact, d - leg)
    };
    let _ = place_charger(
        tn,
        id,
        end,
        if d <= leg && !direct {
            ch.facing
        } else {
            geo.facing
        },
    );
    // It came into the target's arc without contact: response fire.
    response_fire(tn, id);
    tn.disorder(id);
    tn.note(
        format!(
            "{id} falls short ({} of {}) and is disordered",
            fmt_len(allow),
            fmt_len(geo.path)
        ),
        Syw::ChargeShort {
            unit: id.to_string(),
        },
    );
}

/// The target counter-charges or stands (with response fire): whether
/// the charger is still there to make contact.
pub(super) fn await_contact(
    tn: &mut Turn<'_, '_, '_>,
    (id, target): (&str, &str),
    tg: &Unit,
    geo: &ChargeGeo,
    response: &str,
) -> bool {
    let tclass = tn.troop_class(tg);
    let front_contact = geo.face == 0;
    if response == "COUNTER-CHARGE" && tclass == "cavalry" && !Turn::disordered(tg) {
        let n = tn.t.counter_charge_dice + tn.t.exp(tg).bonus_dice;
        let thrown = tn.rolls(n);
        let d: i64 = thrown.iter().map(|x| i64::from(*x)).sum::<i64>() * PER_INCH;
        let need = isqrt_up(tg.front.dist2(geo.approach));
        let reached = d >= need;
        if reached {
            tn.counter.insert(target.to_string());
        }
        tn.note(
            format!(
                "{target} counter-charges: {thrown:?} = {} against {} to the start of {id}'s charge distance: {}",
                fmt_len(d),
                fmt_len(need),
                if reached { "it counts the charge bonus" } else { "no charge bonus" }
            ),
            Syw::CounterCharge { unit: target.to_string(), dice: thrown.clone(), reached },
        );
    } else if response != "EVADE" || tg.melee.is_some() {
        // Stand, and response fire when contacted.
        let fires = !tg.standing.iter().any(|s| s == "HOLD FIRE")
            && tclass != "command"
            && tg.formation != "march"
            && tg.formation != "limbered"
            && tn.t.weapon(&tg.troop).reach() > 0
            && (tclass != "cavalry" || front_contact);
        tn.note(
            format!(
                "{target} stands{}",
                if fires {
                    " and gives response fire"
                } else {
                    ""
                }
            ),
            Syw::Stand {
                unit: target.to_string(),
            },
        );
        if fires {
            let _ = place_charger(tn, id, geo.contact, geo.facing);
            // Its own fire: normal factors if contacted to its front. (A
            // "supported unit is contacted" is the supporters' fire:
            // support_fire.)
            shoot_response(tn, target, id, front_contact, "charged");
            if tn.st.unit(id).is_none() {
                return false;
            }
        }
    }
    true
}

pub(super) fn standing_response(tn: &Turn<'_, '_, '_>, u: &Unit) -> String {
    for s in ["EVADE", "STAND", "COUNTER-CHARGE"] {
        if u.standing.iter().any(|x| x == s) {
            if s == "COUNTER-CHARGE" && tn.troop_class(u) != "cavalry" {
                return "STAND".into();
            }
            return s.into();
        }
    }
    // Defaults: command, light troops and guns evade... guns stand.
    match tn.troop_class(u).as_str() {
        "command" => "EVADE".into(),
        "cavalry" if !Turn::disordered(u) => "COUNTER-CHARGE".into(),
        "infantry" if tn.is_light(u) => "EVADE".into(),
        _ => "STAND".into(),
    }
}

/// Put a charger's front at `front`; if its ground there would overlap a
/// unit (or leave the table), it stops short on the line back toward where
/// it started, at the first clear place. True if it got to `front`.
pub(super) fn place_charger(tn: &mut Turn<'_, '_, '_>, id: &str, front: Pt, facing: i32) -> bool {
    let Some(u) = tn.st.unit(id).cloned() else {
        return false;
    };
    let clear = |tn: &Turn<'_, '_, '_>, v: &Unit| {
        let fp = footprint(tn.r, v);
        tn.st.on_table(&fp)
            && !tn
                .st
                .units
                .iter()
                .any(|o| o.id != v.id && g::overlap(&footprint(tn.r, o), &fp))
    };
    let len = isqrt_up(u.front.dist2(front));
    let mut back = 0;
    while back <= len {
        // Sixteenths first (a turned footprint's corners are rounded), then
        // quarter inches.
        let mut v = u.clone();
        v.front = toward(front, u.front, back);
        v.facing = facing;
        if back == len {
            v.facing = u.facing;
        }
        if clear(tn, &v) {
            if let Some(x) = tn.st.unit_mut(id) {
                x.front = v.front;
                x.facing = v.facing;
            }
            return back <= 2;
        }
        back += if back < 4 { 1 } else { PER_INCH / 4 };
    }
    false
}

/// True if the unit's ground is on the table and overlaps no other unit.
pub(super) fn clear_of_all(tn: &Turn<'_, '_, '_>, v: &Unit) -> bool {
    let fp = footprint(tn.r, v);
    tn.st.on_table(&fp)
        && !tn
            .st
            .units
            .iter()
            .any(|o| o.id != v.id && g::overlap(&footprint(tn.r, o), &fp))
}

pub(super) fn stop_charge(
    tn: &mut Turn<'_, '_, '_>,
    id: &str,
    geo: &ChargeGeo,
    allow: i64,
    why: &str,
) {
    let Some(ch) = tn.st.unit(id).cloned() else {
        return;
    };
    // Ceases where its charge distance began (or as far as it could go).
    let direct = isqrt_up(ch.front.dist2(geo.contact)) <= tn.t.charge_distance;
    if !direct {
        let leg = isqrt_up(ch.front.dist2(geo.approach));
        let end = toward(ch.front, geo.approach, leg.min(allow));
        let mut v = ch.clone();
        v.front = end;
        v.facing = geo.facing;
        let fp = footprint(tn.r, &v);
        if tn.st.on_table(&fp)
            && !tn
                .st
                .units
                .iter()
                .any(|o| o.id != id && g::overlap(&footprint(tn.r, o), &fp))
        {
            let _ = place_charger(tn, id, end, geo.facing);
        }
    }
    tn.disorder(id);
    tn.note(
        format!("{id} fails to contact ({why}) and is disordered"),
        Syw::ChargeShort {
            unit: id.to_string(),
        },
    );
}

/// The soft ground the charge distance (approach to contact) touches.
pub(super) fn soft_ground(tn: &Turn<'_, '_, '_>, geo: &ChargeGeo) -> Option<String> {
    tn.st
        .terrain
        .iter()
        .filter(|f| tn.t.soft.contains(&f.kind) && f.points.len() >= 3)
        .find(|f| {
            let poly = f.polygon();
            g::crosses(geo.last_from, geo.contact, &poly)
                || g::in_polygon(&poly, geo.contact)
                || g::in_polygon(&poly, geo.last_from)
        })
        .map(named)
}

/// The obstacle (a wall) the charge distance crosses, if any.
pub(super) fn over_obstacle(tn: &Turn<'_, '_, '_>, geo: &ChargeGeo) -> Option<String> {
    tn.st
        .terrain
        .iter()
        .filter(|f| tn.t.obstacles.contains(&f.kind) && f.points.len() >= 2)
        .find(|f| g::crosses_line(geo.last_from, geo.contact, &f.polyline()))
        .map(named)
}

/// The friend an evader passed through that the charger can reach with
/// its throw and see through its charge distance: the first such, in the
/// order passed (one secondary charge per charger and player-turn).
pub(super) fn secondary_target(
    tn: &Turn<'_, '_, '_>,
    id: &str,
    evader: &str,
    allow: i64,
) -> Option<String> {
    if tn.secondary.contains(id) {
        return None;
    }
    let ch = tn.st.unit(id)?;
    let ev_side = tn.st.unit(evader).map(|u| u.side)?;
    tn.through.iter().find_map(|f| {
        let tg = tn.st.unit(f)?;
        if tg.side != ev_side || tg.side == ch.side {
            return None;
        }
        let geo = charge_geometry(tn.r, &tn.st, ch, tg);
        (geo.path <= allow && charge_blocked(tn.r, &tn.st, ch, tg, &geo).is_none())
            .then(|| tg.id.clone())
    })
}

pub(super) fn contact(
    tn: &mut Turn<'_, '_, '_>,
    id: &str,
    target: &str,
    geo: &ChargeGeo,
    _first: bool,
) {
    if !place_charger(tn, id, geo.contact, geo.facing) {
        tn.disorder(id);
        tn.note(
            format!("{id} fails to contact {target}: another unit is in the way; disordered"),
            Syw::ChargeShort {
                unit: id.to_string(),
            },
        );
        return;
    }
    let Some(tg) = tn.st.unit(target).cloned() else {
        return;
    };
    if tn.troop_class(&tg) == "command" {
        tn.note(
            format!("{id} contacts the command unit {target}"),
            Syw::Contact {
                unit: id.to_string(),
                target: target.to_string(),
                face: None,
            },
        );
        tn.destroy(target, "contacted: command units are removed");
        return;
    }
    // An attacker disordered by the obstacle arrives disordered: no
    // charge bonus ("Disordered no bonus").
    if let Some(name) = over_obstacle(tn, geo) {
        // "Attackers do not claim cover and are disordered if attack over
        // obstacle."
        tn.disorder(id);
        tn.note(
            format!("{id} attacks over an obstacle ({name}) and is disordered"),
            Syw::OverObstacle {
                unit: id.to_string(),
            },
        );
    }
    let ch = tn.st.unit(id).cloned();
    let soft = soft_ground(tn, geo);
    let bonus = ch.as_ref().is_some_and(|c| {
        !Turn::disordered(c)
            && (!tn.is_light(c) || geo.face == 2)
            && matches!(tn.troop_class(c).as_str(), "infantry" | "cavalry")
    });
    if let Some(name) = &soft {
        if bonus {
            tn.note(
                format!("{id} charges over soft ground ({name}): no charge bonus"),
                Syw::SoftGround {
                    unit: id.to_string(),
                },
            );
        }
    }
    let bonus = bonus && soft.is_none();
    if geo.face != 0 {
        // J.3: a successful move to contact on a flank or rear disorders
        // the unit contacted.
        tn.disorder(target);
    }
    tn.note(
        format!(
            "{id} contacts {target} on its {}{}",
            ["front", "right flank", "rear", "left flank"][geo.face],
            if bonus { " (charge bonus)" } else { "" }
        ),
        Syw::Contact {
            unit: id.to_string(),
            target: target.to_string(),
            face: Some(geo.face),
        },
    );
    tn.contacts
        .push((id.to_string(), target.to_string(), geo.face, bonus));
    support_fire(tn, id, target);
}

/// C: "If contacted to flank or side, no contact or a supported unit is
/// contacted, casualties are based on 1d6, plus fire bonus." The units
/// that support the contacted one (the TEST's "Friends in sight/supported":
/// within 18", in sight, not disordered) and have the charger in their arc
/// and range fire at it, 1d6 plus fire bonus, once per charger.
pub(super) fn support_fire(tn: &mut Turn<'_, '_, '_>, charger: &str, target: &str) {
    let (Some(m), Some(tg)) = (tn.st.unit(charger).cloned(), tn.st.unit(target).cloned()) else {
        return;
    };
    let mfp = footprint(tn.r, &m);
    let tfp = footprint(tn.r, &tg);
    let radius = i64::from(tn.t.test.radius) * PER_INCH;
    let candidates: Vec<Unit> = tn
        .st
        .units
        .iter()
        .filter(|e| e.side == tg.side && e.id != tg.id && e.melee.is_none() && e.forced.is_none())
        .filter(|e| !e.standing.iter().any(|s| s == "HOLD FIRE"))
        .filter(|e| !tn.responded.contains(&(e.id.clone(), charger.to_string())))
        .cloned()
        .collect();
    for e in candidates {
        let class = tn.troop_class(&e);
        // Cavalry only response fire to front (when contacted); the
        // disordered only when contacted.
        if class == "command" || class == "cavalry" || Turn::disordered(&e) {
            continue;
        }
        if e.formation == "march" || e.formation == "limbered" {
            continue;
        }
        if !fp_dist2(&footprint(tn.r, &e), &tfp).within(radius)
            || fire_blocked_any(tn, &e, &tg).is_some()
        {
            continue;
        }
        let w = tn.t.weapon(&e.troop);
        if w.reach() == 0
            || !ahead_of(tn.r, &e, &mfp)
            || !front_dist2(tn.r, &e, &mfp).within(w.reach())
            || fire_blocked(tn.r, &tn.st, &e, &m).is_some()
        {
            continue;
        }
        tn.responded.insert((e.id.clone(), charger.to_string()));
        let reason = format!("{target}, which it supports, is contacted");
        shoot_response(tn, &e.id, charger, false, &reason);
        if tn.st.unit(charger).is_none() {
            return;
        }
    }
}
