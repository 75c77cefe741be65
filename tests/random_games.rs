//! Property test: random games of legal orders from every shipped scenario.
//! After every turn: no two units share a hex, figures stay within
//! 0..=starting strength, medals equal eliminations plus held objectives; and
//! replaying the stored submissions gives the same state. Paratroops: a
//! scenario's sticks, and in every third game random extra sticks (aimed or
//! along a random flight line), are dropped by dice before the first turn;
//! each lands on an empty hex of the board or is lost without a medal.
//! Night & Severe Weather: in every third game, 1-2 random conditions of
//! `[weather.*]` (a night with or without the dawn track); no unit battles
//! further than the visibility (indirect fire aside), the night track only
//! moves on, and its dice are in the events. Infantry Support Weapons: in
//! every third game up to 3 regular infantry units of each side become
//! random support weapons; a mortar never stands on a bunker nor takes
//! ground, a machine-gun battles armour only in close assault, a side never
//! has two flame-throwers. Battle Star Markers: in every third game a
//! Heroic Leader with a random unit of each side, equipment and a prisoner
//! on random hexes and an air-strikes hex; a marker with a unit is on that
//! unit's hex, a leader with his own side, loads only with infantry.
//! Appendix 1: in every other game, 3-8 random minefields of either side
//! (strengths from the box) and one unit of each side's infantry made
//! Combat Engineers; after every turn no side's view, told events or SVG
//! board holds the strength of a minefield still hidden, and a hidden
//! minefield was never revealed (its piece still face down).
//!
//! Appendix 2 (tiles from expansion sets): in every second game a quarter
//! of the hexes without a unit get a random tile of the expansion sets, some
//! an obstacle too, and the North African Desert Rules are played (random
//! overruns by an additional hex); after every turn, a unit stands on a hex
//! its movement rules forbid only where it was set up, and a destroyed tile
//! leaves what its event says.
//!
//! "Achtung! Zombie!" (Appendix 3): in every third game one side is the
//! Dead Player (its units converted to zombie units); after every turn only
//! the Dead Player has zombie units and it holds no card, a zombie unit of 6
//! or more figures has no empty hex next to it (it would have divided),
//! victory markers are only ever removed, the Living figures saved, on the
//! board and lost add up to those they began with, and a finished game's
//! winner is the side left on the board (or a draw by figures saved).
//!
//! `M44_GAMES` sets the number of games (default 2000, spread over the
//! scenarios).

use adjutant::engine::dice::{deck_seed, turn_seed, ChaChaDice, Dice, Seed};
use adjutant::rules::memoir44::{self, Event, Ruleset, State};
use adjutant::rules::Chance;
use std::collections::BTreeSet;

const MAX_TURNS: u32 = 400;

fn seed_of(n: u64) -> Seed {
    let mut s = [0u8; 32];
    s[..8].copy_from_slice(&n.to_le_bytes());
    s[8] = 0x44;
    s
}

struct Game {
    st: State,
    submissions: Vec<(String, String)>,
}

