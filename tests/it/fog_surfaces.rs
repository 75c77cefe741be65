//! Fog of war over every surface a viewer can reach (issues 53 and 59; the
//! project's first priority, docs/rules/kriegspiel.md): two games that
//! differ only in what a viewer cannot see give that viewer the same bytes.
//!
//! `kriegspiel_twins` holds the property on the `Rules` contract (twin
//! positions). This module holds it on the whole judge, from outside, as a
//! player, an observer or a host reaches it, for EACH side of a Kriegspiel
//! game as the one kept in the dark. A game is played a few turns with a
//! referee and an observer (and, deep, a team game: every member a viewer);
//! its site is copied into two twins, and one twin is made to differ in what
//! the viewers (every member of the other side, and the observer) cannot
//! see:
//! - **secrets** ([`Twin::Secrets`]): an unreadable event private to the
//!   hidden side (a kind from a newer build) in every turn; every card it
//!   drew another; its hand (the cards deep in the deck) and last card in
//!   the position; and mails of its own in this twin only: a PREDICT, a
//!   refused order, a team proposal, a part held for its C-in-C;
//! - **units** ([`Twin::Units`]): the hidden side's units that the viewer's
//!   view leaves out (drawn from the game itself: the referee's view.json
//!   against the viewer's, so a new kind of hidden thing is covered) moved
//!   to a hex the viewer does not see, removed, or weakened; and the board
//!   where the viewer sees nothing changed (wire laid, a minefield turned
//!   over), as the engine keeps it off the viewers' boards.
//!
//! Then, on both twins from the same clock:
//! - **every mail command** of the protocol's command table
//!   (`adjutant::protocol::COMMANDS`, so a new command is covered without a
//!   word here; its argument is a sample of its argument's form, and a new
//!   form fails the test until it is given one), sent by every seat and the
//!   referee, alone and (secrets) with the sender's orders after it, and
//!   the viewer's PREDICT and refused orders naming the twin's hexes: every
//!   mail each viewer receives, every MIME part of it (text, HTML, PNG, SVG,
//!   view.json, whatever a new part is), byte for byte, and its subject;
//! - **the deadline**: the reminder before it and the missed-deadline pass
//!   after it (the turn report of the pass);
//! - **the host's CLI**: every command whose `--help` offers `--as` (from
//!   the CLI's own command list: `show` in every format `show --help`
//!   lists, for every turn; `replay`) as each viewer, and the players'
//!   export.
//!
//! `a_leak_of_a_planted_event_is_seen` and `a_leak_of_a_seen_unit_is_seen`
//! prove the comparisons can fail: an event of the same kind made public,
//! and a unit the viewer sees changed, each tell the twins apart.

use crate::common::{depth, latest_state, mail, reply_address, set_picture, Site};
use adjutant::engine::dice::ChaChaDice;
use adjutant::protocol::COMMANDS;
use adjutant::rules::memoir44::{self, fog, State as M44};
use adjutant::rules::{Load, Rules, State};
use mail_parser::MimeHeaders;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The clock every twin's judge runs at.
const NOW: &str = "2026-11-24T10:00:00Z";
const REFEREE: &str = "ref@example.org";
const OBSERVER: &str = "olga@example.org";
/// The hex the AMEND sample names: no twin changes a unit there.
const AMENDED: &str = "F5";

/// A played game and its seats, in seat order (a side's C-in-C first).
struct Table {
    site: Site,
    seats: Vec<(String, String)>,
    /// The shared base this table's site is a copy of ([`shared_base`]).
    _base: Option<std::sync::Arc<Table>>,
}

impl Table {
    fn sides(&self) -> Vec<String> {
        let mut v: Vec<String> = Vec::new();
        for (s, _) in &self.seats {
            if !v.contains(s) {
                v.push(s.clone());
            }
        }
        v
    }
    fn members(&self, side: &str) -> Vec<String> {
        self.seats
            .iter()
            .filter(|(s, _)| s == side)
            .map(|(_, e)| e.clone())
            .collect()
    }
    /// Who must not tell twins apart that differ in what `hidden` alone
    /// may know: every member of the other sides, and the observer.
    fn viewers(&self, hidden: &str) -> Vec<String> {
        let mut v: Vec<String> = self
            .seats
            .iter()
            .filter(|(s, _)| s != hidden)
            .map(|(_, e)| e.clone())
            .collect();
        v.push(OBSERVER.into());
        v
    }
}

/// A game to play: its scenario, whether the sides are teams, the turns
/// played before the twins, the random orders' seed.
struct Game {
    scenario: &'static str,
    team: bool,
    turns: usize,
    seed: u8,
}

/// The games: quick, the first (Pegasus Bridge with an observer); deep,
/// one of the others by the deep run's round (`ADJUTANT_DEEP_ROUND` mod 3,
/// docs/testing.md): a team game, the night (Merville Battery) or the
/// airdrops (Maleme, a team game); each was the deep run's longest test
/// when all three played in every deep run. `FOG_GAMES` (and `FOG_FROM`,
/// the first) choose them by number, to replay one.
fn games() -> Vec<(usize, Game)> {
    let set = |v: &str| std::env::var(v).is_ok_and(|x| x.parse::<u64>().is_ok());
    let (first, count) = if depth::deep() && !set("FOG_GAMES") && !set("FOG_FROM") {
        let k = 1 + (depth::round() % 3) as usize;
        (k, k + 1)
    } else {
        let count = depth::games("FOG_GAMES", 1, 4) as usize;
        (depth::first("FOG_FROM", 1, count as u64) as usize, count)
    };
    all_games()
        .into_iter()
        .enumerate()
        .skip(first)
        .take(count.saturating_sub(first))
        .collect()
}

fn all_games() -> Vec<Game> {
    let mut v = vec![Game {
        scenario: "pegasus-bridge",
        team: false,
        turns: 4,
        seed: 53,
    }];
    {
        v.extend([
            Game {
                scenario: "pegasus-bridge",
                team: true,
                turns: 5,
                seed: 59,
            },
            Game {
                scenario: "merville-battery",
                team: false,
                turns: 6,
                seed: 7,
            },
            Game {
                scenario: "maleme",
                team: true,
                turns: 4,
                seed: 11,
            },
        ]);
    }
    v
}

