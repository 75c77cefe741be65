//! The fog of war at the start of a player-turn.

#[allow(clippy::wildcard_imports)]
use super::*;

// ------------------------------------------------------------------ fog of war

/// Pick one of `n` things with d6s (two dice above six things), rerolling
/// faces that name nothing.
pub(super) fn pick(tn: &mut Turn<'_, '_, '_>, n: usize) -> usize {
    if n <= 1 {
        return 0;
    }
    for _ in 0..20 {
        let k = if n <= 6 {
            tn.roll() as usize
        } else {
            let a = tn.roll() as usize;
            let b = tn.roll() as usize;
            (a - 1) * 6 + b
        };
        if k >= 1 && k <= n {
            return k - 1;
        }
    }
    0
}

pub(super) fn fog(tn: &mut Turn<'_, '_, '_>) {
    let side = tn.side;
    let pt = tn.pt;
    expire_effects(tn);
    let d = tn.roll();
    if !tn.t.fog_trigger.contains(&d) {
        tn.note(
            format!("Fog of war: {d}, nothing happens"),
            Syw::FogRoll {
                die: d,
                dice: None,
                event: None,
            },
        );
        return;
    }
    let a = tn.roll();
    let b = tn.roll();
    let total = a + b;
    let table = tn.t.fog_table(&tn.st.sides, side).to_vec();
    let Some(entry) = table.iter().find(|e| e.roll == total).cloned() else {
        return;
    };
    tn.note(
        format!("Fog of war: {d}, then {a}+{b} = {total}: {}", entry.name),
        Syw::FogRoll {
            die: d,
            dice: Some([a, b]),
            event: Some(entry.id.to_string()),
        },
    );
    let until = match entry.duration.as_str() {
        "active" => pt + 1,
        _ => pt + 2,
    };
    let (units, text) = fog_event(tn, &entry);
    tn.note(
        format!("{} ({}): {text}", entry.name, tn.st.sides[side]),
        Syw::FogEvent {
            event: entry.id.to_string(),
            side: tn.st.sides[side].to_string(),
            units: units.clone(),
        },
    );
    if entry.duration != "instant" {
        if let Some(s) = tn.st.syw.as_mut() {
            s.effects.retain(|e| e.id != entry.id || e.side != side);
            s.effects.push(Effect {
                id: entry.id.clone(),
                name: entry.name.clone(),
                side,
                until,
                checks: 0,
                units,
            });
        }
    }
}

/// Effects that end before this player-turn; rain is checked.
pub(super) fn expire_effects(tn: &mut Turn<'_, '_, '_>) {
    let side = tn.side;
    let pt = tn.pt;
    let effects = tn
        .st
        .syw
        .as_ref()
        .map(|s| s.effects.clone())
        .unwrap_or_default();
    let mut keep = Vec::new();
    for mut e in effects {
        if e.id == "rain" && e.until <= pt && e.side == side {
            if e.checks < 2 {
                let d = tn.roll();
                if d == 1 {
                    e.checks += 1;
                    e.until = pt + 2;
                    tn.note(
                        format!("Rain check: {d}: the rain goes on another turn"),
                        Syw::Rain { die: Some(d) },
                    );
                    keep.push(e);
                    continue;
                }
                tn.note(
                    format!("Rain check: {d}: the rain ceases"),
                    Syw::Rain { die: Some(d) },
                );
            } else {
                tn.note(
                    "The rain ceases (checked twice)".into(),
                    Syw::Rain { die: None },
                );
            }
            continue;
        }
        if e.until <= pt && e.id != "rain" {
            tn.note(
                format!("{} ({}) ends", e.name, tn.st.sides[e.side]),
                Syw::EffectEnds {
                    event: e.id.to_string(),
                },
            );
            continue;
        }
        keep.push(e);
    }
    if let Some(s) = tn.st.syw.as_mut() {
        s.effects = keep;
    }
}

