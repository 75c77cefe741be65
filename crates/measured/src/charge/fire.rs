//! Step 4 of the move, musketry: line volleys, light infantry's skirmish
//! and picking off, who fires first between units firing at each other.

#[allow(clippy::wildcard_imports)]
use super::*;

/// One line-infantry volley at close range or any band: returns figures
/// killed (applied at once).
pub(super) fn line_volley(
    t: &mut Turn<'_, '_, '_>,
    shooter: &str,
    target: &str,
    band: &Band,
    cover: bool,
) -> u32 {
    let (Some(sh), Some(tg)) = (t.st.unit(shooter).cloned(), t.st.unit(target).cloned()) else {
        return 0;
    };
    let (killed, ev) = volley_dice(t, &sh, &tg, band, cover, None);
    t.ev.push(ev);
    t.kill(target, killed, sh.side)
}

pub(crate) fn firers(r: &Ruleset, u: &Unit) -> u32 {
    let tr = troop(r, u);
    match u.formation.as_str() {
        "column" => shape(tr, u).files.min(u.rf),
        _ => u.rf,
    }
}

/// The dice of a volley: a die per `fire_per` firers, less the deduction;
/// each hit a die for the figure of the target group of 6 it strikes.
fn volley_dice(
    t: &mut Turn<'_, '_, '_>,
    sh: &Unit,
    tg: &Unit,
    band: &Band,
    cover: bool,
    d: Option<Dist2>,
) -> (u32, Charge) {
    let r = t.r;
    let tr = troop(r, sh);
    let n = firers(r, sh) / tr.fire_per;
    let ded = if cover { band.cover } else { band.open };
    let groups = tg.rf.div_ceil(r.group).max(1);
    let mut struck: BTreeSet<(u32, u32)> = BTreeSet::new();
    let mut dice = Vec::new();
    for k in 0..n {
        let die = t.roll();
        let hits = die.saturating_sub(ded);
        let grp = k % groups;
        let size = (tg.rf - grp * r.group).min(r.group);
        let faces = t.rolls(hits as usize);
        for f in &faces {
            if *f <= size {
                struck.insert((grp, *f));
            }
        }
        dice.push(VolleyDie {
            die,
            hits,
            group: grp + 1,
            size,
            figures: faces,
        });
    }
    let killed = struck.len() as u32;
    let ev = Charge::Volley {
        unit: sh.id.to_string(),
        target: tg.id.to_string(),
        firers: firers(r, sh),
        per: tr.fire_per,
        range: d.map(Dist2::floor),
        text: d.map(|d| fmt_len(d.floor())),
        band_to: band.to,
        first: !sh.volleyed,
        cover,
        deduct: ded,
        dice,
        killed,
    };
    (killed, ev)
}

pub(super) fn musketry(t: &mut Turn<'_, '_, '_>, all: &[Plan]) {
    let r = t.r;
    let shooters: Vec<(String, String, bool)> = all
        .iter()
        .filter_map(|p| match &p.action {
            Some(Action::Fire(x)) if !troop(r, &p.end).is("artillery") => {
                Some((p.unit.clone(), x.clone(), false))
            }
            Some(Action::PickOff(x)) => Some((p.unit.clone(), x.clone(), true)),
            _ => None,
        })
        .collect();
    let second = fires_first(t, &shooters);
    for wave in 0..2 {
        let snapshot = positions(t);
        let mut hits = Volleys::default();
        for (sid, tid, pick) in &shooters {
            if (wave == 1) != second.contains(sid) {
                continue;
            }
            musket_shot(t, sid, tid, *pick, &snapshot, &mut hits);
        }
        for (u, k, side) in hits.kills {
            t.kill(&u, k, side);
        }
        for (u, i, _) in hits.officers {
            officer_hit(t, &u, i);
        }
    }
}

/// Who fires first between two units firing at each other: the units that
/// fire second.
fn fires_first(t: &mut Turn<'_, '_, '_>, shooters: &[(String, String, bool)]) -> BTreeSet<String> {
    let mut second: BTreeSet<String> = BTreeSet::new();
    let mut done_pairs: BTreeSet<(String, String)> = BTreeSet::new();
    for (a, b, _) in shooters {
        if shooters.iter().any(|(x, y, _)| x == b && y == a) {
            let key = if a < b {
                (a.clone(), b.clone())
            } else {
                (b.clone(), a.clone())
            };
            if !done_pairs.insert(key) {
                continue;
            }
            let da = t.roll();
            let db = t.roll();
            let first = match da.cmp(&db) {
                std::cmp::Ordering::Greater => Some(a.clone()),
                std::cmp::Ordering::Less => Some(b.clone()),
                std::cmp::Ordering::Equal => None,
            };
            t.ev.push(Charge::FiresFirst {
                a: a.to_string(),
                b: b.to_string(),
                dice: [da, db],
                first: first.clone(),
            });
            match first {
                Some(f) if f == *a => {
                    second.insert(b.clone());
                }
                Some(_) => {
                    second.insert(a.clone());
                }
                None => {}
            }
        }
    }
    second
}

/// A wave's figures killed (unit, figures, by side) and officers hit
/// (unit, officer, picked off), applied once the wave has fired.
#[derive(Default)]
struct Volleys {
    kills: Vec<(String, u32, usize)>,
    officers: Vec<(String, usize, bool)>,
}

