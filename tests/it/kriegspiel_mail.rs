//! Property test through the whole mail path: random Kriegspiel games of
//! Memoir '44 played by mail (Maildir in, the file outbox out). Every mail
//! the judge sends a side, in every part (the plain text, the HTML with its
//! SVG board, the view.json attachment), is checked against what that side
//! saw at that time: its view's enemy units are exactly the ones it sees,
//! the SVG draws no other, and no text names the hex of an enemy unit it
//! did not know. Both sides also ask for MAP, HISTORY and STATUS now and
//! then, and the side to move first sends an order that battles an enemy
//! hex it cannot see, so those answers go through the same check.
//!
//! `KS_MAIL_GAMES` sets the number of games (default 4); `KS_MAIL_TURNS`
//! their length (default 30 turns).

use crate::common;

use adjutant::engine::dice::ChaChaDice;
use adjutant::rules::memoir44::{self, fog, Ruleset, State as M44};
use common::fog::{board_leaks, card_leaks, known, leaks, own_cards, Board};
use common::{latest_state, mail, reply_address, Site};
use mail_parser::MimeHeaders;
use serde_json::Value;
use std::collections::BTreeSet;

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The events of `turn` as the store holds them.
fn events_of(site: &Site, turn: u32) -> Vec<Value> {
    let db = site.db();
    let mut q = db
        .prepare("SELECT event FROM events WHERE game_id = 1 AND turn = ?1 ORDER BY seq")
        .unwrap();
    q.query_map([turn], |r| r.get::<_, String>(0))
        .unwrap()
        .map(|t| serde_json::from_str(&t.unwrap()).unwrap())
        .collect()
}

