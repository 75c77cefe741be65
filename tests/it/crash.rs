//! Acceptance: inbound mails (1,000 of them: issue 57's group commit handles
//! 200 in a few tens of milliseconds, too quick for a kill to land between two
//! commit groups), the real binary SIGKILLed at random moments
//! and restarted until the inbox is drained. Every mail must be processed
//! exactly once, every reply be in the outbox exactly once, and the database
//! must pass `PRAGMA integrity_check`.

use crate::common;
use common::{bin, mail, Site};
use std::collections::BTreeMap;
use std::process::{Command, Stdio};
use std::time::Duration;

/// A small deterministic generator so a failure can be re-run.
struct Lcg(u64);
impl Lcg {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n
    }
}

#[test]
fn sigkill_at_random_moments_loses_and_repeats_nothing() {
    let site = Site::new();
    // Poll quickly so restarts get to work at once.
    let cfg = std::fs::read_to_string(site.config())
        .unwrap()
        .replace("poll_seconds = 30", "poll_seconds = 1")
        // This test is about crashes, not the answer caps (tests/it/hardening.rs):
        // p1 sends 20 STATUS mails within the hour.
        .replace(
            "answers_per_address_hour = 60",
            "answers_per_address_hour = 1000",
        );
    std::fs::write(site.config(), cfg).unwrap();
    let scenario = site.scenario();
    site.ok(&[
        "new-game",
        "--scenario",
        &scenario,
        "--seat",
        "allies=p0@example.org",
        "--seat",
        "axis=p1@example.org",
    ]);
    let welcomes = site.outbox().len();

    // Mails in the inbox: enough that a pass lasts long past the judge's
    // start (a big pass commits 32 mails at a time).
    const MAILS: usize = 1000;
    let mut expected_replies = 0;
    for i in 0..MAILS {
        let raw = match i % 10 {
            // An auto-reply: logged, never answered.
            9 => format!("From: away{i}@example.org\r\nAuto-Submitted: auto-replied\r\nMessage-ID: <m{i}@example.org>\r\nSubject: away\r\n\r\nHELP\r\n").into_bytes(),
            3 => { expected_replies += 1; mail(&format!("p{}@example.org", i % 2), "judge@localhost", "status", &format!("m{i}@example.org"), "STATUS\n") }
            _ => { expected_replies += 1; mail(&format!("u{i}@example.org"), "judge@localhost", "help", &format!("m{i}@example.org"), "HELP\n") }
        };
        site.drop_mail(&format!("{i:04}.eml"), &raw);
    }
    // Drop a few duplicates under other names, too.
    for i in [0, 50, 123] {
        site.drop_mail(
            &format!("dup-{i}.eml"),
            &mail(
                &format!("u{i}@example.org"),
                "judge@localhost",
                "help",
                &format!("m{i}@example.org"),
                "HELP\n",
            ),
        );
    }

    let mut rng = Lcg(0x5eed);
    let mut kills = 0;
    // The kill comes 1-30 ms after the start, times `slack`, which doubles
    // after each kill that changed nothing (a loaded machine may not even
    // start the judge in 30 ms) and drops back to 1 after one that did.
    let mut slack: u64 = 1;
    let mut last = (usize::MAX, i64::MAX);
    let mut stuck = 0;
    // Kills that left the inbox partly handled: the ones that test anything.
    let mut midway = 0;
    loop {
        let waiting = std::fs::read_dir(site.inbox_new()).unwrap().count();
        let pending: i64 = site
            .db()
            .query_row(
                "SELECT count(*) FROM outbox WHERE status = 'pending'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        if waiting == 0 && pending == 0 {
            break;
        }
        if (waiting, pending) == last {
            slack = (slack * 2).min(256);
            stuck += 1;
        } else {
            slack = 1;
            stuck = 0;
        }
        last = (waiting, pending);
        assert!(
            stuck < 40,
            "did not drain: {waiting} waiting, {pending} pending, unchanged by {stuck} runs of up to {} ms",
            30 * slack
        );
        let mut child = Command::new(bin())
            .arg("--config")
            .arg(site.config())
            .arg("serve")
            .env("ADJUTANT_LOG", "error")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let wait_ms = (1 + rng.next(30)) * slack;
        std::thread::sleep(Duration::from_millis(wait_ms));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        kills += 1;
        // Partly handled: some mails moved to cur/, or (a big pass moves
        // its mails 32 at a time, after its commit group's sync) some but
        // not all recorded.
        let done = std::fs::read_dir(site.inbox_cur()).unwrap().count();
        if (done > 0 && done < MAILS + 3) || (1..MAILS as i64).contains(&recorded(&site, "%")) {
            midway += 1;
        }
    }
    eprintln!("drained after {kills} kills");
    eprintln!("{midway} kills left the inbox partly handled");
    assert!(
        midway >= 2,
        "the judge was not killed in the middle of its work ({kills} kills)"
    );

    let db = site.db();
    let ok: String = db
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(ok, "ok");
    let inbox: i64 = db
        .query_row("SELECT count(*) FROM inbox", [], |r| r.get(0))
        .unwrap();
    assert_eq!(
        inbox, MAILS as i64,
        "every distinct mail recorded exactly once"
    );
    let distinct: i64 = db
        .query_row("SELECT count(DISTINCT message_id) FROM inbox", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(distinct, MAILS as i64);
    let replies: i64 = db
        .query_row(
            "SELECT count(*) FROM outbox WHERE kind = 'reply' AND status = 'sent'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(replies, expected_replies);

    // On disk: exactly one file per outbox row, and one reply per answered mail.
    let out = site.outbox();
    assert_eq!(out.len(), welcomes + expected_replies as usize);
    let mut per_mail: BTreeMap<String, usize> = BTreeMap::new();
    for (_, text) in &out {
        if let Some(line) = text.lines().find(|l| l.starts_with("In-Reply-To: ")) {
            *per_mail.entry(line.to_string()).or_default() += 1;
        }
    }
    assert_eq!(per_mail.len(), expected_replies as usize);
    assert!(
        per_mail.values().all(|n| *n == 1),
        "a mail answered twice: {per_mail:?}"
    );
    assert_eq!(
        std::fs::read_dir(site.inbox_cur()).unwrap().count(),
        MAILS + 3
    );
}

/// Issue 35, acceptance 1, and issue 52's: a recording SMTP server on
/// loopback (tests/it/common/smtp_recorder.rs) that counts each mail's
/// Message-ID, a backlog with turn reports, and big inbox passes (the
/// three threads: reader, handling, courier) SIGKILLed at random moments.
/// No mail is lost, and the mails sent more than once are at most one
/// group of eight a kill (docs/host.md, "What is never lost").
#[test]
fn sigkill_in_big_passes_resends_at_most_eight_mails_a_kill() {
    use crate::common::smtp_recorder::{Mode, Recorder};
    let site = Site::new();
    let cfg = std::fs::read_to_string(site.config())
        .unwrap()
        .replace("poll_seconds = 30", "poll_seconds = 1")
        .replace(
            "answers_per_address_hour = 60",
            "answers_per_address_hour = 100000",
        );
    std::fs::write(site.config(), &cfg).unwrap();
    // Mail is queued while the server is down (connections refused).
    let mut recorder = Recorder::start(Mode::Accept);
    recorder.configure(&site.config(), 10);
    recorder.stop();
    // A game with turn reports waiting (their jobs render at delivery).
    site.pegasus_bridge(&[]);
    let turns = common::submit_random_turns(&site, 6, 7);
    assert!(turns >= 2, "{turns} turns");
    // The inbox: enough mail for big passes.
    let n = common::depth::games("CRASH_MAILS", 2000, 4000) as usize;
    for i in 0..n {
        let raw = mail(
            &format!("u{i}@example.org"),
            "judge@localhost",
            "help",
            &format!("big{i}@example.org"),
            "HELP\n",
        );
        site.drop_mail(&format!("{i:05}.eml"), &raw);
    }
    recorder.restart(Mode::Accept);
    // A few milliseconds a mail, as the sendmail this test used before
    // cost (a process a mail): the courier, which also moves the handled
    // mails to cur/, keeps a pass long enough for kills to land in it.
    recorder.set_delay_ms(5);
    // The mails the failing server refused are due again now.
    site.db()
        .execute(
            "UPDATE outbox SET next_attempt_at = '2000-01-01T00:00:00Z'",
            [],
        )
        .unwrap();
    let mut rng = Lcg(0xb16);
    let (mut kills, mut midway) = (0, 0);
    let pending = |site: &Site| -> i64 {
        site.db()
            .query_row(
                "SELECT count(*) FROM outbox WHERE status = 'pending'",
                [],
                |r| r.get(0),
            )
            .unwrap()
    };
    // 8 kills quick, 20 deep (`CRASH_KILLS`), each 0.1 to 1 s into a run
    // (group commit handles the 2,000 mails in about a second: a kill later
    // than that found the inbox done);
    // then one run to the end.
    let wanted = common::depth::games("CRASH_KILLS", 8, 20) as usize;
    while kills < wanted {
        let mut child = Command::new(bin())
            .arg("--config")
            .arg(site.config())
            .arg("serve")
            .env("ADJUTANT_LOG", "error")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        if kills % 2 == 0 {
            // Half the kills wait for the pass to have begun (a mail moved
            // to cur/), so that some land in its middle however fast or
            // loaded the machine is; the rest at a random moment.
            let before = std::fs::read_dir(site.inbox_cur()).unwrap().count();
            let start = std::time::Instant::now();
            while std::fs::read_dir(site.inbox_cur()).unwrap().count() == before
                && before < n
                && start.elapsed() < Duration::from_secs(5)
            {
                std::thread::sleep(Duration::from_millis(5));
            }
            std::thread::sleep(Duration::from_millis(rng.next(100)));
        } else {
            std::thread::sleep(Duration::from_millis(100 + rng.next(900)));
        }
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        kills += 1;
        // In the middle of a pass: its inbox partly handled (moved, or, as
        // a big pass moves its mails 32 at a time after a commit group's
        // sync, recorded), or its answers partly sent (the sends a kill
        // may repeat). 2,000 mails: group commit handles 400 before most
        // kills land.
        let done = std::fs::read_dir(site.inbox_cur()).unwrap().count();
        let (_, sent, _) = site.outbox_statuses();
        eprintln!(
            "kill {kills}: {done} in cur/, {} recorded, {} pending, {sent} sent",
            recorded(&site, "%big%"),
            pending(&site)
        );
        if (done > 0 && done < n)
            || (1..n as i64).contains(&recorded(&site, "%big%"))
            || (pending(&site) > 0 && sent > 0)
        {
            midway += 1;
        }
    }
    assert!(midway >= 2, "no kill in the middle of a pass ({midway})");
    let mut rounds = 0;
    while std::fs::read_dir(site.inbox_new()).unwrap().count() > 0 || pending(&site) > 0 {
        rounds += 1;
        assert!(rounds < 20, "did not drain: {}", undrained(&site));
        site.ok(&["serve", "--once"]);
    }
    let db = site.db();
    let inbox: i64 = db
        .query_row("SELECT count(*) FROM inbox", [], |r| r.get(0))
        .unwrap();
    assert_eq!(inbox as usize, n, "every mail recorded once");
    let mut rows: Vec<String> = {
        let mut st = db.prepare("SELECT message_id FROM outbox").unwrap();
        st.query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    };
    rows.sort();
    let mut times: BTreeMap<String, usize> = BTreeMap::new();
    for id in recorder.message_ids() {
        let id = id.trim_start_matches('<').trim_end_matches('>');
        *times.entry(id.to_string()).or_default() += 1;
    }
    for id in &rows {
        let id = id.trim_start_matches('<').trim_end_matches('>');
        assert!(times.contains_key(id), "{id} never delivered");
    }
    let extra: usize = times.values().map(|t| t - 1).sum();
    eprintln!(
        "{} mails ({} turns' reports among them), {kills} kills ({midway} in the middle of the inbox): {extra} sent twice",
        rows.len(),
        turns
    );
    assert_eq!(times.len(), rows.len(), "only the outbox's mails were sent");
    assert!(
        extra <= 8 * kills,
        "{extra} repeated sends after {kills} kills (at most 8 a kill)"
    );
}

/// The mails the site's inbox log has recorded whose Message-ID is LIKE
/// `pattern`.
fn recorded(site: &Site, pattern: &str) -> i64 {
    site.db()
        .query_row(
            "SELECT count(*) FROM inbox WHERE message_id LIKE ?1",
            [pattern],
            |r| r.get(0),
        )
        .unwrap()
}

/// What a crash test's site holds that did not drain: the mails left in
/// new/ and the first pending outbox rows (their attempts, claims, errors).
fn undrained(site: &Site) -> String {
    let db = site.db();
    let mut st = db
        .prepare(
            "SELECT id, kind, attempts, next_attempt_at, claimed_by, claim_until, last_error
                 FROM outbox WHERE status = 'pending' LIMIT 5",
        )
        .unwrap();
    let rows: Vec<String> = st
        .query_map([], |r| {
            Ok(format!(
                "{:?}",
                (
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, i64>(2)?,
                    r.get::<_, Option<String>>(3)?,
                    r.get::<_, Option<String>>(4)?,
                    r.get::<_, Option<String>>(5)?,
                    r.get::<_, Option<String>>(6)?,
                )
            ))
        })
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let waiting = std::fs::read_dir(site.inbox_new()).unwrap().count();
    format!("{waiting} mails in new/, pending rows {rows:#?}")
}

/// A site whose inbox holds `n` HELP mails (answer caps out of the way).
fn help_backlog(n: usize) -> Site {
    let site = Site::new();
    let cfg = std::fs::read_to_string(site.config()).unwrap().replace(
        "answers_per_address_hour = 60",
        "answers_per_address_hour = 100000",
    );
    std::fs::write(site.config(), cfg).unwrap();
    for i in 0..n {
        let raw = mail(
            &format!("u{i}@example.org"),
            "judge@localhost",
            "help",
            &format!("grp{i}@example.org"),
            "HELP\n",
        );
        site.drop_mail(&format!("{i:05}.eml"), &raw);
    }
    site
}

/// Issue 57, group commit: a big inbox pass handles a group of 32 mails
/// (`daemon::GROUP_COMMIT`) in ONE transaction, a savepoint a mail, and
/// moves the group's files out of new/ only after its commit and sync. The
/// judge dies right after the 45th mail, 13 mails into its second group,
/// by SIGKILL (as a host's `kill -9`) and by abort (no unwinding, nothing
/// flushed): exactly the first group is out of new/; of the second, what
/// was committed early for the courier's write (`daemon::Group::let_go`:
/// a prefix of it, its answers queued with it) is recorded and the rest
/// is not (no inbox row, no answer queued); and the next pass records
/// every mail once and answers every one exactly once, the mails recorded
/// early found seen already.
#[test]
fn a_crash_in_the_middle_of_a_commit_group_loses_and_repeats_nothing() {
    for fault in ["kill-handled:45", "abort-handled:45"] {
        let n = 150;
        let site = help_backlog(n);
        let out = site
            .command(&["serve", "--once"])
            .env("ADJUTANT_FAULT", fault)
            .output()
            .unwrap();
        assert!(
            !out.status.success(),
            "{fault}: the judge was to die after 45 mails: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        if fault.starts_with("kill") {
            use std::os::unix::process::ExitStatusExt;
            assert_eq!(out.status.signal(), Some(9), "{fault}: killed by SIGKILL");
        }
        let db = site.db();
        let count = |sql: &str| -> i64 { db.query_row(sql, [], |r| r.get(0)).unwrap() };
        let recorded = count("SELECT count(*) FROM inbox");
        let queued = count("SELECT count(*) FROM outbox");
        let moved = std::fs::read_dir(site.inbox_cur()).unwrap().count();
        eprintln!("{fault}: {recorded} mails recorded at the kill");
        assert!(
            (32..45).contains(&recorded),
            "{fault}: the first group's 32 mails recorded, and of the second's at most those committed early for the courier, never the mail in hand: {recorded}"
        );
        assert_eq!(
            queued, recorded,
            "{fault}: the recorded mails' answers queued, and no other"
        );
        assert_eq!(
            moved, 32,
            "{fault}: the first group's files left new/, no other"
        );
        drop(db);
        // The next pass, to the end.
        site.ok(&["serve", "--once"]);
        assert_eq!(std::fs::read_dir(site.inbox_new()).unwrap().count(), 0);
        assert_eq!(std::fs::read_dir(site.inbox_cur()).unwrap().count(), n);
        let db = site.db();
        let ok: String = db
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))
            .unwrap();
        assert_eq!(ok, "ok");
        drop(db);
        recorded_and_answered_once(&site, n, fault);
    }
}

