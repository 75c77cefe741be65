//! Where a unit's label goes on the picture (issue 53): on the unit when
//! it fits there, otherwise the nearest place around it, rear side first,
//! that covers no other unit and no label already placed, inside the
//! table. Drawing only: floats never decide a rule here.

/// A point on the picture, in pixels.
pub type P = (f64, f64);

/// A label's box: (left, top, right, bottom).
pub type Box4 = (f64, f64, f64, f64);

/// Pixels a character of a 9-pixel label takes (a little more than the
/// 0.6 em a sans-serif capital averages).
pub const CHAR_W: f64 = 5.6;
/// Above and below the baseline: under it the strength's bar (issue 53),
/// [`BAR_DOWN`] below the baseline and 3 high.
const ASCENT: f64 = 7.5;
const DESCENT: f64 = 5.5;
/// How far under a label's baseline its strength's bar starts.
pub const BAR_DOWN: f64 = 1.5;

/// The box of a `chars`-long label centred at x with its baseline at y.
#[must_use]
pub fn label_box(x: f64, y: f64, chars: usize) -> Box4 {
    let half = CHAR_W * chars as f64 / 2.0;
    (x - half, y - ASCENT, x + half, y + DESCENT)
}

/// Whether the box and the convex outline overlap (separating axes: the
/// box's two and the outline's edges' normals).
#[must_use]
pub fn covers(b: Box4, outline: &[P]) -> bool {
    if outline.len() < 3 {
        return false;
    }
    let corners = [(b.0, b.1), (b.2, b.1), (b.2, b.3), (b.0, b.3)];
    let mut axes = vec![(1.0, 0.0), (0.0, 1.0)];
    for i in 0..outline.len() {
        let (a, c) = (outline[i], outline[(i + 1) % outline.len()]);
        axes.push((a.1 - c.1, c.0 - a.0));
    }
    let span = |ps: &[P], ax: f64, ay: f64| {
        ps.iter()
            .map(|p| p.0 * ax + p.1 * ay)
            .fold((f64::MAX, f64::MIN), |m, v| (m.0.min(v), m.1.max(v)))
    };
    axes.iter().all(|&(ax, ay)| {
        let l = (ax * ax + ay * ay).sqrt();
        if l == 0.0 {
            return true;
        }
        let (a0, a1) = span(&corners, ax / l, ay / l);
        let (b0, b1) = span(outline, ax / l, ay / l);
        a1.min(b1) > a0.max(b0)
    })
}

/// Whether two boxes overlap.
#[must_use]
pub fn boxes_overlap(a: Box4, b: Box4) -> bool {
    a.2.min(b.2) > a.0.max(b.0) && a.3.min(b.3) > a.1.max(b.1)
}

/// The label's place (x of its centre, y of its baseline) for unit
/// `own` of `outlines` (front edge first: corners 0 and 1), `chars` long,
/// on a `w` by `h` table, clear of `placed` labels; the box is added to
/// `placed`. Returns whether it sits on the unit (dark ink on the unit,
/// or dark ink on the table: the caller chooses).
pub fn place(
    outlines: &[Vec<P>],
    own: usize,
    chars: usize,
    (w, h): (f64, f64),
    placed: &mut Vec<Box4>,
) -> (f64, f64, bool) {
    let c = &outlines[own];
    let n = c.len().max(1) as f64;
    let (cx, cy) = (
        c.iter().map(|p| p.0).sum::<f64>() / n,
        c.iter().map(|p| p.1).sum::<f64>() / n,
    );
    let (fx, fy) = c.get(..2).map_or((cx, cy), |f| {
        ((f[0].0 + f[1].0) / 2.0, (f[0].1 + f[1].1) / 2.0)
    });
    let (bx, by) = (cx - fx, cy - fy);
    let depth = (bx * bx + by * by).sqrt() * 2.0;
    let front = c.get(..2).map_or(0.0, |f| {
        ((f[1].0 - f[0].0).powi(2) + (f[1].1 - f[0].1).powi(2)).sqrt()
    });
    let half = CHAR_W * chars as f64 / 2.0;
    // The rear's direction (down the picture for a unit with no depth).
    let (ux, uy) = if depth > 0.1 {
        (bx * 2.0 / depth, by * 2.0 / depth)
    } else {
        (0.0, 1.0)
    };
    let clamp = |x: f64, y: f64| {
        (
            x.clamp(half + 1.0, (w - half - 1.0).max(half + 1.0)),
            y.clamp(ASCENT + 1.0, (h - DESCENT - 1.0).max(ASCENT + 1.0)),
        )
    };
    // Clear of the labels placed and of every other unit; a label beside
    // its unit (not on it) clear of its own unit too: one half on a long
    // thin unit read as a label crossing it (issue 53, Minden's `VOLONT 7`
    // and `TOUR2 12`).
    let clear = |x: f64, y: f64, on: bool, placed: &[Box4]| {
        let b = label_box(x, y, chars);
        placed.iter().all(|p| !boxes_overlap(b, *p))
            && outlines
                .iter()
                .enumerate()
                .all(|(i, o)| (i == own && on) || !covers(b, o))
    };
    let mut candidates = Vec::new();
    // On the unit when the label and its bar fit inside it (the label's
    // baseline 3 under its centre).
    if depth >= 2.0 * (DESCENT + 3.0) + 1.0 && front >= 2.0 * half {
        candidates.push((cx, cy + 3.0, true));
    }
    // Rings round the unit's centre, from just behind its rear outwards,
    // each tried from the rear round both ways.
    for ring in 0..24 {
        let r = depth / 2.0 + 8.0 + 6.0 * f64::from(ring);
        for step in 0..16 {
            let turn = f64::from((step + 1) / 2) * if step % 2 == 0 { 1.0 } else { -1.0 };
            let a = turn * std::f64::consts::PI / 8.0;
            let (dx, dy) = (ux * a.cos() - uy * a.sin(), ux * a.sin() + uy * a.cos());
            candidates.push((cx + dx * r, cy + dy * r + 3.0, false));
        }
    }
    let first = candidates[0];
    let (x, y, on) = candidates
        .into_iter()
        .map(|(x, y, on)| {
            let (x2, y2) = clamp(x, y);
            (x2, y2, on && (x2 - x).abs() < 0.01 && (y2 - y).abs() < 0.01)
        })
        .find(|&(x, y, on)| clear(x, y, on, placed))
        .unwrap_or_else(|| {
            let (x, y) = clamp(first.0, first.1);
            (x, y, first.2)
        });
    placed.push(label_box(x, y, chars));
    (x, y, on)
}
