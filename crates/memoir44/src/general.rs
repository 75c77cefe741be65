//! The judge's general's own idea of sensible Memoir '44 orders
//! (docs/general.md, `Family::general_orders`): a card that orders the
//! units with the most to do, each moved where it may battle a weak enemy
//! with good odds or closer to an objective (a Handling Machine to a town
//! the Martians must seize), onto cover where it has the choice, and each
//! battling the target it is likeliest to destroy. Air Power and Barrage
//! go at the weakest enemy in reach. The general plays every candidate out
//! and keeps the best, so these need only be worth a look, and legal:
//! every line is added only if the engine's own check accepts the text.
//!
//! It reads the position it is given only (the side's knowledge, fogged
//! under Kriegspiel), and draws from `rng` only: no clock, no hash maps.

use super::battle::{battle_dice, check_path, target_check, total, Ctx, MoveRule};
use super::board::{Hex, Section};
use super::orders;
use super::ruleset::Ruleset;
use super::state::{State, Unit};
use super::turn::{counter_card, plan, Plan};
use adjutant_dice::Dice;

mod worlds;

/// Orders for `side` worth the general's look, `variant` choosing the card:
/// the cards in hand ranked by what their ordered units could do, the
/// `variant mod n`th of them, its moves varied at random from the second
/// round of variants on. `None` when the phase is not a card turn of this
/// side's, or after two rounds of the hand.
pub fn general_orders(
    r: &Ruleset,
    s: &State,
    side: &str,
    rng: &mut dyn Dice,
    variant: u32,
) -> Option<String> {
    let si = s.side_index(side)?;
    if s.pre_battle.is_some()
        || !s.airdrops.is_empty()
        || s.over
        || super::variants::zombies::is_dead(s, si)
    {
        return None;
    }
    let ctx = Ctx::new(r);
    let goals = Goals::of(&ctx, s, si);
    let mut options: Vec<(f64, String)> = Vec::new();
    let mut cards: Vec<String> = s.hands.get(si).cloned().unwrap_or_default();
    cards.extend(super::commissar::card(s, si));
    cards.sort();
    cards.dedup();
    for card in &cards {
        for head in heads(&ctx, s, si, card, &goals) {
            let worth = head_worth(&ctx, s, si, &head, &goals);
            options.push((worth, head));
        }
    }
    if options.is_empty() {
        return None;
    }
    // Best first; a tie keeps the cards' sorted order.
    options.sort_by(|a, b| b.0.total_cmp(&a.0));
    let n = options.len();
    let v = variant as usize;
    if v >= 2 * n.min(6) {
        return None;
    }
    let head = &options[v % n.min(6)].1;
    let jitter = v >= n.min(6);
    build(&ctx, s, si, head, &goals, rng, jitter)
}

/// Where the side's units want to be: the enemy units, and the hexes that
/// score for it (objectives it does not hold, the enemy's it holds; for
/// the Martians' Handling Machines, the towns still to seize).
struct Goals {
    enemies: Vec<Hex>,
    objectives: Vec<Hex>,
    /// The enemy's objectives it holds (among `objectives`).
    deny: Vec<Hex>,
    held: Vec<Hex>,
    towns: Vec<Hex>,
    handling: String,
    /// The Handling Machines' rounds of the towns (general/worlds.rs).
    rounds: Vec<worlds::Round>,
}

impl Goals {
    fn of(ctx: &Ctx<'_>, s: &State, si: usize) -> Goals {
        let enemies = s
            .units
            .iter()
            .filter(|u| u.side != si)
            .map(|u| u.at)
            .collect();
        let mine = s.objectives.iter().filter(|o| o.side == si);
        // Its own objectives not held, and the enemy's it holds: a unit
        // standing on one retakes it (victory.rs), and with it the medal
        // and the enemy's right to win (Miteiriya Ridge's Axis, the ridge
        // its last turn could take back: the enemy's reply in the
        // general's look-ahead is these orders). One of its own it holds
        // with none of its units on it counts too: the enemy need only
        // walk onto it (Miteiriya Ridge's Axis retook the empty ridge in
        // its last Counter-Attack turn).
        let objectives = mine
            .clone()
            .filter(|o| !o.held || !s.units.iter().any(|u| u.side == si && u.at == o.at))
            .chain(s.objectives.iter().filter(|o| o.side != si && o.held))
            .map(|o| o.at)
            .collect();
        let deny = s
            .objectives
            .iter()
            .filter(|o| o.side != si && o.held)
            .map(|o| o.at)
            .collect();
        let held = mine.filter(|o| o.held).map(|o| o.at).collect();
        let towns = s
            .worlds
            .as_ref()
            .filter(|w| w.martian == si)
            .map(|w| w.objectives.clone())
            .unwrap_or_default();
        Goals {
            enemies,
            objectives,
            deny,
            held,
            towns,
            handling: ctx.r.worlds.handling.clone(),
            rounds: if towns_of_mine(s, si) {
                worlds::rounds(ctx.r, s)
            } else {
                Vec::new()
            },
        }
    }

