//! A Memoir '44 game by mail through the real mail server (scripts/mailserver.sh),
//! shared by tests/it/e2e_mail.rs, e2e_airdrop.rs, e2e_night.rs, e2e_desert.rs and
//! e2e_minefields.rs: the judge set up on the server, a game started with two
//! players, and a turn played by the side to move replying to the judge's
//! latest mail, the judge serving until it is adjudicated and both players
//! getting their mails.

use super::mail_client::{client, game_row, inbox, real_server_site, reply_to, serve, wait_for};
use super::{latest_state, Site};
use adjutant::engine::dice::ChaChaDice;
use adjutant::rules::memoir44;
use serde_json::Value;

pub struct MemoirGame {
    pub site: Site,
    /// The players' addresses, in the order of the seats given.
    pub players: [String; 2],
    /// The sides they hold, in the same order.
    pub sides: [String; 2],
    /// How many mails each player had after the last turn.
    pub seen: [usize; 2],
    /// Whether the orders are sent with a signature after them (which the
    /// judge must leave out).
    pub signed: bool,
    rules: memoir44::Ruleset,
    rng: ChaChaDice,
}

/// One turn played by mail.
pub struct Turn {
    /// The adjudications done before it.
    pub turn: u32,
    /// The side that sent.
    pub side: String,
    /// Its seat (an index into `players`).
    pub p: usize,
    pub orders: String,
    /// Each player's mails after the turn.
    pub mails: [Vec<Value>; 2],
    /// How many of them each had before.
    pub before: [usize; 2],
}

impl Turn {
    /// The mails player `i` got in this turn.
    pub fn new_mails(&self, i: usize) -> &[Value] {
        &self.mails[i][self.before[i]..]
    }

    /// Player `i`'s latest report of this turn (its body), or a panic
    /// naming the player.
    pub fn report_body(&self, i: usize, who: &str) -> String {
        let want = format!("turn {}", self.turn + 1);
        let report = self.mails[i]
            .iter()
            .rev()
            .find(|x| x["subject"].as_str().unwrap_or_default().contains(&want))
            .unwrap_or_else(|| panic!("{who} has no report of {want}"));
        report["body"].as_str().unwrap_or_default().to_string()
    }

    /// The same report, and its words on one line (for phrases the map's
    /// legend may wrap).
    pub fn flat_report(&self, i: usize, who: &str) -> (String, String) {
        let body = self.report_body(i, who);
        let flat = body.split_whitespace().collect::<Vec<_>>().join(" ");
        (body, flat)
    }
}

impl MemoirGame {
    /// The judge on the real server and a new game of `scenario`, `seats`
    /// as (side, user at adjutant.test); random orders are drawn from `seed`.
    pub fn start(scenario: &str, seats: [(&str, &str); 2], seed: u8) -> MemoirGame {
        let site = real_server_site(&[seats[0].1, seats[1].1]);
        let players = seats.map(|(_, u)| super::mail_address(u));
        let id = site.ok(&[
            "new-game",
            "--scenario",
            scenario,
            "--seat",
            &format!("{}={}", seats[0].0, players[0]),
            "--seat",
            &format!("{}={}", seats[1].0, players[1]),
        ]);
        assert_eq!(id.trim(), "1");
        MemoirGame {
            site,
            players,
            sides: seats.map(|(s, _)| s.to_string()),
            seen: [0; 2],
            signed: false,
            rules: memoir44::Ruleset::builtin().unwrap(),
            rng: ChaChaDice::from_seed([seed; 32]),
        }
    }

    /// Wait until each player has `n` mails; they are what the turns count from.
    pub fn wait_opening(&mut self, n: usize) -> [Vec<Value>; 2] {
        let mails = [wait_for(&self.players[0], n), wait_for(&self.players[1], n)];
        self.seen = [mails[0].len(), mails[1].len()];
        mails
    }

    /// (adjudications done, status) of game 1.
    pub fn row(&self) -> (u32, String) {
        game_row(&self.site)
    }

    /// Player `p` replies to the judge's latest mail with `body`, under
    /// `subject` (by default "Re: " and the mail's).
    pub fn reply(&self, p: usize, subject: Option<&str>, body: &str) {
        let mails = inbox(&self.players[p]);
        let last = mails.last().expect("a mail to reply to");
        let addr = reply_to(last);
        assert!(addr.contains("judge+"), "{last:#?}");
        let subject = subject.map_or_else(
            || format!("Re: {}", last["subject"].as_str().unwrap()),
            str::to_string,
        );
        client(&["send", &self.players[p], &addr, &subject], Some(body));
    }

    /// Serve the judge's mailbox until `done` holds of game 1's row, for
    /// fifteen seconds or so at most; whether it came to hold.
    pub fn serve_until(&self, done: impl Fn(&(u32, String)) -> bool) -> bool {
        for _ in 0..150 {
            serve(&self.site);
            if done(&self.row()) {
                return true;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        false
    }

    /// The side to move sends `orders` (random legal ones when None) in
    /// reply to its latest mail; the judge adjudicates them, and each
    /// player gets the report, the mover the receipt as well. None when
    /// the game is over.
    pub fn play(&mut self, orders: Option<&str>) -> Option<Turn> {
        let (turn, status) = self.row();
        if status == "over" {
            return None;
        }
        let state = latest_state(&self.site);
        let side = memoir44::waiting(&state).sides[0].clone();
        let p = usize::from(side != self.sides[0]);
        let orders = orders.map_or_else(
            || memoir44::random_orders(&self.rules, &state, &side, &mut self.rng),
            str::to_string,
        );
        let body = if self.signed {
            format!("{orders}\n-- \n{side} commander\nSent from my phone\n")
        } else {
            format!("{orders}\n")
        };
        self.reply(p, None, &body);
        // The judge may need a moment to see the mail in its IMAP box.
        if !self.serve_until(|row| row.0 > turn) {
            let log = self.site.ok(&["log"]);
            panic!("turn {turn}: the orders of {side} were not adjudicated:\n{orders}\n{log}");
        }
        let before = self.seen;
        self.seen[p] += 2;
        self.seen[1 - p] += 1;
        let mails = [
            wait_for(&self.players[0], self.seen[0]),
            wait_for(&self.players[1], self.seen[1]),
        ];
        Some(Turn {
            turn,
            side,
            p,
            orders,
            mails,
            before,
        })
    }
}
