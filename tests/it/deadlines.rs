//! Deadlines with a set clock: a reminder 24 h before, the NMR policy at the
//! deadline, correct across a daylight-saving change, players in three zones.

use crate::common;
use adjutant::rules::Load;
use common::{reply_address, Site};

/// London leaves summer time on 25 Oct 2026, New York on 1 Nov; Sydney is in
/// summer time. A game starts Fri 23 Oct 12:00 UTC with 72 h turns: the
/// deadline is Mon 26 Oct 12:00 UTC, which is 71 wall-clock hours later in
/// London.
fn start(site: &Site, nmr: &str) {
    let scenario = site.scenario();
    site.at(
        "2026-10-23T12:00:00Z",
        &[
            "new-game",
            "--scenario",
            &scenario,
            "--seat",
            "allies=alice@example.org",
            "--seat",
            "axis=bob@example.org",
            "--deadline",
            "72h",
            "--nmr",
            nmr,
            "--tz",
            "allies=Europe/London",
            "--tz",
            "axis=America/New_York",
            "--tz",
            "referee=Australia/Sydney",
            "--referee",
            "ref@example.org",
            "--referee-after",
            "1",
        ],
    );
}

#[test]
fn reminder_a_day_before_and_nmr_at_the_deadline_across_dst() {
    let site = crate::common::svg_site();
    start(&site, "wait");
    let welcomes = site.mails();
    // Two seats and the referee's own seat.
    assert_eq!(welcomes.len(), 3);
    assert!(
        welcomes[2].contains("To: ref@example.org") && welcomes[2].contains("you are the referee")
    );
    assert!(
        welcomes[0].contains("Mon 26 Oct 2026 12:00 GMT (12:00 UTC)"),
        "{}",
        welcomes[0]
    );
    assert!(
        welcomes[1].contains("Mon 26 Oct 2026 08:00 EDT (12:00 UTC)"),
        "{}",
        welcomes[1]
    );

    site.at("2026-10-25T11:59:59Z", &["serve", "--once"]);
    assert_eq!(site.mails().len(), 3, "no reminder before 24 h");

    site.at("2026-10-25T12:00:00Z", &["serve", "--once"]);
    let m = site.mails();
    assert_eq!(m.len(), 4, "one reminder, to the side waited for");
    let reminder = &m[3];
    assert!(reminder.contains("To: alice@example.org"), "{reminder}");
    assert!(reminder.contains("Mon 26 Oct 2026 12:00 GMT"), "{reminder}");

    site.at("2026-10-25T18:00:00Z", &["serve", "--once"]);
    assert_eq!(site.mails().len(), 4, "a reminder is sent once");

    site.at("2026-10-26T11:59:59Z", &["serve", "--once"]);
    assert_eq!(site.mails().len(), 4, "nothing happens before the deadline");

    site.at("2026-10-26T12:00:00Z", &["serve", "--once"]);
    let m = site.mails();
    let nmr: Vec<&String> = m
        .iter()
        .filter(|t| t.contains("the deadline passed"))
        .collect();
    assert_eq!(nmr.len(), 1, "{m:#?}");
    assert!(nmr[0].contains("To: alice@example.org"));
    let referee: Vec<&String> = m
        .iter()
        .filter(|t| t.contains("To: ref@example.org") && !t.contains("you are the referee"))
        .collect();
    assert_eq!(referee.len(), 1);
    assert!(
        referee[0].contains("Mon 26 Oct 2026 23:00 AEDT (12:00 UTC)"),
        "{}",
        referee[0]
    );
    // Waiting: the turn did not move, and the next deadline is a turn away.
    let games = site.at("2026-10-26T12:00:00Z", &["games"]);
    assert!(
        games.lines().nth(1).unwrap().split_whitespace().nth(3) == Some("0"),
        "{games}"
    );
    site.at("2026-10-26T12:30:00Z", &["serve", "--once"]);
    assert_eq!(site.mails().len(), m.len(), "the NMR is handled once");
}

#[test]
fn nmr_pass_adjudicates_the_turn() {
    let site = crate::common::svg_site();
    start(&site, "pass");
    site.at("2026-10-26T12:00:00Z", &["serve", "--once"]);
    let games = site.at("2026-10-26T12:00:00Z", &["games"]);
    let turn = games
        .lines()
        .nth(1)
        .unwrap()
        .split_whitespace()
        .nth(3)
        .unwrap()
        .to_string();
    assert_eq!(turn, "1", "{games}");
    let db = site.db();
    let source: String = db
        .query_row("SELECT source FROM submissions", [], |r| r.get(0))
        .unwrap();
    assert_eq!(source, "nmr");
    // The referee gets the turn seen from above.
    let m = site.mails();
    let copy = m
        .iter()
        .find(|t| t.contains("To: ref@example.org") && t.contains("referee's copy"))
        .expect("a referee's copy");
    assert!(copy.contains("Game 1"), "{copy}");
}

