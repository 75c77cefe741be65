//! Step 5 of the move, melee: one move of it for every pair in contact
//! (the pairings of figures, the modifiers, the fights and what follows).

#[allow(clippy::wildcard_imports)]
use super::*;

/// The combats of one move of melee: (a's figures, b's figures) each.
fn pairings(r: &Ruleset, a_class: &str, a: u32, b_class: &str, b: u32) -> Vec<(u32, u32)> {
    if a == 0 || b == 0 {
        return Vec::new();
    }
    // The largest group the table allows against one figure of the other
    // class.
    let max_vs = |one: &str, many: &str| -> u32 {
        r.combats
            .iter()
            .filter(|c| c.a_n == 1 && c.a_class == one && c.b_class == many)
            .map(|c| c.b_n)
            .max()
            .unwrap_or(0)
    };
    let one_a = max_vs(a_class, b_class).max(u32::from(a_class == b_class));
    let one_b = max_vs(b_class, a_class).max(u32::from(a_class == b_class));
    // Same troop types: up to 2 to 1 either way; cavalry against infantry:
    // one horseman against up to three foot.
    let same = a_class == b_class;
    let (ma, mb) = if same {
        (2, 2)
    } else {
        (one_a.max(1), one_b.max(1))
    };
    // Singles on the side with fewer figures; the other side's extras
    // double (or triple) up, within the table's limits.
    if a <= b || (!same && one_a > 1) {
        let singles = a.min(b);
        let mut groups = vec![1u32; singles as usize];
        let mut extra = b - singles.min(b);
        let cap = if same { 2 } else { ma };
        let mut level = 2;
        while extra > 0 && level <= cap {
            for gsz in groups.iter_mut() {
                if extra == 0 {
                    break;
                }
                if *gsz < level {
                    *gsz += 1;
                    extra -= 1;
                }
            }
            level += 1;
        }
        groups.into_iter().map(|k| (1, k)).collect()
    } else {
        let singles = b.min(a);
        let mut groups = vec![1u32; singles as usize];
        let mut extra = a - singles;
        let cap = if same { 2 } else { mb };
        let mut level = 2;
        while extra > 0 && level <= cap {
            for gsz in groups.iter_mut() {
                if extra == 0 {
                    break;
                }
                if *gsz < level {
                    *gsz += 1;
                    extra -= 1;
                }
            }
            level += 1;
        }
        groups.into_iter().map(|k| (k, 1)).collect()
    }
}

/// Each side's die in halves for a combat of `na` against `nb`.
fn multipliers(r: &Ruleset, a_class: &str, na: u32, b_class: &str, nb: u32) -> (i32, i32) {
    for c in &r.combats {
        if c.a_class == a_class && c.a_n == na && c.b_class == b_class && c.b_n == nb {
            return (c.a_halves, c.b_halves);
        }
        if c.a_class == b_class && c.a_n == nb && c.b_class == a_class && c.b_n == na {
            return (c.b_halves, c.a_halves);
        }
    }
    (2, 2)
}

fn engaged(r: &Ruleset, u: &Unit, attacker: bool, first: bool, other_width: i64) -> u32 {
    let tr = troop(r, u);
    let sh = shape(tr, u);
    if !first {
        return u.rf;
    }
    if attacker {
        if tr.is("infantry") && u.formation == "column" {
            // Front rank, two from each flank of the second rank, one from
            // each flank of the third and fourth.
            return (sh.files + 8).min(u.rf);
        }
        return sh.files.min(u.rf);
    }
    // Defenders: the figures along the struck face within the attackers'
    // frontage.
    let n = (other_width + sh.pitch - 1) / sh.pitch.max(1);
    (n as u32).min(sh.files).min(u.rf).max(1)
}

pub(super) fn melee(t: &mut Turn<'_, '_, '_>) {
    let pairs = super::in_contact(&t.st);
    for (aid, did) in pairs {
        let (Some(a), Some(d)) = (t.st.unit(&aid).cloned(), t.st.unit(&did).cloned()) else {
            for id in [&aid, &did] {
                if let Some(u) = t.st.unit_mut(id) {
                    u.melee = None;
                }
            }
            continue;
        };
        melee_move(t, (&aid, &did), &a, &d);
    }
}

