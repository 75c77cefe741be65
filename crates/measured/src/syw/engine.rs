//! One player-turn of the Seven Years' War (seeds/003, "Sequence of
//! play"): fog of war, compulsory moves, clearing disorder, normal moves
//! and charges (with the other side's response fire, evade, stand and
//! counter-charge decided by its standing orders, so the move resolves in
//! one pass), fire, melee and morale TESTs. docs/rules/seven-years-war.md
//! gives the reading of every garbled passage.

use super::super::geometry::{self as g, fmt_len, Dist2, Footprint, Pt, PER_INCH};
use super::super::ruleset::Ruleset;
use super::super::state::{figures, footprint, Forced, State, Unit};
use super::orders::{parse, Line, Step};
use super::{line, player_turn, standing, Effect, FogEntry, Sequence, Tables};
use crate::events::{Event, Syw, SywNote};
use adjutant_rules::{Chance, Orders, Rejection};
use std::collections::{BTreeMap, BTreeSet};

pub use crate::Outcome;

/// A unit's checked orders.
#[derive(Debug, Clone)]
pub struct Plan {
    pub line: usize,
    pub text: String,
    pub unit: String,
    pub steps: Vec<Step>,
    /// Ordered as part of a brigade (one throw for all, +1d).
    pub brigade: Option<String>,
    /// Ordered as a squadron of a regimental move (L: one throw for the
    /// regiment, no brigade die).
    pub regiment: Option<String>,
}

/// The side whose player-turn it is.
#[must_use]
pub fn active(st: &State) -> usize {
    st.syw.as_ref().map_or(0, |s| s.active)
}

/// Who must send orders: the active side.
#[must_use]
pub fn needs(st: &State) -> Vec<usize> {
    if st.over {
        Vec::new()
    } else {
        vec![active(st)]
    }
}

/// Why an order names no unit: none of that name, or one off the table.
fn no_unit(st: &State, id: &str) -> String {
    if super::entry::reserves(st)
        .iter()
        .any(|x| x.unit.id.eq_ignore_ascii_case(id))
    {
        format!("{id} is off the table: it comes on by its entry throw (or by the referee)")
    } else {
        format!("there is no unit {id}")
    }
}

/// Can the unit be ordered this player-turn, or why not.
pub fn orderable(u: &Unit) -> Result<(), String> {
    if let Some(m) = &u.melee {
        return Err(format!("{} is in melee with {}", u.id, m.with));
    }
    match u.forced {
        Some(Forced::Rout) => Err(format!("{} is routing", u.id)),
        Some(Forced::Retire) => Err(format!("{} must retreat this turn", u.id)),
        _ => Ok(()),
    }
}

