//! Roundshot and shells against houses (Charge!, "ROUNDSHOT EFFECT ON
//! HOUSES"): damage points, penetration by range, fire from shell damage,
//! occupants leaving, fire spreading to adjoining sections, ruins.
//! The table is `[houses]` in rulesets/charge.toml; readings in
//! docs/rules/charge.md, "Houses under fire".

use super::{figures, footprint, Ruleset, Turn};
use crate::charge::State;
use crate::events::{Charge, HouseHit};
use crate::geometry::{self as g, fmt_len, Dist2, Footprint, Pt, PER_INCH};
use crate::state::Feature;
use std::collections::BTreeMap;

/// A building section still standing (not ruined).
fn standing(f: &Feature) -> bool {
    f.kind == "building"
}

/// The occupants of a section: units whose ground's centre lies in it.
pub(super) fn occupants(t: &Turn<'_, '_, '_>, k: usize) -> Vec<String> {
    let Some(f) = t.st.terrain.get(k) else {
        return Vec::new();
    };
    let poly = f.polygon();
    t.st.units
        .iter()
        .filter(|u| u.rf > 0 && g::in_polygon(&poly, footprint(t.r, u).centre()))
        .map(|u| u.id.clone())
        .collect()
}

/// The sleeve as a polygon: `len` long and `w` wide on the line from `gun`
/// through `aim`, its centre `off` beyond the aim. Its corners are found
/// with the integer square root of the line's squared length (exact and
/// the same on every machine; a corner may be a sixteenth off the strip
/// the figures are tested against).
fn sleeve_polygon(r: &Ruleset, gun: Pt, aim: Pt, off: i64) -> Option<geo::Polygon<i64>> {
    let vx = i128::from(aim.x - gun.x);
    let vy = i128::from(aim.y - gun.y);
    let n = ((vx * vx + vy * vy) as u128).isqrt() as i128;
    if n == 0 {
        return None;
    }
    let at = |along: i64, across: i64| -> Pt {
        let a = i128::from(along);
        let c = i128::from(across);
        Pt::new(
            aim.x + g::div_round(vx * a - vy * c, n),
            aim.y + g::div_round(vy * a + vx * c, n),
        )
    };
    let lo = off - r.sleeve_length / 2;
    let hi = off + r.sleeve_length - r.sleeve_length / 2;
    let hw = r.sleeve_width / 2;
    Some(g::polygon(&[
        at(lo, -hw),
        at(hi, -hw),
        at(hi, hw),
        at(lo, hw),
        at(lo, -hw),
    ]))
}

/// Projection of `p` on the line of fire from `gun` (scaled by |v|).
fn along(gun: Pt, aim: Pt, p: Pt) -> i128 {
    i128::from(p.x - gun.x) * i128::from(aim.x - gun.x)
        + i128::from(p.y - gun.y) * i128::from(aim.y - gun.y)
}

