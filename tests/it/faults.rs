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

/// `n` answers queued while the recorder is down (connections refused);
/// every row due now afterwards (the one that carried the failed attempt
/// too), the recorder listening again in `mode`.
fn queue_while_down(site: &Site, rec: &mut Recorder, n: usize, at: &str) {
    rec.configure(&site.config(), 5);
    rec.stop();
    ask_help(site, "queued", 0, n);
    site.at(at, &["serve", "--once"]);
    assert_eq!(site.outbox_statuses(), (n as i64, 0, 0), "all queued");
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
    assert_eq!(site.outbox_statuses(), (0, 2, 1));
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
    // `serve`'s start looks for the server's greeting (src/preflight.rs:
    // a port that speaks implicit TLS stays silent; no login is tried),
    // checks the login once, then the pass knocks once.
    assert_eq!(rec.connections(), 3, "one knock a pass");
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
    assert_eq!(site.outbox_statuses(), (0, 10, 0));
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
    assert_eq!(site.outbox_statuses(), (200, 0, 0));
    // The start's greeting probe (no login) and login check, then one
    // attempt in the pass.
    assert_eq!(rec.connections(), 3, "one attempt a pass (fail2ban)");
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
    assert_eq!(site.outbox_statuses(), (0, 100, 0));
}

/// Issue 54 items 4 and 7: after an outage, mail waiting out its back-off
/// is not overtaken by newer mail to the same player: once the server
/// takes mail again every waiting mail is due at once, in the order it
/// was queued; and the log says the outage ended and what was delivered.
/// The outage is the recorder's own, on its own loopback port (stopped and
/// started here; the shared Postfix is left alone).
#[test]
fn after_an_outage_waiting_mail_goes_first_and_the_end_is_logged() {
    let site = Site::new();
    let mut rec = Recorder::start(Mode::Accept);
    rec.configure(&site.config(), 5);
    rec.stop();
    // The first answer to p0 fails four times: its back-off runs to 00:30.
    ask_help(&site, "first", 0, 1);
    for at in ["00:00", "00:02", "00:06", "00:14"] {
        site.at(&format!("2026-11-01T{at}:00Z"), &["serve", "--once"]);
    }
    let next: String = site
        .db()
        .query_row("SELECT next_attempt_at FROM outbox WHERE id = 1", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(next, "2026-11-01T00:30:00Z");
    // The server is back; at 00:20 p0 writes again, by an MTA pipe (no
    // judge start).
    rec.restart(Mode::Accept);
    let out = site
        .command(&["receive"])
        .env("ADJUTANT_NOW", "2026-11-01T00:20:00Z")
        .env("ADJUTANT_LOG", "info")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin.take().unwrap().write_all(&mail(
                "p0@example.org",
                "judge@localhost",
                "help",
                "<second-0@example.org>",
                "HELP\n",
            ))?;
            c.wait_with_output()
        })
        .unwrap();
    let log = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{log}");
    let queued: Vec<String> = {
        let db = site.db();
        let mut st = db
            .prepare("SELECT message_id FROM outbox ORDER BY id")
            .unwrap();
        st.query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    };
    let got = rec.message_ids();
    let want: Vec<String> = queued.iter().map(|id| format!("<{id}>")).collect();
    assert_eq!(got, want, "both answers, in the order they were queued");
    assert_eq!(site.outbox_statuses(), (0, 2, 0));
    assert!(log.contains("takes mail again"), "the outage's end: {log}");
    assert!(log.contains("delivered 2 mails"), "the deliveries: {log}");
}

/// Issue 54 item 4: `outbox retry ID` puts a mail waiting out its back-off
/// back in the queue now, as it does a dead one.
#[test]
fn outbox_retry_sends_a_pending_mail_now() {
    let site = Site::new();
    let mut rec = Recorder::start(Mode::Accept);
    rec.configure(&site.config(), 5);
    rec.stop();
    ask_help(&site, "retry", 0, 1);
    site.at("2026-11-01T00:00:00Z", &["serve", "--once"]);
    assert_eq!(site.outbox_statuses(), (1, 0, 0));
    rec.restart(Mode::Accept);
    let said = site.at("2026-11-01T00:01:00Z", &["outbox", "retry", "1"]);
    assert!(said.contains("1 mails put back"), "{said}");
    assert_eq!(site.outbox_statuses(), (0, 1, 0));
    assert_eq!(rec.message_ids().len(), 1);
}