#[test]
fn paused_games_do_not_time_out() {
    let site = crate::common::svg_site();
    start(&site, "pass");
    // The mails but the notices of the clock's changes (issue 38: everyone
    // is told of a pause and a resume).
    let mails = |site: &Site| {
        site.mails()
            .into_iter()
            .filter(|t| !t.contains("Subject: Game 1: the clock"))
            .count()
    };
    site.at("2026-10-24T00:00:00Z", &["pause", "1"]);
    site.at("2026-10-30T00:00:00Z", &["serve", "--once"]);
    assert_eq!(mails(&site), 3, "no reminder, no NMR while paused");
    site.at("2026-10-30T00:00:00Z", &["resume", "1"]);
    site.at("2026-11-01T23:59:00Z", &["serve", "--once"]);
    assert_eq!(mails(&site), 4, "a reminder a day before the new deadline");
    assert_eq!(site.mails().len(), 10, "three told of each change");
}

#[test]
fn timezone_and_absence_by_mail() {
    let site = crate::common::svg_site();
    start(&site, "wait");
    let alice = reply_address(&site, "alice@example.org");
    // Alice moves to Tokyo time, and will be away over the deadline.
    site.drop_mail(
        "tz.eml",
        &common::mail(
            "alice@example.org",
            &alice,
            "settings",
            "tz@example.org",
            "TIMEZONE Asia/Tokyo\nABSENCE 2026-10-25 2026-10-28\n",
        ),
    );
    site.at("2026-10-23T13:00:00Z", &["serve", "--once"]);
    let m = site.mails();
    let answers: Vec<&String> = m
        .iter()
        .filter(|t| t.contains("In-Reply-To: <tz@example.org>"))
        .collect();
    // One answer for both commands (issue 13: one answer per mail).
    assert_eq!(answers.len(), 1, "{m:#?}");
    assert!(answers[0].contains("shown in Asia/Tokyo"));
    // The absence runs to the end of 28 Oct in Tokyo: 2026-10-28T15:00Z.
    assert!(
        answers[0].contains("Thu 29 Oct 2026 00:00 JST"),
        "{}",
        answers[0]
    );
    let n = m.len();
    // At the game's deadline nothing happens: it falls inside the absence.
    site.at("2026-10-26T12:00:00Z", &["serve", "--once"]);
    assert!(site.mails()[n..]
        .iter()
        .all(|t| !t.contains("deadline passed")));
    // After the absence the deadline applies.
    site.at("2026-10-28T15:00:00Z", &["serve", "--once"]);
    assert!(site.mails()[n..]
        .iter()
        .any(|t| t.contains("To: alice@example.org") && t.contains("deadline passed")));
    // An absence longer than the game allows is refused.
    site.drop_mail(
        "long.eml",
        &common::mail(
            "alice@example.org",
            &alice,
            "away",
            "long@example.org",
            "ABSENCE 2026-11-01 2026-12-31\n",
        ),
    );
    site.at("2026-10-29T00:00:00Z", &["serve", "--once"]);
    assert!(site
        .mails()
        .iter()
        .any(|t| t.contains("In-Reply-To: <long@example.org>") && t.contains("at most 14 days")));
    common::assert_80_columns(&site);
}

// Issue 38: deadlines that never stall.

/// The stored deadline of game `id`.
fn deadline_of(site: &Site, id: i64) -> String {
    site.db()
        .query_row("SELECT deadline_at FROM games WHERE id = ?1", [id], |r| {
            r.get(0)
        })
        .unwrap()
}

/// The mails to `who` whose text holds `what`.
fn mails_to(site: &Site, who: &str, what: &str) -> Vec<String> {
    site.mails()
        .into_iter()
        .filter(|t| t.contains(&format!("To: {who}")) && t.contains(what))
        .collect()
}

