//! B. The normal moves, with the other side's response fire.

#[allow(clippy::wildcard_imports)]
use super::*;

// ------------------------------------------------------------------ B. moves

/// The movement throw for a unit (or a brigade: `brigade` with its worst
/// modifiers): (inches allowed in sixteenths, the dice, the explanation).
pub(super) fn allowance(
    tn: &mut Turn<'_, '_, '_>,
    ids: &[String],
    brigade: bool,
    charge: bool,
) -> (i64, Vec<u32>, String) {
    let units: Vec<Unit> = ids.iter().filter_map(|i| tn.st.unit(i).cloned()).collect();
    let Some(first) = units.first() else {
        return (0, Vec::new(), String::new());
    };
    let st_t = tn.t.troop(&first.troop).cloned();
    let base = units
        .iter()
        .filter_map(|u| tn.t.troop(&u.troop).map(|t| t.move_dice))
        .min()
        .unwrap_or(1);
    let any_disordered = units.iter().any(Turn::disordered);
    let mut why = vec![format!("{base}d6")];
    let mut extra = 0u32;
    let mut commanded = false;
    if !any_disordered {
        if brigade {
            extra += tn.t.brigade_dice;
            why.push(format!("brigade +{}d", tn.t.brigade_dice));
        }
        if units.iter().all(|u| tn.command_near(u).is_some()) {
            commanded = true;
            extra += tn.t.command_dice;
            why.push(format!("command in 18\" +{}d", tn.t.command_dice));
        }
        let bonus = units
            .iter()
            .map(|u| tn.t.exp(u).bonus_dice)
            .min()
            .unwrap_or(0);
        if bonus > 0 {
            extra += bonus;
            why.push(format!("{} +{bonus}d", first.experience));
        }
    } else {
        why.push("disordered: basic rate only".into());
    }
    // Inspired command: "whatever their circumstances" (disordered too).
    if !commanded && units.iter().all(|u| tn.inspired(u)) {
        extra += tn.t.command_dice;
        why.push(format!("inspired command +{}d", tn.t.command_dice));
    }
    let (minus, wwhy) = tn.weather(false);
    why.extend(wwhy);
    let (up, down, hwhy) = hills::going(tn, &units, charge);
    why.extend(hwhy);
    let thrown_n = (base + extra + up).saturating_sub(minus + down);
    let mut dice = tn.rolls(thrown_n);
    let mut kept = dice.clone();
    kept.sort_unstable_by(|a, b| b.cmp(a));
    kept.truncate(base as usize);
    let mut d = kept.iter().map(|x| i64::from(*x)).sum::<i64>() * PER_INCH;
    if let Some(t) = st_t {
        if t.column_bonus > 0 && matches!(first.formation.as_str(), "march" | "attack") {
            d += t.column_bonus;
            why.push(format!("column +{}\"", fmt_len(t.column_bonus)));
        }
    }
    if tn
        .effect("lost-orders")
        .is_some_and(|e| e.side == tn.side && e.units.contains(&first.brigade))
    {
        d /= 2;
        why.push("lost orders: half".into());
    }
    dice.sort_unstable();
    let text = format!(
        "{} thrown {:?}, kept {:?}: {}",
        why.join(", "),
        dice,
        kept,
        fmt_len(d)
    );
    (d, dice, text)
}

/// Terrain kinds a point is in (areas), for the stop at an edge.
pub(super) fn terrain_at(st: &State, p: Pt) -> Vec<String> {
    let mut v: Vec<String> = st
        .features_at(p)
        .iter()
        .filter(|f| f.kind != "road")
        .map(|f| format!("{}:{}", f.kind, f.name))
        .collect();
    v.sort();
    v
}

