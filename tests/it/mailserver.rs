//! Against the real mail server of `scripts/mailserver.sh` (Postfix + Dovecot on
//! loopback), which the tests start themselves once it is installed
//! (`scripts/mailserver.sh install`; `.ci/run` does it). Without the packages
//! the tests skip, except under CI where that is a failure.
//!
//! Ports come from `SMTP_PORT`, `IMAP_PORT`, `SMTPS_PORT`, `IMAPS_PORT` (the
//! script's defaults otherwise), the test CA from `MAIL_TLS_CA` (default
//! `/tmp/adj-mail/tls/ca.pem`). Each test uses its own account or mailbox and
//! unique message ids, so the tests run in parallel and over mail left by
//! earlier runs.

use std::path::PathBuf;
use std::thread::sleep;
use std::time::Duration;

use adjutant::mail::imap::{self, ImapConfig, ImapCursor, ImapTls, MailboxError};
use adjutant::mail::smtp::{self, SendError, SmtpConfig, SmtpSecurity};

const HOST: &str = "127.0.0.1";
const DOMAIN: &str = "adjutant.test";
const PASSWORD: &str = "secret";

use crate::common;

fn enabled() -> bool {
    common::mailserver()
}

fn port(var: &str, default: u16) -> u16 {
    std::env::var(var)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn smtp_port() -> u16 {
    port("SMTP_PORT", 2525)
}
fn imap_port() -> u16 {
    port("IMAP_PORT", 1143)
}
fn smtps_port() -> u16 {
    port("SMTPS_PORT", 2465)
}
fn imaps_port() -> u16 {
    port("IMAPS_PORT", 1993)
}

fn ca_file() -> PathBuf {
    std::env::var("MAIL_TLS_CA")
        .unwrap_or_else(|_| "/tmp/adj-mail/tls/ca.pem".into())
        .into()
}

fn token() -> String {
    format!("{:016x}", getrandom::u64().unwrap())
}

fn addr(user: &str) -> String {
    format!("{user}@{DOMAIN}")
}

fn imap_cfg(user: &str) -> ImapConfig {
    ImapConfig::new(HOST, imap_port(), &addr(user), PASSWORD, ImapTls::None)
}

fn smtp_cfg() -> SmtpConfig {
    let mut cfg = SmtpConfig::new(HOST, smtp_port(), SmtpSecurity::None);
    cfg.hello_name = Some("judge.adjutant.test".into());
    cfg.timeout_secs = 10;
    cfg
}

/// A complete message with every header Postfix would otherwise add, CRLF line ends.
fn message(from: &str, to: &str, id: &str, body: &str) -> Vec<u8> {
    format!(
        "From: {from}\r\nTo: {to}\r\nSubject: test {id}\r\nDate: Sun, 22 Nov 2026 10:00:00 +0000\r\n\
         Message-ID: <{id}@{DOMAIN}>\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\
         \r\n{body}\r\n"
    )
    .into_bytes()
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|w| w == needle.as_bytes())
}

/// Polls until a message containing `needle` shows up after `cursor`.
fn wait_for(
    cfg: &ImapConfig,
    cursor: Option<ImapCursor>,
    needle: &str,
) -> (Vec<(u32, Vec<u8>)>, u32) {
    for _ in 0..100 {
        let (messages, uid_validity) = imap::fetch_new(cfg, cursor, 0).unwrap();
        if messages.iter().any(|(_, raw)| contains(raw, needle)) {
            return (messages, uid_validity);
        }
        sleep(Duration::from_millis(100));
    }
    panic!("{needle} never reached {}", cfg.user);
}

fn find<'a>(messages: &'a [(u32, Vec<u8>)], needle: &str) -> &'a (u32, Vec<u8>) {
    messages
        .iter()
        .find(|(_, raw)| contains(raw, needle))
        .unwrap_or_else(|| panic!("{needle} not among the fetched messages"))
}

fn cursor_after(messages: &[(u32, Vec<u8>)], uid_validity: u32) -> ImapCursor {
    ImapCursor {
        uid_validity,
        last_uid: messages.iter().map(|(uid, _)| *uid).max().unwrap_or(0),
    }
}

