//! The tamper property (issue 51, acceptance 1; docs/security.md, "What
//! `verify` proves"): for random finished and running games of every
//! family (with a team, a referee's amendment, a resignation, an agreed
//! draw, a campaign), the honest export always verifies, and every single
//! change of one field of it (a result, an ending, an order, a die, an
//! event, an option, a time, a turn dropped or moved) makes `verify` fail,
//! naming what differs, or the file unreadable. Played through the service
//! on a real SQLite file, the ending acts by mail.
//!
//! Depth (docs/testing.md): `cargo test` plays every kind of game once and
//! tries a sample of each export's fields; `ADJUTANT_DEEP=1` plays
//! `TAMPER_GAMES` seeds of each (default 2 deep, 1 quick) and tries every shape of field
//! (the first of each path, array indices left out) and 50 more at random.

use crate::common::{depth, mail, Site};
use crate::golden::games::random_orders;
use adjutant::engine::dice::{derive, ChaChaDice, Dice};
use adjutant::rules::Load;
use adjutant::service::campaign::{self, CampaignSpec};
use adjutant::service::clock::FixedClock;
use adjutant::service::{export, GameOptions, Judge, ServiceError};
use serde_json::Value;

const NOW: &str = "2026-11-22T10:00:00Z";

fn judge(site: &Site) -> Judge {
    let cfg = adjutant::config::Config::load(&site.config()).unwrap();
    let now = chrono::DateTime::parse_from_rfc3339(NOW).unwrap().to_utc();
    Judge::open(cfg, Box::new(FixedClock(now))).unwrap()
}

/// How a random game ends (or does not).
#[derive(Debug, Clone, Copy, PartialEq)]
enum End {
    /// Still running: the players' export (no seed, redacted) and the host's.
    Running,
    Resign,
    Draw,
    /// Played until the rules end it (or the phase cap: then running).
    Played,
}

/// One kind of random game.
struct Kind {
    ruleset: &'static str,
    scenario: &'static str,
    /// Seats: (side, address); a side twice is a team.
    seats: &'static [(&'static str, &'static str)],
    referee: bool,
    phases: u32,
    end: End,
}

const KINDS: &[Kind] = &[
    Kind {
        ruleset: "memoir44",
        scenario: "pegasus-bridge",
        seats: &[
            ("allies", "ann@example.org"),
            ("axis", "dora@example.org"),
            ("axis", "emil@example.org"),
        ],
        referee: true,
        phases: 6,
        end: End::Resign,
    },
    Kind {
        ruleset: "memoir44",
        scenario: "sainte-mere-eglise",
        seats: &[("allies", "ann@example.org"), ("axis", "dora@example.org")],
        referee: true,
        phases: 5,
        end: End::Draw,
    },
    Kind {
        ruleset: "memoir44",
        scenario: "arnhem-bridge",
        seats: &[("allies", "ann@example.org"), ("axis", "dora@example.org")],
        referee: false,
        phases: 6,
        end: End::Running,
    },
    Kind {
        ruleset: "memoir44",
        scenario: "pegasus-bridge",
        seats: &[("allies", "ann@example.org"), ("axis", "dora@example.org")],
        referee: false,
        phases: 60,
        end: End::Played,
    },
    Kind {
        ruleset: "memoir-of-battle",
        scenario: "le-cateau-1914",
        seats: &[],
        referee: true,
        phases: 8,
        end: End::Resign,
    },
    Kind {
        ruleset: "memoir-of-modern-battle",
        scenario: "villers-bocage-1944",
        seats: &[],
        referee: false,
        phases: 6,
        end: End::Running,
    },
    Kind {
        ruleset: "charge",
        scenario: "el-bodon-1811",
        seats: &[],
        referee: false,
        phases: 4,
        end: End::Draw,
    },
    Kind {
        ruleset: "seven-years-war",
        scenario: "minden-1759",
        seats: &[],
        referee: false,
        phases: 4,
        end: End::Running,
    },
];