/// Walk a unit straight ahead (or back) up to `d`, by quarter inches, with
/// the stops of the rules and the other side's response fire. Returns how
/// far it went.
pub(super) fn walk(tn: &mut Turn<'_, '_, '_>, id: &str, d: i64, back: bool, why: &str) -> i64 {
    let Some(u0) = tn.st.unit(id).cloned() else {
        return 0;
    };
    let step = PER_INCH / 4;
    let mut gone = 0;
    let start_terrain = terrain_at(&tn.st, u0.front);
    let charging = why == "charge";
    while gone < d {
        let inc = step.min(d - gone);
        let Some(cur) = tn.st.unit(id).cloned() else {
            return gone;
        };
        let mut v = cur.clone();
        let fwd = if back { -inc } else { inc };
        v.front = g::offset(cur.front, i64::from(cur.facing), fwd, 0);
        let fp = footprint(tn.r, &v);
        if !tn.st.on_table(&fp) {
            tn.halted.insert(id.to_string());
            break;
        }
        // Every other unit's footprint, once a step (they stand still
        // while this one walks; response fire may change them between steps).
        let others: Vec<(&Unit, _)> = tn
            .st
            .units
            .iter()
            .filter(|o| o.id != v.id)
            .map(|o| (o, footprint(tn.r, o)))
            .collect();
        if others.iter().any(|(_, ofp)| g::overlap(ofp, &fp)) {
            tn.halted.insert(id.to_string());
            break;
        }
        if !charging {
            // Units must stop 3" from enemy unit unless moving to contact.
            let here = footprint(tn.r, &cur);
            let close = others.iter().any(|(o, ofp)| {
                o.side != v.side
                    && !fp_dist2(ofp, &fp).at_least(tn.t.stop_short)
                    && fp_dist2(ofp, &here).at_least(tn.t.stop_short)
            });
            if close {
                tn.halted.insert(id.to_string());
                tn.note(
                    format!("{id} stops 3\" from the enemy"),
                    Syw::Stop {
                        unit: id.to_string(),
                    },
                );
                break;
            }
        }
        if let Some(x) = tn.st.unit_mut(id) {
            x.front = v.front;
        }
        gone += inc;
        response_fire(tn, id);
        if tn.st.unit(id).is_none() {
            return gone;
        }
        let now = terrain_at(&tn.st, v.front);
        if now != start_terrain {
            let entered: Vec<&String> = now.iter().filter(|k| !start_terrain.contains(k)).collect();
            let light = tn.is_light(&v);
            let disorders = entered.iter().any(|k| {
                let kind = k.split(':').next().unwrap_or("");
                tn.t.disorders.iter().any(|x| x == kind)
            });
            if disorders && !light {
                tn.disorder(id);
            }
            tn.note(
                format!(
                    "{id} crosses {} terrain and must stop{}",
                    if entered.is_empty() { "out of" } else { "into" },
                    if disorders && !light {
                        "; disordered"
                    } else {
                        ""
                    }
                ),
                Syw::Terrain {
                    unit: id.to_string(),
                },
            );
            tn.halted.insert(id.to_string());
            break;
        }
    }
    gone
}

/// The other side's response fire at a unit that has just come into a
/// unit's arc of fire and range.
pub(super) fn response_fire(tn: &mut Turn<'_, '_, '_>, mover: &str) {
    let Some(m) = tn.st.unit(mover).cloned() else {
        return;
    };
    let mfp = footprint(tn.r, &m);
    let candidates: Vec<Unit> = tn
        .st
        .units
        .iter()
        .filter(|e| e.side != m.side && e.melee.is_none() && e.forced.is_none())
        .filter(|e| !e.standing.iter().any(|s| s == "HOLD FIRE"))
        .filter(|e| !tn.responded.contains(&(e.id.clone(), mover.to_string())))
        .cloned()
        .collect();
    for e in candidates {
        let class = tn.troop_class(&e);
        if class == "command" || class == "cavalry" || Turn::disordered(&e) {
            continue;
        }
        if e.formation == "march" || e.formation == "limbered" {
            continue;
        }
        let w = tn.t.weapon(&e.troop);
        if w.reach() == 0
            || !ahead_of(tn.r, &e, &mfp)
            || !front_dist2(tn.r, &e, &mfp).within(w.reach())
        {
            continue;
        }
        if fire_blocked(tn.r, &tn.st, &e, &m).is_some() {
            continue;
        }
        tn.responded.insert((e.id.clone(), mover.to_string()));
        let reason = format!("{mover} passes into its arc of fire");
        shoot_response(tn, &e.id, mover, false, &reason);
        if tn.st.unit(mover).is_none() {
            return;
        }
    }
}

