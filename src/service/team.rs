//! Team play (house rules, Appendix 3, "Team Play"; docs/teams.md).
//!
//! A side seated more than once is a team: its first seat (the `seats` row,
//! seat 0) is the Commander-in-Chief, the others (`team_members`, seats 1
//! and 2) Field Marshals. Each commands the board sections the family
//! names ([`Rules::sections`]): with two, the Commander-in-Chief the centre
//! and the Field Marshal both flanks; with three, seat 0 the centre, seat 1
//! the left, seat 2 the right (from the side's own seat).
//!
//! By mail every member sends his part of the turn: the Commander-in-Chief
//! the card (and the orders of his own units), each Field Marshal the
//! orders of the units in his sections. The family says what each line
//! concerns ([`Rules::order_scope`]), so the service never learns the
//! family's types. Parts are held in `team_parts` like a simultaneous
//! phase's orders in `pending`; when every member the card concerns has
//! sent, they are merged into the side's one set of orders and adjudicated
//! through [`Turns::resolve`](super::Turns::resolve) as one submission, so replay and `verify` see
//! an ordinary turn. At the deadline the parts present are played (the
//! Commander-in-Chief's card, or the team's first proposal).

use super::clock::{stamp, Clock};
use super::{Judge, Queue, ServiceError, OPEN_SEAT};
use crate::mail::outbound::Outgoing;
use crate::protocol::Command;
use crate::rules::{Rejection, Rules, ScopedLine, State};
use crate::store::team::{self as tstore, Member, Message, Part};
use crate::store::{self, Game, Seat, Submission};
use crate::store::{Connection, Transaction};

/// At most this many players a side.
pub const MAX_TEAM: usize = 3;

/// One member of a team as the service sees him.
#[derive(Debug, Clone)]
pub struct TeamMember {
    /// 0: the Commander-in-Chief.
    pub seat_no: i64,
    pub seat: Seat,
    /// The sections he commands, from his side's seat.
    pub sections: Vec<String>,
}

impl TeamMember {
    /// "the Commander-in-Chief (a@x)" / "the Field Marshal of left, right (b@x)".
    #[must_use]
    pub fn title(&self) -> String {
        if self.seat_no == 0 {
            format!(
                "the Commander-in-Chief, {} ({})",
                self.sections.join(", "),
                self.seat.email
            )
        } else {
            format!(
                "the Field Marshal of {} ({})",
                self.sections.join(", "),
                self.seat.email
            )
        }
    }
}

/// A member, his team, his game and its position.
type Membership = (TeamMember, Vec<TeamMember>, Game, Rules, State);

/// The sections each of `n` members commands, in seat order (seat 0 is the
/// Commander-in-Chief): one member all; two, the centre and the flanks;
/// three, centre, left, right. `sections` are the family's, left to right.
pub fn assign(sections: &[String], n: usize) -> Result<Vec<Vec<String>>, String> {
    match (n, sections.len()) {
        (0, _) => Err("a side needs a seat".into()),
        (1, _) => Ok(vec![sections.to_vec()]),
        (_, 0) => Err(
            "this ruleset has no board sections, so no team play: seat one player a side".into(),
        ),
        (2, k) => {
            let centre = sections[k / 2].clone();
            let flanks = sections.iter().filter(|s| **s != centre).cloned().collect();
            Ok(vec![vec![centre], flanks])
        }
        (3, 3) => Ok(vec![
            vec![sections[1].clone()],
            vec![sections[0].clone()],
            vec![sections[2].clone()],
        ]),
        (n, _) => Err(format!(
            "at most {MAX_TEAM} players a side (one a section); {n} were seated"
        )),
    }
}

/// The lines of a part that choose the card.
fn card_line(scope: &[ScopedLine]) -> Option<&ScopedLine> {
    scope.iter().find(|l| l.card)
}

/// Do `a` and `b` share a section?
fn meets(a: &[String], b: &[String]) -> bool {
    a.iter().any(|x| b.contains(x))
}

/// Which members a card line concerns: the members of its sections; a card
/// of no particular section is the Commander-in-Chief's alone.
fn concerned(members: &[TeamMember], card: &ScopedLine) -> Vec<i64> {
    let mut out = vec![0];
    if !card.sections.is_empty() {
        out.extend(
            members
                .iter()
                .filter(|m| m.seat_no != 0 && meets(&m.sections, &card.sections))
                .map(|m| m.seat_no),
        );
    }
    out
}

/// Why no part is taken now: the game is over, its results are held for
/// The card in force: this mail's (the Commander-in-Chief's) or the one
/// his held part plays.
fn card_in_force(
    rules: &Rules,
    state: &State,
    side: &str,
    scope: &[ScopedLine],
    held: &[Part],
    leader: bool,
) -> Option<ScopedLine> {
    let held_scope = |seat_no: i64| -> Option<Vec<ScopedLine>> {
        held.iter()
            .find(|p| p.seat_no == seat_no)
            .and_then(|p| rules.order_scope(state, side, &p.orders).ok())
    };
    if leader {
        card_line(scope)
            .cloned()
            .or_else(|| held_scope(0).and_then(|s| card_line(&s).cloned()))
    } else {
        held_scope(0).and_then(|s| card_line(&s).cloned())
    }
}