/// The melee modifiers of both sides, in half points, and why.
struct Mods {
    ma: i32,
    md: i32,
    why_a: Vec<&'static str>,
    why_d: Vec<&'static str>,
}

/// One move of melee between an attacker and a defender.
pub(super) fn melee_move(t: &mut Turn<'_, '_, '_>, (aid, did): (&str, &str), a: &Unit, d: &Unit) {
    let r = t.r;
    let round = a.melee.as_ref().map_or(0, |m| m.moves);
    let first = round == 0;
    let (ta, td) = (troop(r, a), troop(r, d));
    let (na, nd) = engaged_pair(r, a, d, first);
    let (combats, second) = if first {
        (pairings(r, &ta.class, na, &td.class, nd), None)
    } else {
        let (c, s) = pinning::second_move(r, &ta.class, na, &td.class, nd, &mut || t.roll());
        (c, Some(s))
    };
    let m = melee_mods(t, aid, a, d, first, round);
    let (house, limit) = house_and_limit(r, &t.st, a, d);
    let (fights, la, ld) = melee_fights(t, a, d, &combats, &m, house);
    let la = t.kill(aid, la, d.side);
    let ld = t.kill(did, ld, a.side)
        + if first {
            t.melee_credit
                .get(&format!("ridden:{aid}"))
                .copied()
                .unwrap_or(0)
        } else {
            0
        };
    let credit = t.melee_credit.get(aid).copied().unwrap_or(0);
    let ta_loss = la + if first { credit } else { 0 };
    let outcome = melee_outcome(ta_loss, ld, round, limit);
    let (a_wd, d_wd) = (
        outcome == "attacker withdraws",
        outcome == "defender withdraws",
    );
    t.ev.push(Charge::Melee {
        attacker: aid.to_string(),
        defender: did.to_string(),
        round: round + 1,
        engaged: [na, nd],
        mods: [m.ma, m.md],
        why: [m.why_a, m.why_d].map(|w| w.into_iter().map(str::to_string).collect()),
        second,
        combats: fights,
        losses: [la, ld],
        fire_credit: credit,
        outcome: outcome.to_string(),
    });
    melee_after(t, (aid, did), d, a_wd, d_wd, outcome);
}

/// The figures engaged by the attacker and the defender in a move of
/// melee (the first move: the attacker's front, the defender's figures
/// along the struck face within its frontage; later moves: all).
fn engaged_pair(r: &Ruleset, a: &Unit, d: &Unit, first: bool) -> (u32, u32) {
    let aw = {
        let sh = shape(troop(r, a), a);
        let n = engaged(r, a, true, true, 0);
        sh.pitch * i64::from(n.min(sh.files + 8))
    };
    (
        engaged(r, a, true, first, 0),
        engaged(r, d, false, first, aw),
    )
}

/// Whether the attacker must break into the defender's house (the
/// defender's centre in a building, the attacker's not), and the moves the
/// melee may last (one more in a house).
fn house_and_limit(r: &Ruleset, st: &State, a: &Unit, d: &Unit) -> (bool, u32) {
    let in_house = |p: Pt| {
        st.terrain
            .iter()
            .any(|f| f.kind == "building" && g::in_polygon(&f.polygon(), p))
    };
    let dc = footprint(r, d).centre();
    (
        in_house(dc) && !in_house(footprint(r, a).centre()),
        r.melee.moves + u32::from(in_house(dc)),
    )
}

/// How a move of melee ends, from the figures each side lost in it (the
/// attacker's with its fire credit): a side losing twice the other's
/// withdraws, else a draw once the melee has lasted its moves, else it
/// continues.
fn melee_outcome(a_loss: u32, d_loss: u32, round: u32, limit: u32) -> &'static str {
    if a_loss > 0 && a_loss >= 2 * d_loss {
        "attacker withdraws"
    } else if d_loss > 0 && d_loss >= 2 * a_loss {
        "defender withdraws"
    } else if round + 1 >= limit {
        "draw"
    } else {
        "continues"
    }
}

