//! Fog of war as a property (issue 50): nothing a side receives depends on
//! what it cannot see (docs/rules/kriegspiel.md, "What a side's answers are
//! computed on").
//!
//! From random Kriegspiel positions of every shipped scenario (random games
//! through the engine), the test builds *twins*: two positions that differ
//! only in what side S cannot see, and holds every byte S can receive
//! identical across them:
//! - **position twins**: an unseen enemy unit removed, moved or added (in
//!   the open or camouflaged); two seen enemy units of one kind and
//!   strength exchanged (what a unit is, not which one); the enemy's hand,
//!   last card and standing orders changed. Compared: S's report parts (map,
//!   compact map, combat report, order template, HTML board, SVG, view.json),
//!   the text map, the team template, the observer's parts; when S is to
//!   move, the answers (acceptance or refusal text) and PREDICT of random
//!   legal orders and of crafted ones (long paths through the twin's hexes,
//!   battles at them, Counter-Attack), then S's report of the turn its legal
//!   orders play; when the enemy is to move, S's report of the enemy's turn
//!   (orders not naming the twin's unit);
//! - **event twins**: the enemy's turn told to S with two hexes S knows
//!   nothing of exchanged in the events and the position (the same tiles and
//!   objectives on both);
//! - **AMEND twins**: a referee's correction moving an unseen unit to one
//!   unseen hex or another, or swapping a card of the enemy's hand;
//! - **pre-battle twins** (a campaign battle): unseen enemy units moved, and
//!   the enemy's own choices made differently among units S does not see.
//!
//! The service renders every mail to a side (the turn report, MAP, HISTORY,
//! STATUS, REPLAY, team and observer mails) from these functions of the
//! `Rules` contract, so they are what the twins compare.
//!
//! Differences the rulebook allows are the [`Allowed`] kinds, each with its
//! sentence: exactly the list "Answered from the whole board" of
//! docs/rules/kriegspiel.md. A twin pair that meets one is counted and not
//! compared. `KS_TWIN_ALL=1` lists every kind of difference found (with the
//! first of each) instead of stopping at the first.
//!
//! Depth: quick games 0-3 (the first four scenarios); deep 16 more (every
//! scenario twice: a window by `ADJUTANT_DEEP_ROUND`, `KS_TWIN_FROM` and
//! `KS_TWIN_GAMES` set it exactly), then
//! the games of [`REACHING`] and on until every kind of twin was compared.

use crate::common;
use adjutant::engine::dice::{deck_seed, derive, turn_seed, ChaChaDice, Dice, ForcedDice, Seed};
use adjutant::rules::memoir44::{self, fog, Hex, Ruleset, State as M44};
use adjutant::rules::Load;
use adjutant::rules::{Chance, Event, Orders, Rules, Scenario, State, Viewer};
use serde_json::Value;
use std::collections::BTreeMap;

/// A difference between twins that the rulebook allows, with its sentence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Allowed {
    /// "Enemy Units are placed on the Board as soon as they are detected."
    Detected,
    /// "If a Camouflaged Unit is within Close Assault distance of a Moving
    /// Unit, then the active player should be informed and his Unit is left
    /// in Close Assault" (and a move into an unseen unit stops there).
    Contact,
    /// "The Referee needs to be fair and impartial, ensuring that the
    /// results of Battles and Retreats, etc., are properly and accurately
    /// applied to both Boards": a turn's moves, battles or retreats met the
    /// twin's unit on the real board.
    Met,
    /// Ambush (a reaction card): "Your unit battles first" - the enemy's
    /// hand shows on the table when it is played.
    Ambush,
    /// The side drew a card from the part of the deck the twins changed
    /// (a reshuffle, Recon's two cards): it holds that card now, and "A
    /// player may not know which Command Cards his opponent has" is kept.
    Drawn,
    /// The game ended (in one twin or both): its end, its reason and its
    /// score are told to both sides, and "When the game is over, the
    /// export is everyone's" (docs/rules/kriegspiel.md).
    Ended,
}

#[derive(Default)]
struct Tally {
    compared: BTreeMap<&'static str, u64>,
    allowed: BTreeMap<Allowed, u64>,
    /// Failures by the kind of twin: the count and the first message.
    failed: BTreeMap<String, (u64, String)>,
}

impl Tally {
    fn count(&mut self, what: &'static str) {
        *self.compared.entry(what).or_insert(0) += 1;
    }
    /// A twin pair told apart. The run goes on (`KS_TWIN_ALL=1`) to list
    /// every kind of difference, or stops at the first.
    fn fail(&mut self, kind: String, message: String) {
        if std::env::var("KS_TWIN_ALL").is_err() {
            panic!("{message}");
        }
        let e = self.failed.entry(kind).or_insert((0, message));
        e.0 += 1;
    }
}

fn seed_of(n: u64) -> Seed {
    let mut s = [0u8; 32];
    s[..8].copy_from_slice(&n.to_le_bytes());
    s[8] = 0x77;
    s
}

fn pick<T: Clone>(rng: &mut dyn Dice, v: &[T]) -> Option<T> {
    if v.is_empty() {
        return None;
    }
    v.get((rng.roll(v.len() as u32) - 1) as usize).cloned()
}

/// Everything `viewer` receives of a position and the events that led to it.
fn surfaces(
    rules: &Rules,
    st: &M44,
    events: &[Event],
    viewer: &Viewer,
    mover: Option<&str>,
) -> Vec<(&'static str, String)> {
    let s = State::of(st.clone());
    let p = rules.report_parts(&s, events, viewer, mover);
    let mut out = vec![
        ("map", p.map),
        ("compact map", p.compact),
        ("combat report", p.combat),
        ("order template", p.orders.unwrap_or_default()),
        ("HTML board", p.board_html),
        ("SVG", p.svg),
        ("view.json", p.json),
        ("text map", rules.render_text(&s, viewer)),
        (
            "report lines",
            rules.describe_events(&s, events, viewer).join("\n"),
        ),
    ];
    if let Viewer::Side(side) = viewer {
        let sections = vec!["left".to_string(), "centre".into(), "right".into()];
        out.push((
            "team template",
            rules
                .member_template(&s, side, &sections, false)
                .unwrap_or_default(),
        ));
    }
    out
}