/// Every one of the `n` mails recorded exactly once in the inbox log and
/// answered exactly once (by the answers' `In-Reply-To`).
fn recorded_and_answered_once(site: &Site, n: usize, what: &str) {
    let inbox: i64 = site
        .db()
        .query_row("SELECT count(*) FROM inbox", [], |r| r.get(0))
        .unwrap();
    assert_eq!(
        inbox as usize, n,
        "{what}: every mail recorded exactly once"
    );
    let mut per_mail: BTreeMap<String, usize> = BTreeMap::new();
    for (_, text) in site.outbox() {
        if let Some(line) = text.lines().find(|l| l.starts_with("In-Reply-To: ")) {
            *per_mail.entry(line.to_string()).or_default() += 1;
        }
    }
    assert_eq!(per_mail.len(), n, "{what}: every mail answered");
    assert!(
        per_mail.values().all(|t| *t == 1),
        "{what}: a mail answered twice: {:?}",
        per_mail.iter().filter(|(_, t)| **t > 1).collect::<Vec<_>>()
    );
}

/// Issue 57, the courier's writes between two mails: when the courier
/// waits to write, the handling thread commits its group's work so far
/// early, unsynced, its files still in new/ (`daemon::Group::let_go`). A
/// judge killed right after such a commit (SIGKILL, the pass's first
/// early commit: `ADJUTANT_FAULT=kill-let-go:1`) has mails recorded, their
/// answers queued, whose files never left new/; the next pass finds them
/// seen (duplicates: handled nothing again), and in the end every mail is
/// recorded once and answered exactly once.
#[test]
fn a_kill_after_a_commit_made_early_for_the_courier_answers_nothing_twice() {
    use std::os::unix::process::ExitStatusExt;
    let n = 600;
    // Whether the courier writes while a group is open is the threads'
    // timing (its thread starts, and runs at a lower priority, beside the
    // handling): a pass that made no early commit is tried again, three
    // times at most.
    let mut tries = Vec::new();
    let site = loop {
        let site = help_backlog(n);
        let out = site
            .command(&["serve", "--once"])
            .env("ADJUTANT_FAULT", "kill-let-go:1")
            .output()
            .unwrap();
        if out.status.signal() == Some(9) {
            break site;
        }
        tries.push(String::from_utf8_lossy(&out.stderr).into_owned());
        assert!(
            tries.len() < 3,
            "three passes of {n} mails made no commit early for the courier: {tries:#?}"
        );
    };
    let db = site.db();
    let count = |sql: &str| -> i64 { db.query_row(sql, [], |r| r.get(0)).unwrap() };
    let recorded = count("SELECT count(*) FROM inbox");
    let queued = count("SELECT count(*) FROM outbox");
    let moved = std::fs::read_dir(site.inbox_cur()).unwrap().count() as i64;
    eprintln!("{recorded} recorded, {moved} moved at the kill");
    assert!(
        recorded > moved,
        "mails recorded early whose files are still in new/: {recorded} recorded, {moved} moved"
    );
    assert_eq!(
        queued, recorded,
        "each recorded mail's answer queued, no other"
    );
    drop(db);
    let out = site.command(&["serve", "--once"]).output().unwrap();
    assert!(out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    let seen = recorded - moved;
    assert!(
        said.contains(&format!("({seen} duplicates, 0 failed)")),
        "the {seen} mails recorded early are found seen: {said}"
    );
    assert_eq!(std::fs::read_dir(site.inbox_new()).unwrap().count(), 0);
    assert_eq!(std::fs::read_dir(site.inbox_cur()).unwrap().count(), n);
    recorded_and_answered_once(&site, n, "after a kill at an early commit");
}

/// Issue 57, group commit: a mail that fails inside a commit group (a
/// panic while it is handled, after its inbox row was written:
/// `ADJUTANT_FAULT=inbound-recorded:40`) is undone alone, back to its
/// savepoint: its own row and answer are gone, it is recorded as failed
/// and set aside, and the 99 others of the pass (31 of them in its group)
/// are recorded and answered once each.
#[test]
fn a_mail_that_fails_inside_a_commit_group_is_undone_alone() {
    let n = 100;
    let site = help_backlog(n);
    let out = site
        .command(&["serve", "--once"])
        .env("ADJUTANT_FAULT", "inbound-recorded:40")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the pass goes on past the failed mail: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let db = site.db();
    let count = |sql: &str| -> i64 { db.query_row(sql, [], |r| r.get(0)).unwrap() };
    assert_eq!(
        count("SELECT count(*) FROM inbox WHERE outcome = 'failed: internal error'"),
        1,
        "the failed mail recorded as failed"
    );
    assert_eq!(
        count("SELECT count(*) FROM inbox WHERE message_id IS NOT NULL"),
        (n - 1) as i64,
        "the failed mail's own inbox row undone, the others' kept"
    );
    let mut answered: Vec<usize> = Vec::new();
    for (_, text) in site.outbox() {
        if let Some(line) = text.lines().find(|l| l.starts_with("In-Reply-To: ")) {
            let i: usize = line
                .trim_start_matches("In-Reply-To: <grp")
                .split('@')
                .next()
                .and_then(|i| i.parse().ok())
                .unwrap_or_else(|| panic!("{line}"));
            answered.push(i);
        }
    }
    answered.sort_unstable();
    let missing: Vec<usize> = (0..n)
        .filter(|i| answered.binary_search(i).is_err())
        .collect();
    assert_eq!(
        answered.len(),
        n - 1,
        "each other mail answered once: {missing:?}"
    );
    answered.dedup();
    assert_eq!(answered.len(), n - 1, "none answered twice");
    assert_eq!(missing.len(), 1, "one mail unanswered: {missing:?}");
    let lost = format!("%grp{}@%", missing[0]);
    assert_eq!(recorded(&site, &lost), 0, "the failed mail's row undone");
    assert_eq!(
        count("SELECT count(*) FROM outbox"),
        (n - 1) as i64,
        "no answer queued for the failed mail"
    );
    assert_eq!(std::fs::read_dir(site.inbox_new()).unwrap().count(), 0);
    assert_eq!(
        std::fs::read_dir(site.inbox_cur()).unwrap().count(),
        n - 1,
        "the failed mail set aside, the others in cur/"
    );
}

/// Issue 57, group commit, measured from outside: a pass over 256 mails
/// syncs the database a few times a group of 32, not once a mail as one
/// FULL commit a mail did (counted with strace; skipped, saying so, where
/// strace is not installed).
#[test]
fn a_big_pass_syncs_once_a_group_not_once_a_mail() {
    let n = 256;
    let Some((_site, syncs, _)) = syncs_of_a_help_pass(n) else {
        return;
    };
    assert!(
        syncs <= n / 4,
        "{syncs} syncs for {n} mails (one FULL commit a mail is {n} or more)"
    );
}

/// The `fsync`s (and `fdatasync`s) of one `serve --once` over `n` HELP
/// mails, counted with strace, with the site and strace's summary; None
/// (saying it is skipped) where strace is not installed.
fn syncs_of_a_help_pass(n: usize) -> Option<(Site, usize, String)> {
    if Command::new("strace").arg("-V").output().is_err() {
        eprintln!("SKIPPED: strace is not installed");
        return None;
    }
    let site = help_backlog(n);
    let trace = site.path().join("fsyncs.txt");
    let out = Command::new("strace")
        .args(["-f", "-c", "-e", "trace=fsync,fdatasync", "-o"])
        .arg(&trace)
        .arg(bin())
        .arg("--config")
        .arg(site.config())
        .args(["serve", "--once"])
        .env("ADJUTANT_LOG", "error")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read_dir(site.inbox_cur()).unwrap().count(), n);
    let summary = std::fs::read_to_string(&trace).unwrap();
    // "% time seconds usecs/call calls errors syscall" rows.
    let syncs: usize = summary
        .lines()
        .filter(|l| l.ends_with(" fsync") || l.ends_with(" fdatasync"))
        .filter_map(|l| l.split_whitespace().nth(3)?.parse::<usize>().ok())
        .sum();
    eprintln!("{syncs} syncs for {n} mails");
    assert!(
        syncs > 0,
        "strace counted no sync at all, so it counts nothing: {summary}"
    );
    Some((site, syncs, summary))
}

