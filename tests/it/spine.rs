//! The spine's acceptance, run against the real binary in a temp dir.

use crate::common;
use common::{mail, unqp, Site};

/// Memoir '44 scenarios seat allies and axis.
fn sides(_site: &Site) -> (String, String) {
    ("allies".into(), "axis".into())
}

#[test]
fn new_game_mails_one_welcome_per_seat() {
    let site = Site::new();
    let scenario = site.scenario();
    let (a, b) = sides(&site);
    let id = site.ok(&[
        "new-game",
        "--scenario",
        &scenario,
        "--seat",
        &format!("{a}=alice@example.org"),
        "--seat",
        &format!("{b}=bob@example.org"),
        "--deadline",
        "72h",
    ]);
    assert_eq!(id.trim(), "1");
    let out = site.outbox();
    assert_eq!(out.len(), 2, "{out:?}");
    let texts: Vec<String> = out.iter().map(|(_, t)| unqp(t)).collect();
    assert!(texts[0].contains("To: alice@example.org"));
    assert!(texts[1].contains("To: bob@example.org"));
    for t in &texts {
        assert!(t.contains("Your secret: "), "{t}");
        assert!(t.contains("game seed:"), "{t}");
        assert!(t.contains("Reply-To: Adjutant <judge+"), "{t}");
        assert!(t.contains("GAME 1"), "{t}");
    }
    // A seat for an unknown side is refused with the list of sides.
    let bad = site.run(&[
        "new-game",
        "--scenario",
        &scenario,
        "--seat",
        "martians=m@x.org",
    ]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("martians"));
    let games = site.ok(&["games"]);
    assert!(games.contains(&scenario), "{games}");
}

#[test]
fn help_is_answered_once_with_in_reply_to() {
    let site = Site::new();
    site.drop_mail(
        "1.eml",
        &mail(
            "Carol <carol@example.org>",
            "judge@localhost",
            "question",
            "help-1@example.org",
            "HELP\n",
        ),
    );
    site.ok(&["serve", "--once"]);
    let out = site.outbox();
    assert_eq!(out.len(), 1);
    let reply = unqp(&out[0].1);
    assert!(
        reply.contains("In-Reply-To: <help-1@example.org>"),
        "{reply}"
    );
    assert!(reply.contains("To: carol@example.org"));
    assert!(reply.contains("STATUS"));
    assert!(reply.contains("Auto-Submitted: auto-replied"));
    assert_eq!(std::fs::read_dir(site.inbox_new()).unwrap().count(), 0);
    assert_eq!(std::fs::read_dir(site.inbox_cur()).unwrap().count(), 1);
    // Again: nothing new.
    site.ok(&["serve", "--once"]);
    assert_eq!(site.outbox().len(), 1);
    // The same mail under a new file name: recognised, no second reply.
    site.drop_mail(
        "1-again.eml",
        &mail(
            "Carol <carol@example.org>",
            "judge@localhost",
            "question",
            "help-1@example.org",
            "HELP\n",
        ),
    );
    site.ok(&["serve", "--once"]);
    assert_eq!(site.outbox().len(), 1);
    assert_eq!(std::fs::read_dir(site.inbox_cur()).unwrap().count(), 2);
    // The same bytes without a Message-ID twice: once.
    let raw = b"From: dan@example.org\r\nSubject: status\r\n\r\nSTATUS\r\n".to_vec();
    site.drop_mail("a.eml", &raw);
    site.drop_mail("b.eml", &raw);
    site.ok(&["serve", "--once"]);
    assert_eq!(site.outbox().len(), 2);
}

