//! The mails of the golden corpus: a fixed corpus of mails through the
//! whole Maildir path (`adjutant serve --once`, the clock fixed with
//! `ADJUTANT_NOW`), every mail the judge writes to its file outbox kept as
//! an item. Four games are made with `new-game` and given a fixed seed
//! (their set-up is made again from it, as the judge makes it, and stored
//! in place of the one from the OS's random seed; their welcomes, from the
//! random seed, are left out). The corpus: HELP from a stranger and from a
//! seat, orders of both sides of a Memoir '44 game, a refusal, a PICTURE
//! choice and the report it changes, MAP and STATUS, a Kriegspiel game's
//! orders (each side's fog-of-war report and the referee's), a grid game's
//! and a Charge! game's orders, and every mangled mail of tests/mail.
//!
//! A mail is normalised before its digest: MIME boundaries, Message-IDs (and
//! the ones In-Reply-To and References name) and
//! Date headers become placeholders, and so do the seats' secrets and reply
//! tokens (drawn from the OS by design; the test checks that none is left
//! in any decoded text) and the site's temporary path.

use super::manifest::Items;
use crate::common::{mail, unqp, Site};
use adjutant::engine::dice::{derive, ChaChaDice, Seed};
use adjutant::rules::Load;
use adjutant::rules::{Rules, State};
use std::collections::BTreeMap;
use std::path::PathBuf;

use super::exports::NOW;

/// The games: (scenario, seats, extra `new-game` options).
const GAMES: &[(&str, [&str; 2], &[&str])] = &[
    (
        "pegasus-bridge",
        ["allies=alice@example.org", "axis=bob@example.org"],
        &[],
    ),
    (
        "pegasus-bridge",
        ["allies=carol@example.org", "axis=dave@example.org"],
        &[
            "--option",
            "kriegspiel=true",
            "--referee",
            "ref@example.org",
        ],
    ),
    (
        "le-cateau-1914",
        ["british=erin@example.org", "german=frank@example.org"],
        &[],
    ),
    (
        "el-bodon-1811",
        ["british=gina@example.org", "french=hugo@example.org"],
        &[],
    ),
];

struct Corpus {
    site: Site,
    items: Items,
    /// Credentials drawn from the OS, each with its placeholder.
    words: BTreeMap<String, String>,
    /// The seat (game, side) of each address: its reply token.
    tokens: BTreeMap<(i64, String), String>,
    /// Message-IDs met so far, numbered in order.
    ids: Vec<String>,
    /// Outbox files already kept.
    seen: usize,
    /// Mails dropped so far (for unique names and Message-IDs).
    dropped: usize,
    rng: ChaChaDice,
}

/// The fixed master seed of game `id`.
fn seed_of(id: i64) -> Seed {
    derive("adjutant/golden-mail", &[&id.to_le_bytes()])
}

impl Corpus {
    fn new() -> Corpus {
        let site = Site::new();
        let mut c = Corpus {
            site,
            items: Items::default(),
            words: BTreeMap::new(),
            tokens: BTreeMap::new(),
            ids: Vec::new(),
            seen: 0,
            dropped: 0,
            rng: ChaChaDice::from_seed(derive("adjutant/golden-mail-orders", &[])),
        };
        for (i, (scenario, seats, extra)) in GAMES.iter().enumerate() {
            let id = i as i64 + 1;
            let mut args = vec!["new-game", "--scenario", scenario];
            for s in seats {
                args.extend(["--seat", s]);
            }
            args.extend(*extra);
            c.site.at(NOW, &args);
            super::exports::reseed(&c.site.db(), id, &seed_of(id));
        }
        c.learn_credentials();
        c
    }

