//! A three-battle campaign by mail (issue 11): battles created as each ends,
//! battle 2 and 3 start with the pre-battle dice the results give, a player
//! replaced in the middle keeps his record, standings by mail, and the whole
//! campaign exported and verified (a tampered link is named).

use crate::common;
use adjutant::rules::Load;
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
    let site = crate::common::svg_site();
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
    let site = crate::common::svg_site();
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
    // `games` lists every member, not only each side's C-in-C (issue 39).
    let games = site.ok(&["games"]);
    assert!(
        games.contains(
            "allies=ann@example.org allies=bill@example.org allies=cath@example.org \
             axis=dora@example.org axis=emil@example.org"
        ),
        "{games}"
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
    // The new Commander-in-Chief gets the welcome of the seat, his team
    // named in it.
    let gina = newest(&site, "gina@example.org", "Game 2");
    assert!(
        gina.contains("Game 2: welcome, you play allies") && !gina.contains("has a new secret"),
        "{gina}"
    );
    assert!(gina.contains("fred@example.org"), "{gina}");
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

/// What `campaign new` says when it refuses (issue 39, acceptance 1).
fn refused(site: &Site, scenarios: &[&str], players: &[&str]) -> String {
    let mut args = vec!["campaign", "new", "bad"];
    for s in scenarios {
        args.extend(["--scenario", s]);
    }
    for p in players {
        args.extend(["--player", p]);
    }
    let out = site.run(&args);
    assert!(!out.status.success(), "{scenarios:?} accepted");
    let said = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        !said.contains("game 0") && !said.contains("--seat"),
        "{said}"
    );
    said
}

/// Every battle is checked when the campaign is made, and a refusal names
/// the battle and what is wrong; nothing is created (issue 39).
#[test]
fn campaign_new_checks_every_battle() {
    let site = crate::common::svg_site();
    let ww2 = ["allies=alice@example.org", "axis=bob@example.org"];
    let said = refused(&site, &["pegasus-bridge", "nosuch"], &ww2);
    assert!(said.contains("battle 2 (nosuch)"), "{said}");
    let said = refused(&site, &["pegasus-bridge", "minden-1759"], &ww2);
    assert!(
        said.contains("battle 2 (minden-1759)") && said.contains("allied and french"),
        "{said}"
    );
    let napoleonic = ["british=alice@example.org", "french=bob@example.org"];
    let said = refused(&site, &["el-bodon-1811", "minden-1759"], &napoleonic);
    assert!(said.contains("battle 2 (minden-1759)"), "{said}");
    // A side without a player: the battle and the sides, in the campaign's words.
    let said = refused(&site, &["pegasus-bridge"], &["allies=alice@example.org"]);
    assert!(
        said.contains("battle 1 (pegasus-bridge)") && said.contains("--player"),
        "{said}"
    );
    // A team where the rulebook has no board sections, and an address that
    // is none: the battle or the flag named, never "game 0" or "--seat".
    let said = refused(
        &site,
        &["el-bodon-1811", "fuentes-de-onoro-1811"],
        &[
            "british=alice@example.org",
            "british=carol@example.org",
            "french=bob@example.org",
        ],
    );
    assert!(
        said.contains("battle 1 (el-bodon-1811): side 'british'") && said.contains("no team play"),
        "{said}"
    );
    let said = refused(
        &site,
        &["pegasus-bridge"],
        &["allies=alice", "axis=bob@example.org"],
    );
    assert!(
        said.contains("--player allies=alice: 'alice' is not an email address"),
        "{said}"
    );
    let games: i64 = site
        .db()
        .query_row("SELECT count(*) FROM games", [], |r| r.get(0))
        .unwrap();
    assert_eq!(games, 0, "a refused campaign creates nothing");
    assert!(site.ok(&["campaign", "list"]).trim().is_empty());
}

/// A campaign of battles whose rulebook has no pre-battle rules is a
/// series with standings: accepted, and played by mail to its second
/// battle, which starts without pre-battle dice (issue 39).
fn a_series_to_its_second_battle(scenarios: [&str; 2], sides: [&str; 2]) {
    let site = crate::common::svg_site();
    let a = format!("{}=alice@example.org", sides[0]);
    let b = format!("{}=bob@example.org", sides[1]);
    site.ok(&[
        "campaign",
        "new",
        "series",
        "--scenario",
        scenarios[0],
        "--scenario",
        scenarios[1],
        "--player",
        &a,
        "--player",
        &b,
    ]);
    let mut n = 0;
    send(&site, &mut n, "bob@example.org", "RESIGN\n");
    assert_eq!(status(&site, 1), "over", "{}", site.ok(&["log"]));
    assert_eq!(status(&site, 2), "active");
    assert!(game_options(&site, 2).get("campaign-dice").is_none());
    let standings: Vec<String> = mails(&site)
        .into_iter()
        .filter(|m| m.contains("standings after battle 1"))
        .collect();
    assert_eq!(standings.len(), 2, "both players get the standings");
    // "Your welcome mail follows": the standings come before the welcome.
    let all = mails(&site);
    let at = |what: &str| {
        all.iter()
            .position(|m| m.contains("To: alice@example.org") && m.contains(what))
            .unwrap_or_else(|| panic!("{what}"))
    };
    assert!(at("standings after battle 1") < at("Game 2: welcome"));
    assert!(
        standings[0].contains(&format!("won by {}", sides[0]))
            && standings[0].contains("being played as game 2"),
        "{}",
        standings[0]
    );
    // Battle 2 is played by mail: the French/Allied player resigns it too.
    send(&site, &mut n, "alice@example.org", "RESIGN\n");
    assert_eq!(status(&site, 2), "over");
    let show = site.ok(&["campaign", "show", "series"]);
    assert!(show.contains(&format!("won by {}", sides[1])), "{show}");
    let export = site.path().join("series.json");
    site.ok(&[
        "campaign",
        "export",
        "series",
        "--output",
        export.to_str().unwrap(),
    ]);
    let ok = site.ok(&["verify", export.to_str().unwrap()]);
    assert!(ok.contains("campaign series verified: 2 battles"), "{ok}");
}

