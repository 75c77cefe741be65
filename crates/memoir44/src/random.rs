//! Random legal orders, for property tests and benchmarks. Every text this
//! returns has passed the engine's own check.

use super::battle::{check_path, target_check, Ctx, MoveRule};
use super::board::{Hex, Section};
use super::orders;
use super::ruleset::Ruleset;
use super::state::State;
use super::turn::{counter_card, plan, Plan};
use adjutant_dice::Dice;
use std::fmt::Write;

fn pick<'a, T>(rng: &mut dyn Dice, v: &'a [T]) -> Option<&'a T> {
    if v.is_empty() {
        return None;
    }
    v.get((rng.roll(v.len() as u32) - 1) as usize)
}

fn check(ctx: &Ctx<'_>, s: &State, side: usize, text: &str) -> Option<Plan> {
    let lines = orders::parse(&ctx.board, ctx.r, text).ok()?;
    plan(ctx, s, side, &lines).ok()
}

fn nearest_enemy(s: &State, side: usize, h: Hex) -> u32 {
    s.units
        .iter()
        .filter(|u| u.side != side)
        .map(|u| u.at.distance(h))
        .min()
        .unwrap_or(0)
}

/// A legal order text for `side` (the side to move).
pub fn random_orders(r: &Ruleset, s: &State, side: &str, rng: &mut dyn Dice) -> String {
    let ctx = Ctx::new(r);
    let Some(si) = s.side_index(side) else {
        return String::new();
    };
    if super::variants::zombies::is_dead(s, si) {
        return dead_orders(&ctx, s, si, rng);
    }
    let hand = s.hands.get(si).cloned().unwrap_or_default();
    let mut order: Vec<String> = hand.clone();
    // Political Commissar: the card under the marker is played from there.
    let marker = super::commissar::card(s, si);
    order.extend(marker.clone());
    adjutant_dice::shuffle(&mut order, rng);
    for card in &order {
        if let Some(t) = try_card(&ctx, s, si, card, rng) {
            return t;
        }
    }
    // Method 2: exchange a card; one unit may battle without moving.
    let card = marker.or_else(|| hand.first().cloned()).unwrap_or_default();
    let base = format!(
        "DISCARD {card}\n{}",
        super::commissar::random_line(&ctx, s, si, &card, rng)
    );
    for u in s.units.iter().filter(|u| u.side == si) {
        for e in s.units.iter().filter(|e| e.side != si) {
            if target_check(&ctx, s, u, e.at).is_ok() {
                let t = format!("{base}BATTLE {} {}\n", u.at, e.at);
                if check(&ctx, s, si, &t).is_some() {
                    return t;
                }
            }
        }
    }
    base
}