/// One unit's musketry: the line's volley, light infantry's picking off
/// or skirmishing fire.
fn musket_shot(
    t: &mut Turn<'_, '_, '_>,
    sid: &str,
    tid: &str,
    pick: bool,
    snapshot: &BTreeMap<String, Unit>,
    hits: &mut Volleys,
) {
    let r = t.r;
    let lapse = |t: &mut Turn<'_, '_, '_>, why: String| {
        t.ev.push(Charge::Lapse {
            unit: sid.to_string(),
            why,
        });
    };
    let (Some(sh), Some(tg)) = (snapshot.get(sid).cloned(), snapshot.get(tid).cloned()) else {
        lapse(t, format!("{tid} is gone"));
        return;
    };
    if sh.rf == 0 || sh.melee.is_some() {
        lapse(t, "in melee or without men: no musketry".into());
        return;
    }
    let sight = match musket_sight(r, &t.st, &sh, &tg, snapshot) {
        Ok(s) => s,
        Err(why) => {
            lapse(t, why.to_string());
            return;
        }
    };
    let tr = troop(r, &sh);
    if tr.musket == "line" {
        let table = if sh.volleyed {
            &r.normal
        } else {
            &r.first_volley
        };
        let Some((_, band)) = band_of(table, sight.dist) else {
            return;
        };
        let band = band.clone();
        let (k, ev) = volley_dice(t, &sh, &tg, &band, sight.cover, Some(sight.dist));
        t.ev.push(ev);
        hits.kills.push((tid.to_string(), k, sh.side));
        if let Some(m) = t.st.unit_mut(sid) {
            m.volleyed = true;
        }
    } else if pick {
        pick_off_shot(t, &sh, &tg, &sight, hits);
    } else {
        skirmish_shot(t, &sh, &tg, &sight, hits);
    }
}

/// Light infantry picking off officers.
fn pick_off_shot(
    t: &mut Turn<'_, '_, '_>,
    sh: &Unit,
    tg: &Unit,
    sight: &Sight,
    hits: &mut Volleys,
) {
    let r = t.r;
    let (sid, tid) = (&sh.id, &tg.id);
    let bands = &r.pick_off;
    let target_light = troop(r, tg).light;
    let _ = target_light;
    let Some((_, band)) = band_of(bands, sight.dist) else {
        return;
    };
    let band = band.clone();
    let line_cover = sight.cover && !troop(r, tg).light;
    if line_cover {
        t.ev.push(Charge::Lapse {
            unit: sid.to_string(),
            why: "no picking off at line infantry in cover".into(),
        });
        return;
    }
    let dice = t.rolls(sh.rf as usize);
    let n = dice.iter().filter(|d| band.kill.contains(d)).count();
    let mut taken: BTreeSet<usize> = BTreeSet::new();
    let mut shot = Vec::new();
    for _ in 0..n {
        // The highest-ranking officer still standing (mounted
        // only beyond the near band).
        let cand = tg
            .officers
            .iter()
            .enumerate()
            .filter(|(i, o)| o.alive && !taken.contains(i) && (!band.mounted_only || o.mounted))
            .max_by_key(|(i, o)| (o.points, std::cmp::Reverse(*i)));
        if let Some((i, o)) = cand {
            taken.insert(i);
            shot.push(o.rank.clone());
            hits.officers.push((tid.clone(), i, true));
        }
    }
    t.ev.push(Charge::PickOff {
        unit: sid.to_string(),
        target: tid.to_string(),
        range: sight.dist.floor(),
        text: fmt_len(sight.dist.floor()),
        kill: band.kill.clone(),
        dice: dice.clone(),
        officers_hit: shot,
    });
}

/// Light infantry's skirmishing band: the table by the target's kind and
/// cover, the band by the range (None: no effect at that range).
pub(crate) fn skirmish_band(r: &Ruleset, tg: &Unit, sight: &Sight) -> Option<Band> {
    let bands = match (troop(r, tg).light, sight.cover) {
        (true, false) => &r.at_light_open,
        (true, true) => &r.at_light_cover,
        (false, true) => &r.at_line_cover,
        (false, false) => &r.brown,
    };
    band_of(bands, sight.dist).map(|(_, b)| b.clone())
}

/// Light infantry's skirmishing fire: the table by the target's kind and
/// cover.
fn skirmish_shot(
    t: &mut Turn<'_, '_, '_>,
    sh: &Unit,
    tg: &Unit,
    sight: &Sight,
    hits: &mut Volleys,
) {
    let r = t.r;
    let (sid, tid) = (&sh.id, &tg.id);
    let Some(band) = skirmish_band(r, tg, sight) else {
        t.ev.push(Charge::Lapse {
            unit: sid.to_string(),
            why: format!(
                "no effect at {} against that target",
                fmt_len(sight.dist.floor())
            ),
        });
        return;
    };
    let dice = t.rolls(sh.rf as usize);
    // No more killed than the target has (the report said more before).
    let k = (dice.iter().filter(|d| band.kill.contains(d)).count() as u32).min(tg.rf);
    t.ev.push(Charge::Skirmish {
        unit: sid.to_string(),
        target: tid.to_string(),
        range: sight.dist.floor(),
        text: fmt_len(sight.dist.floor()),
        cover: sight.cover,
        kill: band.kill.clone(),
        dice: dice.clone(),
        killed: k,
    });
    hits.kills.push((tid.clone(), k, sh.side));
}
