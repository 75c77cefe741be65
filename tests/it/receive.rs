//! `adjutant receive`, as an MTA pipe runs it (issue 35, docs/host.md): the
//! exit code is the mail server's answer. 0 once the mail is recorded, 75
//! (EX_TEMPFAIL: keep it and retry) whenever the judge could not record it,
//! never a bounce for the judge's own fault.

use crate::common::Site;
use std::io::Write;
use std::process::Stdio;

const HELP: &str = "From: player@example.org\r\nTo: judge@localhost\r\n\
Subject: help\r\nMessage-ID: <receive-1@example.org>\r\n\
Date: Fri, 27 Nov 2026 09:00:00 +0000\r\n\r\nHELP\r\n";

/// `receive` with `raw` on standard input: its exit code and stderr.
fn receive(site: &Site, raw: &str) -> (i32, String) {
    receive_waiting(site, raw, "10000")
}

/// `receive`, waiting at most `busy_ms` for another process's lock on the
/// database (`ADJUTANT_BUSY_MS`, docs/host.md).
fn receive_waiting(site: &Site, raw: &str, busy_ms: &str) -> (i32, String) {
    let mut child = site
        .command(&["receive"])
        .env("ADJUTANT_BUSY_MS", busy_ms)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A judge that cannot open its database exits 75 without reading the
    // mail: the pipe may be closed before the mail is all written.
    match child.stdin.take().unwrap().write_all(raw.as_bytes()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        r => r.unwrap(),
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn inbox_rows(site: &Site) -> i64 {
    site.db()
        .query_row("SELECT count(*) FROM inbox", [], |r| r.get(0))
        .unwrap()
}

#[test]
fn a_database_that_cannot_be_opened_is_a_temporary_failure() {
    let site = Site::new();
    // The database's path is a folder: no SQLite file can be opened there.
    let db = site.path().join("adjutant.db");
    let _ = std::fs::remove_file(&db);
    std::fs::create_dir_all(&db).unwrap();
    let (code, err) = receive(&site, HELP);
    assert_eq!(code, 75, "{err}");
    assert!(err.contains("exit 75"), "{err}");
}

#[test]
fn a_database_locked_past_the_timeout_is_a_temporary_failure_and_the_retry_is_answered() {
    let site = Site::new();
    site.ok(&["games"]); // the database exists
    let db = site.path().join("adjutant.db");
    let lock = rusqlite::Connection::open(&db).unwrap();
    lock.execute_batch("BEGIN EXCLUSIVE").unwrap();
    // The lock is held past the judge's wait (shortened from 10 s: a
    // development build reads ADJUTANT_BUSY_MS).
    let (code, err) = receive_waiting(&site, HELP, "300");
    assert_eq!(code, 75, "{err}");
    lock.execute_batch("ROLLBACK").unwrap();
    drop(lock);
    // The mail server retries: now the mail is recorded and answered.
    let (code, err) = receive(&site, HELP);
    assert_eq!(code, 0, "{err}");
    assert_eq!(inbox_rows(&site), 1);
    assert_eq!(site.outbox().len(), 1, "the HELP answer was delivered");
}

#[test]
fn a_recorded_mail_exits_0_even_when_its_answer_cannot_be_delivered() {
    let site = Site::new();
    // A transport that fails every delivery.
    let cfg = std::fs::read_to_string(site.config()).unwrap();
    let cfg = cfg.replace("[outbound]\n", "[outbound]\ncommand = \"/bin/false\"\n");
    let cfg = cfg.replacen("kind = \"file\"", "kind = \"sendmail\"", 1);
    std::fs::write(site.config(), cfg).unwrap();
    let (code, err) = receive(&site, HELP);
    assert_eq!(code, 0, "{err}");
    assert_eq!(inbox_rows(&site), 1);
    let pending: i64 = site
        .db()
        .query_row(
            "SELECT count(*) FROM outbox WHERE status = 'pending' AND attempts = 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(
        pending, 1,
        "the answer waits in the outbox for the next pass"
    );
    // The same mail again (the MTA retrying anyway) is not answered twice.
    let (code, _) = receive(&site, HELP);
    assert_eq!(code, 0);
    assert_eq!(inbox_rows(&site), 1);
}