/// One daemon pass at `now`; its log (warnings and errors).
fn serve_at(site: &Site, now: &str) -> String {
    let out = site
        .command(&["serve", "--once"])
        .env("ADJUTANT_NOW", now)
        .output()
        .unwrap();
    assert!(out.status.success(), "serve at {now} failed");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A second game of the same scenario, carol and dave, started at `at`.
fn second_game(site: &Site, at: &str, deadline: &str) {
    let scenario = site.scenario();
    site.at(
        at,
        &[
            "new-game",
            "--scenario",
            &scenario,
            "--seat",
            "allies=carol@example.org",
            "--seat",
            "axis=dave@example.org",
            "--deadline",
            deadline,
        ],
    );
}

/// Acceptance 1: an extension after the reminder gives a fresh reminder
/// for the new deadline and stops no other game's clock (it used to fail
/// every pass with `UNIQUE constraint failed: outbox.message_id`).
#[test]
fn an_extension_after_the_reminder_stops_no_clock() {
    let site = crate::common::svg_site();
    start(&site, "wait"); // deadline Mon 26 Oct 12:00 UTC
    second_game(&site, "2026-10-23T18:00:00Z", "72h"); // Mon 26 Oct 18:00 UTC
    serve_at(&site, "2026-10-25T12:00:00Z");
    assert_eq!(mails_to(&site, "alice@example.org", "are due by").len(), 1);
    site.at("2026-10-25T13:00:00Z", &["extend", "1", "24h"]);
    assert_eq!(deadline_of(&site, 1), "2026-10-27T12:00:00Z");
    // Everyone is told, by whom, the new deadline in their own zone.
    for (who, when) in [
        ("alice@example.org", "Tue 27 Oct 2026 12:00 GMT"),
        ("bob@example.org", "Tue 27 Oct 2026 08:00 EDT"),
        ("ref@example.org", "Tue 27 Oct 2026 23:00 AEDT"),
    ] {
        let told = mails_to(&site, who, "The host extended the deadline of game 1");
        assert_eq!(told.len(), 1, "{who}");
        assert!(told[0].contains(when), "{}", told[0]);
    }
    // The first game's new reminder window and the second game's deadline.
    let log = serve_at(&site, "2026-10-26T12:00:00Z");
    assert!(!log.contains("deadlines:"), "{log}");
    let reminders = mails_to(&site, "alice@example.org", "are due by");
    assert_eq!(reminders.len(), 2, "a fresh reminder for the new deadline");
    assert!(reminders[1].contains("Tue 27 Oct 2026 12:00 GMT"));
    let log = serve_at(&site, "2026-10-26T18:00:00Z");
    assert!(!log.contains("deadlines:"), "{log}");
    assert_eq!(
        mails_to(&site, "carol@example.org", "deadline passed").len(),
        1,
        "the other game's deadline is handled on time"
    );
    assert!(mails_to(&site, "alice@example.org", "deadline passed").is_empty());
    serve_at(&site, "2026-10-27T12:00:00Z");
    assert_eq!(
        mails_to(&site, "alice@example.org", "deadline passed").len(),
        1
    );
    common::assert_80_columns(&site);
}

/// A game the judge cannot read (a corrupted snapshot) is logged by number
/// and the healthy games around it keep their deadlines.
#[test]
fn a_broken_game_does_not_stop_the_others() {
    let site = crate::common::svg_site();
    start(&site, "wait");
    second_game(&site, "2026-10-23T12:00:00Z", "72h");
    let scenario = site.scenario();
    site.at(
        "2026-10-23T12:00:00Z",
        &[
            "new-game",
            "--scenario",
            &scenario,
            "--seat",
            "allies=erin@example.org",
            "--seat",
            "axis=frank@example.org",
            "--deadline",
            "72h",
        ],
    );
    site.db()
        .execute("UPDATE snapshots SET state = '{' WHERE game_id = 2", [])
        .unwrap();
    let log = serve_at(&site, "2026-10-26T12:00:00Z");
    assert!(log.contains("deadlines: game 2:"), "{log}");
    for who in ["alice@example.org", "erin@example.org"] {
        assert_eq!(mails_to(&site, who, "deadline passed").len(), 1, "{who}");
    }
    // Every pass names it again, and handles the others' next deadlines.
    let log = serve_at(&site, "2026-10-29T12:00:00Z");
    assert!(log.contains("deadlines: game 2:"), "{log}");
    for who in ["alice@example.org", "erin@example.org"] {
        assert_eq!(mails_to(&site, who, "deadline passed").len(), 2, "{who}");
    }
}

/// `adjutant submit` at `now`: `side` of game 1 sends its pass orders (the
/// first card its hand can play, ordering no unit).
fn submit_pass(site: &Site, now: &str, side: &str) {
    let orders = pass_orders(site, 1, side);
    let file = site.path().join("pass.txt");
    std::fs::write(&file, orders).unwrap();
    site.at(now, &["submit", "1", side, file.to_str().unwrap()]);
}

/// Acceptance 2: under `--nmr wait` a player who never answers misses a
/// deadline every turn length, is reminded before each, the referee is
/// told from the third miss in a row, and the game always has a deadline
/// to come. "In a row" starts again when the side moves.
#[test]
fn wait_keeps_going_for_ten_turn_lengths() {
    use chrono::{DateTime, Duration, Utc};
    let site = crate::common::svg_site();
    let scenario = site.scenario();
    site.at(
        "2026-10-23T12:00:00Z",
        &[
            "new-game",
            "--scenario",
            &scenario,
            "--seat",
            "allies=alice@example.org",
            "--seat",
            "axis=bob@example.org",
            "--deadline",
            "72h",
            "--nmr",
            "wait",
            "--referee",
            "ref@example.org",
            "--referee-after",
            "3",
        ],
    );
    let at = |s: &str| DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc);
    let stamp = |t: DateTime<Utc>| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    for k in 1..=10usize {
        let due = at(&deadline_of(&site, 1));
        serve_at(&site, &stamp(due - Duration::hours(24)));
        assert_eq!(
            mails_to(&site, "alice@example.org", "are due by").len(),
            k,
            "a reminder before deadline {k}"
        );
        serve_at(&site, &stamp(due));
        let missed = mails_to(&site, "alice@example.org", "deadline passed");
        assert_eq!(missed.len(), k, "a miss at deadline {k}");
        assert!(
            missed[k - 1].contains(&format!("Deadlines missed in a row: {k}.")),
            "{}",
            missed[k - 1]
        );
        let told = mails_to(&site, "ref@example.org", "deadlines in a row");
        assert_eq!(told.len(), k.saturating_sub(2), "referee after 3 misses");
        let next = at(&deadline_of(&site, 1));
        assert_eq!(next, due + Duration::hours(72), "one turn length on");
        // The same pass again changes nothing.
        serve_at(&site, &stamp(due + Duration::minutes(1)));
        assert_eq!(
            mails_to(&site, "alice@example.org", "deadline passed").len(),
            k
        );
    }
    // Alice moves at last; then Bob is silent, then Alice once more.
    let due = at(&deadline_of(&site, 1));
    submit_pass(&site, &stamp(due - Duration::hours(1)), "allies");
    let due = at(&deadline_of(&site, 1));
    serve_at(&site, &stamp(due));
    assert!(mails_to(&site, "bob@example.org", "deadline passed")[0]
        .contains("Deadlines missed in a row: 1."));
    submit_pass(&site, &stamp(due + Duration::hours(1)), "axis");
    let due = at(&deadline_of(&site, 1));
    serve_at(&site, &stamp(due));
    let missed = mails_to(&site, "alice@example.org", "deadline passed");
    assert_eq!(missed.len(), 11);
    assert!(
        missed[10].contains("Deadlines missed in a row: 1."),
        "moving in time starts the count again: {}",
        missed[10]
    );
}

