//! The real mail server's side of the end-to-end tests: the test mail
//! client (tests/mailclient.py, SMTP in and IMAP out on loopback), a
//! player's inbox, the judge pointed at the server, and its CLI. Shared by
//! tests/e2e_*.rs instead of a copy each.

use super::{mail_address, mail_slot, Site};
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Stdio};

/// Runs one command of the test mail client (tests/mailclient.py): what it
/// prints. Each test thread keeps one client running (`mailclient.py
/// loop`, one JSON request and answer a line) instead of starting Python,
/// smtplib and imaplib for every poll of an inbox: the polls were most of
/// the mail games' CPU (`perf record` of `e2e_grid::`: 65% in Python).
pub fn client(args: &[&str], stdin: Option<&str>) -> String {
    use std::io::{BufRead, Write};
    mail_slot();
    let request = serde_json::json!({ "args": args, "stdin": stdin.unwrap_or("") });
    let answer = CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        let running = c.get_or_insert_with(Running::start);
        writeln!(running.input, "{request}").expect("the mail client reads");
        running.input.flush().expect("the mail client reads");
        let mut line = String::new();
        running
            .output
            .read_line(&mut line)
            .expect("the mail client answers");
        line
    });
    let answer: Value = serde_json::from_str(&answer).unwrap_or_else(|e| {
        CLIENT.with(|c| c.borrow_mut().take());
        panic!("mailclient {args:?}: no answer ({e}): {answer:?}")
    });
    if let Some(error) = answer.get("error") {
        panic!(
            "mailclient {args:?}: {}",
            error.as_str().unwrap_or_default()
        );
    }
    answer["out"].as_str().unwrap_or_default().to_string()
}

/// A test thread's running mail client; ended with the thread (its
/// standard input closed, it exits).
struct Running {
    child: std::process::Child,
    input: std::process::ChildStdin,
    output: std::io::BufReader<std::process::ChildStdout>,
}

