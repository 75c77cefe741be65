//! Memoir '44 in the random-game driver (`super`): random games of legal
//! orders from every shipped scenario.
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
//! Demoralisation, & Disorganisation and the Political Commissar: in every
//! third game the units of one side (all, or one class) start a figure or
//! two short, and in another third one side has the Commissar marker; a
//! demoralised unit never holds more figures than it started with and its
//! battles carry the dice it loses; after the Russian side's turn the
//! marker holds a card, the card that was under it was played or is still
//! there, and no other side's view or report names it. In the other
//! third every support weapon is motorised by the scenario: one that moves
//! does not battle.
//!
//! Appendix 2 (Trains, Railway Engines and Wagons): in every third game a
//! railway line runs along a random long row, with a station, a Supply Train
//! of the first side (carrying infantry and armour) and an Armoured Train of
//! the second on it; random orders move them forwards and backwards, unload
//! at the station and battle. After every turn a train's engine and wagon
//! stand on track, the wagon next to the engine and alone on its hex, the
//! wagon present only while the train has taken fewer than `wagon_lost_at`
//! hits, and no artillery model or load without it.
//!
//! Airfields: every third game puts two airfields on random empty hexes
//! and allows each side 3 reinforcements, which random Direct From HQ
//! cards land (the invariants above hold for the landed units).
//! Flooded Field scenarios: every fifth game floods the open countryside
//! (the tile invariants above then hold on the flooded board).
//!
//! Supply Lines & Sieges: in every third game (offset from the stars')
//! both sides trace lines of supply, one random unit of each side is
//! exempt (besieged) and a side may have a Drop-Zone on an open hex with two
//! of its units airborne; after every turn, the units of the side to move
//! counted out of supply are exactly those that cannot trace a line now,
//! each count went up by one or back to 0 (the other side's stand), every
//! loss die was for a unit out of supply its third turn or more, and no
//! side's report names the enemy's units out of supply.
//!
//! "Achtung! Zombie!" (Appendix 3): in every third game one side is the
//! Dead Player (its units converted to zombie units); after every turn only
//! the Dead Player has zombie units and it holds no card, a zombie unit of 6
//! or more figures has no empty hex next to it (it would have divided),
//! victory markers are only ever removed, the Living figures saved, on the
//! board and lost add up to those they began with, and a finished game's
//! winner is the side left on the board (or a draw by figures saved).
//!
//! "Nineteen Eighty-Four" (Appendix 3): in every fourth game that is not a
//! zombie game, the option converts the scenario; at set-up both sides
//! hold the same units, of the permitted types only; after every turn every
//! unit is of a permitted type, each side's count of each type (on the
//! board plus replacements waiting) is what it was (every eliminated unit
//! came back), no unit retreated, both sides have a Commissar marker and
//! the victory count is the variant's.
//! "EX-TER-MIN-ATE!" (Appendix 3): in every third game that is not a zombie
//! game one side is the Dalek side (its units converted to Dalek and
//! mercenary units, the Human side given its Human Factor leader); after
//! every turn only the Dalek side has Dalek or mercenary units, no Dalek
//! unit has retreated, mercenaries are left only while a Dalek unit is,
//! every town exterminated stays City Ruins and stays counted in the
//! Daleks' medals, and a side with no unit left has lost.
//! "War Of The Worlds" (Appendix 3): in one game in three of those without
//! zombies one side is the Martian Player (its units converted to Martian
//! machines); after every turn the sickness level never falls, every
//! Martian unit has lost a model of its full strength for each level (no
//! more models than that), a seized town stays seized, and a finished
//! game's winner is one its Object Of The Game allows.
//!
//! Depth (`common::depth`): 40 games per scenario by default, 120 more with
//! `ADJUTANT_DEEP=1` (a window of them by `ADJUTANT_DEEP_ROUND`); `M44_FROM`
//! and `M44_GAMES` set them exactly.

use super::{Hook, Kind, Phase, Streams, Summary, Watch};
use adjutant::engine::dice::{turn_seed, ChaChaDice, Dice, Seed};
use adjutant::rules::memoir44::{self, Event, Ruleset, State};
use adjutant::rules::{Chance, FamilyEntry, Orders, Rules, Scenario};
use serde::Deserialize;
use std::collections::BTreeSet;

mod options;
use options::*;

