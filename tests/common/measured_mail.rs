//! The judge of a measured-table game by mail through the real mail server,
//! shared by tests/e2e_measured.rs (Charge!) and tests/e2e_syw.rs (the Seven
//! Years' War): the mail client, the inbox, and the judge's clock and CLI.
#![allow(dead_code)]

pub use super::common::mail_client::{client, inbox, text};
use super::common::{bin, Site};
use adjutant::engine::dice::ChaChaDice;
use adjutant::rules::measured::{self, random};
use adjutant::rules::Rules;
use serde_json::Value;
use std::process::Command;

pub const T0: &str = "2026-11-20T12:00:00Z";

pub struct Judge<'a> {
    pub site: &'a Site,
    pub rules: Rules,
    pub ruleset: measured::Ruleset,
    /// The side that moves first, as the ruleset names it.
    pub first: &'static str,
    /// The first side's player, then the other's.
    pub players: [String; 2],
    /// Hours after T0: a move an hour, as a game by mail goes (the judge
    /// answers one address at most 10 times an hour).
    pub hours: std::cell::Cell<i64>,
}

impl Judge<'_> {
    pub fn now(&self) -> String {
        let t0 = chrono::DateTime::parse_from_rfc3339(T0).unwrap();
        (t0 + chrono::Duration::hours(self.hours.get()))
            .to_utc()
            .format("%Y-%m-%dT%H:%M:%SZ")
            .to_string()
    }

    pub fn at(&self, args: &[&str]) -> String {
        let out = Command::new(bin())
            .arg("--config")
            .arg(self.site.config())
            .args(args)
            .env("ADJUTANT_NOW", self.now())
            .env("ADJUTANT_LOG", "warn")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// (adjudications done, status) of game 1.
    pub fn game(&self) -> (u32, String) {
        self.site
            .db()
            .query_row("SELECT turn, status FROM games WHERE id = 1", [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .unwrap()
    }

    pub fn state(&self) -> measured::State {
        let json: String = self
            .site
            .db()
            .query_row(
                "SELECT state FROM snapshots WHERE game_id = 1 ORDER BY turn DESC LIMIT 1",
                [],
                |r| r.get(0),
            )
            .unwrap();
        let st = self.rules.restore(&json).unwrap();
        st.get::<measured::State>()
            .expect("a measured state")
            .clone()
    }

    pub fn needed(&self) -> Vec<String> {
        self.rules
            .phase(
                &self
                    .rules
                    .restore(&serde_json::to_string(&self.state()).unwrap())
                    .unwrap(),
            )
            .sides
    }

    pub fn player(&self, side: &str) -> &str {
        &self.players[usize::from(side != self.first)]
    }

    /// Wait until `who` has a mail after the first `skip` whose subject or
    /// body contains `needle`.
    pub fn wait_mail(&self, who: &str, skip: usize, needle: &str) -> Value {
        for _ in 0..100 {
            if let Some(m) = inbox(who)
                .into_iter()
                .skip(skip)
                .find(|m| text(m, "subject").contains(needle) || text(m, "body").contains(needle))
            {
                return m;
            }
            self.at(&["serve", "--once"]);
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        panic!(
            "{who} never got a mail with {needle:?}: {:#?}\n{}",
            inbox(who).into_iter().skip(skip).collect::<Vec<_>>(),
            self.at(&["log"])
        );
    }

    /// `side` replies to the judge's latest mail with `orders`; returns how
    /// many mails the player had before.
    pub fn send(&self, side: &str, orders: &str) -> usize {
        let who = self.player(side);
        let mails = inbox(who);
        let last = mails
            .iter()
            .rev()
            .find(|m| text(m, "reply_to").contains("judge+"))
            .expect("a mail to reply to");
        let reply_to = text(last, "reply_to");
        let addr = reply_to
            .rsplit('<')
            .next()
            .unwrap()
            .trim_end_matches('>')
            .to_string();
        let body = format!("{orders}\n-- \n{side} commander\n");
        client(
            &[
                "send",
                who,
                &addr,
                &format!("Re: {}", text(last, "subject")),
            ],
            Some(&body),
        );
        mails.len()
    }

    pub fn send_and_wait(&self, side: &str, orders: &str, held: bool) -> Value {
        let skip = self.send(side, orders);
        let needle = if held {
            "They are held"
        } else {
            "accepted and adjudicated"
        };
        self.wait_mail(self.player(side), skip, needle)
    }

    pub fn random_orders(&self, side: &str, rng: &mut ChaChaDice) -> String {
        let st = self.state();
        let i = st.side_index(side).expect("side");
        random::random_orders(&self.ruleset, &st, i, rng)
    }
}
