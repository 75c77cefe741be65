//! A whole Seven Years' War game by mail through a real mail server
//! (Postfix and Dovecot on loopback, scripts/mailserver.sh), as
//! tests/it/e2e_measured.rs plays Charge!: player-turns, one side's mail at a
//! time, the other side answering by its standing orders.
//!
//! The game is a small action near Minden (a scenario file written here,
//! to scale like minden-1759) under a house-rule variant of the set whose
//! fog-of-war roll always calls the table, so a fog-of-war event is certain.
//! The Allies' first mail sets it up so that the interrupts are certain
//! whatever the dice: a hussar regiment charges French light infantry,
//! which evades by its default standing order; a second one moves inside a
//! French battalion's arc and musket range and draws response fire. A mail
//! from the side that is not to move is refused. Then random legal orders
//! to the end; the export verifies, and the last report's SVG is laid out
//! by headless Chromium and checked to scale. Skipped (with a message)
//! outside CI when the mail server or Chromium is missing.

use crate::common;
use adjutant::engine::dice::ChaChaDice;
use adjutant::rules::measured::state;
use adjutant::rules::Load;
use adjutant::rules::Rules;
use common::mail_client::real_server_site;
use std::path::Path;

use crate::common::measured_mail::{browser_check, inbox, text, Judge, MailJudge};

const SCENARIO: &str = r#"
# A small action near Minden, 1 August 1759: the Allied advance meets the
# French outposts. To scale as minden-1759 (1 inch = 25 yards).
id = "minden-outposts"
ruleset = "seven-years-war"
title = "Minden: the outposts"
history = "A small action for the game by mail"
moves = 4
table = [48, 36]
sides = ["allied", "french"]

[[units]]
id = "HUSSAR"
name = "Luckner's Hussars"
side = "allied"
type = "light-cavalry"
at = [36, 8]
experience = "trained"
brigade = "LUCKNER"

[[units]]
id = "HUSSAR2"
name = "Hanoverian Hussars"
side = "allied"
type = "light-cavalry"
at = [12, 14]
experience = "trained"
brigade = "LUCKNER"

[[units]]
id = "12TH"
name = "12th Foot"
side = "allied"
type = "line-infantry"
at = [24, 4]
experience = "veteran"
brigade = "WALDEGRAVE"

[[units]]
id = "FERDINAND"
name = "Ferdinand of Brunswick"
side = "allied"
type = "command"
at = [40, 2]
brigade = "ARMY"

[[units]]
id = "VOLONT"
name = "Volontaires de Flandre"
side = "french"
type = "light-infantry"
at = [36, 20]
experience = "green"
brigade = "CHABO"

[[units]]
id = "PICARDIE"
name = "Regiment de Picardie"
side = "french"
type = "french-infantry"
at = [12, 19]
experience = "trained"
brigade = "CHABO"

[[units]]
id = "CONTADES"
name = "Marshal Contades"
side = "french"
type = "command"
at = [24, 34]
brigade = "ARMY"
"#;

