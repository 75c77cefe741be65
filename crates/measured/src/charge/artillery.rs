//! Step 3 of the move, artillery, all batteries at once: canister, shell
//! and roundshot under their templates, counter-battery fire.

#[allow(clippy::wildcard_imports)]
use super::*;

/// Figures or guns under a template: (unit id, index).
pub type Covered = Vec<(String, usize)>;

/// Is `s` >= a * sqrt(v) (v >= 0)? Exact.
fn ge_mul_sqrt(s: i128, a: i128, v: i128) -> bool {
    match (s >= 0, a >= 0) {
        (true, false) => true,
        (false, true) => a == 0 && s >= 0,
        (true, true) => s * s >= a * a * v,
        (false, false) => s * s <= a * a * v,
    }
}

/// Figures (unit id, figure index) and guns (unit id, gun index) covered by
/// the sleeve: a strip `len` long and `w` wide on the line from `gun`
/// through `aim`, its centre `off` beyond the aim point (negative: short).
fn under_sleeve(
    t: &Turn<'_, '_, '_>,
    shooter: &str,
    gun: Pt,
    aim: Pt,
    off: i64,
) -> (Covered, Covered) {
    sleeve_cover(t.r, &t.st.units, shooter, gun, aim, off)
}

/// [`under_sleeve`] over `units` (PREDICT reckons it on the position the
/// side's own movement leaves).
fn sleeve_cover<'u>(
    r: &Ruleset,
    units: impl IntoIterator<Item = &'u Unit>,
    shooter: &str,
    gun: Pt,
    aim: Pt,
    off: i64,
) -> (Covered, Covered) {
    let vx = i128::from(aim.x - gun.x);
    let vy = i128::from(aim.y - gun.y);
    let v2 = vx * vx + vy * vy;
    let lo = i128::from(off - r.sleeve_length / 2);
    let hi = i128::from(off + r.sleeve_length - r.sleeve_length / 2);
    let hw = i128::from(r.sleeve_width / 2);
    let mut figs = Vec::new();
    let mut guns = Vec::new();
    for u in units {
        if u.id == shooter {
            continue;
        }
        for (i, p) in figures(r, u).into_iter().enumerate() {
            if in_strip(p, gun, vx, vy, v2, lo, hi, hw) {
                figs.push((u.id.clone(), i));
            }
        }
        for (i, p) in gun_points(r, u).into_iter().enumerate() {
            if !u.guns.get(i).is_some_and(|x| x.destroyed)
                && in_strip(p, gun, vx, vy, v2, lo, hi, hw)
            {
                guns.push((u.id.clone(), i));
            }
        }
    }
    (figs, guns)
}

#[allow(clippy::too_many_arguments)]
fn in_strip(p: Pt, gun: Pt, vx: i128, vy: i128, v2: i128, lo: i128, hi: i128, hw: i128) -> bool {
    let px = i128::from(p.x - gun.x);
    let py = i128::from(p.y - gun.y);
    let s = px * vx + py * vy - v2;
    let c = px * vy - py * vx;
    // lo*|v| <= s <= hi*|v|, and |c| <= hw*|v|.
    let ge_lo = ge_mul_sqrt(s, lo, v2);
    let le_hi = !ge_mul_sqrt(s, hi, v2) || s * s == hi * hi * v2 && (s >= 0) == (hi >= 0);
    ge_lo && le_hi && c * c <= hw * hw * v2
}

/// One gun's shot this move: the battery and its target as they stood.
struct Shot<'a> {
    gu: &'a Unit,
    tg: &'a Unit,
    gi: usize,
    gp: Pt,
    before: &'a BTreeMap<String, Unit>,
}

/// Figures killed (unit, figures, by side) and gun damage (unit, gun,
/// points), applied once every battery has fired.
#[derive(Default)]
struct Losses {
    kills: Vec<(String, u32, usize)>,
    damage: Vec<(String, usize, u32)>,
}