#[test]
fn a_charge_campaign_is_a_series() {
    a_series_to_its_second_battle(
        ["el-bodon-1811", "fuentes-de-onoro-1811"],
        ["british", "french"],
    );
}

#[test]
fn a_seven_years_war_campaign_is_a_series() {
    a_series_to_its_second_battle(["minden-1759", "minden-1759"], ["allied", "french"]);
}

/// If the next battle cannot be created, the battle that ended still ends,
/// the mail that ended it is answered, the campaign says why it stopped
/// (and its referee is told), and `campaign resume` goes on once mended
/// (issue 39, acceptance 2).
#[test]
fn a_campaign_whose_next_battle_fails_stops_and_resumes() {
    let site = crate::common::svg_site();
    let file = site.path().join("sme.toml");
    let shipped = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scenarios/memoir44/sainte-mere-eglise.toml"
    );
    std::fs::copy(shipped, &file).unwrap();
    site.ok(&[
        "campaign",
        "new",
        "jam",
        "--scenario",
        "pegasus-bridge",
        "--scenario",
        file.to_str().unwrap(),
        "--player",
        "allies=alice@example.org",
        "--player",
        "axis=bob@example.org",
        "--referee",
        "ref@example.org",
    ]);
    std::fs::remove_file(&file).unwrap();
    let mut n = 0;
    let before = mails(&site).len();
    send(&site, &mut n, "bob@example.org", "RESIGN\n");
    assert_eq!(status(&site, 1), "over", "{}", site.ok(&["log"]));
    assert_eq!(
        std::fs::read_dir(site.inbox_new()).unwrap().count(),
        0,
        "the RESIGN mail is consumed"
    );
    let after: Vec<String> = mails(&site)[before..].to_vec();
    assert!(
        after
            .iter()
            .any(|m| m.contains("To: bob@example.org") && m.contains("Game 1: over")),
        "the resigning player is answered"
    );
    let standings = after
        .iter()
        .find(|m| m.contains("To: alice@example.org") && m.contains("standings after battle 1"))
        .expect("standings");
    assert!(
        standings.contains("The campaign is stopped: battle 2"),
        "{standings}"
    );
    assert!(after
        .iter()
        .any(|m| m.contains("To: ref@example.org") && m.contains("Campaign jam: stopped")));
    let games: i64 = site
        .db()
        .query_row("SELECT count(*) FROM games", [], |r| r.get(0))
        .unwrap();
    assert_eq!(games, 1, "no half-made battle 2");
    let show = site.ok(&["campaign", "show", "jam"]);
    assert!(
        show.contains("Stopped: battle 2") && show.contains("cannot read"),
        "{show}"
    );
    assert!(site.ok(&["campaign", "list"]).contains("stopped: battle 2"));
    // Not mended yet: resume refuses and the campaign stays stopped.
    assert!(!site.run(&["campaign", "resume", "jam"]).status.success());
    assert!(site.ok(&["campaign", "show", "jam"]).contains("Stopped:"));
    // Mended: battle 2 begins with the pre-battle dice battle 1 gives.
    std::fs::copy(shipped, &file).unwrap();
    let out = site.ok(&["campaign", "resume", "jam"]);
    assert!(out.contains("game 2"), "{out}");
    assert_eq!(game_options(&site, 2)["campaign-dice"], "allies:1");
    assert!(mails(&site)
        .iter()
        .any(|m| m.contains("To: alice@example.org") && m.contains("Game 2")));
    let show = site.ok(&["campaign", "show", "jam"]);
    assert!(
        !show.contains("Stopped:") && show.contains("being played as game 2"),
        "{show}"
    );
}

