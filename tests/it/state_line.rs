//! The `State` line of every mail cannot test a guess about hidden state
//! (issue 28, README "Honest dice"). The attacker here is stronger than a
//! player: it holds the whole stored state but for the one hidden fact
//! (a side rebuilds the rest from its mails: the set-up, the orders it was
//! told of, the dice), tries every value that fact can take, hashes each
//! candidate as the judge hashes a state, and looks for the hash among the
//! State lines mailed to it. With the plain state hash on the line (the
//! judge before the line was sealed) the true value is found at once.
//!
//! Games played by mail: Maildir in, the file outbox out.

use crate::common;
use adjutant::rules::Load;

use adjutant::engine::dice::{ChaChaDice, Dice};
use adjutant::rules::measured::ChargeRuleset as _;
use adjutant::rules::{measured, memoir_grid, Rules};
use common::{mail, reply_address, unqp, Site};
use serde_json::Value;
use std::collections::BTreeSet;

/// Every `State` line of every mail sent to `who`.
fn state_lines(site: &Site, who: &str) -> BTreeSet<String> {
    site.outbox()
        .into_iter()
        .map(|(_, t)| unqp(&t))
        .filter(|t| t.contains(&format!("To: {who}")))
        .flat_map(|t| {
            t.lines()
                .filter_map(|l| l.strip_prefix("State "))
                .map(|l| l.trim().to_string())
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Every stored state of game 1, as (turn, canonical JSON, stored hash).
fn snapshots(site: &Site) -> Vec<(u32, String, String)> {
    let db = site.db();
    let mut q = db
        .prepare("SELECT turn, state, state_hash FROM snapshots WHERE game_id = 1 ORDER BY turn")
        .unwrap();
    q.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

/// Game 1's rules and latest state.
fn latest(site: &Site) -> (Rules, adjutant::rules::State) {
    let (ruleset, text): (String, String) = site
        .db()
        .query_row(
            "SELECT g.ruleset, s.state FROM games g JOIN snapshots s ON s.game_id = g.id
             WHERE g.id = 1 ORDER BY s.turn DESC LIMIT 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    let rules = Rules::load(&ruleset).unwrap();
    let st = rules.restore(&text).unwrap();
    (rules, st)
}

/// Mail `body` from `who` to its seat's reply address (not yet read).
fn send(site: &Site, who: &str, n: usize, body: &str) {
    let to = reply_address(site, who);
    let id = format!("state-line-{n}-{}", who.split('@').next().unwrap());
    site.drop_mail(
        &format!("{id}.eml"),
        &mail(who, &to, "orders", &format!("{id}@example.org"), body),
    );
}

/// Hash each guess of the hidden fact (a candidate state's canonical JSON)
/// and look for it among `lines`. The guess equal to the truth must give
/// the stored hash (the attack is sound); no guess may be on a State line.
/// Returns the guesses tried.
fn try_guesses(
    what: &str,
    stored: &str,
    lines: &BTreeSet<String>,
    guesses: &[(String, bool)],
) -> usize {
    for (guess, truth) in guesses {
        let hash = adjutant::service::state_hash(guess);
        if *truth {
            assert_eq!(hash, stored, "{what}: the rebuilt state is the stored one");
        }
        assert!(
            !lines.contains(&hash),
            "{what}: the State line tells the hidden value ({} guess)",
            if *truth { "the true" } else { "a wrong" }
        );
    }
    guesses.len()
}

/// Memoir of Battle (no fog of war): the winner of the initiative moves
/// first or second as its standing `INITIATIVE` choice says, and a choice
/// written in a move-phase mail waits, unseen by the enemy, for the next
/// roll (docs/rules/memoir-of-battle.md, "Phase 2: initiative"). The enemy
/// tries both values of that choice against the State lines it was mailed
/// and learns nothing.
#[test]
fn the_state_line_does_not_test_guesses_about_an_initiative_choice() {
    let site = crate::common::svg_site();
    let players = ["alice@example.org", "bob@example.org"];
    site.new_game(
        "le-cateau-1914",
        &["british=alice@example.org", "german=bob@example.org"],
        &[],
    );
    let ruleset = memoir_grid::Ruleset::builtin("memoir-of-battle").unwrap();
    let mut rng = ChaChaDice::from_seed([28; 32]);
    let mut n = 0;
    for phase in 0..12 {
        let (rules, st) = latest(&site);
        let g = st.get::<memoir_grid::State>().expect("a grid state");
        let need = rules.phase(&st).sides;
        if need.is_empty() {
            break;
        }
        for side in &need {
            let i = g.side_index(side).unwrap();
            let mut orders: Vec<String> =
                memoir_grid::random::random_orders(&ruleset, g, i, &mut rng)
                    .lines()
                    .filter(|l| !l.starts_with("INITIATIVE"))
                    .map(str::to_string)
                    .collect();
            // Each side changes its mind every other phase it mails.
            let second = (phase / 2 + i) % 2 == 1;
            orders.insert(
                0,
                format!("INITIATIVE {}", if second { "SECOND" } else { "FIRST" }),
            );
            n += 1;
            send(&site, players[i], n, &orders.join("\n"));
        }
        site.ok(&["serve", "--once"]);
    }
    let lines = [
        state_lines(&site, players[0]),
        state_lines(&site, players[1]),
    ];
    assert!(
        !lines[0].is_empty() && lines[0].intersection(&lines[1]).next().is_some(),
        "both sides hold State lines, and share some: {lines:?}"
    );
    let mut tried = 0;
    let mut seen = BTreeSet::new();
    for (t, text, stored) in snapshots(&site) {
        assert!(t > 0 || text.contains("\"second\""), "{text}");
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v.to_string(), text, "the attack rebuilds the stored bytes");
        for (viewer, lines) in lines.iter().enumerate() {
            let enemy = 1 - viewer;
            let truth = v["second"][enemy].as_bool().expect("a choice");
            seen.insert(truth);
            let guesses: Vec<(String, bool)> = [false, true]
                .into_iter()
                .map(|second| {
                    let mut g = v.clone();
                    g["second"][enemy] = Value::Bool(second);
                    (g.to_string(), second == truth)
                })
                .collect();
            let what = format!("turn {t}, side {viewer} guesses side {enemy}'s INITIATIVE");
            tried += try_guesses(&what, &stored, lines, &guesses);
        }
    }
    assert_eq!(seen.len(), 2, "both choices were held at some turn");
    assert!(tried >= 20, "guesses were tried: {tried}");
}

/// Every value a unit's written standing orders can take in Charge!: each
/// subset of HOLD GROUND and FIRE AT CHARGERS.
fn standing_guesses() -> Vec<Vec<String>> {
    let all = measured::state::STANDING;
    (0..1usize << all.len())
        .map(|bits| {
            all.iter()
                .enumerate()
                .filter(|(i, _)| bits & (1 << i) != 0)
                .map(|(_, s)| (*s).to_string())
                .collect()
        })
        .collect()
}

/// Charge! (no fog of war): a side's written standing orders are sealed
/// from the enemy (docs/rules/charge.md, "Standing orders: what the enemy
/// knows"). The enemy tries every set of standing orders on each of its
/// units, hashing each candidate state as the judge does, and finds none
/// of them on the State lines it was mailed.
#[test]
fn the_state_line_does_not_test_guesses_about_standing_orders() {
    let site = crate::common::svg_site();
    let players = ["alice@example.org", "bob@example.org"];
    site.new_game(
        "el-bodon-1811",
        &["british=alice@example.org", "french=bob@example.org"],
        &[],
    );
    let ruleset = measured::Ruleset::builtin("charge").unwrap();
    let mut rng = ChaChaDice::from_seed([28; 32]);
    let guesses = standing_guesses();
    let mut n = 0;
    for _ in 0..8 {
        let (rules, st) = latest(&site);
        let m = st
            .get::<measured::charge::State>()
            .expect("a measured state");
        let need = rules.phase(&st).sides;
        if need.is_empty() {
            break;
        }
        for side in &need {
            let i = m.side_index(side).unwrap();
            let orders = measured::random::random_orders(&ruleset, m, i, &mut rng);
            let mine: Vec<&str> = m
                .units
                .iter()
                .filter(|u| u.side == i)
                .map(|u| u.id.as_str())
                .collect();
            let unit = mine[(rng.roll(mine.len() as u32) - 1) as usize];
            let set = &guesses[rng.roll(guesses.len() as u32 - 1) as usize];
            let with = format!("{orders}\nSTANDING {unit}: {}", set.join(", "));
            let body = if rules.check(&st, side, &with).is_ok() {
                with
            } else {
                orders
            };
            n += 1;
            send(&site, players[i], n, &body);
        }
        site.ok(&["serve", "--once"]);
    }
    let lines = [
        state_lines(&site, players[0]),
        state_lines(&site, players[1]),
    ];
    assert!(
        !lines[0].is_empty() && lines[0].intersection(&lines[1]).next().is_some(),
        "both sides hold State lines, and share some: {lines:?}"
    );
    let mut tried = 0;
    let mut held = 0;
    let (rules, _) = latest(&site);
    for (t, text, stored) in snapshots(&site) {
        let st = rules.restore(&text).unwrap();
        let m = st
            .get::<measured::charge::State>()
            .expect("a measured state");
        for (viewer, lines) in lines.iter().enumerate() {
            for (k, u) in m.units.iter().enumerate() {
                if u.side == viewer {
                    continue;
                }
                held += usize::from(!u.standing.is_empty());
                let candidates: Vec<(String, bool)> = guesses
                    .iter()
                    .map(|g| {
                        let mut c = m.clone();
                        c.units[k].standing = g.clone();
                        let json = rules.to_json(&adjutant::rules::State::of(c));
                        (json, *g == u.standing)
                    })
                    .collect();
                let what = format!("turn {t}, side {viewer} guesses {}'s standing orders", u.id);
                tried += try_guesses(&what, &stored, lines, &candidates);
            }
        }
    }
    assert!(held > 0, "some enemy unit held standing orders");
    assert!(tried >= 50, "guesses were tried: {tried}");
}