fn play(r: &Ruleset, scenario: &str, seed: Seed) -> Game {
    let mut deck = ChaChaDice::from_seed(deck_seed(&seed));
    let mut rng = ChaChaDice::from_seed(adjutant::engine::dice::derive("test/orders", &[&seed]));
    let mut st = memoir44::setup(r, scenario, &mut deck).expect("setup");
    add_random_sticks(r, &mut st, seed);
    add_random_mines(r, &mut st, seed);
    add_random_weather(r, &mut st, seed);
    add_random_support(r, &mut st, seed);
    add_random_stars(&mut st, seed);
    st = drop_sticks(r, st, scenario, seed, &mut deck);
    add_random_tiles(r, &mut st, seed);
    add_random_zombies(r, &mut st, seed);
    let mut set_up: BTreeSet<(u32, memoir44::Hex)> =
        st.units.iter().map(|u| (u.id, u.at)).collect();
    let mut subs = Vec::new();
    let mut medals_from_events = [0u32; 2];
    for t in 1..=MAX_TURNS {
        let w = memoir44::waiting(&st);
        let Some(side) = w.sides.first().cloned() else {
            break;
        };
        let orders = memoir44::random_orders(r, &st, &side, &mut rng);
        let mut dice = ChaChaDice::stream(&turn_seed(&seed, t), "battle");
        let mut chance = Chance {
            dice: &mut dice,
            deck: &mut deck,
        };
        let (next, events) = memoir44::adjudicate(r, &st, &side, &orders, &mut chance)
            .unwrap_or_else(|e| {
                panic!("{scenario} turn {t}: random orders refused: {e}\n{orders}")
            });
        // Every die the turn rolled is in its events, in order: the check a
        // player runs with only the revealed turn seed finds them all.
        let json: Vec<serde_json::Value> = events
            .iter()
            .map(|e| serde_json::to_value(e).unwrap())
            .collect();
        if let Some(d) =
            adjutant::service::export::check_dice(&r.dice.faces, &turn_seed(&seed, t), t, &json)
        {
            panic!("{scenario} seed {seed:?}: {d}");
        }
        for e in &events {
            if let Event::UnitEliminated {
                by, medal: true, ..
            } = e
            {
                let i = next.side_index(by).expect("side");
                medals_from_events[i] += 1;
            }
        }
        check_weather(r, scenario, t, &st, &next, &events);
        check_support(r, scenario, t, &next, &events);
        check_stars(r, scenario, t, &next);
        check_zombies(r, scenario, t, &st, &next);
        // Invariants.
        tile_invariants(r, &next, &events, &mut set_up, scenario, t);
        let mut seen = BTreeSet::new();
        for u in &next.units {
            assert!(
                seen.insert(u.at),
                "{scenario} turn {t}: two units on {}",
                u.at
            );
            assert!(
                u.figures >= 1 && u.figures <= u.start,
                "{scenario} turn {t}: figures {} of {}",
                u.figures,
                u.start
            );
        }
        for (i, from_events) in medals_from_events.iter().enumerate() {
            let held = next
                .objectives
                .iter()
                .filter(|o| o.side == i && o.held)
                .count() as u32;
            assert_eq!(
                next.medals(i),
                from_events + held,
                "{scenario} turn {t}: medals of side {i}"
            );
        }
        check_mines(r, scenario, t, &st, &next, &events);
        let cards: usize =
            next.hands.iter().map(Vec::len).sum::<usize>() + next.deck.len() + next.discard.len();
        assert_eq!(cards, 60, "{scenario} turn {t}: cards lost or made");
        subs.push((side, orders));
        st = next;
    }
    Game {
        st,
        submissions: subs,
    }
}

/// In every other game, 3-8 minefields of either side on random hexes that
/// hold no unit and are not water, with strengths drawn from the ruleset's
/// box, and one infantry unit of each side made Combat Engineers.
fn add_random_mines(r: &Ruleset, st: &mut State, seed: Seed) {
    use memoir44::mines::Minefield;
    let mut rng = ChaChaDice::from_seed(adjutant::engine::dice::derive("test/mines", &[&seed]));
    if rng.roll(2) != 1 {
        return;
    }
    let hexes: Vec<memoir44::Hex> = State::board(r).hexes();
    let mut bag = r.minefields.pieces.clone();
    adjutant::engine::dice::shuffle(&mut bag, &mut rng);
    for _ in 0..rng.roll(6) + 2 {
        let h = hexes[rng.roll(hexes.len() as u32) as usize - 1];
        let water = st.features(h).iter().any(|f| {
            r.terrain
                .get(f)
                .is_some_and(|t| (t.impassable || t.sea) && !t.bridge)
        });
        if water || st.unit_at(h).is_some() || st.minefields.iter().any(|m| m.at == h) {
            continue;
        }
        let Some(strength) = bag.pop() else { break };
        st.minefields.push(Minefield {
            at: h,
            side: rng.roll(2) as usize - 1,
            strength,
            revealed: false,
            undrawn: false,
        });
    }
    for side in 0..2 {
        if st
            .units
            .iter()
            .any(|u| u.side == side && u.kind == "engineers")
        {
            continue;
        }
        let ids: Vec<u32> = st
            .units
            .iter()
            .filter(|u| u.side == side && u.kind == "infantry")
            .map(|u| u.id)
            .collect();
        if ids.is_empty() {
            continue;
        }
        let id = ids[rng.roll(ids.len() as u32) as usize - 1];
        if let Some(u) = st.units.iter_mut().find(|u| u.id == id) {
            u.kind = "engineers".into();
        }
    }
}