fn tables(r: &Ruleset) -> Result<&Tables, Rejection> {
    r.syw
        .as_deref()
        .ok_or_else(|| Rejection::whole("not a Seven Years' War ruleset"))
}

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
                super::split::check(r, u, side).map_err(|m| Rejection::at(n, &line, m))?;
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
fn regiment_members(
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

fn check_steps(
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

// ------------------------------------------------------------------ geometry

/// The distance between two footprints (0 if they touch or overlap).
fn fp_dist2(a: &Footprint, b: &Footprint) -> Dist2 {
    if g::overlap(a, b) {
        return Dist2::of(0);
    }
    let ab = a.corners().iter().map(|c| b.dist2_from(*c)).min();
    let ba = b.corners().iter().map(|c| a.dist2_from(*c)).min();
    ab.into_iter().chain(ba).min().unwrap_or(Dist2::of(0))
}

/// Square root rounded up, of sixteenths squared.
fn isqrt_up(v: i128) -> i64 {
    if v <= 0 {
        return 0;
    }
    let r = (v as u128).isqrt() as i128;
    (if r * r < v { r + 1 } else { r }) as i64
}

/// A point `d` along the way from `a` to `b`.
fn toward(a: Pt, b: Pt, d: i64) -> Pt {
    let len = isqrt_up(a.dist2(b));
    if len == 0 || d >= len {
        return b;
    }
    Pt::new(
        a.x + g::div_round(i128::from(b.x - a.x) * i128::from(d), i128::from(len)),
        a.y + g::div_round(i128::from(b.y - a.y) * i128::from(d), i128::from(len)),
    )
}

#[derive(Debug, Clone)]
struct ChargeGeo {
    /// Where the charger's front centre ends, and its facing.
    contact: Pt,
    facing: i32,
    /// Where the last 6" (the charge distance) begins.
    approach: Pt,
    /// The face of the target struck: 0 front, 1 right, 2 rear, 3 left.
    face: usize,
    /// The whole path.
    path: i64,
    /// Where the charger's last stretch to contact begins: the approach
    /// point, or its own front if it began within the charge distance.
    last_from: Pt,
}

/// The charge: straight to 6" off the face of the target the charger is
/// in front of, then the last 6" at 90° to it (or, if nearer than 6"
/// already, straight in).
fn charge_geometry(r: &Ruleset, _st: &State, ch: &Unit, tg: &Unit) -> ChargeGeo {
    let tfp = footprint(r, tg);
    let from = ch.front;
    let mut best = (0usize, i128::MIN);
    for (k, (a, b)) in tfp.edges().iter().enumerate() {
        // Outward is to the left of a->b (the corners run clockwise):
        // a positive cross product is outside that edge.
        let c = g::cross(*a, *b, from);
        let len2 = a.dist2(*b).max(1);
        // Compare signed distances c/|ab| across edges: c^2/len2 with sign.
        let score = if c >= 0 {
            c * c / len2
        } else {
            -(c * c / len2)
        };
        if score > best.1 {
            best = (k, score);
        }
    }
    let (a, b) = tfp.edges()[best.0];
    // The outward facing of the edge: the target's facing turned.
    let out = i64::from(tg.facing) + [0, 90, 180, 270][best.0];
    let facing = g::norm_deg(out + 180);
    // Projection of the charger's front onto the edge, clamped.
    let ex = i128::from(b.x - a.x);
    let ey = i128::from(b.y - a.y);
    let len2 = (ex * ex + ey * ey).max(1);
    let tnum = i128::from(from.x - a.x) * ex + i128::from(from.y - a.y) * ey;
    let tnum = tnum.clamp(0, len2);
    let contact = Pt::new(
        a.x + g::div_round(ex * tnum, len2),
        a.y + g::div_round(ey * tnum, len2),
    );
    let cd = r.syw.as_ref().map_or(6 * PER_INCH, |t| t.charge_distance);
    let approach = g::offset(contact, out, cd, 0);
    let direct = isqrt_up(from.dist2(contact));
    let path = if direct <= cd {
        direct
    } else {
        isqrt_up(from.dist2(approach)) + cd
    };
    ChargeGeo {
        contact,
        facing,
        approach,
        // "A line infantry unit may form an equally side ... square (no
        // flank or rear)": every face of a square is its front.
        // "Only ultimate edge of unit is flank": a wing refused back
        // turns that flank into a front.
        face: if tg.formation == "square" || line::flank_is_front(tg, best.0) {
            0
        } else {
            best.0
        },
        path,
        last_from: if direct <= cd { from } else { approach },
    }
}

/// What blocks the charge distance (the last 6"), if anything.
fn charge_blocked(
    r: &Ruleset,
    st: &State,
    ch: &Unit,
    tg: &Unit,
    geo: &ChargeGeo,
) -> Option<String> {
    let start = if isqrt_up(ch.front.dist2(geo.contact))
        <= r.syw.as_ref().map_or(96, |t| t.charge_distance)
    {
        ch.front
    } else {
        geo.approach
    };
    for o in &st.units {
        if o.id == ch.id || o.id == tg.id {
            continue;
        }
        let fp = footprint(r, o);
        if g::crosses(start, geo.contact, &fp.polygon()) {
            return Some(o.id.clone());
        }
    }
    for f in &st.terrain {
        if r.terrain
            .get(&f.kind)
            .is_some_and(|k| k.blocks_sight && !k.line)
            && f.points.len() >= 3
        {
            let poly = f.polygon();
            // Ground the charge distance starts on (a hill it stands on)
            // does not block its own sight, as for fire.
            if g::crosses(start, geo.contact, &poly)
                && !g::in_polygon(&poly, start)
                && !g::in_polygon(&poly, tg.front)
                && !g::in_polygon(&poly, footprint(r, tg).centre())
            {
                return Some(named(f));
            }
        }
    }
    None
}

fn named(f: &super::super::state::Feature) -> String {
    if f.name.is_empty() {
        f.kind.clone()
    } else {
        format!("{} ({})", f.name, f.kind)
    }
}

/// The distance from a unit's front edge to a footprint.
fn front_dist2(r: &Ruleset, u: &Unit, fp: &Footprint) -> Dist2 {
    let c = footprint(r, u).corners();
    let (a, b) = (c[0], c[1]);
    if g::crosses(a, b, &fp.polygon()) {
        return Dist2::of(0);
    }
    let mut best = fp.dist2_from(a).min(fp.dist2_from(b));
    for p in fp.corners() {
        best = best.min(g::dist2_point_segment(p, a, b));
    }
    best
}

/// True if some of the footprint lies forward of the unit's front edge.
fn ahead_of(r: &Ruleset, u: &Unit, fp: &Footprint) -> bool {
    let c = footprint(r, u).corners();
    fp.corners()
        .iter()
        .chain(std::iter::once(&fp.centre()))
        .any(|p| g::cross(c[0], c[1], *p) > 0)
}

/// True if the point is within the gun's cone (22.5° either side of the
/// perpendicular): tan(22.5°) = sqrt(2) - 1, compared exactly as
/// lateral^2 * 10^9 <= forward^2 * 171572875 (tan^2 = 3 - 2 sqrt 2).
fn in_cone(from: Pt, facing: i32, p: Pt) -> bool {
    let (s, c) = g::dir(i64::from(facing));
    let vx = i128::from(p.x - from.x);
    let vy = i128::from(p.y - from.y);
    let fwd = vx * i128::from(s) + vy * i128::from(c);
    let lat = vx * i128::from(c) - vy * i128::from(s);
    fwd >= 0 && lat * lat * 1_000_000_000 <= fwd * fwd * 171_572_875
}

/// Why a unit may not fire at a target, or Ok. Range and arc from where it
/// stands now.
fn fire_check(
    r: &Ruleset,
    t: &Tables,
    st: &State,
    sh: &Unit,
    tg: &Unit,
) -> Result<FireGeo, String> {
    let tr = r.troop(&sh.troop).ok_or("unknown troop")?;
    if tg.side == sh.side {
        return Err(format!("{} is your own unit", tg.id));
    }
    if tr.class == "command" {
        return Err("command units cannot fire".into());
    }
    if r.troop(&tg.troop).is_some_and(|x| x.class == "command") {
        return Err(format!(
            "{} is a command unit: it cannot be fired at",
            tg.id
        ));
    }
    if t.troop(&sh.troop).is_some_and(|x| x.response_only) {
        return Err(format!("{} is cavalry: it only response fires", sh.id));
    }
    if sh.formation == "march" || sh.formation == "limbered" {
        return Err(format!("{} cannot fire in {}", sh.id, sh.formation));
    }
    let w = t.weapon(&sh.troop);
    if w.reach() == 0 {
        return Err(format!("{} has no fire", sh.id));
    }
    let tfp = footprint(r, tg);
    if !ahead_of(r, sh, &tfp) {
        return Err(format!(
            "{} is not in {}'s arc of fire (forward of its front edge)",
            tg.id, sh.id
        ));
    }
    let d = front_dist2(r, sh, &tfp);
    if !d.within(w.reach()) {
        return Err(format!(
            "{} is {} away: out of range ({}\")",
            tg.id,
            fmt_len(d.floor()),
            fmt_len(w.reach())
        ));
    }
    let long = !d.within(w.short);
    let hard = in_hard_cover(r, t, st, tg);
    if long && hard {
        return Err(format!(
            "{} is in hard cover: it can only be hit at short range",
            tg.id
        ));
    }
    if let Some(b) = fire_blocked(r, st, sh, tg) {
        return Err(format!(
            "{b} blocks the line of fire from {} to {}",
            sh.id, tg.id
        ));
    }
    Ok(FireGeo {
        long,
        canister: w.canister > 0 && d.within(w.canister),
        cone: !w.cone || in_cone(sh.front, sh.facing, tfp.centre()),
        dist: d.floor(),
    })
}

struct FireGeo {
    long: bool,
    canister: bool,
    /// Artillery: the target is within the cone (else half dice).
    cone: bool,
    dist: i64,
}

fn in_cover(r: &Ruleset, st: &State, tg: &Unit) -> bool {
    let c = footprint(r, tg).centre();
    st.features_at(c)
        .iter()
        .any(|f| r.terrain.get(&f.kind).is_some_and(|k| k.cover))
}

fn in_hard_cover(r: &Ruleset, t: &Tables, st: &State, tg: &Unit) -> bool {
    let c = footprint(r, tg).centre();
    st.features_at(c).iter().any(|f| t.hard.contains(&f.kind))
}

/// What blocks the line of fire from the shooter's front centre to the
/// target's centre: another unit, or terrain that blocks sight that neither
/// stands in.
fn fire_blocked(r: &Ruleset, st: &State, sh: &Unit, tg: &Unit) -> Option<String> {
    let a = sh.front;
    let b = footprint(r, tg).centre();
    for o in &st.units {
        if o.id == sh.id || o.id == tg.id {
            continue;
        }
        if g::crosses(a, b, &footprint(r, o).polygon()) && !hills::fires_over(r, st, sh, o, tg) {
            return Some(o.id.clone());
        }
    }
    for f in &st.terrain {
        let Some(k) = r.terrain.get(&f.kind) else {
            continue;
        };
        if !k.blocks_sight || k.line || f.points.len() < 3 {
            continue;
        }
        let poly = f.polygon();
        if g::in_polygon(&poly, a) || g::in_polygon(&poly, b) {
            continue;
        }
        if g::crosses(a, b, &poly) {
            return Some(named(f));
        }
    }
    None
}

mod hills;
mod retreat;

// ------------------------------------------------------------------ the turn

struct Turn<'a, 'c, 'd> {
    r: &'a Ruleset,
    t: &'a Tables,
    st: State,
    ev: Vec<Event>,
    chance: Option<&'c mut Chance<'d>>,
    side: usize,
    pt: u32,
    /// Figures lost this player-turn.
    lost: BTreeMap<String, u32>,
    lost_art: BTreeSet<String>,
    lost_flank: BTreeSet<String>,
    /// Friendly units that retreated, evaded, routed or were destroyed
    /// this player-turn: (unit, side, brigade, where, what).
    happened: Vec<(String, usize, String, Pt, &'static str)>,
    /// Pairs that met this player-turn: (attacker, defender, face, charge bonus).
    contacts: Vec<(String, String, usize, bool)>,
    /// Counter-chargers that reached the charge's start: +1 in melee.
    counter: BTreeSet<String>,
    responded: BTreeSet<(String, String)>,
    moved: BTreeSet<String>,
    /// Units whose move was stopped (terrain edge, 3" from the enemy, a
    /// unit or the table edge in the way): no minimum move after that.
    halted: BTreeSet<String>,
    fog_brigade: Option<String>,
    fog_guns: Vec<String>,
    /// The friends the last retreat, evade or rout passed through.
    through: Vec<String>,
    /// Chargers that have turned on a secondary target this player-turn.
    secondary: BTreeSet<String>,
    /// Squadrons supporting their regiment's charge this player-turn (L:
    /// "Supporting units count charge bonus").
    supporting: BTreeSet<String>,
}

impl Turn<'_, '_, '_> {
    fn roll(&mut self) -> u32 {
        match self.chance.as_mut() {
            Some(c) => c.dice.roll(6),
            None => 1,
        }
    }
    fn rolls(&mut self, n: u32) -> Vec<u32> {
        (0..n).map(|_| self.roll()).collect()
    }
    fn note(&mut self, text: String, what: Syw) {
        self.ev.push(Event::Syw(SywNote::new(text, what)));
    }
    fn effect(&self, id: &str) -> Option<&Effect> {
        self.st
            .syw
            .as_ref()
            .and_then(|s| s.effects.iter().find(|e| e.id == id))
    }
    fn effect_for(&self, id: &str, side: usize) -> bool {
        self.effect(id).is_some_and(|e| e.side == side)
    }
    fn troop_class(&self, u: &Unit) -> String {
        self.r
            .troop(&u.troop)
            .map_or(String::new(), |t| t.class.clone())
    }
    fn is_light(&self, u: &Unit) -> bool {
        self.r.troop(&u.troop).is_some_and(|t| t.light)
    }
    fn disordered(u: &Unit) -> bool {
        u.marker.as_deref() == Some("orange")
    }
    fn disorder(&mut self, id: &str) {
        if let Some(u) = self.st.unit_mut(id) {
            u.marker = Some("orange".into());
        }
    }
    /// Remove `n` figures; a unit with none left, or at 75% lost, is
    /// destroyed.
    fn kill(&mut self, id: &str, n: u32, by: usize) -> u32 {
        let Some(u) = self.st.unit_mut(id) else {
            return 0;
        };
        let k = n.min(u.rf);
        u.rf -= k;
        *self.lost.entry(id.to_string()).or_default() += k;
        if let Some(s) = self.st.removed.get_mut(by) {
            *s += k;
        }
        k
    }
    fn destroy(&mut self, id: &str, why: &str) {
        let Some(k) = self.st.units.iter().position(|u| u.id == id) else {
            return;
        };
        let u = self.st.units.remove(k);
        let c = footprint(self.r, &u).centre();
        let brigade = u.brigade.clone();
        self.happened
            .push((u.id.clone(), u.side, brigade, c, "destroyed"));
        self.note(
            format!("{} is removed from play ({why})", u.id),
            Syw::Destroyed {
                unit: u.id.to_string(),
            },
        );
        for o in self.st.units.iter_mut() {
            if o.melee.as_ref().is_some_and(|m| m.with == u.id) {
                o.melee = None;
            }
        }
    }
    /// Destroy units at 75% lost or with no figures.
    fn sweep_destroyed(&mut self) {
        let gone: Vec<String> = self
            .st
            .units
            .iter()
            .filter(|u| {
                u.rf == 0
                    || (u.start_rf - u.rf) * 100 >= u.start_rf * self.t.test.destroyed_at
                        && self.r.troop(&u.troop).is_some_and(|t| t.class != "command")
            })
            .map(|u| u.id.clone())
            .collect();
        for id in gone {
            self.destroy(&id, "75% casualties: unit destroyed");
        }
    }
    fn commanders(&self, side: usize) -> Vec<String> {
        self.st
            .units
            .iter()
            .filter(|u| u.side == side && self.troop_class(u) == "command")
            .map(|u| u.id.clone())
            .collect()
    }
    fn army_commander(&self, side: usize) -> Option<String> {
        self.st
            .units
            .iter()
            .find(|u| u.side == side && self.troop_class(u) == "command" && u.brigade == "ARMY")
            .map(|u| u.id.clone())
    }
    /// A friendly command unit within the command radius of `u` (for the
    /// movement die and the TEST).
    fn command_near(&self, u: &Unit) -> Option<String> {
        if self.troop_class(u) == "command" {
            return None;
        }
        if self.effect_for("cavalry-no-command", u.side)
            && self.troop_class(u) == "cavalry"
            && !self.is_light(u)
        {
            return None;
        }
        let fp = footprint(self.r, u);
        self.st
            .units
            .iter()
            .filter(|c| c.side == u.side && self.troop_class(c) == "command")
            .find(|c| fp_dist2(&footprint(self.r, c), &fp).within(self.t.command_radius))
            .map(|c| c.id.clone())
    }
    /// Inspired command: the commander it came from, if `u` is in its radius.
    fn inspired(&self, u: &Unit) -> bool {
        let Some(e) = self.effect("inspired-command") else {
            return false;
        };
        if e.side != u.side {
            return false;
        }
        let fp = footprint(self.r, u);
        e.units.iter().any(|c| {
            self.st
                .unit(c)
                .is_some_and(|c| fp_dist2(&footprint(self.r, c), &fp).within(self.t.command_radius))
        })
    }
    /// Dice taken off every throw of movement or fire this player-turn:
    /// rain two, dead calm one (fire only).
    fn weather(&self, fire: bool) -> (u32, Vec<String>) {
        let mut n = 0;
        let mut why = Vec::new();
        if self.effect("rain").is_some() {
            n += 2;
            why.push("heavy rain -2 dice".to_string());
        }
        if fire && self.effect_for("dead-calm", self.side) {
            n += 1;
            why.push("dead calm -1 die".to_string());
        }
        (n, why)
    }
}

/// Check and carry out one player-turn. `chance` None: check only.
pub fn run(
    r: &Ruleset,
    st: &State,
    orders: &[Orders],
    chance: Option<&mut Chance<'_>>,
) -> Result<Outcome, Rejection> {
    let t = tables(r)?;
    if st.over {
        return Err(Rejection::whole("the game is over"));
    }
    let side = active(st);
    let mut text = String::new();
    for o in orders {
        let Some(s) = st.side_index(&o.side) else {
            return Err(Rejection::whole(format!(
                "'{}' is not a side of this game",
                o.side
            )));
        };
        if s != side {
            return Err(Rejection::whole(format!(
                "it is {}'s player-turn: {} waits (its standing orders answer for it)",
                st.sides[side], o.side
            )));
        }
        if !text.is_empty() {
            return Err(Rejection::whole(format!(
                "two sets of orders for {}",
                o.side
            )));
        }
        text = o.text.clone();
    }
    let plans = check(r, st, side, &text)?;
    let parsed = parse(&text)?;
    let Some(chance) = chance else {
        return Ok(Outcome {
            st: st.clone(),
            ev: Vec::new(),
        });
    };
    let mut tn = Turn {
        r,
        t,
        st: st.clone(),
        ev: Vec::new(),
        chance: Some(chance),
        side,
        pt: player_turn(st.turn, side),
        lost: BTreeMap::new(),
        lost_art: BTreeSet::new(),
        lost_flank: BTreeSet::new(),
        happened: Vec::new(),
        contacts: Vec::new(),
        counter: BTreeSet::new(),
        responded: BTreeSet::new(),
        moved: BTreeSet::new(),
        halted: BTreeSet::new(),
        fog_brigade: None,
        fog_guns: Vec::new(),
        through: Vec::new(),
        secondary: BTreeSet::new(),
        supporting: BTreeSet::new(),
    };
    if tn.st.syw.is_none() {
        tn.st.syw = Some(Box::new(Sequence::default()));
    }
    tn.note(
        format!("Turn {}, {}'s player-turn:", st.turn, st.sides[side]),
        Syw::PlayerTurn {
            turn: st.turn,
            side: st.sides[side].to_string(),
        },
    );
    let mut splits: Vec<String> = Vec::new();
    let mut retreats: Vec<String> = Vec::new();
    for (_, _, l) in parsed {
        match l {
            Line::Standing { id, orders } => {
                if let Some(u) = tn.st.unit_mut(&id) {
                    if orders.iter().any(|x| x == "NONE") {
                        u.standing.clear();
                    }
                    for x in orders.into_iter().filter(|x| x != "NONE") {
                        // EVADE, STAND and COUNTER-CHARGE exclude each other,
                        // as do RESPONSE FIRE and HOLD FIRE.
                        let group: &[&str] = if x.ends_with("FIRE") {
                            &["RESPONSE FIRE", "HOLD FIRE"]
                        } else if x == "FIGHT ON" || x == "BREAK OFF" {
                            &["FIGHT ON", "BREAK OFF"]
                        } else {
                            &["EVADE", "STAND", "COUNTER-CHARGE"]
                        };
                        u.standing.retain(|s| !group.contains(&s.as_str()));
                        u.standing.push(x);
                    }
                }
            }
            Line::FogBrigade(b) => tn.fog_brigade = Some(b),
            Line::Split(b) => splits.push(b),
            Line::Retreat(u) => retreats.push(u),
            Line::FogGuns(gs) => tn.fog_guns = gs,
            _ => {}
        }
    }
    fog(&mut tn);
    compulsory(&mut tn);
    clear_disorder(&mut tn);
    off_table_entry(&mut tn);
    fog_advance(&mut tn);
    for b in &splits {
        for (text, what) in super::split::split(tn.r, &mut tn.st, b) {
            tn.note(text, what);
        }
    }
    for u in &retreats {
        retreat::manufacture(&mut tn, u);
    }
    movement(&mut tn, &plans);
    fire(&mut tn, &plans);
    melee(&mut tn);
    tn.sweep_destroyed();
    morale(&mut tn);
    tn.sweep_destroyed();
    end_of_player_turn(&mut tn);
    Ok(Outcome {
        st: tn.st,
        ev: tn.ev,
    })
}

/// Off-table units of the active side throw to come on (syw/entry.rs).
fn off_table_entry(tn: &mut Turn<'_, '_, '_>) {
    let (r, t, side) = (tn.r, tn.t, tn.side);
    let mut state = tn.st.clone();
    let evs = {
        let mut roll = || tn.roll();
        super::entry::throw_for_entry(r, t, &mut state, side, &mut roll)
    };
    tn.st = state;
    for (text, what) in evs {
        if let Syw::Enters { unit, .. } = &what {
            tn.moved.insert(unit.clone());
        }
        tn.note(text, what);
    }
}

// ------------------------------------------------------------------ fog of war

/// Pick one of `n` things with d6s (two dice above six things), rerolling
/// faces that name nothing.
fn pick(tn: &mut Turn<'_, '_, '_>, n: usize) -> usize {
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

fn fog(tn: &mut Turn<'_, '_, '_>) {
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
fn expire_effects(tn: &mut Turn<'_, '_, '_>) {
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
fn fog_event(tn: &mut Turn<'_, '_, '_>, entry: &FogEntry) -> (Vec<String>, String) {
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
fn commander_lost(tn: &mut Turn<'_, '_, '_>, entry: &FogEntry) -> (Vec<String>, String) {
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
fn crisis_meeting(tn: &mut Turn<'_, '_, '_>) -> (Vec<String>, String) {
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
fn fog_advance(tn: &mut Turn<'_, '_, '_>) {
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

// ------------------------------------------------------------------ A.1, A.2

fn compulsory(tn: &mut Turn<'_, '_, '_>) {
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
                    tn.happened.push((
                        u.id,
                        u.side,
                        u.brigade,
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

enum Flee {
    Moved(i64),
    Gone,
    Blocked,
}

/// Move a unit's whole ground toward `target` up to `d`, keeping its
/// facing, passing through friends, stopping short of enemies.
fn flee(tn: &mut Turn<'_, '_, '_>, id: &str, target: Pt, d: i64) -> Flee {
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

fn clear_disorder(tn: &mut Turn<'_, '_, '_>) {
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

// ------------------------------------------------------------------ B. moves

/// The movement throw for a unit (or a brigade: `brigade` with its worst
/// modifiers): (inches allowed in sixteenths, the dice, the explanation).
fn allowance(
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
fn terrain_at(st: &State, p: Pt) -> Vec<String> {
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
fn walk(tn: &mut Turn<'_, '_, '_>, id: &str, d: i64, back: bool, why: &str) -> i64 {
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
        if tn
            .st
            .units
            .iter()
            .any(|o| o.id != v.id && g::overlap(&footprint(tn.r, o), &fp))
        {
            tn.halted.insert(id.to_string());
            break;
        }
        if !charging {
            // Units must stop 3" from enemy unit unless moving to contact.
            let close = tn.st.units.iter().any(|o| {
                o.side != v.side
                    && !fp_dist2(&footprint(tn.r, o), &fp).at_least(tn.t.stop_short)
                    && fp_dist2(&footprint(tn.r, o), &footprint(tn.r, &cur))
                        .at_least(tn.t.stop_short)
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
fn response_fire(tn: &mut Turn<'_, '_, '_>, mover: &str) {
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
fn shoot_response(
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
fn fire_dice(
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
        let files =
            super::super::state::shape(r.troop(&sh.troop).expect("troop"), sh).files as usize;
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

fn turn_unit(tn: &mut Turn<'_, '_, '_>, id: &str, deg: i64, budget: i64) -> (i64, i64) {
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

fn movement(tn: &mut Turn<'_, '_, '_>, plans: &[Plan]) {
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

fn execute(tn: &mut Turn<'_, '_, '_>, p: &Plan, allow: i64, throw: &str) {
    let id = p.unit.clone();
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
                let Some(u) = tn.st.unit(&id).cloned() else {
                    return;
                };
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
                    continue;
                }
                if let Some(x) = tn.st.unit_mut(&id) {
                    x.facing = v.facing;
                    x.front = v.front;
                    x.formation = v.formation.clone();
                    x.refused = v.refused.clone();
                }
                formed = true;
                measured.push(what);
                // J.5: "A unit is disordered if; ... 5) Incorrect
                // formation".
                if let Some(why) = line::incorrect(&v) {
                    tn.disorder(&id);
                    measured.push(format!("incorrect formation ({why}): disordered"));
                }
            }
            Step::Hold | Step::FireAt(_) | Step::ChargeWith(..) | Step::SectionFire(..) => {}
            Step::Charge(target) => {
                if let Some(g) = &p.regiment {
                    // "other squadrons may move to support. Supporting
                    // units count charge bonus."
                    let others: Vec<String> = tn
                        .st
                        .units
                        .iter()
                        .filter(|u| u.regiment == *g && u.side == tn.side && u.id != id)
                        .map(|u| u.id.clone())
                        .collect();
                    if !others.is_empty() {
                        tn.note(
                            format!(
                                "{}: squadron{} of regiment {g} supporting {id}'s charge (charge bonus)",
                                others.join(", "),
                                if others.len() == 1 { "" } else { "s" }
                            ),
                            Syw::RegimentSupport { regiment: g.to_string(), charger: id.to_string(), units: others.clone() },
                        );
                    }
                    tn.supporting.extend(others);
                }
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
    if let Some(u) = tn.st.unit(&id).cloned() {
        if formed {
            let m = if moved_any { "orange" } else { "red" };
            if let Some(x) = tn.st.unit_mut(&id) {
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
            },
        );
    }
}

/// A charge, with the target's response by its standing orders.
fn charge(tn: &mut Turn<'_, '_, '_>, id: &str, target: &str, allow: i64, throw: &str) {
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
struct Charging<'a> {
    id: &'a str,
    target: &'a str,
    ch: &'a Unit,
    tg: &'a Unit,
    geo: &'a ChargeGeo,
    allow: i64,
    throw: &'a str,
}

/// The target evades by its standing orders: whether the charge is over
/// (it left the table, was pursued, or a secondary charge took over).
fn evade(tn: &mut Turn<'_, '_, '_>, c: &Charging<'_>) -> bool {
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
fn pursue(tn: &mut Turn<'_, '_, '_>, c: &Charging<'_>) {
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
fn fall_short(tn: &mut Turn<'_, '_, '_>, id: &str, ch: &Unit, geo: &ChargeGeo, allow: i64) {
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
fn await_contact(
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

fn standing_response(tn: &Turn<'_, '_, '_>, u: &Unit) -> String {
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
fn place_charger(tn: &mut Turn<'_, '_, '_>, id: &str, front: Pt, facing: i32) -> bool {
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
fn clear_of_all(tn: &Turn<'_, '_, '_>, v: &Unit) -> bool {
    let fp = footprint(tn.r, v);
    tn.st.on_table(&fp)
        && !tn
            .st
            .units
            .iter()
            .any(|o| o.id != v.id && g::overlap(&footprint(tn.r, o), &fp))
}

fn stop_charge(tn: &mut Turn<'_, '_, '_>, id: &str, geo: &ChargeGeo, allow: i64, why: &str) {
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
fn soft_ground(tn: &Turn<'_, '_, '_>, geo: &ChargeGeo) -> Option<String> {
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
fn over_obstacle(tn: &Turn<'_, '_, '_>, geo: &ChargeGeo) -> Option<String> {
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
fn secondary_target(tn: &Turn<'_, '_, '_>, id: &str, evader: &str, allow: i64) -> Option<String> {
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

fn contact(tn: &mut Turn<'_, '_, '_>, id: &str, target: &str, geo: &ChargeGeo, _first: bool) {
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
fn support_fire(tn: &mut Turn<'_, '_, '_>, charger: &str, target: &str) {
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

// ------------------------------------------------------------------ D. fire

fn fire(tn: &mut Turn<'_, '_, '_>, plans: &[Plan]) {
    let relocate = tn
        .effect("guns-relocate-fire")
        .filter(|e| e.side == tn.side)
        .map(|e| e.units.clone())
        .unwrap_or_default();
    let twice = tn
        .effect("guns-fire-twice")
        .filter(|e| e.side == tn.side)
        .map(|e| e.units.clone())
        .unwrap_or_default();
    for p in plans {
        // What fires: the whole unit, or a refused line's sections ("Unit
        // fire by section between break in line (fire bonus allocated to
        // sections at players discretion)").
        let shots: Vec<(String, String, bool)> = match p.steps.last() {
            Some(Step::FireAt(t)) => match tn.st.unit(&p.unit) {
                // A refused line told to fire at one target: every section
                // at it, the fire bonus with the centre.
                Some(u) if !u.refused.is_empty() => line::sections(tn.r, u)
                    .iter()
                    .map(|(n, _)| (t.clone(), (*n).to_string(), *n == "centre"))
                    .collect(),
                _ => vec![(t.clone(), "whole".to_string(), true)],
            },
            Some(Step::SectionFire(..)) => {
                let ss: Vec<(String, String, bool)> = p
                    .steps
                    .iter()
                    .filter_map(|s| match s {
                        Step::SectionFire(t, sec, b) => Some((t.clone(), sec.clone(), *b)),
                        _ => None,
                    })
                    .collect();
                // No section named for the bonus: the first written.
                let any = ss.iter().any(|x| x.2);
                ss.into_iter()
                    .enumerate()
                    .map(|(i, (t, sec, b))| (t, sec, b || (!any && i == 0)))
                    .collect()
            }
            _ => continue,
        };
        for (target, sec, bonus) in &shots {
            fire_shot(tn, p, target, sec, *bonus, &relocate, &twice);
        }
    }
    // Two or more casualties in a turn: disordered.
    let hit: Vec<String> = tn
        .lost
        .iter()
        .filter(|(_, n)| **n >= tn.t.test_at)
        .map(|(k, _)| k.clone())
        .collect();
    for id in hit {
        tn.disorder(&id);
    }
}

/// One shot of a fire order: the whole unit (`sec` "whole") or one
/// section of a refused line at `target`, with the unit's fire bonus if
/// `bonus`.
fn fire_shot(
    tn: &mut Turn<'_, '_, '_>,
    p: &Plan,
    target: &str,
    sec: &str,
    bonus: bool,
    relocate: &[String],
    twice: &[String],
) {
    let times = if twice.contains(&p.unit) { 2 } else { 1 };
    for k in 0..times {
        let (Some(whole), Some(tg)) = (tn.st.unit(&p.unit).cloned(), tn.st.unit(target).cloned())
        else {
            break;
        };
        let sh = if sec == "whole" {
            whole
        } else {
            match line::sections(tn.r, &whole)
                .into_iter()
                .find(|(n, _)| *n == sec)
            {
                Some((_, s)) => s,
                None => break,
            }
        };
        let label = if sec == "whole" {
            sh.id.clone()
        } else {
            format!("{} ({sec} section)", sh.id)
        };
        if tn.moved.contains(&sh.id) && (!relocate.contains(&sh.id) || Turn::disordered(&sh)) {
            tn.note(
                format!("{label}: it moved, so it cannot fire"),
                Syw::Lapse {
                    unit: sh.id.to_string(),
                },
            );
            break;
        }
        if sh.melee.is_some() || tn.contacts.iter().any(|c| c.0 == sh.id || c.1 == sh.id) {
            tn.note(
                format!("{label}: in contact, it does not fire"),
                Syw::Lapse {
                    unit: sh.id.to_string(),
                },
            );
            break;
        }
        let geo = match fire_check(tn.r, tn.t, &tn.st, &sh, &tg) {
            Ok(g) => g,
            Err(why) => {
                tn.note(
                    format!("{label}: {why}"),
                    Syw::Lapse {
                        unit: sh.id.to_string(),
                    },
                );
                break;
            }
        };
        let (n, why) = fire_dice(tn, &sh, &tg, geo.long, geo.cone, geo.canister, bonus);
        let dice = tn.rolls(n);
        let hits = dice.iter().filter(|d| tn.t.kill.contains(d)).count() as u32;
        let killed = tn.kill(target, hits, sh.side);
        if tn.troop_class(&sh) == "artillery" {
            tn.lost_art.insert(target.to_string());
        }
        // Casualties in flank or rear: the firer is not ahead of the
        // target's front.
        if !ahead_of(tn.r, &tg, &footprint(tn.r, &sh)) {
            tn.lost_flank.insert(target.to_string());
        }
        if sh.marker.as_deref() == Some("red") {
            tn.disorder(&sh.id);
        }
        tn.note(
            format!(
                "{label} fires at {target}{} at {}: {} = {n} dice {dice:?}, {killed} killed",
                if k == 1 {
                    " again (Vive l'artillerie)"
                } else {
                    ""
                },
                fmt_len(geo.dist),
                why.join(", ")
            ),
            Syw::Fire {
                unit: sh.id.to_string(),
                target: target.to_string(),
                dice: dice.clone(),
                killed,
            },
        );
        if tn.st.unit(target).is_some_and(|u| u.rf == 0) {
            tn.destroy(target, "no figures left");
        }
    }
}

// ------------------------------------------------------------------ TESTs

/// The TEST modifiers of a unit: (what, value). `face`: contacted on this
/// face in melee; `charging`: counts the charge bonus.
fn test_mods(
    tn: &Turn<'_, '_, '_>,
    u: &Unit,
    face: Option<usize>,
    charging: bool,
) -> Vec<(String, i32)> {
    let t = &tn.t.test;
    let mut m = Vec::new();
    let lost = u.start_rf.saturating_sub(u.rf);
    if let Some(step) = t
        .losses
        .iter()
        .rfind(|s| lost >= tn.t.pct(u.start_rf, s.percent))
    {
        m.push((format!("casualties {}% or more", step.percent), step.value));
    }
    if tn.lost_art.contains(&u.id) {
        m.push(("casualties from artillery".into(), t.artillery_casualties));
    }
    if tn.lost_flank.contains(&u.id) {
        m.push((
            "casualties in flank or rear".into(),
            t.flank_rear_casualties,
        ));
    }
    if tn.lost.get(&u.id).copied().unwrap_or(0) > 0 {
        m.push(("casualties this turn".into(), t.casualties_this_turn));
    }
    match face {
        Some(1 | 3) => m.push(("contacted on a flank".into(), t.contacted_flank)),
        Some(2) => m.push(("contacted in the rear".into(), t.contacted_rear)),
        _ => {}
    }
    match u.experience.as_str() {
        "green" => m.push(("green".into(), t.green)),
        "trained" if t.trained != 0 => m.push(("trained".into(), t.trained)),
        "veteran" if t.veteran != 0 => m.push(("veteran".into(), t.veteran)),
        _ => {}
    }
    if u.forced == Some(Forced::Retire) {
        m.push(("self retreating".into(), t.retreating));
    }
    if u.forced == Some(Forced::Rout) {
        m.push(("self routing".into(), t.routing_same));
    }
    let c = footprint(tn.r, u).centre();
    let radius = i64::from(t.radius) * PER_INCH;
    for (id, side, brigade, at, what) in &tn.happened {
        if *side != u.side || *id == u.id || !Dist2::of(at.dist2(c)).within(radius) {
            continue;
        }
        let same = !brigade.is_empty() && *brigade == u.brigade;
        let (label, v) = match *what {
            "retreat" => (
                format!("{id} retreated or evaded within 18\""),
                t.retreating,
            ),
            "rout" => (
                format!(
                    "{id} routed within 18\" ({} brigade)",
                    if same { "same" } else { "other" }
                ),
                if same {
                    t.routing_same
                } else {
                    t.routing_other
                },
            ),
            _ => (
                format!(
                    "{id} destroyed within 18\" ({} brigade)",
                    if same { "same" } else { "other" }
                ),
                if same {
                    t.destroyed_same
                } else {
                    t.destroyed_other
                },
            ),
        };
        m.push((label, v));
    }
    if charging {
        m.push(("charging".into(), t.charging));
    } else if tn.supporting.contains(&u.id) && !Turn::disordered(u) {
        // L: "Supporting units count charge bonus" (not if disordered).
        m.push(("supporting its regiment's charge".into(), t.charging));
    }
    // Friends in sight within 18", not disordered, nothing between.
    let fp = footprint(tn.r, u);
    let friend = tn.st.units.iter().find(|f| {
        f.side == u.side
            && f.id != u.id
            && tn.troop_class(f) != "command"
            && !Turn::disordered(f)
            && f.forced.is_none()
            && fp_dist2(&footprint(tn.r, f), &fp).within(radius)
            && fire_blocked_any(tn, u, f).is_none()
    });
    if let Some(f) = friend {
        m.push((format!("supported by {}", f.id), t.supported));
    }
    if (!Turn::disordered(u) && tn.command_near(u).is_some()) || tn.inspired(u) {
        m.push(("command in 18\"".into(), t.command));
    }
    m
}

/// Line of sight between two units of the same side (centre to centre).
fn fire_blocked_any(tn: &Turn<'_, '_, '_>, a: &Unit, b: &Unit) -> Option<String> {
    let p = footprint(tn.r, a).centre();
    let q = footprint(tn.r, b).centre();
    for o in &tn.st.units {
        if o.id == a.id || o.id == b.id {
            continue;
        }
        if g::crosses(p, q, &footprint(tn.r, o).polygon()) {
            return Some(o.id.clone());
        }
    }
    for f in &tn.st.terrain {
        if !tn
            .r
            .terrain
            .get(&f.kind)
            .is_some_and(|k| k.blocks_sight && !k.line)
            || f.points.len() < 3
        {
            continue;
        }
        let poly = f.polygon();
        if g::in_polygon(&poly, p) || g::in_polygon(&poly, q) {
            continue;
        }
        if g::crosses(p, q, &poly) {
            return Some(named(f));
        }
    }
    None
}

/// A TEST: (score, die, modifiers).
fn test(
    tn: &mut Turn<'_, '_, '_>,
    u: &Unit,
    face: Option<usize>,
    charging: bool,
) -> (i32, u32, Vec<(String, i32)>) {
    let mods = test_mods(tn, u, face, charging);
    let d = tn.roll();
    let die = tn.t.exp(u).test_die(d);
    let score = mods.iter().map(|m| m.1).sum::<i32>() + die;
    (score, d, mods)
}

fn mods_text(mods: &[(String, i32)], face: u32, die: i32) -> String {
    let mut v: Vec<String> = mods.iter().map(|(k, x)| format!("{k} {x:+}")).collect();
    v.push(format!("die {face} ({die:+})"));
    v.join(", ")
}

/// The result of a TEST score.
fn result_of(t: &Tables, score: i32) -> Option<String> {
    t.test
        .results
        .iter()
        .find(|r| score <= r.at_most)
        .map(|r| r.result.clone())
}

/// A unit's TEST, marked as its TEST of the turn: (score, face, die's
/// modifier, modifiers, result).
type Tested = (i32, u32, i32, Vec<(String, i32)>, Option<String>);

fn take_test(tn: &mut Turn<'_, '_, '_>, id: &str) -> Option<Tested> {
    let u = tn.st.unit(id).cloned()?;
    let (score, face, mods) = test(tn, &u, None, false);
    let die = tn.t.exp(&u).test_die(face);
    let res = result_of(tn.t, score);
    let turn = tn.st.turn;
    if let Some(x) = tn.st.unit_mut(id) {
        x.tested = turn;
    }
    Some((score, face, die, mods, res))
}

/// A morale TEST and its result applied.
fn morale_test(tn: &mut Turn<'_, '_, '_>, id: &str, why: &str) {
    let Some((score, face, die, mods, res)) = take_test(tn, id) else {
        return;
    };
    apply_result(tn, id, res.as_deref());
    tn.note(
        format!(
            "{id} morale TEST ({why}): {} = {score}: {}",
            mods_text(&mods, face, die),
            res.clone().unwrap_or_else(|| "steady".into())
        ),
        Syw::Test {
            unit: id.to_string(),
            score,
            die: face,
            result: res,
        },
    );
}

fn apply_result(tn: &mut Turn<'_, '_, '_>, id: &str, res: Option<&str>) {
    let Some(u) = tn.st.unit(id).cloned() else {
        return;
    };
    let c = footprint(tn.r, &u).centre();
    match res {
        Some("rout") => {
            if let Some(x) = tn.st.unit_mut(id) {
                x.forced = Some(Forced::Rout);
                x.marker = Some("orange".into());
            }
            tn.happened
                .push((id.to_string(), u.side, u.brigade.clone(), c, "rout"));
        }
        Some("retreat") => {
            if let Some(x) = tn.st.unit_mut(id) {
                if x.forced != Some(Forced::Rout) {
                    x.forced = Some(Forced::Retire);
                }
                x.marker = Some("orange".into());
            }
            tn.happened
                .push((id.to_string(), u.side, u.brigade.clone(), c, "retreat"));
        }
        Some("disorder") => tn.disorder(id),
        _ => {}
    }
}

// ------------------------------------------------------------------ F. melee

mod melee;
use melee::melee;

// ------------------------------------------------------------------ G. morale

fn morale(tn: &mut Turn<'_, '_, '_>) {
    let turn = tn.st.turn;
    let mut done: BTreeSet<String> = BTreeSet::new();
    let mut seen = 0usize;
    // Casualties of 2 or more: a TEST.
    let hit: Vec<String> = tn
        .lost
        .iter()
        .filter(|(_, n)| **n >= tn.t.test_at)
        .map(|(k, _)| k.clone())
        .collect();
    for id in hit {
        if tn
            .st
            .unit(&id)
            .is_some_and(|u| u.tested != turn && u.forced.is_none())
        {
            done.insert(id.clone());
            morale_test(tn, &id, "2 or more casualties");
        }
    }
    // Within 18" of a friend's retreat, rout or destruction: closest to
    // the destroyed first, then to the routing, then to the retreating.
    loop {
        let events: Vec<(String, usize, String, Pt, &'static str)> = tn.happened[seen..].to_vec();
        if events.is_empty() {
            break;
        }
        seen = tn.happened.len();
        let mut order: Vec<(u8, i128, String, String)> = Vec::new();
        for (who, side, _, at, what) in &events {
            let rank = match *what {
                "destroyed" => 0,
                "rout" => 1,
                _ => 2,
            };
            for u in &tn.st.units {
                if u.side != *side || u.id == *who || u.tested == turn || done.contains(&u.id) {
                    continue;
                }
                if tn.troop_class(u) == "command" || u.forced.is_some() {
                    continue;
                }
                let c = footprint(tn.r, u).centre();
                if Dist2::of(c.dist2(*at)).within(i64::from(tn.t.test.radius) * PER_INCH) {
                    order.push((rank, c.dist2(*at), u.id.clone(), format!("{who} {what}")));
                }
            }
        }
        order.sort();
        for (_, _, id, why) in order {
            if done.insert(id.clone()) {
                morale_test(tn, &id, &format!("within 18\" of {why}"));
            }
        }
    }
}

// ------------------------------------------------------------------ the end

fn end_of_player_turn(tn: &mut Turn<'_, '_, '_>) {
    let side = tn.side;
    let next = 1 - side.min(1);
    if let Some(s) = tn.st.syw.as_mut() {
        s.active = next;
    }
    if side == 1 {
        tn.st.turn += 1;
    }
    let alive: Vec<usize> = (0..2)
        .map(|s| {
            tn.st
                .units
                .iter()
                .filter(|u| {
                    u.side == s && tn.troop_class(u) != "command" && u.forced != Some(Forced::Rout)
                })
                .count()
                // Units still off the table are in the game.
                + super::entry::reserves(&tn.st)
                    .iter()
                    .filter(|x| x.unit.side == s && tn.troop_class(&x.unit) != "command")
                    .count()
        })
        .collect();
    let winner = if alive[0] == 0 && alive[1] == 0 {
        Some(String::new())
    } else if alive[0] == 0 {
        Some(tn.st.sides[1].clone())
    } else if alive[1] == 0 {
        Some(tn.st.sides[0].clone())
    } else if side == 1 && tn.st.turn > tn.st.moves {
        Some(match tn.st.removed[0].cmp(&tn.st.removed[1]) {
            std::cmp::Ordering::Greater => tn.st.sides[0].clone(),
            std::cmp::Ordering::Less => tn.st.sides[1].clone(),
            std::cmp::Ordering::Equal => String::new(),
        })
    } else {
        None
    };
    if let Some(w) = winner {
        tn.st.over = true;
        tn.note(
            if w.is_empty() {
                "The game is over: a draw".to_string()
            } else {
                format!("The game is over: {w} wins")
            },
            Syw::GameOver {
                winner: w.to_string(),
                removed: tn.st.removed.clone(),
            },
        );
        tn.st.winner = Some(w);
    }
}