/// Item 2: a full disk (SQLITE_FULL, injected at the store:
/// ADJUTANT_FAULT=disk-full, development builds only) is a fault that
/// passes: the mail stays in new/ however many passes meet it, the host is
/// told, and once there is room it is handled. And a mail set aside, put
/// back from quarantine/ by the host, is handled again.
#[test]
fn a_full_disk_sets_no_mail_aside_and_a_mail_put_back_is_handled() {
    let site = Site::new();
    ask_help(&site, "full", 0, 1);
    for h in 0..7 {
        let out = site
            .command(&["serve", "--once"])
            .env("ADJUTANT_NOW", format!("2026-11-01T0{h}:00:00Z"))
            .env("ADJUTANT_FAULT", "disk-full")
            .output()
            .unwrap();
        let log = String::from_utf8_lossy(&out.stderr);
        assert!(
            log.contains("the disk is full or failing; the mail stays"),
            "the host is told: {log}"
        );
        let waiting = std::fs::read_dir(site.inbox_new()).unwrap().count();
        assert_eq!(waiting, 1, "pass {h}: the mail stays in new/");
    }
    site.at("2026-11-01T08:00:00Z", &["serve", "--once"]);
    assert_eq!(site.outbox().len(), 1, "handled once there is room");
    // A mail set aside (a trigger refuses it five times), then put back.
    site.db()
        .execute_batch(
            "CREATE TRIGGER poison BEFORE INSERT ON inbox
             WHEN NEW.message_id = 'aside@example.org'
             BEGIN SELECT RAISE(ABORT, 'refused for now'); END;",
        )
        .unwrap();
    let raw = mail(
        "aside@example.org",
        "judge@localhost",
        "help",
        "aside@example.org",
        "HELP\n",
    );
    site.drop_mail("aside.eml", &raw);
    for h in 10..15 {
        site.at(&format!("2026-11-01T{h}:00:00Z"), &["serve", "--once"]);
    }
    let quarantine = site.inbox_new().parent().unwrap().join("quarantine");
    assert_eq!(std::fs::read_dir(&quarantine).unwrap().count(), 1);
    site.db().execute_batch("DROP TRIGGER poison").unwrap();
    std::fs::rename(
        quarantine.join("aside.eml"),
        site.inbox_new().join("aside.eml"),
    )
    .unwrap();
    site.at("2026-11-01T16:00:00Z", &["serve", "--once"]);
    assert_eq!(site.outbox().len(), 2, "the mail put back is answered");
    assert_eq!(std::fs::read_dir(site.inbox_new()).unwrap().count(), 0);
}

/// Item 7: a mail file still being written into new/ (a writer that does
/// not use tmp/) is not read cut short: the pass leaves it, and handles it
/// whole once the writer has closed it.
#[test]
fn a_mail_file_still_being_written_is_left_for_the_next_pass() {
    use std::io::Write;
    let site = Site::new();
    site.ok(&["games"]);
    let path = site.inbox_new().join("slow.eml");
    let mut file = std::fs::File::create(&path).unwrap();
    file.write_all(
        b"From: slow@example.org\r\nTo: judge@localhost\r\nSubject: help\r\n\
          Message-ID: <slow@example.org>\r\n\r\nHE",
    )
    .unwrap();
    file.flush().unwrap();
    site.at("2026-11-01T00:00:00Z", &["serve", "--once"]);
    assert!(path.exists(), "the growing file is left in new/");
    let seen: i64 = site
        .db()
        .query_row("SELECT count(*) FROM inbox", [], |r| r.get(0))
        .unwrap();
    assert_eq!(seen, 0, "nothing was recorded from half a mail");
    file.write_all(b"LP\r\n").unwrap();
    drop(file);
    site.at("2026-11-01T00:01:00Z", &["serve", "--once"]);
    assert!(!path.exists());
    let mails = site.mails();
    assert_eq!(mails.len(), 1, "answered once, whole");
    assert!(
        mails[0].contains("HELP") || mails[0].contains("Adjutant"),
        "{}",
        mails[0]
    );
}