/// Response fire: on contact to the front with the normal factors,
/// otherwise 1d6 plus the fire bonus.
pub(super) fn shoot_response(
    tn: &mut Turn<'_, '_, '_>,
    by: &str,
    at: &str,
    front_contact: bool,
    reason: &str,
) {
    let (Some(e), Some(m)) = (tn.st.unit(by).cloned(), tn.st.unit(at).cloned()) else {
        return;
    };
    let (n, why) = if front_contact {
        let (n, mut why) = fire_dice(tn, &e, &m, false, true, false, true);
        why.insert(0, "contacted to its front: normal factors".into());
        (n, why)
    } else {
        let mut n = tn.t.response_dice;
        let mut why = vec![format!("{}d6", tn.t.response_dice)];
        let b = if Turn::disordered(&e) {
            0
        } else {
            tn.t.exp(&e).bonus_dice
        };
        if b > 0 {
            n += b;
            why.push(format!("fire bonus +{b}d6"));
        }
        let (minus, w) = tn.weather(true);
        n = n.saturating_sub(minus);
        why.extend(w);
        (n, why)
    };
    let dice = tn.rolls(n);
    let hits = dice.iter().filter(|d| tn.t.kill.contains(d)).count() as u32;
    let k = tn.kill(at, hits, e.side);
    if e.marker.as_deref() == Some("red") {
        tn.disorder(by);
    }
    if tn.troop_class(&e) == "artillery" {
        tn.lost_art.insert(at.to_string());
    }
    tn.note(
        format!(
            "{by} response fires at {at} ({reason}): {} = {n} dice {dice:?}, {k} killed",
            why.join(", ")
        ),
        Syw::ResponseFire {
            unit: by.to_string(),
            target: at.to_string(),
            dice: dice.clone(),
            killed: k,
        },
    );
    if tn.st.unit(at).is_some_and(|u| u.rf == 0) {
        tn.destroy(at, "no figures left");
    }
}

/// Fire dice of `sh` at `tg`: (dice, the explanation).
pub(super) fn fire_dice(
    tn: &Turn<'_, '_, '_>,
    sh: &Unit,
    tg: &Unit,
    long: bool,
    cone: bool,
    canister: bool,
    bonus: bool,
) -> (u32, Vec<String>) {
    let r = tn.r;
    let tfp = footprint(r, tg);
    let class = tn.troop_class(sh);
    let mut why = Vec::new();
    let mut n: u32 = if class == "artillery" {
        why.push(format!("{} crew", sh.rf));
        sh.rf
    } else {
        let figs = figures(r, sh);
        let files = crate::state::shape(r.troop(&sh.troop).expect("troop"), sh).files as usize;
        let ranks = tn.t.troop(&sh.troop).map_or(0, |t| t.fire_ranks) as usize;
        let counted: Vec<Pt> = if ranks == 0 {
            figs
        } else {
            figs.into_iter().take(files * ranks).collect()
        };
        let facing = i64::from(sh.facing);
        let full = counted
            .iter()
            .filter(|p| g::ray_hit(**p, facing, &tfp).is_some())
            .count() as u32;
        let rest = counted.len() as u32 - full;
        why.push(format!("{full} figures facing the target + half of {rest}"));
        full + rest / 2
    };
    let mut halvings = Vec::new();
    if Turn::disordered(sh) {
        halvings.push("disordered");
    }
    if long {
        halvings.push("long range");
    }
    if in_cover(r, &tn.st, tg) {
        halvings.push("target in cover");
    }
    if class == "artillery" && !cone {
        halvings.push("not 90° to the front");
    }
    for h in &halvings {
        n /= 2;
        why.push(format!("halved: {h}"));
    }
    if bonus && !Turn::disordered(sh) {
        let b = tn.t.exp(sh).bonus_dice;
        if b > 0 {
            n += b;
            why.push(format!("fire bonus +{b}d6"));
        }
    }
    let dense = tn.t.dense.contains(&tg.formation);
    if dense && !tn.is_light(tg) {
        n += tn.t.dense_dice;
        why.push(format!("dense target +{}d6", tn.t.dense_dice));
    }
    if canister {
        n += tn.t.canister_dice;
        why.push(format!("canister +{}d6", tn.t.canister_dice));
    }
    let (minus, w) = tn.weather(true);
    n = n.saturating_sub(minus);
    why.extend(w);
    (n, why)
}