/// A raw session for what the module does not do (flags, creating mailboxes).
fn raw_session(user: &str) -> ::imap::Session<::imap::Connection> {
    ::imap::ClientBuilder::new(HOST, imap_port())
        .mode(::imap::ConnectionMode::Plaintext)
        .connect()
        .unwrap()
        .login(addr(user), PASSWORD)
        .map_err(|(e, _)| e)
        .unwrap()
}

fn flags_of(user: &str, mailbox: &str, uid: u32) -> Vec<String> {
    let mut session = raw_session(user);
    session.examine(mailbox).unwrap();
    let fetches = session.uid_fetch(uid.to_string(), "FLAGS").unwrap();
    let flags = fetches
        .iter()
        .flat_map(|f| f.flags().iter().map(|flag| format!("{flag:?}")))
        .collect();
    session.logout().unwrap();
    flags
}

#[test]
fn smtp_to_plus_address_and_alice_then_imap_fetch() {
    if !enabled() {
        return;
    }
    let id = token();
    let reply_to = format!("judge+abc{id}@{DOMAIN}");
    // Lines starting with dots test SMTP's dot-stuffing both ways.
    let raw = message(
        &addr("bob"),
        &reply_to,
        &id,
        "ORDERS\r\nmove 1 to B4\r\n.\r\n..twice\r\n.end",
    );
    smtp::send(
        &smtp_cfg(),
        &addr("bob"),
        &[reply_to.clone(), addr("alice")],
        &raw,
    )
    .unwrap();

    for user in ["judge", "alice"] {
        let cfg = imap_cfg(user);
        let (messages, uid_validity) = wait_for(&cfg, None, &id);
        assert!(uid_validity > 0);
        let (uid, fetched) = find(&messages, &id);
        assert!(*uid > 0);
        // The server only prepends trace headers: our bytes arrive intact.
        assert!(
            fetched.ends_with(&raw),
            "{user} got:\n{}",
            String::from_utf8_lossy(fetched)
        );
        if user == "judge" {
            // The envelope's plus address survives in the trace headers (one
            // recipient per LMTP transaction), even for a Bcc.
            assert!(contains(fetched, &format!("for <judge+abc{id}@{DOMAIN}>")));
        }
        // UIDs come back in ascending order.
        assert!(messages.windows(2).all(|w| w[0].0 < w[1].0));
    }
}

#[test]
fn bare_lf_and_a_10_mb_message_arrive_intact() {
    if !enabled() {
        return;
    }
    let cfg = imap_cfg("judge");
    // LF line ends (as a file on disk may have) go out as CRLF.
    let id = token();
    let lf = String::from_utf8(message(&addr("alice"), &addr("judge"), &id, "orders\nend"))
        .unwrap()
        .replace("\r\n", "\n");
    smtp::send(&smtp_cfg(), &addr("alice"), &[addr("judge")], lf.as_bytes()).unwrap();
    let (messages, _) = wait_for(&cfg, None, &id);
    let crlf = lf.replace('\n', "\r\n");
    assert!(find(&messages, &id).1.ends_with(crlf.as_bytes()));

    // 10 MB of base64-looking lines.
    let id = token();
    let line = "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2d3h5ejAx\r\n";
    let body = line.repeat(10 * 1024 * 1024 / line.len());
    let raw = message(&addr("alice"), &addr("judge"), &id, &body);
    smtp::send(&smtp_cfg(), &addr("alice"), &[addr("judge")], &raw).unwrap();
    let (messages, uid_validity) = wait_for(&cfg, None, &id);
    let (uid, fetched) = find(&messages, &id);
    assert!(fetched.len() > 10_000_000);
    assert!(fetched.ends_with(&raw));
    // Do not drag it along in later fetches of judge's INBOX.
    let mut session = raw_session("judge");
    let mailbox = session.select("INBOX").unwrap();
    assert_eq!(mailbox.uid_validity, Some(uid_validity));
    session
        .uid_store(uid.to_string(), "+FLAGS.SILENT (\\Deleted)")
        .unwrap();
    session.uid_expunge(uid.to_string()).unwrap();
    session.logout().unwrap();
}

