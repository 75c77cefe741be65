//! Who gets a game's mails (docs/teams.md, "Who gets which mail"). One
//! place answers "everyone of the game": every member of every side (a
//! team's Commander-in-Chief and its Field Marshals alike), the referee and
//! the observers, each with the reply address that carries his seat. A
//! notice meant for a side goes to every member of it.

use super::{Judge, ServiceError, OPEN_SEAT};
use crate::config::Config;
use crate::store::Connection;
use crate::store::{self, Seat};

/// Whom a recipient of a game's mail is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Role {
    /// A member of a side: seat 0 is the side's first seat (a team's
    /// Commander-in-Chief), 1 and 2 a team's Field Marshals.
    Member {
        side: String,
        seat_no: i64,
    },
    Referee,
    Observer,
}

/// One recipient of a game's mail.
#[derive(Debug, Clone)]
pub struct Recipient {
    pub email: String,
    /// The address a reply goes to (it carries the seat); none for an
    /// observer.
    pub reply_to: Option<String>,
    pub role: Role,
    /// The seat, for a member of a side.
    pub seat: Option<Seat>,
}

impl Recipient {
    /// Is this a member of `side`?
    #[must_use]
    pub fn of_side(&self, side: &str) -> bool {
        matches!(&self.role, Role::Member { side: s, .. } if s == side)
    }

    /// Is this a player (a member of any side)?
    #[must_use]
    pub fn is_player(&self) -> bool {
        matches!(self.role, Role::Member { .. })
    }
}

/// Who gets a game's mails, as a use case other use cases ask: it reads
/// the database and the judge's address from the config.
/// [`Judge::recipients`] hands it out.
pub struct Recipients<'a> {
    cfg: &'a Config,
}

impl Judge {
    /// Who gets a game's mails, by this judge's config.
    #[must_use]
    pub fn recipients(&self) -> Recipients<'_> {
        Recipients { cfg: &self.cfg }
    }
}

impl Recipients<'_> {
    /// Everyone of a game: every side's first seat, the teams' other
    /// members, then the referee, then the observers. Open seats are left
    /// out. Every mail the judge sends "to everyone" takes its list here.
    pub(super) fn everyone_of_game(
        &self,
        conn: &Connection,
        game_id: i64,
    ) -> Result<Vec<Recipient>, ServiceError> {
        let mut out: Vec<Recipient> = Vec::new();
        let mut seats: Vec<(i64, Seat)> = store::seats(conn, game_id)?
            .into_iter()
            .map(|s| (0, s))
            .collect();
        seats.extend(
            store::team::members(conn, game_id)?
                .iter()
                .map(|m| (m.seat_no, m.seat())),
        );
        for (seat_no, seat) in seats {
            if seat.email == OPEN_SEAT || seat.email == super::JUDGE_SEAT {
                continue;
            }
            out.push(Recipient {
                email: seat.email.clone(),
                reply_to: Some(super::plus_address(self.cfg, &seat.token)),
                role: Role::Member {
                    side: seat.side.clone(),
                    seat_no,
                },
                seat: Some(seat),
            });
        }
        if let Some(r) = store::referee(conn, game_id)? {
            out.push(Recipient {
                email: r.email.clone(),
                reply_to: Some(super::plus_address(self.cfg, &r.token)),
                role: Role::Referee,
                seat: None,
            });
        }
        for o in store::observers(conn, game_id)? {
            out.push(Recipient {
                email: o,
                reply_to: None,
                role: Role::Observer,
                seat: None,
            });
        }
        Ok(out)
    }

    /// Every member of `side` (a team's Commander-in-Chief first).
    pub(super) fn members_of_side(
        &self,
        conn: &Connection,
        game_id: i64,
        side: &str,
    ) -> Result<Vec<Recipient>, ServiceError> {
        Ok(self
            .everyone_of_game(conn, game_id)?
            .into_iter()
            .filter(|r| r.of_side(side))
            .collect())
    }
}

/// One kind of mail the judge sends: its outbox `kind`, when, and who
/// gets it. docs/teams.md, "Who gets which mail", is this table; a test
/// keeps them equal, and every mail queued must be of a kind listed here.
pub struct MailKind {
    pub kind: &'static str,
    pub when: &'static str,
    pub who: &'static str,
}