/// `extend`, `pause`, `resume`: everyone told, a resume on a running game
/// refused, an extension made while paused kept by the resume, and a
/// reminder again after it.
#[test]
fn pause_resume_and_extend_are_told_and_keep_a_deadline() {
    let site = crate::common::svg_site();
    start(&site, "wait");
    serve_at(&site, "2026-10-25T12:00:00Z"); // the reminder
    let out = site
        .command(&["resume", "1"])
        .env("ADJUTANT_NOW", "2026-10-25T13:00:00Z")
        .output()
        .unwrap();
    assert!(!out.status.success(), "resume of a running game");
    assert!(String::from_utf8_lossy(&out.stderr).contains("not paused"));
    site.at("2026-10-25T13:00:00Z", &["pause", "1"]);
    for who in ["alice@example.org", "bob@example.org", "ref@example.org"] {
        assert_eq!(
            mails_to(&site, who, "The host paused the clock of game 1").len(),
            1,
            "{who}"
        );
    }
    site.at("2026-10-26T00:00:00Z", &["extend", "1", "48h"]);
    site.at("2026-11-02T12:00:00Z", &["resume", "1"]);
    // A full turn (72 h) and the 48 h given while paused.
    assert_eq!(deadline_of(&site, 1), "2026-11-07T12:00:00Z");
    let told = mails_to(
        &site,
        "bob@example.org",
        "The host resumed the clock of game 1",
    );
    assert_eq!(told.len(), 1);
    assert!(told[0].contains("Sat 07 Nov 2026 07:00 EST"), "{}", told[0]);
    serve_at(&site, "2026-11-06T12:00:00Z");
    assert_eq!(
        mails_to(&site, "alice@example.org", "are due by").len(),
        2,
        "a reminder again after the resume"
    );
}

