//! The club's standings (issue 33, docs/standings.md) over a judge with
//! more than 50 finished games of five rulesets, a team game, a game
//! played to its end by the rules, a missed deadline and a running game:
//! every number of `adjutant standings --json` is counted again here from
//! the games' exports and the seats this test gave; a running game's moves
//! never change what STANDINGS shows; PRIVATE leaves a player out.

use crate::common::{self, Site};
use crate::golden::games::specs;
use adjutant::service::clock::FixedClock;
use adjutant::service::{GameOptions, Judge};
use serde_json::Value;
use std::collections::BTreeMap;

const NOW: &str = "2026-11-20T12:00:00Z";

fn judge_at(site: &Site, at: chrono::DateTime<chrono::Utc>) -> Judge {
    let cfg = adjutant::config::Config::load(&site.config()).unwrap();
    Judge::open(cfg, Box::new(FixedClock(at))).unwrap()
}

fn t0() -> chrono::DateTime<chrono::Utc> {
    chrono::DateTime::parse_from_rfc3339(NOW).unwrap().to_utc()
}

/// The scenarios played, one of each rules family's rulesets, and their
/// sides.
const PLAYED: [(&str, [&str; 2]); 5] = [
    ("pegasus-bridge", ["allies", "axis"]),
    ("le-cateau-1914", ["british", "german"]),
    ("villers-bocage-1944", ["british", "german"]),
    ("el-bodon-1811", ["british", "french"]),
    ("minden-1759", ["allied", "french"]),
];

const PLAYERS: [&str; 6] = [
    "ann@example.org",
    "bill@example.org",
    "cath@example.org",
    "dora@example.org",
    "emil@example.org",
    "fay@example.org",
];

/// The secret of `who`'s seat in game `id`, from its welcome mail.
fn secret(site: &Site, judge: &Judge, id: i64, who: &str) -> String {
    let row: i64 = site
        .db()
        .query_row(
            "SELECT id FROM outbox WHERE kind = 'welcome' AND recipient = ?1 AND game_id = ?2",
            rusqlite::params![who, id],
            |r| r.get(0),
        )
        .unwrap();
    let raw = judge.outbox_mail(row).unwrap().expect("the welcome mail");
    let text = common::unqp(&String::from_utf8_lossy(&raw));
    let line = text
        .lines()
        .find(|l| l.starts_with("Your secret: "))
        .expect("a secret");
    line["Your secret: ".len()..].trim().to_string()
}

/// A mail from `who` to game `id` with `lines`; the judge's outcome.
fn send(site: &Site, judge: &mut Judge, id: i64, who: &str, lines: &str) -> String {
    let body = format!(
        "GAME {id}\nPASSWORD {}\n{lines}",
        secret(site, judge, id, who)
    );
    let msgid = format!("<{id}-{who}-{}@test>", lines.trim().replace(' ', "-"));
    let raw = common::mail(who, "judge@localhost", "standings test", &msgid, &body);
    match judge.inbound().handle_mail(&raw, "test").unwrap() {
        adjutant::service::MailOutcome::Handled { outcome, .. } => outcome,
        other => format!("{other:?}"),
    }
}

/// The newest answer to `who`, its text.
fn answer(site: &Site, judge: &Judge, who: &str) -> String {
    let row: i64 = site
        .db()
        .query_row(
            "SELECT max(id) FROM outbox WHERE kind = 'reply' AND recipient = ?1",
            [who],
            |r| r.get(0),
        )
        .unwrap();
    let raw = judge.outbox_mail(row).unwrap().expect("the mail's bytes");
    let msg = mail_parser::MessageParser::default().parse(&raw).unwrap();
    msg.body_text(0).unwrap().into_owned()
}

/// The players of each side of every game, as this test seated them.
type Seating = BTreeMap<i64, Vec<(String, Vec<String>)>>;

