//! Criterion: the inbound mail path as the daemon runs it (issue 57): a
//! big Maildir pass (`daemon::poll_maildir`, the reader, handling and
//! courier threads) over 200 HELP mails into a fresh judge on disk: read,
//! parse, record, answer, commit, move to `cur/`, deliver the answers to
//! `.eml` files. A real SQLite file in a temporary folder (on the disk
//! that holds `TMPDIR`), so the commits' syncs are counted.
//!
//! The second benchmark is the same pass over 100 order mails, each the
//! first turn of its own Pegasus Bridge game (`picture = "none"`: the mail
//! path without the board's picture, issue 57's acceptance 2): a turn
//! adjudicated, its snapshot and events stored, a receipt and two turn
//! reports queued and delivered.
//!
//! `cargo bench -p adjutant-bench --bench inbound`

use adjutant::config::{Config, DEFAULT_TOML};
use adjutant::daemon::{deliver, poll_maildir, Pass};
use adjutant::service::clock::SystemClock;
use adjutant::service::{GameOptions, Judge};
use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use std::sync::atomic::AtomicBool;

/// Mails in one pass: more than `daemon::DELIVER_EVERY`, so the pass is
/// the three-thread pipeline a backlog gets.
const MAILS: usize = 200;

/// A fresh judge in a temporary folder with `MAILS` HELP mails waiting.
fn judge_with_mail() -> (tempfile::TempDir, Judge) {
    let dir = tempfile::tempdir().expect("tempdir");
    let toml = DEFAULT_TOML.replace(
        "answers_per_address_hour = 60",
        "answers_per_address_hour = 100000",
    );
    let path = dir.path().join("adjutant.toml");
    std::fs::write(&path, toml).expect("config");
    let cfg = Config::load(&path).expect("config loads");
    adjutant::mail::maildir::create(&cfg.maildir()).expect("maildir");
    std::fs::create_dir_all(cfg.outbox_dir()).expect("outbox");
    let new = cfg.maildir().join("new");
    for i in 0..MAILS {
        let raw = format!(
            "From: <u{i}@example.org>\r\nTo: <judge@localhost>\r\nSubject: help\r\n\
             Message-ID: <bench{i}@example.org>\r\nDate: Sun, 29 Nov 2026 06:00:00 +0000\r\n\r\nHELP\r\n"
        );
        std::fs::write(new.join(format!("{i:05}.eml")), raw).expect("mail");
    }
    let judge = Judge::open(cfg, Box::new(SystemClock)).expect("judge opens");
    (dir, judge)
}

/// Games (and order mails) in the order-mail pass: more than
/// `daemon::DELIVER_EVERY`, so it is the big pass and its commit groups.
const GAMES: usize = 100;

/// A fresh judge without pictures, `GAMES` Pegasus Bridge games (their
/// welcomes delivered) and an order mail from each game's Allies waiting,
/// sent to the seat's reply address as a reply to the welcome would be.
fn judge_with_orders() -> (tempfile::TempDir, Judge) {
    let dir = tempfile::tempdir().expect("tempdir");
    let toml = DEFAULT_TOML
        .replace("picture = \"png\"", "picture = \"none\"")
        .replace(
            "answers_per_address_hour = 60",
            "answers_per_address_hour = 100000",
        );
    assert!(
        toml.contains("picture = \"none\""),
        "the default has a picture line"
    );
    let path = dir.path().join("adjutant.toml");
    std::fs::write(&path, toml).expect("config");
    let cfg = Config::load(&path).expect("config loads");
    adjutant::mail::maildir::create(&cfg.maildir()).expect("maildir");
    std::fs::create_dir_all(cfg.outbox_dir()).expect("outbox");
    let new = cfg.maildir().join("new");
    let mut judge = Judge::open(cfg, Box::new(SystemClock)).expect("judge opens");
    let opts = GameOptions::default();
    for i in 0..GAMES {
        let seats = [
            ("allies".to_string(), format!("a{i}@example.org")),
            ("axis".to_string(), format!("b{i}@example.org")),
        ];
        let id = judge
            .turns()
            .new_game("pegasus-bridge", &seats, &opts)
            .expect("new game");
        let token = adjutant::store::seat(&judge.conn, id, "allies")
            .expect("seat")
            .token;
        let raw = format!(
            "From: <a{i}@example.org>\r\nTo: <judge+{token}@localhost>\r\nSubject: Re: Pegasus Bridge\r\n\
             Message-ID: <orders{i}@example.org>\r\nDate: Sun, 29 Nov 2026 06:00:00 +0000\r\n\r\n\
             PLAY direct-from-hq\r\nORDER F4\r\nBATTLE F4 F5\r\n"
        );
        std::fs::write(new.join(format!("{i:05}.eml")), raw).expect("mail");
    }
    let mut pass = Pass::default();
    deliver(&mut judge, &mut pass).expect("welcomes delivered");
    (dir, judge)
}

fn orders_pass(c: &mut Criterion) {
    let mut g = c.benchmark_group("inbound");
    g.sample_size(10);
    g.measurement_time(std::time::Duration::from_secs(10));
    g.bench_function("maildir_pass_100_orders", |b| {
        b.iter_batched(
            judge_with_orders,
            |(dir, mut judge)| {
                let stop = AtomicBool::new(false);
                let mut pass = Pass::default();
                poll_maildir(&mut judge, &stop, &mut pass).expect("pass");
                deliver(&mut judge, &mut pass).expect("delivery");
                // A receipt and the two sides' turn reports a mail.
                assert_eq!(
                    (pass.handled, pass.delivered),
                    (GAMES, 3 * GAMES),
                    "{pass:?}"
                );
                (dir, judge)
            },
            BatchSize::PerIteration,
        );
    });
    g.finish();
}

fn inbound_pass(c: &mut Criterion) {
    let mut g = c.benchmark_group("inbound");
    g.sample_size(10);
    g.measurement_time(std::time::Duration::from_secs(10));
    g.bench_function("maildir_pass_200_help", |b| {
        b.iter_batched(
            judge_with_mail,
            |(dir, mut judge)| {
                let stop = AtomicBool::new(false);
                let mut pass = Pass::default();
                poll_maildir(&mut judge, &stop, &mut pass).expect("pass");
                deliver(&mut judge, &mut pass).expect("delivery");
                assert_eq!((pass.handled, pass.delivered), (MAILS, MAILS), "{pass:?}");
                (dir, judge)
            },
            BatchSize::PerIteration,
        );
    });
    g.finish();
}

criterion_group!(benches, inbound_pass, orders_pass);
criterion_main!(benches);
