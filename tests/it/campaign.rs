//! A three-battle campaign by mail (issue 11): battles created as each ends,
//! battle 2 and 3 start with the pre-battle dice the results give, a player
//! replaced in the middle keeps his record, standings by mail, and the whole
//! campaign exported and verified (a tampered link is named).

use crate::common;
use common::{mail, reply_address, unqp, Site};

fn mails(site: &Site) -> Vec<String> {
    site.outbox().into_iter().map(|(_, t)| unqp(&t)).collect()
}

fn send(site: &Site, n: &mut u32, from: &str, body: &str) {
    *n += 1;
    let to = reply_address(site, from);
    site.drop_mail(
        &format!("m{n}.eml"),
        &mail(
            from,
            &to,
            "Re: campaign",
            &format!("m{n}@example.org"),
            body,
        ),
    );
    site.ok(&["serve", "--once"]);
}

fn game_options(site: &Site, game: i64) -> serde_json::Value {
    let text: String = site
        .db()
        .query_row("SELECT options FROM games WHERE id = ?1", [game], |r| {
            r.get(0)
        })
        .unwrap();
    serde_json::from_str(&text).unwrap()
}

fn status(site: &Site, game: i64) -> String {
    site.db()
        .query_row("SELECT status FROM games WHERE id = ?1", [game], |r| {
            r.get(0)
        })
        .unwrap()
}

/// If the newest battle waits for pre-battle choices, each side owing one
/// takes the defaults by mail.
fn settle_pre_battle(site: &Site, n: &mut u32, game: i64, players: &[(&str, &str)]) {
    for _ in 0..2 {
        let text: String = site
            .db()
            .query_row(
                "SELECT state FROM snapshots WHERE game_id = ?1 ORDER BY turn DESC LIMIT 1",
                [game],
                |r| r.get(0),
            )
            .unwrap();
        let st: serde_json::Value = serde_json::from_str(&text).unwrap();
        let Some(pb) = st.get("pre_battle") else {
            return;
        };
        let owing: Vec<usize> = pb["choices"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["by"].as_u64().unwrap() as usize)
            .collect();
        let (side, email) = players[owing[0]];
        assert!(!side.is_empty());
        send(site, n, email, "PASS\n");
    }
}