#[test]
fn cursor_skips_already_fetched_mail_and_max_limits_the_batch() {
    if !enabled() {
        return;
    }
    let cfg = imap_cfg("bob");
    let smtp = smtp_cfg();
    let first = token();
    smtp::send(
        &smtp,
        &addr("alice"),
        &[addr("bob")],
        &message(&addr("alice"), &addr("bob"), &first, "first"),
    )
    .unwrap();
    let (messages, uid_validity) = wait_for(&cfg, None, &first);
    let cursor = cursor_after(&messages, uid_validity);
    let first_uid = find(&messages, &first).0;

    // Nothing new: nothing fetched.
    let (again, uv) = imap::fetch_new(&cfg, Some(cursor), 0).unwrap();
    assert_eq!(uv, uid_validity);
    assert!(again.is_empty(), "{} refetched", again.len());

    let (second, third) = (token(), token());
    for id in [&second, &third] {
        smtp::send(
            &smtp,
            &addr("alice"),
            &[addr("bob")],
            &message(&addr("alice"), &addr("bob"), id, "more"),
        )
        .unwrap();
    }
    let (messages, _) = wait_for(&cfg, Some(cursor), &third);
    let (messages, _) = if messages.iter().any(|(_, raw)| contains(raw, &second)) {
        (messages, 0)
    } else {
        wait_for(&cfg, Some(cursor), &second)
    };
    assert!(messages.iter().all(|(uid, _)| *uid > cursor.last_uid));
    assert!(!messages.iter().any(|(_, raw)| contains(raw, &first)));
    assert!(messages.iter().all(|(uid, _)| *uid != first_uid));
    let second_uid = find(&messages, &second).0;
    let third_uid = find(&messages, &third).0;
    assert!(second_uid < third_uid);

    // `max` takes the oldest first.
    let (one, _) = imap::fetch_new(&cfg, Some(cursor), 1).unwrap();
    assert_eq!(one.len(), 1);
    assert_eq!(one[0].0, second_uid);

    // A cursor past everything fetches nothing, even though "N:*" matches the last UID.
    let past = ImapCursor {
        uid_validity,
        last_uid: third_uid + 1000,
    };
    assert!(imap::fetch_new(&cfg, Some(past), 0).unwrap().0.is_empty());
    let last = ImapCursor {
        uid_validity,
        last_uid: u32::MAX,
    };
    assert!(imap::fetch_new(&cfg, Some(last), 0).unwrap().0.is_empty());
}

#[test]
fn mark_seen_only_after_the_caller_says_so() {
    if !enabled() {
        return;
    }
    let cfg = imap_cfg("carol");
    let id = token();
    smtp::send(
        &smtp_cfg(),
        &addr("bob"),
        &[addr("carol")],
        &message(&addr("bob"), &addr("carol"), &id, "seen?"),
    )
    .unwrap();
    let (messages, uid_validity) = wait_for(&cfg, None, &id);
    let uid = find(&messages, &id).0;
    // Fetching did not mark it.
    assert!(!flags_of("carol", "INBOX", uid).contains(&"Seen".to_string()));

    // A stale UIDVALIDITY changes nothing.
    let err = imap::mark_seen(&cfg, uid_validity.wrapping_add(1), &[uid]).unwrap_err();
    assert!(
        matches!(err, MailboxError::UidValidityChanged { .. }),
        "{err}"
    );
    assert!(!err.is_transient());
    assert!(!flags_of("carol", "INBOX", uid).contains(&"Seen".to_string()));

    imap::mark_seen(&cfg, uid_validity, &[uid]).unwrap();
    assert!(flags_of("carol", "INBOX", uid).contains(&"Seen".to_string()));
    // Seen mail is still fetched when the cursor says so (the cursor, not the
    // flag, is the truth).
    let (messages, _) = imap::fetch_new(&cfg, None, 0).unwrap();
    find(&messages, &id);
    // Nothing to do, and unknown UIDs, are fine.
    imap::mark_seen(&cfg, uid_validity, &[]).unwrap();
    imap::mark_seen(&cfg, uid_validity, &[u32::MAX - 1]).unwrap();
}