/// The state stored after `turn` (0: the set-up).
fn state_at(site: &Site, turn: u32) -> M44 {
    let text: String = site
        .db()
        .query_row(
            "SELECT state FROM snapshots WHERE game_id = 1 AND turn = ?1",
            [turn],
            |r| r.get(0),
        )
        .unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The file names of the mails in the outbox.
fn outbox_names(site: &Site) -> Vec<String> {
    std::fs::read_dir(site.path().join("mail/outbox"))
        .unwrap()
        .filter_map(|e| Some(e.ok()?.file_name().to_string_lossy().into_owned()))
        .filter(|n| n.ends_with(".eml"))
        .collect()
}

fn turn_of(site: &Site) -> u32 {
    site.db()
        .query_row("SELECT turn FROM games WHERE id = 1", [], |r| r.get(0))
        .unwrap()
}

/// Parts of a mail: recipient, plain text, HTML, the view.json attachment.
struct Parts {
    to: String,
    text: String,
    html: String,
    json: Option<Value>,
}

fn parts(raw: &[u8]) -> Parts {
    let msg = mail_parser::MessageParser::default()
        .parse(raw)
        .expect("the judge's mail parses");
    let to = crate::common::first_to(&msg).to_string();
    let text = msg.body_text(0).map(|t| t.into_owned()).unwrap_or_default();
    let html = msg.body_html(0).map(|t| t.into_owned()).unwrap_or_default();
    let json = msg.attachments().find_map(|a| {
        let name = a.attachment_name().unwrap_or("");
        name.ends_with(".json")
            .then(|| serde_json::from_slice(a.contents()).expect("view.json parses"))
    });
    Parts {
        to,
        text,
        html,
        json,
    }
}

/// The hexes of enemy units `side` does not see in `s`.
fn unseen(r: &Ruleset, s: &M44, side: usize) -> Vec<String> {
    s.units
        .iter()
        .filter(|u| u.side != side && !fog::sees(r, s, side, u))
        .map(|u| u.at.to_string())
        .collect()
}

#[test]
fn no_mail_to_a_side_shows_an_unseen_enemy_unit() {
    let r = Ruleset::builtin().unwrap();
    let scenarios = memoir44::scenario::ids();
    // 2 games quick, 8 deep (docs/testing.md): the deep run goes on where
    // the quick one ended (`.ci/run` runs both).
    let games = common::depth::games("KS_MAIL_GAMES", 2, 8);
    let first = common::depth::first("KS_MAIL_FROM", 2, games);
    let turns = env_or("KS_MAIL_TURNS", 30);
    let (mut mails_checked, mut turns_played) = (0, 0);
    for g in first..games {
        let scenario = &scenarios[(g as usize) % scenarios.len()];
        let site = Site::new();
        // The SVG inline, where the leak check reads it (the PNG drawn
        // from it is checked in tests/it/picture_mail.rs).
        common::set_picture(&site, "svg");
        let emails = ["p0@example.org", "p1@example.org"];
        new_kriegspiel_game(&site, scenario, &emails);
        let addr = [
            reply_address(&site, emails[0]),
            reply_address(&site, emails[1]),
        ];
        let mut rng = ChaChaDice::from_seed([g as u8 ^ 0x5a; 32]);
        let mut sent = BTreeSet::new();
        let mut mine: [BTreeSet<String>; 2] = Default::default();
        let mut boards: [Board; 2] = Default::default();
        // The welcomes show the opening position (before any judge's
        // opening phase, such as an airdrop: that has a report of its own).
        let opening_state = state_at(&site, 0);
        let later: Vec<String> = outbox_names(&site)
            .into_iter()
            .filter(|n| !n.contains("welcome"))
            .collect();
        sent.extend(later.iter().cloned());
        mails_checked += check_new_mails(
            &site,
            &mut sent,
            &emails,
            [&opening_state, &opening_state],
            &[],
            &[String::new(), String::new()],
            &mut mine,
            &mut boards,
            &format!("{scenario} game {g} welcome"),
        );
        for n in &later {
            sent.remove(n);
        }
        if turn_of(&site) > 0 {
            let now = latest_state(&site);
            let events = events_of(&site, turn_of(&site));
            mails_checked += check_new_mails(
                &site,
                &mut sent,
                &emails,
                [&opening_state, &now],
                &events,
                &[String::new(), String::new()],
                &mut mine,
                &mut boards,
                &format!("{scenario} game {g} the judge's opening phase"),
            );
        }
        let mut n = 0;
        for t in 0..turns {
            let before = latest_state(&site);
            if before.over {
                break;
            }
            let mover = before.to_move;
            let side = before.sides[mover].clone();
            let orders = memoir44::random_orders(&r, &before, &side, &mut rng);
            let mut said = [String::new(), String::new()];
            // A battle against a hex the mover cannot see: refused, and the
            // answer must read as it would for an empty hex.
            if let (Some(own), Some(hidden)) = (
                before.units.iter().find(|u| u.side == mover),
                unseen(&r, &before, mover).first(),
            ) {
                let bad = format!("BATTLE {} {hidden}\n", own.at);
                n += 1;
                site.drop_mail(
                    &format!("{g}-{n}.eml"),
                    &mail(
                        emails[mover],
                        &addr[mover],
                        "orders",
                        &format!("{g}-{n}@example.org"),
                        &bad,
                    ),
                );
                said[mover].push_str(&bad);
            }
            n += 1;
            site.drop_mail(
                &format!("{g}-{n}.eml"),
                &mail(
                    emails[mover],
                    &addr[mover],
                    "orders",
                    &format!("{g}-{n}@example.org"),
                    &orders,
                ),
            );
            said[mover].push_str(&orders);
            if t % 5 == 2 {
                for (i, who) in emails.iter().enumerate() {
                    n += 1;
                    site.drop_mail(
                        &format!("{g}-{n}.eml"),
                        &mail(
                            who,
                            &addr[i],
                            "questions",
                            &format!("{g}-{n}@example.org"),
                            "MAP\nHISTORY\nSTATUS\n",
                        ),
                    );
                }
            }
            site.ok(&["serve", "--once"]);
            let after = latest_state(&site);
            let events = events_of(&site, turn_of(&site));
            mails_checked += check_new_mails(
                &site,
                &mut sent,
                &emails,
                [&before, &after],
                &events,
                &said,
                &mut mine,
                &mut boards,
                &format!("{scenario} game {g} turn {t}"),
            );
            turns_played += 1;
        }
    }
    let played = games.saturating_sub(first);
    eprintln!("{played} Kriegspiel games by mail (from game {first}), {turns_played} turns, {mails_checked} mails to the sides checked");
    assert!(
        u64::from(mails_checked) > played * 10,
        "the mails were read"
    );
}

/// A Kriegspiel game of `scenario` with a referee, its sides seated in order.
fn new_kriegspiel_game(site: &Site, scenario: &str, emails: &[&str; 2]) {
    let opening = latest_state_of(scenario);
    site.ok(&[
        "new-game",
        "--scenario",
        scenario,
        "--seat",
        &format!("{}={}", opening[0], emails[0]),
        "--seat",
        &format!("{}={}", opening[1], emails[1]),
        "--referee",
        "ref@example.org",
        "--kriegspiel",
    ]);
}

/// The sides of a shipped scenario, in the order the judge seats them.
fn latest_state_of(scenario: &str) -> Vec<String> {
    let r = Ruleset::builtin().unwrap();
    let st = memoir44::setup(&r, scenario, &mut ChaChaDice::from_seed([0; 32])).unwrap();
    st.sides
}

/// Checks every mail in the outbox not in `sent` yet that goes to one of the
/// sides, against what that side knew from `states[0]` to `states[1]`;
/// returns how many it checked.
#[allow(clippy::too_many_arguments)] // a test's checker: one call site
fn check_new_mails(
    site: &Site,
    sent: &mut BTreeSet<String>,
    emails: &[&str; 2],
    states: [&M44; 2],
    events: &[Value],
    said: &[String; 2],
    mine: &mut [BTreeSet<String>; 2],
    boards: &mut [Board; 2],
    context: &str,
) -> u32 {
    let r = Ruleset::builtin().unwrap();
    let [before, after] = states;
    for (i, m) in mine.iter_mut().enumerate() {
        own_cards(before, i, &[], m);
        own_cards(after, i, events, m);
    }
    let mut checked = 0;
    for (name, raw) in std::fs::read_dir(site.path().join("mail/outbox"))
        .unwrap()
        .filter_map(|e| {
            let e = e.ok()?;
            Some((e.file_name().to_string_lossy().into_owned(), e.path()))
        })
        .filter(|(name, _)| name.ends_with(".eml"))
        .map(|(name, path)| (name, std::fs::read(path).unwrap()))
        .collect::<Vec<_>>()
    {
        if !sent.insert(name.clone()) {
            continue;
        }
        let p = parts(&raw);
        let Some(i) = emails.iter().position(|e| *e == p.to) else {
            continue;
        };
        let k = known(&r, before, after, i, events, &said[i]);
        let empty = Value::Object(serde_json::Map::new());
        let v = p.json.as_ref().unwrap_or(&empty);
        let mut problems = leaks(&r, after, i, &k, v, &p.html, &p.text);
        problems.extend(board_leaks(
            &r,
            before,
            after,
            i,
            &k,
            &mut boards[i],
            v,
            &p.html,
            &p.text,
        ));
        assert!(
            problems.is_empty(),
            "{context}, mail {name} to {}:\n{}\n\n{}\nthe turn's events: {}",
            p.to,
            problems.join("\n"),
            p.text,
            serde_json::to_string(events).unwrap_or_default()
        );
        let json = p.json.as_ref().map(Value::to_string).unwrap_or_default();
        let cards = card_leaks(&r, &mine[i], &[&p.text, &p.html, &json]);
        assert!(
            cards.is_empty(),
            "{context}, mail {name} to {}:\n{}\n\n{}",
            p.to,
            cards.join("\n"),
            p.text
        );
        checked += 1;
    }
    checked
}

/// While a Kriegspiel game runs, its export (every order and event whole)
/// is the referee's only; the players' is refused with the reason.
#[test]
fn a_running_kriegspiel_game_exports_only_for_the_referee() {
    let site = Site::new();
    site.new_game(
        "pegasus-bridge",
        &["allies=a@example.org", "axis=b@example.org"],
        &["--referee", "ref@example.org", "--kriegspiel"],
    );
    common::submit_random_turns(&site, 2, 3);
    let out = site.run(&["export", "1"]);
    assert!(!out.status.success(), "the players' export is refused");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("fog of war") && err.contains("--referee"),
        "{err}"
    );
    let full = site.ok(&["export", "1", "--referee"]);
    let file = site.path().join("referee-export.json");
    std::fs::write(&file, full).unwrap();
    let verified = site.ok(&["verify", file.to_str().unwrap()]);
    assert!(verified.contains("OK: game 1"), "{verified}");
}

