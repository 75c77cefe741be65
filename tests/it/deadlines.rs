//! Deadlines with a set clock: a reminder 24 h before, the NMR policy at the
//! deadline, correct across a daylight-saving change, players in three zones.

use crate::common;
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
    let site = Site::new();
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
    let site = Site::new();
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
    let site = Site::new();
    start(&site, "pass");
    site.at("2026-10-24T00:00:00Z", &["pause", "1"]);
    site.at("2026-10-30T00:00:00Z", &["serve", "--once"]);
    assert_eq!(site.mails().len(), 3, "no reminder, no NMR while paused");
    site.at("2026-10-30T00:00:00Z", &["resume", "1"]);
    site.at("2026-11-01T23:59:00Z", &["serve", "--once"]);
    assert_eq!(
        site.mails().len(),
        4,
        "a reminder a day before the new deadline"
    );
}

#[test]
fn timezone_and_absence_by_mail() {
    let site = Site::new();
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