    /// The town a Martian Handling Machine is to go to next: its round's
    /// first (the machines split the towns), else the nearest.
    fn town_of(&self, u: &Unit) -> Option<Hex> {
        if u.kind != self.handling || self.towns.is_empty() {
            return None;
        }
        worlds::target(&self.rounds, u.id).or_else(|| {
            self.towns
                .iter()
                .copied()
                .min_by_key(|t| (t.distance(u.at), *t))
        })
    }

    /// How far `u` standing at `h` is from what it wants, and how much
    /// standing there is worth in itself.
    fn pull(&self, u: &Unit, h: Hex) -> f64 {
        let near = |v: &[Hex]| v.iter().map(|g| g.distance(h)).min();
        if let Some(t) = self.town_of(u) {
            // The shortest way to its town, and there it stays the whole
            // turn that seizes it: no battle is worth a hex of that.
            let d = t.distance(h);
            return if d == 0 { 40.0 } else { -3.0 * f64::from(d) };
        }
        let mut w = 0.0;
        if self.towns.contains(&h) {
            // A Fighting Machine on a town stands where a Handling
            // Machine must end its move.
            w -= 5.0;
        }
        if let Some(d) = near(&self.objectives) {
            w += if d == 0 { 4.0 } else { -0.4 * f64::from(d) };
        }
        if self.held.contains(&h) {
            w += 2.0;
        }
        if let Some(d) = near(&self.enemies) {
            w -= 0.25 * f64::from(d.saturating_sub(1));
        }
        w
    }
}

fn check(ctx: &Ctx<'_>, s: &State, si: usize, text: &str) -> Option<Plan> {
    let lines = orders::parse(&ctx.board, ctx.r, text).ok()?;
    plan(ctx, s, si, &lines).ok()
}

/// The ways to open a turn with `card` the engine accepts: the card alone
/// (a section card, a tactic), on a section where it names one, or (Air
/// Power, Barrage) at the enemy it is likeliest to destroy.
fn heads(ctx: &Ctx<'_>, s: &State, si: usize, card: &str, goals: &Goals) -> Vec<String> {
    let Some(spec) = ctx.r.card(card) else {
        return Vec::new();
    };
    let effect = match spec.effect.as_deref() {
        Some("ambush") => return Vec::new(),
        Some("counter-attack") => match counter_card(ctx, s, si) {
            Some((c, _)) => c,
            None => return Vec::new(),
        },
        _ => card.to_string(),
    };
    let Some(espec) = ctx.r.card(&effect) else {
        return Vec::new();
    };
    let line = commissar_line(ctx, s, si, card);
    if matches!(espec.effect.as_deref(), Some("air-power" | "barrage")) {
        let mut targets: Vec<&Unit> = s.units.iter().filter(|u| u.side != si).collect();
        targets.sort_by_key(|u| (u.figures, near(&goals.objectives, u.at), u.at));
        return targets
            .iter()
            .map(|t| format!("PLAY {card}\n{line}TARGET {}\n", t.at))
            .find(|t| check(ctx, s, si, t).is_some())
            .into_iter()
            .collect();
    }
    let plain = format!("PLAY {card}\n{line}");
    if check(ctx, s, si, &plain).is_some() {
        return vec![plain];
    }
    Section::ALL
        .iter()
        .map(|sec| format!("PLAY {card} {}\n{line}", sec.id()))
        .filter(|t| check(ctx, s, si, t).is_some())
        .collect()
}

/// Is `si` the Martian Player, with towns to seize?
fn towns_of_mine(s: &State, si: usize) -> bool {
    s.worlds
        .as_ref()
        .is_some_and(|w| w.martian == si && !w.objectives.is_empty())
}

/// A Handling Machine beside the town it is to seize, an enemy unit on the
/// town: that unit, the one battle that may take the town this turn.
fn worlds_assault(ctx: &Ctx<'_>, st: &State, u: &Unit, town: Option<Hex>) -> Option<Hex> {
    let t = town.filter(|t| t.adjacent(u.at))?;
    st.unit_at(t)
        .filter(|e| e.side != u.side && target_check(ctx, st, u, t).is_ok())
        .map(|_| t)
}

/// A Martian machine's close assault on `t`: the enemy it would overrun
/// from `t` if the assault empties it (armour "may battle again"), the
/// one it is likeliest to destroy; none onto a town a Handling Machine is
/// to seize. The Martians must eliminate three-quarters of the human
/// units before the Common Cold ends them: every battle counts.
fn worlds_overrun(
    ctx: &Ctx<'_>,
    st: &State,
    si: usize,
    u: &Unit,
    t: Hex,
    goals: &Goals,
) -> Option<Hex> {
    if goals.towns.is_empty() || !ctx.spec(&u.kind).overrun || goals.towns.contains(&t) {
        return None;
    }
    let mut there = st.clone();
    there.units.retain(|e| e.at != t);
    let moved = Unit { at: t, ..u.clone() };
    if let Some(x) = there.unit_mut(u.id) {
        x.at = t;
    }
    there
        .units
        .iter()
        .filter(|e| e.side != si && e.at.adjacent(t))
        .filter(|e| target_check(ctx, &there, &moved, e.at).is_ok())
        .map(|e| (e.at, attack_worth(ctx, &there, &moved, e, 0.0)))
        .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)))
        .map(|x| x.0)
}