/// Minefields after a turn: a piece still hidden was not revealed in the
/// events; no side's view, told events or SVG board carries its strength; a
/// piece once revealed stays revealed while it is on the board.
fn check_mines(
    r: &Ruleset,
    scenario: &str,
    t: u32,
    before: &State,
    next: &State,
    events: &[Event],
) {
    use adjutant::rules::Viewer;
    for m in &next.minefields {
        let was = before.minefields.iter().find(|b| b.at == m.at);
        assert!(
            was.is_some(),
            "{scenario} turn {t}: a minefield appeared at {}",
            m.at
        );
        assert!(
            !was.is_some_and(|b| b.revealed && !m.revealed),
            "{scenario} turn {t}: the minefield at {} was hidden again",
            m.at
        );
        let told = events
            .iter()
            .any(|e| matches!(e, Event::MinefieldRevealed { at, .. } if *at == m.at));
        let newly = m.revealed && !was.is_some_and(|b| b.revealed);
        assert_eq!(
            told, newly,
            "{scenario} turn {t}: the minefield at {} revealed {} but told {told}",
            m.at, m.revealed
        );
    }
    if next.minefields.is_empty() {
        return;
    }
    for side in next.sides.clone() {
        let viewer = Viewer::Side(side.clone());
        let v = memoir44::view::view_with_events(r, next, &viewer, events);
        let leaks = memoir44::mines::leaks(next, &v, &side);
        assert!(leaks.is_empty(), "{scenario} turn {t}: {leaks:?}");
        let svg = memoir44::report::svg::board(&v);
        for m in next.minefields.iter().filter(|m| !m.revealed) {
            let mark = format!("class=\"minefield\" data-hex=\"{}\"", m.at);
            let i = svg.find(&mark).unwrap_or_else(|| {
                panic!(
                    "{scenario} turn {t}: the SVG of {side} lacks the minefield at {}",
                    m.at
                )
            });
            let rest = &svg[i..];
            let label = &rest[..rest.find("<title>").unwrap_or(rest.len())];
            assert!(
                label.ends_with(">M?"),
                "{scenario} turn {t}: the SVG of {side} shows the hidden minefield at {}: {label}",
                m.at
            );
            let json = serde_json::to_string(&v).unwrap();
            assert!(
                !json.contains(&format!(
                    "\"at\":\"{}\",\"side\":\"{}\",\"strength\"",
                    m.at, next.sides[m.side]
                )),
                "{scenario} turn {t}: the view JSON of {side} holds the hidden strength at {}",
                m.at
            );
        }
    }
}

/// The terrain of the main rules; every other id of the ruleset is one of
/// Appendix 2's tiles from expansion sets.
const MAIN_TERRAIN: [&str; 14] = [
    "open", "road", "beach", "bridge", "hedgerow", "hill", "ocean", "river", "town", "woods",
    "wire", "bunker", "hedgehog", "sandbag",
];

/// In every second game: a random Appendix 2 tile on about a quarter of the
/// hexes without a unit (a third of them with an Appendix 2 obstacle too),
/// and the North African Desert Rules.
fn add_random_tiles(r: &Ruleset, st: &mut State, seed: Seed) {
    let mut d = ChaChaDice::from_seed(adjutant::engine::dice::derive("test/tiles", &[&seed]));
    if d.roll(2) == 1 {
        return;
    }
    let extra = |kind: &str| -> Vec<&String> {
        r.terrain
            .iter()
            .filter(|(id, t)| !MAIN_TERRAIN.contains(&id.as_str()) && t.kind == kind)
            .map(|(id, _)| id)
            .collect()
    };
    let (tiles, obstacles) = (extra("tile"), extra("obstacle"));
    let board = memoir44::State::board(r);
    for h in board.hexes() {
        if st.unit_at(h).is_some() || d.roll(4) != 1 {
            continue;
        }
        let tile = tiles[(d.roll(tiles.len() as u32) - 1) as usize].clone();
        let mut fs = vec![tile];
        if d.roll(3) == 1 {
            fs.push(obstacles[(d.roll(obstacles.len() as u32) - 1) as usize].clone());
        }
        st.terrain.insert(h, fs);
    }
    st.variants.push("north-african-desert".into());
}