/// Roundshot: every standing section the sleeve covers, nearest the gun
/// first, throws a D6: damage (less the range's reduction) and the
/// penetration table. Occupants of a section are not diced one by one
/// under the sleeve; the table kills them. A shot that "stops" spares
/// the figures and sections beyond the section's near face. Returns the
/// figures still to dice, and the report of the houses.
#[allow(clippy::too_many_arguments)]
pub(super) fn roundshot(
    t: &mut Turn<'_, '_, '_>,
    gun: Pt,
    aim: Pt,
    off: i64,
    range: Dist2,
    figs: Vec<(String, usize)>,
    side: usize,
    kills: &mut Vec<(String, u32, usize)>,
) -> (Vec<(String, usize)>, Vec<HouseHit>) {
    let r = t.r;
    let Some(h) = r.houses.clone() else {
        return (figs, Vec::new());
    };
    let Some(sleeve) = sleeve_polygon(r, gun, aim, off) else {
        return (figs, Vec::new());
    };
    let mut hit: Vec<(i128, usize)> =
        t.st.terrain
            .iter()
            .enumerate()
            .filter(|(_, f)| standing(f) && geo::Intersects::intersects(&sleeve, &f.polygon()))
            .map(|(k, f)| {
                let near = f
                    .points
                    .iter()
                    .map(|p| along(gun, aim, *p))
                    .min()
                    .unwrap_or(0);
                (near, k)
            })
            .collect();
    hit.sort();
    let Some(band) = h.penetration.iter().find(|b| range.within(b.to)).cloned() else {
        return (figs, Vec::new());
    };
    let reduce = h
        .reduce
        .iter()
        .filter(|(from, _)| range.at_least(*from))
        .map(|(_, b)| *b)
        .max()
        .unwrap_or(0);
    let mut figs = figs;
    let mut out = Vec::new();
    for (near, k) in hit {
        let occ = occupants(t, k);
        figs.retain(|(u, _)| !occ.contains(u));
        let die = t.roll();
        let pts = die.saturating_sub(reduce);
        let killed = band.kills.get(die as usize - 1).copied().unwrap_or(0);
        let goes_on = band.goes_on.contains(&die);
        let victim = occ.first().cloned();
        if let (Some(v), true) = (&victim, killed > 0) {
            kills.push((v.clone(), killed, side));
        }
        let name = section_name(&t.st, k);
        out.push(HouseHit {
            section: name.clone(),
            die,
            less: Some(reduce),
            damage: pts,
            killed: if victim.is_some() { killed } else { 0 },
            occupant: victim.clone(),
            penetrates: Some(killed > 0),
            goes_on: Some(goes_on),
        });
        add_damage(t, k, pts, 0);
        if !goes_on {
            // The shot stops in the house: figures beyond its near face
            // are spared.
            let units: BTreeMap<String, Vec<Pt>> = figs
                .iter()
                .map(|(u, _)| u.clone())
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .filter_map(|u| t.st.unit(&u).map(|x| (u, figures(r, x))))
                .collect();
            figs.retain(|(u, i)| {
                units
                    .get(u)
                    .and_then(|v| v.get(*i))
                    .is_none_or(|p| along(gun, aim, *p) < near)
            });
            break;
        }
    }
    (figs, out)
}

/// A howitzer shell that bursts (not a misfire) strikes the section that
/// holds the middle of the sector it bursts in: a second D6 kills
/// occupants by the table and its whole score is damage, shell damage
/// that sets the section on fire at the threshold.
#[allow(clippy::too_many_arguments)]
pub(super) fn shell(
    t: &mut Turn<'_, '_, '_>,
    gun: Pt,
    aim: Pt,
    sector: u32,
    figs: Vec<(String, usize)>,
    side: usize,
    kills: &mut Vec<(String, u32, usize)>,
) -> (Vec<(String, usize)>, Vec<HouseHit>) {
    let r = t.r;
    let Some(h) = r.houses.clone() else {
        return (figs, Vec::new());
    };
    let point = burst_point(r, gun, aim, sector);
    let Some(k) =
        t.st.terrain
            .iter()
            .position(|f| standing(f) && g::in_polygon(&f.polygon(), point))
    else {
        return (figs, Vec::new());
    };
    let occ = occupants(t, k);
    let mut figs = figs;
    figs.retain(|(u, _)| !occ.contains(u));
    let die = t.roll();
    let killed = h.shell_kills.get(die as usize - 1).copied().unwrap_or(0);
    let victim = occ.first().cloned();
    if let (Some(v), true) = (&victim, killed > 0) {
        kills.push((v.clone(), killed, side));
    }
    let name = section_name(&t.st, k);
    let ev = HouseHit {
        section: name.clone(),
        die,
        less: None,
        damage: die,
        killed: if victim.is_some() { killed } else { 0 },
        occupant: victim.clone(),
        penetrates: None,
        goes_on: None,
    };
    add_damage(t, k, die, die);
    (figs, vec![ev])
}

/// The middle of the sector a shell bursts in (the point whose section it
/// strikes).
fn burst_point(r: &Ruleset, gun: Pt, aim: Pt, sector: u32) -> Pt {
    let vx = i128::from(aim.x - gun.x);
    let vy = i128::from(aim.y - gun.y);
    let n = ((vx * vx + vy * vy) as u128).isqrt() as i128;
    let m = i128::from((r.sbi_centre + r.sbi_radius) / 2);
    let (a, c) = match sector {
        5 => (m, 0),
        2 => (-m, 0),
        3 => (0, -m),
        4 => (0, m),
        _ => (0, 0),
    };
    if n == 0 {
        aim
    } else {
        Pt::new(
            aim.x + g::div_round(vx * a - vy * c, n),
            aim.y + g::div_round(vy * a + vx * c, n),
        )
    }
}