fn near(v: &[Hex], h: Hex) -> u32 {
    v.iter().map(|g| g.distance(h)).min().unwrap_or(0)
}

/// Political Commissar: the card put under the marker, the hand's first
/// other card (none when the marker keeps its card).
fn commissar_line(ctx: &Ctx<'_>, s: &State, si: usize, played: &str) -> String {
    let mut first = adjutant_dice::ForcedDice::new(vec![1]);
    super::commissar::random_line(ctx, s, si, played, &mut first)
}

/// The chance that one die hits a unit of `class`.
fn hit_chance(class: &str) -> f64 {
    match class {
        "infantry" => 0.5,
        "armour" => 0.34,
        "artillery" => 0.17,
        _ => 0.34,
    }
}

/// What battling `t` from where `u` stands is worth: the expected hits,
/// and more where they may destroy it (`dealt` hits already expected on it
/// this turn).
fn attack_worth(ctx: &Ctx<'_>, st: &State, u: &Unit, t: &Unit, dealt: f64) -> f64 {
    let (base, mods) = battle_dice(ctx, st, u, t, &[]);
    let dice = f64::from(total(base, &mods));
    let hits = dice * hit_chance(&ctx.spec(&t.kind).class);
    let left = (f64::from(t.figures) - dealt).max(0.5);
    let kill = if hits >= left { 2.0 } else { 0.0 };
    hits * (1.0 + 1.0 / left) + kill
}

/// What a battle on an enemy unit standing on an objective of the side's
/// own that it does not hold is worth, times its worth elsewhere: the side
/// cannot win without the hex (victory.rs, `may_win`) and the unit must go
/// before it is taken. Watched (Merville Battery, seed 1 against random):
/// every one of the 29 games the Allies won destroyed a heavy gun in its
/// casemate, 4 of the 21 not won did. Twice the worth moves and orders
/// the units for the guns and turns their fire on them: the Allies won 32
/// of 50 (were 29) at seed 1 and 31 (were 26) at seed 2, 122 of 200 over
/// seeds 1 to 4 (were 112; docs/general.md, "Merville Battery's guns").
const ON_OWN_OBJECTIVE: f64 = 2.0;

/// The best target `u` may battle from where it stands in `st`.
fn best_target(
    ctx: &Ctx<'_>,
    st: &State,
    si: usize,
    u: &Unit,
    dealt: &[(Hex, f64)],
) -> Option<(Hex, f64)> {
    st.units
        .iter()
        .filter(|e| e.side != si && target_check(ctx, st, u, e.at).is_ok())
        .map(|e| {
            let d = dealt.iter().find(|(h, _)| *h == e.at).map_or(0.0, |x| x.1);
            let own = st
                .objectives
                .iter()
                .any(|o| o.side == si && o.at == e.at && !o.held);
            let k = if own { ON_OWN_OBJECTIVE } else { 1.0 };
            (e.at, k * attack_worth(ctx, st, u, e, d))
        })
        .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)))
}

/// How much a unit ordered now could do: battle from where it stands, or
/// move to where it wants to be.
fn unit_worth(ctx: &Ctx<'_>, s: &State, si: usize, u: &Unit, goals: &Goals) -> f64 {
    let attack = best_target(ctx, s, si, u, &[]).map_or(0.0, |(_, w)| w);
    let mut w =
        attack + 2.0 / (1.0 + f64::from(near(&goals.enemies, u.at).min(near_goal(goals, u))));
    if goals.town_of(u).is_some_and(|t| t != u.at) {
        // The Martians cannot win without every town seized by a Handling
        // Machine before the Common Cold takes them (the third Green Star):
        // a machine still on its way is ordered before the Fighting
        // Machines' shots (watched: they stood on the rear line).
        w += 6.0;
    }
    w
}

fn near_goal(goals: &Goals, u: &Unit) -> u32 {
    if let Some(t) = goals.town_of(u) {
        return t.distance(u.at);
    }
    if goals.objectives.is_empty() {
        u32::MAX
    } else {
        near(&goals.objectives, u.at)
    }
}