pub(super) fn artillery(t: &mut Turn<'_, '_, '_>, all: &[Plan]) {
    let r = t.r;
    let before = positions(t);
    let mut losses = Losses::default();
    for p in all {
        let (target, canister) = match &p.action {
            Some(Action::Fire(x)) if troop(r, &p.end).is("artillery") => (x.clone(), false),
            Some(Action::Canister(x)) => (x.clone(), true),
            _ => continue,
        };
        let Some(gu) = before.get(&p.unit).cloned() else {
            continue;
        };
        let Some(tg) = before.get(&target).cloned() else {
            t.ev.push(Charge::Lapse {
                unit: p.unit.to_string(),
                why: format!("{target} is gone"),
            });
            continue;
        };
        match gun_sight(r, &t.st, &gu, &tg, canister, &before) {
            Ok(_) => {}
            Err(why) => {
                t.ev.push(Charge::Lapse {
                    unit: p.unit.to_string(),
                    why: why.to_string(),
                });
                continue;
            }
        }
        for (gi, gp) in gun_points(r, &gu).into_iter().enumerate() {
            let Some(gs) = gu.guns.get(gi) else { continue };
            if gs.destroyed || gun_rests(t, &gu, gi) {
                continue;
            }
            let shot = Shot {
                gu: &gu,
                tg: &tg,
                gi,
                gp,
                before: &before,
            };
            if canister {
                canister_shot(t, &shot, &mut losses);
            } else if troop(r, &gu).howitzer {
                shell_shot(t, &shot, &mut losses);
            } else {
                roundshot_shot(t, &shot, &mut losses);
            }
        }
    }
    for (u, k, side) in losses.kills {
        t.kill(&u, k, side);
    }
    damage_guns(t, losses.damage);
}

/// A damaged gun fires alternate moves: whether it rests this one (and
/// which it fires next).
fn gun_rests(t: &mut Turn<'_, '_, '_>, gu: &Unit, gi: usize) -> bool {
    let Some(gs) = gu.guns.get(gi) else {
        return true;
    };
    if gs.damage >= t.r.cb_alternate && gs.fired_last {
        t.ev.push(Charge::GunRests {
            unit: gu.id.to_string(),
            gun: gi + 1,
            why: "damaged: fires alternate moves".into(),
        });
        // It rested this move, so it fires the next.
        if let Some(m) = t.st.unit_mut(&gu.id) {
            if let Some(x) = m.guns.get_mut(gi) {
                x.fired_last = false;
            }
        }
        return true;
    }
    if let Some(m) = t.st.unit_mut(&gu.id) {
        if let Some(x) = m.guns.get_mut(gi) {
            x.fired_last = true;
        }
    }
    false
}

/// Canister: every figure within range in the cone toward the target.
fn canister_shot(t: &mut Turn<'_, '_, '_>, s: &Shot<'_>, losses: &mut Losses) {
    let r = t.r;
    let (gu, tg, gp) = (s.gu, s.tg, s.gp);
    let aim = footprint(r, tg).centre();
    let dd = Dist2::of(gp.dist2(aim));
    let dir = g::bearing(gp, aim);
    let mut hits = Vec::new();
    for u in s.before.values() {
        if u.id == gu.id {
            continue;
        }
        for (i, fp) in figures(r, u).into_iter().enumerate() {
            if Dist2::of(gp.dist2(fp)).within(r.canister_range)
                && g::in_arc(gp, i64::from(dir), r.canister_half_angle, fp)
            {
                hits.push((u.id.clone(), i));
            }
        }
    }
    let dice = t.rolls(hits.len());
    let mut per: BTreeMap<String, u32> = BTreeMap::new();
    for ((u, _), d) in hits.iter().zip(&dice) {
        if r.canister_kill.contains(d) {
            *per.entry(u.clone()).or_default() += 1;
        }
    }
    t.ev.push(Charge::Canister {
        unit: gu.id.to_string(),
        gun: s.gi + 1,
        target: tg.id.to_string(),
        range: dd.floor(),
        text: fmt_len(dd.floor()),
        figures: hits.len(),
        dice: dice.clone(),
        kill: r.canister_kill.clone(),
        killed: per.clone(),
    });
    for (u, k) in per {
        losses.kills.push((u, k, gu.side));
    }
}

/// A howitzer's shell: the die gives the sector (1 a misfire), then the
/// burst's figures, houses and guns.
fn shell_shot(t: &mut Turn<'_, '_, '_>, s: &Shot<'_>, losses: &mut Losses) {
    let r = t.r;
    let (gu, tg, gp, gi, side) = (s.gu, s.tg, s.gp, s.gi, s.gu.side);
    let aim = footprint(r, tg).centre();
    let dd = Dist2::of(gp.dist2(aim));
    let face = t.roll();
    if face == 1 {
        t.ev.push(Charge::Shell {
            unit: gu.id.to_string(),
            gun: gi + 1,
            target: tg.id.to_string(),
            range: dd.floor(),
            text: fmt_len(dd.floor()),
            sector: 1,
            misfire: Some(true),
            figures: None,
            dice: None,
            kill: None,
            killed: None,
            counter_battery: None,
            houses: None,
            aim: None,
            from: None,
        });
        return;
    }
    let (figs, guns) = under_sbi(r, &gu.id, gp, aim, face, s.before);
    let (figs, house_ev) = houses::shell(t, gp, aim, face, figs, side, &mut losses.kills);
    let dice = t.rolls(figs.len());
    let mut per: BTreeMap<String, u32> = BTreeMap::new();
    for ((u, _), d) in figs.iter().zip(&dice) {
        if r.how_kill.contains(d) {
            *per.entry(u.clone()).or_default() += 1;
        }
    }
    let cb = counter_battery(t, &guns, dd, &mut losses.damage);
    t.ev.push(Charge::Shell {
        unit: gu.id.to_string(),
        gun: gi + 1,
        target: tg.id.to_string(),
        range: dd.floor(),
        text: fmt_len(dd.floor()),
        sector: face,
        figures: Some(figs.len()),
        dice: Some(dice.clone()),
        kill: Some(r.how_kill.clone()),
        killed: Some(per.clone()),
        counter_battery: Some(cb),
        houses: Some(house_ev),
        aim: Some([aim.x, aim.y]),
        from: Some([gp.x, gp.y]),
        misfire: None,
    });
    for (u, k) in per {
        losses.kills.push((u, k, side));
    }
}