/// The secret mailed to `email` for `game` (its welcome's PASSWORD line).
fn secret(site: &Site, judge: &Judge, game: i64, email: &str) -> String {
    let db = site.db();
    let mut st = db
        .prepare("SELECT id FROM outbox WHERE game_id = ?1 AND recipient = ?2 ORDER BY id")
        .unwrap();
    let ids: Vec<i64> = st
        .query_map(rusqlite::params![game, email], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    ids.iter()
        .find_map(|id| {
            let raw = judge.outbox_mail(*id).unwrap()?;
            let msg = mail_parser::MessageParser::default().parse(&raw)?;
            let text = msg.body_text(0)?.into_owned();
            text.lines()
                .find_map(|l| l.trim().strip_prefix("PASSWORD ").map(str::to_string))
        })
        .unwrap_or_else(|| panic!("{email}'s secret of game {game}"))
}

/// A mail of `email` to the judge for `game`, with its secret.
fn by_mail(site: &Site, judge: &mut Judge, game: i64, email: &str, body: &str, n: &mut u32) {
    *n += 1;
    let pw = secret(site, judge, game, email);
    let raw = mail(
        email,
        "judge@localhost",
        "orders",
        &format!("t{n}@example.org"),
        &format!("GAME {game}\nPASSWORD {pw}\n{body}"),
    );
    judge.inbound().handle_mail(&raw, "test").unwrap();
}

/// Play `phases` phases of random orders (a refused set replaced by the
/// side's pass); false once the game is over.
fn play(judge: &mut Judge, id: i64, phases: u32, rng: &mut ChaChaDice) -> bool {
    for _ in 0..phases {
        let game = judge.game(id).unwrap();
        let pos = judge.position(&game, None).unwrap();
        let phase = pos.rules.phase(&pos.state);
        if game.status == "over" {
            return false;
        }
        if phase.sides.is_empty() {
            return true;
        }
        for o in random_orders(&pos.rules, &pos.state, &phase.sides, rng) {
            if let Err(ServiceError::Rejected(_)) = judge.turns().submit(id, &o.side, &o.text) {
                let pass = pos.rules.pass_orders(&pos.state, &o.side);
                let _ = judge
                    .turns()
                    .submit(id, &o.side, pass.as_deref().unwrap_or("PASS"));
            }
        }
    }
    judge.game(id).unwrap().status != "over"
}

/// A referee's correction that the family takes: a side's score set to
/// what it is (a change of nothing, still a turn of its own).
fn amend(judge: &mut Judge, id: i64) {
    let game = judge.game(id).unwrap();
    let pos = judge.position(&game, None).unwrap();
    let side = pos.rules.sides(&pos.state)[0].clone();
    let fix = match pos.rules.family() {
        "memoir44" => {
            let medals = pos.rules.score(&pos.state);
            let n = medals.iter().find(|(s, _)| *s == side).map_or(0, |x| x.1);
            format!("MEDALS {side} {n}")
        }
        _ => return,
    };
    judge
        .referee()
        .amend(id, &fix, "the property test's correction")
        .unwrap();
}

/// Play seed `n` of `kind`; the exports to tamper with (as JSON).
fn game_exports(kind: &Kind, n: u64) -> Vec<(String, Value)> {
    let site = crate::common::svg_site();
    let mut judge = judge(&site);
    let seed = derive(
        "adjutant/tamper",
        &[kind.scenario.as_bytes(), &n.to_le_bytes()],
    );
    let mut rng = ChaChaDice::from_seed(seed);
    let rules = adjutant::rules::Rules::of_game(kind.ruleset, None).unwrap();
    let scenario = adjutant::rules::Scenario::shipped(kind.scenario);
    let sides = rules.sides(&adjutant::service::setup_state(&rules, &scenario, &seed).unwrap());
    let seats: Vec<(String, String)> = if kind.seats.is_empty() {
        sides
            .iter()
            .map(|s| (s.clone(), format!("{s}@example.org")))
            .collect()
    } else {
        kind.seats
            .iter()
            .map(|(s, e)| ((*s).to_string(), (*e).to_string()))
            .collect()
    };
    let mut opts = GameOptions::default();
    if kind.referee {
        opts.referee = Some("referee@example.org".into());
    }
    let id = judge
        .turns()
        .new_game(kind.scenario, &seats, &opts)
        .unwrap();
    let mut mails = 0;
    let first = &seats[0].1;
    by_mail(&site, &mut judge, id, first, "PRESS good luck", &mut mails);
    let half = kind.phases / 2;
    let mut running = play(&mut judge, id, half, &mut rng);
    if running && kind.referee {
        amend(&mut judge, id);
    }
    if running {
        running = play(&mut judge, id, kind.phases - half, &mut rng);
    }
    let other = seats
        .iter()
        .find(|(s, _)| *s != seats[0].0)
        .unwrap()
        .1
        .clone();
    if running {
        match kind.end {
            End::Resign => by_mail(&site, &mut judge, id, &other, "RESIGN", &mut mails),
            End::Draw => {
                by_mail(&site, &mut judge, id, first, "DRAW", &mut mails);
                by_mail(&site, &mut judge, id, &other, "DRAW", &mut mails);
            }
            End::Running | End::Played => {}
        }
    }
    let what = format!("{} {} seed {n}", kind.ruleset, kind.scenario);
    let mut out = vec![(
        format!("{what}: the host's export"),
        serde_json::to_value(judge.exports().export_with(id, true, false).unwrap()).unwrap(),
    )];
    if let Ok(players) = judge.exports().export(id, false) {
        out.push((
            format!("{what}: the players' export"),
            serde_json::to_value(players).unwrap(),
        ));
    }
    out
}

/// A campaign of two Pegasus Bridge battles: the first resigned, the
/// second running. Its export (as JSON).
fn campaign_export(n: u64) -> Value {
    let site = crate::common::svg_site();
    let mut judge = judge(&site);
    let spec = CampaignSpec {
        name: format!("season{n}"),
        scenarios: vec!["pegasus-bridge".into(), "pegasus-bridge".into()],
        players: vec![
            ("allies".into(), "ann@example.org".into()),
            ("axis".into(), "dora@example.org".into()),
        ],
        opts: GameOptions::default(),
        all_at_once: false,
        plan: None,
    };
    let (_, games) = judge.campaigns().create(&spec).unwrap();
    let mut mails = 0;
    let mut rng = ChaChaDice::from_seed(derive("adjutant/tamper-campaign", &[&n.to_le_bytes()]));
    play(&mut judge, games[0], 2, &mut rng);
    by_mail(
        &site,
        &mut judge,
        games[0],
        "dora@example.org",
        "RESIGN",
        &mut mails,
    );
    // The second battle: its pre-battle choices by PASS, then a phase.
    let second = games[0] + 1;
    for email in ["ann@example.org", "dora@example.org", "ann@example.org"] {
        if judge.game(second).is_ok() {
            by_mail(&site, &mut judge, second, email, "PASS", &mut mails);
        }
    }
    play(&mut judge, second, 2, &mut rng);
    serde_json::to_value(judge.campaigns().export(&spec.name, false).unwrap()).unwrap()
}

/// A step into a JSON value.
#[derive(Debug, Clone)]
enum Step {
    Key(String),
    At(usize),
}

fn get_mut<'a>(v: &'a mut Value, path: &[Step]) -> &'a mut Value {
    path.iter().fold(v, |v, s| match s {
        Step::Key(k) => &mut v[k.as_str()],
        Step::At(i) => &mut v[*i],
    })
}