fn try_card(ctx: &Ctx<'_>, s: &State, si: usize, card: &str, rng: &mut dyn Dice) -> Option<String> {
    let spec = ctx.r.card(card)?;
    let effect = match spec.effect.as_deref() {
        Some("ambush") => return None,
        Some("counter-attack") => counter_card(ctx, s, si)?.0,
        _ => card.to_string(),
    };
    let espec = ctx.r.card(&effect)?;
    let enemies: Vec<Hex> = s
        .units
        .iter()
        .filter(|u| u.side != si)
        .map(|u| u.at)
        .collect();
    // Blitzkrieg Air Attack, or Calling In Air Strikes: now and then a
    // Recon card played as Air Power at the first enemy it may target (no
    // die is drawn for a side that may not).
    if espec.recon
        && (s.blitzkrieg == Some(si) || super::stars::air_strikes(s, si))
        && rng.roll(2) == 1
    {
        let line = super::commissar::random_line(ctx, s, si, card, rng);
        if let Some(text) = enemies
            .iter()
            .map(|t| format!("PLAY {card}\n{line}TARGET {t}\n"))
            .find(|text| check(ctx, s, si, text).is_some())
        {
            return Some(text);
        }
    }
    if matches!(espec.effect.as_deref(), Some("air-power" | "barrage")) {
        // Bridge Demolition, Option 3: now and then a bridge not rigged
        // with no unit on it (no die is drawn on a board without one).
        let bridges: Vec<Hex> = s
            .terrain
            .keys()
            .copied()
            .filter(|h| super::bridges::card_target(s, *h))
            .collect();
        let t = if !bridges.is_empty() && rng.roll(3) == 1 {
            pick(rng, &bridges)?
        } else {
            pick(rng, &enemies)?
        };
        let text = format!(
            "PLAY {card}\n{}TARGET {t}\n",
            super::commissar::random_line(ctx, s, si, card, rng)
        );
        return check(ctx, s, si, &text).map(|_| text);
    }
    let mut head = format!("PLAY {card}");
    if espec.effect.as_deref() == Some("infantry-assault")
        && spec.effect.as_deref() != Some("counter-attack")
    {
        let sec = *pick(rng, &Section::ALL)?;
        let _ = write!(head, " {}", sec.id());
    }
    head.push('\n');
    head.push_str(&super::commissar::random_line(ctx, s, si, card, rng));
    // Bridge Demolition, Option 2: a bridge the side rigged is sometimes
    // detonated ("the same as ordering a Unit"; no die without a charge).
    for c in s.charges.iter().filter(|c| c.side == si) {
        if rng.roll(2) == 1 {
            let candidate = format!("{head}DETONATE {}\n", c.at);
            if check(ctx, s, si, &candidate).is_some() {
                head = candidate;
            }
        }
    }
    // Order units one by one while the card allows it.
    let mut own: Vec<Hex> = s
        .units
        .iter()
        .filter(|u| u.side == si)
        .map(|u| u.at)
        .collect();
    adjutant_dice::shuffle(&mut own, rng);
    let mut ordered: Vec<Hex> = Vec::new();
    let mut plan0 = check(ctx, s, si, &head)?;
    for h in own {
        if ordered.len() >= 6 {
            break;
        }
        let mut try_list = ordered.clone();
        try_list.push(h);
        let text = format!("{head}ORDER {}\n", join(&try_list));
        if let Some(p) = check(ctx, s, si, &text) {
            ordered = try_list;
            plan0 = p;
        }
    }
    let mut text = if ordered.is_empty() {
        head.clone()
    } else {
        format!("{head}ORDER {}\n", join(&ordered))
    };
    if ordered.is_empty() {
        return check(ctx, s, si, &text).map(|_| text);
    }
    // Moves on a scratch position, mostly toward the enemy.
    let mut sc = s.clone();
    let mut moved: Vec<(Hex, u32)> = Vec::new();
    for h in &ordered {
        let Some(u) = sc.unit_at(*h).cloned() else {
            continue;
        };
        let Some(m) = plan0.modes.get(&u.id) else {
            continue;
        };
        // Appendix 2, Oasis: a unit there that has lost figures sometimes
        // rolls to recover them first (no die is drawn where it cannot).
        if super::landmarks::recover_refusal(ctx, &sc, &u).is_none() && rng.roll(2) == 1 {
            let candidate = format!("{text}RECOVER {}\n", u.at);
            if check(ctx, s, si, &candidate).is_some() {
                text = candidate;
            }
        }
        // "EX-TER-MIN-ATE!": a Dalek unit on a town mostly exterminates it.
        if super::variants::exterminate::check(ctx, &sc, &u).is_ok() && rng.roll(3) > 1 {
            let candidate = format!("{text}EXTERMINATE {}\n", u.at);
            if check(ctx, s, si, &candidate).is_some() {
                text = candidate;
                moved.push((u.at, 0));
                continue;
            }
        }
        if let Some(line) = engineers_line(ctx, &sc, si, &u, rng) {
            let candidate = format!("{text}{line}\n");
            if check(ctx, s, si, &candidate).is_some() {
                // Their whole action: they neither move nor battle.
                text = candidate;
                continue;
            }
        }
        if m.max_move == 0 || m.nothing || rng.roll(3) == 1 {
            moved.push((u.at, 0));
            continue;
        }
        let steps = rng.roll(m.max_move.min(3));
        // Appendix 2, Trains: backwards the path starts at the wagon.
        let start = match super::trains::wagon(&u) {
            Some(w) if rng.roll(2) == 1 => w,
            _ => u.at,
        };
        let mut path = vec![start];
        for _ in 0..steps {
            let last = *path.last().unwrap_or(&u.at);
            let mut cands: Vec<Hex> = last
                .neighbours()
                .into_iter()
                .filter(|n| {
                    let mut p = path.clone();
                    p.push(*n);
                    check_path(
                        ctx,
                        &sc,
                        &u,
                        &p,
                        MoveRule {
                            max: m.max_move,
                            ignore_terrain: m.ignore_terrain,
                        },
                    )
                    .is_ok()
                })
                .collect();
            if cands.is_empty() {
                break;
            }
            if rng.roll(4) > 1 {
                cands.sort_by_key(|c| nearest_enemy(&sc, si, *c));
                cands.truncate(1);
            }
            if let Some(c) = pick(rng, &cands) {
                path.push(*c);
            }
        }
        if path.len() > 1 {
            let dest = *path.last().unwrap_or(&u.at);
            let candidate = format!("{text}MOVE {}\n", join(&path));
            if check(ctx, s, si, &candidate).is_some() {
                text = candidate;
                if let Some(x) = sc.unit_mut(u.id) {
                    x.at = dest;
                }
                super::trains::moved(ctx, &mut sc, &u, &path);
                moved.push((dest, path.len() as u32 - 1));
                continue;
            }
        }
        moved.push((u.at, 0));
    }
    // Appendix 2, Airfield: Direct From HQ lands reinforcements.
    // (No die is drawn without an airfield: the games of boards without one
    // stay as they were.)
    let airfield = s
        .terrain
        .values()
        .any(|fs| fs.iter().any(|f| f == "airfield"));
    if espec.effect.as_deref() == Some("direct-from-hq") && airfield && rng.roll(2) == 1 {
        for (h, fs) in &s.terrain {
            if !fs.iter().any(|f| f == "airfield") {
                continue;
            }
            let candidate = format!("{text}LAND {h}\n");
            if check(ctx, s, si, &candidate).is_some() {
                text = candidate;
                let _ = super::landmarks::land(ctx, &mut sc, si, *h, "direct-from-hq");
                break;
            }
        }
    }
    // Appendix 2, Trains: a supply train at a station lets a unit off.
    for (h, _) in &moved {
        let Some(u) = sc.unit_at(*h).cloned() else {
            continue;
        };
        let Some(w) = super::trains::wagon(&u) else {
            continue;
        };
        if u.train.as_ref().is_none_or(|t| t.cargo.is_empty()) || rng.roll(2) == 1 {
            continue;
        }
        for n in w.neighbours() {
            let candidate = format!("{text}UNLOAD {} {n}\n", u.at);
            if check(ctx, s, si, &candidate).is_some() {
                text = candidate;
                let _ = super::trains::unload(ctx, &mut sc, si, u.at, n, None, true);
                break;
            }
        }
    }
    // Battles: the nearest enemy each ordered unit may battle.
    for (h, _) in &moved {
        let Some(u) = sc.unit_at(*h).cloned() else {
            continue;
        };
        // Battle Star Markers, Sabotage: a unit on its side's objective
        // sometimes rolls for it instead of battling.
        if super::stars::sabotage_at(&sc, si, u.at) && rng.roll(2) == 1 {
            let candidate = format!("{text}SABOTAGE {}\n", u.at);
            if check(ctx, s, si, &candidate).is_some() {
                text = candidate;
                continue;
            }
        }
        // Bridge Demolition, Option 3: Heavy Artillery or a Big-Gun now and
        // then fires at a bridge not rigged for detonation.
        if ctx.r.bridge_demolition.bombard_units.contains(&u.kind) && rng.roll(3) == 1 {
            let mut bridges: Vec<Hex> = sc
                .terrain
                .keys()
                .copied()
                .filter(|h| {
                    super::bridges::is_bridge(&sc, *h)
                        && super::bridges::charge(&sc, *h).is_none()
                        && sc.unit_at(*h).is_none()
                })
                .collect();
            bridges.sort_by_key(|h| (h.distance(u.at), *h));
            if let Some(candidate) = bridges
                .iter()
                .map(|b| format!("{text}BATTLE {} {b}\n", u.at))
                .find(|c| check(ctx, s, si, c).is_some())
            {
                text = candidate;
                continue;
            }
        }
        let mut targets: Vec<Hex> = sc
            .units
            .iter()
            .filter(|e| e.side != si && target_check(ctx, &sc, &u, e.at).is_ok())
            .map(|e| e.at)
            .collect();
        targets.sort_by_key(|t| (t.distance(u.at), *t));
        let Some(t) = targets.first().copied() else {
            // Artillery with no enemy to battle fires at a minefield in
            // range (Appendix 1, Minefield Clearance), when the plan takes it.
            if ctx.spec(&u.kind).class == "artillery" {
                let mut fields: Vec<Hex> = sc
                    .minefields
                    .iter()
                    .map(|m| m.at)
                    .filter(|h| sc.unit_at(*h).is_none())
                    .collect();
                fields.sort_by_key(|h| (h.distance(u.at), *h));
                for f in fields {
                    let candidate = format!("{text}BATTLE {} {f}\n", u.at);
                    if check(ctx, s, si, &candidate).is_some() {
                        text = candidate;
                        break;
                    }
                }
            }
            continue;
        };
        let spec = ctx.spec(&u.kind);
        let mut line = format!("BATTLE {} {t}", u.at);
        if t.distance(u.at) == 1 && (spec.take_ground || spec.overrun) && rng.roll(2) == 1 {
            line.push_str(" TAKE-GROUND");
        }
        // Armour Overrun at another enemy near the target; under the North
        // African Desert Rules, sometimes by one additional hex.
        if t.distance(u.at) == 1 && spec.overrun && rng.roll(2) == 1 {
            let next: Vec<Hex> = sc
                .units
                .iter()
                .filter(|e| e.side != si && e.at != t && e.at.distance(t) <= 2)
                .map(|e| e.at)
                .collect();
            if let Some(o) = pick(rng, &next) {
                line.push_str(&format!(" OVERRUN {o}"));
                if super::tiles::desert_rules(s) && rng.roll(2) == 1 {
                    let via = t.neighbours();
                    if let Some(v) = pick(rng, &via) {
                        line.push_str(&format!(" VIA {v}"));
                    }
                }
            }
        }
        let candidate = format!("{text}{line}\n");
        if check(ctx, s, si, &candidate).is_some() {
            text = candidate;
        }
    }
    // "Achtung! Zombie!": now and then a Living unit on its own edge that
    // neither moved nor battled leaves the board.
    if s.zombies.is_some() {
        for (h, _) in &moved {
            if rng.roll(3) == 1 {
                let candidate = format!("{text}EXIT {h}\n");
                if check(ctx, s, si, &candidate).is_some() {
                    text = candidate;
                }
            }
        }
    }
    check(ctx, s, si, &text).map(|_| text)
}

