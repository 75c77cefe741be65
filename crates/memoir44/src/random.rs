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
        return target_card(ctx, s, si, card, &enemies, rng);
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
    detonations(ctx, s, si, &mut head, rng);
    let (ordered, plan0) = order_units(ctx, s, si, &head, rng)?;
    let text = if ordered.is_empty() {
        head.clone()
    } else {
        format!("{head}ORDER {}\n", join(&ordered))
    };
    if ordered.is_empty() {
        return check(ctx, s, si, &text).map(|_| text);
    }
    // Moves on a scratch position, mostly toward the enemy.
    let mut d = Draft {
        sc: s.clone(),
        text,
        moved: Vec::new(),
    };
    for h in &ordered {
        move_unit(ctx, s, si, &plan0, *h, &mut d, rng);
    }
    land_reinforcements(ctx, s, si, espec.effect.as_deref(), &mut d, rng);
    unload_trains(ctx, s, si, &mut d, rng);
    // Battles: the nearest enemy each ordered unit may battle.
    for (h, _) in d.moved.clone() {
        battle_line(ctx, s, si, h, &mut d, rng);
    }
    // "Achtung! Zombie!": now and then a Living unit on its own edge that
    // neither moved nor battled leaves the board.
    if s.zombies.is_some() {
        for (h, _) in &d.moved {
            if rng.roll(3) == 1 {
                let candidate = format!("{}EXIT {h}\n", d.text);
                if check(ctx, s, si, &candidate).is_some() {
                    d.text = candidate;
                }
            }
        }
    }
    check(ctx, s, si, &d.text).map(|_| d.text)
}

/// The orders being drawn up for a card: the scratch position the moves
/// are made on, the text so far, and where each ordered unit ended (with
/// the hexes it moved).
struct Draft {
    sc: State,
    text: String,
    moved: Vec<(Hex, u32)>,
}

impl Draft {
    /// Add `line` (ending in a newline) if the orders stay legal.
    fn try_add(&mut self, ctx: &Ctx<'_>, s: &State, si: usize, line: &str) -> bool {
        let candidate = format!("{}{line}", self.text);
        if check(ctx, s, si, &candidate).is_some() {
            self.text = candidate;
            return true;
        }
        false
    }
}

/// Air Power or Barrage at an enemy unit; Bridge Demolition, Option 3: now
/// and then at a bridge not rigged with no unit on it (no die is drawn on
/// a board without one).
fn target_card(
    ctx: &Ctx<'_>,
    s: &State,
    si: usize,
    card: &str,
    enemies: &[Hex],
    rng: &mut dyn Dice,
) -> Option<String> {
    let bridges: Vec<Hex> = s
        .terrain
        .keys()
        .copied()
        .filter(|h| super::bridges::card_target(s, *h))
        .collect();
    let t = if !bridges.is_empty() && rng.roll(3) == 1 {
        pick(rng, &bridges)?
    } else {
        pick(rng, enemies)?
    };
    let text = format!(
        "PLAY {card}\n{}TARGET {t}\n",
        super::commissar::random_line(ctx, s, si, card, rng)
    );
    check(ctx, s, si, &text).map(|_| text)
}

/// Bridge Demolition, Option 2: a bridge the side rigged is sometimes
/// detonated ("the same as ordering a Unit"; no die without a charge).
fn detonations(ctx: &Ctx<'_>, s: &State, si: usize, head: &mut String, rng: &mut dyn Dice) {
    for c in s.charges.iter().filter(|c| c.side == si) {
        if rng.roll(2) == 1 {
            let candidate = format!("{head}DETONATE {}\n", c.at);
            if check(ctx, s, si, &candidate).is_some() {
                *head = candidate;
            }
        }
    }
}

/// Order units one by one while the card allows it: the units ordered
/// and the plan of the orders.
fn order_units(
    ctx: &Ctx<'_>,
    s: &State,
    si: usize,
    head: &str,
    rng: &mut dyn Dice,
) -> Option<(Vec<Hex>, Plan)> {
    let mut own: Vec<Hex> = s
        .units
        .iter()
        .filter(|u| u.side == si)
        .map(|u| u.at)
        .collect();
    adjutant_dice::shuffle(&mut own, rng);
    let mut ordered: Vec<Hex> = Vec::new();
    let mut plan0 = check(ctx, s, si, head)?;
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
    Some((ordered, plan0))
}