/// Every kind of mail the judge sends, and its recipients. In `who`,
/// "every player" is every member of every side (a team's
/// Commander-in-Chief and Field Marshals alike); the checks in
/// tests/teams.rs read "every player", "every member of", "the referee"
/// and "observers".
pub const MAIL_KINDS: &[MailKind] = &[
    MailKind {
        kind: "welcome",
        when: "a game starts, a seat is taken with JOIN, a seat is handed to a new player (replace-seat, a C-in-C's)",
        who: "every player (each his own secret), the referee (its desk); on JOIN or replace-seat the newcomer",
    },
    MailKind {
        kind: "reply",
        when: "the answer to a mail (receipts, MAP, HISTORY, STATUS, ...)",
        who: "the sender, with a copy to the seat's registered address when it is another; a referee's or a ROTATE's answer to the registered address only",
    },
    MailKind {
        kind: "error",
        when: "an answer that only says what went wrong",
        who: "as `reply`",
    },
    MailKind {
        kind: "notice",
        when: "a mail gave a wrong secret; the review time ran out",
        who: "the seat's registered address; the referee",
    },
    MailKind {
        kind: "limit",
        when: "an address is over its answer cap (once an hour)",
        who: "that address",
    },
    MailKind {
        kind: "report",
        when: "each turn, and the last one says the game is over (in review mode after APPROVE)",
        who: "every player, each as his side sees it",
    },
    MailKind {
        kind: "observer",
        when: "each turn, as the public sees it",
        who: "observers",
    },
    MailKind {
        kind: "referee",
        when: "each turn from above (first, in review mode); a player missed deadlines",
        who: "the referee",
    },
    MailKind {
        kind: "draw",
        when: "a side offers a draw",
        who: "every member of the other side",
    },
    MailKind {
        kind: "game-over",
        when: "a resignation or an agreed draw ends the game",
        who: "every player, the referee, observers",
    },
    MailKind {
        kind: "seat",
        when: "new credentials (rotate-secret, ROTATE, replace-seat of a Field Marshal); a player replaced",
        who: "the holder at the registered address; the player who left",
    },
    MailKind {
        kind: "team",
        when: "a proposal, a TEAM message, a member's part held, a part the card leaves out, a team's turn at the deadline",
        who: "the sender's team-mates (or the member it concerns), never the enemy",
    },
    MailKind {
        kind: "press",
        when: "PRESS",
        who: "every player, the referee, observers (but the sender)",
    },
    MailKind {
        kind: "broadcast",
        when: "the referee's BROADCAST",
        who: "every player, observers",
    },
    MailKind {
        kind: "reveal",
        when: "the referee's REVEAL",
        who: "every player, observers",
    },
    MailKind {
        kind: "reminder",
        when: "a deadline is near",
        who: "every member of each side still owing orders whose own part is missing",
    },
    MailKind {
        kind: "nmr",
        when: "a deadline passed without a side's orders (before the report, if the pass ended the game)",
        who: "every member of that side",
    },
    MailKind {
        kind: "clock",
        when: "the host or the referee pauses, resumes or extends a game's clock",
        who: "every player, the referee, observers",
    },
    MailKind {
        kind: "campaign",
        when: "a campaign battle ends (standings, the next battle)",
        who: "every player of the battle, the referee, observers",
    },
];

/// Is `kind` a kind of mail listed in [`MAIL_KINDS`]?
#[must_use]
pub fn is_kind(kind: &str) -> bool {
    MAIL_KINDS.iter().any(|k| k.kind == kind)
}

/// The table of [`MAIL_KINDS`] as docs/teams.md shows it.
#[must_use]
pub fn kinds_table() -> String {
    let mut s = String::from("| kind | when | who gets it |\n|---|---|---|\n");
    for k in MAIL_KINDS {
        s.push_str(&format!("| `{}` | {} | {} |\n", k.kind, k.when, k.who));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// docs/teams.md lists exactly the kinds of the table, in its order.
    #[test]
    fn docs_teams_md_lists_every_mail_kind() {
        let doc = include_str!("../../docs/teams.md");
        let start = doc
            .find("<!-- mail kinds:")
            .expect("docs/teams.md has the mail kinds table");
        let body = &doc[start..];
        let body = &body[body.find('\n').unwrap_or(0) + 1..];
        let end = body.find("<!-- end mail kinds -->").expect("its end");
        assert_eq!(
            &body[..end],
            kinds_table(),
            "update docs/teams.md from MAIL_KINDS"
        );
    }
}