/// After a turn: no unit stands where its movement rules forbid it unless
/// it was set up there (or fire changed the tile under it), and each
/// destroyed tile left what its event says.
fn tile_invariants(
    r: &Ruleset,
    st: &State,
    events: &[Event],
    set_up: &mut BTreeSet<(u32, memoir44::Hex)>,
    scenario: &str,
    t: u32,
) {
    // A unit whose tile fire changed under it stands where it stood.
    for e in events {
        if let Event::TileDestroyed { at, .. } = e {
            if let Some(u) = st.unit_at(*at) {
                set_up.insert((u.id, u.at));
            }
        }
    }
    for u in &st.units {
        let spec = r.unit(&u.kind).expect("unit kind");
        let info = memoir44::state::HexInfo::of(r, st, u.at);
        if !info.passable(spec) {
            assert!(
                set_up.contains(&(u.id, u.at)),
                "{scenario} turn {t}: a {} moved or retreated onto {} ({:?})",
                u.kind,
                u.at,
                st.features(u.at)
            );
        }
    }
    for e in events {
        if let Event::TileDestroyed { at, tile, becomes } = e {
            let spec = r.terrain.get(tile).expect("destroyed tile");
            assert!(
                !spec.destroyed_by_fire.is_empty(),
                "{scenario} turn {t}: {tile} destroyed"
            );
            if !st.has_feature(*at, becomes) && becomes != "open" {
                panic!("{scenario} turn {t}: {at} is not {becomes} after the fire");
            }
        }
    }
}

/// In every third game, 1-4 random sticks of either side: aimed at a random
/// hex, or along a random straight flight line.
fn add_random_sticks(r: &Ruleset, st: &mut State, seed: Seed) {
    use memoir44::airdrop::{step, Drop};
    let mut rng = ChaChaDice::from_seed(adjutant::engine::dice::derive("test/sticks", &[&seed]));
    if rng.roll(3) != 1 {
        return;
    }
    let board = State::board(r);
    let hexes: Vec<memoir44::Hex> = board.hexes();
    let kinds = [
        "elite-infantry",
        "infantry",
        "militia-infantry",
        "ski-troops",
    ];
    for _ in 0..rng.roll(4) {
        let side = rng.roll(2) as usize - 1;
        let kind = kinds[rng.roll(kinds.len() as u32) as usize - 1].to_string();
        let a = hexes[rng.roll(hexes.len() as u32) as usize - 1];
        let (aim, flight) = if rng.roll(2) == 1 {
            (Some(a), None)
        } else {
            let d = rng.roll(6) as usize - 1;
            (None, Some((a, step(a, d, 1))))
        };
        st.airdrops.push(Drop {
            side,
            kind,
            aim,
            flight,
        });
    }
}

/// The judge's opening phase: every stick dropped from the first turn's
/// "airdrop" stream. Each lands on an empty hex of the board or is lost; no
/// medal is won; every die is in the events.
fn drop_sticks(r: &Ruleset, st: State, scenario: &str, seed: Seed, deck: &mut ChaChaDice) -> State {
    if st.airdrops.is_empty() {
        return st;
    }
    let sticks = st.airdrops.len();
    let before = st.units.len();
    let mut dice = ChaChaDice::stream(&turn_seed(&seed, 1), "battle");
    let (next, events) = {
        let mut chance = Chance {
            dice: &mut dice,
            deck,
        };
        memoir44::airdrop::drop_all(r, &st, &mut chance)
    };
    let board = State::board(r);
    let mut rolled = 0;
    let mut landed = 0;
    for e in &events {
        let Event::Airdrop {
            rolls, at, lost, ..
        } = e
        else {
            panic!("{scenario}: the drop made a {e:?}");
        };
        rolled += rolls.len();
        assert!(rolls.iter().all(|d| (1..=6).contains(d)), "{e:?}");
        match (at, lost) {
            (Some(h), None) => {
                assert!(
                    board.contains(*h),
                    "{scenario}: landed off the board: {e:?}"
                );
                assert!(
                    st.unit_at(*h).is_none(),
                    "{scenario}: landed on a unit: {e:?}"
                );
                landed += 1;
            }
            (None, Some(_)) => {}
            _ => panic!("{scenario}: a stick neither landed nor was lost: {e:?}"),
        }
    }
    // A player holding only the revealed turn seed checks every drop die.
    let json: Vec<serde_json::Value> = events
        .iter()
        .map(|e| serde_json::to_value(e).unwrap())
        .collect();
    if let Some(d) =
        adjutant::service::export::check_dice(&r.dice.faces, &turn_seed(&seed, 1), 1, &json)
    {
        panic!("{scenario} seed {seed:?}: {d}");
    }
    assert_eq!(events.len(), sticks, "{scenario}: one event per stick");
    assert_eq!(rolled, dice.rolled(), "{scenario}: every drop die is told");
    assert_eq!(next.units.len(), before + landed, "{scenario}");
    assert!(next.airdrops.is_empty());
    // A lost stick wins the enemy nothing; a landed one may take an
    // objective (a medal while it holds it), nothing more.
    let held = |s: &State, i: usize| {
        s.objectives
            .iter()
            .filter(|o| o.side == i && o.held)
            .count()
    };
    for i in 0..2 {
        assert_eq!(
            next.medals(i) + held(&st, i) as u32,
            st.medals(i) + held(&next, i) as u32,
            "{scenario}: a drop won a medal"
        );
    }
    let mut seen = BTreeSet::new();
    for u in &next.units {
        assert!(
            seen.insert(u.at),
            "{scenario}: two units on {} after the drop",
            u.at
        );
    }
    next
}