/// The units `head` may order, best first, added while the engine accepts
/// them: (the units' hexes, the plan, their summed worth).
fn order_units(
    ctx: &Ctx<'_>,
    s: &State,
    si: usize,
    head: &str,
    goals: &Goals,
) -> Option<(Vec<Hex>, Plan, f64)> {
    let mut own: Vec<(f64, Hex)> = s
        .units
        .iter()
        .filter(|u| u.side == si)
        .map(|u| (unit_worth(ctx, s, si, u, goals), u.at))
        .collect();
    own.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut plan0 = check(ctx, s, si, head)?;
    let mut ordered: Vec<Hex> = Vec::new();
    let mut worth = 0.0;
    for (w, h) in own {
        if ordered.len() >= 6 {
            break;
        }
        let mut list = ordered.clone();
        list.push(h);
        if let Some(p) = check(ctx, s, si, &format!("{head}ORDER {}\n", join(&list))) {
            ordered = list;
            plan0 = p;
            worth += w;
        }
    }
    Some((ordered, plan0, worth))
}

/// What a card's opening is worth: its units' worth, or for Air Power and
/// Barrage, the target's weakness.
fn head_worth(ctx: &Ctx<'_>, s: &State, si: usize, head: &str, goals: &Goals) -> f64 {
    if head.contains("TARGET ") {
        let t = head
            .lines()
            .find_map(|l| l.strip_prefix("TARGET "))
            .and_then(Hex::parse)
            .and_then(|h| s.unit_at(h));
        return t.map_or(0.0, |t| 6.0 / f64::from(t.figures.max(1)));
    }
    order_units(ctx, s, si, head, goals).map_or(0.0, |(_, _, w)| w)
}

/// The whole orders for an opening: its units ordered, moved and battling.
fn build(
    ctx: &Ctx<'_>,
    s: &State,
    si: usize,
    head: &str,
    goals: &Goals,
    rng: &mut dyn Dice,
    jitter: bool,
) -> Option<String> {
    if head.contains("TARGET ") {
        return check(ctx, s, si, head).map(|_| head.to_string());
    }
    let (ordered, plan0, _) = order_units(ctx, s, si, head, goals)?;
    let mut text = if ordered.is_empty() {
        head.to_string()
    } else {
        format!("{head}ORDER {}\n", join(&ordered))
    };
    let mut sc = s.clone();
    let mut moved: Vec<(Hex, u32)> = Vec::new();
    for h in &ordered {
        let Some(u) = sc.unit_at(*h).cloned() else {
            continue;
        };
        let Some(mode) = plan0.modes.get(&u.id) else {
            continue;
        };
        let dest = if mode.max_move == 0 || mode.nothing {
            None
        } else {
            best_move(ctx, &sc, si, &u, mode, goals, rng, jitter)
        };
        match dest {
            Some(path) => {
                let line = format!("MOVE {}\n", join(&path));
                let to = *path.last().unwrap_or(h);
                if check(ctx, s, si, &format!("{text}{line}")).is_some() {
                    text.push_str(&line);
                    if let Some(x) = sc.unit_mut(u.id) {
                        x.at = to;
                    }
                    moved.push((to, path.len() as u32 - 1));
                    continue;
                }
                moved.push((*h, 0));
            }
            None => moved.push((*h, 0)),
        }
    }
    battles(ctx, s, &sc, si, &moved, &plan0, goals, &mut text);
    let text = take_ground_first(ctx, s, si, text, goals);
    check(ctx, s, si, &text).map(|_| text)
}

/// The close assaults that take ground on an objective of the enemy's it
/// holds first among the battles, where the engine accepts that order: a unit
/// that may not take ground (a gun) destroying the enemy there first
/// leaves the hex empty, and the objective with the enemy (watched:
/// Miteiriya Ridge's Axis shelled the Allied unit on the ridge off it, and
/// the three units that could have moved in had no target left).
fn take_ground_first(ctx: &Ctx<'_>, s: &State, si: usize, text: String, goals: &Goals) -> String {
    let first = |l: &str| {
        l.ends_with(" TAKE-GROUND")
            && l.split_whitespace()
                .nth(2)
                .and_then(Hex::parse)
                .is_some_and(|t| goals.deny.contains(&t))
    };
    let lines: Vec<&str> = text.lines().collect();
    if !lines.iter().any(|l| first(l)) {
        return text;
    }
    let (battles, rest): (Vec<&str>, Vec<&str>) =
        lines.iter().partition(|l| l.starts_with("BATTLE "));
    let (front, back): (Vec<&str>, Vec<&str>) = battles.iter().partition(|l| first(l));
    let mut out = String::new();
    for l in rest.iter().chain(&front).chain(&back) {
        out.push_str(l);
        out.push('\n');
    }
    if check(ctx, s, si, &out).is_some() {
        out
    } else {
        text
    }
}