impl Running {
    fn start() -> Running {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mailclient.py");
        let mut child = Command::new(python())
            .arg(script)
            .arg("loop")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let input = child.stdin.take().unwrap();
        let output = std::io::BufReader::new(child.stdout.take().unwrap());
        Running {
            child,
            input,
            output,
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        // Closing its input ends the loop; kill it should it hang.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

thread_local! {
    static CLIENT: std::cell::RefCell<Option<Running>> = const { std::cell::RefCell::new(None) };
}

/// The Python that runs the test mail client: `ADJUTANT_TEST_PYTHON`, else
/// Debian's /usr/bin/python3 when there is one (a `python3` found on the
/// PATH may be a version manager's shim, which costs a tenth of a second of
/// shell scripts a call, and the games make hundreds), else `python3`.
fn python() -> String {
    std::env::var("ADJUTANT_TEST_PYTHON").unwrap_or_else(|_| {
        if Path::new("/usr/bin/python3").exists() {
            "/usr/bin/python3".into()
        } else {
            "python3".into()
        }
    })
}

/// `user`'s INBOX, oldest first. The mails already fetched by this test
/// thread are kept, and only the newer ones (by IMAP UID) are fetched.
pub fn inbox(user: &str) -> Vec<Value> {
    FETCHED.with(|f| {
        let mut f = f.borrow_mut();
        let have = f.entry(user.to_string()).or_default();
        let after = have.last().and_then(|m| m["uid"].as_u64()).unwrap_or(0);
        let new: Vec<Value> =
            serde_json::from_str(&client(&["fetch", user, &after.to_string()], None)).unwrap();
        have.extend(new);
        have.clone()
    })
}

/// Empty `user`'s INBOX (and forget what this thread fetched of it).
pub fn clear(user: &str) {
    client(&["clear", user], None);
    FETCHED.with(|f| f.borrow_mut().remove(user));
}

thread_local! {
    static FETCHED: std::cell::RefCell<std::collections::BTreeMap<String, Vec<Value>>> =
        const { std::cell::RefCell::new(std::collections::BTreeMap::new()) };
}

pub fn serve(site: &Site) {
    site.ok(&["serve", "--once"]);
}

/// Mail takes a moment through Postfix and LMTP: wait until `user` has `n` mails.
pub fn wait_for(user: &str, n: usize) -> Vec<Value> {
    for _ in 0..300 {
        let m = inbox(user);
        if m.len() >= n {
            return m;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    panic!("{user} never got {n} mails: {:#?}", inbox(user));
}

pub fn game_row(site: &Site) -> (u32, String) {
    site.db()
        .query_row("SELECT turn, status FROM games WHERE id = 1", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap()
}

/// Point the judge of `site` at the loopback mail server (scripts/mailserver.sh):
/// IMAP in, SMTP out, as this test's judge account (`mail_address("judge")`).
pub fn use_real_server(site: &Site) {
    let judge = mail_address("judge");
    let cfg = std::fs::read_to_string(site.config())
        .unwrap()
        .replace("address = \"judge@localhost\"", &format!("address = \"{judge}\""))
        .replace("kind = \"maildir\"", "kind = \"imap\"")
        .replace("kind = \"file\"", "kind = \"smtp\"")
        .replace(
            "# [inbound.imap]",
            &format!("[inbound.imap]\nhost = \"127.0.0.1\"\nport = 1143\ntls = \"none\"\nuser = \"{judge}\"\npassword_env = \"E2E_JUDGE_PASSWORD\"\n"),
        )
        .replace(
            "# [outbound.smtp]",
            &format!("[outbound.smtp]\nhost = \"127.0.0.1\"\nport = 2525\nsecurity = \"none\"\nuser = \"{judge}\"\npassword_env = \"E2E_JUDGE_PASSWORD\"\n"),
        );
    std::fs::write(site.config(), cfg).unwrap();
    std::env::set_var("E2E_JUDGE_PASSWORD", "secret");
}

/// A new judge on the loopback mail server, its mailbox and those of
/// `users` (account names: "alice", ...; see `mail_address`) emptied first.
pub fn real_server_site(users: &[&str]) -> Site {
    for u in std::iter::once(&"judge").chain(users) {
        clear(&mail_address(u));
    }
    let site = Site::new();
    use_real_server(&site);
    site
}

/// The address a mail's Reply-To names (judge+TOKEN@...).
pub fn reply_to(m: &Value) -> String {
    text(m, "reply_to")
        .rsplit('<')
        .next()
        .unwrap()
        .trim_end_matches('>')
        .to_string()
}

/// Subject or body text of a fetched mail.
pub fn text(m: &Value, k: &str) -> String {
    m[k].as_str().unwrap_or("").to_string()
}

/// The judge's clock starts here in the tests that set it.
pub const T0: &str = "2026-11-20T12:00:00Z";

/// The judge of game 1 on the real mail server, run at a set clock, and
/// its two players replying to its mails. Shared by tests/it/e2e_grid.rs and
/// the measured family's driver (tests/it/common/measured_mail.rs).
pub struct MailJudge<'a> {
    pub site: &'a Site,
    pub rules: adjutant::rules::Rules,
    /// The side whose player is `players[0]`, as the ruleset names it.
    pub first: &'static str,
    /// The first side's player, then the other's.
    pub players: [String; 2],
    /// Hours after T0: the judge's clock (a game by mail goes a move an
    /// hour; the judge answers one address at most 10 times an hour).
    pub hours: std::cell::Cell<i64>,
}

impl<'a> MailJudge<'a> {
    pub fn new(
        site: &'a Site,
        rules: adjutant::rules::Rules,
        first: &'static str,
        players: [String; 2],
    ) -> MailJudge<'a> {
        MailJudge {
            site,
            rules,
            first,
            players,
            hours: std::cell::Cell::new(0),
        }
    }

    pub fn now(&self) -> String {
        let t0 = chrono::DateTime::parse_from_rfc3339(T0).unwrap();
        (t0 + chrono::Duration::hours(self.hours.get()))
            .to_utc()
            .format("%Y-%m-%dT%H:%M:%SZ")
            .to_string()
    }

    /// Run the judge's CLI at its clock; its output.
    pub fn at(&self, args: &[&str]) -> String {
        self.site.at(&self.now(), args)
    }

    /// (adjudications done, status) of game 1.
    pub fn game(&self) -> (u32, String) {
        game_row(self.site)
    }

    /// Start game 1 of `scenario` at the clock, `sides[0]` played by
    /// `players[0]` and `sides[1]` by `players[1]`, with 72 h deadlines and
    /// a pass for a missed one, and the `extra` options.
    pub fn new_game(&self, scenario: &str, sides: [&str; 2], extra: &[&str]) {
        let seats = [0, 1].map(|i| format!("{}={}", sides[i], self.players[i]));
        let mut args = vec!["new-game", "--scenario", scenario];
        args.extend(["--seat", &seats[0], "--seat", &seats[1]]);
        args.extend(["--deadline", "72h", "--nmr", "pass"]);
        args.extend(extra);
        let id = self.at(&args);
        assert_eq!(id.trim(), "1");
    }

    /// Both players are told the game is over, and its export verifies.
    pub fn assert_over_and_verified(&self) {
        for p in &self.players {
            self.wait_mail(p, 0, "is over.");
        }
        let export = self.site.path().join("export.json");
        let export = export.to_str().unwrap();
        self.at(&["export", "1", "--output", export]);
        let v = self.at(&["verify", export]);
        assert!(v.contains("OK: game 1 verified"), "{v}");
    }

    /// Game 1's latest state.
    pub fn game_state(&self) -> adjutant::rules::State {
        let json: String = self
            .site
            .db()
            .query_row(
                "SELECT state FROM snapshots WHERE game_id = 1 ORDER BY turn DESC LIMIT 1",
                [],
                |r| r.get(0),
            )
            .unwrap();
        self.rules.restore(&json).unwrap()
    }

    /// The sides the current phase waits for.
    pub fn needed(&self) -> Vec<String> {
        self.rules.phase(&self.game_state()).sides
    }

    pub fn player(&self, side: &str) -> &str {
        &self.players[usize::from(side != self.first)]
    }

    /// Wait until `who` has a mail after the first `skip` whose subject or
    /// body contains `needle`.
    pub fn wait_mail(&self, who: &str, skip: usize, needle: &str) -> Value {
        self.wait_mail_from(who, skip, needle, true)
    }

    /// `wait_mail`, looking in the mailbox before the judge first serves
    /// only when `look_first` (not right after a mail to the judge).
    fn wait_mail_from(&self, who: &str, skip: usize, needle: &str, look_first: bool) -> Value {
        let found = || {
            inbox(who)
                .into_iter()
                .skip(skip)
                .find(|m| text(m, "subject").contains(needle) || text(m, "body").contains(needle))
        };
        if look_first {
            if let Some(m) = found() {
                return m;
            }
        }
        // The judge serves, then its answer takes a moment through Postfix
        // and LMTP: look a few times before serving again.
        for _ in 0..60 {
            self.at(&["serve", "--once"]);
            for pause in [20, 50, 100] {
                std::thread::sleep(std::time::Duration::from_millis(pause));
                if let Some(m) = found() {
                    return m;
                }
            }
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
        let body = format!("{orders}\n-- \n{side} commander\n");
        client(
            &[
                "send",
                who,
                &reply_to(last),
                &format!("Re: {}", text(last, "subject")),
            ],
            Some(&body),
        );
        mails.len()
    }

    /// Send and wait for the judge's answer: a receipt that holds the orders
    /// (`held`) or one that adjudicated them.
    pub fn send_and_wait(&self, side: &str, orders: &str, held: bool) -> Value {
        let skip = self.send(side, orders);
        let needle = if held {
            "They are held"
        } else {
            "accepted and adjudicated"
        };
        self.wait_mail_from(self.player(side), skip, needle, false)
    }

    /// The orders stored for `side` in adjudication `turn`, and their source.
    pub fn stored(&self, turn: u32, side: &str) -> (String, String) {
        self.site
            .db()
            .query_row(
                "SELECT orders, source FROM submissions WHERE game_id = 1 AND turn = ?1 AND side = ?2",
                rusqlite::params![turn, side],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap()
    }
}
