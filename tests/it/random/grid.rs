//! The grid family (Memoir of Battle, Memoir of Modern Battle) in the
//! random-game driver (`super`): random games of legal orders on both
//! rulesets and both grid kinds. Every phase goes through the rules
//! interface the service uses (`Rules::phase`, `Rules::check`,
//! `Rules::adjudicate`, each phase from the state's JSON). After every
//! phase: nothing panicked; every die in the events replays from the phase's
//! dice seed (the driver's checks); units stand on the board, at most one unit and one general an
//! area; strength within 1..=start (0 only for a soft-skin); units only ever
//! lose strength; each side's count of destroyed units equals the enemy
//! units whose strength reached 0; and replaying the stored submissions from
//! set-up gives the same state, byte for byte.
//!
//! Depth (`common::depth`): 12 games per ruleset and grid kind by default,
//! 60 (the count before the two depths) with `ADJUTANT_DEEP=1`; `GRID_GAMES` sets the number exactly.

use super::{Hook, Kind, Phase, Streams, Summary, Watch};
use adjutant::engine::dice::{ChaChaDice, Seed};
use adjutant::rules::memoir_grid::{self, board::GridKind, State as GridState};
use adjutant::rules::{FamilyEntry, Load, Orders, Rules, Scenario, State};
use serde_json::Value;
use std::collections::BTreeMap;

const MAX_PHASES: u32 = 600;

fn seed_of(n: u64, salt: u8) -> Seed {
    let mut s = [0u8; 32];
    s[..8].copy_from_slice(&n.to_le_bytes());
    s[8] = 0x61;
    s[9] = salt;
    s
}

/// The shipped scenario of `ruleset`, on the grid kind asked for (areas the
/// other kind does not have are dropped from the terrain and the units).
fn scenario(ruleset: &str, kind: GridKind) -> Scenario {
    let (id, text) = match ruleset {
        "memoir-of-battle" => (
            "le-cateau-1914",
            include_str!("../../../scenarios/memoir-of-battle/le-cateau-1914.toml"),
        ),
        _ => (
            "villers-bocage-1944",
            include_str!("../../../scenarios/memoir-of-modern-battle/villers-bocage-1944.toml"),
        ),
    };
    let want = match kind {
        GridKind::Square => "grid = \"square\"",
        GridKind::Hex => "grid = \"hex\"",
    };
    let mut text = text
        .replace("grid = \"square\"", want)
        .replace("grid = \"hex\"", want);
    if ruleset == "memoir-of-modern-battle" {
        // Empty transports beside guns and infantry, so that random games
        // load, unload, limber and unlimber too (the scenario has one
        // loaded half-track only).
        text.push_str(
            "\n[[units]]\nat = \"F1\"\nside = \"british\"\ntype = \"soft-skin-transport\"\n\
             \n[[units]]\nat = \"F7\"\nside = \"german\"\ntype = \"soft-skin-transport\"\n\
             \n[[units]]\nat = \"B7\"\nside = \"german\"\ntype = \"armoured-transport\"\n",
        );
    }
    let (mut sc, _) = Scenario::from_text(&text, &format!("{id}.toml")).expect("scenario");
    sc.id = format!("{id}-{kind:?}");
    sc
}

fn grid(st: &State) -> &GridState {
    st.get::<GridState>().expect("a grid state")
}

fn strengths(st: &GridState) -> BTreeMap<u32, (usize, u32)> {
    let mut m = BTreeMap::new();
    for u in &st.units {
        m.insert(u.id, (u.side, u.strength));
        if let Some(c) = &u.carrying {
            m.insert(c.id, (c.side, c.strength));
        }
    }
    m
}

fn invariants(rules: &Rules, before: &GridState, after: &GridState, ctx: &str) {
    let mut general = BTreeMap::new();
    let mut other = BTreeMap::new();
    for u in &after.units {
        assert!(
            after.grid.contains(u.at),
            "{ctx}: unit off the board at {}",
            u.at
        );
        let spec = rules.id(); // keep the id in messages
        let count = if u.kind == "general" {
            &mut general
        } else {
            &mut other
        };
        let n = count.entry(u.at).or_insert(0);
        *n += 1;
        assert!(*n <= 1, "{ctx} ({spec}): two units stacked at {}", u.at);
        assert!(
            u.strength <= u.max,
            "{ctx}: strength {} above start {}",
            u.strength,
            u.max
        );
        assert!(
            u.strength >= 1 || u.max == 0,
            "{ctx}: a unit of strength 0 left on the board at {}",
            u.at
        );
        // A general shares its area only with its own side.
        assert!(
            after.units.iter().all(|o| o.at != u.at || o.side == u.side),
            "{ctx}: enemies share {}",
            u.at
        );
        // A wire hold needs wire where the unit stands.
        assert!(
            !u.wire_stuck
                || after
                    .terrain
                    .get(&u.at)
                    .is_some_and(|f| f.iter().any(|x| x == "wire")),
            "{ctx}: unit at {} held by wire that is not there",
            u.at
        );
        // In the river only in a river area without a bridge.
        if u.in_river {
            let f = after.terrain.get(&u.at).cloned().unwrap_or_default();
            assert!(
                f.iter().any(|x| x == "river" || x == "stream") && !f.iter().any(|x| x == "bridge"),
                "{ctx}: unit at {} marked in the river off a ford",
                u.at
            );
        }
        if let Some(c) = &u.carrying {
            assert_eq!(c.side, u.side, "{ctx}: carrying an enemy");
            assert!(c.carrying.is_none(), "{ctx}: a carried unit carries");
        }
    }
    // Strength only ever goes down; units never come back.
    let b = strengths(before);
    let a = strengths(after);
    for (id, (_, s)) in &a {
        let (_, s0) = b
            .get(id)
            .unwrap_or_else(|| panic!("{ctx}: unit {id} appeared"));
        assert!(s <= s0, "{ctx}: unit {id} gained strength {s0} -> {s}");
    }
    for s in 0..after.sides.len() {
        assert!(
            after.destroyed[s] >= before.destroyed[s],
            "{ctx}: destroyed count went down"
        );
    }
}