/// The note to the team that a part came and who the card still waits for.
fn missing_note(
    game: &Game,
    me: &TeamMember,
    side: &str,
    card: &ScopedLine,
    missing: &[String],
) -> String {
    format!(
        "Game {}: {} sent a part of {}'s orders. The card: {}.\nStill waiting for: {}.\n",
        game.id,
        me.title(),
        side,
        card.text,
        missing.join("; ")
    )
}

/// review, or it is not the side's turn.
fn part_refused(game: &Game, rules: &Rules, state: &State, seat: &Seat) -> Option<String> {
    if game.status == "over" {
        return Some(format!("game {} is over", game.id));
    }
    if let Some(t) = game.held_from {
        return Some(format!(
                "the results of turn {t} are with the referee for review; orders for\nthe next phase are taken once the referee has released them"
            ));
    }
    let phase = rules.phase(state);
    if !phase.sides.contains(&seat.side) {
        return Some(format!(
            "it is not {}'s turn: {}",
            seat.side,
            super::waiting_line(&phase)
        ));
    }
    None
}

/// Why a member's part is refused by what it orders: a card or a line
/// that is not his to write, a unit of another's section, or a card that
/// leaves his sections out. None when it stands.
fn part_problem(
    team: &[TeamMember],
    me: &TeamMember,
    leader: bool,
    card: Option<&ScopedLine>,
    scope: &[ScopedLine],
) -> Option<String> {
    let owner_of = |sections: &[String]| -> String {
        team.iter()
            .filter(|m| meets(&m.sections, sections))
            .map(TeamMember::title)
            .collect::<Vec<_>>()
            .join(" and ")
    };
    let cinc = team.first().map(TeamMember::title).unwrap_or_default();
    // The Commander-in-Chief orders every unit under a card of no
    // particular section; otherwise each member his own sections.
    let anywhere = leader && card.as_ref().is_some_and(|c| c.sections.is_empty());
    for l in scope {
        let at = format!("line {}: \"{}\"", l.line, l.text);
        if l.card {
            if !leader {
                return Some(format!(
                    "{at}: {cinc} plays the card; write PROPOSE {} to suggest it to your team",
                    l.text
                        .split_whitespace()
                        .skip(1)
                        .collect::<Vec<_>>()
                        .join(" ")
                ));
            }
            continue;
        }
        if l.units.is_empty() {
            if !leader {
                return Some(format!(
                    "{at}: this line orders no one unit of your sections; it is for {cinc}"
                ));
            }
            continue;
        }
        if anywhere {
            continue;
        }
        for (unit, secs) in &l.units {
            if !meets(secs, &me.sections) {
                return Some(format!(
                        "{at}: {unit} is in the {} section, which is not yours: you command {}; its units are for {}",
                        secs.join("/"),
                        me.sections.join(" and "),
                        owner_of(secs)
                    ));
            }
        }
    }
    if let Some(c) = card {
        if !leader && !concerned(team, c).contains(&me.seat_no) && !scope.is_empty() {
            return Some(format!(
                    "the card played this turn ({}) does not concern your sections ({}): your units\nhave no orders this turn",
                    c.text,
                    me.sections.join(", ")
                ));
        }
    }
    None
}

/// The orders as read, indented, for the answer.
fn echo_block(scope: &[ScopedLine]) -> String {
    let texts: Vec<String> = scope.iter().map(|l| l.text.clone()).collect();
    let (shown, more) = crate::protocol::echo_lines(&texts);
    let mut echo: String = shown.iter().map(|l| format!("  {l}\n")).collect();
    if more > 0 {
        echo.push_str(&format!("  ... and {more} more lines\n"));
    }
    echo
}

/// Why the merge of the held parts does not stand, and whose line it is.
fn merge_refusal(team: &[TeamMember], me: &TeamMember, who: i64, rej: &Rejection) -> String {
    let whose = if who == me.seat_no {
        String::new()
    } else {
        format!(
            " (a line of the part held from {})",
            team.iter()
                .find(|m| m.seat_no == who)
                .map(TeamMember::title)
                .unwrap_or_default()
        )
    };
    format!("together with your team's held orders they do not stand{whose}: {rej}")
}

/// The merge of several members' parts into the side's orders: lines in
/// stage order (the family's), each part keeping its own order within a
/// stage. Returns the text and, per line of it, (seat, line in his part).
fn merge(parts: &[(i64, Vec<ScopedLine>)]) -> (String, Vec<(i64, usize)>) {
    let mut all: Vec<(u8, usize, usize, i64, &ScopedLine)> = Vec::new();
    for (pi, (seat_no, lines)) in parts.iter().enumerate() {
        for (li, l) in lines.iter().enumerate() {
            all.push((l.stage, pi, li, *seat_no, l));
        }
    }
    all.sort_by_key(|(stage, pi, li, _, _)| (*stage, *pi, *li));
    let text = all
        .iter()
        .map(|(_, _, _, _, l)| l.text.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    let map = all.iter().map(|(_, _, _, s, l)| (*s, l.line)).collect();
    (text + "\n", map)
}

/// The team-play use case: a team's members and sections, their seats and
/// welcomes, PROPOSE, TEAM and PRESS, a member's part of the orders merged
/// into the side's, and what a team plays at the deadline. It reads and
/// writes the database and tells the time by the judge's clock; the
/// members' reply addresses, who is told, a turn resolved and the outbox
/// are other use cases', reached through `judge`. [`Judge::teams`] hands it
/// out.
pub struct Teams<'a> {
    judge: &'a Judge,
    conn: &'a Connection,
    clock: &'a dyn Clock,
}

