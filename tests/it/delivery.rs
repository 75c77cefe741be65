//! The outbox through an outage (issue 35, docs/host.md "When delivery
//! fails"): a mail server that cannot be reached for a week of the judge's
//! clock gives no mail up; everything queued is delivered once it is back;
//! only the host's horizon (`outbound.retry_days`) gives a mail up, and
//! `adjutant outbox retry` puts it back.

use crate::common::{mail, plain, Site};

/// A loopback port nothing listens on.
fn closed_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

/// The site's outbound transport: SMTP to `port` on loopback, or the
/// default files.
fn transport(site: &Site, smtp_port: Option<u16>) {
    let cfg = std::fs::read_to_string(site.config()).unwrap();
    let cfg = match cfg.split_once("\n[outbound.smtp]") {
        Some((head, _)) => head.to_string() + "\n",
        None => cfg,
    };
    let cfg = match smtp_port {
        Some(port) => {
            cfg.replacen("kind = \"file\"", "kind = \"smtp\"", 1)
                + &format!(
                    "\n[outbound.smtp]\nhost = \"127.0.0.1\"\nport = {port}\nsecurity = \"none\"\ntimeout_secs = 2\n"
                )
        }
        None => cfg
            .replacen("kind = \"smtp\"", "kind = \"file\"", 1)
            .replacen("kind = \"sendmail\"", "kind = \"file\"", 1),
    };
    std::fs::write(site.config(), cfg).unwrap();
}

/// `serve --once` at `day` days and `hour` hours after the start.
fn pass_at(site: &Site, day: u32, hour: u32) {
    let now = format!("2026-11-{:02}T{hour:02}:00:00Z", 1 + day);
    site.at(&now, &["serve", "--once"]);
}

fn ask_help(site: &Site, n: usize) {
    for i in 0..n {
        site.drop_mail(
            &format!("help{i}.eml"),
            &mail(
                &format!("p{i}@example.org"),
                "judge@localhost",
                "help",
                &format!("<outage-{i}@example.org>"),
                "HELP\n",
            ),
        );
    }
}

#[test]
fn a_week_without_the_mail_server_gives_no_mail_up_and_all_goes_out_when_it_is_back() {
    let site = Site::new();
    transport(&site, Some(closed_port()));
    ask_help(&site, 3);
    pass_at(&site, 0, 0);
    assert_eq!(
        site.outbox_statuses(),
        (3, 0, 0),
        "queued, the server unreachable"
    );
    // Six days and 23 hours of passes every five hours: every attempt fails.
    for h in (5..7 * 24).step_by(5) {
        pass_at(&site, h / 24, h % 24);
        let (pending, _, dead) = site.outbox_statuses();
        assert_eq!((pending, dead), (3, 0), "hour {h}: no mail given up");
    }
    let attempts: i64 = site
        .db()
        .query_row("SELECT max(attempts) FROM outbox", [], |r| r.get(0))
        .unwrap();
    // A pass stops at the first mail that finds the server down (the
    // others would too), so the first due mail carries the attempts.
    assert!(attempts >= 20, "retried all week ({attempts} attempts)");
    // The host is told by doctor (exit 1), which changes nothing.
    let doctor = site.run(&["doctor"]);
    let said = String::from_utf8_lossy(&doctor.stdout);
    assert_eq!(doctor.status.code(), Some(1), "{said}");
    assert!(
        said.contains("3 mails wait after failed deliveries"),
        "{said}"
    );
    // The server is back: everything goes out, once.
    transport(&site, None);
    pass_at(&site, 6, 23);
    assert_eq!(site.outbox_statuses(), (0, 3, 0));
    assert_eq!(site.outbox().len(), 3);
    pass_at(&site, 7, 0);
    assert_eq!(site.outbox().len(), 3, "nothing delivered twice");
}

