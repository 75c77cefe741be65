//! The referee's desk by mail (issue 9): review mode holds each phase's
//! results for the referee; the referee corrects a unit (AMEND) and
//! releases them (APPROVE); the players get the amended results; `verify`
//! replays the correction and names a tampered one.

use crate::common;
use adjutant::rules::Load;
use common::{mail, reply_address, Site};

fn serve(site: &Site) {
    site.ok(&["serve", "--once"]);
}

fn latest_state_json(site: &Site) -> serde_json::Value {
    let text: String = site
        .db()
        .query_row(
            "SELECT state FROM snapshots WHERE game_id = 1 ORDER BY turn DESC LIMIT 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    serde_json::from_str(&text).unwrap()
}

fn pass_orders(site: &Site, side: &str) -> String {
    let rules = adjutant::rules::Rules::load("memoir44").unwrap();
    let state = rules.restore(&latest_state_json(site).to_string()).unwrap();
    rules
        .pass_orders(&state, side)
        .expect("a card to pass with")
}

#[test]
fn review_mode_amend_and_approve_by_mail_then_verify() {
    let site = crate::common::svg_site();
    site.pegasus_bridge(&["--referee", "ref@example.org", "--review", "24h"]);
    let welcome = site.mails();
    assert!(
        welcome
            .iter()
            .any(|m| m.contains("To: ref@example.org") && m.contains("you are the referee")),
        "the referee is welcomed with a seat of its own"
    );
    // Alice plays; the result goes to the referee only.
    let alice = reply_address(&site, "alice@example.org");
    site.drop_mail(
        "a1.eml",
        &mail(
            "alice@example.org",
            &alice,
            "Re: welcome",
            "a1@example.org",
            &pass_orders(&site, "allies"),
        ),
    );
    serve(&site);
    let after = site.mails();
    let reports_to = |who: &str, ms: &[String]| {
        ms.iter()
            .filter(|m| m.contains(&format!("To: {who}")) && m.contains("Subject: Game 1: turn"))
            .count()
    };
    assert_eq!(
        reports_to("alice@example.org", &after),
        0,
        "held: no report"
    );
    assert_eq!(reports_to("bob@example.org", &after), 0, "held: no report");
    let desk = after
        .iter()
        .find(|m| m.contains("To: ref@example.org") && m.contains("referee's copy"))
        .expect("the referee's report");
    assert!(desk.contains("HELD FOR YOUR REVIEW"), "{desk}");
    assert!(desk.contains("WHAT ALLIES SEES") && desk.contains("WHAT AXIS SEES"));

    // Bob may not move while the results are held.
    let bob = reply_address(&site, "bob@example.org");
    site.drop_mail(
        "b1.eml",
        &mail(
            "bob@example.org",
            &bob,
            "Re: welcome",
            "b1@example.org",
            &pass_orders(&site, "axis"),
        ),
    );
    serve(&site);
    assert!(site
        .mails()
        .iter()
        .any(|m| m.contains("To: bob@example.org") && m.contains("with the referee for review")));

    // The referee corrects one unit and releases the results in one mail.
    let state = latest_state_json(&site);
    let unit = &state["units"][0];
    let at = unit["at"].as_str().unwrap().to_string();
    let figures = unit["figures"].as_u64().unwrap();
    assert!(figures >= 2);
    let fix = format!("UNIT {at} FIGURES {}", figures - 1);
    let referee = reply_address(&site, "ref@example.org");
    site.drop_mail(
        "r1.eml",
        &mail(
            "ref@example.org",
            &referee,
            "Re: turn 1",
            "r1@example.org",
            &format!("AMEND {fix} BECAUSE the battle was rolled twice\nAPPROVE\n"),
        ),
    );
    serve(&site);
    let state = latest_state_json(&site);
    assert_eq!(state["units"][0]["figures"].as_u64(), Some(figures - 1));
    let all = site.mails();
    for who in ["alice@example.org", "bob@example.org"] {
        let report = all
            .iter()
            .rev()
            .find(|m| m.contains(&format!("To: {who}")) && m.contains("Subject: Game 1: turns 1-2"))
            .unwrap_or_else(|| panic!("{who} gets the released, amended results"));
        assert!(
            report.contains("The referee corrected the position"),
            "{report}"
        );
        assert!(report.contains("rolled twice"), "{report}");
    }

    // The export replays the correction; a tampered one is named.
    let ok = site.export_and_verify(&["--include-seed"]);
    let export = site.path().join("export.json");
    assert!(ok.contains("2 turns replayed identically"), "{ok}");
    let text = std::fs::read_to_string(&export).unwrap();
    let tampered = text.replace(
        &format!("FIGURES {}", figures - 1),
        &format!("FIGURES {}", figures.max(3) - 2),
    );
    assert_ne!(text, tampered);
    let bad = site.path().join("bad.json");
    std::fs::write(&bad, tampered).unwrap();
    let out = site.run(&["verify", bad.to_str().unwrap()]);
    assert!(!out.status.success());
    let said =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("turn 2"), "{said}");
}

