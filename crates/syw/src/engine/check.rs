//! Checking the active side's orders against the position (no dice).

#[allow(clippy::wildcard_imports)]
use super::*;

/// Check a side's orders against the position (no dice).
pub fn check(r: &Ruleset, st: &State, side: usize, text: &str) -> Result<Vec<Plan>, Rejection> {
    let t = tables(r)?;
    let mut plans: Vec<Plan> = Vec::new();
    // Units manufacturing a retreat (B): no other order for them.
    let mut retreats: Vec<String> = Vec::new();
    // Standing orders this mail gives each unit (no two that contradict).
    let mut standing_given: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let parsed = parse(text)?;
    // Guns named for the fog-of-war table's "relocate and fire" may be
    // ordered to move and fire; the fire lapses unless the event comes.
    let fog_guns: Vec<String> = parsed
        .iter()
        .filter_map(|(_, _, l)| match l {
            Line::FogGuns(gs) => Some(gs.clone()),
            _ => None,
        })
        .flatten()
        .collect();
    for (n, line, l) in parsed {
        let (members, brigade, regiment) = match l {
            Line::Pass => continue,
            Line::FogBrigade(b) => {
                standing::check_fog_brigade(r, st, side, &b)
                    .map_err(|m| Rejection::at(n, &line, m))?;
                continue;
            }
            Line::FogGuns(gs) => {
                standing::check_fog_guns(r, st, side, &gs)
                    .map_err(|m| Rejection::at(n, &line, m))?;
                continue;
            }
            Line::Split(id) => {
                let u = st
                    .unit(&id)
                    .ok_or_else(|| Rejection::at(n, &line, no_unit(st, &id)))?;
                super::super::split::check(r, u, side).map_err(|m| Rejection::at(n, &line, m))?;
                continue;
            }
            Line::Retreat(id) => {
                retreat::check(r, st, side, &id).map_err(|m| Rejection::at(n, &line, m))?;
                if retreats.contains(&id) || plans.iter().any(|p| p.unit.eq_ignore_ascii_case(&id))
                {
                    return Err(Rejection::at(n, &line, format!("{id} has two orders")));
                }
                retreats.push(id);
                continue;
            }
            Line::Standing { id, orders } => {
                let u = st
                    .unit(&id)
                    .ok_or_else(|| Rejection::at(n, &line, no_unit(st, &id)))?;
                if u.side != side {
                    return Err(Rejection::at(n, &line, format!("{} is not yours", u.id)));
                }
                let earlier = standing_given.entry(u.id.clone()).or_default();
                standing::check_line(r, st, &id, &orders, earlier)
                    .map_err(|m| Rejection::at(n, &line, m))?;
                earlier.extend(orders);
                continue;
            }
            Line::Unit { id, steps } => (vec![(id, steps)], None, None),
            Line::Regiment { id, steps } => (
                regiment_members(st, side, &id, &steps).map_err(|m| Rejection::at(n, &line, m))?,
                None,
                Some(id),
            ),
            Line::Brigade { id, steps } => {
                let ids: Vec<String> = st
                    .units
                    .iter()
                    .filter(|u| {
                        u.side == side
                            && u.brigade == id
                            && r.troop(&u.troop).is_some_and(|tr| tr.class != "command")
                    })
                    .map(|u| u.id.clone())
                    .collect();
                if ids.is_empty() {
                    return Err(Rejection::at(
                        n,
                        &line,
                        format!(
                            "you have no brigade {id} (a brigade is the 'brigade' of its units)"
                        ),
                    ));
                }
                (
                    ids.into_iter().map(|i| (i, steps.clone())).collect(),
                    Some(id),
                    None,
                )
            }
        };
        for (id, steps) in members {
            let u = st
                .unit(&id)
                .ok_or_else(|| Rejection::at(n, &line, no_unit(st, &id)))?;
            if u.side != side {
                return Err(Rejection::at(n, &line, format!("{} is not yours", u.id)));
            }
            if plans.iter().any(|p| p.unit == u.id)
                || retreats.iter().any(|x| x.eq_ignore_ascii_case(&u.id))
            {
                return Err(Rejection::at(n, &line, format!("{} has two orders", u.id)));
            }
            orderable(u).map_err(|m| Rejection::at(n, &line, m))?;
            let fog_gun = fog_guns.contains(&u.id);
            check_steps(r, t, st, u, &steps, fog_gun).map_err(|m| Rejection::at(n, &line, m))?;
            plans.push(Plan {
                line: n,
                text: line.clone(),
                unit: u.id.clone(),
                steps: steps.clone(),
                brigade: brigade.clone(),
                regiment: regiment.clone(),
            });
        }
    }
    Ok(plans)
}

