//! Property test for the grid family (Memoir of Battle, Memoir of Modern
//! Battle): random games of legal orders on both rulesets and both grid
//! kinds. Every phase goes through the rules interface the service uses
//! (`Rules::phase`, `Rules::adjudicate`, JSON at the boundary). After every
//! phase: nothing panicked; every die in the events replays from the phase's
//! dice seed; units stand on the board, at most one unit and one general an
//! area; strength within 1..=start (0 only for a soft-skin); units only ever
//! lose strength; each side's count of destroyed units equals the enemy
//! units whose strength reached 0; and replaying the stored submissions from
//! set-up gives the same state, byte for byte.
//!
//! Depth (`common::depth`): 12 games per ruleset and grid kind by default,
//! 60 (the count before the two depths) with `ADJUTANT_DEEP=1`; `GRID_GAMES` sets the number exactly.

use adjutant::engine::dice::{deck_seed, derive, turn_seed, ChaChaDice, Seed};
use adjutant::rules::memoir_grid::{self, board::GridKind, State as GridState};
use adjutant::rules::Load;
use adjutant::rules::{Chance, Orders, Rules, Scenario, State};
use std::collections::BTreeMap;

const MAX_PHASES: u32 = 600;

/// Transport actions carried out in all games (so the test shows they ran).
static TRANSPORT: std::sync::Mutex<u32> = std::sync::Mutex::new(0);

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
            include_str!("../../scenarios/memoir-of-battle/le-cateau-1914.toml"),
        ),
        _ => (
            "villers-bocage-1944",
            include_str!("../../scenarios/memoir-of-modern-battle/villers-bocage-1944.toml"),
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

struct Game {
    rules: Rules,
    scenario: Scenario,
    seed: Seed,
    final_json: String,
    submissions: Vec<Vec<Orders>>,
    phases: u32,
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

fn play(ruleset: &str, kind: GridKind, n: u64) -> Game {
    let rules = Rules::load(ruleset).expect("ruleset");
    let scenario = scenario(ruleset, kind);
    let seed = seed_of(n, kind as u8);
    let mut deck = ChaChaDice::from_seed(deck_seed(&seed));
    let mut rng = ChaChaDice::from_seed(derive("test/grid-orders", &[&seed]));
    let mut st = rules.setup(&scenario, &mut deck).expect("setup");
    let start = grid(&st).clone();
    let mut zeroed = vec![0u32; start.sides.len()];
    let mut submissions = Vec::new();
    let mut phases = 0;
    for t in 1..=MAX_PHASES {
        if rules.result(&st).is_some() {
            break;
        }
        let g = grid(&st).clone();
        let phase = rules.phase(&st);
        let r = memoir_grid::Ruleset::builtin(ruleset).expect("ruleset");
        let orders = memoir_grid::random::random_phase(&r, &g, &mut rng);
        let needed: Vec<&str> = orders.iter().map(|o| o.side.as_str()).collect();
        assert_eq!(
            needed,
            phase.sides.iter().map(String::as_str).collect::<Vec<_>>(),
            "phase() and the engine agree on who must send"
        );
        // Each side's orders pass the check the service runs on receipt.
        for o in &orders {
            rules.check(&st, &o.side, &o.text).unwrap_or_else(|e| {
                panic!(
                    "{ruleset} {kind:?} game {n} phase {t}: refused {e:?}\n{}",
                    o.text
                )
            });
        }
        let mut dice = ChaChaDice::stream(&turn_seed(&seed, t), "battle");
        let mut chance = Chance {
            dice: &mut dice,
            deck: &mut deck,
        };
        let adj = rules
            .adjudicate(&st, &orders, &mut chance)
            .unwrap_or_else(|e| panic!("{ruleset} {kind:?} game {n} phase {t}: {e:?}\n{orders:?}"));
        let events: Vec<serde_json::Value> = adj.events.iter().map(|e| e.to_store()).collect();
        if let Some(d) = adjutant::service::export::check_dice(
            &rules.die_faces(),
            &turn_seed(&seed, t),
            t,
            &events,
        ) {
            panic!("{ruleset} {kind:?} game {n} phase {t}: {d}");
        }
        for e in &events {
            if matches!(
                e["kind"].as_str(),
                Some("load" | "unload" | "limber" | "unlimber")
            ) {
                *TRANSPORT.lock().unwrap() += 1;
            }
            if e["kind"] == "loss" && e["strength"] == 0 {
                let victim = e["side"].as_str().unwrap_or_default();
                for (i, s) in g.sides.iter().enumerate() {
                    if s != victim {
                        zeroed[i] += 1;
                    }
                }
            }
        }
        let next = adj.state;
        let ctx = format!("{ruleset} {kind:?} game {n} phase {t}");
        invariants(&rules, &g, grid(&next), &ctx);
        assert_eq!(
            grid(&next).destroyed,
            zeroed,
            "{ctx}: destroyed counts and units brought to 0"
        );
        // JSON at the store boundary: the state survives the round trip.
        let json = rules.to_json(&next);
        let back = rules.restore(&json).expect("restore");
        assert_eq!(rules.to_json(&back), json, "{ctx}: JSON round trip");
        submissions.push(orders);
        st = back;
        phases = t;
    }
    Game {
        final_json: rules.to_json(&st),
        rules,
        scenario,
        seed,
        submissions,
        phases,
    }
}

fn replay(g: &Game) -> String {
    let mut deck = ChaChaDice::from_seed(deck_seed(&g.seed));
    let mut st = g.rules.setup(&g.scenario, &mut deck).expect("setup");
    for (i, orders) in g.submissions.iter().enumerate() {
        let t = i as u32 + 1;
        let mut dice = ChaChaDice::stream(&turn_seed(&g.seed, t), "battle");
        let mut chance = Chance {
            dice: &mut dice,
            deck: &mut deck,
        };
        st = g
            .rules
            .adjudicate(&st, orders, &mut chance)
            .expect("replay")
            .state;
    }
    g.rules.to_json(&st)
}

fn games() -> u64 {
    crate::common::depth::games("GRID_GAMES", 12, 60)
}

fn run(ruleset: &str, kind: GridKind) {
    let mut over = 0;
    let mut total_phases = 0;
    for n in 0..games() {
        let g = play(ruleset, kind, n);
        assert_eq!(
            replay(&g),
            g.final_json,
            "{ruleset} {kind:?} game {n}: replay differs"
        );
        if g.rules
            .result(&g.rules.restore(&g.final_json).unwrap())
            .is_some()
        {
            over += 1;
        }
        total_phases += g.phases;
    }
    // The random games reach the end (the turn limit or victory), so the
    // late game is exercised, not only the opening.
    assert!(
        over * 10 >= games() * 9,
        "{ruleset} {kind:?}: only {over} of {} games ended",
        games()
    );
    eprintln!(
        "{ruleset} {kind:?}: {} games, {total_phases} phases, {over} ended",
        games()
    );
}

#[test]
fn memoir_of_battle_on_squares() {
    run("memoir-of-battle", GridKind::Square);
}

#[test]
fn memoir_of_battle_on_hexes() {
    run("memoir-of-battle", GridKind::Hex);
}

#[test]
fn memoir_of_modern_battle_on_both_grids() {
    run("memoir-of-modern-battle", GridKind::Hex);
    run("memoir-of-modern-battle", GridKind::Square);
    let n = *TRANSPORT.lock().unwrap();
    eprintln!("transport actions: {n}");
    assert!(n > 0, "no transport ever loaded or unloaded");
}