/// The most phases a random game plays (`M44_MAX_TURNS` to replay a
/// failure with another cap). A Memoir '44 game lasts some 20 to 40
/// phases; random orders stall about one game in six, and at 400 phases
/// those stalled games were three fifths of all the phases played. Every
/// eighth game still plays up to `LONG_TURNS`.
fn max_turns() -> u32 {
    std::env::var("M44_MAX_TURNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200)
}

/// The cap of every eighth game (games 0, 8, 16...).
const LONG_TURNS: u32 = 400;

use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::Relaxed;
/// Turns that unloaded a supply train, trains' events, airfield landings.
static UNLOADS: AtomicU64 = AtomicU64::new(0);
static TRAIN_EVENTS: AtomicU64 = AtomicU64::new(0);
static LANDINGS: AtomicU64 = AtomicU64::new(0);
/// "Nineteen Eighty-Four": replacements that came on.
static REPLACEMENTS: AtomicU64 = AtomicU64::new(0);
/// Mountains and the Battle Star Markers of issue 12: steps onto a
/// mountain, turns with SABOTAGE or RECOVER orders, dam rolls, objectives
/// and dams destroyed, boats abandoned across a river.
static MOUNTAIN_STEPS: AtomicU64 = AtomicU64::new(0);
static STAR_ORDERS: AtomicU64 = AtomicU64::new(0);
static DAM_ROLLS: AtomicU64 = AtomicU64::new(0);
static SABOTAGED: AtomicU64 = AtomicU64::new(0);
static BOATS_ACROSS: AtomicU64 = AtomicU64::new(0);
static CYBER_REINFORCEMENTS: AtomicU64 = AtomicU64::new(0);
static CHARGES_PLACED: AtomicU64 = AtomicU64::new(0);
static DETONATIONS: AtomicU64 = AtomicU64::new(0);
static BOMBARDMENTS: AtomicU64 = AtomicU64::new(0);
static BRIDGES_BLOWN: AtomicU64 = AtomicU64::new(0);
static PONTOONS: AtomicU64 = AtomicU64::new(0);
static MISSIONS: AtomicU64 = AtomicU64::new(0);
static AIR_ATTACKS: AtomicU64 = AtomicU64::new(0);
/// The unit types the games set up, over all games.
static KINDS: std::sync::Mutex<BTreeSet<String>> = std::sync::Mutex::new(BTreeSet::new());

fn seed_of(n: u64) -> Seed {
    let mut s = [0u8; 32];
    s[..8].copy_from_slice(&n.to_le_bytes());
    s[8] = 0x44;
    s
}

/// The Memoir '44 hook of the random-game driver (`super`): every shipped
/// scenario with this test's random additions (`random_setup`), the
/// family's random orders for the side to move, and the invariants above.
pub struct Memoir44 {
    r: Ruleset,
}

impl Default for Memoir44 {
    fn default() -> Self {
        Memoir44 {
            r: Ruleset::builtin().expect("ruleset"),
        }
    }
}

fn m44(st: &adjutant::rules::State) -> &State {
    st.get::<State>().expect("a Memoir '44 state")
}

/// The driver's events as the family's own.
fn typed(events: &[serde_json::Value]) -> Vec<Event> {
    events
        .iter()
        .map(|e| Event::deserialize(e).expect("a Memoir '44 event"))
        .collect()
}

impl Hook for Memoir44 {
    /// Every shipped scenario: games 0-39 at the quick depth; at the deep
    /// one 120 more, the window `ADJUTANT_DEEP_ROUND` of them (round 0:
    /// games 40-159, round 1: 160-279, ...; `.ci/run` takes the round from
    /// the commit, so the quick run's games are not played twice and each
    /// commit plays its own). `M44_FROM` and `M44_GAMES` (the end, not
    /// included) set the games exactly.
    fn kinds(&self, entry: &FamilyEntry) -> Vec<Kind> {
        const QUICK: u64 = 40;
        let games = crate::common::depth::window("M44_GAMES", "M44_FROM", QUICK, 120);
        let (first, games) = (games.start, games.end);
        memoir44::scenario_ids()
            .into_iter()
            .enumerate()
            .map(|(k, sc)| Kind {
                family: entry.name,
                ruleset: "memoir44".into(),
                rules: Rules::new(self.r.clone()),
                scenario: Scenario::shipped(&sc),
                name: sc,
                first,
                games,
                seed: Box::new(move |n| seed_of(n * 16 + k as u64)),
                orders_label: "test/orders",
                max_phases: max_turns(),
                long: (8, LONG_TURNS),
                streams: Streams::Own {
                    dice: "battle",
                    fresh_deck: false,
                },
                // The adjudication runs the same parse and plan as `check`.
                check_orders: false,
                through_store: false,
                replay_events: false,
            })
            .collect()
    }

    fn setup(&self, kind: &Kind, seed: &Seed, deck: &mut ChaChaDice) -> adjutant::rules::State {
        adjutant::rules::State::of(random_setup(&self.r, &kind.name, *seed, deck))
    }

    /// The side to move's random orders (`memoir44::random_orders`).
    fn orders(
        &self,
        _kind: &Kind,
        state: &adjutant::rules::State,
        _sides: &[String],
        rng: &mut ChaChaDice,
    ) -> Option<Vec<Orders>> {
        let st = m44(state);
        let side = memoir44::waiting(st).sides.first().cloned()?;
        let text = memoir44::random_orders(&self.r, st, &side, rng);
        Some(vec![Orders { side, text }])
    }

    fn watch(
        &self,
        kind: &Kind,
        _seed: &Seed,
        start: &adjutant::rules::State,
    ) -> Box<dyn Watch + '_> {
        let st = m44(start);
        if let Ok(mut k) = KINDS.lock() {
            k.extend(st.units.iter().map(|u| u.kind.clone()));
        }
        Box::new(Game {
            r: &self.r,
            scenario: kind.name.clone(),
            set_up: st.units.iter().map(|u| (u.id, u.at)).collect(),
            medals_from_events: [0; 2],
        })
    }

    fn same(&self, _kind: &Kind, a: &adjutant::rules::State, b: &adjutant::rules::State) -> bool {
        m44(a) == m44(b)
    }

    /// At least half the games of every scenario finish.
    fn kind_done(&self, kind: &Kind, s: &Summary) {
        assert!(
            s.finished * 2 >= s.games,
            "{}: only {} of {} games finished",
            kind.name,
            s.finished,
            s.games
        );
    }

    fn at_end(&self, kinds: &[Kind]) {
        let games = kinds.first().map_or(0, |k| k.games);
        at_end(&self.r, games);
    }
}

/// One game's invariants.
struct Game<'a> {
    r: &'a Ruleset,
    scenario: String,
    /// Where each unit stood when set up (the tile invariants).
    set_up: BTreeSet<(u32, memoir44::Hex)>,
    /// Medals won as the events tell them, per side.
    medals_from_events: [u32; 2],
}