/// Item 4: SIGTERM while a send hangs on an unresponsive SMTP server
/// (greets, then never answers) stops within a bound systemd's
/// `TimeoutStopSec=90` allows, not after the timeout twice over (the
/// timeout is 20 s here; it took 40 s and more). The mail stays queued.
#[test]
fn sigterm_with_a_hung_smtp_server_stops_within_seconds() {
    let site = Site::new();
    let rec = Recorder::start(Mode::Accept);
    rec.configure(&site.config(), 20);
    let log = std::fs::File::create(site.path().join("serve.log")).unwrap();
    let mut child = site
        .command(&["serve"])
        .env("ADJUTANT_LOG", "info")
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .unwrap();
    let waited = Instant::now();
    // The start's login check went through; from now on the server hangs.
    while rec.connections() < 1 {
        assert!(waited.elapsed() < Duration::from_secs(30), "no login check");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
    rec.set_mode(Mode::Hang);
    ask_help(&site, "hung", 0, 1);
    while rec.connections() < 2 {
        if waited.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("no delivery attempt");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(500));
    let stopping = Instant::now();
    let status = crate::common::terminate(&mut child);
    let took = stopping.elapsed();
    let said = std::fs::read_to_string(site.path().join("serve.log")).unwrap();
    assert!(status.success(), "{status:?}: {said}");
    assert!(
        took < Duration::from_secs(8),
        "the stop took {took:?}: {said}"
    );
    let (pending, sent, dead) = site.outbox_statuses();
    assert_eq!((pending, sent, dead), (1, 0, 0), "the answer stays queued");
}

/// The judge's Message-IDs in the mails of `site`'s outbox folder.
fn sent_ids(site: &Site) -> Vec<String> {
    site.outbox()
        .iter()
        .filter_map(|(_, text)| {
            text.lines()
                .find_map(|l| l.strip_prefix("Message-ID: "))
                .map(|id| id.trim().to_string())
        })
        .collect()
}

/// Item 5: two judges, or one judge restored from a copy of its database,
/// never send different mails under one Message-ID: the id has a random
/// part of the judge's own (kept in its database) and the moment the mail
/// was made.
#[test]
fn message_ids_differ_across_judges_and_after_a_restore() {
    let seats = ["allies=alice@example.org", "axis=bob@example.org"];
    let new_game = |site: &Site, at: &str| {
        site.at(
            at,
            &[
                "new-game",
                "--scenario",
                "pegasus-bridge",
                "--seat",
                seats[0],
                "--seat",
                seats[1],
            ],
        );
    };
    let (one, two) = (Site::new(), Site::new());
    new_game(&one, "2026-11-01T00:00:00Z");
    new_game(&two, "2026-11-01T00:00:00Z");
    let (a, b) = (sent_ids(&one), sent_ids(&two));
    assert_eq!(a.len(), 2, "two welcomes");
    assert!(
        a.iter().all(|id| !b.contains(id)),
        "two judges share Message-IDs: {a:?} {b:?}"
    );
    // One judge, its database and key copied aside, a game made, the copy
    // put back (a restore), a game made again: the same game number.
    let db = one.path().join("adjutant.db");
    let key = one.path().join("adjutant.db.key");
    let saved = one.path().join("saved");
    std::fs::create_dir(&saved).unwrap();
    for f in [&db, &key] {
        std::fs::copy(f, saved.join(f.file_name().unwrap())).unwrap();
    }
    new_game(&one, "2026-11-02T00:00:00Z");
    let before = sent_ids(&one);
    for f in [&db, &key] {
        std::fs::copy(saved.join(f.file_name().unwrap()), f).unwrap();
    }
    for side in ["wal", "shm"] {
        let _ = std::fs::remove_file(one.path().join(format!("adjutant.db-{side}")));
    }
    std::fs::remove_dir_all(one.path().join("mail/outbox")).unwrap();
    std::fs::create_dir(one.path().join("mail/outbox")).unwrap();
    new_game(&one, "2026-11-03T00:00:00Z");
    let after = sent_ids(&one);
    assert_eq!(after.len(), 2, "{after:?}");
    assert!(
        after.iter().all(|id| !before.contains(id)),
        "a restored judge reuses Message-IDs: {before:?} {after:?}"
    );
}

/// A tmpfs of `size` mounted on a fresh folder (root only), unmounted when
/// dropped; None, with a message, where it cannot be mounted.
struct SmallDisk {
    dir: tempfile::TempDir,
}

impl SmallDisk {
    fn mount(size: &str) -> Option<SmallDisk> {
        let dir = tempfile::tempdir().ok()?;
        let ok = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir.path())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            eprintln!("skipped: a tmpfs cannot be mounted here (not root?)");
            return None;
        }
        Some(SmallDisk { dir })
    }

    /// Fills the disk with a file, then gives `room` bytes back.
    fn fill_but(&self, room: u64) -> std::path::PathBuf {
        use std::io::Write;
        let filler = self.dir.path().join("filler");
        let mut f = std::fs::File::create(&filler).unwrap();
        let block = [0u8; 4096];
        while f.write_all(&block).is_ok() {}
        let len = f.metadata().unwrap().len();
        f.set_len(len.saturating_sub(room)).unwrap();
        filler
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg(self.dir.path())
            .status();
    }
}