pub(super) fn turn_unit(tn: &mut Turn<'_, '_, '_>, id: &str, deg: i64, budget: i64) -> (i64, i64) {
    let Some(u) = tn.st.unit(id).cloned() else {
        return (0, 0);
    };
    let fp = footprint(tn.r, &u);
    let w = fp.width;
    // The largest whole number of degrees (up to the order) it can afford.
    let mut k = deg.abs();
    while k > 0 && g::arc(w, k) > budget {
        k -= 1;
    }
    if k == 0 {
        return (0, 0);
    }
    let signed = if deg < 0 { -k } else { k };
    let f = i64::from(u.facing);
    let (pivot, side) = if deg < 0 {
        (g::offset(u.front, f, 0, -(w / 2)), w / 2)
    } else {
        (g::offset(u.front, f, 0, w - w / 2), -(w - w / 2))
    };
    let nf = g::norm_deg(f + signed);
    let mut v = u.clone();
    v.facing = nf;
    v.front = g::offset(pivot, i64::from(nf), 0, side);
    let nfp = footprint(tn.r, &v);
    if !tn.st.on_table(&nfp)
        || tn
            .st
            .units
            .iter()
            .any(|o| o.id != v.id && g::overlap(&footprint(tn.r, o), &nfp))
    {
        return (0, 0);
    }
    if let Some(x) = tn.st.unit_mut(id) {
        x.facing = nf;
        x.front = v.front;
    }
    response_fire(tn, id);
    (g::arc(w, k), signed)
}

pub(super) fn movement(tn: &mut Turn<'_, '_, '_>, plans: &[Plan]) {
    // Command units move last.
    let mut order: Vec<&Plan> = plans.iter().collect();
    order.sort_by_key(|p| {
        let cmd = tn
            .st
            .unit(&p.unit)
            .is_some_and(|u| tn.troop_class(u) == "command");
        (cmd, p.line)
    });
    let mut thrown: BTreeMap<String, (i64, String)> = BTreeMap::new();
    for p in order {
        let Some(u) = tn.st.unit(&p.unit).cloned() else {
            continue;
        };
        if !p.steps.iter().any(Step::moves)
            && !p.steps.iter().any(|s| {
                matches!(
                    s,
                    Step::Form(_) | Step::Limber | Step::Unlimber | Step::Refuse(_)
                )
            })
        {
            continue;
        }
        if u.marker.as_deref() == Some("red") && p.steps.iter().any(Step::moves) {
            tn.note(
                format!("{}: reforming (red marker), it does not move", u.id),
                Syw::Lapse {
                    unit: u.id.to_string(),
                },
            );
            continue;
        }
        let line_cav = tn.troop_class(&u) == "cavalry" && !tn.is_light(&u);
        if line_cav
            && tn.effect_for("no-cavalry-advance", tn.side)
            && p.steps
                .iter()
                .any(|s| matches!(s, Step::Forward(_) | Step::Charge(_) | Step::Wheel(_)))
        {
            tn.note(
                format!(
                    "{}: Spirit of Sackville, line cavalry may not advance towards the enemy",
                    u.id
                ),
                Syw::Lapse {
                    unit: u.id.to_string(),
                },
            );
            continue;
        }
        // One throw per brigade moving as one, and per regiment moving as
        // one body (L: "A regiment may dice and move as one body").
        let group = |q: &Plan| -> Option<String> {
            q.brigade
                .as_ref()
                .map(|b| format!("brigade {b}"))
                .or_else(|| q.regiment.as_ref().map(|g| format!("regiment {g}")))
        };
        let (allow, text) = match group(p) {
            Some(b) => {
                if let Some(x) = thrown.get(&b) {
                    x.clone()
                } else {
                    let ids: Vec<String> = plans
                        .iter()
                        .filter(|q| group(q).as_ref() == Some(&b))
                        .map(|q| q.unit.clone())
                        .collect();
                    let charge = plans.iter().any(|q| {
                        group(q).as_ref() == Some(&b)
                            && q.steps.iter().any(|s| matches!(s, Step::Charge(_)))
                    });
                    let (a, _, t) = allowance(tn, &ids, p.brigade.is_some(), charge);
                    thrown.insert(b.clone(), (a, t.clone()));
                    (a, t)
                }
            }
            None => {
                if p.steps.iter().any(Step::moves) {
                    let charge = p.steps.iter().any(|s| matches!(s, Step::Charge(_)));
                    let (a, _, t) = allowance(tn, std::slice::from_ref(&p.unit), false, charge);
                    (a, t)
                } else {
                    (0, String::new())
                }
            }
        };
        execute(tn, p, allow, &text);
    }
}