#[test]
fn a_player_cannot_use_the_referee_commands() {
    let site = crate::common::svg_site();
    site.pegasus_bridge(&["--referee", "ref@example.org"]);
    let alice = reply_address(&site, "alice@example.org");
    site.drop_mail(
        "a1.eml",
        &mail(
            "alice@example.org",
            &alice,
            "Re: welcome",
            "a1@example.org",
            "AMEND UNIT E3 FIGURES 1 BECAUSE I say so\nREVEAL\n",
        ),
    );
    serve(&site);
    assert!(site
        .mails()
        .iter()
        .any(|m| m.contains("To: alice@example.org") && m.contains("Only a game's referee")));
    let turn: u32 = site
        .db()
        .query_row("SELECT turn FROM games WHERE id = 1", [], |r| r.get(0))
        .unwrap();
    assert_eq!(turn, 0, "nothing changed");
}

/// The state hash of game 1 after `turn`.
fn hash_after(site: &Site, turn: u32) -> String {
    site.db()
        .query_row(
            "SELECT state_hash FROM snapshots WHERE game_id = 1 AND turn = ?1",
            [turn],
            |r| r.get(0),
        )
        .unwrap()
}

/// The outcome the log gives the mail with Message-ID `id`.
fn outcome(site: &Site, id: &str) -> String {
    let log = site.ok(&["log"]);
    log.lines()
        .find(|l| l.contains(id))
        .unwrap_or_else(|| panic!("{id} not in the log:\n{log}"))
        .to_string()
}

/// The newest mail to `who`.
fn newest_to(site: &Site, who: &str) -> String {
    site.mails()
        .into_iter()
        .rev()
        .find(|m| m.contains(&format!("To: {who}")))
        .unwrap_or_else(|| panic!("no mail to {who}"))
}

