//! Appendix 1's Minefields and Combat Engineers through the binary
//! (issue 12): `check-scenario` answers a wrong `[[minefields]]` entry or a
//! second Engineer Unit with the line and column of the mistake; the shipped
//! Miteiriya Ridge lays its minefields with strengths drawn by the game's
//! hidden-shuffle stream, shows a player no strength and the referee all.

fn shipped() -> String {
    std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scenarios/memoir44/miteiriya-ridge.toml"
    ))
    .unwrap()
}

#[test]
fn a_bad_minefield_or_a_second_engineer_unit_is_refused_with_line_and_column() {
    let site = crate::common::svg_site();
    let shipped = shipped();
    // (text in the file, its replacement, words of the answer, the
    // replacement's line of the mistake counted from its first line).
    let cases = [
        (
            "at = \"C4\"\nside = \"axis\"",
            "at = \"C4\"\nside = \"germans\"",
            "unknown side 'germans'",
            1,
        ),
        (
            "at = \"D4\"\nside = \"axis\"",
            "at = \"Z4\"\nside = \"axis\"",
            "Z4",
            0,
        ),
        (
            "at = \"E4\"\nside = \"axis\"",
            "at = \"D4\" # again\nside = \"axis\"",
            "two minefields on D4",
            0,
        ),
        (
            "at = \"D2\"\nside = \"allies\"\ntype = \"infantry\"",
            "at = \"D2\"\nside = \"allies\"\ntype = \"engineers\"",
            "only have one Combat Engineers",
            2,
        ),
        (
            "at = \"J5\"\nside = \"axis\"",
            "at = \"J5\"\nside = \"axis\"\nstrength = 9",
            "0 (a Decoy) to 6",
            2,
        ),
        (
            "first = \"allies\"",
            "first = \"allies\"\nminefield_pieces = [1, 2]",
            "9 minefield hexes but only 2 minefield pieces",
            1,
        ),
    ];
    for (i, (from, to, want, down)) in cases.iter().enumerate() {
        assert!(shipped.contains(from), "{from}");
        let text = shipped
            .replace("id = \"miteiriya-ridge\"", "id = \"club-mines\"")
            .replacen(from, to, 1);
        let file = site.path().join(format!("mines{i}.toml"));
        std::fs::write(&file, &text).unwrap();
        let out = site.run(&["check-scenario", file.to_str().unwrap()]);
        assert!(!out.status.success(), "{to}");
        let err = String::from_utf8_lossy(&out.stderr);
        let at = text.find(to).unwrap();
        let line = text[..at].matches('\n').count() + 1 + down;
        assert!(
            err.contains(&format!("mines{i}.toml:{line}:")),
            "line {line}: {err}"
        );
        assert!(err.contains(want), "{want}: {err}");
    }
}

#[test]
fn miteiriya_ridge_hides_the_strengths_from_the_players_only() {
    use adjutant::engine::dice::ChaChaDice;
    use adjutant::rules::memoir44::{self, view, Ruleset};
    use adjutant::rules::Viewer;
    let r = Ruleset::builtin().unwrap();
    let mut strengths = Vec::new();
    for seed in 0..40u8 {
        let mut deck = ChaChaDice::from_seed([seed; 32]);
        let st = memoir44::setup(&r, "miteiriya-ridge", &mut deck).unwrap();
        assert_eq!(st.minefields.len(), 9);
        assert!(st.minefields.iter().all(|m| !m.revealed && m.side == 1));
        // Drawn from the box: never more of a number than the box holds.
        for n in 0..4 {
            let k = st.minefields.iter().filter(|m| m.strength == n).count();
            assert!(k <= 4, "{k} pieces of strength {n}");
        }
        strengths.push(st.minefields.iter().map(|m| m.strength).collect::<Vec<_>>());
        for who in ["allies", "axis"] {
            let v = view::view(&r, &st, &Viewer::Side(who.into()));
            assert_eq!(v.minefields.len(), 9);
            assert!(v.minefields.iter().all(|m| m.strength.is_none()));
            let text = memoir44::render::text(&r, &st, &Viewer::Side(who.into()));
            assert!(!text.contains("hidden:"), "{text}");
        }
        let v = view::view(&r, &st, &Viewer::Referee);
        assert!(v.minefields.iter().all(|m| m.strength.is_some()));
    }
    // The draw depends on the seed.
    strengths.sort();
    strengths.dedup();
    assert!(
        strengths.len() > 30,
        "{} different layouts",
        strengths.len()
    );
}
