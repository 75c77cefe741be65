//! Authentication and mail loops, against the real binary.

use crate::common;
use adjutant::rules::Load;
use common::{mail, reply_address, Site};

fn submissions(site: &Site) -> i64 {
    site.db()
        .query_row("SELECT count(*) FROM submissions", [], |r| r.get(0))
        .unwrap()
}

#[test]
fn a_forged_from_changes_nothing_and_tells_the_forger_nothing() {
    let site = crate::common::svg_site();
    site.pegasus_bridge(&[]);
    let before = site.mails().len();
    let state_before: String = site
        .db()
        .query_row(
            "SELECT state FROM snapshots ORDER BY turn DESC LIMIT 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    // Mallory writes as Alice, with her own Reply-To, without token or secret.
    let forged = "From: Alice <alice@example.org>\r\nReply-To: mallory@evil.example\r\nTo: judge@localhost\r\nSubject: orders\r\nMessage-ID: <forged-1@evil.example>\r\n\r\nGAME 1\r\nPLAY probe-centre\r\nORDER D2\r\n";
    site.drop_mail("f1.eml", forged.as_bytes());
    // And with a guessed secret, from her own address.
    site.drop_mail(
        "f2.eml",
        &mail(
            "mallory@evil.example",
            "judge@localhost",
            "orders",
            "forged-2@evil.example",
            "GAME 1\nPASSWORD guess123\nPLAY probe-centre\nMAP\n",
        ),
    );
    site.ok(&["serve", "--once"]);
    assert_eq!(submissions(&site), 0);
    let state_after: String = site
        .db()
        .query_row(
            "SELECT state FROM snapshots ORDER BY turn DESC LIMIT 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(state_before, state_after);
    let new: Vec<String> = site.mails().into_iter().skip(before).collect();
    for t in &new {
        // Nothing about the game goes anywhere but the registered seat, and
        // even that answer carries no map or position.
        assert!(!t.contains("pegasus") && !t.contains("Pegasus"), "{t}");
        assert!(!t.contains("State "), "{t}");
    }
    assert!(
        new.iter().all(|t| !t.contains("Reply-To: mallory")
            && !t.contains("To: mallory@evil.example")
            || t.contains("could not tell which game")),
        "{new:#?}"
    );
    let to_mallory: Vec<&String> = new
        .iter()
        .filter(|t| t.contains("To: mallory@evil.example"))
        .collect();
    assert_eq!(
        to_mallory.len(),
        1,
        "one generic answer to the sender of the wrong secret"
    );
    assert!(to_mallory[0].contains("could not tell which game"));
    let log = site.ok(&["log"]);
    assert_eq!(
        log.matches("orders without a valid seat").count()
            + log.matches("not authenticated").count(),
        2,
        "{log}"
    );
}

#[test]
fn two_judges_cannot_start_a_loop() {
    let a = crate::common::svg_site();
    let b = crate::common::svg_site();
    // A stranger's mail to judge A, with judge B as the sender (a misrouted or forged mail).
    a.drop_mail(
        "1.eml",
        &mail(
            "judge@b.example",
            "judge@localhost",
            "hello",
            "start@b.example",
            "Hello there\n",
        ),
    );
    a.ok(&["serve", "--once"]);
    let a_out = a.outbox();
    assert_eq!(a_out.len(), 1, "A answers the first mail once");
    // A's answer reaches B...
    b.drop_mail("from-a.eml", a_out[0].1.as_bytes());
    b.ok(&["serve", "--once"]);
    assert!(b.outbox().is_empty(), "B never answers an automatic mail");
    let log = b.ok(&["log"]);
    assert!(log.contains("ignored: automatic mail"), "{log}");
}

#[test]
fn a_vacation_responder_gets_at_most_one_answer() {
    let site = crate::common::svg_site();
    site.pegasus_bridge(&[]);
    let welcome = site
        .mails()
        .into_iter()
        .find(|t| t.contains("To: alice@example.org"))
        .unwrap();
    let welcome_id = welcome
        .lines()
        .find(|l| l.starts_with("Message-ID: "))
        .unwrap()
        .trim_start_matches("Message-ID: ")
        .trim()
        .trim_matches(['<', '>'])
        .to_string();
    // A polite responder marks itself: ignored.
    site.drop_mail("v1.eml", format!("From: alice@example.org\r\nAuto-Submitted: auto-replied\r\nIn-Reply-To: <{welcome_id}>\r\nSubject: Out of office\r\nMessage-ID: <v1@example.org>\r\n\r\nI am away.\r\n").as_bytes());
    // A rude one does not, and answers everything: it replies to the welcome...
    site.drop_mail("v2.eml", format!("From: alice@example.org\r\nIn-Reply-To: <{welcome_id}>\r\nSubject: Re: welcome\r\nMessage-ID: <v2@example.org>\r\n\r\nI am away until Monday.\r\n").as_bytes());
    let before = site.mails().len();
    site.ok(&["serve", "--once"]);
    let after = site.mails();
    assert_eq!(
        after.len(),
        before + 1,
        "one error answer to the rude responder"
    );
    let answer = after.last().unwrap();
    let answer_id = answer
        .lines()
        .find(|l| l.starts_with("Message-ID: "))
        .unwrap()
        .trim_start_matches("Message-ID: ")
        .trim()
        .to_string();
    // It answers our answer: the exchange ends there.
    site.drop_mail("v3.eml", format!("From: alice@example.org\r\nIn-Reply-To: {answer_id}\r\nSubject: Re: Re: welcome\r\nMessage-ID: <v3@example.org>\r\n\r\nI am away until Monday.\r\n").as_bytes());
    site.ok(&["serve", "--once"]);
    assert_eq!(site.mails().len(), before + 1, "no second exchange");
    assert!(site
        .ok(&["log"])
        .contains("not answered: it replies to an error answer"));
    // ...and to a stranger mail it answers anything, at most 10 times a day.
    for i in 0..15 {
        site.drop_mail(
            &format!("r{i}.eml"),
            &mail(
                "robot@example.org",
                "judge@localhost",
                "auto",
                &format!("r{i}@example.org"),
                "I am a robot\n",
            ),
        );
    }
    site.ok(&["serve", "--once"]);
    let to_robot = site
        .mails()
        .iter()
        .filter(|t| t.contains("To: robot@example.org"))
        .count();
    assert_eq!(to_robot as i64, adjutant::service::MAX_ERROR_REPLIES_A_DAY);
}

#[test]
fn join_an_open_seat_then_offer_and_accept_a_draw() {
    let site = crate::common::svg_site();
    site.new_game(
        "pegasus-bridge",
        &["allies=alice@example.org", "axis=open"],
        &[],
    );
    assert_eq!(site.mails().len(), 1, "no welcome for the open seat");
    site.drop_mail(
        "j.eml",
        &mail(
            "carol@example.org",
            "judge@localhost",
            "join",
            "join@example.org",
            "JOIN 1\n",
        ),
    );
    site.drop_mail(
        "j2.eml",
        &mail(
            "dave@example.org",
            "judge@localhost",
            "join",
            "join2@example.org",
            "JOIN 1\n",
        ),
    );
    site.ok(&["serve", "--once"]);
    let all = site.mails();
    assert!(all
        .iter()
        .any(|t| t.contains("To: carol@example.org") && t.contains("welcome, you play axis")));
    assert!(all
        .iter()
        .any(|t| t.contains("To: dave@example.org") && t.contains("no open seat")));
    // Axis (carol) offers a draw by replying to her welcome; alice accepts.
    let carol = reply_address(&site, "carol@example.org");
    site.drop_mail(
        "d1.eml",
        &mail(
            "carol@example.org",
            &carol,
            "draw?",
            "d1@example.org",
            "DRAW\n",
        ),
    );
    site.ok(&["serve", "--once"]);
    assert!(site
        .mails()
        .iter()
        .any(|t| t.contains("To: alice@example.org") && t.contains("offers a draw")));
    let alice = reply_address(&site, "alice@example.org");
    site.drop_mail(
        "d2.eml",
        &mail(
            "alice@example.org",
            &alice,
            "draw",
            "d2@example.org",
            "DRAW\n",
        ),
    );
    site.ok(&["serve", "--once"]);
    let over: i64 = site
        .db()
        .query_row(
            "SELECT count(*) FROM games WHERE status = 'over' AND result = ''",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(over, 1);
    assert_eq!(
        site.mails()
            .iter()
            .filter(|t| t.contains("it is a draw"))
            .count(),
        2
    );
}

#[test]
fn orders_from_another_address_are_copied_to_the_seat() {
    let site = crate::common::svg_site();
    site.pegasus_bridge(&[]);
    let alice = reply_address(&site, "alice@example.org");
    // Alice writes from her work address, replying to the judge's mail.
    site.drop_mail(
        "w.eml",
        &mail(
            "alice@work.example",
            &alice,
            "Re: welcome",
            "work@example.org",
            "MAP\n",
        ),
    );
    site.ok(&["serve", "--once"]);
    let answers: Vec<String> = site
        .mails()
        .into_iter()
        .filter(|t| t.contains("In-Reply-To: <work@example.org>"))
        .collect();
    assert_eq!(answers.len(), 2, "{answers:#?}");
    assert!(answers.iter().any(|t| t.contains("To: alice@work.example")));
    let copy = answers
        .iter()
        .find(|t| t.contains("To: alice@example.org"))
        .unwrap();
    assert!(copy.contains("came from alice@work.example"), "{copy}");
    common::assert_80_columns(&site);
}

#[test]
fn accepted_orders_are_echoed_back_in_canonical_form() {
    let site = crate::common::svg_site();
    site.pegasus_bridge(&[]);
    let rules = adjutant::rules::Rules::load("memoir44").unwrap();
    let state = {
        let text: String = site
            .db()
            .query_row("SELECT state FROM snapshots", [], |r| r.get(0))
            .unwrap();
        rules.restore(&text).unwrap()
    };
    let orders = rules
        .pass_orders(&state, "allies")
        .expect("a card that can be played");
    let alice = reply_address(&site, "alice@example.org");
    // A mistyped order between orders refuses the whole mail, naming its line.
    let bad = format!("{}\nORDR D4\nMOVE D4 D5\n", orders.trim());
    site.drop_mail(
        "o1.eml",
        &mail(
            "alice@example.org",
            &alice,
            "Re: welcome",
            "o1@example.org",
            &bad,
        ),
    );
    site.ok(&["serve", "--once"]);
    let refused = site
        .mails()
        .into_iter()
        .find(|t| t.contains("In-Reply-To: <o1@example.org>"))
        .unwrap();
    assert!(
        refused.contains("line 2") && refused.contains("ORDR"),
        "{refused}"
    );
    assert!(refused.contains("none of these were kept"), "{refused}");
    // Greetings around the orders are set aside; the orders are accepted and
    // echoed in canonical form, with the lines not read.
    let written = format!(
        "Hi judge,\n\n{}\n\nThanks,\nAlice\n",
        orders.trim().to_lowercase()
    );
    site.drop_mail(
        "o2.eml",
        &mail(
            "alice@example.org",
            &alice,
            "Re: welcome",
            "o2@example.org",
            &written,
        ),
    );
    site.ok(&["serve", "--once"]);
    let receipt = site
        .mails()
        .into_iter()
        .find(|t| t.contains("In-Reply-To: <o2@example.org>"))
        .unwrap();
    assert!(
        receipt.contains(&format!("  # {}", orders.trim())),
        "{receipt}"
    );
    assert!(receipt.contains("adjudicated"), "{receipt}");
    assert!(
        receipt.contains("line 1: Hi judge,") && receipt.contains("line 6: Alice"),
        "{receipt}"
    );
}

/// Issue 53, item 8: a turn report answers the recipient's welcome mail
/// (In-Reply-To and References name its Message-ID), so a mail client
/// keeps a game's mails in one thread.
#[test]
fn turn_reports_thread_under_each_players_welcome() {
    let site = crate::common::svg_site();
    site.pegasus_bridge(&[]);
    let rules = adjutant::rules::Rules::load("memoir44").unwrap();
    let state = {
        let text: String = site
            .db()
            .query_row("SELECT state FROM snapshots", [], |r| r.get(0))
            .unwrap();
        rules.restore(&text).unwrap()
    };
    let orders = rules
        .pass_orders(&state, "allies")
        .expect("a card that can be played");
    let alice = reply_address(&site, "alice@example.org");
    site.drop_mail(
        "o1.eml",
        &mail(
            "alice@example.org",
            &alice,
            "Re: welcome",
            "o1@example.org",
            &orders,
        ),
    );
    site.ok(&["serve", "--once"]);
    let header = |raw: &str, name: &str| -> Option<String> {
        raw.lines()
            .take_while(|l| !l.is_empty())
            .find_map(|l| l.strip_prefix(name))
            .map(|v| v.trim().to_string())
    };
    let mails: Vec<String> = site.outbox().into_iter().map(|(_, raw)| raw).collect();
    let mut reports = 0;
    for who in ["alice@example.org", "bob@example.org"] {
        let to = format!("To: {who}");
        let of = |m: &&String| m.lines().any(|l| l == to);
        let welcome = mails
            .iter()
            .filter(of)
            .find(|m| header(m, "Subject: ").is_some_and(|s| s.contains(": welcome, ")))
            .expect("a welcome");
        let id = header(welcome, "Message-ID: ").expect("the welcome's Message-ID");
        for m in mails.iter().filter(of) {
            let subject = header(m, "Subject: ").unwrap_or_default();
            if !subject.starts_with("Game 1: turn") {
                continue;
            }
            reports += 1;
            assert_eq!(
                header(m, "In-Reply-To: "),
                Some(id.clone()),
                "{who}: {subject}"
            );
            assert_eq!(
                header(m, "References: "),
                Some(id.clone()),
                "{who}: {subject}"
            );
        }
    }
    assert!(reports >= 2, "{reports} turn reports");
}