/// Every answer a player can ask for, and the observer's mails, show
/// nothing of a turn held for review (not its position, whose hash every
/// view carries, nor its report) until APPROVE; then they show it.
#[test]
fn review_mode_holds_every_answer_until_approve() {
    let site = crate::common::svg_site();
    site.pegasus_bridge(&[
        "--referee",
        "ref@example.org",
        "--review",
        "24h",
        "--observer",
        "obs@example.org",
    ]);
    let alice = reply_address(&site, "alice@example.org");
    let bob = reply_address(&site, "bob@example.org");
    let ask = |who: &str, to: &str, id: &str, body: &str| {
        site.drop_mail(
            &format!("{id}.eml"),
            &mail(who, to, "ask", &format!("{id}@example.org"), body),
        );
        serve(&site);
    };
    ask(
        "alice@example.org",
        &alice,
        "a1",
        &pass_orders(&site, "allies"),
    );
    let (raw_before, raw_held) = (hash_after(&site, 0), hash_after(&site, 1));
    assert_ne!(raw_before, raw_held);
    // The mails' State line is the state's hash sealed with a key of the
    // game seed (issue 28): the position before is the welcome's line, the
    // held one the line of the referee's report of turn 1.
    let state_line = |m: &str| -> String {
        m.lines()
            .rev()
            .find_map(|l| l.strip_prefix("State "))
            .expect("a State line")
            .trim()
            .to_string()
    };
    let before = state_line(
        &site
            .mails()
            .into_iter()
            .find(|m| m.contains("To: alice@example.org"))
            .expect("the welcome"),
    );
    let held = state_line(&newest_to(&site, "ref@example.org"));
    assert_ne!(before, held);
    // Either form of the held position, raw or sealed.
    let holds = |m: &str| m.contains(&held) || m.contains(&raw_held);
    let to_players = |site: &Site| -> Vec<String> {
        site.mails()
            .into_iter()
            .filter(|m| !m.contains("To: ref@example.org"))
            .collect()
    };
    let mut asked = Vec::new();
    for (who, to) in [("alice@example.org", &alice), ("bob@example.org", &bob)] {
        for (n, body) in ["MAP\n", "HISTORY\n", "HISTORY 1\n", "STATUS\n"]
            .iter()
            .enumerate()
        {
            let id = format!("{}{n}", &who[..3]);
            ask(who, to, &id, body);
            let answer = newest_to(&site, who);
            asked.push((id, body, answer));
        }
    }
    for (id, body, answer) in &asked {
        match **body {
            "MAP\n" => {
                assert!(
                    answer.contains(&format!("State {before}")),
                    "{id}: {answer}"
                );
                assert!(answer.contains("with the referee for review"), "{answer}");
            }
            "HISTORY\n" => assert!(answer.contains("the opening position"), "{answer}"),
            "HISTORY 1\n" => {
                assert!(answer.contains("with the referee for review"), "{answer}");
                assert!(!answer.contains("Turn 1"), "{answer}");
            }
            _ => assert!(answer.contains("with the referee for review"), "{answer}"),
        }
    }
    // Not one mail to a player or the observer (answers, attachments with
    // the JSON view, copies) carries the held position.
    for m in to_players(&site) {
        assert!(!holds(&m), "a held position went out:\n{m}");
    }
    // The players' export and `show --as SIDE` stop before the held turn.
    let export = site.ok(&["export", "1"]);
    assert!(!holds(&export), "{export}");
    assert!(!export.contains("\"turn\": 1"), "{export}");
    let show = site.ok(&["show", "1", "--as", "axis"]);
    assert!(
        (show.contains(&before) || show.contains(&raw_before)) && !holds(&show),
        "{show}"
    );
    let json = site.ok(&["show", "1", "--as", "allies", "--format", "json"]);
    let refused = site.run(&["show", "1", "--as", "axis", "--turn", "1"]);
    assert!(!refused.status.success(), "{json}");
    assert!(String::from_utf8_lossy(&refused.stderr).contains("held for the referee's review"));
    // The referee sees it.
    assert!(holds(&site.ok(&["show", "1", "--as", "referee"])));
    assert!(holds(&site.ok(&["export", "1", "--referee"])));

    // APPROVE: every answer shows the turn.
    let referee = reply_address(&site, "ref@example.org");
    ask("ref@example.org", &referee, "r1", "APPROVE\n");
    assert!(outcome(&site, "r1@").contains("approve"));
    ask("bob@example.org", &bob, "b9", "MAP\n");
    assert!(newest_to(&site, "bob@example.org").contains(&format!("State {held}")));
    ask("bob@example.org", &bob, "b10", "HISTORY 1\n");
    let h = newest_to(&site, "bob@example.org");
    assert!(holds(&h) && !h.contains("with the referee"), "{h}");
    ask("bob@example.org", &bob, "b11", "STATUS\n");
    let s = newest_to(&site, "bob@example.org");
    assert!(
        !s.contains("with the referee") && s.contains("turn 1"),
        "{s}"
    );
    assert!(holds(&site.ok(&["export", "1"])));
    assert!(holds(&site.ok(&["show", "1", "--as", "axis"])));
    assert!(site
        .mails()
        .iter()
        .any(|m| m.contains("To: obs@example.org") && holds(m)));
}