#[test]
fn past_the_hosts_horizon_mail_goes_dead_and_outbox_retry_puts_it_back() {
    let site = Site::new();
    let cfg = std::fs::read_to_string(site.config()).unwrap();
    std::fs::write(
        site.config(),
        cfg.replace("retry_days = 7", "retry_days = 1"),
    )
    .unwrap();
    transport(&site, Some(closed_port()));
    ask_help(&site, 2);
    pass_at(&site, 0, 0);
    pass_at(&site, 0, 23);
    assert_eq!(
        site.outbox_statuses(),
        (2, 0, 0),
        "within the day: still queued"
    );
    pass_at(&site, 1, 1);
    assert_eq!(site.outbox_statuses(), (0, 0, 2), "past the day: given up");
    let listed = site.ok(&["outbox"]);
    assert!(listed.contains("dead"), "{listed}");
    let doctor = site.run(&["doctor"]);
    let said = String::from_utf8_lossy(&doctor.stdout);
    assert!(said.contains("2 mails are dead"), "{said}");
    assert!(listed.contains("last error:"), "{listed}");
    // The host mends the transport and puts the dead mail back.
    transport(&site, None);
    let out = site.run(&["outbox", "retry"]);
    assert!(!out.status.success(), "retry needs an id or --dead");
    let said = site.ok(&["outbox", "retry", "--dead"]);
    assert!(said.contains("2 mails put back"), "{said}");
    assert_eq!(site.outbox_statuses(), (0, 2, 0));
    assert_eq!(site.outbox().len(), 2);
    let out = site.run(&["outbox", "retry", "1"]);
    assert!(!out.status.success(), "a sent mail is not dead");
}

#[test]
fn a_damaged_body_fails_alone_named_and_the_rest_of_the_page_goes_out() {
    let site = Site::new();
    // Three answers queued while every delivery fails.
    let cfg = std::fs::read_to_string(site.config()).unwrap();
    std::fs::write(
        site.config(),
        cfg.replace("[outbound]\n", "[outbound]\ncommand = \"/bin/false\"\n")
            .replacen("kind = \"file\"", "kind = \"sendmail\"", 1),
    )
    .unwrap();
    ask_help(&site, 3);
    pass_at(&site, 0, 0);
    assert_eq!(site.outbox_statuses(), (3, 0, 0));
    // The middle one's stored body is damaged: compressed bytes cut short.
    let ids: Vec<i64> = {
        let db = site.db();
        let mut st = db.prepare("SELECT id FROM outbox ORDER BY id").unwrap();
        st.query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    };
    site.db()
        .execute(
            "UPDATE outbox SET raw = CAST(?1 AS BLOB) WHERE id = ?2",
            rusqlite::params![&b"\0adjutant-lz4\0\xff\xff"[..], ids[1]],
        )
        .unwrap();
    transport(&site, None);
    pass_at(&site, 0, 6);
    assert_eq!(site.outbox_statuses(), (0, 2, 1), "the other two went out");
    assert_eq!(site.outbox().len(), 2);
    let listed = site.ok(&["outbox"]);
    assert!(
        listed.contains("the stored mail is damaged"),
        "the damaged mail is named: {listed}"
    );
}