    /// The outbox's mail files not kept yet, in name (outbox) order.
    fn new_files(&mut self) -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = std::fs::read_dir(self.site.path().join("mail/outbox"))
            .unwrap()
            .filter_map(|e| Some(e.ok()?.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "eml"))
            .collect();
        files.sort();
        let new = files.split_off(self.seen.min(files.len()));
        self.seen += new.len();
        new
    }

    /// Each seat's (and referee's) secret and reply token, from the
    /// welcomes, which are then set aside (they hold the OS's seed's
    /// commitments).
    fn learn_credentials(&mut self) {
        for f in self.new_files() {
            let text = unqp(&String::from_utf8_lossy(&std::fs::read(&f).unwrap()));
            let header = |name: &str| {
                text.lines()
                    .find_map(|l| l.strip_prefix(name))
                    .map(str::trim)
                    .unwrap_or_else(|| panic!("{}: no {name}", f.display()))
                    .to_string()
            };
            let game: i64 = header("X-Adjutant-Game:").parse().unwrap();
            let reply = header("Reply-To:");
            let token = reply
                .split('+')
                .nth(1)
                .unwrap()
                .split('@')
                .next()
                .unwrap()
                .to_string();
            let subject = header("Subject:");
            let side = subject.rsplit(' ').next().unwrap().to_string();
            let side = if subject.contains("referee") {
                "referee".to_string()
            } else {
                side
            };
            let n = self.words.len();
            self.words.insert(token.clone(), format!("token{n}"));
            if let Some(secret) = text
                .lines()
                .find_map(|l| l.trim().strip_prefix("Your secret: "))
            {
                self.words
                    .insert(secret.trim().to_string(), format!("secret{n}"));
            }
            self.tokens.insert((game, side), token);
        }
    }

    /// The reply address of a seat.
    fn address(&self, game: i64, side: &str) -> String {
        let token = self
            .tokens
            .get(&(game, side.to_string()))
            .unwrap_or_else(|| panic!("no token of game {game} {side}: {:?}", self.tokens.keys()));
        format!("judge+{token}@localhost")
    }

    /// Drop a mail in the inbox.
    fn drop(&mut self, raw: &[u8]) {
        self.dropped += 1;
        self.site
            .drop_mail(&format!("1700000000.{:04}.golden", self.dropped), raw);
    }

    /// A plain mail from `from` to the judge's `to`.
    fn send(&mut self, from: &str, to: &str, subject: &str, body: &str) {
        let id = format!("golden-{}@example.org", self.dropped + 1);
        let raw = mail(from, to, subject, &id, body);
        self.drop(&raw);
    }

    /// Run `serve --once` and keep every mail it writes as `mail CASE K`.
    fn serve(&mut self, case: &str) {
        self.site.at(NOW, &["serve", "--once"]);
        let files = self.new_files();
        for (k, f) in files.iter().enumerate() {
            let raw = std::fs::read(f).unwrap();
            let norm = self.normalise(&raw);
            self.items.add(&format!("mail {case} {k:02}"), &norm);
        }
    }

    /// The latest state of game `id` and its rules.
    fn state(&self, id: i64) -> (Rules, State) {
        let db = self.site.db();
        let (ruleset, text): (String, String) = db
            .query_row(
                "SELECT g.ruleset, s.state FROM games g JOIN snapshots s ON s.game_id = g.id \
                 WHERE g.id = ?1 ORDER BY s.turn DESC LIMIT 1",
                [id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        let rules = Rules::load(&ruleset).unwrap();
        let state = rules.restore(&text).unwrap();
        (rules, state)
    }

    /// Random legal orders of every side game `id` waits for: (side, text).
    fn orders(&mut self, id: i64) -> Vec<(String, String)> {
        let (rules, st) = self.state(id);
        let sides = rules.phase(&st).sides;
        assert!(!sides.is_empty(), "game {id} waits for no one");
        super::games::random_orders(&rules, &st, &sides, &mut self.rng)
            .into_iter()
            .map(|o| (o.side, o.text))
            .collect()
    }

    /// Every side game `id` waits for sends random orders by mail.
    fn play(&mut self, id: i64, emails: &[(&str, &str)], case: &str) {
        for (side, text) in self.orders(id) {
            let from = emails.iter().find(|(s, _)| *s == side).expect("a seat").1;
            let to = self.address(id, &side);
            self.send(from, &to, &format!("Re: Game {id}"), &text);
        }
        self.serve(case);
    }

    /// A mail's bytes with what varies from run to run made placeholders.
    fn normalise(&mut self, raw: &[u8]) -> Vec<u8> {
        let mut text = String::from_utf8(raw.to_vec()).expect("an outgoing mail is ASCII or UTF-8");
        let path = self.site.path().display().to_string();
        text = text.replace(&path, "SITE");
        // Boundaries, in order of appearance.
        let mut boundaries = Vec::new();
        for piece in text.split("boundary=\"").skip(1) {
            let b = piece.split('"').next().unwrap().to_string();
            if !boundaries.contains(&b) {
                boundaries.push(b);
            }
        }
        for (i, b) in boundaries.iter().enumerate() {
            text = text.replace(b.as_str(), &format!("BOUNDARY-{i}"));
        }
        // Message-IDs: the judge's own, numbered across the corpus, and
        // those a mail answers (In-Reply-To, References: a turn report
        // answers each player's welcome, which may not be in the corpus).
        let ids: Vec<String> = text
            .lines()
            .filter_map(|l| {
                ["Message-ID: ", "In-Reply-To: ", "References: "]
                    .iter()
                    .find_map(|h| l.strip_prefix(h))
            })
            .flat_map(|v| v.split_whitespace().map(str::to_string))
            .filter(|id| id.starts_with('<') && id.ends_with('>'))
            .collect();
        for id in ids {
            if !self.ids.contains(&id) {
                self.ids.push(id.clone());
            }
        }
        for (i, id) in self.ids.iter().enumerate() {
            text = text.replace(id.as_str(), &format!("<message-id-{i}@localhost>"));
        }
        text = text
            .split("\r\n")
            .map(|l| {
                if l.starts_with("Date: ") {
                    "Date: DATE"
                } else {
                    l
                }
            })
            .collect::<Vec<_>>()
            .join("\r\n");
        for (word, placeholder) in &self.words {
            text = text.replace(word.as_str(), placeholder);
        }
        let decoded = unqp(&text);
        for word in self.words.keys() {
            assert!(
                !decoded.contains(word.as_str()),
                "a credential ({word}) is left in a mail after normalising:\n{decoded}"
            );
        }
        text.into_bytes()
    }
}

/// The mangled mails of tests/mail (tests/it/mail_corpus.rs), in name order.
fn mangled() -> Vec<Vec<u8>> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mail");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "eml"))
        .collect();
    files.sort();
    files.iter().map(|f| std::fs::read(f).unwrap()).collect()
}