/// Roundshot: the sleeve thrown off by the two dice, its figures, houses
/// and guns.
fn roundshot_shot(t: &mut Turn<'_, '_, '_>, s: &Shot<'_>, losses: &mut Losses) {
    let r = t.r;
    let (gu, tg, gp, gi, side) = (s.gu, s.tg, s.gp, s.gi, s.gu.side);
    let aim = footprint(r, tg).centre();
    let dd = Dist2::of(gp.dist2(aim));
    let Some((_, band)) = band_of(&r.roundshot, dd) else {
        return;
    };
    let band = band.clone();
    let plus = t.roll();
    let minus = t.roll();
    let off = (i64::from(plus) - i64::from(minus)) * PER_INCH;
    let (figs, guns) = under_sleeve(t, &gu.id, gp, aim, off);
    let (figs, house_ev) = houses::roundshot(t, gp, aim, off, dd, figs, side, &mut losses.kills);
    let dice = t.rolls(figs.len());
    let mut per: BTreeMap<String, u32> = BTreeMap::new();
    for ((u, _), d) in figs.iter().zip(&dice) {
        if band.kill.contains(d) {
            *per.entry(u.clone()).or_default() += 1;
        }
    }
    let cb = counter_battery(t, &guns, dd, &mut losses.damage);
    t.ev.push(Charge::Roundshot {
        unit: gu.id.to_string(),
        gun: gi + 1,
        target: tg.id.to_string(),
        range: dd.floor(),
        text: fmt_len(dd.floor()),
        kill: band.kill.clone(),
        plus,
        minus,
        sleeve: off,
        sleeve_text: fmt_len(off),
        figures: figs.len(),
        dice: dice.clone(),
        killed: per.clone(),
        counter_battery: cb,
        houses: house_ev,
        aim: [aim.x, aim.y],
        from: [gp.x, gp.y],
    });
    for (u, k) in per {
        losses.kills.push((u, k, side));
    }
}

/// Counter-battery damage, once every battery has fired: a gun with
/// enough is destroyed.
fn damage_guns(t: &mut Turn<'_, '_, '_>, damage: Vec<(String, usize, u32)>) {
    let r = t.r;
    for (u, gi, pts) in damage {
        if let Some(m) = t.st.unit_mut(&u) {
            if let Some(x) = m.guns.get_mut(gi) {
                x.damage += pts;
                if x.damage >= r.cb_destroyed && !x.destroyed {
                    x.destroyed = true;
                    t.ev.push(Charge::GunDestroyed {
                        unit: u.to_string(),
                        gun: gi + 1,
                        damage: x.damage,
                    });
                }
            }
        }
    }
}

fn counter_battery(
    t: &mut Turn<'_, '_, '_>,
    guns: &[(String, usize)],
    d: Dist2,
    out: &mut Vec<(String, usize, u32)>,
) -> Vec<CounterBattery> {
    let reduce = reduce_at(t.r, d);
    let mut ev = Vec::new();
    for (u, gi) in guns {
        let die = t.roll();
        let pts = die.saturating_sub(reduce);
        out.push((u.clone(), *gi, pts));
        ev.push(CounterBattery {
            unit: u.clone(),
            gun: gi + 1,
            die,
            less: reduce,
            damage: pts,
        });
    }
    ev
}

/// The counter-battery reduction at `d` from the firing gun to its aim.
fn reduce_at(r: &Ruleset, d: Dist2) -> u32 {
    r.cb_reduce
        .iter()
        .filter(|(from, _)| d.at_least(*from))
        .map(|(_, b)| *b)
        .max()
        .unwrap_or(0)
}

