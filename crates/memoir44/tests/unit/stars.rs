//! Unit tests of `src/stars.rs` (moved out of the crate so that the
//! library compiles once: docs/testing.md).

#[allow(unused_imports)]
use crate::prelude::*;
use adjutant_memoir44::{scenario, Ruleset};

fn text(extra: &str) -> String {
    format!(
        "id = \"x\"\nruleset = \"memoir44\"\nname = \"x\"\nvictory = 4\nfirst = \"allies\"\n\
         [[sides]]\nid = \"allies\"\n[[sides]]\nid = \"axis\"\n\
         [terrain]\nG5 = \"woods\"\nD5 = \"dam\"\n\
         [[units]]\nat = \"E2\"\nside = \"allies\"\ntype = \"infantry\"\n{extra}"
    )
}

fn star(kind: &str, at: &str, more: &str) -> String {
    format!("[[battle_stars]]\nkind = \"{kind}\"\nat = \"{at}\"\n{more}")
}

/// Sabotage, Sabotaging A Dam, Collapsible Assault Boats and Forward
/// Spotting Artillery are checked where the scenario places them, with
/// the line of the offending key.
#[test]
fn the_issue_12_markers_are_checked_where_they_are_placed() {
    let r = Ruleset::builtin().unwrap();
    let e = refusal(&r, &text(&star("dam", "G5", "side = \"axis\"\n")));
    assert!(e.contains("f.toml:19:") && e.contains("Dam hex"), "{e}");
    let e = refusal(&r, &text(&star("dam", "D5", "")));
    assert!(
        e.contains("f.toml:18:") && e.contains("names the side"),
        "{e}"
    );
    let e = refusal(
        &r,
        &text(&star("dam", "D5", "side = \"axis\"\ncount = 4\n")),
    );
    assert!(e.contains("f.toml:21:") && e.contains("0 to 3"), "{e}");
    let e = refusal(
        &r,
        &text(&star("sabotage", "G5", "count = 1\nside = \"axis\"\n")),
    );
    assert!(e.contains("f.toml:20:") && e.contains("dam"), "{e}");
    for kind in ["sabotage", "forward-spotting"] {
        let e = refusal(&r, &text(&star(kind, "G5", "")));
        assert!(
            e.contains("f.toml:18:") && e.contains("names the side"),
            "{e}"
        );
    }
    let e = refusal(&r, &text(&star("assault-boats", "F5", "")));
    assert!(e.contains("f.toml:19:") && e.contains("none at F5"), "{e}");
    let e = refusal(&r, &text(&star("assault-boats", "E2", "side = \"axis\"\n")));
    assert!(
        e.contains("f.toml:19:") && e.contains("not of the Assault Boats' side"),
        "{e}"
    );
    let ok = [
        star("dam", "D5", "side = \"axis\"\ncount = 3\n"),
        star("sabotage", "G5", "side = \"allies\"\n"),
        star("forward-spotting", "F5", "side = \"allies\"\n"),
        star("assault-boats", "E2", ""),
    ]
    .concat();
    let (_, st) = scenario::load(&r, &text(&ok), "f.toml").unwrap();
    assert_eq!(st.stars.len(), 4);
    assert_eq!(st.stars[0].count, 3);
    assert_eq!(st.stars[3].side, Some(0));
    assert!(st.stars[3].unit.is_some());
}