fn show(path: &[Step]) -> String {
    path.iter()
        .map(|s| match s {
            Step::Key(k) => format!(".{k}"),
            Step::At(i) => format!("[{i}]"),
        })
        .collect()
}

/// A path with its array indices left out: `.turns[].events[].rolls[]`.
fn shape(path: &[Step]) -> String {
    path.iter()
        .map(|s| match s {
            Step::Key(k) => format!(".{k}"),
            Step::At(_) => "[]".into(),
        })
        .collect()
}

/// How many of an export's single-field changes a run tries.
#[derive(Debug, Clone, Copy)]
struct Depth {
    /// Fields (and arrays) drawn at random.
    sample: usize,
    /// And the first field (and array) of every shape.
    every_shape: bool,
}

/// Every scalar of `v` (its path), and every array (for drops and moves).
fn walk(v: &Value, path: &mut Vec<Step>, leaves: &mut Vec<Vec<Step>>, arrays: &mut Vec<Vec<Step>>) {
    match v {
        Value::Object(o) => {
            for (k, x) in o {
                path.push(Step::Key(k.clone()));
                walk(x, path, leaves, arrays);
                path.pop();
            }
        }
        Value::Array(a) => {
            if !a.is_empty() {
                arrays.push(path.clone());
            }
            for (i, x) in a.iter().enumerate() {
                path.push(Step::At(i));
                walk(x, path, leaves, arrays);
                path.pop();
            }
        }
        _ => leaves.push(path.clone()),
    }
}