/// `verify` of a file; (succeeded, what it printed).
fn verify_text(site: &Site, name: &str, text: &str) -> (bool, String) {
    let f = site.path().join(name);
    std::fs::write(&f, text).unwrap();
    let out = site.run(&["verify", f.to_str().unwrap()]);
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// `verify` recomputes every result (issue 39, acceptance 3): a
/// resignation and an agreed draw are events of the game's record, so an
/// export whose result is changed, or whose resignation is removed, fails
/// and names the game and the field.
#[test]
fn verify_recomputes_a_resignation_and_a_draw() {
    let site = crate::common::svg_site();
    site.pegasus_bridge(&[]);
    let mut n = 0;
    send(&site, &mut n, "bob@example.org", "RESIGN\n");
    let ok = site.export_and_verify(&[]);
    assert!(ok.contains("OK: game 1 verified"), "{ok}");
    let text = std::fs::read_to_string(site.path().join("export.json")).unwrap();
    let mut ex: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(ex["ending"]["kind"], "resigned");
    assert_eq!(ex["ending"]["side"], "axis");
    assert_eq!(ex["result"], "allies");

    let mut changed = ex.clone();
    changed["result"] = "axis".into();
    let (ok, said) = verify_text(&site, "changed.json", &changed.to_string());
    assert!(!ok);
    assert!(
        said.contains(
            "game 1: result: the export says won by axis, the replay gives won by allies"
        ),
        "{said}"
    );
    let mut drawn = ex.clone();
    drawn["result"] = "".into();
    let (ok, said) = verify_text(&site, "drawn.json", &drawn.to_string());
    assert!(!ok && said.contains("game 1: result"), "{said}");

    ex.as_object_mut().unwrap().remove("ending");
    let (ok, said) = verify_text(&site, "removed.json", &ex.to_string());
    assert!(!ok);
    assert!(
        said.contains("game 1: result: the export says won by allies, the replay gives no result"),
        "{said}"
    );

    // A draw agreed by mail: offered by the Axis, accepted by the Allies.
    let site = crate::common::svg_site();
    site.pegasus_bridge(&[]);
    send(&site, &mut n, "bob@example.org", "DRAW\n");
    send(&site, &mut n, "alice@example.org", "DRAW\n");
    let ok = site.export_and_verify(&[]);
    assert!(ok.contains("OK: game 1 verified"), "{ok}");
    let text = std::fs::read_to_string(site.path().join("export.json")).unwrap();
    let mut ex: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(ex["ending"]["kind"], "draw-agreed");
    assert_eq!(ex["ending"]["offered_by"], "axis");
    ex["result"] = "allies".into();
    let (ok, said) = verify_text(&site, "won.json", &ex.to_string());
    assert!(!ok);
    assert!(
        said.contains("game 1: result: the export says won by allies, the replay gives a draw"),
        "{said}"
    );
}

/// A campaign export lists its battles with their outcomes; `verify` fails
/// on one with a battle dropped or a winner flipped (issue 39).
#[test]
fn verify_checks_a_campaigns_list_of_battles() {
    let site = crate::common::svg_site();
    site.ok(&[
        "campaign",
        "new",
        "two",
        "--scenario",
        "pegasus-bridge",
        "--scenario",
        "pegasus-bridge",
        "--player",
        "allies=alice@example.org",
        "--player",
        "axis=bob@example.org",
    ]);
    let mut n = 0;
    send(&site, &mut n, "bob@example.org", "RESIGN\n");
    settle_pre_battle(
        &site,
        &mut n,
        2,
        &[("allies", "alice@example.org"), ("axis", "bob@example.org")],
    );
    send(&site, &mut n, "alice@example.org", "RESIGN\n");
    assert_eq!(status(&site, 2), "over");
    let export = site.path().join("two.json");
    site.ok(&[
        "campaign",
        "export",
        "two",
        "--output",
        export.to_str().unwrap(),
    ]);
    let text = std::fs::read_to_string(&export).unwrap();
    let (ok, said) = verify_text(&site, "same.json", &text);
    assert!(ok, "{said}");
    let c: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(c["plan"][1]["winner"], "axis");

    // Battle 2 dropped from the battles.
    let mut cut = c.clone();
    cut["battles"].as_array_mut().unwrap().pop();
    let (ok, said) = verify_text(&site, "cut.json", &cut.to_string());
    assert!(!ok);
    assert!(
        said.contains("battle 2 (pegasus-bridge): game 2 is in the campaign's list, but its export is missing"),
        "{said}"
    );
    // Battle 2 dropped from the list too: the battle before it is over.
    cut["plan"][1]["game"] = serde_json::Value::Null;
    cut["plan"][1]["winner"] = serde_json::Value::Null;
    let (ok, said) = verify_text(&site, "cut2.json", &cut.to_string());
    assert!(!ok && said.contains("never created"), "{said}");
    // The last battle's winner flipped in the list.
    let mut flipped = c.clone();
    flipped["plan"][1]["winner"] = "allies".into();
    let (ok, said) = verify_text(&site, "flipped.json", &flipped.to_string());
    assert!(!ok);
    assert!(
        said.contains("battle 2 (pegasus-bridge), game 2: winner: the campaign says won by allies, the game gives won by axis"),
        "{said}"
    );
    // ... and in the battle's export as well.
    flipped["battles"][1]["result"] = "allies".into();
    let (ok, said) = verify_text(&site, "flipped2.json", &flipped.to_string());
    assert!(!ok);
    assert!(said.contains("battle 2: game 2: result"), "{said}");
}

/// The numbers of a player's line in `campaign show` (battles, wins,
/// points, pre-battle dice, orders, NMR).
fn record_of(show: &str, who: &str) -> Vec<u32> {
    show.lines()
        .find(|l| l.contains(who))
        .unwrap_or_else(|| panic!("{who} in {show}"))
        .split_whitespace()
        .skip(2)
        .take(6)
        .map(|n| n.parse().unwrap())
        .collect()
}

/// After a replacement in the middle of a campaign, the old player's
/// record (his pre-battle dice, his results) stays as it was, and the
/// newcomer does not inherit it (issue 39, acceptance 4).
#[test]
fn a_replaced_players_record_stays_closed() {
    let site = crate::common::svg_site();
    site.ok(&[
        "campaign",
        "new",
        "closed",
        "--scenario",
        "pegasus-bridge",
        "--scenario",
        "pegasus-bridge",
        "--player",
        "allies=alice@example.org",
        "--player",
        "axis=bob@example.org",
    ]);
    let mut n = 0;
    send(&site, &mut n, "bob@example.org", "RESIGN\n");
    // The Allies won battle 1: their pre-battle die is Alice's.
    let before = record_of(&site.ok(&["campaign", "show", "closed"]), "alice@");
    assert_eq!(before[..4], [1, 1, 0, 1], "{before:?}");
    site.ok(&["replace-seat", "2", "allies", "erin@example.org"]);
    // The newcomer is welcomed to the seat, not told of a "new secret".
    let erin = newest(&site, "erin@example.org", "Game 2");
    assert!(
        erin.contains("Subject: Game 2: welcome, you play allies")
            && erin.contains("Your secret: "),
        "{erin}"
    );
    assert!(!erin.contains("has a new secret"), "{erin}");
    let show = site.ok(&["campaign", "show", "closed"]);
    assert_eq!(record_of(&show, "alice@"), before, "{show}");
    assert_eq!(record_of(&show, "erin@")[..4], [0, 0, 0, 0], "{show}");
    // Erin plays battle 2 out: it is hers, battle 1 stays Alice's.
    send(&site, &mut n, "erin@example.org", "RESIGN\n");
    assert_eq!(status(&site, 2), "over", "{}", site.ok(&["log"]));
    let show = site.ok(&["campaign", "show", "closed"]);
    assert_eq!(record_of(&show, "alice@"), before, "{show}");
    assert_eq!(record_of(&show, "erin@")[..4], [1, 0, 0, 0], "{show}");
}

/// The newest mail to `who` whose text has `what`.
fn newest(site: &Site, who: &str, what: &str) -> String {
    mails(site)
        .into_iter()
        .rev()
        .find(|m| m.contains(&format!("To: {who}")) && m.contains(what))
        .unwrap_or_else(|| panic!("no mail to {who} with {what}"))
}

/// The next battle's welcome reads as a welcome to a new battle, not as the
/// end of one, and it comes after the standings that announce it (issue 39,
/// "smaller points").
#[test]
fn the_next_battles_welcome_reads_as_a_new_battle() {
    let site = crate::common::svg_site();
    site.ok(&[
        "campaign",
        "new",
        "next",
        "--scenario",
        "pegasus-bridge",
        "--scenario",
        "pegasus-bridge",
        "--player",
        "allies=alice@example.org",
        "--player",
        "axis=bob@example.org",
    ]);
    let mut n = 0;
    send(&site, &mut n, "bob@example.org", "RESIGN\n");
    assert_eq!(status(&site, 2), "active");
    let welcome = newest(&site, "alice@example.org", "Game 2: welcome");
    assert!(welcome.contains("Welcome to game 2"), "{welcome}");
    assert!(!welcome.contains("The game is over"), "{welcome}");
    assert!(
        welcome.contains("The battle begins with a phase of the judge's own"),
        "{welcome}"
    );
    // No card orders in a welcome whose first phase is the judge's roll.
    assert!(!welcome.contains("PLAY"), "{welcome}");
    // The standings say the welcome follows, and it does.
    let all = mails(&site);
    let at = |what: &str| {
        all.iter()
            .position(|m| m.contains("To: alice@example.org") && m.contains(what))
            .unwrap_or_else(|| panic!("{what}"))
    };
    assert!(at("your welcome mail follows") < at("Game 2: welcome"));
    assert!(!all[at("Game 2: welcome")..]
        .iter()
        .any(|m| m.contains("your welcome mail follows")));
}

/// The orders `side` is taken to have given at a missed deadline, for the
/// newest position of `game`.
fn pass_orders(site: &Site, game: i64, side: &str) -> String {
    use adjutant::rules::Rules;
    let (ruleset, text): (String, String) = site
        .db()
        .query_row(
            "SELECT g.ruleset, s.state FROM games g JOIN snapshots s ON s.game_id = g.id
             WHERE g.id = ?1 ORDER BY s.turn DESC LIMIT 1",
            [game],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    let rules = Rules::load(&ruleset).unwrap();
    let st = rules.restore(&text).unwrap();
    rules.pass_orders(&st, side).expect("pass orders")
}

/// The number on a report's board ("..., after turn N").
fn board_turn(report: &str) -> u32 {
    let line = report
        .lines()
        .find(|l| l.contains(", after turn "))
        .unwrap_or_else(|| panic!("no board in {report}"));
    line.rsplit(' ').next().unwrap().trim().parse().unwrap()
}

/// A battle with pre-battle dice: its reports say which choice each side
/// owes and how to write it, and once the battle begins, the turn a mail
/// names is the turn its board shows (issue 39, "smaller points").
#[test]
fn a_pre_battle_tells_the_choices_and_keeps_the_turns() {
    let site = crate::common::svg_site();
    // Eight dice a side: each side owes choices (the odds of one owing none
    // are below one in ten thousand).
    site.pegasus_bridge(&["--option", "campaign-dice=allies:8,axis:8"]);
    let roll = newest(&site, "alice@example.org", "Game 1: turn 1 (the judge)");
    assert!(roll.contains("Allies roll their pre-battle dice"), "{roll}");
    // Which choices the Allies owe and how to write them, and what the
    // Axis owe; no cards to play yet.
    assert!(roll.contains("Your pre-battle choices (allies)"), "{roll}");
    assert!(
        roll.contains("REMOVE <hex>, <hex> one of: ")
            || roll.contains("RETREAT <hex> <to>, <hex> one of: "),
        "{roll}"
    );
    assert!(roll.contains("\n# PASS\n"), "{roll}");
    assert!(
        roll.contains("# The Axis choose at the same time: "),
        "{roll}"
    );
    assert!(!roll.contains("Your cards (PLAY"), "{roll}");
    let roll_b = newest(&site, "bob@example.org", "Game 1: turn 1 (the judge)");
    assert!(
        roll_b.contains("Your pre-battle choices (axis)"),
        "{roll_b}"
    );
    assert!(
        roll_b.contains("# The Allies choose at the same time: "),
        "{roll_b}"
    );
    // Everyone reads who owes which choice in the waiting line.
    assert!(roll.contains("(pre-battle choices: allies "), "{roll}");
    let mut n = 0;
    send(&site, &mut n, "alice@example.org", "PASS\n");
    send(&site, &mut n, "bob@example.org", "PASS\n");
    let begun = newest(&site, "alice@example.org", "Game 1: turn 2 (");
    assert_eq!(board_turn(&begun), 2, "{begun}");
    assert!(begun.contains("Your orders for turn 3"), "{begun}");
    assert!(begun.contains("TURN 3 "), "{begun}");
    // The first card: the mail says turn 3, and so do its board and events.
    send(
        &site,
        &mut n,
        "alice@example.org",
        &pass_orders(&site, 1, "allies"),
    );
    let first = newest(&site, "bob@example.org", "Game 1: turn 3 (allies)");
    assert_eq!(board_turn(&first), 3, "{first}");
    assert!(!first.contains("Turn 1: Allies."), "{first}");
    // The Axis answer turn 4, by the TURN line and by the template alike.
    assert!(first.contains("TURN 4 "), "{first}");
    assert!(first.contains("Your orders for turn 4"), "{first}");
}

/// Make the judge's database look as one from before the migration that
/// records how a game ended (issue 39): its columns gone and the schema
/// version one lower, as a judge of that release left it. The next run
/// migrates it again, with no ending recorded for the games it has.
fn back_before_the_ending_column(site: &Site) {
    let db = site.db();
    // The database as the migration before the one that added the ending
    // left it (and without the later ones' tables and columns).
    let ending = adjutant::store::MIGRATIONS
        .iter()
        .position(|m| m.contains("ADD COLUMN ending"))
        .unwrap();
    db.execute_batch(
        "ALTER TABLE games DROP COLUMN ending;
         ALTER TABLE campaigns DROP COLUMN stopped;
         ALTER TABLE campaign_battles DROP COLUMN starters;
         ALTER TABLE outbox DROP COLUMN claimed_by;
         ALTER TABLE outbox DROP COLUMN claim_until;
         DROP TABLE handle_failures;",
    )
    .unwrap();
    db.pragma_update(None, "user_version", ending as i64)
        .unwrap();
}

/// A game that ended by resignation or by a draw agreed by mail under a
/// judge from before the ending was recorded re-exports in today's format
/// with its ending taken from the stored record, and verifies (issue 39).
#[test]
fn a_game_ended_before_endings_were_recorded_still_verifies() {
    for (moves, kind, result) in [
        (&[("bob@example.org", "RESIGN\n")][..], "resigned", "allies"),
        (
            &[
                ("bob@example.org", "DRAW\n"),
                ("alice@example.org", "DRAW\n"),
            ][..],
            "draw-agreed",
            "",
        ),
    ] {
        let site = crate::common::svg_site();
        site.pegasus_bridge(&[]);
        let mut n = 0;
        for (who, body) in moves {
            send(&site, &mut n, who, body);
        }
        back_before_the_ending_column(&site);
        let said = site.export_and_verify(&[]);
        assert!(said.contains("OK: game 1 verified"), "{said}");
        let text = std::fs::read_to_string(site.path().join("export.json")).unwrap();
        let ex: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(ex["format"], "adjutant-export/4");
        assert_eq!(ex["result"], result);
        assert_eq!(ex["ending"]["kind"], kind, "{}", ex["ending"]);
        // The ending still guards the result: changed, verify fails.
        let mut changed = ex.clone();
        changed["result"] = "axis".into();
        let (ok, said) = verify_text(&site, "changed.json", &changed.to_string());
        assert!(!ok && said.contains("game 1: result"), "{said}");
    }
}

// ---- campaign files (issue 33): campaigns/*.toml, check-campaign, --file ----

fn shipped_campaigns() -> Vec<std::path::PathBuf> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("campaigns");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_shipped_campaign_file_passes_check_campaign() {
    let site = crate::common::svg_site();
    let files = shipped_campaigns();
    let names: Vec<String> = files
        .iter()
        .map(|f| f.file_stem().unwrap().to_string_lossy().to_string())
        .collect();
    // One of each kind the docs show: the Simplified Campaign Rules, side
    // swaps, a branch, and a series of another rulebook.
    for want in [
        "normandy-1944",
        "both-sides",
        "market-garden",
        "peninsula-1811",
    ] {
        assert!(names.iter().any(|n| n == want), "{want} in {names:?}");
    }
    // docs/campaigns.md shows each shipped file as it is.
    let docs = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/campaigns.md"),
    )
    .unwrap();
    for f in &files {
        let out = site.ok(&["check-campaign", f.to_str().unwrap()]);
        assert!(out.contains("is valid"), "{out}");
        let text = std::fs::read_to_string(f).unwrap();
        assert!(
            docs.contains(&format!("```toml\n{text}```")),
            "docs/campaigns.md does not show {} as it is",
            f.display()
        );
    }
    let branch = site.ok(&[
        "check-campaign",
        files
            .iter()
            .find(|f| f.ends_with("market-garden.toml"))
            .unwrap()
            .to_str()
            .unwrap(),
    ]);
    assert!(
        branch.contains("won by allies: arnhem; won by axis: sainte-mere"),
        "{branch}"
    );
    assert!(
        branch.contains("return-match (pegasus-bridge): blue plays allies, red plays axis"),
        "{branch}"
    );
}

const HEAD: &str = "name = \"broken\"\nroles = [\"p1\", \"p2\"]\n\n";
const PEGASUS: &str =
    "[[battle]]\nid = \"a\"\nscenario = \"pegasus-bridge\"\nsides = { allies = \"p1\", axis = \"p2\" }\n";

/// Each broken file, and where and what check-campaign says is wrong.
fn broken_files() -> Vec<(&'static str, String, &'static str)> {
    vec![
        (
            "unknown-key",
            format!("{HEAD}{PEGASUS}weathr = \"rain\"\n"),
            ":8:1: unknown field `weathr`",
        ),
        (
            "unknown-scenario",
            format!("{HEAD}[[battle]]\nid = \"a\"\nscenario = \"pegasus-brige\"\nsides = {{ allies = \"p1\", axis = \"p2\" }}\n"),
            ":6:12: unknown scenario 'pegasus-brige'",
        ),
        (
            "no-such-side",
            format!("{HEAD}[[battle]]\nid = \"a\"\nscenario = \"pegasus-bridge\"\nsides = {{ allies = \"p1\", germans = \"p2\" }}\n"),
            ":7:26: pegasus-bridge has no side 'germans' (its sides: allies, axis)",
        ),
        (
            "branch-to-nowhere",
            format!("{HEAD}{PEGASUS}next_if_won_by = {{ allies = \"b\", axis = \"nowhere\" }}\n\n[[battle]]\nid = \"b\"\nscenario = \"pegasus-bridge\"\nsides = {{ allies = \"p2\", axis = \"p1\" }}\n"),
            ":8:41: there is no battle 'nowhere' to go to",
        ),
        (
            "loop",
            format!("{HEAD}{PEGASUS}\n[[battle]]\nid = \"b\"\nscenario = \"pegasus-bridge\"\nsides = {{ allies = \"p2\", axis = \"p1\" }}\nnext = \"a\"\n"),
            ":13:8: a loop of battles: after 'b' comes 'a' again",
        ),
        (
            "idle-role",
            format!("name = \"broken\"\nroles = [\"p1\", \"p2\", \"p3\"]\n\n{PEGASUS}"),
            ":2:22: the role 'p3' is given a side in no battle",
        ),
        (
            "unknown-option",
            format!("{HEAD}{PEGASUS}options = {{ colonel-blimp = true, fog = \"thick\" }}\n"),
            ":8:35: unknown game option 'fog' for Memoir '44",
        ),
        (
            "pre-battle-without-rules",
            "name = \"broken\"\nroles = [\"p1\", \"p2\"]\npre_battle_dice = true\n\n[[battle]]\nid = \"a\"\nscenario = \"el-bodon-1811\"\nsides = { british = \"p1\", french = \"p2\" }\n".to_string(),
            ":3:19: pre-battle dice are asked for, but battle 'a' (el-bodon-1811) is of a rulebook without pre-battle rules",
        ),
        (
            "unknown-role",
            format!("{HEAD}[[battle]]\nid = \"a\"\nscenario = \"pegasus-bridge\"\nsides = {{ allies = \"p1\", axis = \"p9\" }}\n"),
            ":7:33: 'p9' is not one of the campaign's roles (p1, p2)",
        ),
    ]
}

#[test]
fn broken_campaign_files_get_their_line_and_column() {
    let site = crate::common::svg_site();
    for (name, text, want) in broken_files() {
        let file = site.path().join(format!("{name}.toml"));
        std::fs::write(&file, text).unwrap();
        let out = site.run(&["check-campaign", file.to_str().unwrap()]);
        assert!(!out.status.success(), "{name} passed");
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(
            said.contains(&format!("{name}.toml{want}")),
            "{name}: want {want}, got {said}"
        );
        // campaign new --file refuses it the same way, and creates nothing.
        let out = site.run(&[
            "campaign",
            "new",
            name,
            "--file",
            file.to_str().unwrap(),
            "--player",
            "p1=alice@example.org",
            "--player",
            "p2=bob@example.org",
        ]);
        assert!(!out.status.success(), "{name}: campaign new took it");
        assert!(String::from_utf8_lossy(&out.stderr).contains(want));
    }
    assert!(site.ok(&["campaign", "list"]).trim().is_empty());
}

fn shipped(name: &str) -> String {
    shipped_campaigns()
        .into_iter()
        .find(|f| f.ends_with(format!("{name}.toml")))
        .unwrap()
        .display()
        .to_string()
}

#[test]
fn campaign_new_file_binds_every_role() {
    let site = crate::common::svg_site();
    let file = shipped("market-garden");
    let out = site.run(&[
        "campaign",
        "new",
        "g",
        "--file",
        &file,
        "--player",
        "red=alice@example.org",
    ]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("the role 'blue' has no player: give it with --player blue=EMAIL"),
        "{said}"
    );
    let out = site.run(&[
        "campaign",
        "new",
        "g",
        "--file",
        &file,
        "--player",
        "red=alice@example.org",
        "--player",
        "allies=bob@example.org",
    ]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("--player allies=bob@example.org: the campaign file has no role 'allies'"),
        "{said}"
    );
    assert!(site.ok(&["campaign", "list"]).trim().is_empty());
}

/// The recorded outcome of battle `seq` of the only campaign.
fn outcome(site: &Site, seq: u32) -> serde_json::Value {
    let text: String = site
        .db()
        .query_row(
            "SELECT outcome FROM campaign_battles WHERE seq = ?1",
            [seq],
            |r| r.get(0),
        )
        .unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The scenario of game `game`.
fn scenario_of(site: &Site, game: i64) -> String {
    site.db()
        .query_row("SELECT scenario FROM games WHERE id = ?1", [game], |r| {
            r.get(0)
        })
        .unwrap()
}

/// The dice of battle `seq` as the game option says them, from
/// (side, dice) pairs: sides with none left out.
fn dice_option(parts: &[(&str, u64)]) -> String {
    parts
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(s, n)| format!("{s}:{n}"))
        .collect::<Vec<_>>()
        .join(",")
}

/// The shipped market-garden file: the Allies (red) win battle 1, so the
/// branch goes to Arnhem (not Sainte-Mere-Eglise); red wins Arnhem too;
/// the players swap sides for the return match, and its pre-battle dice
/// follow the players (Appendix 3: "one die per victory point he won in
/// the previous battle, plus one per battle he has won in the campaign"):
/// red, now the Axis, rolls for his two victories, not the Allies. The
/// export verifies, and names battle 3 if its roles are swapped back.
#[test]
fn a_campaign_file_branches_on_the_winner_and_swaps_sides() {
    let site = crate::common::svg_site();
    let (alice, bob) = ("alice@example.org", "bob@example.org");
    let out = site.ok(&[
        "campaign",
        "new",
        "garden",
        "--file",
        &shipped("market-garden"),
        "--player",
        &format!("red={alice}"),
        "--player",
        &format!("blue={bob}"),
    ]);
    assert!(out.contains("battle game(s) 1"), "{out}");
    assert_eq!(
        seats_of(&site, 1),
        [format!("allies {alice}"), format!("axis {bob}")]
    );
    let show = site.ok(&["campaign", "show", "garden"]);
    // The branch is not known yet: battle 1 alone is listed.
    assert!(!show.contains("  2. "), "{show}");
    let mut n = 0;
    send(&site, &mut n, bob, "RESIGN\n");
    assert_eq!(status(&site, 1), "over");
    // The Allies (red) won: the branch goes to Arnhem, red still Allies.
    assert_eq!(scenario_of(&site, 2), "arnhem-bridge");
    assert_eq!(
        seats_of(&site, 2),
        [format!("allies {alice}"), format!("axis {bob}")]
    );
    let pts = |seq: u32, side: &str| outcome(&site, seq)["points"][side].as_u64().unwrap_or(0);
    assert_eq!(
        game_options(&site, 2)["campaign-dice"]
            .as_str()
            .unwrap_or(""),
        dice_option(&[("allies", pts(1, "allies") + 1), ("axis", pts(1, "axis"))])
    );
    // arnhem-bridge lists axis first.
    settle_pre_battle(&site, &mut n, 2, &[("axis", bob), ("allies", alice)]);
    send(&site, &mut n, bob, "RESIGN\n");
    assert_eq!(status(&site, 2), "over", "{}", site.ok(&["log"]));
    // The return match: the players swap sides.
    assert_eq!(scenario_of(&site, 3), "pegasus-bridge");
    assert_eq!(
        seats_of(&site, 3),
        [format!("allies {bob}"), format!("axis {alice}")]
    );
    // Red (alice) has two victories and Arnhem's Allied points; she plays
    // the Axis now.
    let red = 2 + pts(2, "allies");
    let blue = pts(2, "axis");
    let want = dice_option(&[("allies", blue), ("axis", red)]);
    assert!(want.contains("axis:"), "{want}");
    assert_eq!(game_options(&site, 3)["campaign-dice"], want.as_str());
    settle_pre_battle(&site, &mut n, 3, &[("allies", bob), ("axis", alice)]);
    send(&site, &mut n, alice, "RESIGN\n");
    assert_eq!(status(&site, 3), "over");
    assert_eq!(
        games_count(&site),
        3,
        "the campaign ends after the return match"
    );
    // Records by role: each played all three battles; alice won two.
    let show = site.ok(&["campaign", "show", "garden"]);
    assert!(show.contains("2. arnhem-bridge"), "{show}");
    assert!(show.contains("3. pegasus-bridge"), "{show}");
    assert!(!show.contains("sainte-mere"), "{show}");
    assert_eq!(record_of(&show, alice)[..2], [3, 2], "{show}");
    assert_eq!(record_of(&show, bob)[..2], [3, 1], "{show}");
    let export = site.path().join("garden.json");
    site.ok(&[
        "campaign",
        "export",
        "garden",
        "--output",
        export.to_str().unwrap(),
    ]);
    let ok = site.ok(&["verify", export.to_str().unwrap()]);
    assert!(ok.contains("campaign garden verified: 3 battles"), "{ok}");
    // As if the dice followed the sides, not the players: battle 3 named.
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&export).unwrap()).unwrap();
    v["plan"][2]["roles"] = serde_json::json!({"allies": "red", "axis": "blue"});
    let (passed, said) = verify_text(&site, "bad-roles.json", &v.to_string());
    assert!(
        !passed && said.contains("battle 3: the pre-battle dice are"),
        "{said}"
    );
}