/// Which side wins a combat: its die times its halves plus twice its
/// modifiers (all in half points), the higher; None a tie.
fn combat_winner(da: u32, ha: i32, ma: i32, dd: u32, hd: i32, md: i32) -> Option<bool> {
    let sa = da as i32 * ha + 2 * ma;
    let sd = dd as i32 * hd + 2 * md;
    match sa.cmp(&sd) {
        std::cmp::Ordering::Greater => Some(true),
        std::cmp::Ordering::Less => Some(false),
        std::cmp::Ordering::Equal => None,
    }
}

/// The exact odds of the next move of a melee already in contact, as the
/// engine's melee step fights it: the attacker `aid`'s pair as it stands
/// on `st`, with no fire or ride-down credit this move (the enemy is taken
/// to stand and not fire). Later moves throw for who moves first (a tie
/// thrown again, at most ten times, then the attacker) and pin figures
/// ([`pinning::second_move`]); every combat throws a die a side (and the
/// break-in throw into a house); the figures lost are capped at each
/// side's rank and file. None: no such melee.
#[must_use]
pub fn melee_odds(r: &Ruleset, st: &State, aid: &str) -> Option<MeleeOdds> {
    let a = st.unit(aid)?.clone();
    let mel = a.melee.as_ref().filter(|m| m.attacker)?;
    let d = st.unit(&mel.with)?.clone();
    let round = mel.moves;
    let first = round == 0;
    let (ta, td) = (troop(r, &a), troop(r, &d));
    let (na, nd) = engaged_pair(r, &a, &d, first);
    let t = Turn {
        r,
        st: st.clone(),
        ev: Vec::new(),
        chance: None,
        lost: BTreeMap::new(),
        melee_credit: BTreeMap::new(),
        not_rested: BTreeSet::new(),
    };
    let m = melee_mods(&t, aid, &a, &d, first, round);
    let (house, limit) = house_and_limit(r, st, &a, &d);
    // Who moves first in a later move: the attacker on a higher die (15 of
    // 36), the defender on a lower (15 of 36), a tie thrown again.
    let ways: Vec<(f64, Vec<(u32, u32)>)> = if first {
        vec![(1.0, pairings(r, &ta.class, na, &td.class, nd))]
    } else {
        let again: f64 = (0..10).map(|k| (1.0_f64 / 6.0).powi(k)).sum();
        let by = |throw: [u32; 2]| {
            let mut it = throw.into_iter();
            let mut roll = || it.next().unwrap_or(1);
            pinning::second_move(r, &ta.class, na, &td.class, nd, &mut roll).0
        };
        vec![
            (5.0 / 12.0 * again + (1.0_f64 / 6.0).powi(10), by([2, 1])),
            (5.0 / 12.0 * again, by([1, 2])),
        ]
    };
    let mut losses: BTreeMap<(u32, u32), f64> = BTreeMap::new();
    for (p, combats) in &ways {
        let mut dist: BTreeMap<(u32, u32), f64> = BTreeMap::new();
        dist.insert((0, 0), *p);
        for (ka, kd) in combats {
            let (ha, hd) = multipliers(r, &ta.class, *ka, &td.class, *kd);
            let one = combat_odds(r, (ha, hd), &m, house);
            let mut next: BTreeMap<(u32, u32), f64> = BTreeMap::new();
            for ((la, ld), q) in &dist {
                *next.entry((la + 1, *ld)).or_default() += q * one[1];
                *next.entry((*la, ld + 1)).or_default() += q * one[0];
                *next.entry((*la, *ld)).or_default() += q * one[2];
            }
            dist = next;
        }
        for ((la, ld), q) in dist {
            *losses.entry((la.min(a.rf), ld.min(d.rf))).or_default() += q;
        }
    }
    let outcomes = losses
        .into_iter()
        .map(|((la, ld), p)| ((la, ld, melee_outcome(la, ld, round, limit)), p))
        .collect();
    Some(MeleeOdds {
        attacker: a.id.clone(),
        defender: d.id.clone(),
        round: round + 1,
        engaged: [na, nd],
        house,
        outcomes,
    })
}