/// The grid hook of the random-game driver.
#[derive(Default)]
pub struct Grid {
    /// Transport actions carried out in all games (so the test shows they
    /// ran).
    transport: std::sync::atomic::AtomicU64,
}

/// The rulesets and grid kinds played, in the order of the tests before
/// the driver.
const PLAYED: [(&str, GridKind); 4] = [
    ("memoir-of-battle", GridKind::Square),
    ("memoir-of-battle", GridKind::Hex),
    ("memoir-of-modern-battle", GridKind::Hex),
    ("memoir-of-modern-battle", GridKind::Square),
];

impl Hook for Grid {
    /// Each ruleset's shipped scenario on both grid kinds: 12 games at the
    /// quick depth, 60 at the deep one (`GRID_GAMES` sets the count), which
    /// goes on where the quick one ended (`GRID_FROM` sets the first).
    fn kinds(&self, entry: &FamilyEntry) -> Vec<Kind> {
        let games = crate::common::depth::games("GRID_GAMES", 12, 60);
        let first = crate::common::depth::first("GRID_FROM", 12, games);
        PLAYED
            .iter()
            .map(|&(ruleset, kind)| Kind {
                family: entry.name,
                name: format!("{ruleset} {kind:?}"),
                ruleset: ruleset.into(),
                rules: Rules::load(ruleset).expect("ruleset"),
                scenario: scenario(ruleset, kind),
                first,
                games,
                seed: Box::new(move |n| seed_of(n, kind as u8)),
                orders_label: "test/grid-orders",
                max_phases: MAX_PHASES,
                long: (0, 0),
                streams: Streams::Own {
                    dice: "battle",
                    fresh_deck: false,
                },
                check_orders: true,
                through_store: true,
                replay_events: false,
            })
            .collect()
    }

    /// The engine's own random phase (`memoir_grid::random::random_phase`):
    /// it must name the sides `Rules::phase` names.
    fn orders(
        &self,
        kind: &Kind,
        state: &State,
        sides: &[String],
        rng: &mut ChaChaDice,
    ) -> Option<Vec<Orders>> {
        let r = memoir_grid::Ruleset::builtin(&kind.ruleset).expect("ruleset");
        let orders = memoir_grid::random::random_phase(&r, grid(state), rng);
        let needed: Vec<&str> = orders.iter().map(|o| o.side.as_str()).collect();
        assert_eq!(
            needed,
            sides.iter().map(String::as_str).collect::<Vec<_>>(),
            "phase() and the engine agree on who must send"
        );
        Some(orders)
    }

    fn watch(&self, _kind: &Kind, _seed: &Seed, start: &State) -> Box<dyn Watch + '_> {
        Box::new(Game {
            transport: &self.transport,
            zeroed: vec![0; grid(start).sides.len()],
        })
    }

    /// The random games reach the end (the turn limit or victory), so the
    /// late game is exercised, not only the opening.
    fn kind_done(&self, kind: &Kind, s: &Summary) {
        assert!(
            s.finished * 10 >= s.games * 9,
            "{}: only {} of {} games ended",
            kind.name,
            s.finished,
            s.games
        );
    }

    fn at_end(&self, kinds: &[Kind]) {
        let n = self.transport.load(std::sync::atomic::Ordering::Relaxed);
        eprintln!("transport actions: {n}");
        if kinds.iter().any(|k| k.ruleset == "memoir-of-modern-battle") {
            assert!(n > 0, "no transport ever loaded or unloaded");
        }
    }
}

/// One game's invariants.
struct Game<'a> {
    transport: &'a std::sync::atomic::AtomicU64,
    /// Per side, the enemy units its fire brought to strength 0.
    zeroed: Vec<u32>,
}

impl Watch for Game<'_> {
    fn after_phase(&mut self, phase: &Phase, before: &State, after: &State, events: &[Value]) {
        let g = grid(before);
        for e in events {
            if matches!(
                e["kind"].as_str(),
                Some("load" | "unload" | "limber" | "unlimber")
            ) {
                self.transport
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
            if e["kind"] == "loss" && e["strength"] == 0 {
                let victim = e["side"].as_str().unwrap_or_default();
                for (i, s) in g.sides.iter().enumerate() {
                    if s != victim {
                        self.zeroed[i] += 1;
                    }
                }
            }
        }
        let ctx = phase.at();
        invariants(&phase.kind.rules, g, grid(after), &ctx);
        assert_eq!(
            grid(after).destroyed,
            self.zeroed,
            "{ctx}: destroyed counts and units brought to 0"
        );
    }
}