fn replay(r: &Ruleset, scenario: &str, seed: Seed, subs: &[(String, String)]) -> State {
    let mut deck = ChaChaDice::from_seed(deck_seed(&seed));
    let mut st = memoir44::setup(r, scenario, &mut deck).expect("setup");
    add_random_sticks(r, &mut st, seed);
    add_random_mines(r, &mut st, seed);
    add_random_weather(r, &mut st, seed);
    add_random_support(r, &mut st, seed);
    add_random_stars(&mut st, seed);
    st = drop_sticks(r, st, scenario, seed, &mut deck);
    add_random_tiles(r, &mut st, seed);
    add_random_zombies(r, &mut st, seed);
    for (i, (side, orders)) in subs.iter().enumerate() {
        let mut dice = ChaChaDice::stream(&turn_seed(&seed, i as u32 + 1), "battle");
        let mut chance = Chance {
            dice: &mut dice,
            deck: &mut deck,
        };
        st = memoir44::adjudicate(r, &st, side, orders, &mut chance)
            .expect("replay")
            .0;
    }
    st
}

/// At least 2,000 random games of legal orders from every shipped scenario
/// (`M44_GAMES` changes the count), each replayed from its submissions. The
/// scenarios run in parallel threads.
#[test]
fn random_games_keep_the_invariants() {
    let r = Ruleset::builtin().expect("ruleset");
    let games: u64 = std::env::var("M44_GAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000);
    let scenarios = memoir44::scenario_ids();
    std::thread::scope(|scope| {
        for (k, sc) in scenarios.iter().enumerate() {
            let r = &r;
            scope.spawn(move || {
                let mut finished = 0;
                let mut turns = 0u64;
                let mut draws = 0;
                for n in 0..games {
                    let seed = seed_of(n * 16 + k as u64);
                    let g = play(r, sc, seed);
                    if g.st.over {
                        finished += 1;
                        if g.st.winner.as_deref() == Some("") {
                            draws += 1;
                        }
                    }
                    turns += u64::from(g.st.turn);
                    let again = replay(r, sc, seed, &g.submissions);
                    assert_eq!(again, g.st, "{sc} seed {n}: replay differs");
                }
                eprintln!(
                    "{sc}: {games} games, {finished} finished ({draws} draws), {turns} turns"
                );
                assert!(
                    finished * 2 >= games,
                    "{sc}: only {finished} of {games} games finished"
                );
            });
        }
    });
}

/// 10^6 dice through the real roller: each face within 0.5% of 1/6, and "at
/// least one hit against infantry with 3 dice" within 0.5% of 7/8.
#[test]
fn dice_are_fair() {
    use adjutant::rules::memoir44::battle::{roll, Ctx, HitRule};
    let r = Ruleset::builtin().expect("ruleset");
    let ctx = Ctx::new(&r);
    let mut d = ChaChaDice::stream(&turn_seed(&[9; 32], 1), "battle");
    let n = 1_000_000u32;
    let mut counts = [0u32; 6];
    for _ in 0..n {
        counts[(d.roll(6) - 1) as usize] += 1;
    }
    for c in counts {
        let share = f64::from(c) / f64::from(n);
        assert!((share - 1.0 / 6.0).abs() < 0.005, "{counts:?}");
    }
    let inf = r.unit("infantry").expect("infantry");
    let trials = n / 3;
    let mut hit = 0u32;
    for _ in 0..trials {
        let (_, hits, _) = roll(&ctx, &mut d, 3, Some(inf), inf, HitRule::default());
        if hits > 0 {
            hit += 1;
        }
    }
    let share = f64::from(hit) / f64::from(trials);
    assert!((share - 7.0 / 8.0).abs() < 0.005, "{share}");
}

/// In every third game (other than the sticks' third), 1-2 random weather
/// conditions; a night has the dawn track in half the games.
fn add_random_weather(r: &Ruleset, st: &mut State, seed: Seed) {
    let mut rng = ChaChaDice::from_seed(adjutant::engine::dice::derive("test/weather", &[&seed]));
    if rng.roll(3) != 1 {
        return;
    }
    let ids: Vec<String> = r.weather.keys().cloned().collect();
    let mut conditions = Vec::new();
    for _ in 0..rng.roll(2) {
        let c = ids[rng.roll(ids.len() as u32) as usize - 1].clone();
        if !conditions.contains(&c) {
            conditions.push(c);
        }
    }
    let dawn = (conditions.iter().any(|c| c == "night") && rng.roll(2) == 1)
        .then(|| rng.roll(2) as usize - 1);
    let track = rng.roll(r.night_track.visibility.len() as u32);
    // A rainstorm refuses a scenario's paradrops: that game stays clear.
    let _ = memoir44::weather::set(r, st, conditions, dawn, track);
}

/// In every third game, up to 3 regular infantry units of each side become
/// random Infantry Support Weapons (2 figures; one flame-thrower a side; no
/// mortar on a bunker).
fn add_random_support(r: &Ruleset, st: &mut State, seed: Seed) {
    let mut rng = ChaChaDice::from_seed(adjutant::engine::dice::derive("test/support", &[&seed]));
    if rng.roll(3) != 1 {
        return;
    }
    let kinds: Vec<String> = r
        .units
        .iter()
        .filter(|(_, u)| u.support.weapon)
        .map(|(k, _)| k.clone())
        .collect();
    for side in 0..2 {
        let mut changed = 0;
        for i in 0..st.units.len() {
            if changed == 3 || st.units[i].side != side || st.units[i].kind != "infantry" {
                continue;
            }
            if rng.roll(2) == 1 {
                continue;
            }
            let k = kinds[rng.roll(kinds.len() as u32) as usize - 1].clone();
            let spec = &r.units[&k];
            let at = st.units[i].at;
            let on_barred = st
                .features(at)
                .iter()
                .any(|f| spec.support.may_not_enter.contains(f));
            let second =
                spec.support.one_per_side && st.units.iter().any(|u| u.side == side && u.kind == k);
            if on_barred || second {
                continue;
            }
            let u = &mut st.units[i];
            u.kind = k;
            u.start = spec.figures;
            u.figures = u.figures.min(spec.figures);
            changed += 1;
        }
    }
}

/// In every third game: a Heroic Leader with a random unit of each side,
/// equipment and a prisoner on random hexes, and an air-strikes hex.
fn add_random_stars(st: &mut State, seed: Seed) {
    use memoir44::stars::Star;
    let mut rng = ChaChaDice::from_seed(adjutant::engine::dice::derive("test/stars", &[&seed]));
    if rng.roll(3) != 1 || st.units.is_empty() {
        return;
    }
    for side in 0..2 {
        let own: Vec<(u32, memoir44::Hex)> = st
            .units
            .iter()
            .filter(|u| u.side == side)
            .map(|u| (u.id, u.at))
            .collect();
        if own.is_empty() {
            continue;
        }
        let (id, at) = own[rng.roll(own.len() as u32) as usize - 1];
        st.stars.push(Star {
            kind: "heroic-leader".into(),
            side: Some(side),
            at,
            unit: Some(id),
        });
    }
    let hexes: Vec<memoir44::Hex> = st.units.iter().map(|u| u.at).collect();
    for kind in ["equipment", "prisoner", "air-strikes"] {
        let at = hexes[rng.roll(hexes.len() as u32) as usize - 1];
        st.stars.push(Star {
            kind: kind.into(),
            side: (kind == "air-strikes").then(|| rng.roll(2) as usize - 1),
            at,
            unit: None,
        });
    }
}

/// Battle Star Markers' invariants after a turn.
fn check_stars(r: &Ruleset, scenario: &str, t: u32, next: &State) {
    for s in &next.stars {
        let Some(id) = s.unit else { continue };
        let u = next
            .unit(id)
            .unwrap_or_else(|| panic!("{scenario} turn {t}: {s:?} with a unit no longer there"));
        assert_eq!(
            u.at, s.at,
            "{scenario} turn {t}: {s:?} not on its unit's hex"
        );
        match s.kind.as_str() {
            "heroic-leader" => assert_eq!(Some(u.side), s.side, "{scenario} turn {t}: {s:?}"),
            _ => assert_eq!(
                r.units[&u.kind].class, "infantry",
                "{scenario} turn {t}: {s:?}"
            ),
        }
    }
}

/// Infantry Support Weapons' invariants after a turn.
fn check_support(r: &Ruleset, scenario: &str, t: u32, next: &State, events: &[Event]) {
    for u in &next.units {
        let spec = &r.units[&u.kind];
        for f in next.features(u.at) {
            assert!(
                !spec.support.may_not_enter.contains(f),
                "{scenario} turn {t}: a {} stands on {f} at {}",
                u.kind,
                u.at
            );
        }
        if spec.support.one_per_side {
            let n = next
                .units
                .iter()
                .filter(|o| o.side == u.side && o.kind == u.kind)
                .count();
            assert!(n <= 1, "{scenario} turn {t}: {n} {} of one side", u.kind);
        }
    }
    for e in events {
        match e {
            Event::Battle {
                attacker,
                target,
                range,
                from: Some(_),
                ..
            } if attacker == "machine-gun" => {
                let armour = r.units.get(target).is_some_and(|u| u.class == "armour");
                assert!(
                    !armour || *range == 1,
                    "{scenario} turn {t}: a machine-gun battled {target} {range} hexes away"
                );
            }
            Event::TakeGround { unit, .. } => {
                assert!(
                    r.units
                        .get(unit)
                        .is_none_or(|u| !u.support.weapon || u.take_ground),
                    "{scenario} turn {t}: a {unit} took ground"
                );
            }
            _ => {}
        }
    }
}

/// Night & Severe Weather: no direct-fire battle beyond the visibility the
/// turn began with; the night track never goes back; night never returns.
fn check_weather(r: &Ruleset, scenario: &str, t: u32, st: &State, next: &State, events: &[Event]) {
    let Some(v) = memoir44::weather::visibility(r, st) else {
        assert!(
            next.weather.is_none() || next.weather == st.weather,
            "{scenario} turn {t}: weather came from nowhere"
        );
        return;
    };
    for e in events {
        if let Event::Battle {
            from: Some(from),
            attacker,
            range,
            how,
            ..
        } = e
        {
            let indirect = r.unit(attacker).is_some_and(|u| u.indirect);
            assert!(
                *range <= v || indirect,
                "{scenario} turn {t}: {attacker} at {from} battled {range} hexes away ({how}) with visibility {v}"
            );
        }
    }
    let (a, b) = (st.weather.as_ref(), next.weather.as_ref());
    if let (Some(a), Some(b)) = (a, b) {
        if a.dawn.is_some() && b.dawn.is_some() {
            assert!(
                b.track_box >= a.track_box,
                "{scenario} turn {t}: the night track went back"
            );
        }
        if !a.has("night") {
            assert!(!b.has("night"), "{scenario} turn {t}: night came back");
        }
    }
    let rolls = events
        .iter()
        .filter(|e| matches!(e, Event::NightTrack { .. }))
        .count();
    let due = st.weather.as_ref().is_some_and(|w| w.dawn.is_some())
        && !next.over
        && next.to_move == st.weather.as_ref().and_then(|w| w.dawn).unwrap_or(9);
    assert_eq!(
        rolls,
        usize::from(due),
        "{scenario} turn {t}: night track rolls"
    );
}

/// In every third game one side (at random) is the Dead Player of
/// "Achtung! Zombie!" (Appendix 3).
fn add_random_zombies(r: &Ruleset, st: &mut State, seed: Seed) {
    let mut rng = ChaChaDice::from_seed(adjutant::engine::dice::derive("test/zombies", &[&seed]));
    if rng.roll(3) != 1 || !st.airdrops.is_empty() {
        return;
    }
    let dead = rng.roll(2) as usize - 1;
    memoir44::variants::zombies::convert(r, st, dead).expect("zombie conversion");
}

/// "Achtung! Zombie!" invariants after a turn.
fn check_zombies(r: &Ruleset, scenario: &str, t: u32, st: &State, next: &State) {
    let Some(z) = &next.zombies else {
        return;
    };
    let board = memoir44::State::board(r);
    let living = State::other(z.dead);
    for u in &next.units {
        let zombie = r.unit(&u.kind).expect("unit kind").variant.zombie;
        assert_eq!(
            zombie,
            u.side == z.dead,
            "{scenario} turn {t}: a {} of side {} in a zombie game",
            u.kind,
            u.side
        );
        if zombie && u.figures >= r.zombies.divide_at {
            let room =
                u.at.neighbours()
                    .iter()
                    .any(|h| board.contains(*h) && next.unit_at(*h).is_none());
            assert!(
                !room,
                "{scenario} turn {t}: {} zombies at {} did not divide",
                u.figures, u.at
            );
        }
    }
    assert!(
        next.hands[z.dead].is_empty(),
        "{scenario} turn {t}: the Dead hold cards"
    );
    if let Some(before) = &st.zombies {
        assert!(
            z.markers.iter().all(|m| before.markers.contains(m)),
            "{scenario} turn {t}: a victory marker came back"
        );
        assert!(
            z.saved >= before.saved,
            "{scenario} turn {t}: saved figures went down"
        );
    }
    let on_board: u32 = next
        .units
        .iter()
        .filter(|u| u.side == living)
        .map(|u| u.figures)
        .sum();
    assert!(
        z.saved + on_board <= z.living_start,
        "{scenario} turn {t}: more Living figures than the game began with"
    );
    if next.over {
        let any = |s: usize| next.units.iter().any(|u| u.side == s);
        let w = next.winner.clone().unwrap_or_default();
        if !any(z.dead) {
            assert_eq!(w, next.sides[living], "{scenario} turn {t}: zombies gone");
        } else {
            assert!(
                !any(living),
                "{scenario} turn {t}: over with both sides on the board"
            );
            let lost = z.living_start - z.saved;
            let draw = z.saved + z.markers.len() as u32 > lost;
            let want = if draw {
                String::new()
            } else {
                next.sides[z.dead].clone()
            };
            assert_eq!(w, want, "{scenario} turn {t}: the zombie game's result");
        }
    }
}

/// "Achtung! Zombie!": the game option `zombies=<side>` converts a shipped
/// scenario (1, 2 or 3 zombie units per unit by class, no cards for the
/// Dead, no objectives), and an unknown side is refused.
#[test]
fn zombies_option_converts_a_shipped_scenario() {
    use adjutant::rules::{Family, Scenario};
    let r = Ruleset::builtin().expect("ruleset");
    let mut scen = Scenario::shipped("pegasus-bridge");
    let mut deck = ChaChaDice::from_seed([7; 32]);
    let plain = Family::setup(&r, &scen, &mut deck).expect("setup");
    scen.options.insert("zombies".into(), "axis".into());
    let mut deck = ChaChaDice::from_seed([7; 32]);
    let st = Family::setup(&r, &scen, &mut deck).expect("zombie setup");
    let dead = st.side_index("axis").expect("axis");
    assert_eq!(st.zombies.as_ref().map(|z| z.dead), Some(dead));
    assert!(st.hands[dead].is_empty() && st.objectives.is_empty());
    let want: u32 = plain
        .units
        .iter()
        .filter(|u| u.side == dead)
        .map(|u| r.zombies.convert[&r.units[&u.kind].class])
        .sum();
    let got = st.units.iter().filter(|u| u.side == dead).count() as u32;
    assert_eq!(got, want);
    assert!(st
        .units
        .iter()
        .filter(|u| u.side == dead)
        .all(|u| u.kind == "zombie" && u.figures == 3));
    let cards = st.deck.len() + st.discard.len() + st.hands.iter().map(Vec::len).sum::<usize>();
    assert_eq!(cards, 60);
    scen.options.insert("zombies".into(), "martians".into());
    let mut deck = ChaChaDice::from_seed([7; 32]);
    let e = Family::setup(&r, &scen, &mut deck)
        .expect_err("unknown side")
        .to_string();
    assert!(e.contains("zombies") && e.contains("martians"), "{e}");
}