/// What a fog-of-war event does at once: the units (or brigades) it
/// concerns and the sentence for the report.
pub(super) fn fog_event(tn: &mut Turn<'_, '_, '_>, entry: &FogEntry) -> (Vec<String>, String) {
    let side = tn.side;
    let mut units = Vec::new();
    let mut text = String::new();
    match entry.id.as_str() {
        "commander-killed" | "commander-unhorsed" => return commander_lost(tn, entry),
        "crisis-meeting" => return crisis_meeting(tn),
        "lost-orders" => {
            if let Some(a) = tn.army_commander(side) {
                let ap = tn.st.unit(&a).map(|u| u.front).unwrap_or(Pt::new(0, 0));
                let near = tn
                    .st
                    .units
                    .iter()
                    .filter(|u| u.side == side && !u.brigade.is_empty() && u.brigade != "ARMY")
                    .filter(|u| tn.troop_class(u) != "command")
                    .min_by_key(|u| (u.front.dist2(ap), u.id.clone()))
                    .map(|u| u.brigade.clone());
                if let Some(b) = near {
                    text = format!("brigade {b} (nearest {a}) moves at half rate");
                    units.push(b);
                }
            }
        }
        "inspired-command" => {
            if let Some(a) = tn.army_commander(side) {
                let ap = tn.st.unit(&a).map(|u| u.front).unwrap_or(Pt::new(0, 0));
                let far = tn
                    .commanders(side)
                    .into_iter()
                    .filter(|c| *c != a)
                    .filter_map(|c| tn.st.unit(&c).map(|u| (u.front.dist2(ap), c)))
                    .max();
                let c = far.map_or(a, |(_, c)| c);
                text = format!("every unit within 18\" of {c} has the command bonus");
                units.push(c);
            }
        }
        "guns-relocate-fire" | "guns-fire-twice" => {
            let n = entry.guns.unwrap_or(2) as usize;
            let guns: Vec<String> = tn
                .fog_guns
                .iter()
                .filter_map(|gid| tn.st.unit(gid))
                .filter(|u| u.side == side && tn.troop_class(u) == "artillery")
                .map(|u| u.id.clone())
                .take(n)
                .collect();
            text = if guns.is_empty() {
                "no guns named (FOG GUNS): no effect".into()
            } else {
                format!("for {}", guns.join(", "))
            };
            units = guns;
        }
        "brigade-advance" | "attack-column-advance" => {
            if let Some(b) = tn.fog_brigade.clone() {
                text = format!("brigade {b}");
                units.push(b);
            } else {
                text = "no brigade named (FOG BRIGADE): none moves".into();
            }
        }
        "remove-disorder" => {
            let mut n = 0;
            for u in tn.st.units.iter_mut().filter(|u| u.side == side) {
                if u.marker.as_deref() == Some("orange") {
                    u.marker = None;
                    n += 1;
                }
            }
            text = format!("{n} disorder markers removed");
        }
        _ => {
            text = match entry.id.as_str() {
                "rain" => "minus two dice from every throw, both players' turns".into(),
                "dead-calm" => "minus one die from every fire throw this player-turn".into(),
                "no-cavalry-advance" => {
                    "line cavalry may not advance towards the enemy for a turn".into()
                }
                "cavalry-no-command" => "line cavalry not under command for a turn".into(),
                _ => String::new(),
            };
        }
    }
    (units, text)
}

/// A commander killed or unhorsed: the army commander with half the
/// chance of any other.
pub(super) fn commander_lost(tn: &mut Turn<'_, '_, '_>, entry: &FogEntry) -> (Vec<String>, String) {
    let side = tn.side;
    let cs = tn.commanders(side);
    if cs.is_empty() {
        return (Vec::new(), "no commander on the table: no effect".into());
    }
    let army = tn.army_commander(side);
    let mut w: Vec<String> = Vec::new();
    for c in &cs {
        if Some(c) == army.as_ref() {
            w.push(c.clone());
        } else {
            w.push(c.clone());
            w.push(c.clone());
        }
    }
    let k = pick(tn, w.len());
    let c = w[k].clone();
    let mut text = String::new();
    if entry.id == "commander-killed" {
        text = format!("{c} is killed");
        tn.destroy(&c, "commander killed by a stray shell");
    } else {
        let depth = tn.st.depth;
        if let Some(u) = tn.st.unit(&c).cloned() {
            let y = if side == 0 { 0 } else { depth };
            let facing = if side == 0 { 0 } else { 180 };
            let mut v = u.clone();
            v.facing = facing;
            let d = footprint(tn.r, &v).depth;
            let inward = if side == 0 { d } else { -d };
            // The nearest clear place on its edge: straight
            // back, else 2" to either side, and so on.
            for k in 0..60i64 {
                let off = if k % 2 == 1 { (k + 1) / 2 } else { -(k / 2) } * 2 * PER_INCH;
                v.front = Pt::new(u.front.x + off, y + inward);
                if clear_of_all(tn, &v) {
                    break;
                }
            }
            if clear_of_all(tn, &v) {
                if let Some(x) = tn.st.unit_mut(&c) {
                    x.front = v.front;
                    x.facing = v.facing;
                }
            }
            text = format!(
                "{c} is unhorsed and returns to its own table edge at x = {}",
                fmt_len(v.front.x)
            );
        }
    }
    (vec![c], text)
}