#[test]
fn auto_replies_and_bounces_are_logged_never_answered() {
    let site = Site::new();
    let vacation = b"From: Alice <alice@example.org>\r\nTo: judge@localhost\r\nSubject: Out of office\r\nAuto-Submitted: auto-replied\r\nMessage-ID: <vac@example.org>\r\n\r\nI am away until Monday.\r\n";
    let bounce = b"From: Mail Delivery System <MAILER-DAEMON@mx.example.org>\r\nTo: judge@localhost\r\nReturn-Path: <>\r\nSubject: Undelivered Mail Returned to Sender\r\nMessage-ID: <bounce@mx.example.org>\r\nContent-Type: multipart/report; report-type=delivery-status; boundary=\"b\"\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nThis is the mail system. HELP\r\n--b--\r\n";
    let bulk = b"From: news@example.org\r\nPrecedence: bulk\r\nSubject: HELP\r\nMessage-ID: <bulk@example.org>\r\n\r\nHELP\r\n";
    site.drop_mail("v.eml", vacation);
    site.drop_mail("b.eml", bounce);
    site.drop_mail("c.eml", bulk);
    site.ok(&["serve", "--once"]);
    assert!(site.outbox().is_empty(), "{:?}", site.outbox());
    let log = site.ok(&["log"]);
    assert_eq!(log.matches("ignored: automatic mail").count(), 3, "{log}");
    assert!(log.contains("vac@example.org") && log.contains("bounce@mx.example.org"));
}

#[test]
fn bad_mail_gets_a_clear_answer_and_the_daemon_goes_on() {
    let site = Site::new();
    // 10 MB of text.
    let mut big = mail(
        "big@example.org",
        "judge@localhost",
        "orders",
        "big@example.org",
        "",
    );
    big.extend(
        std::iter::repeat_n(b"PLAY probe-centre\r\n".as_slice(), 10 * 1024 * 1024 / 19).flatten(),
    );
    site.drop_mail("1-big.eml", &big);
    // Invalid UTF-8 in a body that claims UTF-8.
    let mut bad = mail(
        "utf@example.org",
        "judge@localhost",
        "help",
        "utf@example.org",
        "HELP\n",
    );
    bad.extend_from_slice(b"\xff\xfe\xc3(\r\n");
    site.drop_mail("2-utf.eml", &bad);
    // No body at all.
    site.drop_mail(
        "3-nobody.eml",
        b"From: empty@example.org\r\nSubject: hello\r\nMessage-ID: <empty@example.org>\r\n",
    );
    // Not a mail at all.
    site.drop_mail("4-junk.eml", b"\x00\x01\x02 not a mail");
    // And a good one after them.
    site.drop_mail(
        "5-help.eml",
        &mail(
            "ok@example.org",
            "judge@localhost",
            "x",
            "ok@example.org",
            "HELP\n",
        ),
    );
    site.ok(&["serve", "--once"]);
    let out: Vec<String> = site.outbox().into_iter().map(|(_, t)| unqp(&t)).collect();
    let to = |who: &str| {
        out.iter()
            .find(|t| t.contains(&format!("To: {who}")))
            .cloned()
    };
    let big_reply = to("big@example.org").expect("an answer to the big mail");
    assert!(big_reply.contains("at most 10000000 bytes"), "{big_reply}");
    assert!(to("utf@example.org")
        .expect("answer to bad utf-8")
        .contains("STATUS"));
    let empty = to("empty@example.org").expect("answer to the empty mail");
    assert!(
        empty.contains("no commands and no orders") || empty.contains("no text"),
        "{empty}"
    );
    assert!(to("ok@example.org").is_some());
    assert_eq!(std::fs::read_dir(site.inbox_new()).unwrap().count(), 0);
    let log = site.ok(&["log"]);
    assert!(log.contains("refused: too large"), "{log}");
    assert!(log.lines().count() >= 5, "{log}");
    common::assert_80_columns(&site);
}

