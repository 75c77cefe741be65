//! Where the grid picture's arrows and their hits go (issue 53): each
//! arrow's head on no unit (frame, symbol, letter and strength, pips), no
//! area name or terrain code and no arrow drawn before it, its shaft
//! across no unit and no head; between neighbouring areas, whose units'
//! boxes touch, beside the line between the centres. Plain geometry on
//! the picture's own coordinates: no state, the same every time.

use super::{Area, UnitView, View};

/// A point of the picture.
type Pt = (f64, f64);

/// A box: (left, top, right, bottom).
pub(super) type Box4 = (f64, f64, f64, f64);

/// How far a unit is drawn above or below its area's centre: a general
/// sharing its area with a unit under it, the unit a little up.
pub(super) fn stack_dy(v: &View, u: &UnitView) -> i32 {
    let stacked = v
        .units
        .iter()
        .any(|o| o.at == u.at && (o.kind == "general") != (u.kind == "general"));
    match (u.kind == "general", stacked) {
        (true, _) => 14,
        (false, true) => -5,
        (false, false) => 0,
    }
}

/// What the turn's arrows keep clear of: every unit's whole box (frame,
/// symbol, letter and strength, pips, with a margin), every area's name
/// and terrain code (and each hits text once placed), the heads and
/// shafts drawn so far, and the board, which holds them.
pub(super) struct Clear {
    units: Vec<Vec<Pt>>,
    names: Vec<Vec<Pt>>,
    heads: Vec<Vec<Pt>>,
    shafts: Vec<Vec<Pt>>,
    board: Box4,
}

fn corners(b: Box4) -> Vec<Pt> {
    vec![(b.0, b.1), (b.2, b.1), (b.2, b.3), (b.0, b.3)]
}

/// Whether two convex outlines overlap (separating axes).
fn overlaps(p: &[Pt], q: &[Pt]) -> bool {
    let normals = |s: &[Pt]| -> Vec<Pt> {
        (0..s.len())
            .map(|i| {
                let (a, b) = (s[i], s[(i + 1) % s.len()]);
                (a.1 - b.1, b.0 - a.0)
            })
            .collect()
    };
    let span = |s: &[Pt], ax: Pt| {
        s.iter()
            .map(|p| p.0 * ax.0 + p.1 * ax.1)
            .fold((f64::MAX, f64::MIN), |m, v| (m.0.min(v), m.1.max(v)))
    };
    normals(p).into_iter().chain(normals(q)).all(|ax| {
        let ((a0, a1), (b0, b1)) = (span(p, ax), span(q, ax));
        a1.min(b1) > a0.max(b0)
    })
}

/// The triangle an arrowhead's marker draws at the end `e` of a line
/// going `u` (a unit vector), stroke 2: the tip 1.4 beyond the end, the
/// base 12.6 before it, 14 wide.
fn head(e: Pt, u: Pt) -> Vec<Pt> {
    let base = (e.0 - u.0 * 12.6, e.1 - u.1 * 12.6);
    let n = (-u.1 * 7.0, u.0 * 7.0);
    vec![
        (e.0 + u.0 * 1.4, e.1 + u.1 * 1.4),
        (base.0 + n.0, base.1 + n.1),
        (base.0 - n.0, base.1 - n.1),
    ]
}

/// A shaft from `s` to `e`, `n` across it: 2 wide.
fn shaft(s: Pt, e: Pt, n: Pt) -> Vec<Pt> {
    vec![
        (s.0 + n.0, s.1 + n.1),
        (e.0 + n.0, e.1 + n.1),
        (e.0 - n.0, e.1 - n.1),
        (s.0 - n.0, s.1 - n.1),
    ]
}

/// A leg to route: from `a` to `b`, `u` the unit vector along it, `n`
/// the one across it to try first, `l` its length.
struct Leg {
    a: Pt,
    b: Pt,
    u: Pt,
    n: Pt,
    l: f64,
}

