//! Fog of war over every surface a side can reach (issue 53; the project's
//! first priority, docs/rules/kriegspiel.md): two games that differ only in
//! what a side cannot see give that side the same bytes.
//!
//! `kriegspiel_twins` holds the property on the `Rules` contract (twin
//! positions). This module holds it on the whole judge, from outside, as a
//! player or a host reaches it: a Kriegspiel game of Pegasus Bridge with a
//! referee is played a few turns; its site is copied into two twins, and one
//! twin's store is given events the Allies must never read (planted the way
//! tests/it/events.rs does): an unreadable event private to the Axis (a kind
//! from a newer build) and a card the Axis drew (a private event the family
//! reads). Then, on both twins from the same clock:
//! - **every mail command** of the protocol's command table
//!   (`adjutant::protocol::COMMANDS`, so a new command is covered without a
//!   word here; its argument is a sample of its argument's form, and a new
//!   form fails the test until it is given one), sent by the Allies, by the
//!   Axis and (its own commands) by the referee, alone and with the sender's
//!   orders after it: every mail the Allies receive, every MIME part of it
//!   (text, HTML, PNG, SVG, view.json, whatever a new part is), byte for
//!   byte, and its subject;
//! - **the host's CLI**: `show --as allies` of every turn in every format
//!   `show --help` lists, the replay page (`replay --as allies` and `--as
//!   observer`), and the players' export.
//!
//! `a_leak_of_a_planted_event_is_seen` proves the comparison can fail: an
//! event of the same kind made public is told to the Allies, and the same
//! check tells the twins apart.

use crate::common::{latest_state, mail, reply_address, set_picture, submit_random_turns, Site};
use adjutant::engine::dice::ChaChaDice;
use adjutant::protocol::COMMANDS;
use adjutant::rules::memoir44;
use mail_parser::MimeHeaders;
use std::collections::BTreeMap;
use std::path::Path;

/// The clock every twin's judge runs at.
const NOW: &str = "2026-11-24T10:00:00Z";
/// The side that must not see the planted events, and its player.
const UNSEEN: &str = "allies";
const ALICE: &str = "alice@example.org";
const BOB: &str = "bob@example.org";
const REFEREE: &str = "ref@example.org";

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