impl Judge {
    /// The team-play use case, on this judge's database and clock.
    #[must_use]
    pub fn teams(&self) -> Teams<'_> {
        Teams {
            judge: self,
            conn: &self.conn,
            clock: self.clock.as_ref(),
        }
    }
}

impl Teams<'_> {
    /// The members of `side` in game `game_id`, seat 0 first, with their
    /// sections; empty when the side is one player (no team).
    pub(super) fn team(
        &self,
        conn: &Connection,
        rules: &Rules,
        state: &State,
        game_id: i64,
        side: &str,
    ) -> Result<Vec<TeamMember>, ServiceError> {
        let extra: Vec<Member> = tstore::members(conn, game_id)?
            .into_iter()
            .filter(|m| m.side == side)
            .collect();
        if extra.is_empty() {
            return Ok(Vec::new());
        }
        let Some(first) = store::seats(conn, game_id)?
            .into_iter()
            .find(|s| s.side == side)
        else {
            return Ok(Vec::new());
        };
        let mut seats = vec![(0, first)];
        seats.extend(extra.iter().map(|m| (m.seat_no, m.seat())));
        let secs = assign(&rules.sections(state), seats.len()).map_err(ServiceError::Invalid)?;
        Ok(seats
            .into_iter()
            .zip(secs)
            .map(|((seat_no, seat), sections)| TeamMember {
                seat_no,
                seat,
                sections,
            })
            .collect())
    }

    /// Seat the members of a team beyond each side's first seat (new-game:
    /// `--seat allies=A --seat allies=B`). Returns their seats, for welcomes.
    pub(super) fn seat_team(
        &self,
        tx: &Transaction<'_>,
        game_id: i64,
        rules: &Rules,
        state: &State,
        seats: &[(String, String)],
        zone_of: &dyn Fn(&str) -> String,
    ) -> Result<Vec<Seat>, ServiceError> {
        let mut out = Vec::new();
        for side in rules.sides(state) {
            let of_side: Vec<&String> = seats
                .iter()
                .filter(|(s, _)| *s == side)
                .map(|(_, e)| e)
                .collect();
            if of_side.len() < 2 {
                continue;
            }
            assign(&rules.sections(state), of_side.len())
                .map_err(|why| ServiceError::Invalid(format!("side '{side}': {why}")))?;
            for (i, email) in of_side.iter().enumerate().skip(1) {
                if **email == OPEN_SEAT {
                    return Err(ServiceError::Invalid(
                        "a team's seats need addresses (open seats are for one player a side)"
                            .into(),
                    ));
                }
                let m = Member {
                    game_id,
                    side: side.clone(),
                    seat_no: i as i64,
                    email: email.to_ascii_lowercase(),
                    secret: String::new(),
                    token: String::new(),
                    tz: zone_of(&side),
                };
                out.push(tstore::insert_member(tx, &m)?.seat());
            }
        }
        Ok(out)
    }

    /// The seat of a team member by his reply-address token.
    pub(super) fn member_by_token(&self, token: &str) -> Result<Option<Seat>, ServiceError> {
        Ok(tstore::member_by_token(self.conn, token)?.map(|m| m.seat()))
    }

    /// The seat of a team member of `game` by his secret.
    pub(super) fn member_by_secret(
        &self,
        game: i64,
        secret: &str,
    ) -> Result<Option<Seat>, ServiceError> {
        Ok(tstore::members(self.conn, game)?
            .into_iter()
            .find(|m| m.secret == secret.to_ascii_lowercase())
            .map(|m| m.seat()))
    }

    /// The member a seat is (None: not in a team).
    fn member_of(
        &self,
        conn: &Connection,
        seat: &Seat,
    ) -> Result<Option<Membership>, ServiceError> {
        let game = store::game(conn, seat.game_id)?.ok_or(ServiceError::NoGame(seat.game_id))?;
        let pos = Judge::position_in(conn, &game, None)?;
        let team = self.team(conn, &pos.rules, &pos.state, game.id, &seat.side)?;
        let Some(me) = team.iter().find(|m| m.seat.token == seat.token).cloned() else {
            return Ok(None);
        };
        Ok(Some((me, team, game, pos.rules, pos.state)))
    }

    /// Is this seat's side a team? (Its orders go through [`Teams::team_orders`].)
    pub(super) fn in_team(&self, conn: &Connection, seat: &Seat) -> Result<bool, ServiceError> {
        Ok(tstore::members(conn, seat.game_id)?
            .iter()
            .any(|m| m.side == seat.side))
    }

    /// A line for the welcome of a team member and his own order template.
    pub(super) fn team_welcome(
        &self,
        conn: &Connection,
        rules: &Rules,
        state: &State,
        seat: &Seat,
    ) -> Result<Option<(String, Option<String>)>, ServiceError> {
        let team = self.team(conn, rules, state, seat.game_id, &seat.side)?;
        let Some(me) = team.iter().find(|m| m.seat.token == seat.token) else {
            return Ok(None);
        };
        let mut note = format!(
            "You play in a team of {}: you are {}.\n",
            team.len(),
            me.title()
        );
        for m in team.iter().filter(|m| m.seat_no != me.seat_no) {
            note.push_str(&format!("  Team: {}.\n", m.title()));
        }
        note.push_str(if me.seat_no == 0 {
            "You play the card (PLAY); tactic cards of no particular section are yours\nalone. "
        } else {
            "Your Commander-in-Chief plays the card; PROPOSE the one you want.\n"
        });
        note.push_str(
            "Order the units of your own sections. TEAM <text> writes to your team\nonly, PRESS <text> to everyone. Send HELP for every command.\n",
        );
        let template = rules.member_template(state, &seat.side, &me.sections, me.seat_no == 0);
        Ok(Some((note, template)))
    }

    /// Every team member of a game beyond seat 0, for reports: (seat, his
    /// own order template if the family gives one).
    pub(super) fn team_recipients(
        &self,
        conn: &Connection,
        rules: &Rules,
        state: &State,
        game_id: i64,
    ) -> Result<Vec<(Seat, i64, Vec<String>)>, ServiceError> {
        let mut out = Vec::new();
        for side in rules.sides(state) {
            for m in self.team(conn, rules, state, game_id, &side)? {
                out.push((m.seat, m.seat_no, m.sections));
            }
        }
        Ok(out)
    }

    /// Team members beyond seat 0, for mails to every player.
    pub(super) fn extra_members(
        &self,
        conn: &Connection,
        game_id: i64,
    ) -> Result<Vec<Seat>, ServiceError> {
        Ok(tstore::members(conn, game_id)?
            .iter()
            .map(Member::seat)
            .collect())
    }

    /// Mail commands of team play (PROPOSE, TEAM, PRESS) and the ones a
    /// Field Marshal may not give (RESIGN, DRAW: the Commander-in-Chief's;
    /// WITHDRAW takes back his own part). Returns false for every other
    /// command, to be done as for any seat.
    pub(super) fn team_command(
        &self,
        tx: &Transaction<'_>,
        seat: &Seat,
        cmd: &Command,
        queue: &mut Queue,
    ) -> Result<Option<Result<String, String>>, ServiceError> {
        match cmd {
            Command::Propose(text) => self.propose(tx, seat, text, queue).map(Some),
            Command::Team(text) => self.team_message(tx, seat, text, queue).map(Some),
            Command::Press(text) => self.press(tx, seat, text, queue).map(Some),
            Command::Withdraw
            | Command::Resign
            | Command::Draw
            | Command::TimeZone(_)
            | Command::Picture(_)
            | Command::Absence(..)
            | Command::AbsenceEnd => {
                let Some((me, ..)) = self.member_of(tx, seat)? else {
                    return Ok(None);
                };
                if matches!(cmd, Command::Withdraw) {
                    let had =
                        tstore::clear_parts(tx, seat.game_id, Some((&seat.side, me.seat_no)))?;
                    return Ok(Some(Ok(if had {
                        format!(
                            "Your part of {}'s orders in game {} was withdrawn. Send it again\nbefore the turn resolves.\n",
                            seat.side, seat.game_id
                        )
                    } else {
                        format!("You have no orders held in game {}.\n", seat.game_id)
                    })));
                }
                if me.seat_no == 0 {
                    return Ok(None);
                }
                // A Field Marshal's own zone is his (issue 51 item 9).
                if let Command::TimeZone(z) = cmd {
                    if z.parse::<chrono_tz::Tz>().is_err() {
                        return Ok(Some(Err(format!(
                            "'{z}' is not a time zone name. Use a name from the IANA list, such as\nEurope/London, America/New_York or Australia/Sydney.\n"
                        ))));
                    }
                    tstore::set_member_tz(tx, seat.game_id, &seat.side, me.seat_no, z)?;
                    return Ok(Some(Ok(format!(
                        "Deadlines of game {} are now shown in {z}.\n",
                        seat.game_id
                    ))));
                }
                Ok(Some(Err(format!(
                    "In game {} only your Commander-in-Chief ({}) may RESIGN, offer a DRAW,\nor set the side's PICTURE and ABSENCE.\n",
                    seat.game_id,
                    store::seats(tx, seat.game_id)?
                        .into_iter()
                        .find(|s| s.side == seat.side)
                        .map(|s| s.email)
                        .unwrap_or_default()
                ))))
            }
            _ => Ok(None),
        }
    }

    fn log_message(
        &self,
        tx: &Transaction<'_>,
        game: &Game,
        kind: &str,
        seat: &Seat,
        seat_no: i64,
        text: &str,
    ) -> Result<(), ServiceError> {
        tstore::insert_message(
            tx,
            game.id,
            &Message {
                turn: i64::from(game.turn),
                kind: kind.into(),
                side: seat.side.clone(),
                seat_no,
                email: seat.email.clone(),
                text: text.to_string(),
                sent_at: self.now(),
            },
        )?;
        Ok(())
    }

    /// Queue `text` to every member of the team but `except`.
    fn to_team(
        &self,
        team: &[TeamMember],
        except: i64,
        game_id: i64,
        subject: &str,
        text: &str,
        queue: &mut Queue,
    ) {
        for m in team.iter().filter(|m| m.seat_no != except) {
            queue.push(
                Outgoing {
                    to: m.seat.email.clone(),
                    subject: subject.to_string(),
                    text: text.to_string(),
                    reply_to: Some(self.judge.seat_address(&m.seat)),
                    game_id: Some(game_id),
                    ..Outgoing::default()
                },
                "team",
            );
        }
    }

    fn propose(
        &self,
        tx: &Transaction<'_>,
        seat: &Seat,
        text: &str,
        queue: &mut Queue,
    ) -> Result<Result<String, String>, ServiceError> {
        let Some((me, team, game, rules, state)) = self.member_of(tx, seat)? else {
            return Ok(Err(format!(
                "PROPOSE is for team play: in game {} {} is one player, who PLAYs the card.\n",
                seat.game_id, seat.side
            )));
        };
        if game.status == "over" {
            return Ok(Err(format!("Game {} is over.\n", game.id)));
        }
        if !rules.phase(&state).sides.contains(&seat.side) {
            return Ok(Err(format!(
                "It is not {}'s turn in game {}, so there is no card to propose;\nwrite TEAM <text> to talk it over with your team.\n",
                seat.side, game.id
            )));
        }
        let play = format!("PLAY {text}");
        let ok = rules
            .order_scope(&state, &seat.side, &play)
            .ok()
            .is_some_and(|s| s.iter().filter(|l| l.card).count() == 1 && s.len() == 1);
        if !ok {
            return Ok(Err(format!(
                "\"PROPOSE {}\": PROPOSE takes a card of your hand (and the section\nwhere the card needs one), e.g. PROPOSE attack-left-flank # why\n",
                crate::protocol::quotable(text, 60)
            )));
        }
        if let Err(rej) = rules.check(&state, &seat.side, &play) {
            return Ok(Err(format!(
                "\"PROPOSE {}\" was not passed on: {}\n",
                crate::protocol::quotable(text, 60),
                rej.message
            )));
        }
        self.log_message(tx, &game, "proposal", seat, me.seat_no, text)?;
        let relay = format!(
            "Proposal from {}:\n  PLAY {}\n\nOnly your team sees this. The Commander-in-Chief's mail plays the card;\nif he sends none by the deadline, the team's first proposal is played.\n",
            me.title(),
            text
        );
        self.to_team(
            &team,
            me.seat_no,
            game.id,
            &format!("Game {}: a proposal from your team", game.id),
            &relay,
            queue,
        );
        Ok(Ok(format!(
            "Your proposal (PLAY {text}) went to your team in game {}.\n",
            game.id
        )))
    }

    fn team_message(
        &self,
        tx: &Transaction<'_>,
        seat: &Seat,
        text: &str,
        queue: &mut Queue,
    ) -> Result<Result<String, String>, ServiceError> {
        let Some((me, team, game, ..)) = self.member_of(tx, seat)? else {
            return Ok(Err(format!(
                "TEAM is for team play: in game {} {} is one player. PRESS <text>\nwrites to everyone in the game.\n",
                seat.game_id, seat.side
            )));
        };
        self.log_message(tx, &game, "team", seat, me.seat_no, text)?;
        let relay = format!(
            "From {} to your team only:\n\n  {}\n",
            me.title(),
            crate::report::wrap(text, 76, "  ").trim_end()
        );
        self.to_team(
            &team,
            me.seat_no,
            game.id,
            &format!("Game {}: a message from your team", game.id),
            &relay,
            queue,
        );
        Ok(Ok(format!(
            "Your message went to your team in game {} ({} other member(s)).\n",
            game.id,
            team.len() - 1
        )))
    }

    fn press(
        &self,
        tx: &Transaction<'_>,
        seat: &Seat,
        text: &str,
        queue: &mut Queue,
    ) -> Result<Result<String, String>, ServiceError> {
        let game = store::game(tx, seat.game_id)?.ok_or(ServiceError::NoGame(seat.game_id))?;
        let seat_no = self.member_of(tx, seat)?.map_or(0, |(m, ..)| m.seat_no);
        self.log_message(tx, &game, "press", seat, seat_no, text)?;
        let body = format!(
            "Press from {} ({}) to everyone in game {}:\n\n  {}\n",
            seat.side,
            seat.email,
            game.id,
            crate::report::wrap(text, 76, "  ").trim_end()
        );
        let mut n = 0;
        for r in self.judge.recipients().everyone_of_game(tx, game.id)? {
            let (to, reply_to) = (r.email, r.reply_to);
            if to.eq_ignore_ascii_case(&seat.email) {
                continue;
            }
            n += 1;
            queue.push(
                Outgoing {
                    to,
                    subject: format!("Game {}: press from {}", game.id, seat.side),
                    text: body.clone(),
                    reply_to,
                    game_id: Some(game.id),
                    ..Outgoing::default()
                },
                "press",
            );
        }
        Ok(Ok(format!(
            "Your press went to everyone in game {} ({n} address(es)).\n",
            game.id
        )))
    }

    /// A team member's part of his side's orders, inside `tx`: checked
    /// against his sections, held, and, once every member the card
    /// concerns has sent, merged and adjudicated. `Ok(Ok(receipt))`,
    /// or `Ok(Err(why))` with nothing of this mail kept.
    pub(super) fn team_orders(
        &self,
        tx: &Transaction<'_>,
        seat: &Seat,
        orders: &str,
        source: &str,
        queue: &mut Queue,
    ) -> Result<Option<Result<String, String>>, ServiceError> {
        // Orders the family cannot read as a team's (a campaign's
        // pre-battle choices) are the Commander-in-Chief's, by the
        // ordinary path.
        if let Some((me, _, _, rules, state)) = self.member_of(tx, seat)? {
            if me.seat_no == 0
                && rules.order_scope(&state, &seat.side, orders).is_err()
                && rules.check(&state, &seat.side, orders).is_ok()
            {
                return Ok(None);
            }
        }
        crate::store::savepoint(tx, "team_orders")?;
        let mut scratch = Queue::new();
        let r = self.team_orders_inner(tx, seat, orders, source, &mut scratch);
        if matches!(r, Ok(Ok(_))) {
            crate::store::release(tx, "team_orders")?;
            queue.mails.extend(scratch.mails);
        } else {
            crate::store::rollback_to(tx, "team_orders")?;
        }
        // Answers are read in mail clients: lines of at most 76 columns.
        r.map(|a| Some(a.map_err(|why| crate::report::wrap(&why, 74, "  ").trim_end().to_string())))
    }

    fn team_orders_inner(
        &self,
        tx: &Transaction<'_>,
        seat: &Seat,
        orders: &str,
        source: &str,
        queue: &mut Queue,
    ) -> Result<Result<String, String>, ServiceError> {
        let Some((me, team, game, rules, state)) = self.member_of(tx, seat)? else {
            return Ok(Err("your seat is not in a team".into()));
        };
        if let Some(why) = part_refused(&game, &rules, &state, seat) {
            return Ok(Err(why));
        }
        let scope = match rules.order_scope(&state, &seat.side, orders) {
            Ok(s) => s,
            Err(rej) => return Ok(Err(rej.to_string())),
        };
        let leader = me.seat_no == 0;
        let held = tstore::parts(tx, game.id, &seat.side)?;
        let card = card_in_force(&rules, &state, &seat.side, &scope, &held, leader);
        if let Some(why) = part_problem(&team, &me, leader, card.as_ref(), &scope) {
            return Ok(Err(why));
        }
        let cinc = team.first().map(TeamMember::title).unwrap_or_default();
        // A Commander-in-Chief's later part keeps the card he played
        // (written last: the merge puts card lines first).
        let stored = match (&card, leader && card_line(&scope).is_none()) {
            (Some(c), true) => format!("{}\n{}\n", orders.trim_end(), c.text),
            _ => orders.to_string(),
        };
        let replaced = tstore::put_part(
            tx,
            game.id,
            &seat.side,
            &Part {
                seat_no: me.seat_no,
                orders: stored,
                source: source.to_string(),
                received_at: self.now(),
            },
        )?;
        let echo = echo_block(&scope);
        let again = if replaced {
            " (they replace the part you sent before)"
        } else {
            ""
        };
        let Some(card) = card else {
            // The rest of the team is told of a part held before the card
            // too (docs/teams.md; issue 51 item 5).
            let note = format!(
                "Game {}: {} sent a part of {}'s orders before the card; it is held until\n{cinc} plays the card.\n\nThe part as read:\n{echo}",
                game.id,
                me.title(),
                seat.side
            );
            self.to_team(
                &team,
                me.seat_no,
                game.id,
                &format!("Game {}: your team's orders", game.id),
                &note,
                queue,
            );
            let text = format!(
                "Your part of {}'s orders for game {} was accepted{again} and is held until\n{cinc} plays the card.\n\nThe orders as read:\n{echo}",
                seat.side, game.id
            );
            return Ok(Ok(text));
        };
        let parts = tstore::parts(tx, game.id, &seat.side)?;
        let want = concerned(&team, &card);
        let missing: Vec<String> = team
            .iter()
            .filter(|m| want.contains(&m.seat_no) && !parts.iter().any(|p| p.seat_no == m.seat_no))
            .map(TeamMember::title)
            .collect();
        // Check the merge of what is held now.
        let merged = match self.merge_parts(&rules, &state, &seat.side, &parts, &want) {
            Ok(m) => m,
            Err((who, rej)) => return Ok(Err(merge_refusal(&team, &me, who, &rej))),
        };
        if !missing.is_empty() {
            let note = missing_note(&game, &me, &seat.side, &card, &missing);
            self.to_team(
                &team,
                me.seat_no,
                game.id,
                &format!("Game {}: your team's orders", game.id),
                &note,
                queue,
            );
            return Ok(Ok(format!(
                "Your part of {}'s orders for game {} was accepted{again}. They are held,\nunseen by the enemy, until every member the card ({}) concerns has sent:\nwaiting for {}.\n\nThe orders as read:\n{echo}",
                seat.side,
                game.id,
                card.text,
                missing.join("; ")
            )));
        }
        let sources: Vec<&str> = parts
            .iter()
            .filter(|p| want.contains(&p.seat_no))
            .map(|p| p.source.as_str())
            .collect();
        self.tell_left_out(&team, &parts, &want, &card, game.id, queue);
        let turn = self.judge.turns().resolve(
            tx,
            &game,
            &rules,
            state,
            vec![Submission {
                turn: 0,
                side: seat.side.clone(),
                orders: merged,
                source: format!("team:{}", sources.join(",")),
                received_at: self.now(),
            }],
            queue,
        );
        match turn {
            Ok(turn) => Ok(Ok(format!(
                "Your part of {}'s orders for game {} was accepted{again}; with your team's,\nturn {turn} is adjudicated and the report follows.\n\nThe orders as read:\n{echo}",
                seat.side, game.id
            ))),
            Err(ServiceError::Rejected(rej)) => Ok(Err(rej.to_string())),
            Err(e) => Err(e),
        }
    }

    /// Tell each member whose held part the card leaves out (it concerns
    /// none of his sections) that his part is not used: a part sent before
    /// the card was played is never dropped without a word.
    fn tell_left_out(
        &self,
        team: &[TeamMember],
        parts: &[Part],
        want: &[i64],
        card: &ScopedLine,
        game_id: i64,
        queue: &mut Queue,
    ) {
        for m in team
            .iter()
            .filter(|m| !want.contains(&m.seat_no) && parts.iter().any(|p| p.seat_no == m.seat_no))
        {
            queue.push(
                Outgoing {
                    to: m.seat.email.clone(),
                    subject: format!("Game {game_id}: your part was not used"),
                    text: format!(
                        "Game {game_id}: the card played for {} ({}) does not concern your\nsections ({}), so the part you sent before it was played is not used:\nyour units have no orders this turn.\n",
                        m.seat.side,
                        card.text,
                        m.sections.join(", ")
                    ),
                    reply_to: Some(self.judge.seat_address(&m.seat)),
                    game_id: Some(game_id),
                    ..Outgoing::default()
                },
                "team",
            );
        }
    }

    /// The side's orders from the held parts of the members in `want`,
    /// checked: the merged text, or whose line was refused and why.
    fn merge_parts(
        &self,
        rules: &Rules,
        state: &State,
        side: &str,
        parts: &[Part],
        want: &[i64],
    ) -> Result<String, (i64, Rejection)> {
        let mut scoped = Vec::new();
        for p in parts.iter().filter(|p| want.contains(&p.seat_no)) {
            let s = rules
                .order_scope(state, side, &p.orders)
                .map_err(|r| (p.seat_no, r))?;
            scoped.push((p.seat_no, s));
        }
        let (text, map) = merge(&scoped);
        match rules.check(state, side, &text) {
            Ok(_) => Ok(text),
            Err(rej) => {
                let (who, line) = rej
                    .line
                    .and_then(|l| map.get(l.wrapping_sub(1)).copied())
                    .unwrap_or((0, 0));
                let rej = if line > 0 {
                    Rejection::at(line, rej.text.as_deref().unwrap_or(""), rej.message)
                } else {
                    rej
                };
                Err((who, rej))
            }
        }
    }

    /// The card a team plays at the deadline and how it came: the
    /// Commander-in-Chief's, or the team's first proposal of this turn
    /// (then put as the card line of seat 0's part). None: nothing to play.
    fn deadline_card(
        &self,
        tx: &Transaction<'_>,
        game: &Game,
        rules: &Rules,
        state: &State,
        side: &str,
        parts: &mut Vec<Part>,
    ) -> Result<Option<(ScopedLine, String)>, ServiceError> {
        let leader_card = parts
            .iter()
            .find(|p| p.seat_no == 0)
            .and_then(|p| rules.order_scope(state, side, &p.orders).ok())
            .and_then(|s| card_line(&s).cloned());
        let Some(c) = leader_card else {
            let first = tstore::messages(tx, game.id)?.into_iter().find(|m| {
                m.kind == "proposal" && m.side == *side && m.turn == i64::from(game.turn)
            });
            let Some(first) = first else {
                return Ok(None);
            };
            let play = format!("PLAY {}", first.text);
            let Some(c) = rules
                .order_scope(state, side, &play)
                .ok()
                .and_then(|s| card_line(&s).cloned())
            else {
                return Ok(None);
            };
            // The proposal becomes the card line of seat 0's part.
            let lead = parts.iter().position(|p| p.seat_no == 0);
            let orders = match lead {
                Some(i) => format!("{play}\n{}", parts[i].orders),
                None => format!("{play}\n"),
            };
            let part = Part {
                seat_no: 0,
                orders,
                source: format!("proposal:{}", first.email),
                received_at: self.now(),
            };
            match lead {
                Some(i) => parts[i] = part,
                None => parts.insert(0, part),
            }
            return Ok(Some((
                c,
                format!("the team's first proposal (from {})", first.email),
            )));
        };
        Ok(Some((c, "the Commander-in-Chief's card".to_string())))
    }

    /// An IMMEDIATE transaction: it takes the write lock at once, so the
    /// daemon and a host's CLI never interleave a use case.
    fn begin(&self) -> Result<Transaction<'_>, ServiceError> {
        Ok(store::begin_immediate(self.conn)?)
    }

    fn now(&self) -> String {
        stamp(self.clock.now())
    }

    /// At the deadline: play what a team side has held (the
    /// Commander-in-Chief's card, or the team's first proposal of this
    /// turn, with the parts of the members it concerns that came; a
    /// missing member's units do nothing). Returns false when the team has
    /// nothing to play (the game's NMR policy applies as for one player).
    pub(super) fn team_at_deadline(&self, game: &Game) -> Result<bool, ServiceError> {
        let tx = self.begin()?;
        let pos = Judge::position_in(&tx, game, None)?;
        let phase = pos.rules.phase(&pos.state);
        let [side] = phase.sides.as_slice() else {
            return Ok(false);
        };
        let team = self.team(&tx, &pos.rules, &pos.state, game.id, side)?;
        if team.is_empty() {
            return Ok(false);
        }
        let mut parts = tstore::parts(&tx, game.id, side)?;
        let Some((card, how)) =
            self.deadline_card(&tx, game, &pos.rules, &pos.state, side, &mut parts)?
        else {
            return Ok(false);
        };
        let want = concerned(&team, &card);
        let mut q = Queue::new();
        self.tell_left_out(&team, &parts, &want, &card, game.id, &mut q);
        // Drop the parts that do not stand together, latest member first.
        let mut use_parts: Vec<Part> = parts
            .iter()
            .filter(|p| want.contains(&p.seat_no))
            .cloned()
            .collect();
        let mut dropped: Vec<String> = Vec::new();
        let merged = loop {
            match self.merge_parts(&pos.rules, &pos.state, side, &use_parts, &want) {
                Ok(m) => break Some(m),
                Err((who, rej)) => {
                    if who == 0 || use_parts.len() <= 1 {
                        tracing::warn!("game {}: the team's card does not stand: {rej}", game.id);
                        break None;
                    }
                    use_parts.retain(|p| p.seat_no != who);
                    dropped.push(format!("seat {who}: {rej}"));
                }
            }
        };
        let Some(merged) = merged else {
            return Ok(false);
        };
        let missing: Vec<String> = team
            .iter()
            .filter(|m| {
                want.contains(&m.seat_no) && !use_parts.iter().any(|p| p.seat_no == m.seat_no)
            })
            .map(TeamMember::title)
            .collect();
        let sources: Vec<&str> = use_parts.iter().map(|p| p.source.as_str()).collect();
        let state = pos.state;
        let turn = match self.judge.turns().resolve(
            &tx,
            game,
            &pos.rules,
            state,
            vec![Submission {
                turn: 0,
                side: side.clone(),
                orders: merged,
                source: format!("deadline:{}", sources.join(",")),
                received_at: self.now(),
            }],
            &mut q,
        ) {
            Ok(t) => t,
            Err(ServiceError::Rejected(rej)) => {
                tracing::warn!("game {}: the team's orders failed: {rej}", game.id);
                return Ok(false);
            }
            Err(e) => return Err(e),
        };
        let mut note = format!(
            "Game {}: the deadline passed. Turn {turn} was played with {how}, {},\nand the orders your team had sent.\n",
            game.id, card.text
        );
        if !missing.is_empty() {
            note.push_str(&format!(
                "No orders came from {}: those units did nothing.\n",
                missing.join("; ")
            ));
        }
        for d in &dropped {
            note.push_str(&format!(
                "Not played (it did not stand with the card): {d}\n"
            ));
        }
        self.to_team(
            &team,
            -1,
            game.id,
            &format!("Game {}: your team's turn at the deadline", game.id),
            &note,
            &mut q,
        );
        self.judge.outbox().flush(
            &tx,
            &format!("game-{}-turn-{}-team-deadline", game.id, game.turn),
            q,
        )?;
        crate::store::commit(tx)?;
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| (*x).to_string()).collect()
    }

    #[test]
    fn sections_by_team_size() {
        let secs = s(&["left", "centre", "right"]);
        assert_eq!(assign(&secs, 1).unwrap(), vec![secs.clone()]);
        assert_eq!(
            assign(&secs, 2).unwrap(),
            vec![s(&["centre"]), s(&["left", "right"])]
        );
        assert_eq!(
            assign(&secs, 3).unwrap(),
            vec![s(&["centre"]), s(&["left"]), s(&["right"])]
        );
        assert!(assign(&secs, 4).is_err());
        assert!(assign(&[], 2).is_err());
    }

    #[test]
    fn merge_puts_stages_in_order_and_maps_lines_back() {
        let l = |line: usize, text: &str, stage: u8| ScopedLine {
            line,
            text: text.into(),
            stage,
            ..ScopedLine::default()
        };
        let parts = vec![
            (
                0,
                vec![
                    l(1, "PLAY general-advance", 0),
                    l(2, "ORDER E3", 1),
                    l(3, "MOVE E3 E4", 2),
                ],
            ),
            (1, vec![l(4, "ORDER B3", 1), l(5, "BATTLE B3 B5", 3)]),
        ];
        let (text, map) = merge(&parts);
        assert_eq!(
            text,
            "PLAY general-advance\nORDER E3\nORDER B3\nMOVE E3 E4\nBATTLE B3 B5\n"
        );
        assert_eq!(map, vec![(0, 1), (0, 2), (1, 4), (0, 3), (1, 5)]);
    }
}