#[test]
fn a_seven_years_war_game_by_mail_with_interrupts_and_its_svg_in_chromium() {
    if !common::mailserver() {
        return;
    }
    let users = ["alice", "bob"];
    let site = real_server_site(&users);
    // The browser check lays out the inline SVG (issue 37's PNG is
    // tested in tests/it/picture_mail.rs).
    common::set_picture(&site, "svg");
    // The house-rule variant: every face of the fog-of-war die calls the
    // table.
    let base = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("rulesets/seven-years-war.toml"),
    )
    .unwrap();
    let variant = base
        .replace("id = \"seven-years-war\"", "id = \"seven-years-war-fog\"")
        .replace("trigger = [1]", "trigger = [1, 2, 3, 4, 5, 6]");
    assert_ne!(variant, base);
    let ruleset_file = site.path().join("seven-years-war-fog.toml");
    std::fs::write(&ruleset_file, &variant).unwrap();
    let scenario_file = site.path().join("minden-outposts.toml");
    std::fs::write(&scenario_file, SCENARIO).unwrap();
    let players = users.map(common::mail_address);
    let ruleset = adjutant::rules::syw::from_toml(&variant, "seven-years-war-fog.toml").unwrap();
    let j = Judge {
        mail: MailJudge::new(
            &site,
            Rules::load("seven-years-war").unwrap(),
            "allied",
            players.clone(),
        ),
        ruleset,
    };
    j.new_game(
        scenario_file.to_str().unwrap(),
        ["allied", "french"],
        &["--ruleset", ruleset_file.to_str().unwrap()],
    );
    let welcome = j.wait_mail(&players[0], 0, "Welcome");
    let body = text(&welcome, "body");
    assert!(body.contains("HUSSAR"), "{body}");
    j.wait_mail(&players[1], 0, "Welcome");
    assert_eq!(
        j.needed(),
        vec!["allied".to_string()],
        "the Allies move first"
    );

    // The French may not send in the Allies' player-turn.
    let skip = j.send("french", "UNIT PICARDIE: FORWARD ALL\n");
    let refusal = j.wait_mail(&players[1], skip, "not french's turn");
    assert!(
        text(&refusal, "body").contains("player-turn"),
        "{}",
        text(&refusal, "body")
    );
    // The Allies' first player-turn: the interrupts are certain.
    let allied = "UNIT HUSSAR: CHARGE VOLONT\nUNIT HUSSAR2: FORWARD 1\n";
    j.send_and_wait("allied", allied, false);
    assert_eq!(j.game().0, 1, "one player-turn adjudicated");
    let report = j.wait_mail(&players[1], 0, "turn 1 (");
    let body = text(&report, "body");
    assert!(
        body.contains("VOLONT evades"),
        "the evade is explained: {body}"
    );
    assert!(
        body.contains("PICARDIE response fires at HUSSAR2"),
        "the response fire is explained: {body}"
    );
    assert!(
        body.contains("Fog of war: "),
        "the fog-of-war roll is reported: {body}"
    );
    let mut rng = ChaChaDice::from_seed([15; 32]);
    for _ in 0..20 {
        let (turn, status) = j.game();
        if status == "over" {
            break;
        }
        j.hours.set(j.hours.get() + 1);
        let need = j.needed();
        assert_eq!(need.len(), 1, "one side at a time");
        let orders = j.random_orders(&need[0], &mut rng);
        j.send_and_wait(&need[0], &orders, false);
        if j.game().0 <= turn {
            panic!(
                "player-turn {} did not resolve; waiting for {need:?}\n{}",
                turn + 1,
                j.at(&["log"])
            );
        }
    }
    let (turns, status) = j.game();
    assert_eq!(status, "over", "the game ended");
    // Four turns of two player-turns, unless a side has no fighting unit
    // left (all routed or removed), which ends the game at once.
    let st = j.state();
    let routed = |s: usize| {
        st.units
            .iter()
            .filter(|u| u.side == s && u.forced != Some(state::Forced::Rout))
            .all(|u| {
                j.ruleset
                    .troop(&u.troop)
                    .is_some_and(|t| t.class == "command")
            })
    };
    assert!(
        turns == 8 || (turns < 8 && (routed(0) || routed(1))),
        "the game ended after {turns} player-turns with both sides still fighting"
    );
    // Every player-turn rolled on a fog-of-war table. Each report reaches
    // the Allies' mailbox through Postfix in its own time: wait for all of
    // them before counting (a count taken at once once saw seven of eight).
    for t in 1..=turns {
        j.wait_mail(&players[0], 0, &format!("turn {t} ("));
    }
    let all: String = inbox(&players[0])
        .iter()
        .map(|m| text(m, "body"))
        .collect::<Vec<_>>()
        .join("\n");
    let events = all.matches("Fog of war: ").count();
    assert!(
        events >= turns as usize,
        "{events} fog-of-war rolls reported in {turns} player-turns"
    );
    j.assert_over_and_verified();
    let last = inbox(&players[0])
        .into_iter()
        .rev()
        .find(|m| text(m, "html").contains("<svg"))
        .expect("a report with an HTML part with the SVG");
    browser_check(&text(&last, "html"), &j.state(), &j.ruleset);
}