/// Figures and guns in one sector of the shell-burst indicator centred on
/// `aim`: 6 the centre disc, 5 the quarter furthest from the gun, 2 the
/// nearest, 3 the left and 4 the right as the gun sees it.
fn under_sbi(
    r: &Ruleset,
    shooter: &str,
    gun: Pt,
    aim: Pt,
    sector: u32,
    before: &BTreeMap<String, Unit>,
) -> (Covered, Covered) {
    let vx = i128::from(aim.x - gun.x);
    let vy = i128::from(aim.y - gun.y);
    let inside = |p: Pt| -> bool {
        let d2 = aim.dist2(p);
        let rr = i128::from(r.sbi_radius);
        if d2 > rr * rr {
            return false;
        }
        let rc = i128::from(r.sbi_centre);
        let s = if d2 <= rc * rc {
            6
        } else {
            let dx = i128::from(p.x - aim.x);
            let dy = i128::from(p.y - aim.y);
            let dot = dx * vx + dy * vy;
            let cr = vx * dy - vy * dx; // > 0: left of the line of fire
            if dot >= cr.abs() {
                5
            } else if -dot >= cr.abs() {
                2
            } else if cr > 0 {
                3
            } else {
                4
            }
        };
        s == sector
    };
    let mut figs = Vec::new();
    let mut guns = Vec::new();
    for u in before.values() {
        if u.id == shooter {
            continue;
        }
        for (i, p) in figures(r, u).into_iter().enumerate() {
            if inside(p) {
                figs.push((u.id.clone(), i));
            }
        }
        for (i, p) in gun_points(r, u).into_iter().enumerate() {
            if !u.guns.get(i).is_some_and(|x| x.destroyed) && inside(p) {
                guns.push((u.id.clone(), i));
            }
        }
    }
    (figs, guns)
}

/// One outcome of a gun's placing dice: its chance, the figures and the
/// guns it covers (unit id, index), as the engine's shot finds them.
pub type ShotCover = (f64, Covered, Covered);

/// For PREDICT: one gun's shot at `tg`, each outcome of its placing dice
/// as the engine's [`roundshot_shot`] and [`shell_shot`] throw them
/// (roundshot: the + and - dice, "Move sleeve difference between scores
/// toward or away from target", 36 throws grouped by their difference; a
/// shell: the sector die, "1 is a misfire", 6 outcomes) with its chance
/// and every figure and gun it covers (the target's and any other unit's);
/// and the faces that kill each figure covered. `units`: the position the
/// shot is fired on (the battery's gun at `gp`). None: a roundshot beyond
/// its last band (no shot).
#[must_use]
pub fn gun_outcomes(
    r: &Ruleset,
    units: &BTreeMap<String, Unit>,
    gu: &Unit,
    tg: &Unit,
    gp: Pt,
) -> Option<(Vec<u32>, Vec<ShotCover>)> {
    let aim = footprint(r, tg).centre();
    if troop(r, gu).howitzer {
        let mut out = vec![(1.0 / 6.0, Vec::new(), Vec::new())];
        for face in 2..=6 {
            let (figs, guns) = under_sbi(r, &gu.id, gp, aim, face, units);
            out.push((1.0 / 6.0, figs, guns));
        }
        return Some((r.how_kill.clone(), out));
    }
    let dd = Dist2::of(gp.dist2(aim));
    let (_, band) = band_of(&r.roundshot, dd)?;
    let mut by_off: BTreeMap<i64, ShotCover> = BTreeMap::new();
    for plus in 1..=6_i64 {
        for minus in 1..=6_i64 {
            let off = (plus - minus) * PER_INCH;
            let e = by_off.entry(off).or_insert_with(|| {
                let (figs, guns) = sleeve_cover(r, units.values(), &gu.id, gp, aim, off);
                (0.0, figs, guns)
            });
            e.0 += 1.0 / 36.0;
        }
    }
    Some((band.kill.clone(), by_off.into_values().collect()))
}

/// For PREDICT: the points a counter-battery die takes off a gun under a
/// shot fired from `gp` at `tg`'s centre ("Reduce damage by 1 from 36\"
/// to 48\", and by 2 at 48\" or more"), as [`counter_battery`] reckons
/// them.
#[must_use]
pub fn cb_reduce(r: &Ruleset, tg: &Unit, gp: Pt) -> u32 {
    reduce_at(r, Dist2::of(gp.dist2(footprint(r, tg).centre())))
}

/// Whether a gun of `gu` fires this move (not destroyed, not resting a
/// damaged gun's alternate move), as [`artillery`] decides it.
#[must_use]
pub fn gun_fires(r: &Ruleset, gu: &Unit, gi: usize) -> bool {
    gu.guns
        .get(gi)
        .is_some_and(|gs| !(gs.destroyed || gs.damage >= r.cb_alternate && gs.fired_last))
}