impl Clear {
    /// `names`: the boxes of the areas' names and terrain codes;
    /// `board`: the board's box.
    pub(super) fn new(
        v: &View,
        pos: &dyn Fn(Area) -> (i32, i32),
        board: Box4,
        names: &[Box4],
    ) -> Clear {
        let units = v
            .units
            .iter()
            .map(|u| {
                let (x, y) = pos(u.at);
                let (x, y) = (f64::from(x), f64::from(y + stack_dy(v, u)));
                // A general's letter and strength are short, its pips
                // few (a pip a step, at most 6 apart, 24 in all, centred
                // 15 right of the centre), leaving room at its right.
                let right = if u.kind == "general" {
                    let max = f64::from(u.max.max(u.strength).max(1));
                    let step = (24.0 / max).min(6.0);
                    19.0_f64.max(15.0 + (step * max - 2.0) / 2.0 + 2.0)
                } else {
                    28.0
                };
                corners((x - 26.0, y - 11.0, x + right, y + 11.0))
            })
            .collect();
        Clear {
            units,
            names: names.iter().map(|b| corners(*b)).collect(),
            heads: Vec::new(),
            shafts: Vec::new(),
            board,
        }
    }

    fn inside(&self, p: Pt) -> bool {
        p.0 >= self.board.0 && p.0 <= self.board.2 && p.1 >= self.board.1 && p.1 <= self.board.3
    }

    /// Where to draw a headed arrow from the area centred at `a` to the
    /// one at `b` (its start and end), kept as drawn: the line between
    /// the centres, cut short at both ends (the end nearest the target's
    /// centre that is clear, then the start nearest the source's), or,
    /// where nothing on that line is clear (two neighbouring areas'
    /// units), a line beside it, above it (or right of it) first, at
    /// least 16 long; a shaft off the areas' names where one can be.
    /// When nothing is clear, the line between the centres stopping 12
    /// short.
    pub(super) fn route(&mut self, a: Pt, b: Pt) -> (Pt, Pt) {
        let (dx, dy) = (b.0 - a.0, b.1 - a.1);
        let l = (dx * dx + dy * dy).sqrt();
        let u = (dx / l.max(1.0), dy / l.max(1.0));
        let n = if u.0 > 0.0 || (u.0 == 0.0 && u.1 < 0.0) {
            (u.1, -u.0)
        } else {
            (-u.1, u.0)
        };
        let leg = Leg { a, b, u, n, l };
        let found = if l < 17.0 {
            None
        } else {
            // The nearest the centres' line first, its shaft off the
            // names there if it can be; a long arrow's shaft across a
            // unit between its ends last (cut short only at its ends, so
            // that it still shows where it came from).
            let offsets = [0.0, 8.0, -8.0, 14.0, -14.0, 19.0, -19.0, 24.0, -24.0];
            offsets
                .into_iter()
                .find_map(|d| self.past(&leg, d, 0).or_else(|| self.past(&leg, d, 1)))
                .or_else(|| offsets.into_iter().find_map(|d| self.past(&leg, d, 2)))
        };
        let (s, e) = found.unwrap_or_else(|| {
            let k = (l - 12.0).max(l / 2.0) / l.max(1.0);
            (a, (a.0 + dx * k, a.1 + dy * k))
        });
        self.heads.push(head(e, u));
        // Kept 2 wider than drawn: a later head off it by 2.
        self.shafts.push(shaft(s, e, (n.0 * 3.0, n.1 * 3.0)));
        (s, e)
    }

