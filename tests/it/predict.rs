//! PREDICT (issue 32, docs/orders.md): the exact odds of a planned turn,
//! by mail and by the CLI, changing nothing. The odds cases are worked by
//! hand from the rulebook (seeds/004, "Resolving Battle": each die has
//! 2 Infantry, 1 Tank, 1 Grenade, 1 Star, 1 Flag; "the attacker scores 1 Hit
//! for each dice symbol rolled that matches the Unit type targeted. Each Red
//! Grenade rolled is also 1 Hit"; Sandbag Emplacements "reduce the number of
//! Battle Dice rolled by 1 when attacked by Infantry or Armour ... may ignore
//! the first Purple Flag").

use crate::common::fog::known;
use crate::common::{mail, reply_address, Site};
use adjutant::engine::dice::ChaChaDice;
use adjutant::rules::memoir44::{fog, predict, setup, Hex, Ruleset, State as M44};

const ACCEPTANCE: &str = "PREDICT\nPLAY recon-centre\nORDER F4\nBATTLE F4 F5\n";

/// (snapshots, the latest state hash, submissions) of game 1.
fn game_mark(site: &Site) -> (i64, String, i64) {
    let db = site.db();
    let n: i64 = db
        .query_row(
            "SELECT count(*) FROM snapshots WHERE game_id = 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let hash: String = db
        .query_row(
            "SELECT state_hash FROM snapshots WHERE game_id = 1 ORDER BY turn DESC LIMIT 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let subs: i64 = db
        .query_row("SELECT count(*) FROM submissions", [], |r| r.get(0))
        .unwrap();
    (n, hash, subs)
}

fn send(site: &Site, name: &str, from: &str, to: &str, body: &str) -> String {
    let before = site.outbox().len();
    site.drop_mail(
        &format!("{name}.eml"),
        &mail(from, to, "Re: game 1", &format!("{name}@example.org"), body),
    );
    site.ok(&["serve", "--once"]);
    let mails = site.mails();
    mails[before..].join("\n----\n")
}

/// Acceptance 1: Pegasus Bridge, the Allies (who move first: `first =
/// "allies"`) with the Elite Infantry at F4 against the Axis infantry behind
/// the Sandbag Emplacement at F5. Close assault: 3 dice (Infantry 3, 2, 1
/// by range), -1 for the sandbag = 2 dice. A die hits infantry on 2
/// Infantry + 1 Grenade = 3 faces of 6 = 1/2: 0 hits 1/4 = 25.0%, 1 hit
/// 2/4 = 50.0%, 2 hits 1/4 = 25.0%. Flags 1/6 a die: none 25/36 = 69.4%,
/// one 10/36 = 27.8%, two 1/36 = 2.8%; the sandbag ignores the first flag,
/// so the unit retreats only on two flags (2.8%, and then no hit is
/// rolled); 4 figures: never eliminated by 2 dice.
#[test]
fn pegasus_bridge_first_turn_odds_by_mail_change_nothing() {
    let site = Site::new();
    site.pegasus_bridge(&[]);
    let to = reply_address(&site, "alice@example.org");
    let before = game_mark(&site);
    let answer = send(&site, "p1", "alice@example.org", &to, ACCEPTANCE);
    for want in [
        "PREDICT for allies",
        "Battle 1: Elite Infantry at F4 against Regular Infantry at F5",
        "Close assault, range 1: 3 dice, -1 target in Sandbag Emplacement = 2",
        "Hits:  0 hits 25.0%, 1 hit 50.0%, 2 hits 25.0%",
        "Flags: 0 flags 69.4%, 1 flag 27.8%, 2 flags 2.8%",
        "Target eliminated 0.0%, retreats 2.8%, holds its ground 97.2%",
        "Expected medals: 0.00",
        "no reaction card (such as Ambush)",
        "Nothing was submitted",
    ] {
        assert!(answer.contains(want), "no {want:?} in:\n{answer}");
    }
    assert_eq!(game_mark(&site), before, "PREDICT changed the game");
    crate::common::assert_80_columns(&site);
    // The CLI prints the same odds.
    let file = site.path().join("predict.txt");
    std::fs::write(&file, ACCEPTANCE).unwrap();
    let cli = site.ok(&["predict", "1", "allies", file.to_str().unwrap()]);
    assert!(cli.contains("Hits:  0 hits 25.0%, 1 hit 50.0%, 2 hits 25.0%"));
    assert!(
        answer.contains(cli.trim_end()),
        "CLI and mail differ:\n{cli}"
    );
    assert_eq!(game_mark(&site), before);
    // A refused order: the same words as a submission's refusal.
    let bad = send(
        &site,
        "p2",
        "alice@example.org",
        &to,
        "PREDICT\nPLAY recon-centre\nORDER F4\nBATTLE F4 A1\n",
    );
    let sub = send(
        &site,
        "p3",
        "alice@example.org",
        &to,
        "PLAY recon-centre\nORDER F4\nBATTLE F4 A1\n",
    );
    let why = "\"BATTLE F4 A1\"";
    assert!(bad.contains(why) && sub.contains(why), "{bad}\n{sub}");
    assert!(!bad.contains("Hits:"));
    assert_eq!(game_mark(&site), before);
    // The same orders without PREDICT are played as usual.
    send(&site, "p4", "alice@example.org", &to, &ACCEPTANCE[8..]);
    assert_eq!(
        game_mark(&site).0,
        before.0 + 1,
        "the orders were not played"
    );
}

/// A PREDICT from a stranger, or with a wrong secret, gets only the usual
/// authentication answer: no odds, nothing changed.
#[test]
fn forged_or_stranger_predict_changes_nothing_and_draws_no_odds() {
    let site = Site::new();
    site.pegasus_bridge(&[]);
    let before = game_mark(&site);
    let judge = "judge@localhost";
    let bodies = [
        ACCEPTANCE.to_string(),
        format!("GAME 1\nPASSWORD wrongsecret\n{ACCEPTANCE}"),
    ];
    for (i, body) in bodies.iter().enumerate() {
        for (j, from) in ["eve@example.net", "alice@example.org"].iter().enumerate() {
            let answer = send(&site, &format!("f{i}{j}"), from, judge, body);
            assert!(!answer.contains("Hits:"), "odds given:\n{answer}");
            assert!(!answer.contains("PREDICT for"), "odds given:\n{answer}");
            assert!(
                answer.contains("could not tell which game") || answer.is_empty(),
                "{answer}"
            );
        }
    }
    assert_eq!(game_mark(&site), before);
}

/// Under Kriegspiel a PREDICT answer names no enemy unit the side does not
/// see (the leak scan's notion of what a side knows, common/fog.rs).
#[test]
fn kriegspiel_predict_never_names_an_unseen_unit() {
    let site = Site::new();
    site.pegasus_bridge(&["--referee", "ref@example.org", "--kriegspiel"]);
    let to = reply_address(&site, "alice@example.org");
    let st = crate::common::latest_state(&site);
    let r = Ruleset::builtin().unwrap();
    let mut orders = vec![(ACCEPTANCE.to_string(), true)];
    // Orders at every enemy unit, seen or not.
    for u in st.units.iter().filter(|u| u.side == 1) {
        orders.push((
            format!("PREDICT\nPLAY recon-centre\nORDER F4\nBATTLE F4 {}\n", u.at),
            fog::sees(&r, &st, 0, u),
        ));
    }
    assert!(
        orders.iter().any(|(_, seen)| !seen),
        "no unseen enemy unit: the test would prove nothing"
    );
    let before = game_mark(&site);
    for (i, (o, seen)) in orders.iter().enumerate() {
        let answer = send(&site, &format!("k{i}"), "alice@example.org", &to, o);
        // No odds, nor any word of the unit, for a target it does not see.
        assert!(
            *seen || !answer.contains("Hits:"),
            "odds of an unseen unit:\n{answer}"
        );
        let k = known(&r, &st, &st, 0, &[], o);
        for u in st.units.iter().filter(|u| u.side == 1) {
            let h = u.at.to_string();
            if !k.contains(&h) && !fog::sees(&r, &st, 0, u) {
                let named = answer
                    .split(|c: char| !c.is_ascii_alphanumeric())
                    .any(|w| w == h);
                assert!(!named, "unseen unit at {h} named:\n{answer}");
            }
        }
        if answer.contains("PREDICT for") {
            assert!(answer.contains("Kriegspiel: only the enemy units"));
        }
    }
    assert_eq!(game_mark(&site), before);
}

/// Pegasus Bridge set up, with the unit at `at` changed by `edit`.
fn pegasus(edit: impl Fn(&mut M44)) -> (Ruleset, M44) {
    let r = Ruleset::builtin().unwrap();
    let mut st = setup(&r, "pegasus-bridge", &mut ChaChaDice::from_seed([7; 32])).unwrap();
    edit(&mut st);
    (r, st)
}

fn odds(edit: impl Fn(&mut M44)) -> String {
    let (r, st) = pegasus(edit);
    predict::predict(&r, &st, "allies", &ACCEPTANCE[8..]).unwrap()
}

fn f5(st: &mut M44) -> &mut adjutant::rules::memoir44::state::Unit {
    let id = st.unit_at(Hex::parse("F5").unwrap()).unwrap().id;
    st.unit_mut(id).unwrap()
}

/// Hand case 1: the Axis unit at F5 is Medium Armour (3 models). "Infantry
/// v Tank" allows close assault; the sandbag protects armour too (-1): 2
/// dice. A die hits armour on 1 Tank + 1 Grenade = 2/6 = 1/3: 0 hits
/// (2/3)^2 = 4/9 = 44.4%, 1 hit 2*(1/3)(2/3) = 4/9 = 44.4%, 2 hits 1/9 =
/// 11.1%. Flags as for infantry (69.4%, 27.8%, 2.8%).
#[test]
fn odds_against_armour_behind_sandbags() {
    let text = odds(|st| f5(st).kind = "medium-armour".into());
    assert!(text.contains("= 2\n"), "{text}");
    assert!(
        text.contains("Hits:  0 hits 44.4%, 1 hit 44.4%, 2 hits 11.1%"),
        "{text}"
    );
    assert!(text.contains("Flags: 0 flags 69.4%, 1 flag 27.8%, 2 flags 2.8%"));
}

/// Hand case 2: the infantry at F5 down to 1 figure. Any hit eliminates
/// it: 1 - (1/2)^2 = 75.0%, one medal each time ("place it on one of the
/// empty Medal Stands"): expected medals 0.75. Retreat: no hit and two
/// flags (the first ignored) = 1/36 = 2.8%; holds 100 - 75 - 2.8 = 22.2%.
#[test]
fn odds_of_eliminating_a_last_figure() {
    let text = odds(|st| f5(st).figures = 1);
    assert!(text.contains("Hits:  0 hits 25.0%, 1 hit 50.0%, 2 hits 25.0%"));
    assert!(
        text.contains("Target eliminated 75.0%, retreats 2.8%, holds its ground 22.2%"),
        "{text}"
    );
    assert!(text.contains("Expected medals: 0.75"), "{text}");
}

/// Hand case 3: no sandbag at F5 (open ground) and 2 figures. 3 dice
/// (Infantry at range 1), hit 1/2 a die: 0 hits 1/8 = 12.5%, 1 hit 3/8 =
/// 37.5%, 2 hits 3/8 = 37.5%, 3 hits 1/8 = 12.5%. Eliminated on 2 or more
/// hits: 1/2 = 50.0%, so 0.50 medals expected. Flags: (5/6)^3 = 125/216 =
/// 57.9% none, 3*25/216 = 75/216 = 34.7% one, 15/216 = 6.9% two, 1/216 =
/// 0.5% three.
#[test]
fn odds_in_the_open_with_three_dice() {
    let text = odds(|st| {
        st.terrain.remove(&Hex::parse("F5").unwrap());
        f5(st).figures = 2;
    });
    assert!(text.contains("range 1: 3 dice\n"), "{text}");
    assert!(
        text.contains("Hits:  0 hits 12.5%, 1 hit 37.5%, 2 hits 37.5%, 3 hits 12.5%"),
        "{text}"
    );
    assert!(
        text.contains("Flags: 0 flags 57.9%, 1 flag 34.7%, 2 flags 6.9%, 3 flags 0.5%"),
        "{text}"
    );
    assert!(text.contains("Target eliminated 50.0%"), "{text}");
    assert!(text.contains("Expected medals: 0.50"), "{text}");
}

/// Every shipped family now computes odds: the last to fall back on the
/// rules interface's default ("not available"), the Seven Years' War,
/// answers PASS with its own words through the same service path.
#[test]
fn the_seven_years_war_answers_predict_with_odds_of_its_own() {
    let site = Site::new();
    site.new_game(
        "minden-1759",
        &["allied=alice@example.org", "french=bob@example.org"],
        &[],
    );
    let file = site.path().join("predict.txt");
    std::fs::write(&file, "PASS\n").unwrap();
    let out = site.run(&["predict", "1", "allied", file.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        text.contains("These orders fight no battle") && !text.contains("not available"),
        "{text}{err}"
    );
}

/// At most `PREDICT_ANSWERS_PER_SEAT_DAY` PREDICT answers a seat a day; the
/// next is refused with a short answer, and nothing is played.
#[test]
fn predict_answers_are_capped_per_seat_and_day() {
    let cap = adjutant::service::PREDICT_ANSWERS_PER_SEAT_DAY as usize;
    let site = Site::new();
    site.pegasus_bridge(&[]);
    let to = reply_address(&site, "alice@example.org");
    let before = game_mark(&site);
    let sent = site.outbox().len();
    for i in 0..=cap {
        site.drop_mail(
            &format!("c{i:03}.eml"),
            &mail(
                "alice@example.org",
                &to,
                "Re: game 1",
                &format!("c{i}@example.org"),
                ACCEPTANCE,
            ),
        );
    }
    site.ok(&["serve", "--once"]);
    let mails = site.mails();
    let answers = &mails[sent..];
    let odds = answers.iter().filter(|m| m.contains("Hits:")).count();
    let capped = answers
        .iter()
        .filter(|m| m.contains("PREDICT mails a day for one seat"))
        .count();
    assert_eq!((odds, capped), (cap, 1));
    assert_eq!(game_mark(&site), before);
}

/// The enemy's cards are unknown: an Ambush in the Axis hand changes
/// nothing in the Allies' odds (RULES-NOTES.md, Ambush: the defender's
/// reaction to a close assault), and the answer says it assumes none.
#[test]
fn odds_never_use_the_enemys_cards() {
    let plain = odds(|_| {});
    let ambush = odds(|st| st.hands[1].push("ambush".into()));
    assert_eq!(plain, ambush);
    assert!(!ambush.contains("Battle 2"), "{ambush}");
    assert!(ambush.contains("assumed") || ambush.contains("Assumed"));
}

/// A small Memoir of Battle scenario: a blue rifled field battery at C1,
/// red infantry (magazine rifles, strength 4) at C4 in the open, C5 free
/// behind it; the game opens with blue's artillery phase.
const GRID_SCENARIO: &str = r#"
id = "predict-grid"
ruleset = "memoir-of-battle"
title = "PREDICT on a grid"
grid = "square"
columns = 6
rows = 6
sides = ["blue", "red"]
victory = 2
[[units]]
at = "C1"
side = "blue"
type = "rifled-field-artillery"
[[units]]
at = "A1"
side = "blue"
type = "infantry"
[[units]]
at = "C4"
side = "red"
type = "infantry"
"#;

const GRID_FIRE: &str = "PREDICT\nFIRE C1 C4\n";

/// A grid game's PREDICT by mail (seeds/000, TURN SEQUENCE 1, Combat
/// (Artillery Units): "The range at which each type of Artillery Unit is
/// firing determines the number of Combat Dice" (rifled field artillery 4,
/// 4, 3 at ranges 1 to 3), "For each face of the Combat Dice that matches
/// the target Unit's type, the target Unit loses 1"; COMBAT DICE: Infantry
/// 2, All Units 1, Retreat 1 of 6 faces). C1 to C4 is range 3: 3 dice. A
/// die takes strength from infantry on 3 faces of 6 = 1/2: 0 hits 1/8 =
/// 12.5%, 1 hit 3/8 = 37.5%, 2 hits 37.5%, 3 hits 12.5%. A retreat face is
/// 1/6: none (5/6)^3 = 125/216 = 57.9%, one 75/216 = 34.7%, two 15/216 =
/// 6.9%, three 1/216 = 0.5%. Strength 4 outlives 3 dice; it retreats (to
/// C5, free) on any retreat face: 91/216 = 42.1%, holds 57.9%; no victory
/// point. The answer changes nothing: the same state hash, no submission,
/// one mail (the answer) in the outbox.
#[test]
fn grid_predict_by_mail_and_cli_changes_nothing() {
    let site = Site::new();
    let file = site.path().join("grid.toml");
    std::fs::write(&file, GRID_SCENARIO).unwrap();
    site.new_game(
        file.to_str().unwrap(),
        &["blue=alice@example.org", "red=bob@example.org"],
        &[],
    );
    let to = reply_address(&site, "alice@example.org");
    let before = game_mark(&site);
    let outbox = site.outbox().len();
    let answer = send(&site, "g1", "alice@example.org", &to, GRID_FIRE);
    assert_eq!(site.outbox().len(), outbox + 1, "more than the answer sent");
    for want in [
        "PREDICT for blue",
        "Battle 1: rifled field artillery at C1 against infantry (magazine rifles)",
        "Artillery fire, range 3: 3 at range 3 = 3 dice",
        "Hits: 0 hits 12.5%, 1 hit 37.5%, 2 hits 37.5%, 3 hits 12.5%",
        "Retreat results: 0 retreats 57.9%, 1 retreat 34.7%, 2 retreats 6.9%",
        "Target destroyed 0.0%, retreats 42.1%, cannot retreat and loses 1 0.0%",
        "holds its ground 57.9%",
        "Expected victory points: 0.00",
        "Nothing was submitted",
    ] {
        assert!(
            answer.replace("\n    ", " ").contains(want),
            "no {want:?} in:\n{answer}"
        );
    }
    assert_eq!(game_mark(&site), before, "PREDICT changed the game");
    crate::common::assert_80_columns(&site);
    // The CLI prints the same odds.
    let orders = site.path().join("fire.txt");
    std::fs::write(&orders, &GRID_FIRE[8..]).unwrap();
    let cli = site.ok(&["predict", "1", "blue", orders.to_str().unwrap()]);
    assert!(
        answer.contains(cli.trim_end()),
        "CLI and mail differ:\n{cli}"
    );
    // A refused order: the same words as a submission's refusal.
    let bad = send(
        &site,
        "g2",
        "alice@example.org",
        &to,
        "PREDICT\nFIRE A1 C4\n",
    );
    let sub = send(&site, "g3", "alice@example.org", &to, "FIRE A1 C4\n");
    let why = "you have no artillery unit at A1";
    assert!(bad.contains(why) && sub.contains(why), "{bad}\n{sub}");
    assert!(!bad.contains("Hits:"));
    assert_eq!(game_mark(&site), before);
    // The same orders without PREDICT are played as usual.
    send(&site, "g4", "alice@example.org", &to, &GRID_FIRE[8..]);
    assert_eq!(
        game_mark(&site).0,
        before.0 + 1,
        "the orders were not played"
    );
}

/// The whole-turn figure of a grid order set (issue 32: "the chance the
/// game ends this turn and for whom"; issue 55: exact, not sampled): two
/// battles, each at a machine gun down to strength 1, 4 dice of magazine
/// rifles (Memoir of Battle: a die takes strength from a machine gun on
/// Gun + All, 2 of 6), each destroys it with 1 - (2/3)^4 = 65/81; victory at
/// 2 units destroyed: both, (65/81)^2 = 4225/6561 = 64.4%; one, 2 x 65 x
/// 16 / 6561 = 31.7%; none, 256/6561 = 3.9%. With victory at 3 the orders
/// cannot end the game, and the answer says so.
#[test]
fn grid_whole_turn_chance_of_ending_the_game() {
    use adjutant::rules::memoir_grid::{predict as grid, state, Ruleset as Grid};
    let r = Grid::builtin("memoir-of-battle").unwrap();
    let text = |victory: u32| {
        format!(
            "id = \"end\"\nruleset = \"memoir-of-battle\"\ngrid = \"square\"\ncolumns = 6\nrows = 6\n\
             sides = [\"blue\", \"red\"]\nvictory = {victory}\n\
             [[units]]\nat = \"B2\"\nside = \"blue\"\ntype = \"infantry\"\n\
             [[units]]\nat = \"E2\"\nside = \"blue\"\ntype = \"infantry\"\n\
             [[units]]\nat = \"B3\"\nside = \"red\"\ntype = \"machine-gun\"\nstrength = 1\n\
             [[units]]\nat = \"E3\"\nside = \"red\"\ntype = \"machine-gun\"\nstrength = 1\n\
             [[units]]\nat = \"A6\"\nside = \"red\"\ntype = \"infantry\"\n"
        )
    };
    let orders = "FIRE B2 B3\nFIRE E2 E3\n";
    let answer = |victory: u32| {
        let mut st = state::load(&r, &text(victory), "end.toml").unwrap();
        st.step = state::Step::Move {
            side: 0,
            second: false,
        };
        grid::predict(&r, &st, "blue", orders).unwrap()
    };
    let two = answer(2).replace("\n    ", " ");
    assert!(two.contains("Target destroyed 80.2%"), "{two}");
    for want in [
        "The whole turn, exactly",
        "victory points 0 3.9%, 1 31.7%, 2 64.4%; expected 1.60.",
        "The game ends with these orders 64.4% (blue 64.4%).",
    ] {
        assert!(two.contains(want), "no {want:?} in:\n{two}");
    }
    assert!(!two.contains("sampled"), "{two}");
    let three = answer(3).replace("\n    ", " ");
    assert!(
        three.contains("The game does not end with these orders."),
        "{three}"
    );
}

/// A small Charge! table: a British line company of 6 rank and file (A)
/// facing a French line company of 12 (X) 15" away in the open, neither
/// having fired yet.
const CHARGE_SCENARIO: &str = r#"
id = "predict-charge"
ruleset = "charge"
title = "PREDICT on a measured table"
moves = 12
table = [72, 48]
sides = ["british", "french"]
[[units]]
id = "A"
side = "british"
type = "line"
at = [36, 10]
rank_and_file = 6
[[units]]
id = "X"
side = "french"
type = "line"
at = [36, 25]
rank_and_file = 12
"#;

const CHARGE_FIRE: &str = "PREDICT\nUNIT A: FIRE AT X\n";

/// A Charge! PREDICT by mail and CLI (seeds/002, LINE INFANTRY MUSKETRY:
/// "Throw D6 for every 6 line infantry ... firing", FIRST VOLLEY
/// DEDUCTIONS 12 - 18" OPEN 3, "Divide enemy into target groups of 6.
/// Throw D6 for each hit"). 6 firers: 1 die, less 3: a 4 is 1 hit, a 5 is
/// 2, a 6 is 3, each a figure die at X's first group of 6 (all there).
/// Killed 0: 3/6 = 50.0%; 1: 1/6 + 1/6 x 1/6 (two figure dice alike) +
/// 1/6 x 6/216 (three alike) = 43/216 = 19.9%; 2: 1/6 x 5/6 + 1/6 x
/// 90/216 = 45/216 = 20.8%; 3: 1/6 x 120/216 = 20/216 = 9.3%. MORALE
/// CALCULATIONS: command points 6; a sixth lost (2 of 12) -1, a quarter
/// (3) -2: only 3 killed can fail, on a die of 1 (6 - 2 + 1 < 6):
/// 20/216 x 1/6 = 1.5%. Expected rank and file removed (193/216) 0.89.
#[test]
fn charge_predict_by_mail_and_cli_changes_nothing() {
    let site = Site::new();
    let file = site.path().join("charge.toml");
    std::fs::write(&file, CHARGE_SCENARIO).unwrap();
    site.new_game(
        file.to_str().unwrap(),
        &["british=alice@example.org", "french=bob@example.org"],
        &[],
    );
    let to = reply_address(&site, "alice@example.org");
    let before = game_mark(&site);
    let outbox = site.outbox().len();
    let answer = send(&site, "c1", "alice@example.org", &to, CHARGE_FIRE);
    assert_eq!(site.outbox().len(), outbox + 1, "more than the answer sent");
    for want in [
        "PREDICT for british",
        "Battle 1: A fires at X (15\", first volley, in the open): 6 firers, a die per 6 = 1 die",
        "Each die less 3",
        "Killed: 0 killed 50.0%, 1 killed 19.9%, 2 killed 20.8%, 3 killed 9.3%",
        "test failed (bad morale) 1.5%",
        "Expected victory points: 0.89",
        "sampled from the engine's own adjudication",
        "the enemy's orders and standing orders are unknown",
        "Nothing was submitted",
    ] {
        assert!(
            answer.replace("\n    ", " ").contains(want),
            "no {want:?} in:\n{answer}"
        );
    }
    assert_eq!(game_mark(&site), before, "PREDICT changed the game");
    // The answer's own lines fit a mail (the welcome mail's header line is
    // the measured family's own, older and wider).
    let body = &answer[answer.find("PREDICT for").unwrap()..];
    assert!(body.lines().all(|l| l.chars().count() <= 80), "{body}");
    let orders = site.path().join("volley.txt");
    std::fs::write(&orders, &CHARGE_FIRE[8..]).unwrap();
    let cli = site.ok(&["predict", "1", "british", orders.to_str().unwrap()]);
    assert!(
        answer.contains(cli.trim_end()),
        "CLI and mail differ:\n{cli}"
    );
    // A refused order: the same words as a submission's refusal.
    let bad = send(
        &site,
        "c2",
        "alice@example.org",
        &to,
        "PREDICT\nUNIT Q: FIRE AT X\n",
    );
    let sub = send(&site, "c3", "alice@example.org", &to, "UNIT Q: FIRE AT X\n");
    let why = "no unit Q";
    assert!(bad.contains(why) && sub.contains(why), "{bad}\n{sub}");
    assert!(!bad.contains("Killed:"));
    assert_eq!(game_mark(&site), before);
    let pending = |site: &Site| -> i64 {
        site.db()
            .query_row("SELECT count(*) FROM pending", [], |r| r.get(0))
            .unwrap()
    };
    assert_eq!(pending(&site), 0, "PREDICT held orders");
    // The same orders without PREDICT are held for the move as usual.
    send(&site, "c4", "alice@example.org", &to, &CHARGE_FIRE[8..]);
    assert_eq!(pending(&site), 1, "the orders were not taken");
}

/// A small Seven Years' War table: an allied line battalion of 4 figures
/// (A, green) 2" from a French one of 24 (X, green); the allies' player-turn.
const SYW_SCENARIO: &str = r#"
id = "predict-syw"
ruleset = "seven-years-war"
title = "PREDICT on a Seven Years' War table"
moves = 12
table = [96, 72]
sides = ["allied", "french"]
[[units]]
id = "A"
side = "allied"
type = "line-infantry"
at = [36, 10]
experience = "green"
rank_and_file = 4
[[units]]
id = "X"
side = "french"
type = "line-infantry"
at = [36, 12]
experience = "green"
"#;

/// A Seven Years' War PREDICT by mail and CLI (seeds/003, D. FIRE: "1
/// dice per figure in unit ... Require a 6 to hit ... If casualties at
/// least 2 moral TEST"): 4 dice, killed k of 4 with C(4,k) 5^(4-k)/1296:
/// 48.2%, 38.6%, 11.6%, 1.5%, 0.1%. The TEST (green -2, casualties this
/// turn -1, die 1 -1) disorders X on 2 killed (5/6) or sends it back
/// (1/6, and always on 3 or 4, 10% lost -1 more): disordered 9.6%,
/// retreats 3.5% (as tests/cases/seven-years-war/predict-fire-four-dice).
#[test]
fn syw_predict_by_mail_and_cli_changes_nothing() {
    let site = Site::new();
    let file = site.path().join("syw.toml");
    std::fs::write(&file, SYW_SCENARIO).unwrap();
    site.new_game(
        file.to_str().unwrap(),
        &["allied=alice@example.org", "french=bob@example.org"],
        &[],
    );
    let to = reply_address(&site, "alice@example.org");
    let before = game_mark(&site);
    let outbox = site.outbox().len();
    let answer = send(
        &site,
        "s1",
        "alice@example.org",
        &to,
        "PREDICT\nUNIT A: FIRE AT X\n",
    );
    assert_eq!(site.outbox().len(), outbox + 1, "more than the answer sent");
    for want in [
        "PREDICT for allied",
        "Battle 1: A fires at X at 2\": 4 figures facing the target + half of 0 = 4 dice",
        "Killed: 0 killed 48.2%, 1 killed 38.6%, 2 killed 11.6%, 3 killed 1.5%, 4 killed 0.1%",
        "disordered 9.6%; retreats 3.5%",
        "Assumed: no new fog-of-war event",
        "Nothing was submitted",
    ] {
        assert!(
            answer.replace("\n    ", " ").contains(want),
            "no {want:?} in:\n{answer}"
        );
    }
    assert_eq!(game_mark(&site), before, "PREDICT changed the game");
    let body = &answer[answer.find("PREDICT for").unwrap()..];
    assert!(body.lines().all(|l| l.chars().count() <= 80), "{body}");
    let orders = site.path().join("fire.txt");
    std::fs::write(&orders, "UNIT A: FIRE AT X\n").unwrap();
    let cli = site.ok(&["predict", "1", "allied", orders.to_str().unwrap()]);
    assert!(
        answer.contains(cli.trim_end()),
        "CLI and mail differ:\n{cli}"
    );
    // Not the French's player-turn: the same refusal as a submission's.
    let bob = reply_address(&site, "bob@example.org");
    let bad = send(
        &site,
        "s2",
        "bob@example.org",
        &bob,
        "PREDICT\nUNIT X: FIRE AT A\n",
    );
    let sub = send(&site, "s3", "bob@example.org", &bob, "UNIT X: FIRE AT A\n");
    let why = "player-turn";
    assert!(bad.contains(why) && sub.contains(why), "{bad}\n{sub}");
    assert!(!bad.contains("Killed:"));
    assert_eq!(game_mark(&site), before);
}