/// The first surface that differs, as a message.
fn differ(a: &[(&'static str, String)], b: &[(&'static str, String)]) -> Option<String> {
    a.iter().zip(b).find(|(x, y)| x.1 != y.1).map(|(x, y)| {
        let (l1, l2): (Vec<&str>, Vec<&str>) = (x.1.lines().collect(), y.1.lines().collect());
        let i = l1.iter().zip(&l2).position(|(p, q)| p != q).unwrap_or(0);
        format!(
            "{} differs:\n  one: {}\n  two: {}",
            x.0,
            l1.get(i).unwrap_or(&"(end)"),
            l2.get(i).unwrap_or(&"(end)")
        )
    })
}

fn answer(r: Result<Vec<String>, adjutant::rules::Rejection>) -> String {
    match r {
        Ok(lines) => format!("accepted: {}", lines.join("; ")),
        Err(e) => format!("refused: {e}"),
    }
}

/// What a twin changed: the unit ids and hexes of the difference.
#[derive(Default, Clone)]
struct Change {
    what: &'static str,
    ids: Vec<u32>,
    hexes: Vec<Hex>,
    /// Only hidden cards or orders changed (no unit).
    cards: bool,
}

fn empty_unseen_hexes(r: &Ruleset, s: &M44, si: usize) -> Vec<Hex> {
    M44::board(r)
        .hexes()
        .into_iter()
        .filter(|h| s.unit_at(*h).is_none() && !fog::sees_hex(r, s, si, *h))
        .collect()
}

/// Twin `a` into a position that differs only in what side `si` cannot see.
fn twin(r: &Ruleset, a: &M44, si: usize, rng: &mut dyn Dice) -> Option<(M44, Change)> {
    let mut b = a.clone();
    let enemy = M44::other(si);
    let unseen: Vec<u32> = a
        .units
        .iter()
        .filter(|u| u.side == enemy && !fog::sees(r, a, si, u))
        .map(|u| u.id)
        .collect();
    let mut c = Change::default();
    match rng.roll(6) {
        1 => {
            let id = pick(rng, &unseen)?;
            c.hexes.push(a.unit(id)?.at);
            b.units.retain(|u| u.id != id);
            b.engagements.retain(|e| e.a != id && e.b != id);
            b.cross_hairs.retain(|x| x.gun != id && x.target != id);
            c.what = "an unseen enemy unit removed";
            c.ids.push(id);
        }
        2 | 3 => {
            // Added (2) in the open or camouflaged, or moved (3); now and
            // then two hexes from one of the side's units, where a
            // camouflaged unit is next to a hex its retreat may end on.
            let hexes = empty_unseen_hexes(r, a, si);
            let near: Vec<Hex> = hexes
                .iter()
                .copied()
                .filter(|h| {
                    a.units
                        .iter()
                        .any(|u| u.side == si && u.at.distance(*h) == 2)
                })
                .collect();
            let close = !near.is_empty() && rng.roll(2) == 1;
            let to = pick(rng, if close { &near } else { &hexes })?;
            let id = if rng.roll(3) == 1 || unseen.is_empty() {
                let like = pick(
                    rng,
                    &a.units
                        .iter()
                        .filter(|u| u.side == enemy)
                        .cloned()
                        .collect::<Vec<_>>(),
                )?;
                let mut u = like;
                u.id = 900 + rng.roll(99);
                u.at = to;
                u.concealed = close || rng.roll(2) == 1;
                u.train = None;
                if b.unit(u.id).is_some() {
                    return None;
                }
                let id = u.id;
                b.units.push(u);
                c.what = "an unseen enemy unit added";
                id
            } else {
                let id = pick(rng, &unseen)?;
                c.hexes.push(a.unit(id)?.at);
                b.unit_mut(id)?.at = to;
                if close {
                    b.unit_mut(id)?.concealed = true;
                }
                c.what = "an unseen enemy unit moved";
                id
            };
            c.hexes.push(to);
            c.ids.push(id);
            if b.unit(id).is_some_and(|u| fog::sees(r, &b, si, u)) {
                return None;
            }
        }
        4 => {
            // Two seen enemy units of one kind and strength exchanged.
            let seen: Vec<_> = fog::seen_units(r, a, si).into_iter().cloned().collect();
            let referred = |id: u32| {
                a.engagements.iter().any(|e| e.a == id || e.b == id)
                    || a.cross_hairs.iter().any(|x| x.gun == id || x.target == id)
                    || serde_json::to_string(&a.disorder)
                        .unwrap_or_default()
                        .contains(&format!(":{id}"))
            };
            let pairs: Vec<(u32, u32)> = seen
                .iter()
                .flat_map(|x| seen.iter().map(move |y| (x, y)))
                .filter(|(x, y)| {
                    x.id < y.id
                        && x.kind == y.kind
                        && x.figures == y.figures
                        && x.start == y.start
                        && x.concealed == y.concealed
                        && x.fixed == y.fixed
                        && x.train.is_none()
                        && y.train.is_none()
                        && !referred(x.id)
                        && !referred(y.id)
                })
                .map(|(x, y)| (x.id, y.id))
                .collect();
            let (x, y) = pick(rng, &pairs)?;
            let (hx, hy) = (a.unit(x)?.at, a.unit(y)?.at);
            b.unit_mut(x)?.at = hy;
            b.unit_mut(y)?.at = hx;
            c.what = "two seen enemy units exchanged";
            c.cards = true;
        }
        5 => {
            // The enemy's hand: cards swapped with cards deep in the deck
            // (none the side will draw this turn).
            let n = b.hands.get(enemy)?.len();
            if b.deck.len() < 12 || n == 0 {
                return None;
            }
            for i in 0..n {
                let j = 8 + (rng.roll((b.deck.len() - 8) as u32) - 1) as usize;
                let card = b.hands[enemy][i].clone();
                b.hands[enemy][i] = std::mem::replace(&mut b.deck[j], card);
            }
            c.what = "the enemy's hand";
            c.cards = true;
        }
        _ => {
            // The enemy's last card and standing orders.
            let card = pick(rng, &b.deck)?;
            b.last_played[enemy] = Some(memoir44::state::Played {
                card,
                section: None,
            });
            b.standing[enemy] = Default::default();
            c.what = "the enemy's last card and standing orders";
            c.cards = true;
        }
    }
    (b != *a).then_some((b, c))
}