/// The rotate-secret of the referee: the old token and secret are refused
/// by mail at once, the new ones (mailed to the referee) work; the same by
/// mail with ROTATE, answered only at the referee's address.
#[test]
fn the_referees_credentials_can_be_rotated() {
    let site = crate::common::svg_site();
    site.pegasus_bridge(&["--referee", "ref@example.org"]);
    let welcome = newest_to(&site, "ref@example.org");
    let secret_in = |m: &str, prefix: &str| {
        m.lines()
            .find_map(|l| l.strip_prefix(prefix))
            .unwrap_or_else(|| panic!("no {prefix} in {m}"))
            .trim()
            .to_string()
    };
    let old_secret = secret_in(&welcome, "Your secret: ");
    let old_token = reply_address(&site, "ref@example.org");
    site.ok(&["rotate-secret", "1", "referee"]);
    let rotated = newest_to(&site, "ref@example.org");
    assert!(rotated.contains("has a new secret"), "{rotated}");
    let new_secret = secret_in(&rotated, "Your new secret: ");
    let new_token = reply_address(&site, "ref@example.org");
    assert_ne!(old_secret, new_secret);
    assert_ne!(old_token, new_token);
    let ask = |to: &str, id: &str, body: &str| {
        site.drop_mail(
            &format!("{id}.eml"),
            &mail(
                "ref@example.org",
                to,
                "map",
                &format!("{id}@example.org"),
                body,
            ),
        );
        serve(&site);
        outcome(&site, &format!("{id}@"))
    };
    assert!(ask(&old_token, "t1", "MAP\n").contains("not authenticated"));
    let old = ask(
        "judge@localhost",
        "t2",
        &format!("GAME 1\nPASSWORD {old_secret}\nMAP\n"),
    );
    assert!(old.contains("not authenticated"), "{old}");
    assert!(ask(&new_token, "t3", "MAP\n").contains("referee: map"));
    let new = ask(
        "judge@localhost",
        "t4",
        &format!("GAME 1\nPASSWORD {new_secret}\nMAP\n"),
    );
    assert!(new.contains("referee: map"), "{new}");

    // ROTATE by mail, sent from another address with the token: the new
    // credentials go to the registered address only.
    site.drop_mail(
        "t5.eml",
        &mail(
            "thief@example.net",
            &new_token,
            "rotate",
            "t5@example.org",
            "ROTATE\n",
        ),
    );
    serve(&site);
    assert!(outcome(&site, "t5@").contains("referee: rotate"));
    assert!(site
        .mails()
        .iter()
        .all(|m| !m.contains("To: thief@example.net")));
    let third = site
        .mails()
        .into_iter()
        .rev()
        .find(|m| m.contains("To: ref@example.org") && m.contains("Your new secret: "))
        .map(|m| secret_in(&m, "Your new secret: "))
        .unwrap();
    assert_ne!(third, new_secret);
    assert!(ask(&new_token, "t6", "MAP\n").contains("not authenticated"));
    let now = ask(
        "judge@localhost",
        "t7",
        &format!("GAME 1\nPASSWORD {third}\nMAP\n"),
    );
    assert!(now.contains("referee: map"), "{now}");
}

/// STATUS never changes a secret: not with a valid PASSWORD in the same
/// mail, not from a forged From with no credential.
#[test]
fn status_leaves_the_players_secret_working() {
    let site = crate::common::svg_site();
    site.pegasus_bridge(&[]);
    let welcome = newest_to(&site, "bob@example.org");
    let secret = welcome
        .lines()
        .find_map(|l| l.strip_prefix("Your secret: "))
        .unwrap()
        .trim()
        .to_string();
    let send = |from: &str, id: &str, body: &str| {
        site.drop_mail(
            &format!("{id}.eml"),
            &mail(
                from,
                "judge@localhost",
                "status",
                &format!("{id}@example.org"),
                body,
            ),
        );
        serve(&site);
        outcome(&site, &format!("{id}@"))
    };
    let s1 = send(
        "bob@example.org",
        "u1",
        &format!("GAME 1\nPASSWORD {secret}\nSTATUS\n"),
    );
    assert!(s1.contains("status"), "{s1}");
    // Anyone can write From: bob@example.org.
    let s2 = send("bob@example.org", "u2", "STATUS\n");
    assert!(s2.contains("status"), "{s2}");
    let status = newest_to(&site, "bob@example.org");
    assert!(status.contains(&format!("PASSWORD {secret}")), "{status}");
    let map = send(
        "bob@example.org",
        "u3",
        &format!("GAME 1\nPASSWORD {secret}\nMAP\n"),
    );
    assert!(map.contains("answered: map"), "{map}");
}