pub(super) fn execute(tn: &mut Turn<'_, '_, '_>, p: &Plan, allow: i64, throw: &str) {
    let id = p.unit.clone();
    let from = tn.st.unit(&id).map(|u| [u.front.x, u.front.y]);
    let mut left = allow;
    let mut measured: Vec<String> = Vec::new();
    let mut formed = false;
    let mut moved_any = false;
    let mut forward_used = false;
    let mut total = 0;
    for s in &p.steps {
        if tn.st.unit(&id).is_none() {
            return;
        }
        match s {
            Step::Forward(want) => {
                forward_used = true;
                let want = want.unwrap_or(left).min(left);
                let d = walk(tn, &id, want, false, "move");
                left -= d;
                total += d;
                moved_any |= d > 0;
                measured.push(format!("forward {}", fmt_len(d)));
            }
            Step::Back(want) => {
                let want = (*want).min(left);
                let d = walk(tn, &id, want, true, "move");
                left -= d;
                total += d;
                moved_any |= d > 0;
                measured.push(format!("back {}", fmt_len(d)));
            }
            Step::Wheel(deg) => {
                let (cost, done) = turn_unit(tn, &id, *deg, left);
                left -= cost;
                total += cost;
                moved_any |= done != 0;
                measured.push(format!(
                    "wheel {done}° ({} on the outer flank)",
                    fmt_len(cost)
                ));
            }
            Step::About | Step::Form(_) | Step::Limber | Step::Unlimber | Step::Refuse(_) => {
                match reform(tn, &id, s, &mut measured) {
                    None => return,
                    Some(changed) => formed |= changed,
                }
            }
            Step::Hold | Step::FireAt(_) | Step::ChargeWith(..) | Step::SectionFire(..) => {}
            Step::Charge(target) => {
                regiment_support(tn, p, &id);
                charge(tn, &id, target, left, throw);
                tn.moved.insert(id.clone());
                if formed {
                    tn.disorder(&id);
                }
                return;
            }
        }
    }
    // Minimum move: green the full throw, trained at least half.
    if forward_used && tn.st.unit(&id).is_some() && !tn.halted.contains(&id) {
        let min = tn.st.unit(&id).map_or(0, |u| tn.t.exp(u).minimum);
        let need = allow * i64::from(min) / 100;
        if total < need && left > 0 {
            let more = walk(tn, &id, (need - total).min(left), false, "move");
            if more > 0 {
                total += more;
                moved_any = true;
                measured.push(format!(
                    "forward {} more ({}% of the throw must be moved)",
                    fmt_len(more),
                    min
                ));
            }
        }
    }
    if moved_any {
        tn.moved.insert(id.clone());
    }
    let done = Done {
        formed,
        moved_any,
        total,
        from,
    };
    note_moved(tn, &id, throw, &measured, &done);
}

/// What [`execute`] did to a unit: for its note.
struct Done {
    formed: bool,
    moved_any: bool,
    total: i64,
    /// The front's centre before the move (the picture's arrow).
    from: Option<[i64; 2]>,
}