#[test]
fn sigterm_stops_delivery_between_mails_and_leaves_the_rest_pending() {
    use std::os::unix::fs::PermissionsExt;
    let site = Site::new();
    // A slow transport: a fifth of a second a mail, each one logged.
    let log = site.path().join("sent.log");
    let script = site.path().join("slow-sendmail");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nsleep 0.2\ncat > /dev/null\necho sent >> {}\n",
            log.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    // Forty answers queued while delivery fails...
    let cfg = std::fs::read_to_string(site.config()).unwrap();
    let failing = cfg
        .replace("[outbound]\n", "[outbound]\ncommand = \"/bin/false\"\n")
        .replacen("kind = \"file\"", "kind = \"sendmail\"", 1);
    std::fs::write(site.config(), &failing).unwrap();
    ask_help(&site, 40);
    pass_at(&site, 0, 0);
    assert_eq!(site.outbox_statuses(), (40, 0, 0));
    // ... then the slow transport, and a stop once the first has gone out.
    std::fs::write(
        site.config(),
        failing.replace("/bin/false", &script.display().to_string()),
    )
    .unwrap();
    let mut child = site
        .command(&["serve"])
        .env("ADJUTANT_NOW", "2026-11-01T06:00:00Z")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let waiting = std::time::Instant::now();
    while !log.exists() {
        assert!(
            waiting.elapsed().as_secs() < 60,
            "nothing delivered in a minute"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let status = crate::common::terminate(&mut child);
    assert!(status.success(), "{status:?}");
    let sent = std::fs::read_to_string(&log).unwrap().lines().count() as i64;
    let (pending, marked, dead) = site.outbox_statuses();
    assert!(
        sent < 40,
        "the stop did not wait for the whole backlog ({sent} sent)"
    );
    assert_eq!(marked, sent, "every mail sent is marked sent, none other");
    assert_eq!((pending + marked, dead), (40, 0), "the rest stays pending");
}

/// Four judges deliver one backlog at once; a recording SMTP server on
/// loopback counts what arrives by Message-ID (issue 52).
#[test]
fn several_processes_delivering_at_once_send_each_mail_once() {
    use crate::common::smtp_recorder::{Mode, Recorder};
    let site = Site::new();
    // 200 answers queued while the server is down...
    let mut recorder = Recorder::start(Mode::Accept);
    recorder.configure(&site.config(), 10);
    recorder.stop();
    ask_help(&site, 200);
    pass_at(&site, 0, 0);
    assert_eq!(site.outbox_statuses(), (200, 0, 0));
    // ... then four judges deliver the backlog at the same moment, as
    // `serve` and the `receive` an MTA runs for each mail would.
    recorder.restart(Mode::Accept);
    site.db()
        .execute(
            "UPDATE outbox SET next_attempt_at = '2000-01-01T00:00:00Z'",
            [],
        )
        .unwrap();
    let children: Vec<_> = (0..4)
        .map(|_| {
            site.command(&["serve", "--once"])
                .env("ADJUTANT_NOW", "2026-11-01T06:00:00Z")
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    let ids = recorder.message_ids();
    let once: std::collections::BTreeSet<&String> = ids.iter().collect();
    assert_eq!(once.len(), 200, "every mail delivered");
    assert_eq!(ids.len(), 200, "and none twice: {} sends", ids.len());
    assert_eq!(site.outbox_statuses(), (0, 200, 0));
}

/// A recording SMTP server on loopback counts the answers by Message-ID
/// (issue 52): one answer a mail, none sent twice.
#[test]
fn four_receives_and_a_serve_at_once_answer_every_mail_once() {
    use crate::common::smtp_recorder::{Mode, Recorder};
    use std::io::Write;
    let site = Site::new();
    let cfg = std::fs::read_to_string(site.config()).unwrap();
    std::fs::write(
        site.config(),
        cfg.replace("poll_seconds = 30", "poll_seconds = 1"),
    )
    .unwrap();
    let recorder = Recorder::start(Mode::Accept);
    recorder.configure(&site.config(), 10);
    let n = crate::common::depth::games("RECEIVE_MAILS", 120, 1000) as usize;
    let mut serve = site
        .command(&["serve"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Four MTA pipes at once, as a burst of mail runs them.
    std::thread::scope(|s| {
        for k in 0..4 {
            let site = &site;
            s.spawn(move || {
                for i in (k..n).step_by(4) {
                    let raw = mail(
                        &format!("p{i}@example.org"),
                        "judge@localhost",
                        "help",
                        &format!("burst-{i}@example.org"),
                        "HELP\n",
                    );
                    let mut child = site
                        .command(&["receive"])
                        .stdin(std::process::Stdio::piped())
                        .stdout(std::process::Stdio::null())
                        .stderr(std::process::Stdio::null())
                        .spawn()
                        .unwrap();
                    child.stdin.take().unwrap().write_all(&raw).unwrap();
                    assert_eq!(child.wait().unwrap().code(), Some(0), "mail {i}");
                }
            });
        }
    });
    assert!(crate::common::terminate(&mut serve).success());
    site.ok(&["serve", "--once"]);
    let answered = recorder.message_ids();
    let once: std::collections::BTreeSet<&String> = answered.iter().collect();
    assert_eq!(once.len(), n, "every mail answered");
    assert_eq!(answered.len(), n, "none twice: {} answers", answered.len());
    assert_eq!(site.outbox_statuses(), (0, n as i64, 0));
}

/// A mail the judge fails to handle the same way every time (here a
/// database trigger refuses its Message-ID) is tried five times, then set
/// aside: moved to quarantine/, recorded, named by `doctor`; the mails
/// around it are handled at once and are not held up.
#[test]
fn a_mail_that_always_fails_is_set_aside_after_five_tries_and_holds_nothing_up() {
    let site = Site::new();
    site.ok(&["games"]); // the database exists
    site.db()
        .execute_batch(
            "CREATE TRIGGER poison BEFORE INSERT ON inbox
             WHEN NEW.message_id = 'poison@example.org'
             BEGIN SELECT RAISE(ABORT, 'this mail poisons the judge'); END;",
        )
        .unwrap();
    for (name, id) in [("a", "before"), ("b", "poison"), ("c", "after")] {
        site.drop_mail(
            &format!("{name}.eml"),
            &mail(
                &format!("{id}@example.org"),
                "judge@localhost",
                "help",
                &format!("{id}@example.org"),
                "HELP\n",
            ),
        );
    }
    let answered = |site: &Site| site.outbox().len();
    pass_at(&site, 0, 0);
    assert_eq!(
        answered(&site),
        2,
        "the mails around it are answered at once"
    );
    let waiting = || std::fs::read_dir(site.inbox_new()).unwrap().count();
    assert_eq!(waiting(), 1, "the failed mail waits for another try");
    for h in 1..4 {
        pass_at(&site, 0, h);
        assert_eq!(waiting(), 1, "try {}", h + 1);
    }
    pass_at(&site, 0, 4);
    assert_eq!(waiting(), 0, "set aside after five tries");
    let quarantine = site.inbox_new().parent().unwrap().join("quarantine");
    assert_eq!(std::fs::read_dir(&quarantine).unwrap().count(), 1);
    let outcome: String = site
        .db()
        .query_row(
            "SELECT outcome || ': ' || detail FROM inbox WHERE outcome LIKE 'failed%'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(outcome.contains("set aside after 5 failures"), "{outcome}");
    assert!(outcome.contains("poisons the judge"), "{outcome}");
    let doctor = site.run(&["doctor"]);
    let said = String::from_utf8_lossy(&doctor.stdout);
    assert!(said.contains("1 inbound mails were set aside"), "{said}");
    // It is not tried again.
    pass_at(&site, 0, 5);
    assert_eq!(answered(&site), 2);
}

/// Every delivery fails (a `sendmail` that always exits 1): what is queued
/// stays pending.
fn failing_transport(site: &Site) {
    let cfg = std::fs::read_to_string(site.config()).unwrap();
    std::fs::write(
        site.config(),
        cfg.replace("[outbound]\n", "[outbound]\ncommand = \"/bin/false\"\n")
            .replacen("kind = \"file\"", "kind = \"sendmail\"", 1),
    )
    .unwrap();
}

/// The judge's clock when the games of the report tests begin (as
/// `pass_at(site, 0, 0)`).
const START: &str = "2026-11-01T00:00:00Z";

/// One turn of Memoir '44 game `game`, random legal orders of the side
/// whose turn it is, through `adjutant submit`.
fn play_a_turn(site: &Site, game: i64, seed: u8) {
    use adjutant::engine::dice::ChaChaDice;
    use adjutant::rules::memoir44;
    let text: String = site
        .db()
        .query_row(
            "SELECT state FROM snapshots WHERE game_id = ?1 ORDER BY turn DESC LIMIT 1",
            [game],
            |r| r.get(0),
        )
        .unwrap();
    let state: memoir44::State = serde_json::from_str(&text).unwrap();
    let rules = memoir44::Ruleset::builtin().unwrap();
    let side = memoir44::waiting(&state).sides[0].clone();
    let mut rng = ChaChaDice::from_seed([seed; 32]);
    let file = site.path().join(format!("orders-{game}.txt"));
    std::fs::write(
        &file,
        memoir44::random_orders(&rules, &state, &side, &mut rng),
    )
    .unwrap();
    site.at(
        START,
        &["submit", &game.to_string(), &side, file.to_str().unwrap()],
    );
}

/// Two games with a turn each, their reports queued as jobs (rendered at
/// delivery) while every delivery fails; the rows' ids by game (None for
/// mails that are not a game's).
fn two_games_with_reports_waiting(site: &Site) -> Vec<(i64, Option<i64>)> {
    failing_transport(site);
    for _ in 0..2 {
        site.pegasus_bridge_at(START, &[]);
    }
    play_a_turn(site, 1, 3);
    play_a_turn(site, 2, 4);
    ask_help(site, 1);
    pass_at(site, 0, 0);
    let db = site.db();
    let mut st = db
        .prepare("SELECT id, game_id FROM outbox WHERE status = 'pending' ORDER BY id")
        .unwrap();
    st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// The mails delivered to files: how many are game `game`'s turn reports.
fn reports_of(site: &Site, game: i64) -> usize {
    site.mails()
        .iter()
        .filter(|m| m.contains(&format!("Subject: Game {game}: turn")))
        .count()
}

/// Acceptance 5 of issue 35: a turn report whose game's history is damaged
/// (its snapshot no longer reads) cannot be rendered; it fails alone,
/// named in `adjutant outbox`, and the other game's reports, the welcomes
/// and the answers around it are delivered.
#[test]
fn a_report_that_cannot_be_rendered_fails_alone_and_is_named() {
    let site = Site::new();
    let rows = two_games_with_reports_waiting(&site);
    assert!(rows.len() >= 8, "welcomes, reports and an answer: {rows:?}");
    site.db()
        .execute(
            "UPDATE snapshots SET state = 'not a state' WHERE game_id = 1 AND turn = 1",
            [],
        )
        .unwrap();
    transport(&site, None);
    pass_at(&site, 0, 6);
    let (pending, sent, dead) = site.outbox_statuses();
    assert_eq!(pending, 0);
    assert!(
        dead >= 2,
        "game 1's turn reports (one a seat) are dead: {dead}"
    );
    assert_eq!(sent + dead, rows.len() as i64);
    assert!(reports_of(&site, 2) >= 2, "game 2's reports went out");
    assert_eq!(reports_of(&site, 1), 0, "no half-made report of game 1");
    let dead_games: Vec<Option<i64>> = {
        let db = site.db();
        let mut st = db
            .prepare("SELECT game_id FROM outbox WHERE status = 'dead'")
            .unwrap();
        st.query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    };
    assert!(dead_games.iter().all(|g| *g == Some(1)), "{dead_games:?}");
    let listed = site.ok(&["outbox"]);
    assert!(
        listed.contains("the report cannot be rendered"),
        "named: {listed}"
    );
}

/// Acceptance 5 of issue 35: loading a game's history for its reports
/// panics (a bug, made on purpose with the `report-load` fault point,
/// src/fault.rs): the judge does not go down, those reports fail alone and
/// are named, and everything else in the same page is delivered.
#[test]
fn a_report_whose_loading_panics_fails_alone_and_the_judge_goes_on() {
    let site = Site::new();
    let rows = two_games_with_reports_waiting(&site);
    transport(&site, None);
    let out = site
        .command(&["serve", "--once"])
        .env("ADJUTANT_NOW", "2026-11-01T06:00:00Z")
        .env("ADJUTANT_FAULT", "report-load:1")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the pass ends normally: {err}");
    assert!(
        err.contains("fault point report-load:1"),
        "it did panic: {err}"
    );
    let (pending, sent, dead) = site.outbox_statuses();
    assert_eq!(pending, 0);
    assert!(dead >= 2, "{dead}");
    assert_eq!(sent + dead, rows.len() as i64);
    assert!(reports_of(&site, 2) >= 2, "game 2's reports went out");
    assert_eq!(reports_of(&site, 1), 0);
    let listed = site.ok(&["outbox"]);
    assert!(
        listed.contains("internal error (a bug) loading the game"),
        "named: {listed}"
    );
    // The host mends the bug and puts them back: they go out.
    site.ok(&["outbox", "retry", "--dead"]);
    pass_at(&site, 0, 7);
    assert_eq!(site.outbox_statuses(), (0, rows.len() as i64, 0));
    assert!(reports_of(&site, 1) >= 2);
}

/// Acceptance 3 of issue 35, its second half: the real Postfix of
/// scripts/mailserver.sh refuses the judge's SMTP login (a wrong password:
/// the mail server's password changed under a running judge) for a whole
/// day of the judge's clock. The judge runs as an MTA pipe: each player's
/// mail starts `adjutant receive`, which records it (exit 0) and tries the
/// queue. A configuration fault keeps mail queued (docs/host.md, "When
/// delivery fails"): nothing goes dead, the host is told, and once the
/// password is right every answer reaches the player's mailbox once.
#[test]
fn a_day_of_a_wrong_smtp_password_gives_no_mail_up_and_all_arrives_once_mended() {
    use crate::common::mail_client::{clear, inbox, wait_for};
    use crate::common::{mail_address, mailserver};
    use std::io::Write;
    if !mailserver() {
        return;
    }
    let (judge, alice, bob) = (
        mail_address("judge"),
        mail_address("alice"),
        mail_address("bob"),
    );
    clear(&alice);
    clear(&bob);
    let site = Site::new();
    let smtp = |password_env: &str| {
        let cfg = std::fs::read_to_string(site.config()).unwrap();
        let cfg = cfg.split("\n[outbound.smtp]").next().unwrap().to_string();
        let cfg = cfg.replacen("kind = \"file\"", "kind = \"smtp\"", 1)
            + &format!(
                "\n[outbound.smtp]\nhost = \"127.0.0.1\"\nport = 2525\nsecurity = \"none\"\nuser = \"{judge}\"\npassword_env = \"{password_env}\"\ntimeout_secs = 5\n"
            );
        std::fs::write(site.config(), cfg).unwrap();
    };
    // Variables of this test's own (the process's environment is shared by
    // the tests running beside it).
    std::env::set_var("E2E_WRONG_SMTP_PASSWORD", "not-the-password");
    std::env::set_var("E2E_RIGHT_SMTP_PASSWORD", "secret");
    smtp("E2E_WRONG_SMTP_PASSWORD");
    let receive = |h: u32, from: &str| {
        let mut child = site
            .command(&["receive"])
            .env(
                "ADJUTANT_NOW",
                format!("2026-11-{:02}T{:02}:00:00Z", 1 + h / 24, h % 24),
            )
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let raw = mail(
            from,
            "judge@localhost",
            "help",
            &format!("<wrong-password-{h}@example.org>"),
            "HELP\n",
        );
        child.stdin.take().unwrap().write_all(&raw).unwrap();
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "hour {h}: recorded: {err}");
        err.into_owned()
    };
    for h in 0..24 {
        let err = receive(h, if h % 2 == 0 { &alice } else { &bob });
        assert!(
            err.contains("535"),
            "hour {h}: the refusal is logged: {err}"
        );
        let (pending, _, dead) = site.outbox_statuses();
        assert_eq!(
            (pending, dead),
            (h as i64 + 1, 0),
            "hour {h}: nothing given up"
        );
    }
    let attempts: i64 = site
        .db()
        .query_row("SELECT max(attempts) FROM outbox", [], |r| r.get(0))
        .unwrap();
    assert!(attempts >= 12, "retried all day ({attempts} attempts)");
    // The host is told: doctor names the waiting mail and the refused login.
    let doctor = site.run(&["doctor"]);
    let said = String::from_utf8_lossy(&doctor.stdout);
    assert_eq!(doctor.status.code(), Some(1), "{said}");
    assert!(
        said.contains("24 mails wait after failed deliveries"),
        "{said}"
    );
    assert!(said.contains("refused the login"), "{said}");
    assert!(inbox(&alice).is_empty() && inbox(&bob).is_empty());
    // The host sets the right password: everything goes out, once.
    smtp("E2E_RIGHT_SMTP_PASSWORD");
    pass_at(&site, 1, 1);
    assert_eq!(site.outbox_statuses(), (0, 24, 0));
    wait_for(&alice, 12);
    wait_for(&bob, 12);
    pass_at(&site, 1, 3);
    std::thread::sleep(std::time::Duration::from_secs(1));
    assert_eq!(inbox(&alice).len(), 12, "nothing delivered twice");
    assert_eq!(inbox(&bob).len(), 12, "nothing delivered twice");
}

/// Issue 57 (the peak memory of a long pass): a claimed page of the outbox
/// is rendered a part at a time (`daemon::RENDER_PART`, 16 rows), each part
/// sent while the next is drawn, so its reports (~80 KB each with a board
/// picture) are never all held at once: at most two parts. Seen from
/// outside: a process that dies while it reads a row of the page's third
/// part has already delivered the rows of its first part. (Rendering the
/// whole page first, as before issue 57, delivered none of it.)
#[test]
fn a_page_is_rendered_and_sent_a_part_at_a_time() {
    let site = Site::new();
    failing_transport(&site);
    // Twelve games: their welcomes and reports are 48 rows, three parts;
    // the last game's reports are in the third.
    let games: i64 = 12;
    for _ in 0..games {
        site.pegasus_bridge_at(START, &[]);
    }
    for g in 1..=games {
        play_a_turn(&site, g, g as u8);
    }
    pass_at(&site, 0, 0);
    let (pending, ..) = site.outbox_statuses();
    assert!(
        pending > 40 && pending <= 64,
        "one page, more than two parts and a half of it waiting: {pending}"
    );
    transport(&site, None);
    let out = site
        .command(&["serve", "--once"])
        .env("ADJUTANT_NOW", "2026-11-01T06:00:00Z")
        .env("ADJUTANT_FAULT", format!("report-load-abort:{games}"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "the fault ended the pass: {err}");
    assert!(err.contains("report-load-abort"), "{err}");
    let delivered = site.mails().len();
    assert!(
        delivered >= 16,
        "the page's first part went out before game {games}'s report was rendered: {delivered} of {pending}"
    );
    assert!(delivered < pending as usize, "{delivered} of {pending}");
}

/// Issue 57 (a part drawn while the one before it is sent): a page of
/// twelve games' welcomes and first reports, each with its board picture,
/// delivered in one pass (three parts, each drawn on two threads while the
/// part before it goes out) is byte for byte (but for the MIME
/// boundaries) what the same judge delivers
/// in small passes, a turn's reports at a time (a page of a part, drawn and
/// sent in turn). The second judge is a copy of the first (database and
/// key), so their games and mails are the same but for how they were
/// delivered.
#[test]
fn a_page_drawn_beside_its_sending_is_the_mail_of_small_passes() {
    let whole = Site::new();
    // The one-pass judge's transport fails until its pass: its mails wait.
    failing_transport(&whole);
    let games: i64 = 12;
    for _ in 0..games {
        whole.pegasus_bridge_at(START, &[]);
    }
    // The other judge is a copy (database, key, the Message-IDs' salt and
    // the seats' reply addresses), which sends as it goes.
    let small = Site::new();
    for f in ["adjutant.db", "adjutant.db-wal", "adjutant.db.key"] {
        let _ = std::fs::remove_file(small.path().join(f));
        if whole.path().join(f).exists() {
            std::fs::copy(whole.path().join(f), small.path().join(f)).unwrap();
        }
    }
    small.at(START, &["serve", "--once"]);
    for g in 1..=games {
        play_a_turn(&whole, g, g as u8);
        play_a_turn(&small, g, g as u8);
        small.at(START, &["serve", "--once"]);
    }
    assert_eq!(whole.outbox().len(), 0, "nothing sent before the one pass");
    let (pending, ..) = whole.outbox_statuses();
    assert!(pending > 40, "three parts of a page: {pending}");
    transport(&whole, None);
    whole.at("2026-11-01T06:00:00Z", &["serve", "--once"]);
    let (a, b) = (whole.outbox(), small.outbox());
    assert_eq!(a.len(), pending as usize);
    assert_eq!(
        a.iter().map(|(n, _)| n).collect::<Vec<_>>(),
        b.iter().map(|(n, _)| n).collect::<Vec<_>>()
    );
    let pictured = a
        .iter()
        .filter(|(_, t)| t.contains("Content-Type: image/png"))
        .count();
    assert!(
        pictured >= 24,
        "the reports carry their pictures: {pictured}"
    );
    // The same bytes but for the MIME boundaries (random, drawn as a
    // report is composed).
    for ((name, x), (_, y)) in a.iter().zip(&b) {
        let (x, y) = (plain(x), plain(y));
        let first = x.lines().zip(y.lines()).find(|(p, q)| p != q);
        assert!(
            x == y,
            "{name} differs between the two deliveries: {first:?}"
        );
    }
}

/// Issue 57 (a part drawn while the one before it is sent): a fault of the
/// whole mail server (nothing listens on the port) met in the first part
/// of a page of three gives back every row of the page it did not send,
/// those of the parts not yet drawn too: none stays claimed until its claim
/// lapses, and the next pass may send them all at once.
#[test]
fn a_server_down_gives_back_every_row_of_its_page_drawn_or_not() {
    let site = Site::new();
    failing_transport(&site);
    let games: i64 = 12;
    for _ in 0..games {
        site.pegasus_bridge_at(START, &[]);
    }
    for g in 1..=games {
        play_a_turn(&site, g, g as u8);
    }
    let (pending, ..) = site.outbox_statuses();
    assert!(pending > 40, "three parts of a page: {pending}");
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    transport(&site, None);
    transport(&site, Some(port));
    // Past every row's back-off (each command before tried them all).
    let due: String = site
        .db()
        .query_row("SELECT max(next_attempt_at) FROM outbox", [], |r| r.get(0))
        .unwrap();
    site.at(&due, &["serve", "--once"]);
    assert_eq!(
        site.outbox_statuses().0,
        pending,
        "nothing sent, nothing dead"
    );
    let claimed: i64 = site
        .db()
        .query_row(
            "SELECT count(*) FROM outbox WHERE claimed_by IS NOT NULL",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(claimed, 0, "every row of the page given back");
}
