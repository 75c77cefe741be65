//! Appendix 2 (issue 12): the desert scenario Bir Hakeim through the binary:
//! `check-scenario` accepts it and answers a wrong tile or obstacle name with
//! its line and column.

use crate::common;
use common::bin;
use std::process::Command;

fn check(path: &std::path::Path) -> (bool, String) {
    let out = Command::new(bin())
        .args(["check-scenario", path.to_str().unwrap()])
        .output()
        .unwrap();
    (
        out.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

#[test]
fn bir_hakeim_checks_and_a_wrong_tile_has_its_line_and_column() {
    let file =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/memoir44/bir-hakeim.toml");
    let (ok, text) = check(&file);
    assert!(ok, "{text}");
    assert!(text.contains("wadi") && text.contains("trenches"), "{text}");
    let good = std::fs::read_to_string(&file).unwrap();
    let dir = tempfile::tempdir().unwrap();
    for (from, to, want) in [
        ("J6 = \"wadi\"", "J6 = \"wady\"", "unknown terrain 'wady'"),
        (
            "D3 = [\"open\", \"trenches\"]",
            "D3 = [\"open\", \"trench\"]",
            "unknown terrain 'trench'",
        ),
    ] {
        let bad = good.replacen(from, to, 1);
        assert_ne!(bad, good);
        let line = good[..good.find(from).unwrap()].lines().count() + 1;
        let p = dir.path().join("bad.toml");
        std::fs::write(&p, bad).unwrap();
        let (ok, text) = check(&p);
        assert!(!ok, "{text}");
        assert!(text.contains(want), "{text}");
        assert!(text.contains(&format!("bad.toml:{line}:")), "{text}");
    }
}