/// The caps on answers raised: the twins ask far more in an hour than a
/// player would, and every answer is a surface to compare.
fn raise_caps(site: &Site) {
    let cfg = std::fs::read_to_string(site.config()).unwrap();
    let mut out = String::new();
    for line in cfg.lines() {
        let key = line.split('=').next().unwrap_or("").trim();
        match key {
            "answers_per_address_hour"
            | "answers_per_address_day"
            | "error_answers_per_address_day"
            | "commands_per_mail" => out.push_str(&format!("{key} = 100000\n")),
            _ => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    std::fs::write(site.config(), out).unwrap();
}

/// Play `turns` random turns of game 1 through `adjutant submit`, each on
/// what the mover knows; fewer if the game ends first.
fn play(site: &Site, turns: usize, seed: u8) -> usize {
    let rules = memoir44::Ruleset::builtin().unwrap();
    let mut rng = ChaChaDice::from_seed([seed; 32]);
    let file = site.path().join("random-orders.txt");
    for played in 0..turns {
        let state = latest_state(site);
        let Some(side) = memoir44::waiting(&state).sides.first().cloned() else {
            return played;
        };
        let known = fog::knowledge(&rules, &state, state.to_move);
        std::fs::write(
            &file,
            memoir44::random_orders(&rules, &known, &side, &mut rng),
        )
        .unwrap();
        site.ok(&["submit", "1", &side, file.to_str().unwrap()]);
    }
    turns
}

/// The base game: Kriegspiel with a referee and an observer, both
/// pictures in every mail, a deadline (a missed one passes the turn), a
/// few random turns played.
fn base(g: &Game) -> Table {
    let site = Site::new();
    raise_caps(&site);
    set_picture(&site, "both");
    let seats: Vec<(String, String)> = if g.team {
        [
            ("allies", "alice"),
            ("allies", "carol"),
            ("axis", "bob"),
            ("axis", "dave"),
        ]
        .iter()
        .map(|(s, n)| (s.to_string(), format!("{n}@example.org")))
        .collect()
    } else {
        vec![
            ("allies".into(), "alice@example.org".into()),
            ("axis".into(), "bob@example.org".into()),
        ]
    };
    let seat_args: Vec<String> = seats.iter().map(|(s, e)| format!("{s}={e}")).collect();
    let seat_args: Vec<&str> = seat_args.iter().map(String::as_str).collect();
    // The game's dice from the game's own seed too, so that a failure's
    // game (named by FOG_FROM) is played again the same.
    site.new_game_seeded(
        g.scenario,
        &seat_args,
        &[
            "--referee",
            REFEREE,
            "--observer",
            OBSERVER,
            "--kriegspiel",
            "--deadline",
            "72h",
            "--nmr",
            "pass",
        ],
        &format!("fog-{}", g.seed),
    );
    assert!(play(&site, g.turns, g.seed) >= 2, "turns were played");
    assert!(!over(&site), "{}: the game goes on", g.scenario);
    Table {
        site,
        seats,
        _base: None,
    }
}

/// Game 0's base (Pegasus Bridge), played once for the quick run's three
/// tests that start side by side on it (the comparison and the two
/// leaks): each gets a copy of its site, made under the lock, so none
/// reads or changes another's. Held weakly, by the copies: the last test
/// to drop its copy removes the base's directory, and a test that starts
/// after that plays it again.
fn shared_base() -> Table {
    use std::sync::{Arc, Mutex, Weak};
    static BASE: Mutex<Weak<Table>> = Mutex::new(Weak::new());
    let mut held = BASE.lock().unwrap_or_else(|e| e.into_inner());
    let base = held.upgrade().unwrap_or_else(|| {
        let t = Arc::new(base(&all_games()[0]));
        *held = Arc::downgrade(&t);
        t
    });
    Table {
        site: copy_of(&base.site),
        seats: base.seats.clone(),
        _base: Some(base),
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

/// A copy of `site`: the same database, key, config and mailboxes.
fn copy_of(site: &Site) -> Site {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(site.path(), dir.path());
    Site { dir }
}

/// Plant events in game 1's store at `turn`: each (json) after the last.
fn plant(site: &Site, turn: i64, events: &[String]) {
    let db = site.db();
    for e in events {
        let next: i64 = db
            .query_row(
                "SELECT coalesce(max(seq), -1) + 1 FROM events WHERE game_id = 1 AND turn = ?1",
                [turn],
                |r| r.get(0),
            )
            .unwrap();
        db.execute(
            "INSERT INTO events (game_id, turn, seq, event) VALUES (1, ?1, ?2, ?3)",
            rusqlite::params![turn, next, e],
        )
        .unwrap();
    }
}

/// The unreadable event the viewers must never read: a kind from a newer
/// build, private to `side` (or, `public`, told to everyone: a leak).
fn sealed_orders(side: &str, public: bool) -> String {
    format!(
        r#"{{"kind":"sealed-orders","side":"{side}","private":{},"text":"attack at dawn"}}"#,
        !public
    )
}

/// Each card `side` drew, told to it alone, made another card the game
/// knows: the others see that it drew, never what.
fn change_drawn_cards(site: &Site, side: &str) -> usize {
    let db = site.db();
    let rows: Vec<(i64, i64, String)> = {
        let mut st = db
            .prepare("SELECT turn, seq, event FROM events WHERE game_id = 1 AND event LIKE '%\"card-drawn\"%'")
            .unwrap();
        let v = st
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        v
    };
    let events: Vec<Value> = rows
        .iter()
        .map(|r| serde_json::from_str(&r.2).unwrap())
        .collect();
    let cards: Vec<String> = events
        .iter()
        .filter_map(|e| e["card"].as_str().map(str::to_string))
        .collect();
    let mut changed = 0;
    for ((turn, seq, _), e) in rows.iter().zip(&events) {
        if e["side"] != side || e["private"] != true {
            continue;
        }
        let Some(other) = cards
            .iter()
            .find(|c| Some(c.as_str()) != e["card"].as_str())
        else {
            continue;
        };
        let mut e = e.clone();
        e["card"] = other.as_str().into();
        db.execute(
            "UPDATE events SET event = ?1 WHERE game_id = 1 AND turn = ?2 AND seq = ?3",
            rusqlite::params![e.to_string(), turn, seq],
        )
        .unwrap();
        changed += 1;
    }
    changed
}

/// Rewrite game 1's latest position through `change` (and its hash, as
/// the judge writes them).
fn rewrite_position(site: &Site, change: impl FnOnce(&mut M44)) {
    let rules = Rules::load("memoir44").unwrap();
    let mut s = latest_state(site);
    change(&mut s);
    let json = rules.to_json(&State::of(s));
    let hash = adjutant::service::state_hash(&json);
    site.db()
        .execute(
            "UPDATE snapshots SET state = ?1, state_hash = ?2 WHERE game_id = 1 \
             AND turn = (SELECT max(turn) FROM snapshots WHERE game_id = 1)",
            rusqlite::params![json, hash],
        )
        .unwrap();
}

/// `site`'s view.json of the latest turn as `who` sees it.
fn view(site: &Site, who: &str) -> Value {
    let out = site.ok(&["show", "1", "--as", who, "--format", "json"]);
    serde_json::from_str(&out).expect("view.json")
}

/// The units of `hidden` that `viewer`'s view leaves out, read from the
/// game itself: the referee's view.json against the viewer's (a unit the
/// viewer sees stands on a hex of its view).
fn hidden_units(site: &Site, hidden: &str, viewer: &str) -> Vec<u32> {
    let seen: BTreeSet<String> = view(site, viewer)["units"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|u| u["at"].as_str().map(str::to_string))
        .collect();
    view(site, "referee")["units"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|u| u["side"] == hidden)
        .filter(|u| u["at"].as_str().is_some_and(|at| !seen.contains(at)))
        .filter_map(|u| u["id"].as_u64().map(|i| i as u32))
        .collect()
}

/// How the second twin differs from the first.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Twin {
    /// The hidden side's secrets: its private and unreadable events, its
    /// drawn cards, hand and last card, its own mails.
    Secrets,
    /// The hidden side's units the viewers' views leave out.
    Units,
    /// A leak: the unreadable event told to everyone.
    PublicEvent,
    /// A leak: a unit of the hidden side that a viewer sees, weakened.
    SeenUnit,
}

/// The hidden side's secrets in the position: its hand swapped with
/// cards deep in the deck (none the viewer draws soon; never an Ambush,
/// which the table shows when played), its last card another.
fn change_hand(s: &mut M44, hi: usize) {
    // The card its orders play stays: the twins differ in what it might
    // have done, not in what it does.
    let orders = orders_of(s, &s.sides[hi].clone());
    let keep: Vec<String> = orders
        .lines()
        .filter_map(|l| l.strip_prefix("PLAY "))
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_ascii_lowercase)
        .chain(["ambush".to_string()])
        .collect();
    let n = s.hands[hi].len();
    let mut j = 8;
    for i in 0..n {
        if keep.contains(&s.hands[hi][i]) {
            continue;
        }
        while j < s.deck.len() && keep.contains(&s.deck[j]) {
            j += 1;
        }
        if j >= s.deck.len() {
            break;
        }
        std::mem::swap(&mut s.hands[hi][i], &mut s.deck[j]);
        j += 1;
    }
    if let Some(card) = s.deck.get(9).cloned() {
        s.last_played[hi] = Some(memoir44::state::Played {
            card,
            section: None,
        });
    }
}

/// The hidden side's units the viewer does not see: the first moved to
/// an empty hex the viewer does not see, the second removed, the third
/// weakened (or strengthened). `seen`: a unit the viewer sees weakened
/// instead (a leak). Returns what changed.
fn change_units(s: &mut M44, hi: usize, ids: &[u32], seen: bool) -> Vec<String> {
    let r = memoir44::Ruleset::builtin().unwrap();
    let vi = M44::other(hi);
    let amended = memoir44::Hex::parse(AMENDED);
    let mut done = Vec::new();
    if seen {
        let id = s
            .units
            .iter()
            .find(|u| u.side == hi && fog::sees(&r, s, vi, u) && u.figures > 1)
            .map(|u| u.id)
            .expect("a seen unit of more than one figure");
        let u = s.unit_mut(id).unwrap();
        u.figures -= 1;
        done.push(format!("seen unit at {} weakened", u.at));
        return done;
    }
    let ids: Vec<u32> = ids
        .iter()
        .copied()
        .filter(|id| {
            // Not on an objective: holding one may win medals, which
            // are public.
            s.unit(*id).is_some_and(|u| {
                u.train.is_none()
                    && Some(u.at) != amended
                    && !s.objectives.iter().any(|o| o.at == u.at)
            })
        })
        .collect();
    // The empty hexes the viewer does not see (and no objective).
    let unseen = |s: &M44| -> Vec<memoir44::Hex> {
        M44::board(&r)
            .hexes()
            .into_iter()
            .filter(|h| Some(*h) != amended && s.unit_at(*h).is_none())
            .filter(|h| !s.objectives.iter().any(|o| o.at == *h))
            .filter(|h| !fog::sees_hex(&r, s, vi, *h))
            .collect()
    };
    if let Some(&id) = ids.first() {
        if let Some(to) = unseen(s).last().copied() {
            let u = s.unit_mut(id).unwrap();
            done.push(format!("unit moved from {} to {to}", u.at));
            u.at = to;
        }
    }
    // A unit added where the viewer does not look, like one of the side's
    // own (fresh, in the open).
    let like = s
        .units
        .iter()
        .find(|u| u.side == hi && u.train.is_none())
        .cloned();
    if let (Some(mut u), Some(to)) = (like, unseen(s).first().copied()) {
        u.id = s.next_unit;
        s.next_unit += 1;
        u.at = to;
        u.figures = u.start;
        u.concealed = false;
        u.fixed = false;
        done.push(format!("unit added at {to}"));
        s.units.push(u);
    }
    if let Some(&id) = ids.get(1) {
        done.push(format!("unit at {} removed", s.unit(id).unwrap().at));
        s.units.retain(|u| u.id != id);
        s.engagements.retain(|e| e.a != id && e.b != id);
        s.cross_hairs.retain(|x| x.gun != id && x.target != id);
    }
    if let Some(&id) = ids.get(2) {
        let u = s.unit_mut(id).unwrap();
        u.figures = if u.figures > 1 { u.figures - 1 } else { 2 };
        done.push(format!("unit at {} now {} figures", u.at, u.figures));
    }
    done.extend(change_board(&r, s, vi));
    // The twin is a twin only if the viewer still sees none of it.
    let moved: Vec<u32> = ids.iter().take(3).copied().collect();
    let added = s.next_unit - 1;
    for u in s
        .units
        .iter()
        .filter(|u| moved.contains(&u.id) || u.id == added)
    {
        assert!(!fog::sees(&r, s, vi, u), "a twin's unit is in sight");
    }
    done
}

/// The board where viewer `vi` sees nothing, changed as the hidden side's
/// units would change it out of sight: wire laid on an empty hex (as if cut
/// in the first twin), and a minefield turned over, each with the viewer's
/// and the observers' memory of the board as it was (docs/rules/kriegspiel.md:
/// a change out of sight stays off their boards).
fn change_board(r: &memoir44::Ruleset, s: &mut M44, vi: usize) -> Vec<String> {
    let mut done = Vec::new();
    let amended = memoir44::Hex::parse(AMENDED);
    let hex = M44::board(r).hexes().into_iter().find(|&h| {
        Some(h) != amended
            && s.unit_at(h).is_none()
            && s.features(h).is_empty()
            && !s.objectives.iter().any(|o| o.at == h)
            && !s.minefields.iter().any(|m| m.at == h)
            && !fog::sees_hex(r, s, vi, h)
    });
    let observers = s.sides.len();
    if let Some(h) = hex {
        let fog = s.fog.as_mut().expect("a Kriegspiel game");
        fog.terrain_seen.resize(observers + 1, BTreeMap::new());
        for i in [vi, observers] {
            fog.terrain_seen[i].insert(h, Vec::new());
        }
        s.terrain.insert(h, vec!["wire".into()]);
        done.push(format!("wire at {h}"));
    }
    let turned = s
        .minefields
        .iter()
        .position(|m| !m.revealed && !fog::sees_hex(r, s, vi, m.at));
    if let Some(k) = turned {
        s.minefields[k].revealed = true;
        done.push(format!("minefield at {} turned over", s.minefields[k].at));
    }
    done
}

/// The hidden side's own mails, sent in the second twin only: a PREDICT,
/// a refused order, (team) a proposal and a member's orders.
fn secret_mails(t: &Table, site: &Site, hidden: &str) {
    let state = latest_state(site);
    let r = memoir44::Ruleset::builtin().unwrap();
    let hi = state.sides.iter().position(|s| s == hidden).unwrap();
    let known = fog::knowledge(&r, &state, hi);
    let mut rng = ChaChaDice::from_seed([59; 32]);
    let orders = memoir44::random_orders(&r, &known, hidden, &mut rng);
    let hand = state.hands[hi].first().cloned().unwrap_or_default();
    let mut mails = Vec::new();
    for (i, who) in t.members(hidden).iter().enumerate() {
        mails.push((who.clone(), format!("PREDICT\n{orders}\n")));
        mails.push((who.clone(), "ORDER M9 A1\nBATTLE A1 M9\n".to_string()));
        if i > 0 {
            // A Field Marshal's proposal and part (without the card, the
            // C-in-C's): held for the team, or refused; never the enemy's.
            let part: String = orders
                .lines()
                .filter(|l| !l.starts_with("PLAY"))
                .map(|l| format!("{l}\n"))
                .collect();
            mails.push((who.clone(), format!("PROPOSE {hand} # a secret plan\n")));
            mails.push((who.clone(), part));
        }
    }
    send_batch(site, "secret", &mails);
}

/// The twins for `hidden` kept from the viewers: `a` as played, `b`
/// differing by `kind`.
fn twins(t: &Table, hidden: &str, kind: Twin) -> (Site, Site, Vec<String>) {
    let (a, b) = (copy_of(&t.site), copy_of(&t.site));
    let hi = latest_state(&t.site)
        .sides
        .iter()
        .position(|s| s == hidden)
        .unwrap();
    // Both twins' positions go through the same writing.
    rewrite_position(&a, |_| {});
    let mut what = Vec::new();
    match kind {
        Twin::Secrets | Twin::PublicEvent => {
            let turns: Vec<i64> = {
                let db = b.db();
                let mut st = db
                    .prepare("SELECT DISTINCT turn FROM events WHERE game_id = 1 ORDER BY turn")
                    .unwrap();
                let v = st
                    .query_map([], |r| r.get(0))
                    .unwrap()
                    .map(Result::unwrap)
                    .collect();
                v
            };
            for turn in turns {
                plant(
                    &b,
                    turn,
                    &[sealed_orders(hidden, kind == Twin::PublicEvent)],
                );
            }
            let n = change_drawn_cards(&b, hidden);
            assert!(n > 0, "{hidden} drew cards");
            what.push(format!("sealed events; {n} drawn cards"));
            if kind == Twin::Secrets {
                rewrite_position(&b, |s| change_hand(s, hi));
                secret_mails(t, &b, hidden);
                what.push("hand, last card, own mails".into());
            }
        }
        Twin::Units | Twin::SeenUnit => {
            let viewer = t.sides().into_iter().find(|s| s != hidden).unwrap();
            let ids = hidden_units(&t.site, hidden, &viewer);
            rewrite_position(&b, |s| {
                what = change_units(s, hi, &ids, kind == Twin::SeenUnit);
            });
            assert!(!what.is_empty(), "no unit of {hidden} to change");
        }
    }
    (a, b, what)
}

/// A sample argument of each argument form of the command table. A form
/// not here fails the test: give it a sample.
fn sample(args: &str, turn: u32) -> String {
    match args {
        "" | "[OFF]" => String::new(),
        "[TURN]" => "1".into(),
        "ID" => "1".into(),
        "SECRET" => "not-the-secret".into(),
        "N" => turn.to_string(),
        "ZONE" => "Europe/Paris".into(),
        "KIND" => "SVG".into(),
        "FROM TO" => "2026-12-01 2026-12-03".into(),
        "CARD [# WHY]" => "recon-left # they are weak there".into(),
        "TEXT" => "hello, all".into(),
        "FIX BECAUSE WHY" => format!("UNIT {AMENDED} FIGURES 2 BECAUSE a die rolled twice"),
        "TIME" => "48h".into(),
        other => panic!(
            "the command table has a new argument form {other:?}: give it a sample in fog_surfaces::sample"
        ),
    }
}

/// Every mail body a sender may send: each command of the table with its
/// sample argument, alone and (`with_orders`, a player) with the sender's
/// orders after it. The commands that end a game or change the sender's
/// address come last.
fn bodies(site: &Site, side: Option<&str>, twin: Twin) -> Vec<String> {
    let state = latest_state(site);
    let orders = side.map(|s| orders_of(&state, s)).unwrap_or_default();
    // The units twins change what the table would meet: a turn played is
    // compared in the secrets twins; here the commands alone, and no word
    // that ends the game (its export is everyone's). REVEAL is the
    // referee lifting the screen for everyone: every unit on the board
    // (so not across the units twins), but never a hand or a private
    // event (docs/referee.md), so it is compared across the secrets twins.
    let units = matches!(twin, Twin::Units | Twin::SeenUnit);
    let mut out = Vec::new();
    for c in COMMANDS {
        let referee = c.help.starts_with("referee:");
        if referee != side.is_none() && !matches!(c.word, "HELP" | "STATUS" | "MAP") {
            continue;
        }
        if units && matches!(c.word, "REVEAL" | "RESIGN" | "DRAW") {
            continue;
        }
        let line = format!("{} {}", c.word, sample(c.args, state.turn))
            .trim_end()
            .to_string();
        out.push(format!("{line}\n"));
        if side.is_some() && (!units || c.word == "PREDICT") {
            out.push(format!("{line}\n{orders}\n"));
        }
    }
    out
}

/// The commands that change the sender's address or end the game last.
fn in_order(mut bodies: Vec<String>) -> Vec<String> {
    bodies.sort_by_key(|b| {
        (b.starts_with("ROTATE") as u8)
            + 2 * (b.starts_with("RESIGN") || b.starts_with("DRAW")) as u8
    });
    bodies
}

/// The orders `side` sends with its commands: random legal ones on what
/// it knows.
fn orders_of(state: &M44, side: &str) -> String {
    let r = memoir44::Ruleset::builtin().unwrap();
    let mut rng = ChaChaDice::from_seed([53; 32]);
    let si = state.sides.iter().position(|x| x == side).unwrap();
    let known = fog::knowledge(&r, state, si);
    memoir44::random_orders(&r, &known, side, &mut rng)
}

/// The viewer's orders naming the hexes where a twin differs (and only
/// hexes it does not see): refused in the same words whatever stands
/// there ("you have no unit at F5", "you see no enemy unit at F5").
fn crafted(site: &Site, side: &str, hexes: &[String]) -> Vec<String> {
    let state = latest_state(site);
    let si = state.sides.iter().position(|x| x == side).unwrap();
    let card = state.hands[si].first().cloned().unwrap_or_default();
    let own = state
        .units
        .iter()
        .find(|u| u.side == si)
        .map(|u| u.at.to_string())
        .unwrap_or_default();
    let mut out = Vec::new();
    for h in hexes {
        out.push(format!("PLAY {card}\nORDER {h}\nMOVE {h} {own}\n"));
        out.push(format!("PLAY {card}\nORDER {own}\nBATTLE {own} {h}\n"));
        out.push(format!(
            "PREDICT\nPLAY {card}\nORDER {own}\nBATTLE {own} {h}\n"
        ));
    }
    out
}

/// The hexes named in a twin's description ("unit moved from E7 to M9").
fn hexes_of(what: &[String]) -> Vec<String> {
    what.iter()
        .flat_map(|w| w.split_whitespace())
        .filter(|w| memoir44::Hex::parse(w).is_some() && w.len() <= 3)
        .map(str::to_string)
        .collect()
}

/// The outbox's file names now.
fn sent(site: &Site) -> Vec<String> {
    site.outbox().into_iter().map(|(n, _)| n).collect()
}

/// Drop each (sender, body) into the inbox, to the sender's reply address,
/// and run one pass of the judge.
fn send_batch(site: &Site, tag: &str, mails: &[(String, String)]) {
    let pass = || {
        site.at(NOW, &["serve", "--once"]);
        let left = std::fs::read_dir(site.inbox_new()).unwrap().count();
        assert_eq!(left, 0, "one pass reads every mail");
    };
    for (n, (from, body)) in mails.iter().enumerate() {
        // After a ROTATE the sender writes to its new reply address.
        if mails[..n].last().is_some_and(|m| m.1.starts_with("ROTATE")) {
            pass();
        }
        let to = reply_address(site, from);
        site.drop_mail(
            &format!("{tag}{n:04}.eml"),
            &mail(
                from,
                &to,
                "Re: your game",
                &format!("{tag}{n}@example.org"),
                body,
            ),
        );
    }
    if !mails.is_empty() {
        pass();
    }
}

/// One mail as compared: its recipient, subject and every MIME part as
/// (content type, decoded bytes).
type Parts = Vec<(String, Vec<u8>)>;

/// What each of `who` received among the mails not in `before`.
fn received(site: &Site, before: &[String], who: &[String]) -> Vec<Parts> {
    let seals = seals(site);
    let mut out = Vec::new();
    for (name, _) in site.outbox() {
        if before.contains(&name) {
            continue;
        }
        let raw = std::fs::read(site.path().join("mail/outbox").join(&name)).unwrap();
        let msg = mail_parser::MessageParser::default()
            .parse(&raw)
            .expect("a mail");
        let to: Vec<String> = msg
            .to()
            .map(|a| {
                a.iter()
                    .filter_map(|x| x.address().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        let Some(viewer) = to.iter().find(|t| who.contains(t)) else {
            continue;
        };
        let mut parts = vec![
            ("To".to_string(), viewer.as_bytes().to_vec()),
            (
                "Subject".to_string(),
                msg.subject().unwrap_or_default().as_bytes().to_vec(),
            ),
        ];
        for p in msg.parts.iter() {
            if matches!(p.body, mail_parser::PartType::Multipart(_)) {
                continue;
            }
            let ct = p
                .content_type()
                .map(|c| format!("{}/{}", c.ctype(), c.subtype().unwrap_or_default()))
                .unwrap_or_default();
            let body = if ct.starts_with("text/") {
                mask_credentials(&String::from_utf8_lossy(p.contents())).into_bytes()
            } else {
                p.contents().to_vec()
            };
            parts.push((ct, mask_seals(body, &seals)));
        }
        out.push(parts);
    }
    out
}

/// A text with its seat credentials masked: a new secret (ROTATE) and a
/// reply token are fresh random words, not a function of the game, so
/// they differ between any two judges; what they say around them does not.
fn mask_credentials(text: &str) -> String {
    let mut out = text.to_string();
    for marker in ["secret: ", "PASSWORD ", "judge+"] {
        let mut masked = String::with_capacity(out.len());
        let mut r = out.as_str();
        while let Some(i) = r.find(marker) {
            let after = &r[i + marker.len()..];
            let end = after
                .find(|c: char| !c.is_ascii_alphanumeric())
                .unwrap_or(after.len());
            masked.push_str(&r[..i + marker.len()]);
            masked.push_str("(masked)");
            r = &after[end..];
        }
        masked.push_str(r);
        out = masked;
    }
    out
}

/// The first difference between the twins' mails, as a message.
fn differ(a: &[Parts], b: &[Parts]) -> Option<String> {
    if a.len() != b.len() {
        let subjects = |m: &[Parts]| -> Vec<String> {
            m.iter()
                .map(|p| String::from_utf8_lossy(&p[1].1).into_owned())
                .collect()
        };
        return Some(format!(
            "{} mails against {}:\n  one: {:?}\n  two: {:?}",
            a.len(),
            b.len(),
            subjects(a),
            subjects(b)
        ));
    }
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        if x.len() != y.len() {
            return Some(format!("mail {i}: {} parts against {}", x.len(), y.len()));
        }
        for (p, q) in x.iter().zip(y) {
            if p != q {
                let (s, t) = (String::from_utf8_lossy(&p.1), String::from_utf8_lossy(&q.1));
                let (l1, l2): (Vec<&str>, Vec<&str>) = (s.lines().collect(), t.lines().collect());
                let k = (0..l1.len().max(l2.len()))
                    .find(|k| l1.get(*k) != l2.get(*k))
                    .unwrap_or(0);
                return Some(format!(
                    "mail {i} to {} ({:?}), part {} differs at line {k}:\n  one: {}\n  two: {}",
                    String::from_utf8_lossy(&x[0].1),
                    String::from_utf8_lossy(&x[1].1),
                    p.0,
                    l1.get(k).unwrap_or(&"(end)"),
                    l2.get(k).unwrap_or(&"(end)"),
                ));
            }
        }
    }
    None
}

/// What the compared surfaces were: mails, parts by content type, CLI runs.
#[derive(Default, Debug)]
struct Seen {
    mails: usize,
    parts: BTreeMap<String, usize>,
    cli: usize,
}

/// Send `mails` to both twins (one pass each, the same clock) and compare
/// what the viewers receive; then, `deadline`, the reminder and the
/// missed-deadline pass.
fn compare_mails(
    a: &Site,
    b: &Site,
    viewers: &[String],
    mails: &[(String, String)],
    seen: &mut Seen,
) -> Result<(), String> {
    let mut got = Vec::new();
    for site in [a, b] {
        let before = sent(site);
        send_batch(site, "fog", mails);
        got.push(received(site, &before, viewers));
    }
    if over(a) && over(b) {
        // "When the game is over, the export is everyone's"
        // (docs/rules/kriegspiel.md): the replay and export a game-over
        // mail attaches hold the whole game. The words of the mail do not.
        for mails in &mut got {
            for parts in mails.iter_mut() {
                parts.retain(|(ct, _)| matches!(ct.as_str(), "To" | "Subject" | "text/plain"));
            }
        }
    }
    if let Some(d) = differ(&got[0], &got[1]) {
        let from: BTreeSet<&str> = mails.iter().map(|(f, _)| f.as_str()).collect();
        return Err(format!(
            "the viewers told the twins apart after {from:?} wrote: {d}"
        ));
    }
    seen.mails += mails.len();
    // FOG_DUMP=1 prints the plain text of every mail compared (to see
    // what a run's answers were).
    if std::env::var("FOG_DUMP").is_ok() {
        for (n, m) in got[0].iter().enumerate() {
            for (ct, body) in m {
                if ct == "text/plain" {
                    eprintln!(
                        "DUMP {n} {}\n{}",
                        String::from_utf8_lossy(&m[0].1),
                        String::from_utf8_lossy(body)
                    );
                }
            }
        }
    }
    for (ct, body) in got[0].iter().flatten() {
        *seen.parts.entry(ct.clone()).or_default() += 1;
        // The fog's refusals, in the same words on both twins.
        let text = String::from_utf8_lossy(body);
        if ct == "text/plain"
            && ["you see no enemy unit at", "you have no unit at"]
                .iter()
                .any(|w| text.contains(w))
        {
            *seen.parts.entry("fog refusal".into()).or_default() += 1;
        }
    }
    Ok(())
}

/// The host's commands that mail a viewer, on copies of the twins: a
/// seat handed to a newcomer (its welcome holds the position), a new
/// secret, a broadcast, the clock paused and resumed.
fn host_of(t: &Table, hidden: &str, a: &Site, b: &Site, seen: &mut Seen) -> Result<(), String> {
    let (a, b) = (copy_of(a), copy_of(b));
    let side = t.sides().into_iter().find(|s| s != hidden).unwrap();
    let newcomer = "newcomer@example.org".to_string();
    let mut viewers = t.viewers(hidden);
    viewers.push(newcomer.clone());
    let runs: Vec<Vec<&str>> = vec![
        vec!["rotate-secret", "1", &side],
        vec!["replace-seat", "1", &side, &newcomer],
        vec!["broadcast", "1", "a word from the referee"],
        vec!["pause", "1"],
        vec!["resume", "1"],
    ];
    for args in runs {
        let mut got = Vec::new();
        for site in [&a, &b] {
            let before = sent(site);
            site.at(NOW, &args);
            got.push(received(site, &before, &viewers));
        }
        if let Some(d) = differ(&got[0], &got[1]) {
            return Err(format!(
                "the viewers told the twins apart after `{}`: {d}",
                args.join(" ")
            ));
        }
        for (ct, _) in got[0].iter().flatten() {
            *seen.parts.entry(format!("host {ct}")).or_default() += 1;
        }
    }
    Ok(())
}

/// The hidden side's own mails in one twin (a team's parts held, its
/// proposal) are the orders of its turn once the turn plays: a turn of
/// the hidden side is compared only where they are not.
fn pending(t: &Table, hidden: &str, kind: Twin) -> bool {
    kind == Twin::Secrets && t.members(hidden).len() > 1
}

/// The deadline's mails: a pass an hour before it (the reminder) and
/// (`missed`) a pass a minute after it (the missed deadline and its turn).
fn compare_deadline(
    a: &Site,
    b: &Site,
    viewers: &[String],
    missed: bool,
    seen: &mut Seen,
) -> Result<(), String> {
    let at: String = a
        .db()
        .query_row("SELECT deadline_at FROM games WHERE id = 1", [], |r| {
            r.get(0)
        })
        .unwrap();
    let at = chrono::DateTime::parse_from_rfc3339(&at).unwrap();
    let mut times = vec![at - chrono::Duration::hours(1)];
    if missed {
        times.push(at + chrono::Duration::minutes(1));
    }
    for when in times {
        let when = when.to_rfc3339();
        let mut got = Vec::new();
        for site in [a, b] {
            let before = sent(site);
            site.at(&when, &["serve", "--once"]);
            got.push(received(site, &before, viewers));
        }
        if let Some(d) = differ(&got[0], &got[1]) {
            return Err(format!("the viewers told the twins apart at {when}: {d}"));
        }
        for (ct, _) in got[0].iter().flatten() {
            *seen.parts.entry(format!("deadline {ct}")).or_default() += 1;
        }
    }
    Ok(())
}

/// The State lines' seals of every position of game 1 ("the state's
/// fingerprint sealed with a key drawn from the game's secret seed",
/// src/service/mod.rs `sealed_state`). A seal commits to the whole
/// position, so twins' seals differ by construction; a seal tells nothing
/// without the seed (`state_line::` tries guesses against them), so it is
/// masked in what is compared. A plain state hash is not: it would let a
/// side test a guess (docs/security.md).
fn seals(site: &Site) -> Vec<String> {
    let db = site.db();
    let seed: String = db
        .query_row("SELECT seed FROM games WHERE id = 1", [], |r| r.get(0))
        .unwrap();
    let master = adjutant::engine::dice::parse_seed(&seed).expect("a seed");
    let mut st = db
        .prepare("SELECT state_hash FROM snapshots WHERE game_id = 1")
        .unwrap();
    let v = st
        .query_map([], |r| r.get::<_, String>(0))
        .unwrap()
        .map(|h| adjutant::service::sealed_state(&master, &h.unwrap()))
        .collect();
    v
}

/// `bytes` with every seal of `seals` masked (a text; other bytes as they
/// are).
fn mask_seals(bytes: Vec<u8>, seals: &[String]) -> Vec<u8> {
    match String::from_utf8(bytes) {
        Ok(mut t) => {
            for s in seals {
                t = t.replace(s.as_str(), "(seal)");
            }
            t.into_bytes()
        }
        Err(e) => e.into_bytes(),
    }
}

/// Game 1 is over.
fn over(site: &Site) -> bool {
    site.db()
        .query_row("SELECT status FROM games WHERE id = 1", [], |r| {
            r.get::<_, String>(0)
        })
        .unwrap()
        == "over"
}

/// The formats `show --help` lists for `--format`.
fn show_formats(site: &Site) -> Vec<String> {
    let help = site.ok(&["show", "--help"]);
    let line = help
        .lines()
        .skip_while(|l| !l.contains("--format"))
        .nth(1)
        .expect("show --format's help")
        .trim()
        .to_string();
    let v: Vec<String> = line
        .replace(" or ", ", ")
        .split(", ")
        .filter_map(|w| w.split_whitespace().next().map(str::to_string))
        .collect();
    assert!(v.len() >= 5, "the formats of show: {line}");
    v
}

/// The CLI's commands that draw a viewer's view: those whose `--help`
/// offers `--as`, from the CLI's own command list (read once a run).
fn viewer_commands(site: &Site) -> Vec<String> {
    static COMMANDS_AS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    COMMANDS_AS
        .get_or_init(|| read_viewer_commands(site))
        .clone()
}

fn read_viewer_commands(site: &Site) -> Vec<String> {
    let help = site.ok(&["--help"]);
    let v: Vec<String> = help
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .filter(|c| c != "help")
        .filter(|c| site.ok(&[c.as_str(), "--help"]).contains("--as"))
        .collect();
    for must in ["show", "replay"] {
        assert!(v.iter().any(|c| c == must), "{must} offers --as: {v:?}");
    }
    v
}

/// Every CLI surface a host may hand a viewer (`as`: a side or
/// `observer`), on both twins; `all_turns`: every turn's `show`.
fn compare_cli(
    a: &Site,
    b: &Site,
    as_: &[String],
    all_turns: bool,
    predicts: &[(String, String)],
) -> Result<usize, String> {
    let turn = latest_state(a).turn;
    let mut runs: Vec<Vec<String>> = Vec::new();
    let formats = show_formats(a);
    for cmd in viewer_commands(a) {
        for who in as_ {
            let base: Vec<String> = [cmd.as_str(), "1", "--as", who]
                .map(str::to_string)
                .to_vec();
            if cmd != "show" {
                runs.push(base);
                continue;
            }
            // The latest position, without --turn.
            for f in &formats {
                let mut r = base.clone();
                r.extend(["--format".into(), f.clone()]);
                runs.push(r);
            }
            let turns: Vec<u32> = if all_turns {
                (0..=turn).collect()
            } else {
                vec![turn]
            };
            for f in &formats {
                // Every format of every turn deep; quick, every turn in
                // text and JSON and the latest in every format.
                let every = depth::deep() || f == "text" || f == "json";
                for t in turns.iter().filter(|t| every || **t == turn) {
                    let mut r = base.clone();
                    r.extend(["--format".into(), f.clone(), "--turn".into(), t.to_string()]);
                    runs.push(r);
                }
            }
        }
    }
    runs.push(["export", "1"].map(str::to_string).to_vec());
    // `predict GAME SIDE FILE`: the PREDICT mail's answer on the host, for
    // each side's orders (on what it knows) and the orders naming hexes.
    let files = tempfile::tempdir().unwrap();
    for (n, (side, orders)) in predicts.iter().enumerate() {
        let f = files.path().join(format!("orders{n}.txt"));
        std::fs::write(&f, orders).unwrap();
        runs.push(
            ["predict", "1", side, f.to_str().unwrap()]
                .map(str::to_string)
                .to_vec(),
        );
    }
    let seals: Vec<String> = seals(a).into_iter().chain(seals(b)).collect();
    for args in &runs {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out: Vec<Vec<u8>> = [a, b]
            .iter()
            .map(|s| {
                let o = s.command(&args).env("ADJUTANT_NOW", NOW).output().unwrap();
                // A refusal (the export of a running fog game) is a
                // surface too: its words are compared.
                let mut bytes = format!("{:?}\n", o.status.code()).into_bytes();
                bytes.extend(o.stdout);
                bytes.extend(o.stderr);
                mask_seals(bytes, &seals)
            })
            .collect();
        if out[0] != out[1] {
            let (s, t) = (
                String::from_utf8_lossy(&out[0]),
                String::from_utf8_lossy(&out[1]),
            );
            let l = s.lines().zip(t.lines()).find(|(l, m)| l != m);
            return Err(format!(
                "`adjutant {}` tells the twins apart: {l:?}",
                args.join(" ")
            ));
        }
    }
    Ok(runs.len())
}

/// Every surface of the twins for the viewers of `hidden`: the CLI first
/// (on the untouched twins), then each sender's mails on its own copies,
/// then the deadline.
fn compare_all(t: &Table, hidden: &str, kind: Twin, seen: &mut Seen) -> Result<(), String> {
    let (a, b, what) = twins(t, hidden, kind);
    let at = |e: String| format!("{hidden}'s {kind:?} twin ({what:?}): {e}");
    seen.cli += cli_of(t, hidden, kind, (&a, &b), &what).map_err(at)?;
    mails_of(t, hidden, kind, &a, &b, &what, seen).map_err(at)?;
    host_of(t, hidden, &a, &b, seen).map_err(at)?;
    let missed = !pending(t, hidden, kind);
    compare_deadline(&a, &b, &t.viewers(hidden), missed, seen).map_err(at)
}

/// The CLI surfaces of the viewers of `hidden` on the twins.
fn cli_of(
    t: &Table,
    hidden: &str,
    kind: Twin,
    (a, b): (&Site, &Site),
    what: &[String],
) -> Result<usize, String> {
    let mut as_: Vec<String> = t.sides().into_iter().filter(|s| s != hidden).collect();
    as_.push("observer".into());
    let all_turns = matches!(kind, Twin::Secrets | Twin::PublicEvent);
    let mut predicts = Vec::new();
    for side in t.sides().into_iter().filter(|s| s != hidden) {
        predicts.push((side.clone(), orders_of(&latest_state(a), &side)));
        for o in crafted(a, &side, &hexes_of(what)) {
            predicts.push((side.clone(), o.replace("PREDICT\n", "")));
        }
    }
    compare_cli(a, b, &as_, all_turns, &predicts)
}

/// Every sender's mails, each sender on its own copies of the twins.
fn mails_of(
    t: &Table,
    hidden: &str,
    kind: Twin,
    a: &Site,
    b: &Site,
    what: &[String],
    seen: &mut Seen,
) -> Result<(), String> {
    let viewers = t.viewers(hidden);
    let mut senders: Vec<(String, Option<String>)> = t
        .seats
        .iter()
        .map(|(s, e)| (e.clone(), Some(s.clone())))
        .collect();
    senders.push((REFEREE.into(), None));
    for (from, side) in senders {
        let (a, b) = (copy_of(a), copy_of(b));
        let mut list = bodies(&a, side.as_deref(), kind);
        if pending(t, hidden, kind) && side.as_deref() == Some(hidden) {
            // The hidden side's parts held in one twin play in its turn.
            list.retain(|b| b.lines().count() == 1);
        }
        if let Some(side) = side.as_deref().filter(|s| *s != hidden) {
            if matches!(kind, Twin::Units | Twin::SeenUnit) {
                list.extend(crafted(&a, side, &hexes_of(what)));
            }
        }
        let mails: Vec<(String, String)> = in_order(list)
            .into_iter()
            .map(|b| (from.clone(), b))
            .collect();
        compare_mails(&a, &b, &viewers, &mails, seen)?;
    }
    Ok(())
}

/// The twins of a game: deep (`all`: the deep games), both kinds for
/// each side kept in the dark; quick, each side in the dark once and each
/// kind once, so each side is a viewer of one kind.
fn pairs(t: &Table, all: bool) -> Vec<(String, Twin)> {
    let sides = t.sides();
    if all || depth::deep() {
        sides
            .iter()
            .flat_map(|s| [(s.clone(), Twin::Secrets), (s.clone(), Twin::Units)])
            .collect()
    } else {
        // The side to move keeps its secrets (its turn played on both
        // twins is told to the other), the other its units (the side to
        // move orders, asks PREDICT and is refused beside them).
        let state = latest_state(&t.site);
        let mover = state.sides[state.to_move].clone();
        let other = sides.iter().find(|s| **s != mover).unwrap().clone();
        vec![(mover, Twin::Secrets), (other, Twin::Units)]
    }
}

#[test]
fn every_viewer_gets_the_same_bytes_whatever_the_other_side_alone_knows() {
    let mut seen = Seen::default();
    for (n, g) in games() {
        let t = if n == 0 { shared_base() } else { base(&g) };
        for (hidden, kind) in pairs(&t, n > 0) {
            compare_all(&t, &hidden, kind, &mut seen)
                .unwrap_or_else(|e| panic!("{}: {e}", g.scenario));
        }
    }
    println!("compared: {seen:?}");
    // Every kind of part a report mail has was among those compared.
    for kind in [
        "To",
        "Subject",
        "text/plain",
        "text/html",
        "image/png",
        "image/svg+xml",
        "application/json",
        "deadline Subject",
        "host image/png",
        "fog refusal",
    ] {
        assert!(
            seen.parts.contains_key(kind),
            "no {kind} compared: {seen:?}"
        );
    }
}

/// A planted leak (`kind`) against each side tells the twins apart by
/// mail and by the CLI, each on its own; the messages.
fn leak_seen(kind: Twin) -> Vec<String> {
    let t = shared_base();
    let mut out = Vec::new();
    // Deep, against each side; quick, against the side whose twins of
    // this kind the quick run compares.
    let sides: Vec<String> = if depth::deep() {
        t.sides()
    } else {
        let like = if kind == Twin::PublicEvent {
            Twin::Secrets
        } else {
            Twin::Units
        };
        pairs(&t, false)
            .into_iter()
            .filter(|(_, k)| *k == like)
            .map(|(s, _)| s)
            .collect()
    };
    for hidden in sides {
        let (a, b, what) = twins(&t, &hidden, kind);
        let mut seen = Seen::default();
        let e = mails_of(&t, &hidden, kind, &a, &b, &what, &mut seen)
            .expect_err("the leak is seen by mail");
        out.push(format!("{what:?}: {e}"));
        let e =
            cli_of(&t, &hidden, kind, (&a, &b), &what).expect_err("the leak is seen by the CLI");
        out.push(format!("{what:?}: {e}"));
    }
    out
}

#[test]
fn a_leak_of_a_planted_event_is_seen() {
    for e in leak_seen(Twin::PublicEvent) {
        assert!(e.contains("sealed-orders"), "{e}");
    }
}

#[test]
fn a_leak_of_a_seen_unit_is_seen() {
    // The unit's strength shows on the map, the picture and view.json.
    let e = leak_seen(Twin::SeenUnit);
    assert!(e.iter().all(|e| e.contains("weakened")), "{e:?}");
}