#[test]
fn uidvalidity_change_refetches_everything() {
    if !enabled() {
        return;
    }
    let mailbox = format!("adj-{}", token());
    let mut session = raw_session("referee");
    session.create(&mailbox).unwrap();
    let (a, b) = (token(), token());
    for id in [&a, &b] {
        session
            .append(&mailbox, &message(&addr("bob"), &addr("referee"), id, "x"))
            .finish()
            .unwrap();
    }
    let mut cfg = imap_cfg("referee");
    cfg.mailbox = mailbox.clone();
    let (messages, old_uv) = imap::fetch_new(&cfg, None, 0).unwrap();
    assert_eq!(messages.len(), 2);
    assert_eq!(
        messages.iter().map(|(uid, _)| *uid).collect::<Vec<_>>(),
        [1, 2]
    );
    let cursor = cursor_after(&messages, old_uv);
    assert!(imap::fetch_new(&cfg, Some(cursor), 0).unwrap().0.is_empty());

    // Same name, new mailbox: the server must give it a new UIDVALIDITY.
    session.delete(&mailbox).unwrap();
    session.create(&mailbox).unwrap();
    let c = token();
    session
        .append(&mailbox, &message(&addr("bob"), &addr("referee"), &c, "x"))
        .finish()
        .unwrap();
    let (messages, new_uv) = imap::fetch_new(&cfg, Some(cursor), 0).unwrap();
    assert_ne!(new_uv, old_uv);
    assert_eq!(
        messages.len(),
        1,
        "everything in the new mailbox comes back"
    );
    assert_eq!(messages[0].0, 1);
    assert!(contains(&messages[0].1, &c));

    let err = imap::mark_seen(&cfg, old_uv, &[1]).unwrap_err();
    assert!(matches!(
        err,
        MailboxError::UidValidityChanged { expected, actual, .. } if expected == old_uv && actual == new_uv
    ));
    imap::mark_seen(&cfg, new_uv, &[1]).unwrap();

    session.delete(&mailbox).unwrap();
    session.logout().unwrap();
}

#[test]
fn move_to_another_mailbox_after_commit() {
    if !enabled() {
        return;
    }
    let t = token();
    let (inbox, done) = (format!("adj-{t}-in"), format!("adj-{t}-done"));
    let mut session = raw_session("referee");
    session.create(&inbox).unwrap();
    session.create(&done).unwrap();
    let id = token();
    session
        .append(&inbox, &message(&addr("bob"), &addr("referee"), &id, "x"))
        .finish()
        .unwrap();
    let mut cfg = imap_cfg("referee");
    cfg.mailbox = inbox.clone();
    let (messages, uv) = imap::fetch_new(&cfg, None, 0).unwrap();
    let uids: Vec<u32> = messages.iter().map(|(uid, _)| *uid).collect();
    imap::move_to(&cfg, uv, &uids, &done).unwrap();
    assert!(imap::fetch_new(&cfg, None, 0).unwrap().0.is_empty());
    let mut done_cfg = cfg.clone();
    done_cfg.mailbox = done.clone();
    let (moved, _) = imap::fetch_new(&done_cfg, None, 0).unwrap();
    assert_eq!(moved.len(), 1);
    assert!(contains(&moved[0].1, &id));
    let err = imap::move_to(&done_cfg, uv, &[1], "adj-no-such-mailbox").unwrap_err();
    assert!(!err.is_transient(), "{err}");
    session.delete(&inbox).unwrap();
    session.delete(&done).unwrap();
    session.logout().unwrap();
}

#[test]
fn wrong_credentials_and_missing_mailbox_are_permanent() {
    if !enabled() {
        return;
    }
    let mut cfg = imap_cfg("alice");
    cfg.password = Some("not-the-password".into());
    let err = imap::fetch_new(&cfg, None, 1).unwrap_err();
    assert!(matches!(err, MailboxError::Auth { .. }), "{err}");
    assert!(!err.is_transient());
    assert!(!err.to_string().contains("not-the-password"));

    let mut cfg = imap_cfg("alice");
    cfg.mailbox = "No such mailbox".into();
    let err = imap::fetch_new(&cfg, None, 1).unwrap_err();
    assert!(matches!(err, MailboxError::Mailbox { .. }), "{err}");
    assert!(!err.is_transient());

    // Postfix refuses an unknown user of the domain: 550, permanent.
    let err = smtp::send(
        &smtp_cfg(),
        &addr("bob"),
        &[addr("nobody")],
        &message(&addr("bob"), &addr("nobody"), &token(), "x"),
    )
    .unwrap_err();
    assert!(!err.is_transient() && !err.is_config(), "{err}");

    // A wrong SMTP password: 535, the host must fix the settings.
    let mut cfg = smtp_cfg();
    cfg.user = Some(addr("bob"));
    cfg.password = Some("not-the-password".into());
    let err = smtp::send(
        &cfg,
        &addr("bob"),
        &[addr("alice")],
        &message(&addr("bob"), &addr("alice"), &token(), "x"),
    )
    .unwrap_err();
    assert!(err.is_config() && !err.is_transient(), "{err}");
    assert!(!format!("{err} {err:?}").contains("not-the-password"));
}