/// What the ordered unit at `h` does before battles: recover, exterminate,
/// its engineers' action, or a move (mostly toward the enemy).
fn move_unit(
    ctx: &Ctx<'_>,
    s: &State,
    si: usize,
    plan0: &Plan,
    h: Hex,
    d: &mut Draft,
    rng: &mut dyn Dice,
) {
    let Some(u) = d.sc.unit_at(h).cloned() else {
        return;
    };
    let Some(m) = plan0.modes.get(&u.id) else {
        return;
    };
    // Appendix 2, Oasis: a unit there that has lost figures sometimes
    // rolls to recover them first (no die is drawn where it cannot).
    if super::landmarks::recover_refusal(ctx, &d.sc, &u).is_none() && rng.roll(2) == 1 {
        d.try_add(ctx, s, si, &format!("RECOVER {}\n", u.at));
    }
    // "EX-TER-MIN-ATE!": a Dalek unit on a town mostly exterminates it.
    if super::variants::exterminate::check(ctx, &d.sc, &u).is_ok()
        && rng.roll(3) > 1
        && d.try_add(ctx, s, si, &format!("EXTERMINATE {}\n", u.at))
    {
        d.moved.push((u.at, 0));
        return;
    }
    if let Some(line) = engineers_line(ctx, &d.sc, si, &u, rng) {
        // Their whole action: they neither move nor battle.
        if d.try_add(ctx, s, si, &format!("{line}\n")) {
            return;
        }
    }
    if m.max_move == 0 || m.nothing || rng.roll(3) == 1 {
        d.moved.push((u.at, 0));
        return;
    }
    let rule = MoveRule {
        max: m.max_move,
        ignore_terrain: m.ignore_terrain,
    };
    let path = random_path(ctx, &d.sc, si, &u, rule, rng);
    if path.len() > 1 {
        let dest = *path.last().unwrap_or(&u.at);
        if d.try_add(ctx, s, si, &format!("MOVE {}\n", join(&path))) {
            if let Some(x) = d.sc.unit_mut(u.id) {
                x.at = dest;
            }
            super::trains::moved(ctx, &mut d.sc, &u, &path);
            d.moved.push((dest, path.len() as u32 - 1));
            return;
        }
    }
    d.moved.push((u.at, 0));
}

/// A random legal path of up to three hexes for `u`, mostly toward the
/// nearest enemy.
fn random_path(
    ctx: &Ctx<'_>,
    sc: &State,
    si: usize,
    u: &super::state::Unit,
    rule: MoveRule,
    rng: &mut dyn Dice,
) -> Vec<Hex> {
    let steps = rng.roll(rule.max.min(3));
    // Appendix 2, Trains: backwards the path starts at the wagon.
    let start = match super::trains::wagon(u) {
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
                check_path(ctx, sc, u, &p, rule).is_ok()
            })
            .collect();
        if cands.is_empty() {
            break;
        }
        if rng.roll(4) > 1 {
            cands.sort_by_key(|c| nearest_enemy(sc, si, *c));
            cands.truncate(1);
        }
        if let Some(c) = pick(rng, &cands) {
            path.push(*c);
        }
    }
    path
}

/// Appendix 2, Airfield: Direct From HQ lands reinforcements. (No die is
/// drawn without an airfield: the games of boards without one stay as
/// they were.)
fn land_reinforcements(
    ctx: &Ctx<'_>,
    s: &State,
    si: usize,
    effect: Option<&str>,
    d: &mut Draft,
    rng: &mut dyn Dice,
) {
    let airfield = s
        .terrain
        .values()
        .any(|fs| fs.iter().any(|f| f == "airfield"));
    if effect == Some("direct-from-hq") && airfield && rng.roll(2) == 1 {
        for (h, fs) in &s.terrain {
            if !fs.iter().any(|f| f == "airfield") {
                continue;
            }
            if d.try_add(ctx, s, si, &format!("LAND {h}\n")) {
                let _ = super::landmarks::land(ctx, &mut d.sc, si, *h, "direct-from-hq");
                break;
            }
        }
    }
}