/// Issue 57, the mail path measured natively: in a big pass the courier
/// synced the WAL before sending each page it claimed (103 `fsync`s of a
/// 2,000-mail pass beside the handling thread's 74), though what it read
/// had been committed by groups the handling thread had already synced.
/// It syncs only when a commit that may have queued what it read is not yet
/// synced: since the thirty-fifth session the handling thread commits a
/// group's work early, unsynced, when the courier waits to write
/// (`daemon::Group::let_go`), so the courier syncs again for most pages,
/// on its own thread, beside the handling (docs/performance.md, "The
/// courier's writes between two mails"). Bounded here: the pass syncs once
/// a group of 32 mails and at most once a page the courier claimed: at
/// each kick of 16 mails handled (`daemon::KICK_EVERY`) its full pages of
/// 64 rows (`store::OUTBOX_PAGE`) and one short of full, which ends its
/// round; never once a mail (counted with strace; skipped, saying so,
/// where strace is not installed). That no answer goes out from an unsynced
/// commit is `delivery`'s and this file's kill tests' to hold.
#[test]
fn a_big_pass_syncs_once_a_group_and_at_most_once_a_courier_page() {
    let n = 512;
    let Some((site, syncs, summary)) = syncs_of_a_help_pass(n) else {
        return;
    };
    let outbox = site.path().join("mail").join("outbox");
    assert_eq!(
        std::fs::read_dir(&outbox).unwrap().count(),
        n,
        "every mail answered"
    );
    let groups = n / adjutant::daemon::GROUP_COMMIT;
    let kicks = n / adjutant::daemon::KICK_EVERY;
    let full = n / adjutant::store::OUTBOX_PAGE;
    assert!(syncs >= groups, "strace counted too few syncs: {summary}");
    assert!(
        syncs <= groups + kicks + full + 6,
        "{syncs} syncs for {groups} commit groups, {kicks} kicks of the courier and {full} full pages\n{summary}"
    );
}

