//! Criterion: the inbound mail path as the daemon runs it (issue 57): a
//! big Maildir pass (`daemon::poll_maildir`, the reader, handling and
//! courier threads) over 200 HELP mails into a fresh judge on disk: read,
//! parse, record, answer, commit, move to `cur/`, deliver the answers to
//! `.eml` files. A real SQLite file in a temporary folder (on the disk
//! that holds `TMPDIR`), so the commits' syncs are counted.
//!
//! `cargo bench -p adjutant-bench --bench inbound`

use adjutant::config::{Config, DEFAULT_TOML};
use adjutant::daemon::{deliver, poll_maildir, Pass};
use adjutant::service::clock::SystemClock;
use adjutant::service::Judge;
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

criterion_group!(benches, inbound_pass);
criterion_main!(benches);