/// The marker of a unit that changed formation, and the note of its move.
fn note_moved(tn: &mut Turn<'_, '_, '_>, id: &str, throw: &str, measured: &[String], d: &Done) {
    let (formed, moved_any, total) = (d.formed, d.moved_any, d.total);
    if let Some(u) = tn.st.unit(id).cloned() {
        if formed {
            let m = if moved_any { "orange" } else { "red" };
            if let Some(x) = tn.st.unit_mut(id) {
                if x.marker.as_deref() != Some("orange") {
                    x.marker = Some(m.into());
                }
            }
        }
        tn.note(
            format!(
                "{} {}{}: now at ({}, {}) facing {}°, {}",
                u.id,
                if throw.is_empty() {
                    String::new()
                } else {
                    format!("[{throw}] ")
                },
                measured.join(", "),
                fmt_len(u.front.x),
                fmt_len(u.front.y),
                u.facing,
                u.formation
            ),
            Syw::Moved {
                unit: u.id.to_string(),
                moved: total,
                at: [u.front.x, u.front.y],
                facing: u.facing,
                from: d.from.filter(|f| *f != [u.front.x, u.front.y]),
            },
        );
    }
}

/// A change of formation or facing in place (about, form, limber, unlimber,
/// refuse a wing), its words added to `measured`: whether the unit changed
/// (false: no room for its new ground), None when the unit is gone.
fn reform(
    tn: &mut Turn<'_, '_, '_>,
    id: &str,
    s: &Step,
    measured: &mut Vec<String>,
) -> Option<bool> {
    let u = tn.st.unit(id).cloned()?;
    let mut v = u.clone();
    let what = match s {
        Step::About => {
            let fp = footprint(tn.r, &u);
            v.facing = g::norm_deg(i64::from(u.facing) + 180);
            v.front = g::offset(u.front, i64::from(u.facing), -fp.depth, 0);
            v.refused.clear();
            "about".to_string()
        }
        Step::Form(f) => {
            v.formation = f.clone();
            v.refused.clear();
            format!("forms {f}")
        }
        Step::Refuse(x) => {
            v.refused.retain(|o| o.end != x.end);
            v.refused.push(x.clone());
            v.refused.sort_by(|a, b| a.end.cmp(&b.end));
            format!(
                "refuses its {} wing ({} files {}° {})",
                x.end,
                x.files,
                x.angle.abs(),
                if x.angle < 0 { "back" } else { "forward" }
            )
        }
        Step::Limber => {
            v.formation = "limbered".into();
            "limbered".to_string()
        }
        _ => {
            v.formation = "deployed".into();
            "deployed".to_string()
        }
    };
    // The new ground must be on the table and clear of others.
    let nfp = footprint(tn.r, &v);
    let blocked = tn
        .st
        .units
        .iter()
        .find(|o| o.id != id && g::overlap(&footprint(tn.r, o), &nfp))
        .map(|o| o.id.clone());
    if !tn.st.on_table(&nfp) || blocked.is_some() {
        measured.push(format!(
            "{what}: no room ({})",
            blocked.unwrap_or_else(|| "the table edge".into())
        ));
        return Some(false);
    }
    if let Some(x) = tn.st.unit_mut(id) {
        x.facing = v.facing;
        x.front = v.front;
        x.formation = v.formation.clone();
        x.refused = v.refused.clone();
    }
    measured.push(what);
    // J.5: "A unit is disordered if; ... 5) Incorrect
    // formation".
    if let Some(why) = line::incorrect(&v) {
        tn.disorder(id);
        measured.push(format!("incorrect formation ({why}): disordered"));
    }
    Some(true)
}

/// A charging squadron's regiment supports it.
fn regiment_support(tn: &mut Turn<'_, '_, '_>, p: &Plan, id: &str) {
    if let Some(g) = &p.regiment {
        // "other squadrons may move to support. Supporting
        // units count charge bonus."
        let others: Vec<String> = tn
            .st
            .units
            .iter()
            .filter(|u| u.regiment == *g && u.side == tn.side && u.id != *id)
            .map(|u| u.id.clone())
            .collect();
        if !others.is_empty() {
            tn.note(
                format!(
                    "{}: squadron{} of regiment {g} supporting {id}'s charge (charge bonus)",
                    others.join(", "),
                    if others.len() == 1 { "" } else { "s" }
                ),
                Syw::RegimentSupport {
                    regiment: g.to_string(),
                    charger: id.to_string(),
                    units: others.clone(),
                },
            );
        }
        tn.supporting.extend(others);
    }
}
