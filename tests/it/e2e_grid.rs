//! A whole game of each grid ruleset (Memoir of Battle on squares, Memoir of
//! Modern Battle on hexes) by mail through a real mail server: Postfix and
//! Dovecot on loopback (scripts/mailserver.sh), the players using Python's
//! smtplib and imaplib, the judge reading by IMAP and sending by SMTP.
//!
//! The simultaneous artillery phase is reached by two mails in either
//! order (British first in turn 1, German first in turn 2); in turn 1 the
//! British replace their first submission and the replacement is what is
//! adjudicated; in turn 3 only the British send, and the deadline resolves
//! the phase with the German side's pass under `--nmr pass`. The game is then
//! played to its end by random legal orders, and its export verifies.

use crate::common;
use adjutant::engine::dice::ChaChaDice;
use adjutant::rules::memoir_grid::{self, random};
use adjutant::rules::Load;
use adjutant::rules::Rules;
use common::mail_client::{inbox, real_server_site, MailJudge};

/// The judge of a grid game: the judge by mail with the ruleset's tables.
struct Judge<'a> {
    mail: MailJudge<'a>,
    ruleset: memoir_grid::Ruleset,
}

impl<'a> std::ops::Deref for Judge<'a> {
    type Target = MailJudge<'a>;
    fn deref(&self) -> &MailJudge<'a> {
        &self.mail
    }
}

impl Judge<'_> {
    fn random_orders(&self, side: &str, rng: &mut ChaChaDice) -> String {
        let st = self.game_state();
        let g = st.get::<memoir_grid::State>().expect("a grid state");
        let i = g.side_index(side).expect("side");
        random::random_orders(&self.ruleset, g, i, rng)
    }
}

/// Artillery phases: is this phase the simultaneous one (both sides)?
fn simultaneous(j: &Judge<'_>) -> bool {
    j.needed().len() == 2
}

/// Orders that fire at nothing: PASS, with an initiative choice in the
/// artillery phase. The scripted turns use them so that no side loses its
/// last gun before the next simultaneous artillery phase (a side without
/// artillery is not asked in phase 1, and the game's dice are the judge's
/// own, from a fresh seed).
fn quiet_orders(j: &Judge<'_>) -> &'static str {
    if simultaneous(j) {
        "INITIATIVE FIRST\nPASS"
    } else {
        "PASS"
    }
}

/// Play quiet phases until the next simultaneous artillery phase.
fn to_next_artillery(j: &Judge<'_>) {
    for _ in 0..10 {
        if simultaneous(j) || j.game().1 == "over" {
            return;
        }
        let need = j.needed();
        let (turn, _) = j.game();
        let side = need.first().expect("a side to move").clone();
        j.send_and_wait(&side, quiet_orders(j), false);
        assert!(j.game().0 > turn, "{side}'s orders were not adjudicated");
    }
    panic!(
        "no artillery phase came: the phase waits for {:?}",
        j.needed()
    );
}

fn play(ruleset: &str, scenario: &str, users: [&str; 2]) {
    let site = real_server_site(&users);
    let players = users.map(common::mail_address);
    // The judge's clock starts at T0 (the deadline set then is 72 h).
    let j = Judge {
        mail: MailJudge::new(
            &site,
            Rules::load(ruleset).unwrap(),
            "british",
            players.clone(),
        ),
        ruleset: memoir_grid::Ruleset::builtin(ruleset).unwrap(),
    };
    j.new_game(scenario, ["british", "german"], &[]);
    for p in &players {
        j.wait_mail(p, 0, "welcome");
    }
    let mut rng = ChaChaDice::from_seed([42; 32]);

    // Turn 1, artillery, both at once. The British send, then change their
    // minds; the Germans send last and the phase resolves.
    assert!(simultaneous(&j), "turn 1 opens with both sides' artillery");
    let first = j.random_orders("british", &mut rng);
    let receipt = j.send_and_wait("british", &first, true);
    let body = receipt["body"].as_str().unwrap();
    assert!(body.contains("until german has sent"), "{body}");
    assert_eq!(j.game().0, 0, "held orders adjudicate nothing");
    // The Germans are told nothing of the British orders.
    assert!(inbox(&players[1])
        .iter()
        .all(|m| !m["body"].as_str().unwrap_or("").contains("They are held")));
    let replacement = "INITIATIVE SECOND\nPASS";
    let receipt = j.send_and_wait("british", replacement, true);
    assert!(
        receipt["body"]
            .as_str()
            .unwrap()
            .contains("replace the orders you sent before"),
        "{receipt:#?}"
    );
    j.send_and_wait("german", quiet_orders(&j), false);
    assert!(
        j.game().0 >= 1,
        "the phase resolved when the last side sent"
    );
    let (orders, _) = j.stored(1, "british");
    assert!(
        orders.contains("INITIATIVE SECOND") && !orders.contains("FIRE"),
        "the replacement was adjudicated, not the first mail: {orders}"
    );
    // Both players have the report of the phase.
    for p in &players {
        j.wait_mail(p, 0, "turn 2");
    }

    // Turn 2: the Germans first this time.
    to_next_artillery(&j);
    let done = j.game().0;
    j.send_and_wait("german", quiet_orders(&j), true);
    assert_eq!(j.game().0, done);
    j.send_and_wait("british", quiet_orders(&j), false);
    assert!(j.game().0 > done);

    // Turn 3: only the British send; the deadline passes and the phase is
    // adjudicated with the German pass.
    to_next_artillery(&j);
    let done = j.game().0;
    let british = j.random_orders("british", &mut rng);
    j.send_and_wait("british", &british, true);
    assert_eq!(j.game().0, done);
    // 73 hours later: past the 72 h deadline set at T0.
    j.hours.set(73);
    j.at(&["serve", "--once"]);
    assert!(
        j.game().0 > done,
        "the deadline resolved the phase with one side missing"
    );
    let (orders, source) = j.stored(done + 1, "german");
    assert_eq!(source, "nmr", "{orders}");
    let (_, source) = j.stored(done + 1, "british");
    assert!(source.starts_with("mail:"), "{source}");

    // The rest of the game by random legal orders, to its end.
    for _ in 0..200 {
        let (turn, status) = j.game();
        if status == "over" {
            break;
        }
        let need = j.needed();
        for (k, side) in need.iter().enumerate() {
            let orders = j.random_orders(side, &mut rng);
            j.send_and_wait(side, &orders, k + 1 < need.len());
        }
        assert!(j.game().0 > turn, "phase {turn} did not resolve");
    }
    let (turns, status) = j.game();
    assert_eq!(status, "over", "the game ended");
    assert!(turns >= 9, "only {turns} phases were played");
    // The export verifies, every die and every phase.
    j.assert_over_and_verified();
    assert_eq!(site.unsent(), 0, "everything was delivered");
}

/// Memoir of Battle on squares (each test has its own mailboxes, so the two
/// games run side by side).
#[test]
fn a_memoir_of_battle_game_by_mail() {
    if !common::mailserver() {
        return;
    }
    play("memoir-of-battle", "le-cateau-1914", ["alice", "bob"]);
}

/// Memoir of Modern Battle on hexes.
#[test]
fn a_memoir_of_modern_battle_game_by_mail() {
    if !common::mailserver() {
        return;
    }
    play(
        "memoir-of-modern-battle",
        "villers-bocage-1944",
        ["carol", "alice"],
    );
}
