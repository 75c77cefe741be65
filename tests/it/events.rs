//! Events typed end to end (issue 56 item 4; docs/architecture.md, "The
//! event envelope"): a stored event is read once, through its family, when
//! the turn is loaded; one the family can no longer read (a kind from a
//! newer build, a row a host edited) is kept and told as such in the
//! report, never dropped without a word or misread, and a private one stays
//! private.

use crate::common::{mail, reply_address, submit_random_turns, Site};

/// The plain-text part of alice's (the Allies') answer to `HISTORY 1`.
fn history_of_turn_one(site: &Site, n: u32) -> String {
    let alice = reply_address(site, "alice@example.org");
    site.drop_mail(
        &format!("history{n}.eml"),
        &mail(
            "alice@example.org",
            &alice,
            "Re: your game",
            &format!("history{n}@example.org"),
            "HISTORY 1\n",
        ),
    );
    site.ok(&["serve", "--once"]);
    let t = site
        .mails()
        .into_iter()
        .rev()
        .find(|t| t.contains("To: alice@example.org") && t.contains("turn 1"))
        .expect("an answer to alice");
    t.split("Content-Type: text/html")
        .next()
        .unwrap()
        .to_string()
}

/// The lines of a turn report's account of the turn (the family's combat
/// report, "... order by order:", or the event lines, "What happened:").
fn told(t: &str) -> Vec<String> {
    t.lines()
        .skip_while(|l| !l.ends_with("order by order:") && !l.starts_with("What happened:"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .map(str::to_string)
        .collect()
}

#[test]
fn an_event_its_family_cannot_read_is_told_as_unreadable_not_dropped() {
    let site = crate::common::svg_site();
    site.pegasus_bridge(&[]);
    assert_eq!(submit_random_turns(&site, 1, 11), 1);
    let before = history_of_turn_one(&site, 1);
    let db = site.db();
    let events: i64 = db
        .query_row(
            "SELECT count(*) FROM events WHERE game_id = 1 AND turn = 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(events > 0, "turn 1 has events");
    // A newer build's kind, and one private to the Axis: a host ran a newer
    // judge on this database, then went back.
    let next: i64 = db
        .query_row(
            "SELECT max(seq) + 1 FROM events WHERE game_id = 1 AND turn = 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    db.execute(
        "INSERT INTO events (game_id, turn, seq, event) VALUES (1, 1, ?1, ?2), (1, 1, ?3, ?4)",
        rusqlite::params![
            next,
            r#"{"kind":"zeppelin-raid","side":"allies","target":"E5"}"#,
            next + 1,
            r#"{"kind":"sealed-orders","side":"axis","private":true,"text":"attack at dawn"}"#,
        ],
    )
    .unwrap();
    drop(db);
    let after = history_of_turn_one(&site, 2);
    assert!(
        after.contains("(an event the judge cannot read: zeppelin-raid)"),
        "the Allies are told of the unreadable event: {after}"
    );
    assert!(
        !after.contains("sealed-orders") && !after.contains("attack at dawn"),
        "an unreadable event private to the Axis stays the Axis': {after}"
    );
    // Every event the family reads is still told, as before.
    let lines = told(&before);
    assert!(!lines.is_empty(), "turn 1 is told: {before}");
    for line in &lines {
        assert!(
            after.contains(line.as_str()),
            "{line:?} is still told: {after}"
        );
    }
    // The referee and the Axis see the Axis' private one, by its kind only.
    let axis = site.ok(&["show", "1", "--turn", "1", "--as", "axis"]);
    assert!(
        axis.contains("(an event the judge cannot read: sealed-orders)")
            && !axis.contains("attack at dawn"),
        "{axis}"
    );
    let referee = site.ok(&["show", "1", "--turn", "1"]);
    assert!(
        referee.contains("(an event the judge cannot read: zeppelin-raid)")
            && referee.contains("(an event the judge cannot read: sealed-orders)"),
        "{referee}"
    );
}