/// One combat's odds: [the attacker wins, the defender wins, a tie].
fn combat_odds(r: &Ruleset, (ha, hd): (i32, i32), m: &Mods, house: bool) -> [f64; 3] {
    let broke = if house {
        r.melee.break_in.len() as f64 / 6.0
    } else {
        1.0
    };
    let mut out = [0.0; 3];
    for (md, p) in [(m.md, broke), (m.md + r.melee.house, 1.0 - broke)] {
        if p == 0.0 {
            continue;
        }
        for da in 1..=6 {
            for dd in 1..=6 {
                let k = match combat_winner(da, ha, m.ma, dd, hd, md) {
                    Some(true) => 0,
                    Some(false) => 1,
                    None => 2,
                };
                out[k] += p / 36.0;
            }
        }
    }
    out
}

/// The next move of the attacker `aid`'s melee on `t` (its credits of
/// this move included), grouped by the figures each side's combats lose:
/// for each way, its chance and one throw of the dice that gives it, in
/// the order the engine's melee step throws them (who moves first in a
/// later move, then each combat's break-in die and a die a side), for
/// PREDICT to play it with the engine's own step. None: no such melee.
pub(super) fn melee_throws(t: &Turn<'_, '_, '_>, aid: &str) -> Option<Vec<(f64, Vec<u32>)>> {
    let r = t.r;
    let a = t.st.unit(aid)?.clone();
    let mel = a.melee.as_ref().filter(|m| m.attacker)?;
    let d = t.st.unit(&mel.with)?.clone();
    let round = mel.moves;
    let first = round == 0;
    let (ta, td) = (troop(r, &a), troop(r, &d));
    let (na, nd) = engaged_pair(r, &a, &d, first);
    let m = melee_mods(t, aid, &a, &d, first, round);
    let (house, _) = house_and_limit(r, &t.st, &a, &d);
    let ways: Vec<Way> = if first {
        vec![(1.0, Vec::new(), pairings(r, &ta.class, na, &td.class, nd))]
    } else {
        let again: f64 = (0..10).map(|k| (1.0_f64 / 6.0).powi(k)).sum();
        let by = |throw: [u32; 2]| {
            let mut it = throw.into_iter();
            let mut roll = || it.next().unwrap_or(1);
            pinning::second_move(r, &ta.class, na, &td.class, nd, &mut roll).0
        };
        vec![
            (
                5.0 / 12.0 * again + (1.0_f64 / 6.0).powi(10),
                vec![2, 1],
                by([2, 1]),
            ),
            (5.0 / 12.0 * again, vec![1, 2], by([1, 2])),
        ]
    };
    let mut out = Vec::new();
    for (p, prefix, combats) in ways {
        let mut dist: BTreeMap<(u32, u32), (f64, Vec<u32>)> = BTreeMap::new();
        dist.insert((0, 0), (p, prefix));
        for (ka, kd) in &combats {
            let halves = multipliers(r, &ta.class, *ka, &td.class, *kd);
            let classes = combat_throws(r, halves, &m, house);
            let mut next: BTreeMap<(u32, u32), (f64, Vec<u32>)> = BTreeMap::new();
            for ((la, ld), (q, faces)) in &dist {
                for (k, (c, rep)) in classes.iter().enumerate() {
                    if *c == 0.0 {
                        continue;
                    }
                    let key = match k {
                        0 => (*la, ld + 1),
                        1 => (la + 1, *ld),
                        _ => (*la, *ld),
                    };
                    let e = next.entry(key).or_insert_with(|| {
                        let mut f = faces.clone();
                        f.extend(rep);
                        (0.0, f)
                    });
                    e.0 += q * c;
                }
            }
            dist = next;
        }
        out.extend(dist.into_values());
    }
    Some(out)
}

/// A way a move of melee may go: its chance, the dice thrown before the
/// combats (who moves first), and the combats.
type Way = (f64, Vec<u32>, Vec<(u32, u32)>);

