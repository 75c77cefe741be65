//! Property test: random Kriegspiel games of Memoir '44 (every shipped
//! scenario, `kriegspiel=true`). After every turn, for each side, the report
//! the judge mails it (every part: the view JSON attachment, the SVG and the
//! HTML board, the combat report) holds no enemy unit the side did not see
//! at that time:
//! - the view's enemy units are exactly those `fog::seen_units` gives;
//! - every hex an enemy event names is a hex the side knew (its own units'
//!   hexes and moves, the hexes it battled, enemy units seen when the turn
//!   began or after it);
//! - the SVG draws no unit group and the combat report names no hex of an
//!   enemy unit the side did not know.
//!
//! Before each turn the mover's PREDICT of the same orders (issue 32) names
//! no enemy unit it does not see and no card it has not held.
//!
//! Each side's replay (issue 33, docs/replay.md: the page REPLAY attaches)
//! of running Kriegspiel games played through the service is scanned turn
//! by turn the same way (`no_replay_shows_an_unseen_enemy_unit`: 4 games by
//! default, one per shipped scenario with `ADJUTANT_DEEP=1`; giving the
//! sides the referee's view makes it fail at turn 0).
//!
//! `checker_catches_a_leaked_unit` shows the check fails when a view leaks
//! one unit. Depth (`common::depth`): 8 games by default (one a scenario), 32
//! more with `ADJUTANT_DEEP=1` (a window by `ADJUTANT_DEEP_ROUND`: `.ci/run`
//! plays the quick ones first); `KS_GAMES` sets the end, `KS_FROM` the first.

use crate::common;
use adjutant::engine::dice::{deck_seed, derive, turn_seed, ChaChaDice, Seed};
use adjutant::rules::Load;

use adjutant::rules::memoir44::{self, fog, view, Ruleset, State as M44};
use adjutant::rules::{Chance, Orders, Rules, Scenario, State, Viewer};
use common::fog::{board_leaks, card_leaks, known, leaks, own_cards, Board};
use serde_json::Value;
use std::collections::BTreeSet;

fn seed_of(n: u64) -> Seed {
    let mut s = [0u8; 32];
    s[..8].copy_from_slice(&n.to_le_bytes());
    s[8] = 0x4b;
    s
}