/// Every ordered unit battles its best target (twice where the card lets
/// it), expected hits counted so that fire gathers on a target it may
/// destroy; a close assault of a unit that may takes ground (never a
/// Handling Machine off a town it is seizing; one beside its town held by
/// the enemy battles that unit to take the town).
#[allow(clippy::too_many_arguments)]
fn battles(
    ctx: &Ctx<'_>,
    s: &State,
    sc: &State,
    si: usize,
    moved: &[(Hex, u32)],
    plan0: &Plan,
    goals: &Goals,
    text: &mut String,
) {
    let mut dealt: Vec<(Hex, f64)> = Vec::new();
    // A Handling Machine assaulting its town battles after the others, so
    // that their fire may have cleared it for the machine to take.
    let mut order: Vec<Hex> = moved.iter().map(|m| m.0).collect();
    order.sort_by_key(|h| {
        sc.unit_at(*h)
            .is_some_and(|u| worlds_assault(ctx, sc, u, goals.town_of(u)).is_some())
    });
    for h in &order {
        let Some(u) = sc.unit_at(*h) else { continue };
        let times = plan0.modes.get(&u.id).map_or(1, |m| m.battles.max(1));
        if on_wire(ctx, sc, u) && best_dice(ctx, sc, si, u, &dealt) <= WIRE_DICE {
            // A battle cut to one die by the wire is worth less than the
            // wire gone (rulebook: infantry on wire "may remove the wire
            // instead of battling"): the hex is open from the next turn,
            // its battles at full dice and a way through for the others.
            let line = format!("REMOVE-WIRE {}\n", u.at);
            if check(ctx, s, si, &format!("{text}{line}")).is_some() {
                text.push_str(&line);
                continue;
            }
        }
        for _ in 0..times {
            let town = goals.town_of(u);
            let Some(t) = worlds_assault(ctx, sc, u, town)
                .or_else(|| best_target(ctx, sc, si, u, &dealt).map(|x| x.0))
            else {
                break;
            };
            let spec = ctx.spec(&u.kind);
            let mut tries = Vec::new();
            // Never a Handling Machine off the town it is seizing, nor
            // another Martian unit onto a town a machine is to seize
            // (watched: a Fighting Machine took Wimbledon's hex and the
            // Handling Machine beside it could not enter).
            let seizing = town == Some(u.at);
            let blocking =
                u.kind != goals.handling && !goals.rounds.is_empty() && goals.towns.contains(&t);
            // Nor a unit off an objective of its side's own: it holds the
            // hex, and the medal and the right to win with it (watched:
            // Miteiriya Ridge's Allies took ground off the ridge with their
            // fifth medal, and the Axis's last turn walked onto it).
            let holding = s.objectives.iter().any(|o| o.side == si && o.at == u.at);
            if t.distance(u.at) == 1
                && (spec.take_ground || spec.overrun)
                && !seizing
                && !blocking
                && !holding
            {
                if let Some(t2) = worlds_overrun(ctx, sc, si, u, t, goals) {
                    tries.push(format!("BATTLE {} {t} OVERRUN {t2}\n", u.at));
                }
                tries.push(format!("BATTLE {} {t} TAKE-GROUND\n", u.at));
            }
            tries.push(format!("BATTLE {} {t}\n", u.at));
            let Some(line) = tries
                .into_iter()
                .find(|l| check(ctx, s, si, &format!("{text}{l}")).is_some())
            else {
                break;
            };
            text.push_str(&line);
            if let Some(e) = sc.unit_at(t) {
                let (base, mods) = battle_dice(ctx, sc, u, e, &[]);
                let hits = f64::from(total(base, &mods)) * hit_chance(&ctx.spec(&e.kind).class);
                match dealt.iter_mut().find(|(x, _)| *x == t) {
                    Some(d) => d.1 += hits,
                    None => dealt.push((t, hits)),
                }
            }
        }
    }
}

/// The best path for `u` (its hex first), or `None` to stay: every hex it
/// may reach by the engine's path check, worth the battle it could give
/// from there (if it may still battle after that move), what it wants
/// (objectives, towns, closing on the enemy) and the cover; `jitter` adds
/// a little noise.
#[allow(clippy::too_many_arguments)]
fn best_move(
    ctx: &Ctx<'_>,
    sc: &State,
    si: usize,
    u: &Unit,
    mode: &super::turn::Mode,
    goals: &Goals,
    rng: &mut dyn Dice,
    jitter: bool,
) -> Option<Vec<Hex>> {
    let rule = MoveRule {
        max: mode.max_move,
        ignore_terrain: mode.ignore_terrain,
    };
    // Breadth first over legal paths, one path a hex, at most 4 hexes.
    let mut paths: Vec<Vec<Hex>> = vec![vec![u.at]];
    let mut frontier: Vec<Vec<Hex>> = vec![vec![u.at]];
    for _ in 0..mode.max_move.min(4) {
        let mut next = Vec::new();
        for p in &frontier {
            let last = *p.last().unwrap_or(&u.at);
            for n in last.neighbours() {
                if paths.iter().any(|q| q.last() == Some(&n)) {
                    continue;
                }
                let mut q = p.clone();
                q.push(n);
                if check_path(ctx, sc, u, &q, rule).is_ok() {
                    paths.push(q.clone());
                    next.push(q);
                }
            }
        }
        frontier = next;
    }
    let mut scratch = sc.clone();
    let mut best: Option<(f64, usize)> = None;
    for (i, p) in paths.iter().enumerate() {
        let to = *p.last().unwrap_or(&u.at);
        let steps = p.len() as u32 - 1;
        if let Some(x) = scratch.unit_mut(u.id) {
            x.at = to;
        }
        let moved = Unit {
            at: to,
            ..u.clone()
        };
        let mut w = goals.pull(u, to) + cover(ctx, &scratch, to);
        if goals.towns.is_empty() && goals.objectives.is_empty() {
            // A side with no ground to take (nothing of its own to seize,
            // nothing of the enemy's held) weighs what the enemy may take
            // from the hex; a side with ground to take must close on it and
            // pay for it (weighed for it too, Merville Battery's Allies won
            // 36 of 80 games, were 47: docs/general.md).
            w -= danger(ctx, &scratch, si, &moved);
        } else if goals.towns.is_empty() {
            // A side with ground to take weighs it too, at half: it must
            // close and pay for it, but not into every answer.
            w -= ATTACKER_DANGER * danger(ctx, &scratch, si, &moved);
        }
        if steps <= mode.move_battle {
            w += best_target(ctx, &scratch, si, &moved, &[]).map_or(0.0, |(_, a)| 1.5 * a);
        }
        if jitter {
            w += f64::from(rng.roll(100)) / 100.0;
        }
        if best.is_none_or(|(b, _)| w > b) {
            best = Some((w, i));
        }
    }
    let (_, i) = best?;
    (i > 0).then(|| paths[i].clone())
}