/// L: "Line cavalry move by squadron ... Regiment move in lie or column. A
/// regiment may dice and move as one body, Regimental move. If moving as a
/// regiment one squadron may charge/contact and other squadrons may move
/// to support." The squadrons of the side's regiment `id` and each one's
/// steps: the one named by `CHARGE <unit> WITH <squadron>` first, with the
/// steps and the charge, the others the steps before the charge.
pub(super) fn regiment_members(
    st: &State,
    side: usize,
    id: &str,
    steps: &[Step],
) -> Result<Vec<(String, Vec<Step>)>, String> {
    let squadrons: Vec<&Unit> = st
        .units
        .iter()
        .filter(|u| u.side == side && u.regiment == id)
        .collect();
    let Some(first) = squadrons.first() else {
        return Err(format!(
            "you have no regiment {id} (a regiment is the 'regiment' of its line cavalry squadrons)"
        ));
    };
    if squadrons.len() < 2 {
        return Err(format!(
            "regiment {id} has one squadron left ({}): order it with UNIT",
            first.id
        ));
    }
    // "as one body ... in line or column": every squadron faces the same
    // way.
    if let Some(o) = squadrons.iter().find(|u| u.facing != first.facing) {
        return Err(format!(
            "{} faces {}° and {} {}°: a regiment moves as one body, its squadrons in line or column facing one way",
            first.id, first.facing, o.id, o.facing
        ));
    }
    let before: Vec<Step> = steps
        .iter()
        .take_while(|s| !matches!(s, Step::ChargeWith(..)))
        .cloned()
        .collect();
    let charge = steps.iter().find_map(|s| match s {
        Step::ChargeWith(t, q) => Some((t.clone(), q.clone())),
        _ => None,
    });
    let mut out = Vec::new();
    if let Some((t, q)) = &charge {
        let Some(c) = squadrons.iter().find(|u| u.id.eq_ignore_ascii_case(q)) else {
            return Err(format!(
                "{q} is not a squadron of regiment {id} ({})",
                squadrons
                    .iter()
                    .map(|u| u.id.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        };
        let mut s = before.clone();
        s.push(Step::Charge(t.clone()));
        out.push((c.id.clone(), s));
    }
    for u in &squadrons {
        if out.iter().all(|(i, _)| *i != u.id) {
            out.push((u.id.clone(), before.clone()));
        }
    }
    Ok(out)
}

pub(super) fn check_steps(
    r: &Ruleset,
    t: &Tables,
    st: &State,
    u: &Unit,
    steps: &[Step],
    fog_gun: bool,
) -> Result<(), String> {
    let tr = r.troop(&u.troop).ok_or("unknown troop")?;
    let mut formation = u.formation.clone();
    let mut refused = u.refused.clone();
    let moves = steps.iter().any(Step::moves);
    let mut sections_fired: Vec<&str> = Vec::new();
    let mut bonuses = 0;
    for s in steps {
        match s {
            Step::Refuse(x) => {
                let mut v = u.clone();
                v.formation = formation.clone();
                v.refused = refused.clone();
                line::room(tr, &v, x)?;
                refused.retain(|o| o.end != x.end);
                refused.push(x.clone());
            }
            Step::About => refused.clear(),
            Step::SectionFire(x, sec, bonus) => {
                if moves && !fog_gun {
                    return Err(format!(
                        "{}: units that move cannot fire (except response fire)",
                        u.id
                    ));
                }
                if sections_fired.contains(&sec.as_str()) {
                    return Err(format!("{}'s {sec} section fires once", u.id));
                }
                sections_fired.push(sec);
                bonuses += usize::from(*bonus);
                if bonuses > 1 {
                    return Err(format!(
                        "{}'s fire bonus goes to one section (BONUS once)",
                        u.id
                    ));
                }
                let tg = st.unit(x).ok_or_else(|| format!("there is no unit {x}"))?;
                let mut sh = u.clone();
                sh.formation = formation.clone();
                sh.refused = refused.clone();
                if sh.refused.is_empty() {
                    return Err(format!(
                        "{} is a straight line: it fires as one unit (FIRE AT {x})",
                        u.id
                    ));
                }
                let parts = line::sections(r, &sh);
                let Some((_, part)) = parts.iter().find(|(n, _)| n == sec) else {
                    return Err(format!("{} has no {sec} wing refused", u.id));
                };
                if !moves {
                    fire_check(r, t, st, part, tg)
                        .map_err(|m| format!("{}'s {sec} section: {m}", u.id))?;
                }
            }
            Step::Form(f) => {
                if !tr.formations.contains(f) {
                    return Err(format!(
                        "a {} forms {}, not {f}",
                        tr.name,
                        tr.formations.join(" or ")
                    ));
                }
                formation = f.clone();
                refused.clear();
            }
            Step::Limber | Step::Unlimber if tr.class != "artillery" => {
                return Err(format!(
                    "only guns limber and unlimber; {} is {}",
                    u.id, tr.name
                ));
            }
            Step::Limber => formation = "limbered".into(),
            Step::Unlimber => formation = "deployed".into(),
            Step::FireAt(x) => {
                if moves && !fog_gun {
                    return Err(format!(
                        "{}: units that move cannot fire (except response fire)",
                        u.id
                    ));
                }
                let tg = st.unit(x).ok_or_else(|| format!("there is no unit {x}"))?;
                let mut sh = u.clone();
                sh.formation = formation.clone();
                sh.refused = refused.clone();
                if !moves {
                    // A refused line fires by section: some section must
                    // be able to.
                    let parts = line::sections(r, &sh);
                    let tried: Vec<Result<FireGeo, String>> = parts
                        .iter()
                        .map(|(_, p)| fire_check(r, t, st, p, tg))
                        .collect();
                    if !tried.iter().any(Result::is_ok) {
                        if let Some(Err(e)) = tried.into_iter().next() {
                            return Err(e);
                        }
                    }
                }
            }
            Step::Charge(x) => {
                let tg = st.unit(x).ok_or_else(|| format!("there is no unit {x}"))?;
                if tg.side == u.side {
                    return Err(format!("{} is your own unit", tg.id));
                }
                if tr.class == "artillery" || tr.class == "command" {
                    return Err(format!("a {} does not charge", tr.name));
                }
                if formation == "march" {
                    return Err("a column of march cannot contact the enemy".into());
                }
                let mut ch = u.clone();
                ch.formation = formation.clone();
                let geo = charge_geometry(r, st, &ch, tg);
                let st_t = t.troop(&u.troop).ok_or("unknown troop")?;
                let most = (i64::from(st_t.move_dice) * 6) * PER_INCH + st_t.column_bonus;
                if geo.path > most {
                    return Err(format!(
                        "{} is {} from contact with {}: more than {} can ever move ({}d6\")",
                        u.id,
                        fmt_len(geo.path),
                        tg.id,
                        u.id,
                        st_t.move_dice
                    ));
                }
                if let Some(b) = charge_blocked(r, st, &ch, tg, &geo) {
                    return Err(format!(
                        "{} has no line of sight through its charge distance to {}: {b} is in the way",
                        u.id, tg.id
                    ));
                }
            }
            _ => {}
        }
    }
    Ok(())
}