    /// One try of [`Clear::route`]: the line `d` across from the
    /// centres', its start at most 34 from the source's centre and its
    /// end 44 from the target's; its shaft off the units and the areas'
    /// names (`level` 0), off the units (1), or off the units at its two
    /// ends (2).
    fn past(&self, leg: &Leg, d: f64, level: u8) -> Option<(Pt, Pt)> {
        let Leg { a, b, u, n, l } = *leg;
        let near = |p: &&Vec<Pt>| {
            p.iter().any(|q| {
                q.0 > a.0.min(b.0) - 45.0
                    && q.0 < a.0.max(b.0) + 45.0
                    && q.1 > a.1.min(b.1) - 45.0
                    && q.1 < a.1.max(b.1) + 45.0
            })
        };
        let units: Vec<&Vec<Pt>> = self.units.iter().filter(near).collect();
        let at = |p: Pt| corners((p.0 - 0.5, p.1 - 0.5, p.0 + 0.5, p.1 + 0.5));
        let (at_a, at_b) = (at(a), at(b));
        let in_way: Vec<&Vec<Pt>> = units
            .iter()
            .copied()
            .filter(|o| level < 2 || overlaps(o, &at_a) || overlaps(o, &at_b))
            .collect();
        let names: Vec<&Vec<Pt>> = self.names.iter().filter(near).collect();
        let heads: Vec<&Vec<Pt>> = self.heads.iter().filter(near).collect();
        let shafts: Vec<&Vec<Pt>> = self.shafts.iter().filter(near).collect();
        let (ox, oy) = (n.0 * d, n.1 * d);
        let mut e0 = 0.0;
        while e0 + 16.0 <= l && e0 <= 44.0 {
            let e = (b.0 + ox - u.0 * e0, b.1 + oy - u.1 * e0);
            let h = head(e, u);
            let clear = h.iter().all(|p| self.inside(*p))
                && !units
                    .iter()
                    .chain(&names)
                    .chain(&heads)
                    .chain(&shafts)
                    .any(|o| overlaps(o, &h));
            let mut s0 = 0.0;
            while clear && s0 + e0 + 16.0 <= l && s0 <= 34.0 {
                let s = (a.0 + ox + u.0 * s0, a.1 + oy + u.1 * s0);
                let sh = shaft(s, e, n);
                // Off the heads by 2 more: a shaft touching a head reads
                // as one arrow.
                let wide = shaft(s, e, (n.0 * 3.0, n.1 * 3.0));
                let by_names = level == 0 && names.iter().any(|o| overlaps(o, &sh));
                if !by_names
                    && !in_way.iter().any(|o| overlaps(o, &sh))
                    && !heads.iter().any(|o| overlaps(o, &wide))
                {
                    return Some((s, e));
                }
                s0 += 2.0;
            }
            e0 += 2.0;
        }
        None
    }

    /// Where a fire arrow's hits (or "miss") go, kept as drawn: beside
    /// the arrow from `s` to `e`, near its middle first, on its right (or
    /// under it) first, clear of every unit, name, head and shaft where
    /// it can be; the text's start and baseline.
    pub(super) fn hits_at(&mut self, s: Pt, e: Pt, text: &str) -> Pt {
        let (dx, dy) = (e.0 - s.0, e.1 - s.1);
        let l = (dx * dx + dy * dy).sqrt().max(1.0);
        let n = if -dy / l < 0.0 {
            (dy / l, -dx / l)
        } else {
            (-dy / l, dx / l)
        };
        // Bold 11px: about 7 a character, 8 high over the baseline.
        let (w, h) = (7.0 * text.chars().count() as f64, 9.0);
        let place = |t: f64, side: f64| {
            let m = (s.0 + dx * t, s.1 + dy * t);
            let away = n.0.abs() * w / 2.0 + n.1.abs() * h / 2.0 + 5.0;
            let centre = (m.0 + n.0 * side * away, m.1 + n.1 * side * away);
            (centre.0 - w / 2.0, centre.1 + h / 2.0)
        };
        let text_box = |(x, y): Pt| corners((x - 1.0, y - h - 1.0, x + w + 1.0, y + 3.0));
        let mut at = place(0.5, 1.0);
        'find: for t in [0.5, 0.4, 0.6, 0.3, 0.7] {
            for side in [1.0, -1.0] {
                let p = place(t, side);
                let bx = text_box(p);
                if bx.iter().all(|q| self.inside(*q))
                    && !self
                        .units
                        .iter()
                        .chain(&self.names)
                        .chain(&self.heads)
                        .chain(&self.shafts)
                        .any(|o| overlaps(o, &bx))
                {
                    at = p;
                    break 'find;
                }
            }
        }
        self.names.push(text_box(at));
        at
    }
}