/// Issue 57: a big pass commits a group of 32 mails in one transaction, a
/// savepoint a mail, and SQLite journals each savepoint's pages; past
/// 64 KiB it wrote that journal to a temporary file, most of the pass's
/// page writes (12,544 of 15,334 for 200 order mails). The journal now
/// stays in memory for the pass: every page the pass writes goes to the
/// database or its WAL. Counted with strace (`-y` names each write's file).
#[test]
fn a_big_pass_writes_its_pages_to_the_database_only() {
    if Command::new("strace").arg("-V").output().is_err() {
        eprintln!("SKIPPED: strace is not installed");
        return;
    }
    // 8 first turns of Pegasus Bridge, each a few dozen pages, among 100
    // HELP mails (more than 64: the big pass and its commit groups).
    let n = 100;
    let site = help_backlog(n);
    for i in 0..8 {
        site.new_game(
            "pegasus-bridge",
            &[
                &format!("allies=a{i}@example.org"),
                &format!("axis=b{i}@example.org"),
            ],
            &[],
        );
    }
    let mut orders = 0;
    for (name, text) in site.outbox() {
        let to = text.lines().find_map(|l| l.strip_prefix("To: "));
        let reply_to = text.lines().find_map(|l| l.strip_prefix("Reply-To: "));
        let (Some(to), Some(reply_to)) = (to, reply_to) else {
            continue;
        };
        if !(name.contains("welcome") && to.starts_with('a')) {
            continue;
        }
        let token = reply_to
            .trim_start_matches(|c| c != '<')
            .trim_matches(['<', '>']);
        site.drop_mail(
            &format!("orders{orders}.eml"),
            &mail(
                to,
                token,
                "Re: orders",
                &format!("orders{orders}@example.org"),
                "PLAY direct-from-hq\nORDER F4\nBATTLE F4 F5\n",
            ),
        );
        orders += 1;
    }
    assert_eq!(orders, 8, "one welcome a game to the Allies");
    let n = n + orders;
    let trace = site.path().join("writes.txt");
    let out = Command::new("strace")
        .args(["-f", "-y", "-e", "trace=pwrite64", "-o"])
        .arg(&trace)
        .arg(bin())
        .arg("--config")
        .arg(site.config())
        .args(["serve", "--once"])
        .env("ADJUTANT_LOG", "error")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read_dir(site.inbox_cur()).unwrap().count(), n);
    let trace = std::fs::read_to_string(&trace).unwrap();
    // "PID pwrite64(FD</path>, ..." (a call another thread interrupted is
    // "<unfinished ...>" and then "<... pwrite64 resumed>", counted once).
    let files: Vec<&str> = trace
        .lines()
        .filter_map(|l| {
            l.split_once("pwrite64(")?
                .1
                .split_once('<')?
                .1
                .split_once('>')
        })
        .map(|(file, _)| file)
        .collect();
    let database = files.iter().filter(|f| f.contains("adjutant.db")).count();
    let elsewhere: BTreeMap<&str, usize> = files
        .iter()
        .filter(|f| !f.contains("adjutant.db"))
        .fold(BTreeMap::new(), |mut m, f| {
            *m.entry(*f).or_default() += 1;
            m
        });
    eprintln!("{database} page writes to the database, elsewhere {elsewhere:?}");
    assert!(database > 0, "strace saw no page written: {trace:.2000}");
    let turns: i64 = site
        .db()
        .query_row("SELECT count(DISTINCT game_id) FROM submissions", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(turns, 8, "every game played its first turn");
    assert!(
        elsewhere.is_empty(),
        "{n} mails wrote pages outside the database: {elsewhere:?}"
    );
}