/// Every run of exactly 64 hex digits in `text` (a seed, a commitment).
fn hex64(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !c.is_ascii_hexdigit())
        .filter(|w| w.len() == 64)
        .map(str::to_ascii_lowercase)
        .collect()
}

/// The decoded texts of every mail in the outbox to `who`.
fn mails_to(site: &Site, who: &str) -> Vec<String> {
    site.outbox()
        .into_iter()
        .map(|(_, raw)| raw)
        .filter(|raw| parts(raw.as_bytes()).to == who)
        .map(|raw| {
            let p = parts(raw.as_bytes());
            format!("{}\n{}", p.text, common::unqp(&raw))
        })
        .collect()
}

/// The game's secret seed, as the store keeps it.
fn master_seed(site: &Site) -> String {
    site.db()
        .query_row("SELECT seed FROM games WHERE id = 1", [], |r| r.get(0))
        .unwrap()
}

/// Issue 28, acceptance 2: in a fog-of-war game, everything a side has been
/// mailed while the game runs holds no seed from which it could re-run a die
/// (neither a turn's seed nor the game's: a die is a function of the turn
/// seed, itself a hash of the game seed); the referee has every turn's
/// seed as it happens; each turn's commitment goes to the sides at once;
/// and when the game ends, the sides have the game seed and `verify` checks
/// every die. (Before the fix every report named its turn's seed, and the
/// first assertion failed at turn 1.)
#[test]
fn a_side_cannot_replay_the_dice_of_a_fog_game_until_it_ends() {
    use adjutant::engine::dice::{commitment, parse_seed, turn_seed};
    let site = Site::new();
    let emails = ["a@example.org", "b@example.org"];
    site.new_game(
        "pegasus-bridge",
        &["allies=a@example.org", "axis=b@example.org"],
        &["--referee", "ref@example.org", "--kriegspiel"],
    );
    let played = common::submit_random_turns(&site, 6, 11) as u32;
    site.ok(&["serve", "--once"]);
    assert!(played >= 2, "turns were played");
    let master_hex = master_seed(&site);
    let master = parse_seed(&master_hex).unwrap();
    let turn = turn_of(&site);
    let seeds: Vec<String> = (1..=turn)
        .map(|t| hex::encode(turn_seed(&master, t)))
        .collect();
    for who in emails {
        let mails = mails_to(&site, who);
        assert!(!mails.is_empty(), "{who} was mailed");
        let told: BTreeSet<String> = mails.iter().flat_map(|m| hex64(m)).collect();
        assert!(!told.contains(&master_hex), "{who} was told the game seed");
        for (t, s) in seeds.iter().enumerate() {
            assert!(
                !told.contains(s),
                "{who} was told the seed of turn {} while the game runs",
                t + 1
            );
        }
        // The next turn's commitment goes out at once.
        let next = commitment(&turn_seed(&master, turn + 1));
        assert!(
            told.contains(&next),
            "{who} has turn {}'s commitment",
            turn + 1
        );
    }
    // The referee has every seed as it happens.
    let referee: BTreeSet<String> = mails_to(&site, "ref@example.org")
        .iter()
        .flat_map(|m| hex64(m))
        .collect();
    for (t, s) in seeds.iter().enumerate() {
        assert!(referee.contains(s), "the referee has turn {}'s seed", t + 1);
    }
    // The game ends: the game seed reaches the sides, and the players'
    // export (theirs now) replays every die.
    let addr = reply_address(&site, emails[0]);
    site.drop_mail(
        "resign.eml",
        &mail(emails[0], &addr, "resign", "resign@example.org", "RESIGN\n"),
    );
    site.ok(&["serve", "--once"]);
    let over: BTreeSet<String> = mails_to(&site, emails[1])
        .iter()
        .flat_map(|m| hex64(m))
        .collect();
    assert!(
        over.contains(&master_hex),
        "the game seed is told at the end"
    );
    let verified = site.export_and_verify(&[]);
    assert!(verified.contains("OK: game 1"), "{verified}");
    for t in 1..=turn {
        assert!(
            verified.contains(&format!("turn {t}: the mails' State line reads")),
            "{verified}"
        );
    }
}

