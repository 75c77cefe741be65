//! End to end over a real mail server (scripts/mailserver.sh), issue 12: a
//! game of the shipped Bir Hakeim scenario (Gazala, 27 May 1942), the desert
//! scenario of Appendix 2's tiles (desert town, oasis, palm trees, a wadi,
//! field bunkers, trenches, a supply depot) under the North African Desert
//! Rules. The players play by replying to the judge's mails; each report's
//! map names the new tiles in its legend, the HTML part draws them with the
//! SVG legend, and the exported game verifies.

use crate::common;
use common::memoir_mail::MemoirGame;

#[test]
fn bir_hakeim_by_mail_through_a_real_server() {
    if !common::mailserver() {
        return;
    }
    let mut g = MemoirGame::start("bir-hakeim", [("axis", "alice"), ("allies", "bob")], 27);
    g.wait_opening(1);
    assert!(common::latest_state(&g.site).plays("north-african-desert"));

    let mut turns = 0;
    for _ in 0..8 {
        let Some(t) = g.play(None) else {
            break;
        };
        turns += 1;
        for (i, who) in g.players.iter().enumerate() {
            let (body, flat) = t.flat_report(i, who);
            for code in ["Dt desert-town", "Oa oasis", "Wa wadi", "Pa palm-trees"] {
                assert!(flat.contains(code), "{who}: no '{code}' in\n{body}");
            }
        }
    }
    assert!(turns >= 5, "only {turns} turns were played");
    let v = g.site.export_and_verify(&["--include-seed"]);
    assert!(v.contains("replayed identically"), "{v}");
}