/// Orders for side `si` to try on both twins: random legal ones (on what
/// the side knows), and crafted ones that walk long paths and battle at
/// hexes it does not see, and play Counter-Attack.
fn order_sets(r: &Ruleset, a: &M44, si: usize, c: &Change, rng: &mut dyn Dice) -> Vec<String> {
    let side = a.sides[si].clone();
    let known = fog::knowledge(r, a, si);
    let legal = memoir44::random_orders(r, &known, &side, rng);
    let mut out = vec![legal.clone()];
    let head: String = legal
        .lines()
        .filter(|l| l.starts_with("PLAY") || l.starts_with("ORDER"))
        .map(|l| format!("{l}\n"))
        .collect();
    let ordered: Vec<Hex> = legal
        .lines()
        .filter(|l| l.starts_with("ORDER"))
        .flat_map(|l| l.split_whitespace().skip(1).filter_map(Hex::parse))
        .collect();
    let board = M44::board(r);
    for from in ordered.iter().take(3) {
        // A random walk of up to 6 hexes, bent towards the twin's hexes.
        let mut path = vec![*from];
        let goal = c.hexes.first().copied();
        for _ in 0..(1 + rng.roll(5)) {
            let last = *path.last().unwrap_or(from);
            let next: Vec<Hex> = board
                .hexes()
                .into_iter()
                .filter(|h| h.distance(last) == 1 && !path.contains(h))
                .collect();
            let toward: Vec<Hex> = match goal {
                Some(g) if rng.roll(3) > 1 => next
                    .iter()
                    .copied()
                    .filter(|h| h.distance(g) < last.distance(g))
                    .collect(),
                _ => Vec::new(),
            };
            let Some(h) = pick(rng, if toward.is_empty() { &next } else { &toward }) else {
                break;
            };
            path.push(h);
        }
        let walk: Vec<String> = path.iter().map(Hex::to_string).collect();
        out.push(format!("{head}MOVE {}\n", walk.join(" ")));
        let end = *path.last().unwrap_or(from);
        let near: Vec<Hex> = board
            .hexes()
            .into_iter()
            .filter(|h| (1..=3).contains(&h.distance(end)))
            .chain(c.hexes.iter().copied())
            .collect();
        if let Some(t) = pick(rng, &near) {
            out.push(format!("{head}MOVE {}\nBATTLE {end} {t}\n", walk.join(" ")));
            out.push(format!("{head}BATTLE {from} {t}\n"));
        }
    }
    // Counter-Attack, whatever the side holds (refused or accepted alike).
    if let Some(u) = ordered.first() {
        out.push(format!("PLAY counter-attack\nORDER {u}\n"));
    }
    out
}

/// S's answers to each order set: the same on both twins.
fn compare_answers(
    rules: &Rules,
    a: &M44,
    b: &M44,
    side: &str,
    sets: &[String],
) -> Result<(), String> {
    let (sa, sb) = (State::of(a.clone()), State::of(b.clone()));
    for o in sets {
        let (x, y) = (
            answer(rules.check(&sa, side, o)),
            answer(rules.check(&sb, side, o)),
        );
        if x != y {
            return Err(format!(
                "the answer to\n{o}differs:\n  one: {x}\n  two: {y}"
            ));
        }
        let (x, y) = (rules.predict(&sa, side, o), rules.predict(&sb, side, o));
        let (x, y) = (format!("{x:?}"), format!("{y:?}"));
        if x != y {
            return Err(format!("PREDICT of\n{o}differs:\n  one: {x}\n  two: {y}"));
        }
    }
    Ok(())
}

/// Play `orders` of `mover` on both twins with the same dice.
fn play_both(
    rules: &Rules,
    a: &M44,
    b: &M44,
    mover: &str,
    orders: &str,
    seed: &Seed,
    t: u32,
) -> Option<[(M44, Vec<Event>); 2]> {
    let one = |s: &M44| {
        let mut dice = ChaChaDice::stream(&turn_seed(seed, t), "battle");
        let mut deck = ChaChaDice::from_seed(derive("twins/deck", &[seed]));
        let mut chance = Chance {
            dice: &mut dice,
            deck: &mut deck,
        };
        let adj = rules
            .adjudicate(
                &State::of(s.clone()),
                &[Orders {
                    side: mover.to_string(),
                    text: orders.to_string(),
                }],
                &mut chance,
            )
            .ok()?;
        Some((adj.state.get::<M44>()?.clone(), adj.events))
    };
    Some([one(a)?, one(b)?])
}