/// PREDICT: the standing building sections (their indices) a shot of the
/// gun at `gun` aimed at `aim` may strike on some throw of its placing
/// dice, as [`roundshot`] and [`shell`] find them: roundshot, any sleeve
/// the + and - dice may throw (every difference of two D6); a shell, the
/// middle of any sector it may burst in (2 to 6; 1 is a misfire). None
/// when the book has no houses.
pub(crate) fn sections_in_reach(
    r: &Ruleset,
    st: &State,
    gun: Pt,
    aim: Pt,
    shell: bool,
) -> Vec<usize> {
    if r.houses.is_none() {
        return Vec::new();
    }
    st.terrain
        .iter()
        .enumerate()
        .filter(|(_, f)| standing(f))
        .filter(|(_, f)| {
            let poly = f.polygon();
            if shell {
                (2..=6).any(|s| g::in_polygon(&poly, burst_point(r, gun, aim, s)))
            } else {
                (-5..=5_i64).any(|d| {
                    sleeve_polygon(r, gun, aim, d * PER_INCH)
                        .is_some_and(|sleeve| geo::Intersects::intersects(&sleeve, &poly))
                })
            }
        })
        .map(|(k, _)| k)
        .collect()
}

/// How one shot meets the houses, for PREDICT's [`house_ways`].
#[derive(Debug, Clone, Copy)]
pub(crate) enum HouseShot {
    /// Roundshot whose sleeve the placing dice moved `off` beyond the aim,
    /// fired at `range`.
    Roundshot { off: i64, range: Dist2 },
    /// A shell bursting in `sector` (2 to 6).
    Shell { sector: u32 },
}

/// One way the house dice of a shot may fall: its chance, the figures
/// still diced one by one, the rank and file the penetration table (or a
/// shell's second die) kills of each occupant, the sections struck, and
/// the table's terrain after the shot (its damage, a section fallen to
/// ruins or on fire), which the battery's later shots meet.
#[derive(Debug, Clone)]
pub(crate) struct HouseWay {
    pub p: f64,
    pub figs: Vec<(String, usize)>,
    pub kills: Vec<(String, u32)>,
    pub hits: Vec<HouseHit>,
    pub terrain: Vec<Feature>,
}

/// PREDICT: every way the house dice of one shot from `gun` at `aim`
/// covering `figs` may fall, as the engine's own [`roundshot`] and
/// [`shell`] throw them, played on a copy of `st` (the units where the
/// artillery step finds them) for each face of each die they ask for.
pub(crate) fn house_ways(
    r: &Ruleset,
    st: &State,
    gun: Pt,
    aim: Pt,
    shot: HouseShot,
    figs: &[(String, usize)],
) -> Vec<HouseWay> {
    use adjutant_dice::Dice as _;
    let mut out = Vec::new();
    let mut stack: Vec<(Vec<u32>, f64)> = vec![(Vec::new(), 1.0)];
    while let Some((faces, p)) = stack.pop() {
        let mut dice = adjutant_dice::ForcedDice::new(faces.clone());
        let mut deck = adjutant_dice::ForcedDice::new(Vec::new());
        let mut chance = adjutant_rules::Chance {
            dice: &mut dice,
            deck: &mut deck,
        };
        let mut t = Turn {
            r,
            st: st.clone(),
            ev: Vec::new(),
            chance: Some(&mut chance),
            lost: BTreeMap::new(),
            melee_credit: BTreeMap::new(),
            not_rested: std::collections::BTreeSet::new(),
        };
        let mut kills = Vec::new();
        let (left, hits) = match shot {
            HouseShot::Roundshot { off, range } => {
                roundshot(&mut t, gun, aim, off, range, figs.to_vec(), 0, &mut kills)
            }
            HouseShot::Shell { sector } => {
                shell(&mut t, gun, aim, sector, figs.to_vec(), 0, &mut kills)
            }
        };
        let terrain = std::mem::take(&mut t.st.terrain);
        drop(t);
        if dice.exhausted() {
            for f in 1..=6 {
                let mut next = faces.clone();
                next.push(f);
                stack.push((next, p / 6.0));
            }
            continue;
        }
        out.push(HouseWay {
            p,
            figs: left,
            kills: kills.into_iter().map(|(u, k, _)| (u, k)).collect(),
            hits,
            terrain,
        });
    }
    out
}

