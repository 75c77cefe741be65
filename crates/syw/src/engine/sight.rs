//! The geometry of charges and fire: where a charge makes contact, what
//! blocks it, who may fire at whom.

#[allow(clippy::wildcard_imports)]
use super::*;

#[derive(Debug, Clone)]
pub(super) struct ChargeGeo {
    /// Where the charger's front centre ends, and its facing.
    pub(super) contact: Pt,
    pub(super) facing: i32,
    /// Where the last 6" (the charge distance) begins.
    pub(super) approach: Pt,
    /// The face of the target struck: 0 front, 1 right, 2 rear, 3 left.
    pub(super) face: usize,
    /// The whole path.
    pub(super) path: i64,
    /// Where the charger's last stretch to contact begins: the approach
    /// point, or its own front if it began within the charge distance.
    pub(super) last_from: Pt,
}

/// The charge: straight to 6" off the face of the target the charger is
/// in front of, then the last 6" at 90° to it (or, if nearer than 6"
/// already, straight in).
pub(super) fn charge_geometry(r: &Ruleset, _st: &State, ch: &Unit, tg: &Unit) -> ChargeGeo {
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
pub(super) fn charge_blocked(
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

pub(super) fn named(f: &crate::state::Feature) -> String {
    if f.name.is_empty() {
        f.kind.clone()
    } else {
        format!("{} ({})", f.name, f.kind)
    }
}

/// The distance from a unit's front edge to a footprint.
pub(super) fn front_dist2(r: &Ruleset, u: &Unit, fp: &Footprint) -> Dist2 {
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
pub(super) fn ahead_of(r: &Ruleset, u: &Unit, fp: &Footprint) -> bool {
    let c = footprint(r, u).corners();
    fp.corners()
        .iter()
        .chain(std::iter::once(&fp.centre()))
        .any(|p| g::cross(c[0], c[1], *p) > 0)
}

/// True if the point is within the gun's cone (22.5° either side of the
/// perpendicular): tan(22.5°) = sqrt(2) - 1, compared exactly as
/// lateral^2 * 10^9 <= forward^2 * 171572875 (tan^2 = 3 - 2 sqrt 2).
pub(super) fn in_cone(from: Pt, facing: i32, p: Pt) -> bool {
    let (s, c) = g::dir(i64::from(facing));
    let vx = i128::from(p.x - from.x);
    let vy = i128::from(p.y - from.y);
    let fwd = vx * i128::from(s) + vy * i128::from(c);
    let lat = vx * i128::from(c) - vy * i128::from(s);
    fwd >= 0 && lat * lat * 1_000_000_000 <= fwd * fwd * 171_572_875
}

/// Why a unit may not fire at a target, or Ok. Range and arc from where it
/// stands now.
pub(super) fn fire_check(
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

pub(super) struct FireGeo {
    pub(super) long: bool,
    pub(super) canister: bool,
    /// Artillery: the target is within the cone (else half dice).
    pub(super) cone: bool,
    pub(super) dist: i64,
}

pub(super) fn in_cover(r: &Ruleset, st: &State, tg: &Unit) -> bool {
    let c = footprint(r, tg).centre();
    st.features_at(c)
        .iter()
        .any(|f| r.terrain.get(&f.kind).is_some_and(|k| k.cover))
}

pub(super) fn in_hard_cover(r: &Ruleset, t: &Tables, st: &State, tg: &Unit) -> bool {
    let c = footprint(r, tg).centre();
    st.features_at(c).iter().any(|f| t.hard.contains(&f.kind))
}

/// What blocks the line of fire from the shooter's front centre to the
/// target's centre: another unit, or terrain that blocks sight that neither
/// stands in.
pub(super) fn fire_blocked(r: &Ruleset, st: &State, sh: &Unit, tg: &Unit) -> Option<String> {
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