/// Appendix 2, Trains: a supply train at a station lets a unit off.
fn unload_trains(ctx: &Ctx<'_>, s: &State, si: usize, d: &mut Draft, rng: &mut dyn Dice) {
    for (h, _) in d.moved.clone() {
        let Some(u) = d.sc.unit_at(h).cloned() else {
            continue;
        };
        let Some(w) = super::trains::wagon(&u) else {
            continue;
        };
        if u.train.as_ref().is_none_or(|t| t.cargo.is_empty()) || rng.roll(2) == 1 {
            continue;
        }
        for n in w.neighbours() {
            if d.try_add(ctx, s, si, &format!("UNLOAD {} {n}\n", u.at)) {
                let _ = super::trains::unload(ctx, &mut d.sc, si, u.at, n, None, true);
                break;
            }
        }
    }
}

/// The battle of the ordered unit now at `h`: sabotage, a bridge, the
/// nearest enemy it may battle (taking ground, overrunning), or a
/// minefield.
fn battle_line(ctx: &Ctx<'_>, s: &State, si: usize, h: Hex, d: &mut Draft, rng: &mut dyn Dice) {
    let Some(u) = d.sc.unit_at(h).cloned() else {
        return;
    };
    // Battle Star Markers, Sabotage: a unit on its side's objective
    // sometimes rolls for it instead of battling.
    if super::stars::sabotage_at(&d.sc, si, u.at)
        && rng.roll(2) == 1
        && d.try_add(ctx, s, si, &format!("SABOTAGE {}\n", u.at))
    {
        return;
    }
    // Bridge Demolition, Option 3: Heavy Artillery or a Big-Gun now and
    // then fires at a bridge not rigged for detonation.
    if ctx.r.bridge_demolition.bombard_units.contains(&u.kind) && rng.roll(3) == 1 {
        let sc = &d.sc;
        let mut bridges: Vec<Hex> = sc
            .terrain
            .keys()
            .copied()
            .filter(|h| {
                super::bridges::is_bridge(sc, *h)
                    && super::bridges::charge(sc, *h).is_none()
                    && sc.unit_at(*h).is_none()
            })
            .collect();
        bridges.sort_by_key(|h| (h.distance(u.at), *h));
        if let Some(candidate) = bridges
            .iter()
            .map(|b| format!("{}BATTLE {} {b}\n", d.text, u.at))
            .find(|c| check(ctx, s, si, c).is_some())
        {
            d.text = candidate;
            return;
        }
    }
    let mut targets: Vec<Hex> =
        d.sc.units
            .iter()
            .filter(|e| e.side != si && target_check(ctx, &d.sc, &u, e.at).is_ok())
            .map(|e| e.at)
            .collect();
    targets.sort_by_key(|t| (t.distance(u.at), *t));
    let Some(t) = targets.first().copied() else {
        // Artillery with no enemy to battle fires at a minefield in
        // range (Appendix 1, Minefield Clearance), when the plan takes it.
        if ctx.spec(&u.kind).class == "artillery" {
            let mut fields: Vec<Hex> =
                d.sc.minefields
                    .iter()
                    .map(|m| m.at)
                    .filter(|h| d.sc.unit_at(*h).is_none())
                    .collect();
            fields.sort_by_key(|h| (h.distance(u.at), *h));
            for f in fields {
                if d.try_add(ctx, s, si, &format!("BATTLE {} {f}\n", u.at)) {
                    break;
                }
            }
        }
        return;
    };
    let spec = ctx.spec(&u.kind);
    let mut line = format!("BATTLE {} {t}", u.at);
    if t.distance(u.at) == 1 && (spec.take_ground || spec.overrun) && rng.roll(2) == 1 {
        line.push_str(" TAKE-GROUND");
    }
    // Armour Overrun at another enemy near the target; under the North
    // African Desert Rules, sometimes by one additional hex.
    if t.distance(u.at) == 1 && spec.overrun && rng.roll(2) == 1 {
        let next: Vec<Hex> =
            d.sc.units
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
    d.try_add(ctx, s, si, &format!("{line}\n"));
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