/// PREDICT: what of the table's `terrain` the battery's `shots` later
/// shots this move can still read (issue 55): each section's kind, its
/// fire and occupants' room, and its damage and shell points only where
/// those shots (each a D6 of points at most) may still bring it to the
/// damage that destroys it or the shell points that set it on fire;
/// below, any damage is alike to them. Ways of a battery's fire whose
/// terrain gives the same key are merged.
pub(crate) fn house_key(r: &Ruleset, terrain: &[Feature], shots: u32) -> String {
    let Some(h) = &r.houses else {
        return String::new();
    };
    let mut key = String::new();
    for (k, f) in terrain.iter().enumerate().filter(|(_, f)| f.kind != "road") {
        let reach = |at: u32, bound: u32| {
            if at + 6 * shots >= bound {
                at.to_string()
            } else {
                "-".to_string()
            }
        };
        key.push_str(&format!(
            "{k} {} {:?} {} {} {};",
            f.kind,
            f.burning,
            f.capacity,
            reach(f.damage, h.destroyed),
            reach(f.shell, h.fire)
        ));
    }
    key
}

fn section_name(st: &State, k: usize) -> String {
    match st.terrain.get(k) {
        Some(f) if !f.name.is_empty() => f.name.clone(),
        _ => format!("building section {}", k + 1),
    }
}

/// Damage to a section: at the shell-fire threshold it catches fire; at
/// the total it is destroyed ("remove outer shell"): a ruin.
fn add_damage(t: &mut Turn<'_, '_, '_>, k: usize, pts: u32, shell: u32) {
    let Some(h) = t.r.houses.clone() else { return };
    let name = section_name(&t.st, k);
    let Some(f) = t.st.terrain.get_mut(k) else {
        return;
    };
    if !standing(f) {
        return;
    }
    f.damage += pts;
    f.shell += shell;
    let (damage, shell_pts) = (f.damage, f.shell);
    if damage >= h.destroyed {
        f.kind = "ruins".into();
        f.burning = None;
        f.capacity = 0;
        t.ev.push(Charge::HouseRuins {
            section: name.to_string(),
            damage: Some(damage),
            why: "destroyed".into(),
            moves: None,
        });
        return;
    }
    if shell_pts >= h.fire && f.burning.is_none() {
        f.burning = Some(0);
        t.ev.push(Charge::HouseFire {
            section: name.to_string(),
            shell: shell_pts,
            why: "shell fire".into(),
        });
    }
}

/// Exact: is every point of `a` at least `d` from every point of `b`
/// (two convex-or-not rings, by their edges; overlapping rings are 0 apart).
fn apart(a: &[Pt], b: &[Pt], d: i64) -> bool {
    let pa = g::polygon(a);
    let pb = g::polygon(b);
    if geo::Intersects::intersects(&pa, &pb) {
        return false;
    }
    let edges = |v: &[Pt]| -> Vec<(Pt, Pt)> {
        (0..v.len()).map(|i| (v[i], v[(i + 1) % v.len()])).collect()
    };
    let (ea, eb) = (edges(a), edges(b));
    a.iter().all(|p| {
        eb.iter()
            .all(|(x, y)| g::dist2_point_segment(*p, *x, *y).at_least(d))
    }) && b.iter().all(|p| {
        ea.iter()
            .all(|(x, y)| g::dist2_point_segment(*p, *x, *y).at_least(d))
    })
}