/// The single-field changes of an export: each scalar changed, each
/// array's element dropped or two moved, a redundant option added.
fn changes(ex: &Value, depth: Depth, rng: &mut ChaChaDice) -> Vec<(String, Value)> {
    let (mut leaves, mut arrays) = (Vec::new(), Vec::new());
    walk(ex, &mut Vec::new(), &mut leaves, &mut arrays);
    let mut out = Vec::new();
    let mut pick = |paths: &[Vec<Step>]| -> Vec<usize> {
        let n = paths.len();
        if n <= depth.sample {
            return (0..n).collect();
        }
        let mut v: Vec<usize> = (0..depth.sample)
            .map(|_| rng.roll(n as u32) as usize - 1)
            .collect();
        if depth.every_shape {
            // The first field of each shape (its path with the array
            // indices left out): every kind of field, whatever its count.
            let mut seen = std::collections::BTreeSet::new();
            v.extend((0..n).filter(|&i| seen.insert(shape(&paths[i]))));
        }
        v.sort_unstable();
        v.dedup();
        v
    };
    for i in pick(&leaves) {
        let path = &leaves[i];
        let mut x = ex.clone();
        let at = get_mut(&mut x, path);
        *at = match at.clone() {
            Value::String(s) => Value::String(format!("{s}x")),
            Value::Number(n) => Value::from(n.as_u64().map_or(1, |u| u + 1)),
            Value::Bool(b) => Value::Bool(!b),
            _ => Value::String("x".into()),
        };
        out.push((format!("{} changed", show(path)), x));
    }
    for i in pick(&arrays) {
        let path = &arrays[i];
        let len = get_mut(&mut ex.clone(), path).as_array().unwrap().len();
        let mut x = ex.clone();
        get_mut(&mut x, path)
            .as_array_mut()
            .unwrap()
            .remove(len - 1);
        out.push((format!("{}: the last entry dropped", show(path)), x));
        // Moving two equal entries changes nothing.
        if len >= 2 && get_mut(&mut ex.clone(), path)[0] != get_mut(&mut ex.clone(), path)[1] {
            let mut x = ex.clone();
            get_mut(&mut x, path).as_array_mut().unwrap().swap(0, 1);
            out.push((format!("{}: two entries moved", show(path)), x));
        }
    }
    let mut options = |path: Vec<Step>| {
        let mut x = ex.clone();
        let o = get_mut(&mut x, &path);
        if o.is_object() {
            o["house-note"] = Value::String("1".into());
            out.push((format!("{}: a redundant option added", show(&path)), x));
        }
    };
    if ex.get("battles").is_some() {
        options(vec![
            Step::Key("battles".into()),
            Step::At(0),
            Step::Key("options".into()),
        ]);
    } else {
        options(vec![Step::Key("options".into())]);
    }
    out
}