/// A crisis meeting: every commander rides to the army commander.
pub(super) fn crisis_meeting(tn: &mut Turn<'_, '_, '_>) -> (Vec<String>, String) {
    let side = tn.side;
    let mut units = Vec::new();
    let Some(a) = tn.army_commander(side) else {
        return (units, "no army commander: no effect".into());
    };
    let at = tn.st.unit(&a).map(|u| (u.front, u.facing));
    let mut k = 0i64;
    for c in tn.commanders(side).into_iter().filter(|c| *c != a) {
        // Beside the army commander, 2" apart, right then left,
        // at the first clear place.
        if let (Some((p, f)), Some(u)) = (at, tn.st.unit(&c).cloned()) {
            let mut v = u.clone();
            v.facing = f;
            let mut placed = false;
            while k < 60 && !placed {
                k += 1;
                let off = if k % 2 == 1 {
                    k.div_euclid(2) + 1
                } else {
                    -(k / 2)
                };
                v.front = g::offset(p, i64::from(f), 0, off * 2 * PER_INCH);
                placed = clear_of_all(tn, &v);
            }
            if placed {
                if let Some(x) = tn.st.unit_mut(&c) {
                    x.front = v.front;
                    x.facing = v.facing;
                }
            }
        }
        units.push(c);
    }
    let text = format!("every commander rides to {a}");
    (units, text)
}

/// Fog events that move a brigade before the normal moves.
pub(super) fn fog_advance(tn: &mut Turn<'_, '_, '_>) {
    for (id, inches, form) in [
        ("brigade-advance", 3, false),
        ("attack-column-advance", 2, true),
    ] {
        let Some(e) = tn.effect(id).filter(|e| e.side == tn.side).cloned() else {
            continue;
        };
        let inches =
            tn.t.fog
                .values()
                .flatten()
                .find(|f| f.id == id)
                .and_then(|f| f.inches)
                .map_or(inches, i64::from);
        for b in &e.units {
            let ids: Vec<String> = tn
                .st
                .units
                .iter()
                .filter(|u| u.side == tn.side && &u.brigade == b && tn.troop_class(u) == "infantry")
                .map(|u| u.id.clone())
                .collect();
            for id in ids {
                if form {
                    let ok =
                        tn.r.troop(&tn.st.unit(&id).map(|u| u.troop.clone()).unwrap_or_default())
                            .is_some_and(|t| t.formations.iter().any(|f| f == "attack"));
                    let mut v = tn.st.unit(&id).cloned();
                    if let Some(v) = v.as_mut() {
                        v.formation = "attack".into();
                    }
                    if ok && v.as_ref().is_some_and(|v| clear_of_all(tn, v)) {
                        if let Some(u) = tn.st.unit_mut(&id) {
                            u.formation = "attack".into();
                        }
                    }
                }
                let d = walk(tn, &id, inches * PER_INCH, false, "fog");
                tn.note(
                    format!(
                        "{id} {}moves {} directly toward the enemy ({})",
                        if form { "forms attack column and " } else { "" },
                        fmt_len(d),
                        e.name
                    ),
                    Syw::FogMove {
                        unit: id.to_string(),
                        moved: d,
                    },
                );
            }
        }
    }
}