impl Watch for Game<'_> {
    fn after_phase(
        &mut self,
        phase: &Phase,
        before: &adjutant::rules::State,
        after: &adjutant::rules::State,
        events: &[serde_json::Value],
    ) {
        let (st, next) = (m44(before), m44(after));
        let (r, scenario, t) = (self.r, self.scenario.as_str(), phase.turn);
        let orders = &phase.orders[0].text;
        // `M44_DEBUG=<scenario>:<turn>`: the orders and events of that turn
        // (with `M44_FROM`, of the failing game).
        if std::env::var("M44_DEBUG").ok() == Some(format!("{scenario}:{t}")) {
            eprintln!("ORDERS {orders}\nEVENTS {events:#?}");
        }
        let events = typed(events);
        let medals_from_events = &mut self.medals_from_events;
        let set_up = &mut self.set_up;
        for e in &events {
            if let Event::UnitEliminated {
                by, medal: true, ..
            } = e
            {
                let i = next.side_index(by).expect("side");
                medals_from_events[i] += 1;
            }
            // Appendix 2: a train that is a mission objective; destroyed,
            // its medals replace the one medal counted above.
            if let Event::TrainMission {
                side, medals, how, ..
            } = e
            {
                let i = next.side_index(side).expect("side");
                medals_from_events[i] += medals - u32::from(how == "destroyed");
                MISSIONS.fetch_add(1, Relaxed);
            }
            // Sabotage's victory marker; a sabotaged dam's four.
            if let Event::BattleStar {
                marker, at, what, ..
            } = e
            {
                let owner = st
                    .stars
                    .iter()
                    .find(|s| s.kind == *marker && s.at == *at)
                    .and_then(|s| s.side);
                match (marker.as_str(), what.as_str(), owner) {
                    ("sabotage", "destroyed", Some(i)) => {
                        medals_from_events[i] += 1;
                        SABOTAGED.fetch_add(1, Relaxed);
                    }
                    ("dam", "sabotaged", Some(i)) => {
                        medals_from_events[i] += memoir44::stars::DAM_STARS;
                        SABOTAGED.fetch_add(1, Relaxed);
                    }
                    ("dam", "roll", _) => {
                        DAM_ROLLS.fetch_add(1, Relaxed);
                    }
                    ("assault-boats", "abandoned", _) => {
                        BOATS_ACROSS.fetch_add(1, Relaxed);
                    }
                    _ => {}
                }
            }
        }
        for s in &next.stars {
            assert!(
                s.count < memoir44::stars::DAM_STARS,
                "{scenario} turn {t}: {s:?} should have been sabotaged"
            );
        }
        if orders.contains("SABOTAGE ") || orders.contains("RECOVER ") {
            STAR_ORDERS.fetch_add(1, Relaxed);
        }
        check_weather(r, scenario, t, st, next, &events);
        check_support(r, scenario, t, next, &events);
        check_stars(r, scenario, t, next);
        check_morale(r, scenario, t, st, next, &events);
        check_trains(r, scenario, t, next);
        check_supply(r, scenario, t, st, next, &events);
        check_zombies(r, scenario, t, st, next);
        check_1984(r, scenario, t, st, next, &events);
        check_daleks(r, scenario, t, st, next, &events);
        check_cybermen(r, scenario, t, next, &events);
        check_worlds(r, scenario, t, st, next);
        check_bridges(r, scenario, t, st, next, &events);
        check_blitzkrieg(r, scenario, t, st, &events);
        // Invariants.
        tile_invariants(r, next, &events, set_up, scenario, t);
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
            // "EX-TER-MIN-ATE!": an exterminated town's marker is the
            // Daleks' for good.
            let ruins = next
                .exterminate
                .as_ref()
                .filter(|x| x.daleks == i)
                .map_or(0, |x| x.ruins.len() as u32);
            assert_eq!(
                next.medals(i),
                from_events + held + ruins,
                "{scenario} turn {t}: medals of side {i} ({orders:?}; {events:?})"
            );
        }
        check_mines(r, scenario, t, st, next, &events);
        // Political Commissar: the card under the marker is one of them.
        let under = next
            .commissar
            .iter()
            .chain(next.second_commissar.iter())
            .filter(|c| c.card.is_some())
            .count();
        let cards: usize = next.hands.iter().map(Vec::len).sum::<usize>()
            + next.deck.len()
            + next.discard.len()
            + under;
        assert_eq!(cards, 60, "{scenario} turn {t}: cards lost or made");
        // Appendix 2: what the games did with trains and airfields.
        for e in &events {
            match e {
                Event::Train { .. } => TRAIN_EVENTS.fetch_add(1, Relaxed),
                Event::Reinforced { .. } => LANDINGS.fetch_add(1, Relaxed),
                Event::Replacement { at: Some(_), .. } => REPLACEMENTS.fetch_add(1, Relaxed),
                _ => 0,
            };
        }
        if orders.contains("UNLOAD ") {
            UNLOADS.fetch_add(1, Relaxed);
        }
    }
}

/// A shipped scenario set up with the random additions of this test (each
/// from its own stream of the game's seed), as `play` and `replay` both
/// start. A scenario written for a Suggested Variant (The Fall Of London)
/// gets no random units: the variant has converted its forces already.
fn random_setup(r: &Ruleset, scenario: &str, seed: Seed, deck: &mut ChaChaDice) -> State {
    let mut st = memoir44::setup(r, scenario, deck).expect("setup");
    let written_for_a_variant = st.worlds.is_some();
    if !written_for_a_variant {
        add_random_special_units(r, &mut st, seed);
        add_random_sticks(r, &mut st, seed);
    }
    add_random_mines(r, &mut st, seed);
    add_random_weather(r, &mut st, seed);
    if !written_for_a_variant {
        add_random_support(r, &mut st, seed);
    }
    add_random_stars(&mut st, seed);
    add_random_blitzkrieg(r, &mut st, seed);
    add_random_morale(r, &mut st, seed);
    add_random_supply(r, &mut st, seed);
    st = drop_sticks(r, st, scenario, seed, deck);
    add_random_tiles(r, &mut st, seed);
    if !written_for_a_variant {
        add_random_trains(r, &mut st, seed);
    }
    add_random_flooding(r, &mut st, seed);
    if !written_for_a_variant {
        add_random_airfields(&mut st, seed);
    }
    // After every addition that lays terrain over the scenario's.
    add_random_bridges(r, &mut st, seed);
    add_random_variants(r, &mut st, seed);
    memoir44::supply::start(r, &mut st);
    st
}