/// A game of `scenario` with `sides` seated by `players` (several a side:
/// a team), ended at once: `how` "resign:N" (side N resigns) or "draw".
fn quick_game(
    site: &Site,
    judge: &mut Judge,
    seating: &mut Seating,
    scenario: &str,
    sides: &[(&str, Vec<&str>)],
    how: &str,
) -> i64 {
    let seats: Vec<(String, String)> = sides
        .iter()
        .flat_map(|(s, ps)| ps.iter().map(|p| ((*s).to_string(), (*p).to_string())))
        .collect();
    let id = judge
        .turns()
        .new_game(scenario, &seats, &GameOptions::default())
        .unwrap();
    let first = |n: usize| sides[n].1[0];
    match how {
        "draw" => {
            send(site, judge, id, first(0), "DRAW\n");
            send(site, judge, id, first(1), "DRAW\n");
        }
        _ => {
            let n: usize = how.trim_start_matches("resign:").parse().unwrap();
            send(site, judge, id, first(n), "RESIGN\n");
        }
    }
    assert_eq!(judge.game(id).unwrap().status, "over", "{scenario}: {how}");
    seating.insert(
        id,
        sides
            .iter()
            .map(|(s, ps)| {
                (
                    (*s).to_string(),
                    ps.iter().map(|p| (*p).to_string()).collect(),
                )
            })
            .collect(),
    );
    id
}

/// What the standings must say of one player, counted from the exports.
#[derive(Debug, Default, PartialEq)]
struct Counted {
    /// ruleset -> (games, won, drawn, lost)
    by_ruleset: BTreeMap<String, [u64; 4]>,
    orders: u64,
    resigned: u64,
}

fn count_from_exports(judge: &Judge, seating: &Seating) -> BTreeMap<String, Counted> {
    let mut out: BTreeMap<String, Counted> = BTreeMap::new();
    for (id, sides) in seating {
        let ex = serde_json::to_value(judge.exports().export(*id, false).unwrap()).unwrap();
        if ex["status"] != "over" {
            continue;
        }
        let result = ex["result"].as_str().expect("a finished game's result");
        let ruleset = ex["ruleset"].as_str().unwrap().to_string();
        for (side, players) in sides {
            let k = if result.is_empty() {
                2
            } else if result == side {
                1
            } else {
                3
            };
            let orders = ex["turns"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|t| t["orders"].as_array().unwrap().iter())
                .filter(|o| o["side"] == side.as_str())
                .count() as u64;
            let resigned =
                ex["ending"]["kind"] == "resigned" && ex["ending"]["side"] == side.as_str();
            for p in players {
                let c = out.entry(p.clone()).or_default();
                let t = c.by_ruleset.entry(ruleset.clone()).or_default();
                t[0] += 1;
                t[k] += 1;
                c.orders += orders;
                c.resigned += u64::from(resigned);
            }
        }
    }
    out
}

fn from_standings(json: &Value) -> BTreeMap<String, Counted> {
    let mut out = BTreeMap::new();
    for p in json["players"].as_array().unwrap() {
        let by_ruleset = p["by_ruleset"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(r, t)| {
                let n = |k: &str| t[k].as_u64().unwrap();
                (r.clone(), [n("games"), n("won"), n("drawn"), n("lost")])
            })
            .collect();
        out.insert(
            p["player"].as_str().unwrap().to_string(),
            Counted {
                by_ruleset,
                orders: p["reliability"]["orders"].as_u64().unwrap(),
                resigned: p["reliability"]["resigned"].as_u64().unwrap(),
            },
        );
    }
    out
}

/// A judge with 50 games of five rulesets ended by a resignation or an
/// agreed draw, a team game, a game played to its end by the rules and a
/// running game with a deadline: the site, the judge (its clock at
/// `t0`), the seating of the finished games and the running game's id.
fn club() -> (Site, Judge, Seating, i64) {
    let site = crate::common::svg_site();
    let mut judge = judge_at(&site, t0());
    let mut seating = Seating::new();
    // 50 games, each ended by a resignation or an agreed draw.
    for i in 0..50usize {
        let (scenario, sides) = PLAYED[i % PLAYED.len()];
        let a = PLAYERS[i % PLAYERS.len()];
        let b = PLAYERS[(i * 5 + 1 + i / 6) % PLAYERS.len()];
        let b = if a == b {
            PLAYERS[(i + 3) % PLAYERS.len()]
        } else {
            b
        };
        let how = if i % 7 == 3 {
            "draw".to_string()
        } else {
            format!("resign:{}", (i / 3) % 2)
        };
        quick_game(
            &site,
            &mut judge,
            &mut seating,
            scenario,
            &[(sides[0], vec![a]), (sides[1], vec![b])],
            &how,
        );
    }
    // A team game: two against one; the lone axis player resigns.
    quick_game(
        &site,
        &mut judge,
        &mut seating,
        "pegasus-bridge",
        &[
            ("allies", vec!["ann@example.org", "bill@example.org"]),
            ("axis", vec!["cath@example.org"]),
        ],
        "resign:1",
    );
    // A game played to its end by the rules, with its orders.
    let spec = specs("memoir44")
        .into_iter()
        .find(|s| {
            s.scenario == "pegasus-bridge" && !s.other_grid && !s.variant && s.options.is_empty()
        })
        .unwrap();
    let (played, id) = crate::replay::play_game(&site, &spec, 300);
    assert_eq!(played.game(id).unwrap().status, "over");
    assert!(played.game(id).unwrap().turn > 5);
    seating.insert(
        id,
        vec![
            ("allies".into(), vec!["allies@example.org".into()]),
            ("axis".into(), vec!["axis@example.org".into()]),
        ],
    );
    drop(played);
    // A running game with a deadline the axis misses.
    let mut opts = GameOptions {
        deadline_secs: Some(3600),
        ..GameOptions::default()
    };
    opts.nmr_policy = "wait".into();
    let running = judge
        .turns()
        .new_game(
            "pegasus-bridge",
            &[
                ("allies".into(), "dora@example.org".into()),
                ("axis".into(), "emil@example.org".into()),
            ],
            &opts,
        )
        .unwrap();
    (site, judge, seating, running)
}

