//! Paratroops & Glider Landings through the whole judge: a game of the
//! shipped Maleme scenario drops its sticks by dice in the judge's opening
//! phase, reports where each landed in the first report to both sides, plays
//! on, and `verify` replays the drop; a bad `[[airdrops]]` entry is refused
//! with its line and column.

use crate::common;
use common::unqp;

#[test]
fn maleme_drops_by_dice_reports_the_landings_and_verifies() {
    let site = crate::common::svg_site();
    site.new_game(
        "maleme",
        &["axis=alice@example.org", "allies=bob@example.org"],
        &[],
    );
    let mails: Vec<String> = site.outbox().into_iter().map(|(_, t)| unqp(&t)).collect();
    let first: Vec<&String> = mails
        .iter()
        .filter(|m| m.contains("Subject: Game 1: turn 1 (the judge)"))
        .collect();
    assert_eq!(first.len(), 2, "the drop is reported to both sides");
    for m in &first {
        // The plain text's list of what happened (the mail also carries the
        // view as JSON and HTML).
        let from = m.find("What happened:").expect("what happened");
        let to = from + m[from..].find("Maleme, after").expect("the map");
        // Lines are wrapped at 80 columns wherever the words fall (the
        // game's seed is new each run): read the list with its wrapping
        // folded.
        let m = m[from..to].split_whitespace().collect::<Vec<_>>().join(" ");
        let m = m.as_str();
        // Five sticks: two gliders over G4, three from the plane along row 6.
        let drops = m.matches("Axis airdrop Elite Infantry").count();
        assert_eq!(drops, 5, "{m}");
        assert_eq!(m.matches(" over G4 (").count(), 2, "{m}");
        // A stick of the plane is told "from the plane over X", or, when
        // the plane had flown past the board's edge before it jumped, only
        // that (the game's seed is new each run, so either may happen).
        assert_eq!(
            m.matches("from the plane over").count()
                + m.matches("the plane had flown past").count(),
            3,
            "{m}"
        );
        let landed = m.matches("landed at").count();
        let lost = m.matches("(no medal to the enemy)").count();
        assert_eq!(landed + lost, 5, "each stick lands or is lost: {m}");
    }
    common::assert_80_columns(&site);
    // The Axis move first once the sticks are down.
    let state = common::latest_state(&site);
    assert!(state.airdrops.is_empty());
    assert_eq!(
        adjutant::rules::memoir44::waiting(&state).sides,
        vec!["axis".to_string()]
    );
    common::submit_random_turns(&site, 4, 12);
    let v = site.export_and_verify(&["--include-seed"]);
    let export = site.path().join("export.json");
    assert!(v.contains("5 turns replayed identically"), "{v}");

    // A drift die changed in the export: verify names the difference.
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&export).unwrap()).unwrap();
    let first_turn = &mut json["turns"][0]["events"][0];
    assert_eq!(first_turn["kind"], "airdrop", "{first_turn}");
    let r = first_turn["rolls"][0].as_u64().unwrap();
    first_turn["rolls"][0] = serde_json::json!(if r == 6 { 1 } else { r + 1 });
    std::fs::write(&export, serde_json::to_string(&json).unwrap()).unwrap();
    let out = site.run(&["verify", export.to_str().unwrap()]);
    assert!(!out.status.success(), "a changed drop die must fail verify");
}

#[test]
fn a_bad_airdrop_is_refused_with_line_and_column() {
    let site = crate::common::svg_site();
    let shipped = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scenarios/memoir44/maleme.toml"
    ))
    .unwrap();
    // (text in the file, its replacement, words of the answer, how many
    // lines above the replacement's first line the answer points).
    let cases = [
        (
            "type = \"elite-infantry\"\naim = \"G4\"",
            "type = \"medium-armour\"\naim = \"G4\"",
            "infantry class",
            0,
        ),
        (
            "flight = [\"L6\", \"K6\"]",
            "flight = [\"L6\", \"K5\"]",
            "not a straight line",
            0,
        ),
        (
            "flight = [\"L6\", \"K6\"]",
            "flight = [\"L6\", \"K6\"]\naim = \"G4\"",
            "either aim",
            2,
        ),
        ("aim = \"G4\"", "aim = \"Z4\"", "Z4", 0),
    ];
    for (i, (from, to, want, above)) in cases.iter().enumerate() {
        assert!(shipped.contains(from), "{from}");
        let text = shipped
            .replace("id = \"maleme\"", "id = \"club-drop\"")
            .replacen(from, to, 1);
        let file = site.path().join(format!("drop{i}.toml"));
        std::fs::write(&file, &text).unwrap();
        let out = site.run(&["check-scenario", file.to_str().unwrap()]);
        assert!(!out.status.success(), "{to}");
        let err = String::from_utf8_lossy(&out.stderr);
        // The line of the mistake, 1-based, as the file has it.
        let at = text.find(to).unwrap();
        let line = text[..at].matches('\n').count() + 1 - above;
        assert!(
            err.contains(&format!("drop{i}.toml:{line}:")),
            "line {line}: {err}"
        );
        assert!(err.contains(want), "{want}: {err}");
    }
}

/// `ADJUTANT_SEED` (development builds only, for tests: docs/host.md) gives
/// a new game its seed, so a game whose judge's phase is played at
/// `new-game` (Maleme's drop) is the same game every run; without it, or
/// with another value, each game has a seed of its own.
#[test]
fn adjutant_seed_makes_a_game_opening_with_the_judges_phase_repeatable() {
    let game = |given: Option<&str>| {
        let site = crate::common::svg_site();
        let mut c = site.command(&[
            "new-game",
            "--scenario",
            "maleme",
            "--seat",
            "axis=alice@example.org",
            "--seat",
            "allies=bob@example.org",
        ]);
        if let Some(g) = given {
            c.env("ADJUTANT_SEED", g);
        }
        let out = c.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let seed: String = site
            .db()
            .query_row("SELECT seed FROM games WHERE id = 1", [], |r| r.get(0))
            .unwrap();
        let drop: Vec<String> = site
            .outbox()
            .into_iter()
            .map(|(_, t)| unqp(&t))
            .filter(|m| m.contains("Subject: Game 1: turn 1 (the judge)"))
            .map(|m| {
                let from = m.find("What happened:").expect("what happened");
                let to = from + m[from..].find("Maleme, after").expect("the map");
                m[from..to].to_string()
            })
            .collect();
        assert_eq!(drop.len(), 2, "the drop is reported to both sides");
        (seed, drop)
    };
    let (a, b) = (game(Some("7")), game(Some("7")));
    assert_eq!(a, b, "the same ADJUTANT_SEED, the same game");
    let c = game(Some("8"));
    assert_ne!(a.0, c.0, "another ADJUTANT_SEED, another seed");
    let (d, e) = (game(None), game(None));
    assert_ne!(d.0, e.0, "without ADJUTANT_SEED every game's seed is new");
    assert_ne!(d.0, a.0);
}