/// The other branch: the Axis win battle 1, so the campaign goes on to
/// Sainte-Mere-Eglise.
#[test]
fn a_campaign_file_takes_the_axis_branch() {
    let site = crate::common::svg_site();
    site.ok(&[
        "campaign",
        "new",
        "garden",
        "--file",
        &shipped("market-garden"),
        "--player",
        "red=alice@example.org",
        "--player",
        "blue=bob@example.org",
    ]);
    let mut n = 0;
    send(&site, &mut n, "alice@example.org", "RESIGN\n");
    assert_eq!(scenario_of(&site, 2), "sainte-mere-eglise");
    let show = site.ok(&["campaign", "show", "garden"]);
    assert!(show.contains("2. sainte-mere-eglise"), "{show}");
    assert!(!show.contains("arnhem"), "{show}");
}

fn games_count(site: &Site) -> i64 {
    site.db()
        .query_row("SELECT count(*) FROM games", [], |r| r.get(0))
        .unwrap()
}

/// `pre_battle_dice = false`: a Memoir '44 series without the Simplified
/// Campaign Rules. No battle rolls, and the export verifies (it says the
/// campaign rolls none).
#[test]
fn a_campaign_file_may_roll_no_pre_battle_dice() {
    let site = crate::common::svg_site();
    let file = site.path().join("friendly.toml");
    std::fs::write(
        &file,
        format!(
            "roles = [\"p1\", \"p2\"]\npre_battle_dice = false\n\n{PEGASUS}\n[[battle]]\nid = \"b\"\nscenario = \"pegasus-bridge\"\nsides = {{ allies = \"p2\", axis = \"p1\" }}\n"
        ),
    )
    .unwrap();
    site.ok(&[
        "campaign",
        "new",
        "friendly",
        "--file",
        file.to_str().unwrap(),
        "--player",
        "p1=alice@example.org",
        "--player",
        "p2=bob@example.org",
    ]);
    let mut n = 0;
    send(&site, &mut n, "bob@example.org", "RESIGN\n");
    assert_eq!(status(&site, 2), "active");
    assert!(game_options(&site, 2).get("campaign-dice").is_none());
    send(&site, &mut n, "bob@example.org", "RESIGN\n");
    assert_eq!(status(&site, 2), "over");
    let export = site.path().join("friendly.json");
    site.ok(&[
        "campaign",
        "export",
        "friendly",
        "--output",
        export.to_str().unwrap(),
    ]);
    assert!(std::fs::read_to_string(&export)
        .unwrap()
        .contains("\"pre_battle_dice\": false"));
    let ok = site.ok(&["verify", export.to_str().unwrap()]);
    assert!(ok.contains("campaign friendly verified: 2 battles"), "{ok}");
}