/// Issue 28: the State line is no oracle. A side that rebuilt the whole
/// state but for one unseen enemy unit's hex (here the test gives it every
/// other byte of the stored state) tries every hex of the board for it and
/// hashes each candidate: no candidate, the true one included, gives a
/// State line of its mails. (Before the fix the line was the state's hash,
/// and the true hex was found.) Both sides get the same line for the same
/// position, so they can compare it.
#[test]
fn the_state_line_does_not_test_guesses_about_an_unseen_unit() {
    let r = Ruleset::builtin().unwrap();
    let site = Site::new();
    site.new_game(
        "pegasus-bridge",
        &["allies=a@example.org", "axis=b@example.org"],
        &["--referee", "ref@example.org", "--kriegspiel"],
    );
    common::submit_random_turns(&site, 3, 5);
    site.ok(&["serve", "--once"]);
    let state_lines = |who: &str| -> BTreeSet<String> {
        mails_to(&site, who)
            .iter()
            .flat_map(|m| {
                m.lines()
                    .filter_map(|l| l.strip_prefix("State "))
                    .map(|l| l.trim().to_string())
                    .collect::<Vec<_>>()
            })
            .collect()
    };
    let (a, b) = (state_lines("a@example.org"), state_lines("b@example.org"));
    assert!(
        !a.is_empty() && a.intersection(&b).next().is_some(),
        "{a:?} {b:?}"
    );
    let board = M44::board(&r).hexes();
    let mut tried = 0;
    for t in 0..=turn_of(&site) {
        let (text, stored): (String, String) = site
            .db()
            .query_row(
                "SELECT state, state_hash FROM snapshots WHERE game_id = 1 AND turn = ?1",
                [t],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .unwrap();
        let st: M44 = serde_json::from_str(&text).unwrap();
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v.to_string(), text, "the attack rebuilds the stored bytes");
        for (k, u) in st.units.iter().enumerate() {
            if u.side == 0 || fog::sees(&r, &st, 0, u) {
                continue;
            }
            for h in &board {
                let mut guess = v.clone();
                guess["units"][k]["at"] = Value::String(h.to_string());
                let hash = adjutant::service::state_hash(&guess.to_string());
                tried += 1;
                if *h == u.at {
                    // The attack is sound: the true hex gives the state's hash.
                    assert_eq!(hash, stored, "turn {t}: the rebuilt state");
                }
                assert!(
                    !a.contains(&hash),
                    "turn {t}: the State line tells the unseen unit {} is at {h}",
                    u.id
                );
            }
        }
    }
    assert!(tried > 100, "guesses were tried: {tried}");
}