#[test]
fn status_lists_only_the_senders_games() {
    let site = Site::new();
    let scenario = site.scenario();
    site.ok(&[
        "new-game",
        "--scenario",
        &scenario,
        "--seat",
        "allies=alice@example.org",
        "--seat",
        "axis=bob@example.org",
    ]);
    site.drop_mail(
        "s.eml",
        &mail(
            "Alice <ALICE@example.org>",
            "judge@localhost",
            "status",
            "st@example.org",
            "STATUS\n",
        ),
    );
    site.drop_mail(
        "t.eml",
        &mail(
            "mallory@example.org",
            "judge@localhost",
            "status",
            "st2@example.org",
            "STATUS\n",
        ),
    );
    site.ok(&["serve", "--once"]);
    let out: Vec<String> = site.outbox().into_iter().map(|(_, t)| unqp(&t)).collect();
    let alice = out
        .iter()
        .find(|t| t.contains("To: alice@example.org") && t.contains("In-Reply-To"))
        .unwrap();
    assert!(alice.contains("Game 1"), "{alice}");
    assert!(
        alice.contains("GAME 1 / PASSWORD "),
        "a lost secret can be recovered: {alice}"
    );
    let mallory = out
        .iter()
        .find(|t| t.contains("To: mallory@example.org"))
        .unwrap();
    assert!(mallory.contains("no seat in any game"), "{mallory}");
    assert!(!mallory.contains("Game 1"));
}

#[test]
fn serve_without_any_config_initialises_the_current_directory() {
    let dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(common::bin())
        .args(["serve", "--once"])
        .current_dir(dir.path())
        .env_remove("ADJUTANT_CONFIG")
        .env("ADJUTANT_LOG", "warn")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("mail/inbox/new"),
        "it says where to drop mail: {err}"
    );
    for p in [
        "adjutant.toml",
        "adjutant.db",
        "mail/inbox/new",
        "mail/inbox/cur",
        "mail/inbox/tmp",
        "mail/outbox",
    ] {
        assert!(dir.path().join(p).exists(), "{p} missing");
    }
    // ADJUTANT_CONFIG names a config elsewhere.
    let site = Site::new();
    let games = std::process::Command::new(common::bin())
        .arg("games")
        .current_dir(dir.path())
        .env("ADJUTANT_CONFIG", site.config())
        .output()
        .unwrap();
    assert!(games.status.success());
}

#[test]
fn sigterm_finishes_the_message_in_hand_and_exits_cleanly() {
    let site = Site::new();
    for i in 0..300 {
        site.drop_mail(
            &format!("{i:04}.eml"),
            &mail(
                "x@example.org",
                "judge@localhost",
                "help",
                &format!("t{i}@example.org"),
                "HELP\n",
            ),
        );
    }
    let mut child = std::process::Command::new(common::bin())
        .arg("--config")
        .arg(site.config())
        .arg("serve")
        .env("ADJUTANT_LOG", "warn")
        .spawn()
        .unwrap();
    // Stop it while it is handling mail: once the first message is in
    // cur/ (a fixed sleep raced the process's start on a loaded machine).
    let waiting = std::time::Instant::now();
    while std::fs::read_dir(site.inbox_cur()).map_or(0, Iterator::count) == 0 {
        assert!(
            waiting.elapsed() < std::time::Duration::from_secs(60),
            "serve handled no mail in a minute"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let start = std::time::Instant::now();
    let status = common::terminate(&mut child);
    assert!(status.success(), "{status:?}");
    assert!(start.elapsed() < std::time::Duration::from_secs(30));
    // Every message in cur/ was recorded, and none recorded is still waiting.
    let db = site.db();
    let handled: i64 = db
        .query_row("SELECT count(*) FROM inbox", [], |r| r.get(0))
        .unwrap();
    let moved = std::fs::read_dir(site.inbox_cur()).unwrap().count() as i64;
    assert_eq!(handled, moved);
    // It stopped with mail left: the message in hand, not the whole inbox.
    let left = std::fs::read_dir(site.path().join("mail/inbox/new"))
        .unwrap()
        .count();
    assert!(left > 0, "serve drained all 300 mails before stopping");
    let ok: String = db
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(ok, "ok");
}

#[test]
fn the_quick_start_sample_mail_is_answered() {
    let site = Site::new();
    let raw = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/sample-mails/help.eml"
    ))
    .unwrap();
    site.drop_mail("help.eml", &raw);
    site.ok(&["serve", "--once"]);
    let out = site.outbox();
    assert_eq!(out.len(), 1);
    assert!(unqp(&out[0].1).contains("In-Reply-To: <sample-help-1@example.org>"));
}