/// Why a played turn's twins may differ for side `si`, if they may.
fn allowed_after(
    r: &Ruleset,
    si: usize,
    c: &Change,
    played: &[(M44, Vec<Event>); 2],
) -> Option<Allowed> {
    let me = &played[0].0.sides[si];
    if played[0].0.over || played[1].0.over {
        return Some(Allowed::Ended);
    }
    if played[0].0.hands.get(si) != played[1].0.hands.get(si) {
        return Some(Allowed::Drawn);
    }
    for (st, events) in played {
        let stored: Vec<Value> = events.iter().map(Event::to_store).collect();
        let kind = |e: &Value| {
            e.get("kind")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        if stored.iter().any(|e| kind(e) == "ambush-played") {
            return Some(Allowed::Ambush);
        }
        if stored.iter().any(|e| kind(e) == "contact") {
            return Some(Allowed::Contact);
        }
        if st
            .units
            .iter()
            .any(|u| c.ids.contains(&u.id) && fog::sees(r, st, si, u))
        {
            return Some(Allowed::Detected);
        }
        for e in &stored {
            let mut named = Vec::new();
            common::fog::hexes_named(e, &mut named);
            if c.hexes.iter().any(|h| named.contains(&h.to_string())) {
                return Some(Allowed::Met);
            }
            // A retreat of the side's own unit of more than one hex, or
            // blocked, may have met the twin's unit on the real board.
            if kind(e) == "retreat" && e.get("side").and_then(Value::as_str) == Some(me) {
                let path: Vec<Hex> = e["path"]
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(|h| h.as_str().and_then(Hex::parse))
                            .collect()
                    })
                    .unwrap_or_default();
                let long = path.len() > 2 || e["blocked"].as_u64().unwrap_or(0) > 0;
                if long
                    && path
                        .first()
                        .is_some_and(|p| c.hexes.iter().any(|h| h.distance(*p) <= 3))
                {
                    return Some(Allowed::Met);
                }
            }
        }
    }
    None
}

