//! The outbox through an outage (issue 35, docs/host.md "When delivery
//! fails"): a mail server that cannot be reached for a week of the judge's
//! clock gives no mail up; everything queued is delivered once it is back;
//! only the host's horizon (`outbound.retry_days`) gives a mail up, and
//! `adjutant outbox retry` puts it back.

use crate::common::{mail, Site};

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
    assert_eq!(statuses(&site), (3, 0, 0), "queued, the server unreachable");
    // Six days and 23 hours of passes every five hours: every attempt fails.
    for h in (5..7 * 24).step_by(5) {
        pass_at(&site, h / 24, h % 24);
        let (pending, _, dead) = statuses(&site);
        assert_eq!((pending, dead), (3, 0), "hour {h}: no mail given up");
    }
    let attempts: i64 = site
        .db()
        .query_row("SELECT min(attempts) FROM outbox", [], |r| r.get(0))
        .unwrap();
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
    assert_eq!(statuses(&site), (0, 3, 0));
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
    assert_eq!(statuses(&site), (2, 0, 0), "within the day: still queued");
    pass_at(&site, 1, 1);
    assert_eq!(statuses(&site), (0, 0, 2), "past the day: given up");
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
    assert_eq!(statuses(&site), (0, 2, 0));
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
    assert_eq!(statuses(&site), (3, 0, 0));
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
    assert_eq!(statuses(&site), (0, 2, 1), "the other two went out");
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
    assert_eq!(statuses(&site), (40, 0, 0));
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
    let (pending, marked, dead) = statuses(&site);
    assert!(
        sent < 40,
        "the stop did not wait for the whole backlog ({sent} sent)"
    );
    assert_eq!(marked, sent, "every mail sent is marked sent, none other");
    assert_eq!((pending + marked, dead), (40, 0), "the rest stays pending");
}

/// A sendmail transport that records the Message-ID of every mail it is
/// given, one line each, in `log` (appends of one short line do not mix).
fn recording_transport(site: &Site, log: &std::path::Path) -> String {
    use std::os::unix::fs::PermissionsExt;
    let script = site.path().join("recording-sendmail");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\ngrep -i -m1 '^message-id:' | tr -d '\\r' >> {}\n",
            log.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    script.display().to_string()
}

#[test]
fn several_processes_delivering_at_once_send_each_mail_once() {
    let site = Site::new();
    let log = site.path().join("sent.log");
    let recorder = recording_transport(&site, &log);
    // 200 answers queued while delivery fails...
    let cfg = std::fs::read_to_string(site.config()).unwrap();
    let failing = cfg
        .replace("[outbound]\n", "[outbound]\ncommand = \"/bin/false\"\n")
        .replacen("kind = \"file\"", "kind = \"sendmail\"", 1);
    std::fs::write(site.config(), &failing).unwrap();
    ask_help(&site, 200);
    pass_at(&site, 0, 0);
    assert_eq!(statuses(&site), (200, 0, 0));
    // ... then four judges deliver the backlog at the same moment, as
    // `serve` and the `receive` an MTA runs for each mail would.
    std::fs::write(site.config(), failing.replace("/bin/false", &recorder)).unwrap();
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
    let sent = std::fs::read_to_string(&log).unwrap();
    let ids: Vec<&str> = sent.lines().collect();
    let once: std::collections::BTreeSet<&str> = ids.iter().copied().collect();
    assert_eq!(once.len(), 200, "every mail delivered");
    assert_eq!(ids.len(), 200, "and none twice: {} sends", ids.len());
    assert_eq!(statuses(&site), (0, 200, 0));
}

#[test]
fn four_receives_and_a_serve_at_once_answer_every_mail_once() {
    use std::io::Write;
    let site = Site::new();
    let log = site.path().join("sent.log");
    let recorder = recording_transport(&site, &log);
    // The recorder logs each answer's In-Reply-To: the mail it answers.
    let script = std::fs::read_to_string(&recorder).unwrap();
    std::fs::write(
        &recorder,
        script.replace("'^message-id:'", "'^in-reply-to:'"),
    )
    .unwrap();
    let cfg = std::fs::read_to_string(site.config()).unwrap();
    std::fs::write(
        site.config(),
        cfg.replace(
            "[outbound]\n",
            &format!("[outbound]\ncommand = \"{recorder}\"\n"),
        )
        .replacen("kind = \"file\"", "kind = \"sendmail\"", 1)
        .replace("poll_seconds = 30", "poll_seconds = 1"),
    )
    .unwrap();
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
    let sent = std::fs::read_to_string(&log).unwrap();
    let answered: Vec<&str> = sent.lines().collect();
    let once: std::collections::BTreeSet<&str> = answered.iter().copied().collect();
    assert_eq!(once.len(), n, "every mail answered");
    assert_eq!(answered.len(), n, "none twice: {} answers", answered.len());
    assert_eq!(statuses(&site), (0, n as i64, 0));
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