fn play(rules: &Rules, r: &Ruleset, scenario: &str, n: u64) -> u32 {
    let seed = seed_of(n);
    let mut sc = Scenario::shipped(scenario);
    sc.options.insert("kriegspiel".into(), "true".into());
    let mut deck = ChaChaDice::from_seed(deck_seed(&seed));
    let mut rng = ChaChaDice::from_seed(derive("test/ks-orders", &[&seed]));
    let mut st: State = rules.setup(&sc, &mut deck).expect("setup");
    let mut turns = 0;
    let mut mine: [BTreeSet<String>; 2] = Default::default();
    let mut boards: [Board; 2] = Default::default();
    for t in 1..=200 {
        if rules.result(&st).is_some() {
            break;
        }
        let before: M44 = st.get::<M44>().expect("memoir44").clone();
        let Some(side) = rules.phase(&st).sides.first().cloned() else {
            break;
        };
        let orders = memoir44::random_orders(r, &before, &side, &mut rng);
        // PREDICT (issue 32) of the same orders, before they are played.
        let mi = before.side_index(&side).expect("the mover's side");
        own_cards(&before, mi, &[], &mut mine[mi]);
        // The card under its own Political Commissar marker is the side's.
        mine[mi].extend(memoir44::commissar::card(&before, mi));
        // The card the enemy played last is not public: under fog a
        // Counter-Attack cannot be played (issue 50), so no answer names it.
        let mut known_cards = mine[mi].clone();
        if let Ok(answer) = memoir44::predict::predict(r, &before, &side, &orders) {
            // A unit battling without orders fights a "firefight" (a house
            // rule, a die fewer): the word is the rule's, not the card's.
            if answer.contains("Firefight (no orders)") {
                known_cards.insert("firefight".into());
            }
            let problems = predict_leaks(r, &before, mi, &known_cards, &answer);
            assert!(
                problems.is_empty(),
                "{scenario} game {n} turn {t}, {side}'s PREDICT:\n{}\n{orders}\n{answer}\nhand {:?}",
                problems.join("\n"),
                before.hands.get(mi)
            );
        }
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
            .unwrap_or_else(|e| panic!("{scenario} game {n} turn {t}: {e}\n{orders}"));
        let after: M44 = adj.state.get::<M44>().expect("memoir44").clone();
        let stored: Vec<Value> = adj.events.iter().map(|e| e.to_store()).collect();
        for (i, name) in after.sides.iter().enumerate() {
            let viewer = Viewer::Side(name.clone());
            own_cards(&before, i, &[], &mut mine[i]);
            own_cards(&after, i, &stored, &mut mine[i]);
            let parts = rules.report_parts(&adj.state, &adj.events, &viewer, Some(&side));
            let lines = rules
                .describe_events(&adj.state, &adj.events, &viewer)
                .join("\n");
            // The mover's own battles without orders are firefights (a house
            // rule, not the Firefight card); another side is told them as
            // close assault or combat (fog::cards::neutral_how).
            let mut allowed = mine[i].clone();
            if *name == side
                && stored
                    .iter()
                    .any(|e| e["how"] == "firefight" && orders.contains("DISCARD"))
            {
                allowed.insert("firefight".into());
            }
            let cards = card_leaks(
                r,
                &allowed,
                &[
                    &parts.json,
                    &parts.svg,
                    &parts.combat,
                    &parts.board_html,
                    &parts.map,
                    parts.orders.as_deref().unwrap_or(""),
                    &lines,
                ],
            );
            assert!(
                cards.is_empty(),
                "{scenario} game {n} turn {t}, {name}'s mail:\n{}",
                cards.join("\n")
            );
            let v: Value = serde_json::from_str(&parts.json).expect("view json");
            let own = if *name == side { orders.as_str() } else { "" };
            let k = known(r, &before, &after, i, &stored, own);
            let mut problems = leaks(r, &after, i, &k, &v, &parts.svg, &parts.combat);
            problems.extend(board_leaks(
                r,
                &before,
                &after,
                i,
                &k,
                &mut boards[i],
                &v,
                &parts.svg,
                &[parts.combat.as_str(), &parts.map].concat(),
            ));
            assert!(
                problems.is_empty(),
                "{scenario} game {n} turn {t}, {name}'s mail:\n{}",
                problems.join("\n")
            );
            // The HTML board is the SVG inline.
            assert!(parts.board_html.contains(parts.svg.trim()) || parts.svg.is_empty());
        }
        st = adj.state;
        turns = t;
    }
    turns
}

/// What a PREDICT answer to side `mi` must not hold: the hex of an enemy
/// unit the side does not see now (a whole word: "F5", not "F50"), or the
/// name of a card the side has not held.
fn predict_leaks(
    r: &Ruleset,
    before: &M44,
    mi: usize,
    mine: &BTreeSet<String>,
    answer: &str,
) -> Vec<String> {
    let seen: BTreeSet<String> = fog::seen_units(r, before, mi)
        .iter()
        .map(|u| u.at.to_string())
        .collect();
    // The answer's fixed caveat names a card as an example, not as a card
    // the enemy holds.
    let text = answer.replace("reaction card (such as Ambush)", "reaction card");
    let mut out = card_leaks(r, mine, &[&text]);
    for u in before.units.iter().filter(|u| u.side != mi) {
        let h = u.at.to_string();
        if seen.contains(&h) {
            continue;
        }
        let named = answer.match_indices(&h).any(|(i, _)| {
            let before = answer[..i].chars().next_back();
            let after = answer[i + h.len()..].chars().next();
            !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
        });
        if named {
            out.push(format!("names {h}, an enemy unit the side does not see"));
        }
    }
    out
}