/// Issue 57: a pass over 256 mails delivered its 256 answers to files with
/// a `mkdir` of the outbox folder before each (failing: the folder is
/// there), 259 failed calls; now the folder is made only when a write
/// finds it missing. Counted with strace like the syncs above; each answer
/// still arrives, one file each.
#[test]
fn a_big_pass_makes_no_folder_it_already_has() {
    if Command::new("strace").arg("-V").output().is_err() {
        eprintln!("SKIPPED: strace is not installed");
        return;
    }
    let n = 256;
    let site = help_backlog(n);
    let outbox = site.path().join("mail").join("outbox");
    let before = std::fs::read_dir(&outbox).map_or(0, Iterator::count);
    let trace = site.path().join("mkdirs.txt");
    let out = Command::new("strace")
        .args(["-f", "-c", "-e", "trace=mkdir,mkdirat", "-o"])
        .arg(&trace)
        .arg(bin())
        .arg("--config")
        .arg(site.config())
        .args(["serve", "--once"])
        .env("ADJUTANT_LOG", "error")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read_dir(site.inbox_cur()).unwrap().count(), n);
    let after = std::fs::read_dir(&outbox).unwrap().count();
    assert_eq!(after - before, n, "one answer file a mail");
    let summary = std::fs::read_to_string(&trace).unwrap();
    // "% time seconds usecs/call calls errors syscall" rows; a row without
    // errors has five columns.
    let (calls, failed) = summary
        .lines()
        .filter(|l| l.ends_with(" mkdir") || l.ends_with(" mkdirat"))
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let errors = if f.len() == 6 {
                f[4].parse().unwrap_or(0)
            } else {
                0
            };
            (f[3].parse::<usize>().unwrap_or(0), errors)
        })
        .fold((0, 0), |(c, e), (c1, e1)| (c + c1, e + e1));
    eprintln!("{calls} mkdir calls, {failed} failed, for {n} mails");
    assert!(
        failed <= 8,
        "{failed} failed mkdir calls for {n} mails: a folder made again per mail\n{summary}"
    );
}