const M44: &[(&str, &str)] = &[("allies", "alice@example.org"), ("axis", "bob@example.org")];
const FOG: &[(&str, &str)] = &[
    ("allies", "carol@example.org"),
    ("axis", "dave@example.org"),
];
const GRID: &[(&str, &str)] = &[
    ("british", "erin@example.org"),
    ("german", "frank@example.org"),
];
const CHARGE: &[(&str, &str)] = &[
    ("british", "gina@example.org"),
    ("french", "hugo@example.org"),
];

/// Build the whole mail corpus: its items.
pub fn corpus() -> Items {
    let mut c = Corpus::new();
    c.send("stranger@example.org", "judge@localhost", "help", "HELP");
    c.serve("01-help-stranger");
    let alice = c.address(1, "allies");
    c.send("alice@example.org", &alice, "Re: Game 1", "HELP");
    c.serve("02-help-seat");
    c.play(1, M44, "03-orders-allies");
    let bob = c.address(1, "axis");
    c.send(
        "bob@example.org",
        &bob,
        "Re: Game 1",
        "PLAY no-such-card\nUNIT Z99 MOVE A1",
    );
    c.serve("04-refusal");
    c.play(1, M44, "05-orders-axis");
    c.send("alice@example.org", &alice, "Re: Game 1", "PICTURE both");
    c.serve("06-picture");
    c.play(1, M44, "07-orders-allies-picture-both");
    c.send("bob@example.org", &bob, "Re: Game 1", "MAP\nSTATUS");
    c.serve("08-map-status");
    c.play(2, FOG, "09-kriegspiel-orders");
    c.play(2, FOG, "10-kriegspiel-orders");
    let dave = c.address(2, "axis");
    c.send("dave@example.org", &dave, "Re: Game 2", "MAP");
    c.serve("11-kriegspiel-map");
    c.play(3, GRID, "12-grid-orders");
    c.play(4, CHARGE, "13-charge-orders");
    c.send(
        "mallory@example.org",
        "judge@localhost",
        "orders",
        "GAME 1\nPASSWORD wrongpassword\nPLAY probe-left",
    );
    c.serve("14-wrong-password");
    for raw in mangled() {
        c.drop(&raw);
    }
    c.serve("15-mangled");
    c.items
}
