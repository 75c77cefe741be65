//! End to end over a real mail server (scripts/mailserver.sh), issue 12:
//! Miteiriya Ridge (El Alamein, 1942), the shipped scenario of Appendix 1's
//! Minefields and Combat Engineers. The judge lays the Axis minefields with
//! strengths drawn from the box by the hidden-shuffle stream; the Allies'
//! first orders walk the sappers onto one minefield and infantry onto
//! another; then both players play random legal orders by replying to the
//! judge's mails. After every turn, neither player's mail (text or HTML
//! board) holds the strength of a minefield still face down, every revealed
//! one is shown with its strength, and the exported game verifies.

use crate::common;
use adjutant::rules::memoir44;
use common::memoir_mail::MemoirGame;
use serde_json::Value;

/// What a player's latest mail shows of the minefields of `st`: no strength
/// of a piece still face down (text legend or SVG label), every revealed
/// piece with its strength.
fn check_mail(who: &str, mail: &Value, st: &memoir44::State) {
    let body = mail["body"].as_str().unwrap_or_default();
    let html = mail["html"].as_str().unwrap_or_default();
    // The referee's legend form ("hidden: 2") never reaches a player.
    assert!(!body.contains("hidden:"), "{who}: {body}");
    for m in &st.minefields {
        let mark = format!("class=\"minefield\" data-hex=\"{}\"", m.at);
        let Some(i) = html.find(&mark) else {
            continue;
        };
        let rest = &html[i..];
        let label = &rest[..rest.find("<title>").unwrap_or(rest.len())];
        if m.revealed {
            assert!(
                label.ends_with(&format!(">M{}", m.strength)),
                "{who}: the revealed minefield at {} shows {label}",
                m.at
            );
        } else {
            assert!(
                label.ends_with(">M?"),
                "{who}: the hidden minefield at {} shows {label}",
                m.at
            );
        }
    }
}

#[test]
fn miteiriya_ridge_by_mail_through_a_real_server() {
    if !common::mailserver() {
        return;
    }
    let mut g = MemoirGame::start(
        "miteiriya-ridge",
        [("allies", "bob"), ("axis", "alice")],
        44,
    );
    let opening = g.wait_opening(1);
    for (who, m) in g.players.iter().zip(&opening) {
        let st = common::latest_state(&g.site);
        assert_eq!(st.minefields.len(), 9);
        check_mail(who, m.last().unwrap(), &st);
    }
    let mut revealed_or_cleared = false;
    for n in 0..8 {
        // The breach: the sappers onto the minefield at F4 (one hex, so
        // they clear it instead of battling), the infantry onto G4.
        let breach = "PLAY direct-from-hq\nORDER F3 G3\nMOVE F3 F4\nMOVE G3 G4\n";
        let Some(t) = g.play((n == 0).then_some(breach)) else {
            break;
        };
        let st = common::latest_state(&g.site);
        for (i, who) in g.players.iter().enumerate() {
            // The mover's acceptance and report, the other side's report.
            let new = t.new_mails(i);
            for mail in new {
                check_mail(who, mail, &st);
            }
            if n == 0 {
                let told = new
                    .iter()
                    .map(|x| x["body"].as_str().unwrap_or_default())
                    .collect::<Vec<_>>()
                    .join("\n");
                assert!(told.contains("minefield at F4"), "{who}: {told}");
                assert!(told.contains("minefield at G4"), "{who}: {told}");
            }
        }
        if n == 0 {
            // F4: cleared (removed) or failed (revealed); G4: revealed (a
            // Decoy is removed on the spot).
            let f4 = st.minefields.iter().find(|m| m.at.to_string() == "F4");
            assert!(f4.is_none_or(|m| m.revealed), "{f4:?}");
            let g4 = st.minefields.iter().find(|m| m.at.to_string() == "G4");
            assert!(g4.is_none_or(|m| m.revealed), "{g4:?}");
            revealed_or_cleared = true;
        }
    }
    assert!(revealed_or_cleared);
    assert!(g.row().0 >= 5, "the game did not go on");
    let v = g.site.export_and_verify(&["--include-seed"]);
    assert!(v.contains("replayed identically"), "{v}");
}