/// The weight of `danger` in the moves of a side with ground to take
/// (the Martians' machines apart: they go to their towns). At 1 it cost
/// Merville Battery's attacking Allies 11 games of 80; at half, with
/// infantry removing wire it may battle from at one die only
/// (`WIRE_DICE`), the Allies won 248 of 400 over seeds 1 to 8 (were 230;
/// docs/general.md, "Merville Battery's wire").
const ATTACKER_DANGER: f64 = 0.5;

/// What the enemy could take from `u` where it stands in `st` in its next
/// turn, from where its units stand: the expected figures of the two
/// best battles on it (its hex's cover counted by the engine's own dice),
/// no more than it has, and 2 more where they may destroy it. Watched
/// (Bir Hakeim's Allies, 23 games lost or drawn of 60): the Free French
/// left their trenches to close on the Ariete's tanks and were worn down
/// outside the box (77 of the 111 Allied units lost in those games, on
/// rows 5 to 9), and drew behind on figures removed; the look-ahead, in
/// which the enemy passes, did not see it.
fn danger(ctx: &Ctx<'_>, st: &State, si: usize, u: &Unit) -> f64 {
    let class = ctx.spec(&u.kind).class.clone();
    let mut hits: Vec<f64> = st
        .units
        .iter()
        .filter(|e| e.side != si && e.at.distance(u.at) <= 6)
        .filter(|e| target_check(ctx, st, e, u.at).is_ok())
        .map(|e| {
            let (base, mods) = battle_dice(ctx, st, e, u, &[]);
            f64::from(total(base, &mods)) * hit_chance(&class)
        })
        .collect();
    hits.sort_by(|a, b| b.total_cmp(a));
    let sum: f64 = hits.iter().take(2).sum();
    let f = f64::from(u.figures);
    sum.min(f) + if sum >= f { 2.0 } else { 0.0 }
}

/// The most battle dice at which an infantry unit standing on barbed wire
/// removes the wire instead of battling (`battles`): watched (Merville
/// Battery, seed 1 against random), the Allies' battles on the guns in
/// their casemates were 1.2 dice on average, seven in ten of them of one die
/// from the wire (3, -1 for the bunker, -1 from the wire: a gun is hit on
/// a grenade only); with the wire removed, and `ATTACKER_DANGER`, the
/// Allies won 248 of 400 games over seeds 1 to 8 (were 230;
/// docs/general.md, "Merville Battery's wire").
const WIRE_DICE: u32 = 1;

/// Is `u` infantry standing on barbed wire?
fn on_wire(ctx: &Ctx<'_>, st: &State, u: &Unit) -> bool {
    ctx.spec(&u.kind).class == "infantry"
        && st
            .features(u.at)
            .iter()
            .any(|f| ctx.r.feature(f).is_some_and(|x| x.wire))
}

/// The battle dice of `u`'s best battle from where it stands in `st`
/// (0 with no target).
fn best_dice(ctx: &Ctx<'_>, st: &State, si: usize, u: &Unit, dealt: &[(Hex, f64)]) -> u32 {
    best_target(ctx, st, si, u, dealt)
        .and_then(|(t, _)| st.unit_at(t))
        .map_or(0, |e| {
            let (base, mods) = battle_dice(ctx, st, u, e, &[]);
            total(base, &mods)
        })
}

/// The cover a hex gives: the most dice its terrain takes off an attack.
fn cover(ctx: &Ctx<'_>, st: &State, h: Hex) -> f64 {
    let p = ctx
        .info(st, h)
        .specs
        .iter()
        .flat_map(|(_, f)| f.protect.values().copied())
        .max()
        .unwrap_or(0);
    0.4 * f64::from(p)
}