/// Item 2 on a real full disk: a judge on an 8 MB tmpfs filled but for
/// 56 KB (room to open the database and count a failure, not to record the
/// mail's transaction) keeps the mail through seven passes, says the disk
/// is full, and handles it once there is room.
#[test]
fn on_a_really_full_disk_the_mail_waits_and_is_handled_once_there_is_room() {
    let Some(disk) = SmallDisk::mount("8m") else {
        return;
    };
    let dir = tempfile::tempdir_in(disk.dir.path()).unwrap();
    let init = std::process::Command::new(crate::common::bin())
        .arg("init")
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(init.status.success());
    let site = Site { dir };
    site.ok(&["games"]);
    ask_help(&site, "disk", 0, 1);
    let filler = disk.fill_but(56 << 10);
    for h in 0..7 {
        let out = site
            .command(&["serve", "--once"])
            .env("ADJUTANT_NOW", format!("2026-11-01T0{h}:00:00Z"))
            .output()
            .unwrap();
        let log = String::from_utf8_lossy(&out.stderr);
        assert!(
            log.contains("the disk is full or failing; the mail stays"),
            "pass {h}: {log}"
        );
        let waiting = std::fs::read_dir(site.inbox_new()).unwrap().count();
        assert_eq!(waiting, 1, "pass {h}: the mail stays in new/");
    }
    std::fs::remove_file(filler).unwrap();
    site.at("2026-11-01T08:00:00Z", &["serve", "--once"]);
    assert_eq!(site.outbox().len(), 1, "handled once there is room");
    drop(site);
}

/// Issue 54 item 4: when the judge starts, mail waiting out its back-off
/// is due at once (a host who mended the server restarts the judge and
/// does not wait up to an hour).
#[test]
fn a_judge_start_makes_waiting_mail_due_at_once() {
    let site = Site::new();
    let mut rec = Recorder::start(Mode::Accept);
    rec.configure(&site.config(), 5);
    rec.stop();
    ask_help(&site, "start", 0, 1);
    for at in ["00:00", "00:02", "00:06", "00:14"] {
        site.at(&format!("2026-11-01T{at}:00Z"), &["serve", "--once"]);
    }
    rec.restart(Mode::Accept);
    // 00:20: the mail's back-off runs to 00:30.
    site.at("2026-11-01T00:20:00Z", &["serve", "--once"]);
    assert_eq!(site.outbox_statuses(), (0, 1, 0), "sent at the start");
    assert_eq!(rec.message_ids().len(), 1);
}

