//! One conformance test for every rules family (issue 29, docs/architecture.md
//! "The conformance test"): every shipped scenario of every family in
//! `rules::families()`, with each set of options its entry names, played
//! with random orders through the `Rules` contract the service uses, with
//! the service's own set-up and dice (`service::setup_state`,
//! `service::adjudicate_turn`). Nothing here names a family: adding one to
//! the list is the only change this test needs.
//!
//! What every family must keep, at every phase:
//! - the state survives the store form: `restore(to_json(s))` gives the
//!   same JSON again;
//! - a side the phase needs has pass orders (what the NMR policy submits),
//!   and `check` accepts them;
//! - orders `check` accepted adjudicate (check-then-adjudicate never
//!   refuses what it let through);
//! - every event has a `kind` and survives the store form, and every viewer's
//!   description of a phase's events is made without a panic; the referee's
//!   is not empty when the phase had events;
//! - no viewer's text map, report parts or view holds the game's master
//!   seed (each side's hidden cards and units are the families' own
//!   property tests, tests/it/no_leak.rs and kriegspiel_no_leak.rs);
//! - a game replayed from its orders reaches the same state, byte for byte.

use crate::common::depth;
use adjutant::engine::dice::{derive, ChaChaDice, Seed};
use adjutant::rules::{families, Event, Load, Orders, Rules, Scenario, State, Viewer};
use adjutant::service::{adjudicate_turn, setup_state};

/// One kind of game: a shipped scenario of a ruleset, with options.
struct Game {
    ruleset: String,
    scenario: String,
    options: Vec<(String, String)>,
}

impl Game {
    fn name(&self) -> String {
        let opts: Vec<String> = self
            .options
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        format!("{} {} [{}]", self.ruleset, self.scenario, opts.join(" "))
    }

    fn scenario(&self) -> Scenario {
        let mut s = Scenario::shipped(&self.scenario);
        s.options = self.options.iter().cloned().collect();
        s
    }
}

/// Every shipped scenario of every family, alone and with each option set
/// its family names.
fn games() -> Vec<Game> {
    let mut out = Vec::new();
    for f in families() {
        for (scenario, ruleset) in (f.scenarios)() {
            let sets = std::iter::once(&[][..]).chain(f.options.iter().copied());
            for set in sets {
                out.push(Game {
                    ruleset: ruleset.clone(),
                    scenario: scenario.clone(),
                    options: set
                        .iter()
                        .map(|(k, v)| (k.to_string(), v.to_string()))
                        .collect(),
                });
            }
        }
    }
    out
}

fn viewers(rules: &Rules, state: &State) -> Vec<Viewer> {
    let mut v: Vec<Viewer> = rules.sides(state).into_iter().map(Viewer::Side).collect();
    v.push(Viewer::Referee);
    v.push(Viewer::Observer);
    v
}

/// The store form round trip.
fn round_trip(rules: &Rules, state: &State, at: &str) -> Result<String, String> {
    let json = rules.to_json(state);
    let back = rules
        .restore(&json)
        .map_err(|e| format!("{at}: the state's JSON does not restore: {e}"))?;
    let again = rules.to_json(&back);
    if again != json {
        return Err(format!(
            "{at}: restore(to_json(s)) is not s:\n{json}\n{again}"
        ));
    }
    Ok(json)
}

/// No viewer's reports hold the master seed.
fn views_keep_the_seed(
    rules: &Rules,
    state: &State,
    events: &[Event],
    seed_hex: &str,
    at: &str,
) -> Result<(), String> {
    for v in viewers(rules, state) {
        let p = rules.report_parts(state, events, &v, None);
        let text = rules.render_text(state, &v);
        for (part, body) in [
            ("text", &text),
            ("map", &p.map),
            ("compact", &p.compact),
            ("combat", &p.combat),
            ("svg", &p.svg),
            ("json", &p.json),
            ("board", &p.board_html),
        ] {
            if body.contains(seed_hex) {
                return Err(format!("{at}: the {part} of {v:?} holds the master seed"));
            }
        }
    }
    Ok(())
}

/// Each needed side's random orders, or its pass orders where `check`
/// refuses them. Pass orders, where the family has them, must always be
/// accepted; a side with none (Memoir '44: no card of the hand can be
/// played ordering no unit) gets more random tries. `None`: nothing of the
/// side's could be used (the game stops here, as the judge would wait).
fn orders_of(
    rules: &Rules,
    state: &State,
    sides: &[String],
    rng: &mut ChaChaDice,
    at: &str,
) -> Result<Option<Vec<Orders>>, String> {
    let mut out = Vec::new();
    for side in sides {
        let pass = rules.pass_orders(state, side);
        if let Some(pass) = &pass {
            rules
                .check(state, side, pass)
                .map_err(|e| format!("{at}: {side}'s pass orders are refused: {e}\n{pass}"))?;
        }
        let mut text = None;
        for _ in 0..if pass.is_some() { 1 } else { 20 } {
            let random = rules
                .random_orders(state, side, rng)
                .ok_or_else(|| format!("{at}: the family gives no random orders"))?;
            if rules.check(state, side, &random).is_ok() {
                text = Some(random);
                break;
            }
        }
        let Some(text) = text.or(pass) else {
            return Ok(None);
        };
        out.push(Orders {
            side: side.clone(),
            text,
        });
    }
    Ok(Some(out))
}

