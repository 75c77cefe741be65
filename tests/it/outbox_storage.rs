//! Issue 10, storage: an outgoing mail's bytes are kept while it waits to
//! be delivered, dropped at delivery (or after `outbound.keep_sent_hours`),
//! its row (recipient, kind, Message-ID, times) kept; a pending mail is
//! never touched; export and verify replay a game without any mail bytes.

use crate::common;
use common::{mail, plain, reply_address, Site};

/// Two outboxes hold the same files with the same mails ([`plain`]).
fn same_mails(b: &[(String, String)], s: &[(String, String)]) {
    assert_eq!(b.len(), s.len());
    for ((nb, tb), (ns, ts)) in b.iter().zip(s) {
        assert_eq!(nb, ns);
        let (pb, ps) = (plain(tb), plain(ts));
        let d: Vec<_> = pb
            .lines()
            .zip(ps.lines())
            .filter(|(x, y)| x != y)
            .take(3)
            .collect();
        assert!(pb == ps, "{nb} differs: {d:?}");
    }
}

/// (id, status, kind, body bytes) of every outbox row.
fn rows(site: &Site) -> Vec<(i64, String, String, i64)> {
    let db = site.db();
    let mut st = db
        .prepare("SELECT id, status, kind, length(raw) FROM outbox ORDER BY id")
        .unwrap();
    st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

fn set(site: &Site, from: &str, to: &str) {
    let text = std::fs::read_to_string(site.config()).unwrap();
    assert!(text.contains(from), "no {from} in adjutant.toml");
    std::fs::write(site.config(), text.replacen(from, to, 1)).unwrap();
}

fn new_game(site: &Site, now: &str) {
    site.pegasus_bridge_at(now, &[]);
}

/// Acceptance 3 (the issue's "Export and verify must not need old mail
/// bodies"): after a turn played by mail and delivered with the default
/// settings, no sent row keeps its bytes, and the game still exports and
/// verifies (it replays from the submissions).
#[test]
fn delivered_bodies_are_dropped_and_verify_replays_without_them() {
    let site = Site::new();
    new_game(&site, "2026-11-20T10:00:00Z");
    let alice = reply_address(&site, "alice@example.org");
    site.drop_mail(
        "orders.eml",
        &mail(
            "alice@example.org",
            &alice,
            "orders",
            "o1@example.org",
            "PLAY recon-centre\nORDER F4\nBATTLE F4 F5\n",
        ),
    );
    site.at("2026-11-20T10:05:00Z", &["serve", "--once"]);
    let rows = rows(&site);
    // Two welcomes, two turn reports and the receipt at least.
    assert!(rows.len() >= 5, "{rows:?}");
    assert!(rows.iter().any(|r| r.2 == "report"), "{rows:?}");
    for (id, status, kind, bytes) in &rows {
        assert_eq!(status, "sent", "mail {id} ({kind})");
        assert_eq!(*bytes, 0, "mail {id} ({kind}) kept {bytes} bytes");
    }
    let list = site.ok(&["outbox"]);
    assert!(list.contains("dropped"), "{list}");
    // With the seed (the host's export of a running game), so verify
    // replays every turn rather than checking the revealed dice only.
    let v = site.export_and_verify(&["--include-seed"]);
    assert!(v.contains("1 turns replayed identically"), "{v}");
}

/// Acceptance 3: with `keep_sent_hours = 48`, a delivered mail's bytes stay
/// for 48 hours and are dropped by the first pass after that, its row and
/// Message-ID kept; a mail that could not be delivered (pending, retried)
/// keeps its bytes whatever its age.
#[test]
fn kept_bodies_are_dropped_after_the_retention_period_and_pending_ones_never() {
    let site = Site::new();
    set(&site, "keep_sent_hours = 0", "keep_sent_hours = 48");
    new_game(&site, "2026-11-20T10:00:00Z");
    let welcomes = rows(&site);
    assert_eq!(welcomes.len(), 2, "{welcomes:?}");
    for (id, status, _, bytes) in &welcomes {
        assert_eq!(status, "sent", "mail {id}");
        assert!(*bytes > 1000, "mail {id} kept only {bytes} bytes");
    }
    let ids: Vec<String> = {
        let db = site.db();
        let mut st = db
            .prepare("SELECT message_id FROM outbox ORDER BY id")
            .unwrap();
        st.query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    };

    // The file transport now fails (its folder is under a plain file), so
    // the answer to a HELP stays pending and is retried.
    std::fs::write(site.path().join("blocked"), "not a folder").unwrap();
    set(&site, "dir = \"mail/outbox\"", "dir = \"blocked/outbox\"");
    site.drop_mail(
        "help.eml",
        &mail(
            "alice@example.org",
            "judge@localhost",
            "help",
            "h1@example.org",
            "HELP\n",
        ),
    );
    site.at("2026-11-20T11:00:00Z", &["serve", "--once"]);
    let pending = rows(&site);
    assert_eq!(pending.len(), 3, "{pending:?}");
    let (pid, status, _, pbytes) = pending[2].clone();
    assert_eq!(status, "pending");
    assert!(pbytes > 100, "{pbytes}");

    // 47 hours after delivery: everything is still there.
    site.at("2026-11-22T09:00:00Z", &["serve", "--once"]);
    assert_eq!(
        rows(&site).iter().map(|r| r.3).collect::<Vec<_>>(),
        pending.iter().map(|r| r.3).collect::<Vec<_>>()
    );

    // 49 hours after: the delivered bytes are gone, the rows and their
    // Message-IDs stay, the pending mail is untouched (and still pending).
    site.at("2026-11-22T11:00:00Z", &["serve", "--once"]);
    let after = rows(&site);
    assert_eq!(after.len(), 3);
    for (id, status, _, bytes) in &after[..2] {
        assert_eq!(status, "sent", "mail {id}");
        assert_eq!(*bytes, 0, "mail {id} kept {bytes} bytes");
    }
    assert_eq!(
        after[2],
        (pid, "pending".to_string(), pending[2].2.clone(), pbytes)
    );
    let ids_after: Vec<String> = {
        let db = site.db();
        let mut st = db
            .prepare("SELECT message_id FROM outbox ORDER BY id")
            .unwrap();
        st.query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    };
    assert_eq!(&ids_after[..2], &ids[..]);

    // Delivered at last (the folder works again) and kept for 48 hours.
    set(&site, "dir = \"blocked/outbox\"", "dir = \"mail/outbox\"");
    site.at("2026-11-22T12:00:00Z", &["serve", "--once"]);
    let last = rows(&site);
    assert_eq!(last[2].1, "sent");
    assert_eq!(last[2].3, pbytes);
}

/// A backlog of more than 64 mails is handled by three threads (reading
/// ahead, handling, delivering beside): the same judge given the same mails
/// in two small passes (handled and delivered one thread after another)
/// ends with the same inbox log, the same outbox rows and byte for byte the
/// same delivered mails; every mail moved to cur/, every answer sent once
/// with its bytes dropped.
#[test]
fn a_big_backlog_is_handled_as_two_small_passes_are() {
    const NOW: &str = "2026-11-20T10:05:00Z";
    let big = Site::new();
    for i in 0..8 {
        big.at(
            "2026-11-20T10:00:00Z",
            &[
                "new-game",
                "--scenario",
                "pegasus-bridge",
                "--seat",
                &format!("allies=a{i}@example.org"),
                "--seat",
                &format!("axis=b{i}@example.org"),
            ],
        );
    }
    big.at("2026-11-20T10:01:00Z", &["serve", "--once"]);
    let welcomes = big.outbox().len();
    // The same judge, twice: database, key and delivered welcomes.
    let small = Site::new();
    for f in ["adjutant.db", "adjutant.db.key"] {
        std::fs::copy(big.path().join(f), small.path().join(f)).unwrap();
    }
    for (name, text) in big.outbox() {
        std::fs::write(small.path().join("mail/outbox").join(name), text).unwrap();
    }
    // Orders for every game, help and status requests, a mail with no
    // sender, and a copy of an order mail under another name.
    let mut mails: Vec<(String, Vec<u8>)> = Vec::new();
    for i in 0..8 {
        let who = format!("a{i}@example.org");
        let to = reply_address(&big, &who);
        let orders = "PLAY recon-centre\nORDER F4\nBATTLE F4 F5\n";
        mails.push((
            format!("{i:02}-orders.eml"),
            mail(&who, &to, "orders", &format!("o{i}@example.org"), orders),
        ));
    }
    for i in 0..62 {
        let (what, body) = if i % 9 == 0 {
            ("status", "STATUS\n")
        } else {
            ("help", "HELP\n")
        };
        let from = if i % 9 == 0 {
            format!("b{}@example.org", i % 8)
        } else {
            format!("u{i}@example.org")
        };
        mails.push((
            format!("{:02}-{what}.eml", 8 + i),
            mail(
                &from,
                "judge@localhost",
                what,
                &format!("h{i}@example.org"),
                body,
            ),
        ));
    }
    mails.push((
        "90-nobody.eml".into(),
        b"Subject: who\r\n\r\nHELP\r\n".to_vec(),
    ));
    mails.push(("91-again.eml".into(), mails[3].1.clone()));
    assert!(
        mails.len() > 64,
        "the backlog must be big enough for three threads"
    );
    for (name, raw) in &mails {
        big.drop_mail(name, raw);
    }
    big.at(NOW, &["serve", "--once"]);
    let (first, rest) = mails.split_at(40);
    for part in [first, rest] {
        for (name, raw) in part {
            small.drop_mail(name, raw);
        }
        small.at(NOW, &["serve", "--once"]);
    }
    let log = |site: &Site| -> Vec<(String, String, String)> {
        let db = site.db();
        let mut st = db
            .prepare("SELECT source, outcome, detail FROM inbox ORDER BY id")
            .unwrap();
        st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    };
    let big_log = log(&big);
    assert_eq!(big_log, log(&small));
    assert_eq!(big_log.len(), mails.len() - 1, "the copy is a duplicate");
    let accepted = big_log
        .iter()
        .filter(|l| l.1.contains("orders accepted"))
        .count();
    assert_eq!(accepted, 8, "{big_log:?}");
    assert_eq!(rows(&big), rows(&small));
    for (id, status, kind, bytes) in rows(&big) {
        assert_eq!((status.as_str(), bytes), ("sent", 0), "mail {id} ({kind})");
    }
    let (b, s) = (big.outbox(), small.outbox());
    assert_eq!(b.len(), rows(&big).len(), "one file per outbox row");
    assert!(b.len() > welcomes + 8 * 3, "reports and answers delivered");
    same_mails(&b, &s);
    for site in [&big, &small] {
        assert_eq!(std::fs::read_dir(site.inbox_new()).unwrap().count(), 0);
        assert_eq!(
            std::fs::read_dir(site.inbox_cur()).unwrap().count(),
            mails.len()
        );
    }
}

/// A turn report is stored as a small job and rendered when it is
/// delivered (docs/performance.md, "Reports rendered at delivery"). Two
/// copies of one judge play the same random games with the same mails at
/// the same times; one delivers after every mail, the other only at the
/// end, when each game has moved on many turns (new deadlines, the game
/// perhaps over, a review released). Every mail is the same: a report
/// rendered late is the report rendered at once, for the players, an
/// observer and a referee (its desk and, in review mode, what is held).
#[test]
fn a_report_rendered_turns_later_is_the_report_rendered_at_once() {
    use adjutant::config::Config;
    use adjutant::daemon;
    use adjutant::engine::dice::ChaChaDice;
    use adjutant::rules::memoir44;
    use adjutant::service::clock::FixedClock;
    use adjutant::service::{GameOptions, Judge};
    use chrono::{DateTime, Duration, Utc};

    let t0: DateTime<Utc> = DateTime::parse_from_rfc3339("2026-11-20T10:00:00Z")
        .unwrap()
        .with_timezone(&Utc);
    let at_once = Site::new();
    let late = Site::new();
    let mut games = Vec::new();
    {
        let cfg = Config::load(&at_once.config()).unwrap();
        let mut j = Judge::open(cfg, Box::new(FixedClock(t0))).unwrap();
        for review in [false, true] {
            let opts = GameOptions {
                deadline_secs: Some(48 * 3600),
                observers: vec!["olga@watch.example".into()],
                referee: Some("rita@ref.example".into()),
                review_secs: review.then_some(24 * 3600),
                zones: vec![("axis".into(), "Europe/Berlin".into())],
                ..GameOptions::default()
            };
            let seats = [
                ("allies".to_string(), format!("a{review}@example.org")),
                ("axis".to_string(), format!("b{review}@example.org")),
            ];
            games.push((
                j.turns().new_game("pegasus-bridge", &seats, &opts).unwrap(),
                review,
            ));
        }
        daemon::deliver(&mut j, &mut daemon::Pass::default()).unwrap();
    }
    // The same judge, twice: database, key and delivered welcomes.
    for f in ["adjutant.db", "adjutant.db.key"] {
        std::fs::copy(at_once.path().join(f), late.path().join(f)).unwrap();
    }
    for (name, text) in at_once.outbox() {
        std::fs::write(late.path().join("mail/outbox").join(name), text).unwrap();
    }
    let rules = memoir44::Ruleset::builtin().unwrap();
    let mut judges: Vec<Judge> = [&at_once, &late]
        .iter()
        .map(|site| {
            let cfg = Config::load(&site.config()).unwrap();
            Judge::open(cfg, Box::new(FixedClock(t0))).unwrap()
        })
        .collect();
    let mut rng = ChaChaDice::from_seed([7; 32]);
    let mut reports = 0;
    // 6 turns quick, 12 deep (docs/testing.md).
    let turns = crate::common::depth::games("OUTBOX_TURNS", 6, 12) as i64;
    for turn in 0..turns {
        let now = t0 + Duration::hours(5 * turn + 1);
        for (game, review) in &games {
            let text: String = judges[0]
                .conn
                .query_row(
                    "SELECT state FROM snapshots WHERE game_id = ?1 ORDER BY turn DESC LIMIT 1",
                    [game],
                    |r| r.get(0),
                )
                .unwrap();
            let st: memoir44::State = serde_json::from_str(&text).unwrap();
            if st.over {
                continue;
            }
            let side = memoir44::waiting(&st).sides[0].clone();
            let who = format!(
                "{}{review}@example.org",
                if side == "allies" { "a" } else { "b" }
            );
            let orders = memoir44::random_orders(&rules, &st, &side, &mut rng);
            let raw = mail(
                &who,
                &reply_address(&at_once, &who),
                "orders",
                &format!("g{game}-t{turn}@example.org"),
                &orders,
            );
            for (i, j) in judges.iter_mut().enumerate() {
                j.clock = Box::new(FixedClock(now));
                j.inbound().handle_mail(&raw, "test").unwrap();
                if *review {
                    j.referee().approve(*game).unwrap();
                }
                if i == 0 {
                    daemon::deliver(j, &mut daemon::Pass::default()).unwrap();
                }
            }
        }
        reports = at_once
            .outbox()
            .iter()
            .filter(|(n, _)| n.ends_with("-report.eml") || n.ends_with("-referee.eml"))
            .count();
    }
    assert!(
        reports as i64 >= turns * 2,
        "turns were played and reported: {reports}"
    );
    let pending: i64 = late
        .db()
        .query_row(
            "SELECT count(*) FROM outbox WHERE status = 'pending'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(
        pending > reports as i64,
        "the late judge has delivered nothing yet"
    );
    daemon::deliver(&mut judges[1], &mut daemon::Pass::default()).unwrap();
    let (a, b) = (at_once.outbox(), late.outbox());
    for kind in ["-report.eml", "-observer.eml", "-referee.eml"] {
        assert!(a.iter().any(|(n, _)| n.ends_with(kind)), "no {kind}");
    }
    assert!(
        a.iter().any(|(_, t)| t.contains("HELD FOR YOUR REVIEW")),
        "a review was held"
    );
    same_mails(&a, &b);
}

/// A report's job that cannot be rendered (a damaged row, a game gone)
/// fails alone and for good: the row is dead with the reason, for the
/// host; the mails beside it go out; the pass does not stop.
#[test]
fn a_report_job_that_cannot_be_rendered_is_dead_and_the_rest_go_out() {
    let site = Site::new();
    new_game(&site, "2026-11-20T10:00:00Z");
    {
        let mut db = site.db();
        let tx = db.transaction().unwrap();
        let job = |text: &str| [adjutant::store::JOB, text.as_bytes()].concat();
        for (n, raw) in [
            job("{\"not\": \"a job\""),
            job(r#"{"from_name":"A","from_addr":"judge@localhost","date":[0,0],"report":{"game":99,"first":1,"last":1,"status":"active","turn":1,"result":null,"deadline_at":null,"held_from":null,"to":"x@example.org","viewer":{"kind":"observer"},"tz":"UTC","reply_to":null,"member":null}}"#),
        ]
        .iter()
        .enumerate()
        {
            adjutant::store::insert_outbox(
                &tx,
                None,
                "x@example.org",
                &format!("bad{n}@localhost"),
                "report",
                raw,
                "2026-11-20T10:00:00Z",
            )
            .unwrap();
        }
        tx.commit().unwrap();
    }
    site.at("2026-11-20T10:01:00Z", &["serve", "--once"]);
    let db = site.db();
    let mut st = db
        .prepare("SELECT message_id, status, last_error FROM outbox ORDER BY id")
        .unwrap();
    let rows: Vec<(String, String, Option<String>)> = st
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let bad: Vec<_> = rows.iter().filter(|r| r.0.starts_with("bad")).collect();
    assert_eq!(bad.len(), 2);
    for (mid, status, error) in &bad {
        assert_eq!(status, "dead", "{mid}");
        let error = error.as_deref().unwrap_or("");
        assert!(error.contains("cannot be rendered"), "{mid}: {error}");
    }
    assert!(bad[0].2.as_deref().unwrap_or("").contains("does not read"));
    assert!(bad[1].2.as_deref().unwrap_or("").contains("no game 99"));
    let welcomes = rows.iter().filter(|r| !r.0.starts_with("bad")).count();
    assert!(welcomes >= 2);
    assert!(rows
        .iter()
        .filter(|r| !r.0.starts_with("bad"))
        .all(|r| r.1 == "sent"));
    assert_eq!(site.outbox().len(), welcomes);
}

/// Acceptance 4: a turn report mail of Pegasus Bridge (the throughput
/// measurement's first turn, both sides' reports, each game its own dice)
/// was at most 30 KB (30 × 1,024 bytes), the whole RFC 5322 message, with
/// the board as inline SVG. Issue 37 puts the board in as a PNG every mail
/// client shows and allows the report mail up to 80 KB with it.
#[test]
fn a_first_turn_report_mail_is_at_most_80_kb() {
    let site = Site::new();
    let games = 6;
    for i in 0..games {
        site.at(
            "2026-11-20T10:00:00Z",
            &[
                "new-game",
                "--scenario",
                "pegasus-bridge",
                "--seat",
                &format!("allies=a{i}@example.org"),
                "--seat",
                &format!("axis=b{i}@example.org"),
            ],
        );
    }
    site.at("2026-11-20T10:01:00Z", &["serve", "--once"]);
    for i in 0..games {
        let who = format!("a{i}@example.org");
        let to = reply_address(&site, &who);
        site.drop_mail(
            &format!("{i}.eml"),
            &mail(
                &who,
                &to,
                "orders",
                &format!("o{i}@example.org"),
                "PLAY recon-centre\nORDER F4\nBATTLE F4 F5\n",
            ),
        );
    }
    site.at("2026-11-20T10:05:00Z", &["serve", "--once"]);
    let reports: Vec<(String, usize)> = site
        .outbox()
        .into_iter()
        .filter(|(n, _)| n.ends_with("-report.eml"))
        .map(|(n, t)| (n, t.len()))
        .collect();
    assert_eq!(reports.len(), 2 * games, "{reports:?}");
    for (name, size) in &reports {
        // Issue 37: 80 KB with the inline PNG (was 30 KB with inline SVG).
        assert!(*size <= 80 * 1024, "{name}: {size} bytes");
    }
}

/// A turn's reports are drawn from the position the thread that made the
/// turn just stored, handed across in memory, not read back from the
/// database and parsed again (docs/performance.md, "The mail path's
/// position handed across"). Shown by damaging the stored position after
/// the commit, in two copies of one judge: delivered by the process that
/// made the turn, the reports go out, the same mails as from an undamaged
/// copy; delivered by another process (`serve --once`), which can only
/// read the position back, the damage is found and the reports are dead
/// with the reason, as before.
#[test]
fn a_turn_report_is_drawn_from_the_position_handed_across_not_read_back() {
    drawn_from_what_was_handed_across(
        "UPDATE snapshots SET state = '{\"damaged\": true}' WHERE game_id = 1 AND turn = 1",
    );
}

/// The same for the turn's events (docs/performance.md, "The events
/// handed across"): damaged after the commit, they are not read back by
/// the process that made the turn; another process finds the damage.
#[test]
fn a_turn_report_is_drawn_from_the_events_handed_across_not_read_back() {
    drawn_from_what_was_handed_across(
        "UPDATE events SET event = 'damaged' WHERE game_id = 1 AND turn = 1",
    );
}

/// Plays one first turn in three copies of one judge in this process,
/// runs `damage` on two of them after the commit, delivers one of those
/// in this process and the other with `serve --once`.
fn drawn_from_what_was_handed_across(damage: &str) {
    use adjutant::config::Config;
    use adjutant::daemon;
    use adjutant::engine::dice::ChaChaDice;
    use adjutant::rules::memoir44;
    use adjutant::service::clock::FixedClock;
    use adjutant::service::Judge;
    use chrono::{DateTime, Utc};

    let sites = [Site::new(), Site::new(), Site::new()];
    let (whole, here, elsewhere) = (&sites[0], &sites[1], &sites[2]);
    new_game(whole, "2026-11-20T10:00:00Z");
    whole.at("2026-11-20T10:00:30Z", &["serve", "--once"]);
    // The same judge, three times: database, key and delivered welcomes.
    for site in [here, elsewhere] {
        for f in ["adjutant.db", "adjutant.db.key"] {
            std::fs::copy(whole.path().join(f), site.path().join(f)).unwrap();
        }
        for (name, text) in whole.outbox() {
            std::fs::write(site.path().join("mail/outbox").join(name), text).unwrap();
        }
    }
    let text: String = whole
        .db()
        .query_row("SELECT state FROM snapshots WHERE game_id = 1", [], |r| {
            r.get(0)
        })
        .unwrap();
    let st: memoir44::State = serde_json::from_str(&text).unwrap();
    let side = memoir44::waiting(&st).sides[0].clone();
    let who = if side == "allies" {
        "alice@example.org"
    } else {
        "bob@example.org"
    };
    let rules = memoir44::Ruleset::builtin().unwrap();
    let orders = memoir44::random_orders(&rules, &st, &side, &mut ChaChaDice::from_seed([5; 32]));
    let raw = mail(
        who,
        &reply_address(whole, who),
        "orders",
        "turn-1@example.org",
        &orders,
    );
    let now: DateTime<Utc> = DateTime::parse_from_rfc3339("2026-11-20T11:00:00Z")
        .unwrap()
        .with_timezone(&Utc);
    let mut judges: Vec<Judge> = sites
        .iter()
        .map(|site| {
            let cfg = Config::load(&site.config()).unwrap();
            let j = Judge::open(cfg, Box::new(FixedClock(now))).unwrap();
            j.inbound().handle_mail(&raw, "test").unwrap();
            j
        })
        .collect();
    for site in [here, elsewhere] {
        let n = site.db().execute(damage, []).unwrap();
        assert!(n >= 1, "turn 1 was made and stored");
    }
    for j in &mut judges[..2] {
        daemon::deliver(j, &mut daemon::Pass::default()).unwrap();
    }
    drop(judges);
    elsewhere.at("2026-11-20T11:00:00Z", &["serve", "--once"]);
    let reports = |site: &Site| -> Vec<(String, Option<String>)> {
        let db = site.db();
        let mut st = db
            .prepare("SELECT status, last_error FROM outbox WHERE kind = 'report' ORDER BY id")
            .unwrap();
        st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    };
    assert_eq!(reports(whole).len(), 2, "both sides' reports");
    assert!(reports(whole).iter().all(|r| r.0 == "sent"));
    // Made and delivered by one process: the stored position is not read.
    assert_eq!(reports(here), reports(whole));
    same_mails(&whole.outbox(), &here.outbox());
    // Delivered by another: read back, and found damaged.
    let dead = reports(elsewhere);
    assert_eq!(dead.len(), 2);
    for (status, error) in &dead {
        assert_eq!(status, "dead");
        assert!(
            error
                .as_deref()
                .unwrap_or("")
                .contains("cannot be rendered"),
            "{error:?}"
        );
    }
}