fn join(h: &[Hex]) -> String {
    h.iter().map(Hex::to_string).collect::<Vec<_>>().join(" ")
}

/// The general's guess at the enemy's hand, for its look-ahead only
/// (docs/general.md, "The enemy's reply"): on `known`, the side's
/// knowledge (the enemy's hand blanked, the cards the side has not seen one
/// pool in sorted order as the deck), the pool shuffled with the general's
/// own `dice` and each blanked hand of another side dealt its size from the
/// front, the rest the deck in that order. A function of `known` and `dice`
/// only: the enemy's true hand, and the deck's true order, are never read
/// (they are not in `known`). `None` for a side not in the game.
pub fn deal_unseen(known: &State, side: &str, dice: &mut dyn Dice) -> Option<State> {
    let si = known.side_index(side)?;
    let mut k = known.clone();
    let mut pool = std::mem::take(&mut k.deck);
    adjutant_dice::shuffle(&mut pool, dice);
    for (j, hand) in k.hands.iter_mut().enumerate() {
        if j == si || !hand.is_empty() {
            continue;
        }
        let size = k.hand_size.get(j).copied().unwrap_or(0);
        let n = usize::try_from(size).unwrap_or(0).min(pool.len());
        hand.extend(pool.drain(..n));
    }
    k.deck = pool;
    Some(k)
}
/// The general's worth of a position not yet over, for `side`
/// (`Family::general_value`, docs/general.md): medals (10 each) and
/// figures on the board as the general counts them everywhere, and how
/// the scenario is won, which those do not tell:
/// - a last Counter-Attack turn pending for the enemy: the game ends after
///   it on the count of damage (victory.rs, `finish`), so the margin of
///   damage decides, less what the enemy's last turn may still take;
/// - a side with terrain objectives of its own cannot win without one
///   (victory.rs, `may_win`): until it holds one, its nearest unit's
///   distance to them counts against it;
/// - the War of the Worlds (variants/worlds.rs): the units each side must
///   eliminate and the towns the Handling Machines must seize.
#[must_use]
pub fn value(r: &Ruleset, s: &State, side: &str) -> Option<f64> {
    let si = s.side_index(side)?;
    if s.over || s.sides.len() != 2 {
        return None;
    }
    let en = State::other(si);
    let figures = |i: usize| -> f64 {
        s.units
            .iter()
            .filter(|u| u.side == i)
            .map(|u| f64::from(u.figures))
            .sum()
    };
    if let Some(w) = &s.worlds {
        return Some(worlds_value(r, s, si, w) + figures(si) - figures(en));
    }
    let medals = |i: usize| f64::from(s.medals(i));
    let mut v = 10.0 * (medals(si) - medals(en)) + figures(si) - figures(en);
    v += objectives_value(s, si) - objectives_value(s, en);
    if s.to_move == en && s.final_turn.is_none() {
        // The look-ahead cannot play the enemy's answer (its hand is
        // blanked in the side's view: it has no orders there), so what the
        // enemy's units could do next turn from where they stand counts
        // here: a unit left beside a stronger enemy is no gain.
        v -= exposure(r, s, si);
    }
    if let Some(last) = s.final_turn {
        // The game ends after `last`'s turn on the count of damage, and
        // that turn may still add to it: a margin of two figures or less
        // is no sure thing. Medals no longer count, and a draw is worth
        // what a draw is: nothing (but the margin, to break ties).
        let raw =
            f64::from(super::victory::damage(s, si)) - f64::from(super::victory::damage(s, en));
        let margin = if last == si { raw + 2.0 } else { raw - 2.0 };
        let mut decided = if margin > 0.0 && super::victory::may_win(s, si) {
            (margin / 3.0).min(1.0)
        } else if margin < 0.0 && super::victory::may_win(s, en) {
            (margin / 3.0).max(-1.0)
        } else {
            0.0
        };
        if last == en {
            // The side reached its medals and the enemy's last turn is to
            // come. Behind or level on damage, that turn can only keep it
            // so: a draw the side chose, no better than a loss to a side
            // playing to win (Bir Hakeim's Allies took a fifth medal behind
            // on damage, 6 of 20 games drawn): worth less than playing on.
            if raw <= 0.0 && decided == 0.0 {
                return Some(FINISHED_INTO_A_DRAW + raw);
            }
            // Ahead, it still needs an objective of its own held when that
            // turn ends (Miteiriya Ridge's Allies held the ridge with a
            // one-figure tank beside the enemy, lost it and drew).
            if decided > 0.0 {
                decided *= hold_chance(s, si);
            }
        }
        return Some(400_000.0 * decided + raw);
    }
    Some(v)
}

/// What the general counts a draw it finishes into itself (its fifth medal
/// taken while behind on damage, the enemy unable to win): six medals
/// down, below most games still to play.
const FINISHED_INTO_A_DRAW: f64 = -60.0;