/// A player replaced in a campaign file's battle hands over his ROLE: the
/// next battle, whose sides are swapped, seats the newcomer on the side
/// that role plays there, and the old player's record stays closed.
#[test]
fn a_replaced_player_hands_over_his_role() {
    let site = crate::common::svg_site();
    site.ok(&[
        "campaign",
        "new",
        "round",
        "--file",
        &shipped("both-sides"),
        "--player",
        "player-1=alice@example.org",
        "--player",
        "player-2=bob@example.org",
    ]);
    // Battle 1: player-2 (bob) plays the Axis; carol takes his seat.
    site.ok(&["replace-seat", "1", "axis", "carol@example.org"]);
    let mut n = 0;
    send(&site, &mut n, "alice@example.org", "RESIGN\n");
    assert_eq!(status(&site, 1), "over");
    // Battle 2 swaps the sides: player-2 (now carol) plays the Allies.
    assert_eq!(
        seats_of(&site, 2),
        ["allies carol@example.org", "axis alice@example.org"]
    );
    let show = site.ok(&["campaign", "show", "round"]);
    assert!(
        show.lines()
            .any(|l| l.contains("bob@example.org") && l.contains("(replaced)")),
        "{show}"
    );
    assert!(
        show.lines()
            .any(|l| l.contains("player-2") && l.contains("carol@example.org")),
        "{show}"
    );
    // Carol has battle 1 (won with the Axis) on her record.
    assert_eq!(record_of(&show, "carol@")[..2], [1, 1], "{show}");
    assert_eq!(record_of(&show, "alice@")[..2], [1, 0], "{show}");
}

