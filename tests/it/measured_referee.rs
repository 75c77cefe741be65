//! The referee (the Seven Years' War set's umpire: "Off table movement via
//! umpire") corrects a measured game with `adjutant amend`: the correction
//! is a turn of its own with its reason and an `amended` audit event, the
//! game goes on after it, a bad correction is refused with its line and
//! changes nothing, and `export` + `verify` replay every turn.

use crate::common;
use common::Site;

fn export(site: &Site, name: &str) -> serde_json::Value {
    let path = site.path().join(name);
    site.ok(&[
        "export",
        "1",
        "--include-seed",
        "--output",
        path.to_str().unwrap(),
    ]);
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

#[test]
fn the_umpire_amends_a_seven_years_war_game_and_verify_replays_it() {
    let site = Site::new();
    site.ok(&[
        "new-game",
        "--scenario",
        "minden-1759",
        "--seat",
        "allied=ann@example.org",
        "--seat",
        "french=bob@example.org",
    ]);
    // Before the first player-turn (the horse has not thrown for entry
    // yet), the umpire brings the off-table horse on and corrects a
    // battalion's figures.
    let out = site.ok(&[
        "amend",
        "1",
        "--reason",
        "the umpire rules the horse has arrived",
        "UNIT HANHORSE ENTER",
        "UNIT 12TH FIGURES 20",
    ]);
    assert!(out.contains("corrected as turn 1"), "{out}");

    // One bad line: refused, naming it, and nothing changes.
    let bad = site.run(&[
        "amend",
        "1",
        "--reason",
        "typo",
        "UNIT 37TH FIGURES 3",
        "UNIT NOBODY REMOVE",
    ]);
    assert_eq!(bad.status.code(), Some(1));
    let err = String::from_utf8_lossy(&bad.stderr);
    // The stored correction's line 1 is its REASON: the bad line is 3.
    assert!(
        err.contains("line 3") && err.contains("no unit NOBODY"),
        "{err}"
    );

    // The game goes on: the Allied, then the French player-turn.
    let orders = site.path().join("orders.txt");
    std::fs::write(&orders, "PASS\n").unwrap();
    site.ok(&["submit", "1", "allied", orders.to_str().unwrap()]);
    site.ok(&["submit", "1", "french", orders.to_str().unwrap()]);

    let json = export(&site, "game.json");
    let turns = json["turns"].as_array().unwrap();
    assert_eq!(turns.len(), 3, "{json}");
    let ev = turns[0]["events"].as_array().unwrap();
    assert_eq!(ev[0]["kind"], "referee-note", "{ev:?}");
    assert_eq!(ev[0]["reason"], "the umpire rules the horse has arrived");
    assert_eq!(ev[1]["kind"], "amended", "{ev:?}");
    assert_eq!(
        ev[1]["lines"],
        serde_json::json!(["UNIT HANHORSE ENTER", "UNIT 12TH FIGURES 20"])
    );
    let path = site.path().join("game.json");
    let v = site.ok(&["verify", path.to_str().unwrap()]);
    assert!(v.contains("3 turns replayed identically"), "{v}");

    // The horse is on the table in the players' reports after the
    // correction, and the mails say the referee corrected the position.
    let mails: Vec<String> = site
        .outbox()
        .into_iter()
        .map(|(_, t)| common::unqp(&t))
        .collect();
    assert!(
        mails
            .iter()
            .any(|m| m.contains("The referee corrects the position: UNIT HANHORSE ENTER")),
        "no report of the correction"
    );
    // And the players are told why (issue 29: the referee's note is the
    // judge's event, described for every family, not only Memoir '44).
    assert!(
        mails
            .iter()
            .any(|m| m.contains("The referee's reason: the umpire rules the horse has arrived")),
        "the players' reports never give the referee's reason"
    );
}
