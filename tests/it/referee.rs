//! The referee's desk by mail (issue 9): review mode holds each phase's
//! results for the referee; the referee corrects a unit (AMEND) and
//! releases them (APPROVE); the players get the amended results; `verify`
//! replays the correction and names a tampered one.

use crate::common;
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
    let site = Site::new();
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
    let site = Site::new();
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