/// Bridge Demolition and Pontoon Bridges: Combat Engineers next to a bridge
/// sometimes place charges on it; next to a river hex without one, in a
/// scenario allowing Pontoon Bridges, sometimes build one. No die is drawn
/// for units that could do neither.
fn engineers_line(
    ctx: &Ctx<'_>,
    sc: &State,
    si: usize,
    u: &super::state::Unit,
    rng: &mut dyn Dice,
) -> Option<String> {
    if !ctx.spec(&u.kind).engineer {
        return None;
    }
    let bridges: Vec<Hex> = u
        .at
        .neighbours()
        .into_iter()
        .filter(|n| super::bridges::is_bridge(sc, *n) && super::bridges::charge(sc, *n).is_none())
        .collect();
    let rivers: Vec<Hex> = if sc.pontoon_sides.contains(&si) {
        u.at.neighbours()
            .into_iter()
            .filter(|n| {
                !super::bridges::is_bridge(sc, *n)
                    && sc
                        .features(*n)
                        .iter()
                        .any(|f| ctx.r.bridge_demolition.pontoon_rivers.contains(f))
            })
            .collect()
    } else {
        Vec::new()
    };
    if bridges.is_empty() && rivers.is_empty() {
        return None;
    }
    if rng.roll(2) == 1 {
        return None;
    }
    match (pick(rng, &bridges), pick(rng, &rivers)) {
        (Some(b), Some(r)) => Some(if rng.roll(2) == 1 {
            format!("CHARGE {} {b}", u.at)
        } else {
            format!("PONTOON {} {r}", u.at)
        }),
        (Some(b), None) => Some(format!("CHARGE {} {b}", u.at)),
        (None, Some(r)) => Some(format!("PONTOON {} {r}", u.at)),
        (None, None) => None,
    }
}