/// The general's guess at the chance that `si` still holds an objective of
/// its own when the enemy's last turn ends (victory.rs: `may_win` needs
/// one held), the best of those it holds: 1 where no enemy unit stands
/// within three hexes (a move and a close assault that takes ground);
/// else each such enemy unit (three at most) takes an empty hex with a
/// chance of 0.7 (it need only walk onto it) and one held by a unit with
/// one in two to the power of its figures. A side with no objectives of
/// its own does not need one. (It was a flat half where every objective
/// was empty or held by two figures or fewer with an enemy within four:
/// the empty ridge weighed as a two-figure unit on it, a full one as
/// safe.)
fn hold_chance(s: &State, si: usize) -> f64 {
    let held: Vec<Hex> = s
        .objectives
        .iter()
        .filter(|o| o.side == si && o.held)
        .map(|o| o.at)
        .collect();
    if held.is_empty() {
        return 1.0;
    }
    held.iter()
        .map(|&h| {
            let threats = s
                .units
                .iter()
                .filter(|u| u.side != si && u.at.distance(h) <= 3)
                .count()
                .min(3);
            let lose = match s.unit_at(h).filter(|u| u.side == si) {
                None => 0.7,
                Some(u) => 0.5_f64.powi(u.figures as i32),
            };
            (1.0 - lose).powi(threats as i32)
        })
        .fold(0.0, f64::max)
}

/// What the enemy of `si` could take next turn from where its units stand:
/// each enemy unit's best battle on a unit of `si`'s (expected figures,
/// and half a medal where they may destroy it), the three best of them (a
/// card orders a few units), at half weight (it may not hold the card).
fn exposure(r: &Ruleset, s: &State, si: usize) -> f64 {
    let ctx = Ctx::new(r);
    let mut threats: Vec<f64> = s
        .units
        .iter()
        .filter(|e| e.side != si)
        .filter_map(|e| {
            s.units
                .iter()
                .filter(|t| t.side == si && e.at.distance(t.at) <= 6)
                .filter(|t| target_check(&ctx, s, e, t.at).is_ok())
                .map(|t| {
                    let (base, mods) = battle_dice(&ctx, s, e, t, &[]);
                    let hits = f64::from(total(base, &mods)) * hit_chance(&ctx.spec(&t.kind).class);
                    let f = f64::from(t.figures);
                    hits.min(f) + if hits >= f { 5.0 } else { 0.0 }
                })
                .max_by(f64::total_cmp)
        })
        .collect();
    threats.sort_by(|a, b| b.total_cmp(a));
    0.5 * threats.iter().take(3).sum::<f64>()
}

/// What a side's own terrain objectives are worth to it beyond the medal
/// each gives: none held, it cannot win, and the nearer its units come to
/// one the better.
fn objectives_value(s: &State, si: usize) -> f64 {
    let own: Vec<Hex> = s
        .objectives
        .iter()
        .filter(|o| o.side == si)
        .map(|o| o.at)
        .collect();
    if own.is_empty() || s.objectives.iter().any(|o| o.side == si && o.held) {
        return 0.0;
    }
    let d = s
        .units
        .iter()
        .filter(|u| u.side == si)
        .map(|u| near(&own, u.at))
        .min()
        .unwrap_or(12);
    -15.0 - 2.0 * f64::from(d)
}

/// The War of the Worlds: each side's way to its win. The Martians must
/// eliminate three-quarters of the human units and seize every town with
/// a Handling Machine; the humans, half the Martian units or every
/// Handling Machine (variants/worlds.rs, `victory`).
fn worlds_value(r: &Ruleset, s: &State, si: usize, w: &super::variants::worlds::Worlds) -> f64 {
    let handling = &r.worlds.handling;
    let count = |f: &dyn Fn(&Unit) -> bool| s.units.iter().filter(|u| f(u)).count() as f64;
    let human = State::other(w.martian);
    let martians = count(&|u| u.side == w.martian);
    let machines = count(&|u| u.side == w.martian && &u.kind == handling);
    let humans = count(&|u| u.side == human);
    let humans_lost = f64::from(w.humans_start) - humans;
    let martians_lost = f64::from(w.martians_start) - martians;
    let need_m = f64::from((w.humans_start * 3 / 4).max(1));
    let need_h = f64::from((w.martians_start / 2).max(1));
    // The Martians: every human unit eliminated towards the three-quarters
    // (the last ones worth more), each town seized, each Handling Machine
    // standing on a town or nearer one.
    let mut martian = 20.0 * humans_lost.min(need_m) / need_m * need_m.min(12.0);
    martian += 25.0 * w.seized.len() as f64;
    martian += worlds::rounds_value(r, s);
    // The humans: Martian units towards the half, Handling Machines towards
    // none.
    let mut humans_v = 20.0 * martians_lost.min(need_h);
    if w.handling_start > 0 {
        humans_v += 30.0 * (f64::from(w.handling_start) - machines);
    }
    if si == w.martian {
        martian - humans_v
    } else {
        humans_v - martian
    }
}
