//! The measured boards' unit labels against their own units (issue 53),
//! over the presentation tests' busy games (tests/it/presentation.rs).

use super::{busy_games, hits, label_boxes};

/// Issue 53, the measured labels seen in the screenshots: Minden's
/// `VOLONT 7` and `TOUR2 12` lay half across their long thin columns. The
/// measured scenarios' busy games (shared with the other presentation
/// tests), from every seat: a unit's label lies on its own unit (its
/// middle inside the outline) or clear of it, never across its edge. (The
/// other label tests above hold every label inside the picture and clear
/// of the other labels, units, arrowheads and terrain names.) Failed first
/// with 51 faults.
#[test]
fn measured_labels_clear_every_unit_their_own_included() {
    let mut bad = Vec::new();
    let mut checked = 0;
    let measured = ["el-bodon-1811", "fuentes-de-onoro-1811", "minden-1759"];
    for game in busy_games()
        .iter()
        .filter(|g| measured.contains(&&*g.scenario))
    {
        for s in &game.seen {
            for svg in &s.svgs {
                let (labels, units) = label_boxes(svg);
                checked += labels.len();
                for (b, t, own) in &labels {
                    if let Some(outline) = units.get(*own).and_then(|p| p.first()) {
                        let middle = ((b.0 + b.2) / 2.0, (b.1 + b.3) / 2.0);
                        if hits(*b, outline) && !within(middle, outline) {
                            bad.push(format!(
                                "{}: {}: the label {t} {b:?} lies across its unit's edge",
                                game.scenario, s.what
                            ));
                        }
                    }
                }
            }
        }
    }
    assert!(checked > 100, "only {checked} labels");
    assert!(bad.is_empty(), "{} faults:\n{}", bad.len(), bad.join("\n"));
}

/// Whether a point lies within a convex outline (on an edge counts, and a
/// pixel's slack).
fn within(p: (f64, f64), outline: &[(f64, f64)]) -> bool {
    let n = outline.len();
    if n < 3 {
        return false;
    }
    let side = |i: usize| {
        let (a, c) = (outline[i], outline[(i + 1) % n]);
        let (ex, ey) = (c.0 - a.0, c.1 - a.1);
        let l = (ex * ex + ey * ey).sqrt().max(1e-9);
        (ex * (p.1 - a.1) - ey * (p.0 - a.0)) / l
    };
    let sides: Vec<f64> = (0..n).map(side).collect();
    sides.iter().all(|d| *d >= -1.0) || sides.iter().all(|d| *d <= 1.0)
}