#[test]
fn standings_over_fifty_games_agree_with_the_exports_and_ignore_running_games() {
    let (site, mut judge, seating, running) = club();
    let before = site.ok(&["standings", "--json"]);
    let before_text = site.ok(&["standings"]);
    let json: Value = serde_json::from_str(&before).unwrap();
    assert_eq!(json["games"], 52, "50 + the team game + the one played out");
    let want = count_from_exports(&judge, &seating);
    let got = from_standings(&json);
    assert_eq!(got, want, "the standings against the exports");
    for p in json["players"].as_array().unwrap() {
        let r = p["rating"].as_f64().unwrap();
        assert!(r.is_finite() && r > 0.0, "{p}");
    }
    // The running game moves on: a missed deadline, orders, a PRESS.
    judge.clock = Box::new(FixedClock(t0() + chrono::Duration::hours(2)));
    judge.deadlines().tick().unwrap();
    let (moved, _) = judge.game(running).map(|g| (g.turn, g.status)).unwrap();
    let pos = judge.position(&judge.game(running).unwrap(), None).unwrap();
    let side = pos.rules.phase(&pos.state).sides[0].clone();
    let who = if side == "allies" {
        "dora@example.org"
    } else {
        "emil@example.org"
    };
    let orders = pos
        .rules
        .pass_orders(&pos.state, &side)
        .unwrap_or_else(|| "PASS".into());
    send(&site, &mut judge, running, who, &orders);
    assert!(
        judge.game(running).unwrap().turn > moved,
        "the running game moved"
    );
    assert_eq!(
        site.ok(&["standings", "--json"]),
        before,
        "a running game changes nothing"
    );
    assert_eq!(site.ok(&["standings"]), before_text);
    // STANDINGS by mail, from a seat: the same text.
    send(
        &site,
        &mut judge,
        running,
        "dora@example.org",
        "STANDINGS\n",
    );
    // A text part's lines end in CRLF in the mail.
    let said = answer(&site, &judge, "dora@example.org").replace("\r\n", "\n");
    if !said.contains(before_text.trim_end()) {
        std::fs::write("/tmp/standings-said.txt", &said).unwrap();
        std::fs::write("/tmp/standings-cli.txt", &before_text).unwrap();
        panic!("STANDINGS by mail differs from adjutant standings");
    }
    for line in said.lines() {
        assert!(line.chars().count() <= 80, "over 80 columns: {line}");
    }
    private_leaves_fay_out(&site, &mut judge, &seating, want, &before);
    // The running game ends: now it counts, its missed deadline and the
    // late orders after it too.
    let other = if who == "dora@example.org" {
        "emil@example.org"
    } else {
        "dora@example.org"
    };
    send(&site, &mut judge, running, other, "RESIGN\n");
    let record = |json: &Value, p: &str| -> Value {
        json["players"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["player"] == p)
            .map(|x| x["reliability"].clone())
            .unwrap()
    };
    let old: Value = serde_json::from_str(&before).unwrap();
    let new: Value = serde_json::from_str(&site.ok(&["standings", "--json"])).unwrap();
    assert_eq!(new["games"], 53);
    let (a, b) = (record(&old, who), record(&new, who));
    let n = |v: &Value, k: &str| v[k].as_u64().unwrap();
    assert_eq!(n(&b, "orders"), n(&a, "orders") + 1, "{a} {b}");
    assert_eq!(
        n(&b, "on_time"),
        n(&a, "on_time"),
        "sent after the deadline: {b}"
    );
    assert_eq!(
        n(&b, "missed_deadlines"),
        n(&a, "missed_deadlines") + 1,
        "{b}"
    );
    let (a, b) = (record(&old, other), record(&new, other));
    assert_eq!(n(&b, "resigned"), n(&a, "resigned") + 1, "{b}");
}