/// What `verify` says of an export's JSON: Err(why) if it fails.
fn verify(ex: &Value) -> Result<(), String> {
    let v = if ex.get("battles").is_some() {
        match serde_json::from_value::<campaign::CampaignExport>(ex.clone()) {
            Ok(c) => campaign::verify_campaign(&c),
            Err(e) => return Err(format!("unreadable: {e}")),
        }
    } else {
        match export::parse(&ex.to_string()) {
            Ok(e) => export::verify(&e),
            Err(e) => return Err(format!("unreadable: {e}")),
        }
    };
    if v.differences.is_empty() {
        Ok(())
    } else {
        Err(v.differences.join("; "))
    }
}

/// Every change of one export must fail verify; the honest one passes.
fn tamper(what: &str, ex: &Value, depth: Depth, rng: &mut ChaChaDice) -> usize {
    if let Err(why) = verify(ex) {
        panic!("{what}: the honest export does not verify: {why}");
    }
    let all = changes(ex, depth, rng);
    let tried = all.len();
    // Verified on every core: at the deep depth (every field of every
    // export) this loop was the last test of CI's deep runs to end.
    let shards = std::thread::available_parallelism().map_or(1, |n| n.get().min(4));
    let missed: Vec<String> = std::thread::scope(|scope| {
        let workers: Vec<_> = all
            .chunks(tried.div_ceil(shards).max(1))
            .map(|chunk| {
                scope.spawn(move || {
                    let mut missed = Vec::new();
                    for (change, x) in chunk {
                        match verify(x) {
                            Err(why) => {
                                assert!(!why.trim().is_empty(), "{what}: {change}: no reason");
                            }
                            Ok(()) => missed.push(change.clone()),
                        }
                    }
                    missed
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    });
    assert!(
        missed.is_empty(),
        "{what}: verify accepted {} of {tried} changes: {missed:#?}",
        missed.len()
    );
    tried
}

#[test]
fn every_single_change_of_an_export_fails_verify() {
    let deep = depth::deep();
    let seeds = depth::games("TAMPER_GAMES", 1, 2);
    // Deep: every shape of field of every export and 50 more of each
    // drawn at random (every field of every export until the 2026-11-30
    // twenty-sixth session: 570 s of CI's deep runs, most of them the same
    // shape of field again, a die or an event of another turn).
    let budget = if deep {
        Depth {
            sample: 50,
            every_shape: true,
        }
    } else {
        Depth {
            sample: 20,
            every_shape: false,
        }
    };
    let mut rng = ChaChaDice::from_seed(derive("adjutant/tamper-changes", &[]));
    let mut tried = 0;
    let mut exports = 0;
    let mut endings = [0usize; 4];
    for n in 0..seeds {
        for kind in KINDS {
            for (what, ex) in game_exports(kind, n) {
                println!(
                    "tamper: {what}: {} turns, {}",
                    ex["turns"].as_array().map_or(0, Vec::len),
                    ex["status"]
                );
                match ex["ending"]["kind"].as_str() {
                    Some("resigned") => endings[0] += 1,
                    Some("draw-agreed") => endings[1] += 1,
                    _ if ex["status"] == "over" => endings[2] += 1,
                    _ => endings[3] += 1,
                }
                tried += tamper(&what, &ex, budget, &mut rng);
                exports += 1;
            }
        }
        let c = campaign_export(n);
        tried += tamper(&format!("campaign seed {n}"), &c, budget, &mut rng);
        exports += 1;
    }
    println!(
        "tamper: {exports} exports, {tried} changes, every one refused; endings: {} resigned, {} drawn, {} by the rules, {} running",
        endings[0], endings[1], endings[2], endings[3]
    );
    assert!(
        endings[0] > 0 && endings[1] > 0 && endings[3] > 0,
        "{endings:?}"
    );
}