/// "Occupants must move at least 3" away": every unit whose ground touches
/// a burning section moves straight to its rear (else to its front, its
/// right, its left) by whole quarter inches until its ground is that far
/// from the section, not onto another unit, a river or off the table.
pub(super) fn leave_fires(t: &mut Turn<'_, '_, '_>) {
    let r = t.r;
    let Some(h) = r.houses.clone() else { return };
    let burning: Vec<usize> = (0..t.st.terrain.len())
        .filter(|k| t.st.terrain[*k].burning.is_some())
        .collect();
    for k in burning {
        let sect = t.st.terrain[k].points.clone();
        let spoly = g::polygon(&sect);
        let ids: Vec<String> =
            t.st.units
                .iter()
                .filter(|u| geo::Intersects::intersects(&footprint(r, u).polygon(), &spoly))
                .map(|u| u.id.clone())
                .collect();
        for id in ids {
            let Some(u) = t.st.unit(&id).cloned() else {
                continue;
            };
            let fp = footprint(r, &u);
            let mut done = None;
            'dirs: for turn in [180, 0, 90, 270] {
                let mut dist = PER_INCH / 4;
                while dist <= 36 * PER_INCH {
                    let front = g::offset(u.front, i64::from(u.facing) + turn, dist, 0);
                    let nfp = Footprint { front, ..fp };
                    if !t.st.on_table(&nfp) {
                        break;
                    }
                    let sweep = Footprint {
                        front: if turn == 180 { fp.front } else { front },
                        depth: fp.depth + if turn == 0 || turn == 180 { dist } else { 0 },
                        ..fp
                    };
                    let blocked = t.st.units.iter().any(|o| {
                        o.id != id
                            && (g::overlap(&nfp, &footprint(r, o))
                                || (turn == 0 || turn == 180)
                                    && g::overlap(&sweep, &footprint(r, o)))
                    }) || t.st.terrain.iter().enumerate().any(|(j, f)| {
                        j != k
                            && (f.kind == "river" || f.burning.is_some())
                            && f.points.len() >= 3
                            && geo::Intersects::intersects(&nfp.polygon(), &f.polygon())
                    });
                    if blocked {
                        break;
                    }
                    let c = nfp.corners();
                    if apart(&c, &sect[..sect.len().saturating_sub(1).max(1)], h.leave) {
                        done = Some((front, dist));
                        break 'dirs;
                    }
                    dist += PER_INCH / 4;
                }
            }
            let name = section_name(&t.st, k);
            match done {
                Some((front, dist)) => {
                    if let Some(m) = t.st.unit_mut(&id) {
                        m.front = front;
                    }
                    t.ev.push(Charge::HouseLeave {
                        unit: id.to_string(),
                        section: name.to_string(),
                        dist,
                        text: fmt_len(dist),
                        clear: fmt_len(h.leave),
                        trapped: None,
                    });
                }
                None => {
                    t.ev.push(Charge::HouseLeave {
                        unit: id.to_string(),
                        section: name.to_string(),
                        dist: 0,
                        text: "0\"".into(),
                        clear: fmt_len(h.leave),
                        trapped: Some(true),
                    });
                }
            }
        }
    }
}

/// Sections burning when the move began (they spread and burn down at its
/// end).
pub(super) fn burning_now(st: &State) -> Vec<usize> {
    (0..st.terrain.len())
        .filter(|k| st.terrain[*k].burning.is_some() && st.terrain[*k].kind == "building")
        .collect()
}

/// The end of a move: each section that burnt through the move throws a
/// D6 for each adjoining standing section not yet on fire (3 to 6: it
/// catches fire, and its occupants leave), then one more move of burning
/// is counted; after the book's 15 the section is a ruin.
pub(super) fn end_of_move(t: &mut Turn<'_, '_, '_>, was: &[usize]) {
    let Some(h) = t.r.houses.clone() else { return };
    let mut caught = false;
    for &k in was {
        let poly = t.st.terrain[k].polygon();
        let next: Vec<usize> = (0..t.st.terrain.len())
            .filter(|j| {
                *j != k
                    && standing(&t.st.terrain[*j])
                    && t.st.terrain[*j].burning.is_none()
                    && geo::Intersects::intersects(&poly, &t.st.terrain[*j].polygon())
            })
            .collect();
        for j in next {
            let die = t.roll();
            let spreads = h.spread.contains(&die);
            if spreads {
                t.st.terrain[j].burning = Some(0);
                caught = true;
            }
            t.ev.push(Charge::HouseSpread {
                from: section_name(&t.st, k).to_string(),
                section: section_name(&t.st, j).to_string(),
                die,
                spreads,
            });
        }
    }
    for &k in was {
        let name = section_name(&t.st, k);
        let f = &mut t.st.terrain[k];
        let Some(n) = f.burning else { continue };
        let n = n + 1;
        if n >= h.burn {
            f.burning = None;
            f.kind = "ruins".into();
            f.capacity = 0;
            t.ev.push(Charge::HouseRuins {
                section: name.to_string(),
                moves: Some(n),
                why: "burnt out".into(),
                damage: None,
            });
        } else {
            f.burning = Some(n);
        }
    }
    if caught {
        leave_fires(t);
    }
}

/// A burning section may not be entered (its occupants must leave it).
pub(super) fn ground_refusal(st: &State, sweep: &geo::Polygon<i64>) -> Option<String> {
    st.terrain
        .iter()
        .enumerate()
        .find(|(_, f)| {
            f.burning.is_some()
                && f.points.len() >= 3
                && geo::Intersects::intersects(sweep, &f.polygon())
        })
        .map(|(k, _)| format!("{} is on fire", section_name(st, k)))
}