#[test]
fn tls_everywhere_with_the_test_ca() {
    if !enabled() {
        return;
    }
    let ca = ca_file();
    assert!(
        ca.exists(),
        "{} missing: set MAIL_TLS_CA to DIR/tls/ca.pem of scripts/mailserver.sh start DIR",
        ca.display()
    );
    let id = token();

    // SMTP: STARTTLS with AUTH on 2525, implicit TLS with AUTH on 2465.
    for (port, security) in [
        (smtp_port(), SmtpSecurity::StartTls),
        (smtps_port(), SmtpSecurity::Tls),
    ] {
        let mut cfg = SmtpConfig::new(HOST, port, security);
        cfg.ca_file = Some(ca.clone());
        cfg.user = Some(addr("alice"));
        cfg.password = Some(PASSWORD.into());
        cfg.timeout_secs = 10;
        let sender = smtp::SmtpSender::new(&cfg).unwrap();
        assert!(sender.test_connection().unwrap());
        let mid = format!("{id}-{port}");
        sender
            .send(
                &addr("alice"),
                &[addr("judge")],
                &message(&addr("alice"), &addr("judge"), &mid, "over TLS"),
            )
            .unwrap();

        // Without the test CA the certificate is refused: a settings problem.
        cfg.ca_file = None;
        let err = smtp::send(
            &cfg,
            &addr("alice"),
            &[addr("judge")],
            b"Subject: x\r\n\r\nx\r\n",
        )
        .unwrap_err();
        assert!(err.is_config() && !err.is_transient(), "{err}");
    }

    // IMAP: implicit TLS on 1993, STARTTLS on 1143.
    for (port, tls) in [
        (imaps_port(), ImapTls::Implicit),
        (imap_port(), ImapTls::StartTls),
    ] {
        let mut cfg = ImapConfig::new(HOST, port, &addr("judge"), PASSWORD, tls);
        cfg.ca_file = Some(ca.clone());
        let (messages, _) = wait_for(&cfg, None, &format!("{id}-{}", smtps_port()));
        find(&messages, &format!("{id}-{}", smtp_port()));

        cfg.ca_file = None;
        let err = imap::fetch_new(&cfg, None, 1).unwrap_err();
        assert!(matches!(err, MailboxError::Tls { .. }), "{err}");
        assert!(!err.is_transient());
    }
}

/// Needs no server: a stand-in `sendmail` records its arguments and input.
#[test]
fn sendmail_program_gets_envelope_and_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("sendmail");
    let out = dir.path().join("out");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$@\" > '{0}.args'\ncat > '{0}.msg'\n",
            out.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let raw = message("judge@example.org", "alice@example.org", "sm1", "body");
    smtp::sendmail(
        script.to_str().unwrap(),
        "judge@example.org",
        &["alice@example.org".into(), "bob@example.org".into()],
        &raw,
    )
    .unwrap();
    let args = std::fs::read_to_string(format!("{}.args", out.display())).unwrap();
    assert!(args.contains("judge@example.org"), "{args}");
    assert!(args.contains("alice@example.org") && args.contains("bob@example.org"));
    assert_eq!(
        std::fs::read(format!("{}.msg", out.display())).unwrap(),
        raw
    );

    let err = smtp::sendmail(
        "/nonexistent/sendmail",
        "judge@example.org",
        &["a@example.org".into()],
        &raw,
    )
    .unwrap_err();
    assert!(matches!(err, SendError::Sendmail(_)), "{err}");
}