/// A campaign file may name a club's own scenario file, found from the
/// campaign file's folder; the campaign keeps its full path, so the judge
/// creates the next battle from wherever it runs.
#[test]
fn a_campaign_file_names_a_scenario_file_beside_it() {
    let site = crate::common::svg_site();
    let club = site.path().join("club");
    std::fs::create_dir_all(&club).unwrap();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::copy(
        root.join("scenarios/memoir44/pegasus-bridge.toml"),
        club.join("our-bridge.toml"),
    )
    .unwrap();
    std::fs::write(
        club.join("ours.toml"),
        "roles = [\"p1\", \"p2\"]\n\n[[battle]]\nid = \"a\"\nscenario = \"pegasus-bridge\"\nsides = { allies = \"p1\", axis = \"p2\" }\n\n[[battle]]\nid = \"b\"\nscenario = \"our-bridge.toml\"\nsides = { allies = \"p2\", axis = \"p1\" }\n",
    )
    .unwrap();
    // Started from the club's folder with a relative path...
    let out = site
        .command(&[
            "campaign",
            "new",
            "ours",
            "--file",
            "ours.toml",
            "--player",
            "p1=alice@example.org",
            "--player",
            "p2=bob@example.org",
        ])
        .current_dir(&club)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // ...and battle 2 created by a judge run from elsewhere.
    let mut n = 0;
    send(&site, &mut n, "bob@example.org", "RESIGN\n");
    assert_eq!(status(&site, 2), "active", "{}", site.ok(&["log"]));
    assert_eq!(
        seats_of(&site, 2),
        ["allies bob@example.org", "axis alice@example.org"]
    );
}