/// The base game: a Kriegspiel Pegasus Bridge with a referee, both pictures
/// in every mail, a few random turns played (moves, battles, cards).
fn base() -> Site {
    let site = Site::new();
    set_picture(&site, "both");
    site.new_game(
        "pegasus-bridge",
        &[&format!("allies={ALICE}"), &format!("axis={BOB}")],
        &["--referee", REFEREE, "--kriegspiel"],
    );
    assert!(submit_random_turns(&site, 4, 53) >= 2, "turns were played");
    site
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

/// The unreadable event the Allies must never read: a kind from a newer
/// build, private to the Axis (or, `public`, told to everyone: a leak).
fn sealed_orders(public: bool) -> String {
    format!(
        r#"{{"kind":"sealed-orders","side":"axis","private":{},"text":"attack at dawn"}}"#,
        !public
    )
}

/// Each card the Axis drew, told to the Axis alone, made another card the
/// game knows (one the Allies drew, or the Axis drew at another time): the
/// Allies see that the Axis drew, never what.
fn change_axis_cards(site: &Site) -> usize {
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
    let events: Vec<serde_json::Value> = rows
        .iter()
        .map(|r| serde_json::from_str(&r.2).unwrap())
        .collect();
    let cards: Vec<String> = events
        .iter()
        .filter_map(|e| e["card"].as_str().map(str::to_string))
        .collect();
    let mut changed = 0;
    for ((turn, seq, _), e) in rows.iter().zip(&events) {
        if e["side"] != "axis" || e["private"] != true {
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

/// The twins: `a` as played, `b` with the Axis' secrets: an unreadable
/// event private to the Axis planted in every turn that has events (or,
/// `public`, told to everyone: a leak), and every card the Axis drew another.
fn twins(base: &Site, public: bool) -> (Site, Site) {
    let (a, b) = (copy_of(base), copy_of(base));
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
    assert!(!turns.is_empty());
    for t in turns {
        plant(&b, t, &[sealed_orders(public)]);
    }
    assert!(change_axis_cards(&b) > 0, "the Axis drew cards");
    (a, b)
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
        "FIX BECAUSE WHY" => "UNIT F5 FIGURES 2 BECAUSE a die rolled twice".into(),
        "TIME" => "48h".into(),
        other => panic!(
            "the command table has a new argument form {other:?}: give it a sample in fog_surfaces::sample"
        ),
    }
}

/// The outbox's file names now.
fn sent(site: &Site) -> Vec<String> {
    site.outbox().into_iter().map(|(n, _)| n).collect()
}

/// What `who` received among the mails not in `before`: per mail its
/// subject and every MIME part as (content type, decoded bytes).
fn received(site: &Site, before: &[String], who: &str) -> Vec<Vec<(String, Vec<u8>)>> {
    let mut out = Vec::new();
    for (name, _) in site.outbox() {
        if before.contains(&name) {
            continue;
        }
        let raw = std::fs::read(site.path().join("mail/outbox").join(&name)).unwrap();
        let msg = mail_parser::MessageParser::default()
            .parse(&raw)
            .expect("a mail");
        let to_who = msg
            .to()
            .map(|a| a.iter().any(|x| x.address() == Some(who)))
            .unwrap_or(false);
        if !to_who {
            continue;
        }
        let mut parts = vec![(
            "Subject".to_string(),
            msg.subject().unwrap_or_default().as_bytes().to_vec(),
        )];
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
            parts.push((ct, body));
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
fn differ(a: &[Vec<(String, Vec<u8>)>], b: &[Vec<(String, Vec<u8>)>]) -> Option<String> {
    if a.len() != b.len() {
        return Some(format!("{} mails against {}", a.len(), b.len()));
    }
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        if x.len() != y.len() {
            return Some(format!("mail {i}: {} parts against {}", x.len(), y.len()));
        }
        for (p, q) in x.iter().zip(y) {
            if p != q {
                let (s, t) = (String::from_utf8_lossy(&p.1), String::from_utf8_lossy(&q.1));
                let line = s
                    .lines()
                    .zip(t.lines())
                    .find(|(l, m)| l != m)
                    .map(|(l, m)| format!("\n  one: {l}\n  two: {m}"))
                    .unwrap_or_default();
                return Some(format!("mail {i}, part {} ({}) differs{line}", p.0, q.0));
            }
        }
    }
    None
}

/// Every mail body a sender may send: each command of the table with its
/// sample argument, alone and (a player) with the sender's orders after it.
fn bodies(site: &Site, side: Option<&str>) -> Vec<String> {
    let state = latest_state(site);
    let rules = memoir44::Ruleset::builtin().unwrap();
    let mut rng = ChaChaDice::from_seed([53; 32]);
    let orders = side
        .map(|s| memoir44::random_orders(&rules, &state, s, &mut rng))
        .unwrap_or_default();
    let mut out = Vec::new();
    for c in COMMANDS {
        let referee = c.help.starts_with("referee:");
        if referee != side.is_none() && !matches!(c.word, "HELP" | "STATUS" | "MAP") {
            continue;
        }
        let line = format!("{} {}", c.word, sample(c.args, state.turn))
            .trim_end()
            .to_string();
        out.push(format!("{line}\n"));
        if side.is_some() {
            out.push(format!("{line}\n{orders}\n"));
        }
    }
    // The commands that end a game come last: the others run on a game
    // that goes on.
    out.sort_by_key(|b| b.starts_with("RESIGN") || b.starts_with("DRAW"));
    out
}

/// Send `body` from `from` to both twins (each mail in turn, the same clock)
/// and compare what the Allies receive.
fn compare_mail(
    a: &Site,
    b: &Site,
    from: &str,
    n: usize,
    body: &str,
    seen: &mut BTreeMap<String, usize>,
) -> Result<(), String> {
    let mut got = Vec::new();
    for site in [a, b] {
        let before = sent(site);
        let to = reply_address(site, from);
        site.drop_mail(
            &format!("fog{n}.eml"),
            &mail(
                from,
                &to,
                "Re: your game",
                &format!("fog{n}@example.org"),
                body,
            ),
        );
        site.at(NOW, &["serve", "--once"]);
        got.push(received(site, &before, ALICE));
    }
    if over(a) && over(b) {
        // "When the game is over, the export is everyone's"
        // (docs/rules/kriegspiel.md): the replay and export a game-over
        // mail attaches hold the whole game. The words of the mail do not.
        for mails in &mut got {
            for parts in mails.iter_mut() {
                parts.retain(|(ct, _)| ct == "Subject" || ct == "text/plain");
            }
        }
    }
    match differ(&got[0], &got[1]) {
        Some(d) => Err(format!(
            "the Allies told the twins apart after {from} sent {body:?}: {d}"
        )),
        None => {
            for (ct, _) in got[0].iter().flatten() {
                *seen.entry(ct.clone()).or_default() += 1;
            }
            Ok(())
        }
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

/// Every CLI surface a host may hand the Allies, on both twins.
fn compare_cli(a: &Site, b: &Site) -> Result<usize, String> {
    let turn = latest_state(a).turn;
    let mut runs: Vec<Vec<String>> = Vec::new();
    for f in show_formats(a) {
        for t in 0..=turn {
            runs.push(
                [
                    "show",
                    "1",
                    "--as",
                    UNSEEN,
                    "--format",
                    &f,
                    "--turn",
                    &t.to_string(),
                ]
                .map(str::to_string)
                .to_vec(),
            );
        }
    }
    for who in [UNSEEN, "observer"] {
        runs.push(["replay", "1", "--as", who].map(str::to_string).to_vec());
    }
    runs.push(["export", "1"].map(str::to_string).to_vec());
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
                bytes
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

/// Every mail and CLI surface on the twins; the first difference.
/// Every mail command on the twins, from each sender: the mails sent and
/// the parts the Allies received by content type; the first difference.
fn compare_mails(
    base: &Site,
    a: &Site,
    b: &Site,
) -> Result<(usize, BTreeMap<String, usize>), String> {
    let mut mails = 0;
    let mut seen = BTreeMap::new();
    for (from, side) in [(ALICE, Some(UNSEEN)), (BOB, Some("axis")), (REFEREE, None)] {
        let (a, b) = (copy_of(a), copy_of(b));
        for (n, body) in bodies(base, side).iter().enumerate() {
            compare_mail(&a, &b, from, n, body, &mut seen)?;
            mails += 1;
        }
    }
    Ok((mails, seen))
}

#[test]
fn the_allies_get_the_same_bytes_whatever_the_axis_alone_was_told() {
    let base = base();
    let (a, b) = twins(&base, false);
    let (mails, seen) = compare_mails(&base, &a, &b).unwrap_or_else(|e| panic!("{e}"));
    let cli = compare_cli(&a, &b).unwrap_or_else(|e| panic!("{e}"));
    println!("{cli} CLI runs and {mails} mails sent to the twins; the Allies' parts: {seen:?}");
    // Every kind of part a report mail has was among those compared.
    for kind in [
        "Subject",
        "text/plain",
        "text/html",
        "image/png",
        "image/svg+xml",
        "application/json",
    ] {
        assert!(seen.contains_key(kind), "no {kind} compared: {seen:?}");
    }
}

#[test]
fn a_leak_of_a_planted_event_is_seen() {
    let base = base();
    let (a, b) = twins(&base, true);
    // Both the mails and the CLI tell the twins apart, each on its own.
    let e = compare_mails(&base, &a, &b).expect_err("a public event is told to the Allies by mail");
    assert!(e.contains("sealed-orders"), "{e}");
    let e = compare_cli(&a, &b).expect_err("a public event is told to the Allies by the CLI");
    assert!(e.contains("sealed-orders"), "{e}");
}