/// The events' envelope, and every viewer's description of them.
fn described(rules: &Rules, state: &State, events: &[Event], at: &str) -> Result<(), String> {
    for e in events {
        if e.kind().is_empty() || e.kind() == adjutant::rules::event::UNRECORDED {
            return Err(format!("{at}: an event without a kind: {e:?}"));
        }
        let back = rules.event_from_store(e.to_store());
        if back != *e {
            return Err(format!("{at}: an event changed through the store: {e:?}"));
        }
        // Read back through its family, typed: never left unreadable.
        if let Some(why) = back.unreadable() {
            return Err(format!(
                "{at}: the family cannot read its own event back ({why}): {e:?}"
            ));
        }
    }
    for v in viewers(rules, state) {
        let lines = rules.describe_events(state, events, &v);
        if v == Viewer::Referee && !events.is_empty() && lines.is_empty() {
            return Err(format!(
                "{at}: the referee is told nothing of {} events",
                events.len()
            ));
        }
    }
    Ok(())
}

/// Play seed `n` of `game` for at most `phases` phases, checking the
/// contract; then replay it from its orders. `Ok(None)`: the family
/// refuses this option set for this scenario (it says why).
fn play(game: &Game, n: u64, phases: u32) -> Result<Option<u32>, String> {
    let rules = Rules::load(&game.ruleset).map_err(|e| e.to_string())?;
    let master: Seed = derive(
        "adjutant/conformance",
        &[game.name().as_bytes(), &n.to_le_bytes()],
    );
    let seed_hex = hex::encode(master);
    let mut rng = ChaChaDice::from_seed(derive("adjutant/conformance-orders", &[&master]));
    let Ok(first) = setup_state(&rules, &game.scenario(), &master) else {
        return Ok(None);
    };
    round_trip(&rules, &first, "set-up")?;
    views_keep_the_seed(&rules, &first, &[], &seed_hex, "set-up")?;
    let mut state = rules.numbered(
        rules
            .restore(&rules.to_json(&first))
            .map_err(|e| e.to_string())?,
        0,
    );
    let mut played: Vec<Vec<Orders>> = Vec::new();
    let mut turn = 0;
    while turn < phases && rules.result(&state).is_none() {
        let at = format!("phase {}", turn + 1);
        let needs = rules.phase(&state).sides;
        let Some(orders) = orders_of(&rules, &state, &needs, &mut rng, &at)? else {
            break;
        };
        turn += 1;
        let adj = adjudicate_turn(&rules, &state, &master, turn, &orders)
            .map_err(|e| format!("{at}: checked orders refused at adjudication: {e}"))?;
        described(&rules, &adj.state, &adj.events, &at)?;
        let json = round_trip(&rules, &adj.state, &at)?;
        if turn % 10 == 0 {
            views_keep_the_seed(&rules, &adj.state, &adj.events, &seed_hex, &at)?;
        }
        played.push(orders);
        state = next_state(&rules, adj.state, &json, turn)?;
    }
    views_keep_the_seed(&rules, &state, &[], &seed_hex, "the end")?;
    let replayed = replay(&rules, game, &master, &played)?;
    if replayed != rules.to_json(&state) {
        return Err(format!(
            "the replay from the orders differs after {turn} phases"
        ));
    }
    Ok(Some(turn))
}

/// The state the next phase starts from, as the service does: a phase of
/// the judge's own follows at once on the state in hand; otherwise the
/// stored state (`json`), told how many phases were played.
fn next_state(rules: &Rules, state: State, json: &str, turn: u32) -> Result<State, String> {
    if rules.phase(&state).sides.is_empty() && rules.result(&state).is_none() {
        return Ok(state);
    }
    Ok(rules.numbered(rules.restore(json).map_err(|e| e.to_string())?, turn))
}

/// The game again from its set-up and its orders, as `verify` replays.
fn replay(
    rules: &Rules,
    game: &Game,
    master: &Seed,
    played: &[Vec<Orders>],
) -> Result<String, String> {
    let mut state = setup_state(rules, &game.scenario(), master).map_err(|e| e.to_string())?;
    for (i, orders) in played.iter().enumerate() {
        let turn = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let adj = adjudicate_turn(rules, &state, master, turn, orders)
            .map_err(|e| format!("replay, phase {turn}: {e}"))?;
        let json = rules.to_json(&adj.state);
        state = next_state(rules, adj.state, &json, turn)?;
    }
    Ok(rules.to_json(&state))
}

#[test]
fn every_family_keeps_the_rules_contract() {
    let (seeds, phases) = if depth::deep() { (3, 400) } else { (1, 40) };
    let mut failures = Vec::new();
    let mut played = 0;
    let mut refused = Vec::new();
    let mut rulesets = std::collections::BTreeSet::new();
    for game in games() {
        for n in 0..seeds {
            match play(&game, n, phases) {
                Ok(Some(_)) => {
                    played += 1;
                    rulesets.insert(game.ruleset.clone());
                }
                Ok(None) => refused.push(game.name()),
                Err(e) => failures.push(format!("{} seed {n}: {e}", game.name())),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} games broke the contract:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // Every shipped ruleset was played, and no plain scenario was refused.
    let shipped: std::collections::BTreeSet<String> = adjutant::rules::rulesets()
        .into_iter()
        .map(str::to_string)
        .collect();
    assert_eq!(rulesets, shipped, "a shipped ruleset was not played");
    assert!(
        refused.iter().all(|g| !g.ends_with("[]")),
        "a shipped scenario did not set up: {refused:?}"
    );
    assert!(played > 0);
}
