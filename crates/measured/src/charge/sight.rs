//! Lines of sight and fire: musketry's and the guns' (what stands in the
//! way, cover, the nearest point of the target).

#[allow(clippy::wildcard_imports)]
use super::*;

/// The facts of a line of fire.
#[derive(Debug, Clone)]
pub struct Sight {
    pub dist: Dist2,
    pub cover: bool,
}

/// Is the line from `a` to `b` clear of woods, buildings, higher hills and
/// other units? `ignore` are the firer and target.
fn clear(
    r: &Ruleset,
    st: &State,
    a: Pt,
    b: Pt,
    ignore: &[&str],
    moved: &BTreeMap<String, Unit>,
) -> Result<(), String> {
    let (la, lb) = (st.level(a), st.level(b));
    for f in &st.terrain {
        let Some(spec) = r.terrain.get(&f.kind) else {
            continue;
        };
        if f.kind == "hill" {
            if f.level > la.max(lb) && g::crosses(a, b, &f.polygon()) {
                return Err(format!(
                    "the line of fire is blocked by the hill{}",
                    named(f)
                ));
            }
            continue;
        }
        if spec.blocks_sight && f.points.len() >= 3 {
            let poly = f.polygon();
            if g::crosses(a, b, &poly) && !g::in_polygon(&poly, a) && !g::in_polygon(&poly, b) {
                return Err(format!(
                    "the line of fire is blocked by {}{}",
                    spec.name.to_lowercase(),
                    named(f)
                ));
            }
        }
    }
    for o in &st.units {
        if ignore.contains(&o.id.as_str()) {
            continue;
        }
        let o = moved.get(&o.id).unwrap_or(o);
        if geo::Intersects::intersects(&g::line(a, b), &footprint(r, o).polygon()) {
            return Err(format!("the line of fire is blocked by {}", o.id));
        }
    }
    Ok(())
}

fn named(f: &state::Feature) -> String {
    if f.name.is_empty() {
        String::new()
    } else {
        format!(" ({})", f.name)
    }
}

/// Cover for a target seen from `a`: inside woods or a building, or behind
/// a wall the line crosses.
fn in_cover(r: &Ruleset, st: &State, a: Pt, tg_centre: Pt) -> bool {
    st.terrain.iter().any(|f| {
        let Some(spec) = r.terrain.get(&f.kind) else {
            return false;
        };
        if !spec.cover {
            return false;
        }
        if spec.line {
            g::crosses_line(a, tg_centre, &f.polyline())
        } else {
            g::in_polygon(&f.polygon(), tg_centre)
        }
    })
}

/// Musketry: range, arc, line of fire and cover, or why not.
pub fn musket_sight(
    r: &Ruleset,
    st: &State,
    sh: &Unit,
    tg: &Unit,
    moved: &BTreeMap<String, Unit>,
) -> Result<Sight, String> {
    let t = troop(r, sh);
    if t.musket == "none" {
        return Err(format!("a {} has no muskets", t.name.to_lowercase()));
    }
    let tfp = footprint(r, tg);
    let d = tfp.dist2_from(sh.front);
    let max = r.normal.last().map_or(18 * PER_INCH, |b| b.to);
    let max = if t.musket == "light" {
        r.brown.last().map_or(max, |b| b.to)
    } else {
        max
    };
    if !d.within(max) {
        return Err(format!(
            "{} is {} away, beyond musket range ({})",
            tg.id,
            fmt_len(d.floor()),
            fmt_len(max)
        ));
    }
    if t.musket == "line" {
        let mut pts = tfp.corners().to_vec();
        pts.push(tfp.centre());
        pts.push(tfp.front);
        if !pts
            .iter()
            .any(|p| g::in_arc(sh.front, i64::from(sh.facing), r.arc, *p))
        {
            return Err(format!(
                "{} is outside the arc of fire ({}° either side of the front)",
                tg.id, r.arc
            ));
        }
    }
    let aim = nearest_point(&tfp, sh.front);
    clear(r, st, sh.front, aim, &[&sh.id, &tg.id], moved)?;
    Ok(Sight {
        dist: d,
        cover: in_cover(r, st, sh.front, tfp.centre()),
    })
}

pub(super) fn musket_check(r: &Ruleset, st: &State, sh: &Unit, tg: &Unit) -> Result<(), String> {
    musket_sight(r, st, sh, tg, &BTreeMap::new()).map(|_| ())
}

/// The nearest point of a footprint to `p`, rounded to the sixteenth.
fn nearest_point(fp: &Footprint, p: Pt) -> Pt {
    if fp.covers(p) {
        return p;
    }
    let e = fp.edges();
    let k = (0..4)
        .min_by_key(|k| g::dist2_point_segment(p, e[*k].0, e[*k].1))
        .unwrap_or(0);
    project_on_segment(p, e[k].0, e[k].1)
}

/// Artillery: the range to the point of aim and a clear line, or why not.
pub(super) fn gun_fire_check(
    r: &Ruleset,
    st: &State,
    gun: &Unit,
    tg: &Unit,
    canister: bool,
) -> Result<(), String> {
    gun_sight(r, st, gun, tg, canister, &BTreeMap::new()).map(|_| ())
}

pub(crate) fn gun_sight(
    r: &Ruleset,
    st: &State,
    gun: &Unit,
    tg: &Unit,
    canister: bool,
    moved: &BTreeMap<String, Unit>,
) -> Result<Dist2, String> {
    let t = troop(r, gun);
    if gun.formation != "deployed" {
        return Err(format!(
            "{}'s guns are limbered: unlimber first (it takes a move)",
            gun.id
        ));
    }
    if gun.guns.iter().all(|x| x.destroyed) {
        return Err(format!("{} has no guns left", gun.id));
    }
    let tfp = footprint(r, tg);
    let aim = tfp.centre();
    let d = if canister {
        tfp.dist2_from(gun.front)
    } else {
        Dist2::of(gun.front.dist2(aim))
    };
    if canister {
        if !d.within(r.canister_range) {
            return Err(format!(
                "{} is {} away, beyond canister range ({})",
                tg.id,
                fmt_len(d.floor()),
                fmt_len(r.canister_range)
            ));
        }
    } else if t.howitzer {
        if !d.at_least(r.how_min) || !d.within(r.how_max) {
            return Err(format!(
                "{} is {} away: howitzers fire from {} to {}",
                tg.id,
                fmt_len(d.floor()),
                fmt_len(r.how_min),
                fmt_len(r.how_max)
            ));
        }
    } else {
        let max = r.roundshot.last().map_or(0, |b| b.to);
        if !d.within(max) {
            return Err(format!(
                "{} is {} away, beyond roundshot range ({})",
                tg.id,
                fmt_len(d.floor()),
                fmt_len(max)
            ));
        }
    }
    if !t.howitzer {
        let to = if canister {
            nearest_point(&tfp, gun.front)
        } else {
            aim
        };
        clear(r, st, gun.front, to, &[&gun.id, &tg.id], moved)?;
    }
    Ok(d)
}