#[test]
fn a_three_battle_campaign_by_mail() {
    let site = Site::new();
    let out = site.ok(&[
        "campaign",
        "new",
        "normandy",
        "--scenario",
        "pegasus-bridge",
        "--scenario",
        "sainte-mere-eglise",
        "--scenario",
        "pegasus-bridge",
        "--player",
        "allies=alice@example.org",
        "--player",
        "axis=bob@example.org",
    ]);
    assert!(out.contains("battle game(s) 1"), "{out}");
    assert!(site
        .ok(&["campaign", "list"])
        .contains("normandy: 0 of 3 battles over"));
    let mut n = 0;

    // Battle 1: the Axis resign; the Allies win with no medals.
    send(&site, &mut n, "bob@example.org", "RESIGN\n");
    assert_eq!(status(&site, 1), "over");
    let after1 = mails(&site);
    assert!(after1
        .iter()
        .any(|m| m.contains("To: alice@example.org") && m.contains("standings after battle 1")));
    // Battle 2 exists with the pre-battle dice: no points, one victory.
    assert_eq!(game_options(&site, 2)["campaign-dice"], "allies:1");
    let rolled: i64 = site
        .db()
        .query_row(
            "SELECT count(*) FROM events WHERE game_id = 2 AND event LIKE '%pre-battle-roll%'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(rolled, 2, "both sides' pre-battle rolls are recorded");
    settle_pre_battle(
        &site,
        &mut n,
        2,
        &[("allies", "alice@example.org"), ("axis", "bob@example.org")],
    );

    // The Axis player is replaced in the middle of the campaign.
    site.ok(&["replace-seat", "2", "axis", "carol@example.org"]);
    send(&site, &mut n, "alice@example.org", "CAMPAIGN\n");
    let standings = mails(&site)
        .into_iter()
        .rev()
        .find(|m| m.contains("To: alice@example.org") && m.contains("Campaign normandy"))
        .expect("the standings by mail");
    assert!(
        standings.contains("bob@example.org") && standings.contains("(replaced)"),
        "{standings}"
    );
    assert!(standings.contains("carol@example.org"), "{standings}");

    // Battle 2: the Allies resign; Carol (Axis) wins.
    send(&site, &mut n, "alice@example.org", "RESIGN\n");
    assert_eq!(status(&site, 2), "over", "{}", site.ok(&["log"]));
    // Battle 3: one victory each, and no medals were won in battle 2.
    assert_eq!(game_options(&site, 3)["campaign-dice"], "allies:1,axis:1");
    let seats: Vec<String> = {
        let db = site.db();
        let mut st = db
            .prepare("SELECT email FROM seats WHERE game_id = 3 ORDER BY side")
            .unwrap();
        st.query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    assert_eq!(seats, ["alice@example.org", "carol@example.org"]);
    settle_pre_battle(
        &site,
        &mut n,
        3,
        &[
            ("allies", "alice@example.org"),
            ("axis", "carol@example.org"),
        ],
    );
    send(&site, &mut n, "carol@example.org", "RESIGN\n");
    assert_eq!(status(&site, 3), "over");

    let show = site.ok(&["campaign", "show", "normandy"]);
    assert!(
        show.contains("1. pegasus-bridge") && show.contains("won by allies"),
        "{show}"
    );
    assert!(show.contains("won by axis"), "{show}");
    // Alice: 3 battles, 2 wins; Bob kept his record of battle 1; Carol has battles 2-3.
    let line = |who: &str| {
        show.lines()
            .find(|l| l.contains(who))
            .unwrap_or_else(|| panic!("{who} in {show}"))
            .split_whitespace()
            .skip(2)
            .take(2)
            .collect::<Vec<_>>()
            .join(" ")
    };
    assert_eq!(line("alice@"), "3 2");
    assert_eq!(line("bob@"), "1 0");
    assert_eq!(line("carol@"), "2 1");

    let export = site.path().join("campaign.json");
    site.ok(&[
        "campaign",
        "export",
        "normandy",
        "--output",
        export.to_str().unwrap(),
    ]);
    let ok = site.ok(&["verify", export.to_str().unwrap()]);
    assert!(ok.contains("campaign normandy verified: 3 battles"), "{ok}");
    let text = std::fs::read_to_string(&export).unwrap();
    let bad = text.replacen("\"allies:1,axis:1\"", "\"allies:2,axis:1\"", 1);
    assert_ne!(bad, text);
    let badf = site.path().join("bad.json");
    std::fs::write(&badf, bad).unwrap();
    let out = site.run(&["verify", badf.to_str().unwrap()]);
    assert!(!out.status.success());
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("battle 3:"), "{said}");
}

fn seats_of(site: &Site, game: i64) -> Vec<String> {
    let db = site.db();
    let mut out: Vec<String> = {
        let mut st = db
            .prepare("SELECT side, email FROM seats WHERE game_id = ?1 ORDER BY side")
            .unwrap();
        st.query_map([game], |r| {
            Ok(format!(
                "{} {}",
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?
            ))
        })
        .unwrap()
        .map(Result::unwrap)
        .collect()
    };
    let mut st = db
        .prepare("SELECT side, seat_no, email FROM team_members WHERE game_id = ?1 ORDER BY side, seat_no")
        .unwrap();
    out.extend(
        st.query_map([game], |r| {
            Ok(format!(
                "{}#{} {}",
                r.get::<_, String>(0)?,
                r.get::<_, i64>(1)? + 1,
                r.get::<_, String>(2)?
            ))
        })
        .unwrap()
        .map(Result::unwrap),
    );
    out
}

/// Teams inside a campaign (issue 11, "a campaign file says the same"):
/// every battle seats the same teams with the same Commanders-in-Chief,
/// the standings go to every player including each side's C-in-C, a Field
/// Marshal and a C-in-C can each be replaced, and every member of a team
/// is credited with its battles.
#[test]
fn teams_play_a_campaign() {
    let site = Site::new();
    site.ok(&[
        "campaign",
        "new",
        "teams",
        "--scenario",
        "pegasus-bridge",
        "--scenario",
        "pegasus-bridge",
        "--scenario",
        "pegasus-bridge",
        "--player",
        "allies=ann@example.org",
        "--player",
        "allies=bill@example.org",
        "--player",
        "allies=cath@example.org",
        "--player",
        "axis=dora@example.org",
        "--player",
        "axis=emil@example.org",
    ]);
    assert_eq!(
        seats_of(&site, 1),
        [
            "allies ann@example.org",
            "axis dora@example.org",
            "allies#2 bill@example.org",
            "allies#3 cath@example.org",
            "axis#2 emil@example.org",
        ]
    );
    let mut n = 0;

    // A Field Marshal is replaced: Fred takes Bill's seat (the left flank).
    let bill_addr = reply_address(&site, "bill@example.org");
    site.ok(&[
        "replace-seat",
        "1",
        "allies",
        "fred@example.org",
        "--old",
        "bill@example.org",
    ]);
    let all = mails(&site);
    assert!(all
        .iter()
        .any(|m| m.contains("To: bill@example.org") && m.contains("you no longer play allies")));
    let fred = all
        .iter()
        .find(|m| m.contains("To: fred@example.org"))
        .expect("Fred is mailed his seat");
    assert!(fred.contains("Your secret: "), "{fred}");
    let fred_addr = reply_address(&site, "fred@example.org");
    assert_ne!(fred_addr, bill_addr, "a new reply address for the seat");
    // Nobody else at that side: a clear refusal.
    let out = site.run(&[
        "replace-seat",
        "1",
        "allies",
        "gus@example.org",
        "--old",
        "nobody@example.org",
    ]);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("nobody at nobody@example.org plays allies")
    );
    // Fred speaks for his team by his new address; Bill's old one is dead.
    send(&site, &mut n, "fred@example.org", "TEAM I hold the left\n");
    assert!(mails(&site)
        .iter()
        .any(|m| m.contains("To: ann@example.org") && m.contains("I hold the left")));
    let before = mails(&site).len();
    n += 1;
    site.drop_mail(
        &format!("m{n}.eml"),
        &mail(
            "bill@example.org",
            &bill_addr,
            "Re: campaign",
            &format!("m{n}@example.org"),
            "TEAM I am still here\n",
        ),
    );
    site.ok(&["serve", "--once"]);
    assert!(!mails(&site)[before..]
        .iter()
        .any(|m| m.contains("To: ann@example.org") && m.contains("I am still here")));

    // Battle 1: the Axis C-in-C resigns.
    send(&site, &mut n, "dora@example.org", "RESIGN\n");
    assert_eq!(status(&site, 1), "over");
    let standings: Vec<String> = mails(&site)
        .into_iter()
        .filter(|m| m.contains("standings after battle 1"))
        .collect();
    for who in ["ann", "dora", "fred", "cath", "emil"] {
        assert!(
            standings
                .iter()
                .any(|m| m.contains(&format!("To: {who}@example.org"))),
            "{who} gets the standings"
        );
    }
    assert!(!standings.iter().any(|m| m.contains("To: bill@example.org")));
    // Battle 2 seats the same teams: Fred where Bill sat, the C-in-Cs first.
    assert_eq!(
        seats_of(&site, 2),
        [
            "allies ann@example.org",
            "axis dora@example.org",
            "allies#2 fred@example.org",
            "allies#3 cath@example.org",
            "axis#2 emil@example.org",
        ]
    );
    settle_pre_battle(
        &site,
        &mut n,
        2,
        &[("allies", "ann@example.org"), ("axis", "dora@example.org")],
    );

    // The Allied C-in-C is replaced: Gina commands the Allies from now on,
    // and battle 3 seats her first, so she is its C-in-C.
    site.ok(&["replace-seat", "2", "allies", "gina@example.org"]);
    send(&site, &mut n, "gina@example.org", "RESIGN\n");
    assert_eq!(status(&site, 2), "over", "{}", site.ok(&["log"]));
    assert_eq!(
        seats_of(&site, 3),
        [
            "allies gina@example.org",
            "axis dora@example.org",
            "allies#2 fred@example.org",
            "allies#3 cath@example.org",
            "axis#2 emil@example.org",
        ]
    );
    let show = site.ok(&["campaign", "show", "teams"]);
    let record = |who: &str| {
        let l = show
            .lines()
            .find(|l| l.contains(who))
            .unwrap_or_else(|| panic!("{who} in {show}"));
        let f: Vec<&str> = l.split_whitespace().skip(2).take(2).collect();
        (f.join(" "), l.contains("(replaced)"))
    };
    // Battles and wins: every member of a team is credited with its battles.
    assert_eq!(record("ann@"), ("1 1".to_string(), true), "{show}");
    assert_eq!(record("bill@"), ("0 0".to_string(), true), "{show}");
    assert_eq!(record("fred@"), ("2 1".to_string(), false), "{show}");
    assert_eq!(record("cath@"), ("2 1".to_string(), false), "{show}");
    assert_eq!(record("gina@"), ("1 0".to_string(), false), "{show}");
    assert_eq!(record("dora@"), ("2 1".to_string(), false), "{show}");
    assert_eq!(record("emil@"), ("2 1".to_string(), false), "{show}");
}