/// The Dead Player's orders ("Achtung! Zombie!"): the moves the marker rule
/// requires, then random one-hex moves, mostly towards the Living, and
/// battles at adjacent Living units (the judge adds those not written).
fn dead_orders(ctx: &Ctx<'_>, s: &State, si: usize, rng: &mut dyn Dice) -> String {
    let mut text = super::variants::zombies::pass_orders(ctx, s);
    if check(ctx, s, si, &text).is_none() {
        return text;
    }
    let mut sc = s.clone();
    let mut own: Vec<u32> = s
        .units
        .iter()
        .filter(|u| u.side == si)
        .map(|u| u.id)
        .collect();
    adjutant_dice::shuffle(&mut own, rng);
    for id in &own {
        let Some(u) = sc.unit(*id).cloned() else {
            continue;
        };
        if rng.roll(3) == 1 {
            continue;
        }
        let mut cands: Vec<Hex> =
            u.at.neighbours()
                .into_iter()
                .filter(|n| ctx.board.contains(*n) && sc.unit_at(*n).is_none())
                .collect();
        if rng.roll(4) > 1 {
            cands.sort_by_key(|c| nearest_enemy(&sc, si, *c));
            cands.truncate(1);
        }
        let Some(c) = pick(rng, &cands).copied() else {
            continue;
        };
        let candidate = format!("{text}MOVE {} {c}\n", u.at);
        if check(ctx, s, si, &candidate).is_some() {
            text = candidate;
            if let Some(x) = sc.unit_mut(*id) {
                x.at = c;
            }
        }
    }
    for id in &own {
        let Some(u) = sc.unit(*id).cloned() else {
            continue;
        };
        let targets: Vec<Hex> = sc
            .units
            .iter()
            .filter(|e| e.side != si && e.at.adjacent(u.at))
            .map(|e| e.at)
            .collect();
        if let Some(t) = pick(rng, &targets) {
            let candidate = format!("{text}BATTLE {} {t}\n", u.at);
            if check(ctx, s, si, &candidate).is_some() {
                text = candidate;
            }
        }
    }
    text
}

fn join(h: &[Hex]) -> String {
    h.iter().map(Hex::to_string).collect::<Vec<_>>().join(" ")
}