/// The pass orders of `side` in game `id`'s current position, as the
/// game's rules give them.
fn pass_orders(site: &Site, id: i64, side: &str) -> String {
    use adjutant::rules::Rules;
    let (ruleset, text): (String, String) = site
        .db()
        .query_row(
            "SELECT g.ruleset, s.state FROM games g JOIN snapshots s ON s.game_id = g.id
             WHERE g.id = ?1 ORDER BY s.turn DESC LIMIT 1",
            [id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    let rules = Rules::load(&ruleset).unwrap();
    let st = rules.restore(&text).unwrap();
    rules.pass_orders(&st, side).expect("pass orders")
}

/// A mail from `who` to its seat's reply address, at `now`; the answer.
fn mail_at(site: &Site, now: &str, who: &str, id: &str, body: &str) -> String {
    let to = reply_address(site, who);
    site.drop_mail(
        &format!("{id}.eml"),
        &common::mail(who, &to, "orders", &format!("{id}@example.org"), body),
    );
    serve_at(site, now);
    let answer = site
        .mails()
        .into_iter()
        .rev()
        .find(|t| t.contains(&format!("In-Reply-To: <{id}@example.org>")))
        .unwrap_or_else(|| panic!("no answer to {id}"));
    answer.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The ABSENCE limit counts whole days between the dates, in the player's
/// zone: the docs' example is 14 days; a clock change inside changes
/// nothing; an absence wholly past is refused; ABSENCE END ends one.
#[test]
fn absence_days_are_dates_in_the_players_zone() {
    let site = crate::common::svg_site();
    start(&site, "wait");
    let now = "2026-10-23T13:00:00Z";
    let a = mail_at(
        &site,
        now,
        "alice@example.org",
        "docs",
        "ABSENCE 2026-12-20 2027-01-03\n",
    );
    assert!(a.contains("Noted: you are away"), "{a}");
    // London leaves summer time on 25 Oct and enters it on 28 Mar.
    for (i, dates) in ["2026-10-20 2026-11-03", "2027-03-20 2027-04-03"]
        .iter()
        .enumerate()
    {
        let a = mail_at(
            &site,
            now,
            "alice@example.org",
            &format!("dst{i}"),
            &format!("ABSENCE {dates}\n"),
        );
        assert!(a.contains("Noted: you are away"), "{dates}: {a}");
    }
    let a = mail_at(
        &site,
        now,
        "alice@example.org",
        "long",
        "ABSENCE 2026-10-20 2026-11-04\n",
    );
    assert!(a.contains("at most 14 days (this one is 15)"), "{a}");
    let a = mail_at(
        &site,
        now,
        "alice@example.org",
        "past",
        "ABSENCE 2026-10-01 2026-10-10\n",
    );
    assert!(a.contains("over already"), "{a}");
    let a = mail_at(&site, now, "alice@example.org", "end", "ABSENCE END\n");
    assert!(a.contains("you are back"), "{a}");
    let until: Option<String> = site
        .db()
        .query_row(
            "SELECT absent_until FROM seats WHERE side = 'allies'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(until, None);
    let a = mail_at(&site, now, "alice@example.org", "end2", "ABSENCE END\n");
    assert!(a.contains("no absence recorded"), "{a}");
}

/// A Memoir of Battle game: alice the British, bob the Germans, 72 h turns
/// from Fri 23 Oct 12:00 UTC. Turn 1 is the simultaneous artillery phase.
fn grid_game(site: &Site, nmr: &str) {
    site.at(
        "2026-10-23T12:00:00Z",
        &[
            "new-game",
            "--scenario",
            "le-cateau-1914",
            "--seat",
            "british=alice@example.org",
            "--seat",
            "german=bob@example.org",
            "--deadline",
            "72h",
            "--nmr",
            nmr,
        ],
    );
}

/// (turn, sides waited for) of game 1, from `adjutant games` and the db.
fn game_turn(site: &Site) -> i64 {
    site.db()
        .query_row("SELECT turn FROM games WHERE id = 1", [], |r| r.get(0))
        .unwrap()
}

/// Acceptance 3: a late artillery-phase mail is refused with the reason and
/// not applied to the move phase; one without the TURN line that comes
/// when it is not the side's turn is told of the deadline.
#[test]
fn a_late_artillery_mail_is_refused_not_applied_to_the_move() {
    let site = crate::common::svg_site();
    grid_game(&site, "pass");
    let welcome = mails_to(&site, "bob@example.org", "Welcome to game 1");
    assert!(welcome[0].contains("TURN 1 "), "{}", welcome[0]);
    let a = mail_at(
        &site,
        "2026-10-24T12:00:00Z",
        "alice@example.org",
        "brit",
        "TURN 1\nINITIATIVE FIRST\nPASS\n",
    );
    assert!(a.contains("held"), "{a}");
    serve_at(&site, "2026-10-26T12:00:00Z");
    let turn = game_turn(&site);
    assert!(turn >= 1, "the deadline resolved the artillery phase");
    let subs = |site: &Site| -> i64 {
        site.db()
            .query_row(
                "SELECT count(*) FROM submissions WHERE side = 'german' AND source != 'nmr'",
                [],
                |r| r.get(0),
            )
            .unwrap()
    };
    let a = mail_at(
        &site,
        "2026-10-26T12:00:30Z",
        "bob@example.org",
        "late",
        "TURN 1\nINITIATIVE FIRST\nPASS\n",
    );
    assert!(
        a.contains("the artillery phase of turn 1 was resolved at the deadline (Mon 26 Oct 2026 12:00 UTC), with PASS for your side"),
        "{a}"
    );
    assert!(a.contains("were not applied to turn"), "{a}");
    assert_eq!(game_turn(&site), turn, "nothing was applied");
    assert_eq!(subs(&site), 0);
    // The same mail without the line: refused as before if the move is
    // not the Germans', now with the word of the deadline.
    let waiting: String = site.ok(&["games"]);
    let a = mail_at(
        &site,
        "2026-10-26T12:01:00Z",
        "bob@example.org",
        "late2",
        "INITIATIVE FIRST\nPASS\n",
    );
    if a.contains("it is not german's turn") {
        assert!(a.contains("was resolved at the deadline"), "{a}");
    } else {
        eprintln!("the Germans move first in turn 2: {waiting}");
    }
}

/// One side's absence moves only its own deadline in the simultaneous
/// artillery phase: the other side is reminded and its deadline handled
/// on time; the absent side's come at the end of its absence.
#[test]
fn one_sides_absence_moves_only_its_deadline() {
    let site = crate::common::svg_site();
    grid_game(&site, "pass");
    let a = mail_at(
        &site,
        "2026-10-23T13:00:00Z",
        "bob@example.org",
        "away",
        "ABSENCE 2026-10-25 2026-10-30\n",
    );
    assert!(a.contains("Noted: you are away"), "{a}");
    serve_at(&site, "2026-10-25T12:00:00Z");
    assert_eq!(mails_to(&site, "alice@example.org", "are due by").len(), 1);
    assert!(mails_to(&site, "bob@example.org", "are due by").is_empty());
    serve_at(&site, "2026-10-26T12:00:00Z");
    assert_eq!(
        mails_to(&site, "alice@example.org", "deadline passed").len(),
        1
    );
    assert!(mails_to(&site, "bob@example.org", "deadline passed").is_empty());
    assert_eq!(game_turn(&site), 0, "the phase waits for the Germans");
    serve_at(&site, "2026-10-30T00:00:00Z");
    let r = mails_to(&site, "bob@example.org", "are due by");
    assert_eq!(r.len(), 1);
    assert!(r[0].contains("Sat 31 Oct 2026 00:00 UTC"), "{}", r[0]);
    serve_at(&site, "2026-10-31T00:00:00Z");
    assert_eq!(
        mails_to(&site, "bob@example.org", "deadline passed").len(),
        1
    );
    assert!(game_turn(&site) >= 1, "both passes resolve the phase");
    assert_eq!(
        mails_to(&site, "alice@example.org", "deadline passed").len(),
        1,
        "alice's deadline was handled once"
    );
}

mod property {
    //! The deadline property test (issue 38): random games of two families
    //! (Memoir '44 and the grid game, whose artillery phase waits for both
    //! sides), with random turn lengths, policies, grace, zones, and random
    //! orders (in time, late, for a turn already resolved), extensions,
    //! pauses, resumes and absences, stepped through months of the judge's
    //! clock. After every pass: no error; every running game has a deadline
    //! to come or is paused; no missed deadline is left unhandled; and at
    //! the end every reminder and missed deadline was handled (and mailed)
    //! exactly once.

    use super::common;
    use adjutant::config::Config;
    use adjutant::engine::dice::{ChaChaDice, Dice};
    use adjutant::service::clock::{stamp, FixedClock};
    use adjutant::service::deadlines::{effective, ClockBy};
    use adjutant::service::{GameOptions, Judge, ServiceError};
    use adjutant::store;
    use chrono::{DateTime, Duration, Utc};

    const ZONES: [&str; 4] = [
        "Europe/London",
        "America/New_York",
        "Australia/Sydney",
        "UTC",
    ];

    /// One seat as the test drives it: game, side, address, reply address.
    struct Player {
        game: i64,
        side: String,
        email: String,
        to: String,
    }

    struct World {
        j: Judge,
        rng: ChaChaDice,
        now: DateTime<Utc>,
        players: Vec<Player>,
        mails: usize,
        refused_old_turn: usize,
    }

    fn parse(t: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(t).unwrap().with_timezone(&Utc)
    }

    impl World {
        fn roll(&mut self, n: u32) -> u32 {
            self.rng.roll(n)
        }

        fn new_games(&mut self, n: usize) {
            for g in 0..n {
                let (scenario, sides) = if self.roll(2) == 1 {
                    ("le-cateau-1914", ["british", "german"])
                } else {
                    ("pegasus-bridge", ["allies", "axis"])
                };
                let seats = sides.map(|s| (s.to_string(), format!("{s}{g}@example.org")));
                let zone = |w: &mut World| ZONES[w.roll(4) as usize - 1].to_string();
                let opts = GameOptions {
                    deadline_secs: Some(i64::from(self.roll(4)) * 24 * 3600),
                    nmr_policy: if self.roll(2) == 1 { "wait" } else { "pass" }.into(),
                    grace_secs: if self.roll(3) == 1 { 6 * 3600 } else { 0 },
                    referee: Some(format!("ref{g}@example.org")),
                    referee_after: i64::from(self.roll(3)),
                    zones: vec![
                        (sides[0].into(), zone(self)),
                        (sides[1].into(), zone(self)),
                        ("referee".into(), zone(self)),
                    ],
                    ..GameOptions::default()
                };
                let id = self.j.turns().new_game(scenario, &seats, &opts).unwrap();
                for (side, email) in seats {
                    let to = self.reply_address(id, &email);
                    self.players.push(Player {
                        game: id,
                        side,
                        email,
                        to,
                    });
                }
            }
        }

        /// The reply address of a seat's welcome mail.
        fn reply_address(&self, game: i64, email: &str) -> String {
            let id: i64 = self
                .j
                .conn
                .query_row(
                    "SELECT id FROM outbox WHERE game_id = ?1 AND recipient = ?2 AND kind = 'welcome'",
                    rusqlite::params![game, email],
                    |r| r.get(0),
                )
                .unwrap();
            let raw = self.j.outbox_mail(id).unwrap().unwrap();
            let text = String::from_utf8_lossy(&raw);
            let line = text
                .lines()
                .find(|l| l.starts_with("Reply-To: "))
                .expect("a Reply-To");
            line.rsplit('<')
                .next()
                .unwrap()
                .trim_end_matches('>')
                .to_string()
        }

        fn game(&self, id: i64) -> store::Game {
            store::game(&self.j.conn, id).unwrap().unwrap()
        }

        fn mail(&mut self, p: usize, body: &str) {
            self.mails += 1;
            let (from, to) = (self.players[p].email.clone(), self.players[p].to.clone());
            let raw = common::mail(
                &from,
                &to,
                "orders",
                &format!("m{}@example.org", self.mails),
                body,
            );
            self.j.inbound().handle_mail(&raw, "test").unwrap();
        }

        /// A player's pass orders for the current phase, by mail: with the
        /// right TURN line, with none, or with an old one (refused).
        fn orders(&mut self, p: usize) {
            let game = self.game(self.players[p].game);
            if game.status != "active" {
                return;
            }
            let pos = self.j.position(&game, None).unwrap();
            let Some(orders) = pos.rules.pass_orders(&pos.state, &self.players[p].side) else {
                return;
            };
            match self.roll(4) {
                1 if game.turn > 0 => {
                    let old = game.turn - self.roll(game.turn.min(3)) + 1;
                    // (The answer itself may be held back by the caps on
                    // error answers; the orders must not be applied.)
                    self.mail(p, &format!("TURN {old}\n{orders}"));
                    let after = self.game(game.id);
                    assert_eq!(after.turn, game.turn, "orders for turn {old} applied");
                    self.refused_old_turn += 1;
                }
                2 => {
                    self.mail(p, &orders);
                }
                _ => {
                    self.mail(p, &format!("TURN {}\n{orders}", game.turn + 1));
                }
            }
        }

        fn clock(&mut self, p: usize) {
            let id = self.players[p].game;
            let game = self.game(id);
            let r = match self.roll(3) {
                1 => {
                    let secs = i64::from(self.roll(48)) * 3600;
                    self.j
                        .deadlines()
                        .extend(id, secs, ClockBy::Host)
                        .map(|_| ())
                }
                _ => self
                    .j
                    .deadlines()
                    .set_paused(id, !game.paused, ClockBy::Host)
                    .map(|_| ()),
            };
            match r {
                Ok(()) => assert_eq!(game.status, "active"),
                Err(ServiceError::Invalid(why)) => {
                    assert!(game.status != "active", "game {id}: {why}")
                }
                Err(e) => panic!("game {id}: {e}"),
            }
            // A resume of a running game is refused.
            let game = self.game(id);
            if game.status == "active" && !game.paused {
                assert!(self
                    .j
                    .deadlines()
                    .set_paused(id, false, ClockBy::Host)
                    .is_err());
            }
        }

        fn absence(&mut self, p: usize) {
            if self.roll(3) == 1 {
                self.mail(p, "ABSENCE END\n");
                return;
            }
            let start = self.now + Duration::days(i64::from(self.roll(12)) - 3);
            let end = start + Duration::days(i64::from(self.roll(17)) - 1);
            let body = format!(
                "ABSENCE {} {}\n",
                start.format("%Y-%m-%d"),
                end.format("%Y-%m-%d")
            );
            self.mail(p, &body);
        }

        /// After a pass at `now`: every running game has a deadline to come
        /// or is paused, and no seat it waits for is overdue unhandled.
        fn check(&self, id: i64) {
            let g = self.game(id);
            if g.status != "active" || g.paused {
                return;
            }
            let deadline = parse(g.deadline_at.as_deref().expect("a deadline"));
            let pos = self.j.position(&g, None).unwrap();
            let phase = pos.rules.phase(&pos.state);
            let held = store::pending(&self.j.conn, id).unwrap();
            let waited: Vec<store::Seat> = store::seats(&self.j.conn, id)
                .unwrap()
                .into_iter()
                .filter(|s| phase.sides.contains(&s.side))
                .filter(|s| !held.iter().any(|h| h.side == s.side))
                .collect();
            let grace = Duration::seconds(g.grace_secs);
            for s in &waited {
                let due = effective(deadline, s);
                if due + grace <= self.now {
                    let handled = store::deadline_marked(
                        &self.j.conn,
                        id,
                        &s.side,
                        "miss",
                        i64::from(g.turn),
                        &stamp(due),
                    )
                    .unwrap();
                    assert!(
                        handled,
                        "game {id}: {}'s deadline {due} not handled",
                        s.side
                    );
                }
            }
            assert!(
                deadline > self.now
                    || waited
                        .iter()
                        .any(|s| effective(deadline, s) + grace > self.now),
                "game {id} has no deadline to come at {} (deadline {deadline})",
                self.now
            );
        }

        /// Each reminder and each missed deadline was mailed once.
        fn check_counts(&self) {
            let count =
                |sql: &str| -> i64 { self.j.conn.query_row(sql, [], |r| r.get(0)).unwrap() };
            assert_eq!(
                count("SELECT count(*) FROM outbox WHERE kind = 'nmr'"),
                count("SELECT count(*) FROM deadline_marks WHERE kind = 'miss'")
            );
            assert_eq!(
                count("SELECT count(*) FROM outbox WHERE kind = 'reminder'"),
                count("SELECT count(*) FROM deadline_marks WHERE kind = 'reminder'")
            );
        }
    }

    /// One run: `games` games for `days` days of the judge's clock, passes
    /// from a minute to 12 hours apart. Returns (passes, misses handled).
    fn run(seed: u8, games: usize, days: i64) -> (usize, i64) {
        let site = crate::common::svg_site();
        let cfg = Config::load(&site.config()).unwrap();
        let t0 = parse("2026-10-01T09:00:00Z");
        let mut w = World {
            j: Judge::open(cfg, Box::new(FixedClock(t0))).unwrap(),
            rng: ChaChaDice::from_seed([seed; 32]),
            now: t0,
            players: Vec::new(),
            mails: 0,
            refused_old_turn: 0,
        };
        w.new_games(games);
        let end = t0 + Duration::days(days);
        let mut passes = 0;
        while w.now < end {
            let step = Duration::minutes(i64::from(w.roll(12 * 60)));
            w.now += step;
            w.j.clock = Box::new(FixedClock(w.now));
            for p in 0..w.players.len() {
                match w.roll(60) {
                    1..=5 => w.orders(p),
                    6 => w.clock(p),
                    7 => w.absence(p),
                    _ => {}
                }
            }
            let tick = w.j.deadlines().tick().unwrap();
            assert_eq!(tick.failed, 0, "a game failed its pass at {}", w.now);
            passes += 1;
            let ids: Vec<i64> = w.players.iter().map(|p| p.game).collect();
            for id in ids {
                w.check(id);
            }
        }
        w.check_counts();
        let misses =
            w.j.conn
                .query_row(
                    "SELECT count(*) FROM deadline_marks WHERE kind = 'miss'",
                    [],
                    |r| r.get(0),
                )
                .unwrap();
        (passes, misses)
    }

    /// Quick: 2 runs of 3 games for 60 days (about 245 passes a run; 5 s
    /// in debug on a loaded 2-core machine). Deep (ADJUTANT_DEEP=1): 6 runs
    /// of 6 games for 180 days (about 710 passes a run; 75 s). Taking out
    /// the deadline's move on after a miss makes both fail.
    #[test]
    fn deadlines_never_stall() {
        let (runs, games, days) = if crate::common::depth::deep() {
            (6, 6, 180)
        } else {
            (2, 3, 60)
        };
        for seed in 1..=runs {
            let (passes, misses) = run(seed, games, days);
            eprintln!("run {seed}: {passes} passes, {misses} missed deadlines handled");
            assert!(misses > 0, "the runs miss deadlines");
        }
    }
}

/// The notices of the very missed deadline that ended a game come before
/// its last report (the one that says the game is over), never after it
/// (issue 39, "smaller points"). A one-turn Le Cateau played by NMR passes
/// alone: the last pass ends it.
#[test]
fn the_notices_of_the_deadline_that_ends_a_game_come_first() {
    let site = crate::common::svg_site();
    let file = site.path().join("short.toml");
    let shipped = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scenarios/memoir-of-battle/le-cateau-1914.toml"
    );
    let text = std::fs::read_to_string(shipped).unwrap();
    std::fs::write(&file, text.replacen("turns = 10", "turns = 1", 1)).unwrap();
    site.at(
        "2026-10-23T12:00:00Z",
        &[
            "new-game",
            "--scenario",
            file.to_str().unwrap(),
            "--seat",
            "british=alice@example.org",
            "--seat",
            "german=bob@example.org",
            "--deadline",
            "72h",
            "--nmr",
            "pass",
            "--referee",
            "ref@example.org",
            "--referee-after",
            "1",
        ],
    );
    let mut at = chrono::DateTime::parse_from_rfc3339("2026-10-23T12:00:00Z").unwrap();
    let mut before = 0;
    for _ in 0..10 {
        if site
            .db()
            .query_row("SELECT status FROM games WHERE id = 1", [], |r| {
                r.get::<_, String>(0)
            })
            .unwrap()
            == "over"
        {
            break;
        }
        before = site.mails().len();
        at += chrono::Duration::hours(73);
        serve_at(&site, &at.to_rfc3339());
    }
    let last: Vec<String> = site.mails()[before..].to_vec();
    // What a failure shows: each mail's addressee and subject.
    let heads = |ms: &[&String]| -> Vec<String> {
        ms.iter()
            .map(|m| {
                m.lines()
                    .filter(|l| l.starts_with("To: ") || l.starts_with("Subject: "))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect()
    };
    assert!(
        last.iter().any(|m| m.contains("The game is over")),
        "the last pass ends the game: {:#?}",
        heads(&last.iter().collect::<Vec<_>>())
    );
    let notice =
        |m: &str| m.contains("deadline passed without") || m.contains("deadlines in a row");
    assert!(
        last.iter().filter(|m| notice(m)).count() >= 2,
        "the side that missed and the referee are told: {:#?}",
        heads(&last.iter().collect::<Vec<_>>())
    );
    let notice =
        |m: &str| m.contains("deadline passed without") || m.contains("deadlines in a row");
    assert!(
        last.iter().filter(|m| notice(m)).count() >= 2,
        "the side that missed and the referee are told: {:#?}",
        heads(&last.iter().collect::<Vec<_>>())
    );
    for who in ["alice@example.org", "bob@example.org", "ref@example.org"] {
        let mine: Vec<&String> = last
            .iter()
            .filter(|m| m.contains(&format!("To: {who}")))
            .collect();
        let over = mine
            .iter()
            .position(|m| m.contains("The game is over"))
            .unwrap_or_else(|| panic!("{who} is told the game is over: {:#?}", heads(&mine)));
        let notices: Vec<usize> = mine
            .iter()
            .enumerate()
            .filter(|(_, m)| notice(m))
            .map(|(i, _)| i)
            .collect();
        assert!(
            notices.iter().all(|i| *i < over),
            "{who}: a notice of the deadline after the game-over report: {:#?}",
            heads(&mine)
        );
    }
}