/// One combat's ways: [the attacker wins, the defender wins, a tie], each
/// its chance and one throw that gives it (the break-in die if any, the
/// attacker's die, the defender's).
fn combat_throws(r: &Ruleset, (ha, hd): (i32, i32), m: &Mods, house: bool) -> [(f64, Vec<u32>); 3] {
    let mut out: [(f64, Vec<u32>); 3] = Default::default();
    let breaks: Vec<Option<u32>> = if house {
        (1..=6).map(Some).collect()
    } else {
        vec![None]
    };
    let each = 1.0 / (36.0 * breaks.len() as f64);
    for b in &breaks {
        let md = match b {
            Some(f) if !r.melee.break_in.contains(f) => m.md + r.melee.house,
            _ => m.md,
        };
        for da in 1..=6 {
            for dd in 1..=6 {
                let k = match combat_winner(da, ha, m.ma, dd, hd, md) {
                    Some(true) => 0,
                    Some(false) => 1,
                    None => 2,
                };
                if out[k].1.is_empty() {
                    out[k].1 = b.iter().copied().chain([da, dd]).collect();
                }
                out[k].0 += each;
            }
        }
    }
    out
}

/// The exact odds of a move of melee ([`melee_odds`]).
#[derive(Debug, Clone, PartialEq)]
pub struct MeleeOdds {
    pub attacker: String,
    pub defender: String,
    /// The move of the melee fought (1 the first).
    pub round: u32,
    /// The figures engaged (the first move's; all, later).
    pub engaged: [u32; 2],
    /// The attacker must break into a house.
    pub house: bool,
    /// (figures the attacker loses, figures the defender loses, how the
    /// move ends as the engine's event names it) and its chance.
    pub outcomes: BTreeMap<(u32, u32, &'static str), f64>,
}

/// Grenadiers, charging, downhill, heavy against light cavalry, a wall,
/// exhausted troops.
fn melee_mods(
    t: &Turn<'_, '_, '_>,
    aid: &str,
    a: &Unit,
    d: &Unit,
    first: bool,
    round: u32,
) -> Mods {
    let r = t.r;
    let (ta, td) = (troop(r, a), troop(r, d));
    let mut m = Mods {
        ma: 0,
        md: 0,
        why_a: Vec::new(),
        why_d: Vec::new(),
    };
    if ta.grenadiers {
        m.ma += r.melee.grenadiers;
        m.why_a.push("grenadiers");
    }
    if td.grenadiers {
        m.md += r.melee.grenadiers;
        m.why_d.push("grenadiers");
    }
    let impetus = t.melee_credit.contains_key(&format!("impetus:{aid}"));
    if first && impetus {
        m.ma += r.melee.charging;
        m.why_a.push("charging");
    }
    let dfp = footprint(r, d);
    if first && impetus && t.st.level(a.front) > t.st.level(dfp.centre()) {
        m.ma += r.melee.downhill;
        m.why_a.push("downhill");
    }
    if ta.heavy && td.is("cavalry") && !td.heavy {
        m.ma += r.melee.heavy_vs_light;
        m.why_a.push("heavy v light");
    }
    if td.heavy && ta.is("cavalry") && !ta.heavy {
        m.md += r.melee.heavy_vs_light;
        m.why_d.push("heavy v light");
    }
    let behind_wall = td.is("infantry")
        && t.st
            .terrain
            .iter()
            .any(|f| f.kind == "wall" && g::crosses_line(a.front, dfp.centre(), &f.polyline()));
    if behind_wall {
        m.md += r.melee.wall;
        m.why_d.push("behind a wall");
    }
    if let Some(v) = exhaustion_bonus(r, a, d, round) {
        m.ma += v;
        m.why_a.push("against exhausted troops");
    }
    m
}

/// The combats of one move: a die each (and the break-in throw into
/// houses); figures lost by the attacker and the defender.
fn melee_fights(
    t: &mut Turn<'_, '_, '_>,
    a: &Unit,
    d: &Unit,
    combats: &[(u32, u32)],
    m: &Mods,
    house: bool,
) -> (Vec<Combat>, u32, u32) {
    let r = t.r;
    let (ta, td) = (troop(r, a), troop(r, d));
    let mut la = 0u32;
    let mut ld = 0u32;
    let mut fights = Vec::new();
    for (ka, kd) in combats {
        let mut dm = m.md;
        let mut broke_in = None;
        if house {
            let b = t.roll();
            let ok = r.melee.break_in.contains(&b);
            broke_in = Some(b);
            if !ok {
                dm += r.melee.house;
            }
        }
        let (ha, hd) = multipliers(r, &ta.class, *ka, &td.class, *kd);
        let da = t.roll();
        let dd = t.roll();
        let sa = da as i32 * ha + 2 * m.ma;
        let sd = dd as i32 * hd + 2 * dm;
        let res = match combat_winner(da, ha, m.ma, dd, hd, dm) {
            Some(true) => {
                ld += 1;
                "attacker"
            }
            Some(false) => {
                la += 1;
                "defender"
            }
            None => "tie",
        };
        fights.push(Combat {
            a: *ka,
            d: *kd,
            a_die: da,
            d_die: dd,
            a_score: f64::from(sa) / 2.0,
            d_score: f64::from(sd) / 2.0,
            winner: res.into(),
            break_in: broke_in,
        });
    }
    (fights, la, ld)
}

/// After a move of melee: a withdrawal, a draw (both exhausted), or
/// another move.
fn melee_after(
    t: &mut Turn<'_, '_, '_>,
    (aid, did): (&str, &str),
    d: &Unit,
    a_wd: bool,
    d_wd: bool,
    outcome: &str,
) {
    let end = |t: &mut Turn<'_, '_, '_>, id: &str, f: Option<Forced>| {
        if let Some(u) = t.st.unit_mut(id) {
            u.melee = None;
            if f.is_some() {
                u.forced = f;
            }
        }
    };
    if a_wd || d_wd {
        end(t, aid, a_wd.then_some(Forced::Retire));
        end(t, did, d_wd.then_some(Forced::Retire));
    } else if outcome == "draw" {
        let hold = d.standing.iter().any(|s| s == "HOLD GROUND");
        end(t, aid, Some(Forced::Exhausted { retire: 2, rest: 2 }));
        end(
            t,
            did,
            Some(Forced::Exhausted {
                retire: if hold { 0 } else { 2 },
                rest: 2,
            }),
        );
        for id in [aid, did] {
            if let Some(u) = t.st.unit_mut(id) {
                u.exhausted_since = Some(0);
            }
            t.not_rested.insert(id.to_string());
        }
    } else {
        for id in [aid, did] {
            if let Some(u) = t.st.unit_mut(id) {
                if let Some(m) = u.melee.as_mut() {
                    m.moves += 1;
                }
            }
        }
    }
}

/// The attacker's addition against exhausted troops
/// (docs/rules/charge.md, "Exhausted troops"), or None. `d.exhausted_since`
/// counts the moves ended since its drawn melee's last fighting move, so
/// the count when this melee began is the count now less the moves of it
/// already fought.
fn exhaustion_bonus(r: &Ruleset, a: &Unit, d: &Unit, round: u32) -> Option<i32> {
    let k = d.exhausted_since?;
    // "attacked by fresh troops": an exhausted attacker earns nothing.
    if a.exhausted_since.is_some() {
        return None;
    }
    let at_contact = k.saturating_sub(round);
    // "immediately following the fighting moves of the exhausted side" is
    // the first move after them; later, it "has had a clear move".
    let fresh = at_contact <= 1;
    Some(match (fresh, round > 0) {
        (true, false) => r.melee.exhausted_fresh,
        (false, false) => r.melee.exhausted_rested,
        (true, true) => r
            .melee
            .exhausted_fresh_continued
            .unwrap_or(r.melee.exhausted_fresh),
        (false, true) => r
            .melee
            .exhausted_rested_continued
            .unwrap_or(r.melee.exhausted_rested),
    })
}