/// The counters of rules that must have happened, over every game.
fn at_end(r: &Ruleset, games: u64) {
    let (u, t, l) = (
        UNLOADS.load(Relaxed),
        TRAIN_EVENTS.load(Relaxed),
        LANDINGS.load(Relaxed),
    );
    let rep = REPLACEMENTS.load(Relaxed);
    let cyber = CYBER_REINFORCEMENTS.load(Relaxed);
    eprintln!("trains: {u} turns unloaded a train, {t} train events; {l} airfield landings; {rep} 1984 replacements; {cyber} Cyberman reinforcements");
    eprintln!(
        "mountains and stars: {} steps onto a mountain, {} turns with SABOTAGE or RECOVER, {} dam rolls, {} objectives or dams destroyed, {} boats abandoned",
        MOUNTAIN_STEPS.load(Relaxed),
        STAR_ORDERS.load(Relaxed),
        DAM_ROLLS.load(Relaxed),
        SABOTAGED.load(Relaxed),
        BOATS_ACROSS.load(Relaxed),
    );
    let bridges = [
        CHARGES_PLACED.load(Relaxed),
        DETONATIONS.load(Relaxed),
        BOMBARDMENTS.load(Relaxed),
        BRIDGES_BLOWN.load(Relaxed),
        PONTOONS.load(Relaxed),
    ];
    let unplayed: Vec<String> = {
        let seen = KINDS.lock().map(|k| k.clone()).unwrap_or_default();
        r.units
            .keys()
            .filter(|k| !seen.contains(*k))
            .cloned()
            .collect()
    };
    eprintln!("unit types never set up: {unplayed:?}");
    if games >= 30 {
        assert!(unplayed.is_empty(), "unit types never set up: {unplayed:?}");
    }
    let air = AIR_ATTACKS.load(Relaxed);
    eprintln!("Blitzkrieg: {air} Recon cards played as Air Power");
    let missions = MISSIONS.load(Relaxed);
    eprintln!("trains as mission objectives: {missions} reached or destroyed");
    eprintln!(
        "bridges: {} charges placed, {} detonations, {} bombardments, {} bridges destroyed, {} Pontoon Bridges built",
        bridges[0], bridges[1], bridges[2], bridges[3], bridges[4]
    );
    if games >= 30 {
        assert!(
            missions > 0,
            "no train reached its objective or was destroyed as one"
        );
        assert!(air > 0, "no Recon card was played as Air Power");
        assert!(
            bridges.iter().all(|n| *n > 0),
            "the random games never placed charges, detonated, bombarded or destroyed a bridge, or built a Pontoon Bridge: {bridges:?}"
        );
        assert!(
            u > 0 && t > 0 && l > 0 && rep > 0 && cyber > 0,
            "the random games never unloaded a train, hit one, landed reinforcements, replaced a unit (1984) or reinforced Cybermen"
        );
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
    // Both sides' views every turn at the deep depth; at the quick one each
    // side's in turn (the views and their SVG were a fifth of these games).
    let deep = crate::common::depth::deep();
    for (i, side) in next.sides.clone().into_iter().enumerate() {
        if !deep && i as u32 != t % 2 {
            continue;
        }
        let viewer = Viewer::Side(side.clone());
        let v = memoir44::view::view_with_events(r, next, &viewer, events);
        let leaks = memoir44::mines::leaks(next, &v, &side);
        assert!(leaks.is_empty(), "{scenario} turn {t}: {leaks:?}");
        let svg = memoir44::report::svg::board(&v);
        // The view's JSON once a side (it was once a hidden minefield).
        let json = serde_json::to_string(&v).unwrap();
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
    // The Oasis's recovery of figures, and Battle Star Markers on the
    // objectives among the tiles: Sabotage on the depots, factories, radar
    // stations and power plants, Sabotaging A Dam on the dams (a random
    // side's).
    st.variants.push("oasis-recovery".into());
    let placed: Vec<(memoir44::Hex, String)> = st
        .terrain
        .iter()
        .filter_map(|(h, fs)| fs.first().map(|f| (*h, f.clone())))
        .collect();
    for (at, tile) in placed {
        let kind = match tile.as_str() {
            "supply-depot" | "factory" | "radar-station" | "power-plant" => {
                memoir44::stars::SABOTAGE
            }
            "dam" => memoir44::stars::DAM,
            _ => continue,
        };
        st.stars.push(memoir44::stars::Star {
            kind: kind.into(),
            side: Some(d.roll(2) as usize - 1),
            at,
            unit: None,
            count: 0,
        });
    }
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
    // (A train runs on the tracks: check_trains.)
    for u in st.units.iter().filter(|u| u.train.is_none()) {
        let spec = r.unit(&u.kind).expect("unit kind");
        let info = memoir44::state::HexInfo::of(r, st, u.at);
        // Collapsible Assault Boats: a unit with them may be on a river.
        let afloat = memoir44::stars::has_boats(st, u.id) && info.any(|t| t.assault_boats);
        if !info.passable(spec) && !afloat {
            assert!(
                set_up.contains(&(u.id, u.at)),
                "{scenario} turn {t}: a {} moved or retreated onto {} ({:?})",
                u.kind,
                u.at,
                st.features(u.at)
            );
        }
    }
    // Mountains: every step of a move or retreat onto or off a mountain is
    // infantry's, from or to a hill or mountain.
    let ctx = memoir44::battle::Ctx::new(r);
    for e in events {
        let (Event::Move { unit, path, .. } | Event::Retreat { unit, path, .. }) = e else {
            continue;
        };
        let Some(spec) = r.units.get(unit) else {
            continue;
        };
        // (A train runs on its tracks: check_trains.)
        if spec.variant.terrain_free || spec.class == "train" {
            continue;
        }
        for w in path.windows(2) {
            if let Some(why) =
                memoir44::tiles::mountain_step(&ctx, st, spec.movement_class(), w[0], w[1])
            {
                panic!("{scenario} turn {t}: a {unit} went {why}");
            }
            MOUNTAIN_STEPS.fetch_add(
                u64::from(memoir44::tiles::is_mountain(&ctx, st, w[1])),
                Relaxed,
            );
        }
    }
    for e in events {
        if let Event::TileDestroyed { at, tile, becomes } = e {
            // "EX-TER-MIN-ATE!": an exterminated town (check_daleks).
            if st
                .exterminate
                .as_ref()
                .is_some_and(|x| x.ruins.contains(at))
            {
                continue;
            }
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
            count: 0,
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
            count: 0,
        });
    }
    // Collapsible Assault Boats on one infantry unit of a side (rivers
    // become crossable for it), and a Forward Spotting hex of a side.
    let side = rng.roll(2) as usize - 1;
    let infantry: Vec<(u32, memoir44::Hex)> = st
        .units
        .iter()
        .filter(|u| u.side == side && u.kind == "infantry")
        .map(|u| (u.id, u.at))
        .collect();
    if !infantry.is_empty() {
        let (id, at) = infantry[rng.roll(infantry.len() as u32) as usize - 1];
        st.stars.push(Star {
            kind: memoir44::stars::BOATS.into(),
            side: Some(side),
            at,
            unit: Some(id),
            count: 0,
        });
    }
    let at = hexes[rng.roll(hexes.len() as u32) as usize - 1];
    st.stars.push(Star {
        kind: memoir44::stars::SPOTTING.into(),
        side: Some(rng.roll(2) as usize - 1),
        at,
        unit: None,
        count: 0,
    });
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
            "heroic-leader" | "human-factor" => {
                assert_eq!(Some(u.side), s.side, "{scenario} turn {t}: {s:?}");
            }
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

/// In every third game the units of one side (all of them, or one class)
/// are demoralised by 1 or 2; in another third one side has the Political
/// Commissar marker.
fn add_random_morale(r: &Ruleset, st: &mut State, seed: Seed) {
    let mut rng = ChaChaDice::from_seed(adjutant::engine::dice::derive("test/morale", &[&seed]));
    match rng.roll(3) {
        1 => {
            let side = rng.roll(2) as usize - 1;
            let sel = ["all", "infantry", "armour", "artillery"][rng.roll(4) as usize - 1];
            let sel = (sel != "all").then_some(sel);
            let factor = rng.roll(2);
            memoir44::disorder::apply(r, st, side, sel, None, factor).expect("demoralise");
        }
        2 => {
            let side = rng.roll(2) as usize - 1;
            memoir44::commissar::set(r, st, Some(side)).expect("commissar");
        }
        _ => {
            // Motorised Infantry Support Weapons: the scenario names them.
            let ids: Vec<u32> = st
                .units
                .iter()
                .filter(|u| r.units[&u.kind].support.weapon)
                .map(|u| u.id)
                .collect();
            st.motorised = ids;
        }
    }
}

/// Demoralisation and Political Commissar invariants after a turn.
fn check_morale(r: &Ruleset, scenario: &str, t: u32, st: &State, next: &State, events: &[Event]) {
    use adjutant::rules::Viewer;
    // Every battle of a demoralised unit that did not move this turn loses
    // its dice; no other battle does.
    let moved: BTreeSet<memoir44::Hex> = events
        .iter()
        .filter_map(|e| match e {
            Event::Move { path, .. } => path.first().copied(),
            _ => None,
        })
        .collect();
    for e in events {
        let Event::Battle {
            side: by,
            attacker,
            from: Some(from),
            target,
            modifiers,
            ..
        } = e
        else {
            continue;
        };
        let marked = modifiers
            .iter()
            .any(|m| m.reason == "demoralised" || m.reason == "near collapse");
        if moved.contains(from) {
            continue;
        }
        // Fire at a bridge rolls fewer dice without a modifier to show.
        let recorded = r.units.contains_key(target) || target == "wire";
        // (The hex may have held a train's wagon that moved on: the unit
        // that stood there is the attacker only if it is of its kind.)
        if let Some(u) = st
            .unit_at(*from)
            .filter(|u| st.sides[u.side] == *by && u.kind == *attacker && recorded)
        {
            let d = memoir44::disorder::affected(st, u.id);
            assert_eq!(
                d, marked,
                "{scenario} turn {t}: the battle from {from} (demoralised {d}): {e:?}"
            );
        }
    }
    // A motorised support weapon that moved does not battle (a unit of
    // another kind may battle from the hex it died on, say overrunning).
    for e in events {
        let Event::Move {
            side, unit, path, ..
        } = e
        else {
            continue;
        };
        let (Some(first), Some(last)) = (path.first(), path.last()) else {
            continue;
        };
        // The hex a move starts from may have held another unit when the
        // turn began (armour taking ground where it eliminated one).
        let Some(u) = st
            .unit_at(*first)
            .filter(|u| u.kind == *unit && st.sides[u.side] == *side)
        else {
            continue;
        };
        if path.len() < 2 || !memoir44::support::motorised(r, st, u) {
            continue;
        }
        let mud = st.weather.is_some();
        let battled = events
            .iter()
            .any(|b| matches!(b, Event::Battle { from: Some(f), how, attacker, .. } if f == last && how != "ambush" && *attacker == u.kind));
        assert!(
            mud || !battled,
            "{scenario} turn {t}: the motorised {} moved to {last} and battled",
            u.kind
        );
    }
    for d in &next.disorder {
        if let Some(u) = next.unit(d.unit) {
            let full = r.units[&u.kind].figures;
            assert!(
                u.start + d.removed <= full,
                "{scenario} turn {t}: a demoralised unit started above strength"
            );
        }
    }
    let Some(c) = &next.commissar else { return };
    let rus = c.side;
    let side = st.to_move;
    if side == rus && !next.over {
        // Empty only when no card but an Ambush was left to put under it
        // (the hand before the turn held at most the card played besides).
        let others = st.hands[rus].iter().filter(|x| *x != "ambush").count();
        assert!(
            c.card.is_some() || others <= 1,
            "{scenario} turn {t}: the Commissar marker is empty after the Russian turn"
        );
        let before = st.commissar.as_ref().and_then(|m| m.card.clone());
        if let Some(b) = before {
            let played = events.iter().any(|e| {
                matches!(e, Event::CardPlayed { card, .. } | Event::CardDiscarded { card, .. } if *card == b)
            });
            assert!(
                played || c.card.as_deref() == Some(b.as_str()),
                "{scenario} turn {t}: the card under the marker ({b}) vanished"
            );
        }
    }
    let Some(card) = &c.card else { return };
    for (i, s) in next.sides.iter().enumerate() {
        let v = memoir44::view::view_with_events(r, next, &Viewer::Side(s.clone()), events);
        let shown = v.sides[rus].commissar.clone();
        if i == rus {
            assert_eq!(
                shown.as_ref(),
                Some(card),
                "{scenario} turn {t}: own marker"
            );
        } else {
            assert_eq!(
                shown.as_deref(),
                Some(memoir44::view::HIDDEN),
                "{scenario} turn {t}: the card under the Commissar marker shown to {s}"
            );
            // The position's status lines (what the report's text map
            // ends with), from the same view: the whole text map costs a
            // tenth of the random games' time.
            let text = memoir44::report::textmap::status(&v);
            assert!(
                text.contains("Commissar marker holds a card, face down"),
                "{scenario} turn {t}: {s} not told of the face-down card"
            );
        }
    }
}

/// In every third game: a railway line along a random long row (a station
/// in it), a Supply Train of the first side carrying infantry and armour and
/// an Armoured Train of the second, on free hexes of the line.
fn add_random_trains(r: &Ruleset, st: &mut State, seed: Seed) {
    use memoir44::trains::Train;
    let mut d = ChaChaDice::from_seed(adjutant::engine::dice::derive("test/trains", &[&seed]));
    if d.roll(3) != 1 {
        return;
    }
    let board = memoir44::State::board(r);
    let row = 2 * (d.roll(3) as i32);
    let line: Vec<memoir44::Hex> = (0..board.columns)
        .map(|l| memoir44::Hex::from_letter(l, row))
        .collect();
    let station = line[(d.roll(5) + 3) as usize];
    for h in &line {
        if st.unit_at(*h).is_some() {
            continue;
        }
        let f = if *h == station { "station" } else { "railway" };
        st.terrain.insert(*h, vec![f.to_string()]);
    }
    for (side, kind) in [(0usize, "supply-train"), (1, "armoured-train")] {
        let free: Vec<usize> = (1..line.len())
            .filter(|i| {
                let (a, b) = (line[i - 1], line[*i]);
                st.unit_at(a).is_none() && st.unit_at(b).is_none() && a != station && b != station
            })
            .collect();
        let Some(&i) = free.get((d.roll(free.len().max(1) as u32) - 1) as usize) else {
            continue;
        };
        // The first side's train faces east, the second's west.
        let (engine, wagon) = if side == 0 {
            (line[i], line[i - 1])
        } else {
            (line[i - 1], line[i])
        };
        // "Trains may also be mission objectives": half the time the Supply
        // Train must reach the station (a medal), the Armoured Train is
        // worth two medals to the side that destroys it.
        let mission = (d.roll(2) == 1).then(|| memoir44::trains::Mission {
            reach: (side == 0).then_some(station),
            medals: if side == 0 { 1 } else { 2 },
            done: false,
        });
        let spec = r.unit(kind).expect("train kind");
        let id = st.next_unit;
        st.next_unit += 1;
        st.units.push(memoir44::state::Unit {
            train: Some(Train {
                rear: wagon,
                wagon: true,
                gun: side == 1,
                cargo: if side == 0 {
                    vec!["infantry".into(), "medium-armour".into()]
                } else {
                    vec![]
                },
                landed: vec![],
                stopped: None,
                mission,
            }),
            ..memoir44::state::Unit::arriving(id, side, kind, engine, spec.figures)
        });
    }
}

/// In every third game: Bridge Demolition and Pontoon Bridges. Each bridge
/// with no unit on it is rigged for detonation by a random side half the
/// time, both sides may build Pontoon Bridges, each side has Combat
/// Engineers, and one artillery unit of each side is Heavy Artillery.
fn add_random_bridges(r: &Ruleset, st: &mut State, seed: Seed) {
    let mut d = ChaChaDice::from_seed(adjutant::engine::dice::derive("test/bridges", &[&seed]));
    if d.roll(3) != 1 {
        return;
    }
    st.pontoon_sides = vec![0, 1];
    let bridges: Vec<memoir44::Hex> = st
        .terrain
        .keys()
        .copied()
        .filter(|h| memoir44::bridges::is_bridge(st, *h))
        .collect();
    for h in bridges {
        if st.unit_at(h).is_none() && d.roll(2) == 1 {
            st.charges.push(memoir44::bridges::Charge {
                at: h,
                side: d.roll(2) as usize - 1,
                battled: false,
            });
        }
    }
    for side in 0..2 {
        for (from, to) in [("infantry", "engineers"), ("artillery", "heavy-artillery")] {
            if st.units.iter().any(|u| u.side == side && u.kind == to) {
                continue;
            }
            let ids: Vec<u32> = st
                .units
                .iter()
                .filter(|u| u.side == side && u.kind == from)
                .map(|u| u.id)
                .collect();
            if ids.is_empty() {
                continue;
            }
            let id = ids[d.roll(ids.len() as u32) as usize - 1];
            let spec = r.unit(to).expect("unit kind");
            if let Some(u) = st.units.iter_mut().find(|u| u.id == id) {
                // Demoralisation may have set the unit up below strength.
                u.kind = to.into();
                u.start = u.start.min(spec.figures);
                u.figures = u.figures.min(spec.figures);
            }
        }
    }
}

/// In every third game: about a quarter of each side's units become another
/// unit type of the same class (the ruleset's special units: Big Guns, 88s,
/// snipers, cavalry, very heavy armour ...), so that every type of the main
/// game is set up in some games. Support weapons, engineers, trains and the
/// variants' units have their own additions.
fn add_random_special_units(r: &Ruleset, st: &mut State, seed: Seed) {
    let mut d = ChaChaDice::from_seed(adjutant::engine::dice::derive("test/special", &[&seed]));
    if d.roll(3) != 1 {
        return;
    }
    let kinds: Vec<(&String, &memoir44::ruleset::UnitSpec)> = r
        .units
        .iter()
        .filter(|(k, u)| {
            !u.support.weapon
                && !u.engineer
                && !u.one_per_side
                && !r.trains.kinds.contains(k)
                && u.variant == Default::default()
        })
        .collect();
    for u in &mut st.units {
        if d.roll(4) != 1 || !kinds.iter().any(|(k, _)| **k == u.kind) {
            continue;
        }
        let class = &r.units[&u.kind].class;
        let same: Vec<&(&String, &memoir44::ruleset::UnitSpec)> =
            kinds.iter().filter(|(_, s)| s.class == *class).collect();
        let (k, spec) = same[(d.roll(same.len() as u32) - 1) as usize];
        u.kind = (*k).clone();
        u.start = spec.figures;
        u.figures = u.figures.min(spec.figures);
    }
}

/// In every fourth game: the Blitzkrieg Rules (Optional) for a random side.
fn add_random_blitzkrieg(r: &Ruleset, st: &mut State, seed: Seed) {
    let mut d = ChaChaDice::from_seed(adjutant::engine::dice::derive("test/blitz", &[&seed]));
    if d.roll(4) != 1 {
        return;
    }
    let side = d.roll(2) as usize - 1;
    memoir44::blitzkrieg::set(r, st, Some(side)).expect("the ruleset plays Blitzkrieg");
}

/// Blitzkrieg Rules after a turn: "an ordered enemy Armour Unit may only
/// Move upto 2 Hexes"; a Recon card is played as Air Power only by the
/// Blitzkrieg side ("The player may play a "Recon 1" card as an Air Power
/// Tactic Card") or a side calling in air strikes from its Battle Star hex.
fn check_blitzkrieg(r: &Ruleset, scenario: &str, t: u32, st: &State, events: &[Event]) {
    let ctx = memoir44::battle::Ctx::new(r);
    for e in events {
        match e {
            Event::CardPlayed {
                side,
                card,
                as_card,
                ..
            } => {
                let recon = r.card(card).is_some_and(|c| c.recon);
                if recon && as_card.as_deref() == Some("air-power") {
                    AIR_ATTACKS.fetch_add(1, Relaxed);
                    let i = st.side_index(side).expect("side");
                    assert!(
                        st.blitzkrieg == Some(i) || memoir44::stars::air_strikes(st, i),
                        "{scenario} turn {t}: {side} played {card} as Air Power"
                    );
                }
            }
            Event::Move { side, unit, path } => {
                let i = st.side_index(side).expect("side");
                let armour = ctx.spec(unit).class == "armour";
                if st.blitzkrieg.is_some_and(|b| b != i) && armour {
                    assert!(
                        path.len() <= 3,
                        "{scenario} turn {t}: {side}'s {unit} moved {path:?} against the Blitzkrieg"
                    );
                }
            }
            _ => {}
        }
    }
}

/// Bridge Demolition and Pontoon Bridges after a turn: a destroyed bridge
/// leaves the river it spanned (no bridge, charge or damage on the hex); a
/// Pontoon Bridge stands on a river hex next to the engineers of the side
/// that built it; charges lie on bridges with no enemy on them; damage on
/// a standing bridge is below the hits that destroy it.
fn check_bridges(r: &Ruleset, scenario: &str, t: u32, st: &State, next: &State, events: &[Event]) {
    use memoir44::bridges::{is_bridge, PONTOON};
    let ctx = memoir44::battle::Ctx::new(r);
    let water = |h: memoir44::Hex| {
        next.features(h).iter().any(|f| {
            r.bridge_demolition.pontoon_rivers.contains(f)
                || r.terrain.get(f).is_some_and(|t| t.impassable || t.sea)
        })
    };
    // A bridge before the turn, or a Pontoon Bridge built during it.
    let was_bridge = |h: memoir44::Hex| {
        is_bridge(st, h)
            || events
                .iter()
                .any(|e| matches!(e, Event::PontoonBuilt { at, .. } if *at == h))
    };
    for e in events {
        match e {
            Event::BridgeCharged { side, from, at } => {
                CHARGES_PLACED.fetch_add(1, Relaxed);
                let u = st.unit_at(*from).expect("the engineers");
                assert!(
                    ctx.spec(&u.kind).engineer && from.adjacent(*at) && was_bridge(*at),
                    "{scenario} turn {t}: {side}'s charges at {at} from {from} ({})",
                    u.kind
                );
            }
            Event::BridgeDetonation { .. } => {
                DETONATIONS.fetch_add(1, Relaxed);
            }
            Event::BridgeBombarded { .. } => {
                BOMBARDMENTS.fetch_add(1, Relaxed);
            }
            Event::BridgeDestroyed { at, .. } => {
                BRIDGES_BLOWN.fetch_add(1, Relaxed);
                assert!(
                    was_bridge(*at) && !is_bridge(next, *at),
                    "{scenario} turn {t}: the bridge at {at} was not destroyed"
                );
                assert!(
                    next.charges.iter().all(|c| c.at != *at)
                        && next.bridge_damage.iter().all(|d| d.at != *at),
                    "{scenario} turn {t}: charges or damage left on the blown bridge at {at}"
                );
                if st.features(*at).iter().any(|f| f == "river") {
                    assert!(
                        water(*at),
                        "{scenario} turn {t}: the blown bridge at {at} left no river: {:?}",
                        next.features(*at)
                    );
                }
            }
            Event::PontoonBuilt { side, from, at } => {
                PONTOONS.fetch_add(1, Relaxed);
                let si = next.side_index(side).expect("side");
                let u = st.unit_at(*from).expect("the engineers");
                assert!(
                    u.side == si
                        && ctx.spec(&u.kind).engineer
                        && from.adjacent(*at)
                        && next.pontoon_sides.contains(&si),
                    "{scenario} turn {t}: {side}'s Pontoon Bridge at {at} from {from}"
                );
                assert!(
                    next.features(*at).iter().any(|f| f == PONTOON) && water(*at),
                    "{scenario} turn {t}: the Pontoon Bridge at {at} is not on a river: {:?}",
                    next.features(*at)
                );
            }
            _ => {}
        }
    }
    for c in &next.charges {
        assert!(
            is_bridge(next, c.at),
            "{scenario} turn {t}: charges on {} where no bridge stands",
            c.at
        );
        assert!(
            next.unit_at(c.at).is_none_or(|u| u.side == c.side),
            "{scenario} turn {t}: charges on {} under an enemy unit",
            c.at
        );
    }
    for d in &next.bridge_damage {
        assert!(
            is_bridge(next, d.at) && d.hits < r.bridge_demolition.hits_to_destroy,
            "{scenario} turn {t}: damage {d:?} on a bridge that should have fallen"
        );
    }
}

/// Trains' invariants after a turn.
fn check_trains(r: &Ruleset, scenario: &str, t: u32, st: &State) {
    let ctx = memoir44::battle::Ctx::new(r);
    let on_track = |h: memoir44::Hex| memoir44::trains::on_track(&ctx, st, h);
    for u in &st.units {
        let Some(tr) = &u.train else { continue };
        assert!(
            on_track(u.at),
            "{scenario} turn {t}: a train's engine off the track at {} (terrain {:?}; variants: daleks {}, worlds {}, 1984 {}, zombies {})",
            u.at,
            st.terrain.get(&u.at),
            st.exterminate.is_some(),
            st.worlds.is_some(),
            st.nineteen84.is_some(),
            st.zombies.is_some()
        );
        // (Medics & Mechanics may return hits; a lost wagon stays lost.)
        let hits = u.start - u.figures;
        assert!(
            !tr.wagon || hits < r.trains.wagon_lost_at,
            "{scenario} turn {t}: train at {} with {hits} hits still has its wagon",
            u.at
        );
        if tr.wagon {
            assert!(
                tr.rear.adjacent(u.at) && on_track(tr.rear),
                "{scenario} turn {t}: the wagon at {} is not on the track next to its engine at {}",
                tr.rear,
                u.at
            );
            assert!(
                !st.units.iter().any(|o| o.at == tr.rear),
                "{scenario} turn {t}: a unit stands on the wagon at {}",
                tr.rear
            );
        } else {
            assert!(
                !tr.gun && tr.cargo.is_empty(),
                "{scenario} turn {t}: a train without its wagon keeps its gun or load"
            );
        }
    }
}

/// Supply Lines & Sieges in every third game (offset from the Battle Star
/// markers'): both sides trace lines; one unit of each side is exempt; side
/// 0 may have a Drop-Zone on an open hex with two units airborne.
fn add_random_supply(r: &Ruleset, st: &mut State, seed: Seed) {
    use memoir44::supply::Supply;
    let mut rng = ChaChaDice::from_seed(adjutant::engine::dice::derive("test/supply", &[&seed]));
    if rng.roll(3) != 2 || st.units.is_empty() {
        return;
    }
    let mut s = Supply {
        sides: vec![0, 1],
        begun: vec![0, 0],
        ..Supply::default()
    };
    for side in 0..2 {
        let own: Vec<u32> = st
            .units
            .iter()
            .filter(|u| u.side == side)
            .map(|u| u.id)
            .collect();
        if !own.is_empty() {
            s.exempt.push(own[rng.roll(own.len() as u32) as usize - 1]);
        }
    }
    s.exempt.sort_unstable();
    if rng.roll(2) == 1 {
        let board = State::board(r);
        let open: Vec<memoir44::Hex> = board
            .hexes()
            .into_iter()
            .filter(|h| st.features(*h).is_empty() && st.unit_at(*h).is_none())
            .collect();
        let own: Vec<u32> = st
            .units
            .iter()
            .filter(|u| u.side == 0)
            .map(|u| u.id)
            .collect();
        if !open.is_empty() && own.len() >= 2 {
            let at = open[rng.roll(open.len() as u32) as usize - 1];
            st.stars.push(memoir44::stars::Star {
                kind: memoir44::supply::DROP_ZONE.into(),
                side: Some(0),
                at,
                unit: None,
                count: 0,
            });
            s.airborne = vec![own[0], own[own.len() - 1]];
        }
    }
    st.supply = Some(s);
}

/// Supply Lines & Sieges' invariants after a turn.
fn check_supply(r: &Ruleset, scenario: &str, t: u32, st: &State, next: &State, events: &[Event]) {
    if next.supply.is_none() {
        assert!(st.supply.is_none(), "{scenario} turn {t}: supply vanished");
        return;
    }
    let ctx = memoir44::battle::Ctx::new(r);
    let count = |x: &State, id: u32| memoir44::supply::turns_out(x, id);
    if !next.over {
        let side = next.to_move;
        let cut = memoir44::supply::cut_off(&ctx, next, side);
        for u in next.units.iter().filter(|u| u.side == side) {
            let n = count(next, u.id);
            assert_eq!(
                n > 0,
                cut.contains(&u.id),
                "{scenario} turn {t}: {} at {} counted {n} turns out of supply",
                u.kind,
                u.at
            );
            assert!(
                n == 0 || n == count(st, u.id) + 1,
                "{scenario} turn {t}: the count of {} went {} -> {n}",
                u.at,
                count(st, u.id)
            );
        }
    }
    // The side that moved keeps its counts until its next turn begins.
    if !next.over {
        for u in next.units.iter().filter(|u| u.side != next.to_move) {
            if st.unit(u.id).is_some() {
                assert_eq!(count(next, u.id), count(st, u.id), "{scenario} turn {t}");
            }
        }
    }
    for e in events {
        if let Event::SupplyRoll { at, faces, .. } = e {
            assert_eq!(faces.len(), 1, "{scenario} turn {t}: {e:?}");
            let u = next.unit_at(*at);
            assert!(
                u.is_none_or(|u| count(next, u.id) >= r.supply.loss_from),
                "{scenario} turn {t}: a loss die for a unit not out of supply 3 turns: {e:?}"
            );
        }
    }
    // No side's mail names the enemy's units out of supply.
    for (i, side) in next.sides.iter().enumerate() {
        let viewer = adjutant::rules::Viewer::Side(side.clone());
        let v = memoir44::view::view_with_events(r, next, &viewer, events);
        let other = &next.side_names[1 - i];
        if let Some(line) = &v.supply {
            assert!(
                !line.contains(other.as_str()),
                "{scenario} turn {t}: {line}"
            );
        }
    }
}

/// Every fifth game is a Flooded Field scenario.
fn add_random_flooding(r: &Ruleset, st: &mut State, seed: Seed) {
    let mut d = ChaChaDice::from_seed(adjutant::engine::dice::derive("test/flood", &[&seed]));
    if d.roll(5) == 1 {
        memoir44::landmarks::flood(r, st);
    }
}

/// In every third game two airfields and 3 reinforcements a side.
fn add_random_airfields(st: &mut State, seed: Seed) {
    use memoir44::landmarks::Reinforcement;
    let mut d = ChaChaDice::from_seed(adjutant::engine::dice::derive("test/airfield", &[&seed]));
    if d.roll(3) != 1 {
        return;
    }
    let empty: Vec<memoir44::Hex> = st
        .terrain
        .keys()
        .copied()
        .chain((0..9).map(|r| memoir44::Hex::from_letter(4, r)))
        .filter(|h| st.unit_at(*h).is_none() && st.features(*h).is_empty())
        .collect();
    for _ in 0..2 {
        if let Some(h) = empty.get((d.roll(empty.len().max(1) as u32) - 1) as usize) {
            st.terrain.insert(*h, vec!["airfield".into()]);
        }
    }
    for side in 0..2 {
        st.reinforcements.push(Reinforcement {
            side,
            kind: "infantry".into(),
            left: 3,
        });
    }
}