/// PRIVATE: fay is left out; her opponents keep their games with her;
/// PRIVATE OFF lists her again (the standings as `before`).
fn private_leaves_fay_out(
    site: &Site,
    judge: &mut Judge,
    seating: &Seating,
    want: BTreeMap<String, Counted>,
    before: &str,
) {
    let fays_game = *seating
        .iter()
        .find(|(_, sides)| {
            sides
                .iter()
                .any(|(_, p)| p.contains(&"fay@example.org".to_string()))
        })
        .unwrap()
        .0;
    send(site, judge, fays_game, "fay@example.org", "PRIVATE\n");
    let json: Value = serde_json::from_str(&site.ok(&["standings", "--json"])).unwrap();
    let listed: Vec<&str> = json["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["player"].as_str().unwrap())
        .collect();
    assert!(!listed.contains(&"fay@example.org"), "{listed:?}");
    assert_eq!(json["left_out"], 1);
    let mut want = want;
    want.remove("fay@example.org");
    assert_eq!(
        from_standings(&json),
        want,
        "the others' records stay whole"
    );
    assert!(!site.ok(&["standings"]).contains("fay@"));
    send(site, judge, fays_game, "fay@example.org", "PRIVATE OFF\n");
    assert_eq!(site.ok(&["standings", "--json"]), before, "listed again");
}

/// A stranger (no seat, or a forged address without the seat's secret)
/// gets no standings.
#[test]
fn standings_need_a_seat() {
    let site = crate::common::svg_site();
    let judge = judge_at(&site, t0());
    judge
        .turns()
        .new_game(
            "pegasus-bridge",
            &[
                ("allies".into(), "ann@example.org".into()),
                ("axis".into(), "bill@example.org".into()),
            ],
            &GameOptions::default(),
        )
        .unwrap();
    let raw = common::mail(
        "eve@example.org",
        "judge@localhost",
        "standings",
        "<eve-standings@test>",
        "GAME 1\nPASSWORD wrong\nSTANDINGS\n",
    );
    judge.inbound().handle_mail(&raw, "test").unwrap();
    let rows: Vec<i64> = {
        let db = site.db();
        let mut st = db
            .prepare("SELECT id FROM outbox WHERE recipient = 'eve@example.org'")
            .unwrap();
        st.query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    };
    for row in rows {
        let raw = judge.outbox_mail(row).unwrap().unwrap();
        let text = common::unqp(&String::from_utf8_lossy(&raw));
        assert!(!text.contains("Standings over"), "{text}");
    }
}

/// A player the host replaced (`replace-seat`) has left the game: once it
/// is over it counts as a game left before the end, not as a result; the
/// newcomer gets the result.
#[test]
fn a_replaced_player_has_a_game_left_and_no_result() {
    let site = crate::common::svg_site();
    let mut judge = judge_at(&site, t0());
    let id = judge
        .turns()
        .new_game(
            "pegasus-bridge",
            &[
                ("allies".into(), "ann@example.org".into()),
                ("axis".into(), "bill@example.org".into()),
            ],
            &GameOptions::default(),
        )
        .unwrap();
    judge
        .seats()
        .replace_seat(id, "axis", Some("cath@example.org"))
        .unwrap();
    let json: Value = serde_json::from_str(&site.ok(&["standings", "--json"])).unwrap();
    assert_eq!(
        json["players"],
        serde_json::json!([]),
        "nothing finished yet"
    );
    send(&site, &mut judge, id, "cath@example.org", "RESIGN\n");
    let json: Value = serde_json::from_str(&site.ok(&["standings", "--json"])).unwrap();
    let of = |p: &str| {
        json["players"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["player"] == p)
            .cloned()
            .unwrap_or_else(|| panic!("{p} not listed: {json}"))
    };
    assert_eq!(of("bill@example.org")["reliability"]["abandoned"], 1);
    assert_eq!(of("bill@example.org")["total"]["games"], 0);
    assert_eq!(of("cath@example.org")["total"]["lost"], 1);
    assert_eq!(of("ann@example.org")["total"]["won"], 1);
    assert!(site
        .ok(&["standings"])
        .contains("games left before the end: 1"));
}