/// Issue 54 item 4 through the real loopback Postfix, stopped and started
/// (the test above does the same with the recorder): an answer queued
/// while Postfix is down waits out a back-off; once Postfix is back and a
/// send succeeds, it is due at once and goes out before the newer answer,
/// to the recipient's real mailbox. It stops the machine's one Postfix, so
/// it is ignored by `cargo test` (other mail-server tests run beside it
/// there); .ci/run runs it alone.
#[test]
#[ignore = "stops and starts the machine's one Postfix: .ci/run runs it alone"]
fn after_a_postfix_outage_waiting_mail_goes_out_first() {
    use crate::common::mail_client::{clear, wait_for};
    use crate::common::{mail_address, mailserver};
    if !mailserver() {
        return;
    }
    struct Restart;
    impl Drop for Restart {
        fn drop(&mut self) {
            postfix("start");
        }
    }
    fn postfix(what: &str) {
        let ok = std::process::Command::new("postfix")
            .args(["-c", "/tmp/adj-mail/postfix", what])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok || what == "start", "postfix {what} failed");
        // Wait until port 2525 answers (start) or refuses (stop).
        for _ in 0..100 {
            let up = std::net::TcpStream::connect("127.0.0.1:2525").is_ok();
            if up == (what == "start") {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!("postfix {what}: port 2525 did not follow");
    }
    let site = Site::new();
    let judge = mail_address("judge");
    let alice = mail_address("alice");
    clear(&alice);
    let cfg = std::fs::read_to_string(site.config())
        .unwrap()
        .replace("address = \"judge@localhost\"", &format!("address = \"{judge}\""))
        .replace("kind = \"file\"", "kind = \"smtp\"")
        .replace(
            "# [outbound.smtp]",
            &format!("[outbound.smtp]\nhost = \"127.0.0.1\"\nport = 2525\nsecurity = \"none\"\nuser = \"{judge}\"\npassword_env = \"FAULTS_JUDGE_PASSWORD\"\ntimeout_secs = 5\n"),
        );
    std::fs::write(site.config(), cfg).unwrap();
    let help = |id: &str| {
        mail(
            &alice,
            &judge,
            "help",
            &format!("<{id}@example.org>"),
            "HELP\n",
        )
    };

    let restart = Restart;
    postfix("stop");
    site.drop_mail("first.eml", &help("outage-first"));
    for at in ["00:00", "00:02", "00:06", "00:14"] {
        site.command(&["serve", "--once"])
            .env("ADJUTANT_NOW", format!("2026-11-01T{at}:00Z"))
            .env("FAULTS_JUDGE_PASSWORD", "secret")
            .output()
            .unwrap();
    }
    assert_eq!(site.outbox_statuses(), (1, 0, 0), "the first answer waits");
    postfix("start");
    drop(restart);
    // Postfix is back; at 00:20, before the first answer's back-off ends,
    // Alice writes again by an MTA pipe (no judge start).
    let out = site
        .command(&["receive"])
        .env("ADJUTANT_NOW", "2026-11-01T00:20:00Z")
        .env("FAULTS_JUDGE_PASSWORD", "secret")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin.take().unwrap().write_all(&help("outage-second"))?;
            c.wait_with_output()
        })
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(site.outbox_statuses(), (0, 2, 0), "both answers sent");
    // Both reach Alice's real mailbox. Their order there is Postfix's:
    // it delivers the two by LMTP at once, and either may be saved
    // first. What the judge promises is the order it hands them to
    // the server, which Postfix's log records: its cleanup daemon
    // logs each mail's Message-ID as the mail is accepted, one after
    // the other within the judge's one SMTP session.
    let got = wait_for(&alice, 2);
    let field = |m: &serde_json::Value, k: &str| m[k].as_str().unwrap_or("").to_string();
    let log = std::fs::read_to_string("/tmp/adj-mail/log/postfix.log").unwrap();
    let mut accepted: Vec<(usize, String)> = got
        .iter()
        .map(|m| {
            let id = field(m, "message_id");
            let at = log
                .rfind(&format!("message-id={id}"))
                .unwrap_or_else(|| panic!("Postfix's log never accepted {id}"));
            (at, field(m, "in_reply_to"))
        })
        .collect();
    accepted.sort();
    let order: Vec<&str> = accepted.iter().map(|(_, r)| r.as_str()).collect();
    assert_eq!(
        order,
        ["<outage-first@example.org>", "<outage-second@example.org>"],
        "handed to Postfix in the order they were queued"
    );
}