/// Quick, one game a scenario (games 0-7; 4.0 s of CPU where two a
/// scenario took 10.7 s, docs/testing.md); deep, 32 more: the window
/// `ADJUTANT_DEEP_ROUND` of them (round 0: games 8-39, round 1: 40-71, ...;
/// games 8-149 in every deep run until the twenty-sixth session).
const QUICK: u64 = 8;

fn games() -> std::ops::Range<u64> {
    crate::common::depth::window("KS_GAMES", "KS_FROM", QUICK, 32)
}

#[test]
fn no_mail_shows_an_unseen_enemy_unit() {
    let rules = Rules::load("memoir44").unwrap();
    let r = Ruleset::builtin().unwrap();
    let scenarios = memoir44::scenario::ids();
    // The deep run goes on past the quick one's games (`.ci/run` runs both).
    let games = games();
    // Each game stands alone (its seed is its number): played on every
    // core, game n by thread n % shards (the deep run's 134 games were one
    // of its longest sequential loops).
    let shards = std::thread::available_parallelism().map_or(1, |n| n.get().min(4)) as u64;
    let total: u32 = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..shards)
            .map(|k| {
                let (rules, r, scenarios, games) = (&rules, &r, &scenarios, games.clone());
                scope.spawn(move || {
                    games
                        .filter(|n| n % shards == k)
                        .map(|n| play(rules, r, &scenarios[(n as usize) % scenarios.len()], n))
                        .sum::<u32>()
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .sum()
    });
    let played = games.end.saturating_sub(games.start);
    eprintln!(
        "{played} Kriegspiel games (from game {}), {total} turns, no leak",
        games.start
    );
    assert!(u64::from(total) > played, "the games were played");
}

/// A minefield turned over where a side sees nothing stays face down on
/// its board, and its hexes as it last saw them (docs/rules/kriegspiel.md, "minefield turned over"): the
/// engine's view passes the check, and a view that shows the turn-over
/// fails it in the JSON, the SVG and the text.
#[test]
fn a_minefield_turned_over_out_of_sight_stays_face_down() {
    let rules = Rules::load("memoir44").unwrap();
    let r = Ruleset::builtin().unwrap();
    let mut sc = Scenario::shipped("miteiriya-ridge");
    sc.options.insert("kriegspiel".into(), "true".into());
    let st = rules
        .setup(&sc, &mut ChaChaDice::from_seed([1; 32]))
        .unwrap();
    let mut m: M44 = st.get::<M44>().unwrap().clone();
    // One of the axis's minefields, the allied units that see it taken off
    // (nearest first): out of the allies' sight.
    let side = m.sides.iter().position(|s| s == "allies").unwrap();
    let at = m
        .minefields
        .iter()
        .find(|f| f.side != side)
        .expect("a minefield")
        .at;
    while fog::sees_hex(&r, &m, side, at) {
        let nearest = (0..m.units.len())
            .filter(|&i| m.units[i].side == side)
            .min_by_key(|&i| m.units[i].at.distance(at))
            .expect("an allied unit sees it");
        m.units.remove(nearest);
    }
    assert!(m.units.iter().any(|u| u.side == side), "allied units left");
    let f = m.minefields.iter_mut().find(|f| f.at == at).unwrap();
    f.revealed = true;
    let h = at.to_string();
    let viewer = Viewer::Side(m.sides[side].clone());
    let k = known(&r, &m, &m, side, &[], "");
    let honest = view::view(&r, &m, &viewer);
    let parts = adjutant::rules::memoir44::report::parts(&honest, None);
    let v = serde_json::to_value(&honest).unwrap();
    let mut told = Board::default();
    let p = board_leaks(&r, &m, &m, side, &k, &mut told, &v, &parts.svg, &parts.map);
    assert!(p.is_empty(), "the engine's view of {h}: {p:?}");
    // The referee sees it turned over; a side's view that shows it so leaks.
    let all = view::view(&r, &m, &Viewer::Referee);
    let mut leaked = honest.clone();
    leaked.minefields = all.minefields.clone();
    let lv = serde_json::to_value(&leaked).unwrap();
    let lp = adjutant::rules::memoir44::report::parts(&leaked, None);
    let p = board_leaks(&r, &m, &m, side, &k, &mut told, &lv, &lp.svg, &lp.map);
    for what in ["view shows", "SVG shows", "text shows"] {
        assert!(
            p.iter().any(|x| x.contains(what) && x.contains(&h)),
            "{what} {h}: {p:?}"
        );
    }
    // A board redrawn at a hex changed out of sight fails too: sandbags laid
    // at the hex behind the side's back, the truth drawn (no turn was played,
    // so the engine kept nothing of what the side last saw there).
    let mut seen = Board::default();
    let _ = board_leaks(&r, &m, &m, side, &k, &mut seen, &v, "", "");
    let mut dug = m.clone();
    dug.terrain.entry(at).or_default().push("sandbag".into());
    let redrawn = serde_json::to_value(view::view(&r, &dug, &viewer)).unwrap();
    let p = board_leaks(&r, &m, &dug, side, &k, &mut seen, &redrawn, "", "");
    assert!(
        p.iter()
            .any(|x| x.contains("changed out of the side's sight") && x.contains(&h)),
        "{p:?}"
    );
}

/// The check is not blind: a view that leaks one unseen unit fails it.
#[test]
fn checker_catches_a_leaked_unit() {
    let rules = Rules::load("memoir44").unwrap();
    let r = Ruleset::builtin().unwrap();
    let mut sc = Scenario::shipped("pegasus-bridge");
    sc.options.insert("kriegspiel".into(), "true".into());
    let mut deck = ChaChaDice::from_seed([1; 32]);
    let st = rules.setup(&sc, &mut deck).unwrap();
    let m: &M44 = st.get::<M44>().unwrap();
    let side = 0;
    let unseen = m
        .units
        .iter()
        .find(|u| u.side != side && !fog::sees(&r, m, side, u))
        .expect("an unseen enemy unit at the start")
        .clone();
    let viewer = Viewer::Side(m.sides[side].clone());
    let k = known(&r, m, m, side, &[], "");
    // The honest view passes.
    let parts = rules.report_parts(&st, &[], &viewer, None);
    let v: Value = serde_json::from_str(&parts.json).unwrap();
    assert!(leaks(&r, m, side, &k, &v, &parts.svg, &parts.combat).is_empty());
    // The referee's view, which holds every unit, does not.
    let all = view::view(&r, m, &Viewer::Referee);
    let mut leaked = view::view(&r, m, &viewer);
    leaked.units.push(
        all.units
            .iter()
            .find(|u| u.id == unseen.id)
            .unwrap()
            .clone(),
    );
    let lv = serde_json::to_value(&leaked).unwrap();
    let svg = adjutant::rules::memoir44::report::parts(&leaked, None).svg;
    let p = leaks(&r, m, side, &k, &lv, &svg, "");
    assert!(p.iter().any(|x| x.contains("unseen unit")), "{p:?}");
    assert!(p.iter().any(|x| x.contains("SVG draws")), "{p:?}");
    // The PREDICT check: an answer naming the unseen unit's hex, or a card
    // the side never held, fails it; the answer's fixed caveat does not.
    let held: BTreeSet<String> = m.hands[side].iter().cloned().collect();
    let caveat = "Assumed: the enemy plays no reaction card (such as Ambush).";
    assert!(predict_leaks(&r, m, side, &held, caveat).is_empty());
    let h = unseen.at.to_string();
    let p = predict_leaks(&r, m, side, &held, &format!("Battle 1: against {h}\n"));
    assert!(p.iter().any(|x| x.contains(&h)), "{p:?}");
    assert!(predict_leaks(&r, m, side, &held, &format!("against {h}0\n")).is_empty());
    let other = r
        .cards
        .iter()
        .find(|c| !held.contains(&c.id) && c.id != "ambush")
        .unwrap();
    let p = predict_leaks(&r, m, side, &held, &format!("+1 {}", other.id));
    assert!(p.iter().any(|x| x.contains("names the card")), "{p:?}");
}

/// The replay channel (issue 33): Kriegspiel games of every shipped
/// scenario played through the service; while each runs, each side's
/// replay (the page REPLAY attaches, `adjutant replay --as SIDE`) is
/// scanned turn by turn, as the mails are: no turn's board draws, and no
/// turn's report names, an enemy unit the side did not know at that turn.
/// A game the random orders end is not scanned: its replay is then the
/// referee's for everyone (docs/replay.md).
#[test]
fn no_replay_shows_an_unseen_enemy_unit() {
    use crate::golden::games::{specs, Spec};
    let r = Ruleset::builtin().unwrap();
    let games = crate::common::depth::games("KS_REPLAY_GAMES", 4, 40);
    let base = specs("memoir44")
        .into_iter()
        .find(|s| s.scenario == "pegasus-bridge" && s.options.is_empty() && !s.variant)
        .unwrap();
    let (mut scanned, mut turns) = (0, 0);
    for (n, id) in memoir44::scenario::ids().iter().enumerate() {
        if n as u64 >= games {
            break;
        }
        let spec = Spec {
            scenario: Box::leak(id.clone().into_boxed_str()),
            options: &[("kriegspiel", "true")],
            ..base
        };
        // The replay draws its own boards (SVG), whatever the host's
        // picture: no PNG is rasterised for the report mails nobody reads.
        let site = common::svg_site();
        let (judge, game_id) = crate::replay::play_game(&site, &spec, 24);
        let game = judge.game(game_id).unwrap();
        if game.status == "over" {
            continue;
        }
        turns += scan_replays(&r, &judge, game_id);
        scanned += 1;
    }
    eprintln!("{scanned} running Kriegspiel games' replays, {turns} turns, no leak");
    assert!(scanned > 0 && turns > scanned, "replays were scanned");
}

/// Every side's replay of `game_id`, every turn: what the mails' scan
/// checks. The number of turns scanned.
fn scan_replays(r: &Ruleset, judge: &adjutant::service::Judge, game_id: i64) -> u32 {
    let game = judge.game(game_id).unwrap();
    let ex = judge.exports().export_with(game_id, true, true).unwrap();
    let state = |t: u32| -> M44 {
        let pos = judge.position(&game, Some(t)).unwrap();
        pos.state.get::<M44>().unwrap().clone()
    };
    let mut scanned = 0;
    for (i, name) in ex.sides.iter().enumerate() {
        let html = adjutant::replay::html(judge, game_id, &Viewer::Side(name.clone())).unwrap();
        let steps = crate::replay::page_steps(&html);
        assert_eq!(steps.len() as u32, game.turn + 1, "a step a turn");
        for (t, board, report) in steps {
            let after = state(t);
            let before = state(t.saturating_sub(1));
            let (events, own) = match t {
                0 => (Vec::new(), String::new()),
                _ => {
                    let turn = &ex.turns[t as usize - 1];
                    assert_eq!(turn.turn, t);
                    let own: Vec<&str> = turn
                        .orders
                        .iter()
                        .filter(|o| &o.side == name)
                        .map(|o| o.orders.as_str())
                        .collect();
                    (turn.events.clone(), own.join("\n"))
                }
            };
            let k = known(r, &before, &after, i, &events, &own);
            let problems = leaks(r, &after, i, &k, &Value::Null, &board, &report);
            assert!(
                problems.is_empty(),
                "game {game_id} ({}) turn {t}, {name}'s replay:\n{}",
                game.scenario,
                problems.join("\n")
            );
            scanned += 1;
        }
    }
    scanned
}
