//! Delivery under faults, second round (issue 52, and issue 54's items 4
//! and 7): every test here counts what a recording SMTP server on loopback
//! received, by Message-ID (tests/it/common/smtp_recorder.rs), while the
//! judge runs as the host runs it: `serve`, `serve --once`, by mail.

use crate::common::smtp_recorder::{Mode, Recorder};
use crate::common::{mail, Site};
use std::process::Stdio;
use std::time::{Duration, Instant};

/// `n` HELP mails from p{first}.. dropped into the Maildir.
fn ask_help(site: &Site, tag: &str, first: usize, n: usize) {
    for i in first..first + n {
        site.drop_mail(
            &format!("{tag}{i}.eml"),
            &mail(
                &format!("p{i}@example.org"),
                "judge@localhost",
                "help",
                &format!("<{tag}-{i}@example.org>"),
                "HELP\n",
            ),
        );
    }
}

/// The outbox's rows by status: (pending, sent, dead).
fn statuses(site: &Site) -> (i64, i64, i64) {
    let db = site.db();
    let n = |s: &str| -> i64 {
        db.query_row("SELECT count(*) FROM outbox WHERE status = ?1", [s], |r| {
            r.get(0)
        })
        .unwrap()
    };
    (n("pending"), n("sent"), n("dead"))
}

/// `n` answers queued while the recorder is down (connections refused);
/// every row due now afterwards (the one that carried the failed attempt
/// too), the recorder listening again in `mode`.
fn queue_while_down(site: &Site, rec: &mut Recorder, n: usize, at: &str) {
    rec.configure(&site.config(), 5);
    rec.stop();
    ask_help(site, "queued", 0, n);
    site.at(at, &["serve", "--once"]);
    assert_eq!(statuses(site), (n as i64, 0, 0), "all queued");
    site.db()
        .execute(
            "UPDATE outbox SET next_attempt_at = '2000-01-01T00:00:00Z'",
            [],
        )
        .unwrap();
    rec.restart(Mode::Accept);
}

/// The system's time now, RFC 3339 (for a queue the real clock then
/// delivers, within the retry horizon).
fn now() -> String {
    let out = std::process::Command::new("date")
        .args(["-u", "+%Y-%m-%dT%H:%M:%SZ"])
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// Item 9: a stored body that is neither packed nor a mail (random bytes,
/// no header, no Message-ID) is refused as damaged, like a truncated one;
/// the rest of its page goes out.
#[test]
fn a_body_without_the_packed_header_is_refused_as_damaged() {
    let site = Site::new();
    let mut rec = Recorder::start(Mode::Accept);
    queue_while_down(&site, &mut rec, 3, "2026-11-01T00:00:00Z");
    site.db()
        .execute(
            "UPDATE outbox SET raw = CAST(?1 AS BLOB) WHERE id = 2",
            [&b"\x9e\x01\xf3garbage\r\nno header at all\xff"[..]],
        )
        .unwrap();
    site.at("2026-11-01T00:10:00Z", &["serve", "--once"]);
    let ids = rec.message_ids();
    assert_eq!(ids.len(), 2, "only the two sound mails are sent: {ids:?}");
    assert!(ids.iter().all(|id| id.contains('@')), "{ids:?}");
    assert_eq!(statuses(&site), (0, 2, 1));
    let listed = site.ok(&["outbox"]);
    assert!(listed.contains("the stored mail is damaged"), "{listed}");
}

/// Item 8: a server that answers 421 (too many connections) is the
/// server's fault, not each mail's: the pass stops at the first, one
/// connection, one mail carrying the attempt.
#[test]
fn a_421_greeting_costs_one_connection_not_one_per_waiting_mail() {
    let site = Site::new();
    let mut rec = Recorder::start(Mode::Accept);
    queue_while_down(&site, &mut rec, 10, "2026-11-01T00:00:00Z");
    rec.set_mode(Mode::TooMany);
    site.at("2026-11-01T00:10:00Z", &["serve", "--once"]);
    // `serve`'s start checks the login once (src/preflight.rs), then the
    // pass knocks once.
    assert_eq!(rec.connections(), 2, "one knock a pass");
    let tried: i64 = site
        .db()
        .query_row(
            "SELECT count(*) FROM outbox WHERE last_error IS NOT NULL AND attempts > 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(
        tried <= 1,
        "{tried} mails counted the 421 against themselves"
    );
    // The server takes mail again: every mail goes out, once.
    rec.set_mode(Mode::Accept);
    site.at("2026-11-01T01:10:00Z", &["serve", "--once"]);
    assert_eq!(statuses(&site), (0, 10, 0));
    assert_eq!((rec.message_ids().len(), rec.duplicates()), (10, 0));
}

/// Item 3: a pass of 200 mails (the pipelined pass, whose delivery thread
/// delivers every 16 mails) against a failing server knocks once.
#[test]
fn a_big_pass_knocks_once_on_a_failing_server() {
    let site = Site::new();
    let rec = Recorder::start(Mode::TooMany);
    rec.configure(&site.config(), 5);
    ask_help(&site, "big", 0, 200);
    site.at("2026-11-01T00:00:00Z", &["serve", "--once"]);
    assert_eq!(statuses(&site), (200, 0, 0));
    // The start's login check, then one attempt in the pass.
    assert_eq!(rec.connections(), 2, "one attempt a pass (fail2ban)");
}

/// Item 1: a deliverer's claims do not run out while it is still sending.
/// The claim is shortened to 3 s (ADJUTANT_CLAIM_SECS, development builds
/// only), the server takes a tenth of a second a mail, 100 mails wait:
/// one `serve --once` needs about 10 s, two pages, more than three claims'
/// time. A second deliverer run every half second meanwhile (cron, or the
/// `receive` an MTA runs) finds nothing to take: each Message-ID arrives
/// once.
#[test]
fn two_live_deliverers_send_no_mail_twice_under_a_long_pass() {
    let site = Site::new();
    let mut rec = Recorder::start(Mode::Accept);
    queue_while_down(&site, &mut rec, 100, &now());
    rec.set_delay_ms(100);
    let run = |site: &Site| {
        site.command(&["serve", "--once"])
            .env("ADJUTANT_CLAIM_SECS", "3")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    };
    let started = Instant::now();
    let mut first = run(&site);
    std::thread::sleep(Duration::from_millis(500));
    while first.try_wait().unwrap().is_none() {
        assert!(started.elapsed() < Duration::from_secs(120), "too slow");
        let mut second = run(&site);
        assert!(second.wait().unwrap().success());
        std::thread::sleep(Duration::from_millis(500));
    }
    assert!(first.wait().unwrap().success());
    assert!(
        started.elapsed() > Duration::from_secs(6),
        "the pass outlasted the claim"
    );
    let ids = rec.message_ids();
    assert_eq!(rec.duplicates(), 0, "{} sends of 100 mails", ids.len());
    assert_eq!(ids.len(), 100);
    assert_eq!(statuses(&site), (0, 100, 0));
}