/// One random position's twins, every check on them.
#[allow(clippy::too_many_arguments)]
fn position_twins(
    rules: &Rules,
    r: &Ruleset,
    a: &M44,
    seed: &Seed,
    t: u32,
    rng: &mut dyn Dice,
    tally: &mut Tally,
    at: &str,
) {
    for si in 0..a.sides.len() {
        let Some((b, c)) = twin(r, a, si, rng) else {
            continue;
        };
        let side = a.sides[si].clone();
        let viewer = Viewer::Side(side.clone());
        let ctx = format!("{at}, {side}'s twins ({}):", c.what);
        for v in [&viewer, &Viewer::Observer] {
            let (x, y) = (
                surfaces(rules, a, &[], v, None),
                surfaces(rules, &b, &[], v, None),
            );
            if let Some(d) = differ(&x, &y) {
                let kind = format!("{}: {v:?}'s {}", c.what, d.lines().next().unwrap_or(""));
                tally.fail(kind.replace(&side, "S"), format!("{ctx} {v:?}'s {d}"));
            }
        }
        tally.count("position twins");
        let mover = a.sides.get(a.to_move).cloned().unwrap_or_default();
        let phase = rules.phase(&State::of(a.clone()));
        if phase.sides != vec![mover.clone()] {
            continue;
        }
        if a.to_move == si {
            let sets = order_sets(r, a, si, &c, rng);
            if let Err(d) = compare_answers(rules, a, &b, &side, &sets) {
                let what = if d.starts_with("PREDICT") {
                    "PREDICT"
                } else {
                    "the answer to orders"
                };
                let card = if d.contains("counter-attack") {
                    " (Counter-Attack)"
                } else {
                    ""
                };
                tally.fail(format!("{}: {what}{card}", c.what), format!("{ctx} {d}"));
            }
            tally.count("order sets");
            // The turn its legal orders play (standing orders of the enemy
            // are carried out on the table: not changed for this part).
            if c.what.contains("standing") {
                continue;
            }
            let Some(played) = play_both(rules, a, &b, &side, &sets[0], seed, t) else {
                continue;
            };
            compare_played(rules, r, si, &c, &played, &side, &ctx, tally);
        } else if !c.cards {
            // The enemy's turn, with orders that leave the twin's unit be.
            let known = fog::knowledge(r, a, a.to_move);
            let orders = memoir44::random_orders(r, &known, &mover, rng);
            if c.hexes.iter().any(|h| orders.contains(&h.to_string())) {
                continue;
            }
            let Some(played) = play_both(rules, a, &b, &mover, &orders, seed, t) else {
                continue;
            };
            compare_played(rules, r, si, &c, &played, &mover, &ctx, tally);
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn compare_played(
    rules: &Rules,
    r: &Ruleset,
    si: usize,
    c: &Change,
    played: &[(M44, Vec<Event>); 2],
    mover: &str,
    ctx: &str,
    tally: &mut Tally,
) {
    if let Some(why) = allowed_after(r, si, c, played) {
        *tally.allowed.entry(why).or_insert(0) += 1;
        return;
    }
    let viewer = Viewer::Side(played[0].0.sides[si].clone());
    for v in [&viewer, &Viewer::Observer] {
        let x = surfaces(rules, &played[0].0, &played[0].1, v, Some(mover));
        let y = surfaces(rules, &played[1].0, &played[1].1, v, Some(mover));
        if let Some(d) = differ(&x, &y) {
            if std::env::var("KS_TWIN_DEBUG").is_ok() {
                eprintln!("ONE:\n{}\nTWO:\n{}", x[8].1, y[8].1);
            }
            let whose = if v == &viewer {
                "the side"
            } else {
                "an observer"
            };
            let turn = if played[0].0.sides[si] == mover {
                "its own turn"
            } else {
                "the enemy's turn"
            };
            tally.fail(
                format!("{}: {whose}'s report of {turn}", c.what),
                format!("{ctx} after {mover}'s turn, {v:?}'s {d}"),
            );
        }
    }
    tally.count("played turns");
}

/// Event twins: the enemy's turn as told to side `si`, with two hexes it
/// knows nothing of exchanged in the events and in the position.
fn event_twins(
    rules: &Rules,
    r: &Ruleset,
    before: &M44,
    after: &M44,
    events: &[Event],
    si: usize,
    rng: &mut dyn Dice,
) -> Option<Result<(), String>> {
    let stored: Vec<Value> = events.iter().map(Event::to_store).collect();
    let me = after.sides[si].clone();
    let k = common::fog::known(r, before, after, si, &stored, "");
    let free = |h: &Hex| {
        !k.contains(&h.to_string())
            && !fog::sees_hex(r, after, si, *h)
            && !fog::sees_hex(r, before, si, *h)
            && !after
                .units
                .iter()
                .any(|u| u.at == *h && (u.side == si || fog::sees(r, after, si, u)))
    };
    let mut named = Vec::new();
    for e in &stored {
        common::fog::hexes_named(e, &mut named);
    }
    let xs: Vec<Hex> = named
        .iter()
        .filter_map(|h| Hex::parse(h))
        .filter(|h| free(h))
        .collect();
    let x = pick(rng, &xs)?;
    let objective = |h: Hex| after.objectives.iter().find(|o| o.at == h).map(|o| o.side);
    let ys: Vec<Hex> = M44::board(r)
        .hexes()
        .into_iter()
        .filter(|h| {
            *h != x
                && free(h)
                && after.features(*h) == after.features(x)
                && objective(*h) == objective(x)
        })
        .filter(|h| before.features(*h) == before.features(x))
        .collect();
    let y = pick(rng, &ys)?;
    let swap = |h: Hex| {
        if h == x {
            y
        } else if h == y {
            x
        } else {
            h
        }
    };
    let (xs, ys) = (x.to_string(), y.to_string());
    let swap_str = |v: &mut Value| {
        fn walk(v: &mut Value, a: &str, b: &str) {
            match v {
                Value::String(s) if s == a => *s = b.to_string(),
                Value::String(s) if s == b => *s = a.to_string(),
                Value::Array(xs) => xs.iter_mut().for_each(|x| walk(x, a, b)),
                Value::Object(m) => m.iter_mut().for_each(|(_, x)| walk(x, a, b)),
                _ => {}
            }
        }
        walk(v, &xs, &ys);
    };
    let twin_events: Vec<Event> = stored
        .iter()
        .cloned()
        .map(|mut v| {
            swap_str(&mut v);
            rules.event_from_store(v)
        })
        .collect();
    let mut b = after.clone();
    for u in &mut b.units {
        u.at = swap(u.at);
    }
    if let (Some(ox), Some(oy)) = (
        after.objectives.iter().position(|o| o.at == x),
        after.objectives.iter().position(|o| o.at == y),
    ) {
        let (hx, hy) = (after.objectives[ox].held, after.objectives[oy].held);
        b.objectives[ox].held = hy;
        b.objectives[oy].held = hx;
    }
    if let Some(f) = b.fog.as_mut() {
        for v in &mut f.seen_before {
            for h in v.iter_mut() {
                *h = swap(*h);
            }
        }
    }
    let viewer = Viewer::Side(me);
    let mover = after.sides[M44::other(si)].clone();
    let one = surfaces(rules, after, events, &viewer, Some(&mover));
    let two = surfaces(rules, &b, &twin_events, &viewer, Some(&mover));
    Some(match differ(&one, &two) {
        Some(d) => Err(format!("{x} and {y} exchanged: {d}")),
        None => Ok(()),
    })
}

/// Retreat twins: a seen enemy unit next to a unit U of side `si` battles
/// it with a flag; in one twin a camouflaged enemy unit the side does not
/// see stands two hexes from U, next to a hex U's retreat may end on. U's
/// retreat is the side's own choice on its own board.
fn retreat_twins(
    rules: &Rules,
    r: &Ruleset,
    a: &M44,
    si: usize,
    rng: &mut dyn Dice,
    tally: &mut Tally,
    at: &str,
) {
    let enemy = M44::other(si);
    let pairs: Vec<(Hex, Hex)> = a
        .units
        .iter()
        .filter(|u| u.side == si && u.train.is_none())
        .flat_map(|u| {
            fog::seen_units(r, a, si)
                .into_iter()
                .filter(move |e| e.at.distance(u.at) == 1 && e.train.is_none())
                .map(move |e| (e.at, u.at))
        })
        .collect();
    let Some((from, target)) = pick(rng, &pairs) else {
        return;
    };
    let back = memoir44::battle::back_hexes(target, si);
    let spots: Vec<Hex> = M44::board(r)
        .hexes()
        .into_iter()
        .filter(|h| a.unit_at(*h).is_none() && back.iter().any(|b| b.distance(*h) == 1))
        .filter(|h| a.objectives.iter().all(|o| o.at != *h))
        .filter(|h| {
            a.units
                .iter()
                .filter(|u| u.side == si)
                .all(|u| u.at.distance(*h) >= 2)
        })
        .collect();
    let Some(spot) = pick(rng, &spots) else {
        return;
    };
    let mut one = a.clone();
    one.to_move = enemy;
    one.hands[enemy] = vec!["direct-from-hq".into()];
    let mut two = one.clone();
    let Some(like) = a
        .units
        .iter()
        .find(|u| u.side == enemy && u.train.is_none())
    else {
        return;
    };
    let mut hidden = like.clone();
    hidden.id = 990;
    hidden.at = spot;
    hidden.concealed = true;
    if two.unit(990).is_some() {
        return;
    }
    two.units.push(hidden);
    if two
        .units
        .iter()
        .any(|u| u.id == 990 && fog::sees(r, &two, si, u))
    {
        return;
    }
    let flag = r.face_value("flag").unwrap_or(6);
    let star = r.face_value("star").unwrap_or(5);
    let orders = format!("PLAY direct-from-hq\nORDER {from}\nBATTLE {from} {target}\n");
    let mover = a.sides[enemy].clone();
    let run = |st: &M44| {
        let mut dice = ForcedDice::new(
            [flag]
                .into_iter()
                .chain(std::iter::repeat_n(star, 12))
                .collect(),
        );
        let mut deck = ChaChaDice::from_seed([7; 32]);
        let mut chance = Chance {
            dice: &mut dice,
            deck: &mut deck,
        };
        let o = [Orders {
            side: mover.clone(),
            text: orders.clone(),
        }];
        let adj = rules
            .adjudicate(&State::of(st.clone()), &o, &mut chance)
            .ok()?;
        Some((adj.state.get::<M44>()?.clone(), adj.events))
    };
    let (Some(x), Some(y)) = (run(&one), run(&two)) else {
        return;
    };
    let c = Change {
        what: "a camouflaged unit by a retreat",
        ids: vec![990],
        hexes: vec![spot],
        cards: false,
    };
    compare_played(rules, r, si, &c, &[x, y], &mover, at, tally);
}

/// Objective twins: the side's own objective lost to an unseen enemy unit
/// at one of two hexes it knows nothing of.
fn objective_twins(
    rules: &Rules,
    r: &Ruleset,
    a: &M44,
    si: usize,
    rng: &mut dyn Dice,
) -> Option<Result<(), String>> {
    let enemy = M44::other(si);
    let spots: Vec<usize> = a
        .objectives
        .iter()
        .enumerate()
        .filter(|(_, o)| {
            o.side == si
                && a.unit_at(o.at).is_none()
                && a.units
                    .iter()
                    .filter(|u| u.side == si)
                    .all(|u| u.at.distance(o.at) >= 2)
                // Not where it saw an enemy unit when the turn began (a
                // hex it knows: the redaction tells events there whole).
                && !a
                    .fog
                    .as_ref()
                    .and_then(|f| f.seen_before.get(si))
                    .is_some_and(|v| v.contains(&o.at))
        })
        .map(|(i, _)| i)
        .collect();
    if spots.len() < 2 {
        return None;
    }
    let (i, j) = (pick(rng, &spots)?, pick(rng, &spots)?);
    if i == j {
        return None;
    }
    let unit = a
        .units
        .iter()
        .find(|u| u.side == enemy && !fog::sees(r, a, si, u))?
        .id;
    let lost = |k: usize| {
        let mut b = a.clone();
        let at = b.objectives[k].at;
        b.unit_mut(unit)?.at = at;
        b.unit_mut(unit)?.concealed = true;
        for (n, o) in b.objectives.iter_mut().enumerate() {
            o.held = o.held || n == i || n == j;
        }
        b.objectives[k].held = false;
        if b.units
            .iter()
            .any(|u| u.id == unit && fog::sees(r, &b, si, u))
        {
            return None;
        }
        let e = rules.event_from_store(
            serde_json::json!({"kind": "objective-taken", "side": a.sides[si], "at": at.to_string(), "held": false}),
        );
        Some((b, vec![e]))
    };
    let ((x, ex), (y, ey)) = (lost(i)?, lost(j)?);
    let viewer = Viewer::Side(a.sides[si].clone());
    let mover = a.sides[enemy].clone();
    let one = surfaces(rules, &x, &ex, &viewer, Some(&mover));
    let two = surfaces(rules, &y, &ey, &viewer, Some(&mover));
    Some(match differ(&one, &two) {
        Some(d) => Err(d),
        None => Ok(()),
    })
}

/// AMEND twins: the referee moves an unseen enemy unit to one unseen hex
/// or another, or swaps a card of the enemy's hand for one deck card or
/// another.
fn amend_twins(
    rules: &Rules,
    r: &Ruleset,
    a: &M44,
    si: usize,
    rng: &mut dyn Dice,
) -> Option<Result<(), String>> {
    let enemy = M44::other(si);
    let texts: [String; 2] = if rng.roll(2) == 1 {
        let unseen: Vec<Hex> = a
            .units
            .iter()
            .filter(|u| u.side == enemy && !fog::sees(r, a, si, u) && u.train.is_none())
            .map(|u| u.at)
            .collect();
        let from = pick(rng, &unseen)?;
        let hexes = empty_unseen_hexes(r, a, si);
        let (to1, to2) = (pick(rng, &hexes)?, pick(rng, &hexes)?);
        [
            format!("UNIT {from} TO {to1}\n"),
            format!("UNIT {from} TO {to2}\n"),
        ]
    } else {
        let card = pick(rng, a.hands.get(enemy)?)?;
        let (d1, d2) = (pick(rng, &a.deck)?, pick(rng, &a.deck)?);
        let id = &a.sides[enemy];
        [
            format!("CARD {id} {card} FOR {d1}\n"),
            format!("CARD {id} {card} FOR {d2}\n"),
        ]
    };
    let s = State::of(a.clone());
    let x = rules.amend(&s, &texts[0]).ok()?;
    let y = rules.amend(&s, &texts[1]).ok()?;
    let (sx, sy) = (x.state.get::<M44>()?.clone(), y.state.get::<M44>()?.clone());
    if sx.units.iter().any(|u| {
        u.side == enemy
            && fog::sees(r, &sx, si, u)
            && !fog::sees(r, a, si, a.unit(u.id).unwrap_or(u))
    }) || sy.units.iter().any(|u| {
        u.side == enemy
            && fog::sees(r, &sy, si, u)
            && !fog::sees(r, a, si, a.unit(u.id).unwrap_or(u))
    }) {
        return None;
    }
    let viewer = Viewer::Side(a.sides[si].clone());
    for v in [&viewer, &Viewer::Observer] {
        let one = surfaces(rules, &sx, &x.events, v, None);
        let two = surfaces(rules, &sy, &y.events, v, None);
        if let Some(d) = differ(&one, &two) {
            return Some(Err(format!(
                "{} / {}: {v:?}'s {d}",
                texts[0].trim(),
                texts[1].trim()
            )));
        }
    }
    Some(Ok(()))
}

fn play(rules: &Rules, r: &Ruleset, scenario: &str, n: u64, tally: &mut Tally) {
    let seed = seed_of(n);
    let mut sc = Scenario::shipped(scenario);
    sc.options.insert("kriegspiel".into(), "true".into());
    let mut deck = ChaChaDice::from_seed(deck_seed(&seed));
    let mut rng = ChaChaDice::from_seed(derive("test/ks-twins", &[&seed]));
    let mut st: State = rules.setup(&sc, &mut deck).expect("setup");
    for t in 1..=60 {
        if rules.result(&st).is_some() {
            break;
        }
        let before: M44 = st.get::<M44>().expect("memoir44").clone();
        let at = format!("{scenario} game {n} turn {t}");
        position_twins(rules, r, &before, &seed, t, &mut rng, tally, &at);
        for si in 0..before.sides.len() {
            retreat_twins(
                rules,
                r,
                &before,
                si,
                &mut rng,
                tally,
                &format!("{at}, {}'s retreat twins", before.sides[si]),
            );
            match objective_twins(rules, r, &before, si, &mut rng) {
                Some(Err(d)) => tally.fail(
                    "objective twins".into(),
                    format!("{at}, {}'s objective twins: {d}", before.sides[si]),
                ),
                Some(Ok(())) => tally.count("objective twins"),
                None => {}
            }
            match amend_twins(rules, r, &before, si, &mut rng) {
                Some(Err(d)) => tally.fail(
                    "AMEND twins".into(),
                    format!("{at}, {}'s AMEND twins: {d}", before.sides[si]),
                ),
                Some(Ok(())) => tally.count("AMEND twins"),
                None => {}
            }
        }
        let Some(side) = rules.phase(&st).sides.first().cloned() else {
            break;
        };
        let known = fog::knowledge(r, &before, before.to_move);
        let orders = memoir44::random_orders(r, &known, &side, &mut rng);
        let mut dice = ChaChaDice::stream(&turn_seed(&seed, t), "battle");
        let mut chance = Chance {
            dice: &mut dice,
            deck: &mut deck,
        };
        let adj = rules
            .adjudicate(
                &st,
                &[Orders {
                    side: side.clone(),
                    text: orders.clone(),
                }],
                &mut chance,
            )
            .unwrap_or_else(|e| panic!("{at}: {e}\n{orders}"));
        let after: M44 = adj.state.get::<M44>().expect("memoir44").clone();
        let other = M44::other(before.to_move);
        match event_twins(rules, r, &before, &after, &adj.events, other, &mut rng) {
            Some(Err(d)) => tally.fail(
                "event twins".into(),
                format!(
                    "{at}, {}'s event twins of {side}'s turn:\n{orders}{d}",
                    after.sides[other]
                ),
            ),
            Some(Ok(())) => tally.count("event twins"),
            None => {}
        }
        st = adj.state;
    }
}

/// Pre-battle twins (a campaign battle under fog): unseen enemy units
/// moved or removed, and the enemy's own choices made differently among
/// units the side does not see.
/// Before the battle, twins that differ in an enemy unit `sides[si]` does
/// not see: the same surfaces, the same answers to orders naming any hex.
fn unseen_unit_twins(
    rules: &Rules,
    r: &Ruleset,
    a: &M44,
    si: usize,
    at: &str,
    rng: &mut dyn Dice,
    tally: &mut Tally,
) {
    let side = a.sides[si].clone();
    let viewer = Viewer::Side(side.clone());
    let twin_b = (0..8).find_map(|_| twin(r, a, si, rng).filter(|(_, c)| !c.cards));
    if let Some((b, c)) = &twin_b {
        let (x, y) = (
            surfaces(rules, a, &[], &viewer, None),
            surfaces(rules, b, &[], &viewer, None),
        );
        if let Some(d) = differ(&x, &y) {
            tally.fail(
                format!("pre-battle: {}: {}", c.what, d.lines().next().unwrap_or("")),
                format!("{at}, {side}'s twins ({}): {d}", c.what),
            );
        }
        let orders: Vec<String> = a
            .units
            .iter()
            .chain(b.units.iter())
            .map(|u| format!("REMOVE {}\n", u.at))
            .chain(c.hexes.iter().map(|h| format!("REMOVE {h}\n")))
            .collect();
        let (sa, sb) = (State::of(a.clone()), State::of(b.clone()));
        for o in &orders {
            let (p, q) = (
                answer(rules.check(&sa, &side, o)),
                answer(rules.check(&sb, &side, o)),
            );
            if p != q {
                tally.fail(
                    format!("pre-battle: {}: the answer to orders", c.what),
                    format!(
                        "{at}, {side}'s twins ({}): {o}  one: {p}\n  two: {q}",
                        c.what
                    ),
                );
                break;
            }
        }
        tally.count("pre-battle twins");
    }
}

fn pre_battle_twins(rules: &Rules, r: &Ruleset, scenario: &str, n: u64, tally: &mut Tally) {
    let seed = seed_of(n);
    let mut deck = ChaChaDice::from_seed(deck_seed(&seed));
    let plain = rules
        .setup(&Scenario::shipped(scenario), &mut deck)
        .expect("setup");
    let sides = plain.get::<M44>().expect("memoir44").sides.clone();
    let mut sc = Scenario::shipped(scenario);
    sc.options.insert("kriegspiel".into(), "true".into());
    sc.options.insert(
        "campaign-dice".into(),
        format!("{}:5,{}:5", sides[0], sides[1]),
    );
    let st = rules.setup(&sc, &mut deck).expect("setup");
    let mut dice = ChaChaDice::stream(&turn_seed(&seed, 1), "battle");
    let mut chance = Chance {
        dice: &mut dice,
        deck: &mut deck,
    };
    let Ok(rolled) = rules.adjudicate(&st, &[], &mut chance) else {
        return;
    };
    let a: M44 = rolled.state.get::<M44>().expect("memoir44").clone();
    let Some(pb) = a.pre_battle.clone() else {
        return;
    };
    let mut rng = ChaChaDice::from_seed(derive("test/ks-twins-pre-battle", &[&seed]));
    let at = format!("{scenario} game {n} before the battle");
    for si in 0..sides.len() {
        let enemy = M44::other(si);
        let side = sides[si].clone();
        let viewer = Viewer::Side(side.clone());
        // Twins in unseen enemy units.
        unseen_unit_twins(rules, r, &a, si, &at, &mut rng, tally);
        // The enemy's own choices, made among units the side does not see.
        let class = |kind: &str| {
            r.units
                .get(kind)
                .map(|u| u.class.clone())
                .unwrap_or_default()
        };
        let mut theirs = [String::new(), String::new()];
        for c in pb.choices.iter().filter(|c| c.by == enemy) {
            let want = match c.effect {
                memoir44::campaign::Effect::Tank => "armour",
                memoir44::campaign::Effect::Infantry => "infantry",
                _ => continue,
            };
            let hexes: Vec<Hex> = a
                .units
                .iter()
                .filter(|u| {
                    u.side == enemy
                        && class(&u.kind) == want
                        && u.figures > 1
                        && !fog::sees(r, &a, si, u)
                })
                .map(|u| u.at)
                .collect();
            // Each unit struck once at most (no unit eliminated: its medal
            // is public).
            for t in &mut theirs {
                let left: Vec<Hex> = hexes
                    .iter()
                    .copied()
                    .filter(|h| !t.contains(&h.to_string()))
                    .collect();
                if let Some(h) = pick(&mut rng, &left) {
                    t.push_str(&format!("REMOVE {h}\n"));
                }
            }
        }
        if theirs[0].is_empty() || theirs[0] == theirs[1] {
            continue;
        }
        let s = State::of(a.clone());
        let choose = |text: &str| {
            let mut dice = ChaChaDice::stream(&turn_seed(&seed, 2), "battle");
            let mut deck = ChaChaDice::from_seed(derive("twins/deck", &[&seed]));
            let mut chance = Chance {
                dice: &mut dice,
                deck: &mut deck,
            };
            let orders = [
                Orders {
                    side: side.clone(),
                    text: "PASS\n".into(),
                },
                Orders {
                    side: sides[enemy].clone(),
                    text: text.to_string(),
                },
            ];
            rules.adjudicate(&s, &orders, &mut chance).ok()
        };
        let (Some(x), Some(y)) = (choose(&theirs[0]), choose(&theirs[1])) else {
            continue;
        };
        let (sx, sy) = (
            x.state.get::<M44>().expect("m44").clone(),
            y.state.get::<M44>().expect("m44").clone(),
        );
        let one = surfaces(rules, &sx, &x.events, &viewer, None);
        let two = surfaces(rules, &sy, &y.events, &viewer, None);
        if let Some(d) = differ(&one, &two) {
            tally.fail(
                format!(
                    "pre-battle: the enemy's choices: {}",
                    d.lines().next().unwrap_or("")
                ),
                format!(
                    "{at}, {side}: the enemy's choices\n{}or\n{}{d}",
                    theirs[0], theirs[1]
                ),
            );
        }
        tally.count("pre-battle choices");
    }
}

/// Quick, games 0-3 (and then `REACHING`): they compare every kind of
/// twin but the objective twins, 7.5 s of CPU where games 0-7 took 12.6 s
/// (docs/testing.md); deep, 16 more, the window `ADJUTANT_DEEP_ROUND` of
/// them (round 0: games 4-19, round 1: 20-35, ...), and then 48 (games 4-39
/// in every deep run until the twenty-sixth session).
const QUICK: u64 = 4;

fn games() -> std::ops::Range<u64> {
    common::depth::window("KS_TWIN_GAMES", "KS_TWIN_FROM", QUICK, 16)
}

/// Games past the first ones that reach a kind of twin the first 4 do not:
/// game 48 (Pegasus Bridge) is the first with objective twins. The quick
/// run plays it after games 0-3 instead of every game up to it (it played
/// 49 games, 27 s of CPU, while the deep run plays its window and then 48).
const REACHING: &[u64] = &[48];

#[test]
fn a_side_receives_the_same_bytes_from_twin_positions() {
    let rules = Rules::load("memoir44").unwrap();
    let r = Ruleset::builtin().unwrap();
    let scenarios = memoir44::scenario::ids();
    let mut tally = Tally::default();
    let std::ops::Range { start: first, end } = games();
    let kinds = [
        "position twins",
        "order sets",
        "played turns",
        "AMEND twins",
        "event twins",
        "pre-battle twins",
        "pre-battle choices",
        "objective twins",
    ];
    // The games asked for, then more until every kind of twin has been
    // compared once: a rules change that moves the random games must not
    // leave a kind untried at the quick depth. The games of `REACHING` are
    // tried first, then the next ones in turn (up to 200 more).
    let end = end.max(first + 1);
    let missing = |t: &Tally| {
        kinds
            .iter()
            .any(|k| t.compared.get(*k).copied().unwrap_or(0) == 0)
    };
    let order = (first..end)
        .chain(REACHING.iter().copied().filter(|g| *g >= end))
        .chain((end..end + 200).filter(|g| !REACHING.contains(g)));
    let mut played = 0;
    for n in order {
        if n >= end && !missing(&tally) {
            break;
        }
        let s = &scenarios[(n as usize) % scenarios.len()];
        play(&rules, &r, s, n, &mut tally);
        pre_battle_twins(&rules, &r, s, n, &mut tally);
        played += 1;
    }
    eprintln!("games played: {played}");
    eprintln!(
        "twins compared: {:?}; allowed differences: {:?}",
        tally.compared, tally.allowed
    );
    for (kind, (count, first)) in &tally.failed {
        eprintln!("FAILED {count}x: {kind}\n  first: {first}\n");
    }
    assert!(
        tally.failed.is_empty(),
        "{} kinds of twins told apart",
        tally.failed.len()
    );
    for what in kinds {
        assert!(
            tally.compared.get(what).copied().unwrap_or(0) > 0,
            "no {what} compared"
        );
    }
}
