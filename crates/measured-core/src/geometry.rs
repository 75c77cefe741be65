//! The measured-table core: positions, facings, footprints, distances, arcs,
//! lines of fire and overlaps, for every measured rules set (the Charge!-style
//! set of the Charge! rulebook and the Seven Years' War rulebook). Nothing in
//! this file knows a ruleset's tables.
//!
//! Every rule-deciding number here is an integer:
//!
//! - **Lengths** are whole sixteenths of an inch ([`PER_INCH`]). A table of
//!   600" is 9,600 units, so every product below fits in `i64` and every
//!   product of products in `i128` with room to spare.
//! - **Angles** are whole degrees, 0 facing "up the table" (+y), 90 facing
//!   +x, clockwise. Directions come from [`SIN`], a table of sines of whole
//!   degrees scaled by 2^20 and written in this file (computed once, not by
//!   the platform's `libm` at run time), so a point moved along a facing is
//!   the same integer on every machine.
//! - **Distances** are compared squared ([`Dist2`], an exact rational), never
//!   through a square root; a distance printed in a report is the floor of
//!   the exact value to the sixteenth (integer square root).
//! - **Shapes** (terrain polygons, footprints, lines of fire) are `geo`
//!   geometries over `i64` coordinates. `geo` picks its `SimpleKernel` for
//!   integer coordinates: orientation is the sign of an integer cross
//!   product, exact while coordinates stay below 2^31. So `intersects`
//!   (a line of fire through a wood, a path across a river) and the
//!   point-in-polygon test (a unit on a hill) are exact. The one predicate
//!   `geo` cannot answer without floats is "do two footprints overlap, not
//!   merely touch" (its `Relate` needs `GeoFloat`); [`overlap`] answers it
//!   with the separating-axis test over the same integer corners.

use geo::{Contains, Coord, Intersects, Line, LineString, Polygon};
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;

/// Sixteenths of an inch in an inch.
pub const PER_INCH: i64 = 16;
/// The scale of [`SIN`]: sines are integers out of 2^20.
pub const SCALE: i64 = 1 << 20;
/// The largest table side, in inches (keeps every product in range).
pub const MAX_TABLE_INCHES: i64 = 600;

/// sin(d) * 2^20 rounded to the nearest integer, for d = 0..=90 degrees.
pub const SIN: [i64; 91] = [
    0, 18300, 36595, 54878, 73145, 91389, 109606, 127789, 145934, 164033, 182083, 200078, 218011,
    235878, 253673, 271391, 289027, 306574, 324028, 341383, 358634, 375776, 392803, 409711, 426494,
    443147, 459665, 476044, 492277, 508360, 524288, 540057, 555661, 571095, 586356, 601438, 616338,
    631049, 645568, 659890, 674012, 687928, 701634, 715127, 728402, 741455, 754282, 766880, 779244,
    791370, 803256, 814897, 826289, 837430, 848316, 858943, 869309, 879410, 889243, 898805, 908093,
    917105, 925838, 934288, 942454, 950333, 957922, 965219, 972223, 978930, 985339, 991448, 997255,
    1002758, 1007956, 1012847, 1017429, 1021701, 1025662, 1029311, 1032646, 1035666, 1038371,
    1040760, 1042832, 1044586, 1046022, 1047139, 1047937, 1048416, 1048576,
];

/// A point of the table in sixteenths of an inch; (0, 0) is the left corner
/// of the first side's edge, y grows across the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Pt {
    pub x: i64,
    pub y: i64,
}

impl Pt {
    #[must_use]
    pub const fn new(x: i64, y: i64) -> Pt {
        Pt { x, y }
    }
    /// A point given in whole inches.
    #[must_use]
    pub const fn inches(x: i64, y: i64) -> Pt {
        Pt {
            x: x * PER_INCH,
            y: y * PER_INCH,
        }
    }
    #[must_use]
    pub fn coord(self) -> Coord<i64> {
        Coord {
            x: self.x,
            y: self.y,
        }
    }
    /// Squared distance to another point, exact.
    #[must_use]
    pub fn dist2(self, o: Pt) -> i128 {
        let dx = i128::from(o.x - self.x);
        let dy = i128::from(o.y - self.y);
        dx * dx + dy * dy
    }
}

/// An angle reduced to 0..360.
#[must_use]
pub fn norm_deg(d: i64) -> i32 {
    d.rem_euclid(360) as i32
}

/// sin(deg) * 2^20, exact from [`SIN`] for every whole degree.
#[must_use]
pub fn sin_s(deg: i64) -> i64 {
    let d = norm_deg(deg) as usize;
    match d {
        0..=90 => SIN[d],
        91..=180 => SIN[180 - d],
        181..=270 => -SIN[d - 180],
        _ => -SIN[360 - d],
    }
}

/// cos(deg) * 2^20.
#[must_use]
pub fn cos_s(deg: i64) -> i64 {
    sin_s(90 - deg)
}

/// The direction of a facing as a vector of length about 2^20:
/// (sin, cos), since 0 faces +y and 90 faces +x.
#[must_use]
pub fn dir(deg: i64) -> (i64, i64) {
    (sin_s(deg), cos_s(deg))
}

/// a / b rounded to the nearest integer, halves away from zero.
#[must_use]
pub fn div_round(a: i128, b: i128) -> i64 {
    if b == 0 {
        return 0;
    }
    let (a, b) = if b < 0 { (-a, -b) } else { (a, b) };
    let q = if a >= 0 {
        (2 * a + b) / (2 * b)
    } else {
        -((-2 * a + b) / (2 * b))
    };
    q as i64
}

/// The point `fwd` ahead along `deg` and `right` to its right (negative:
/// behind, to the left), rounded to the sixteenth.
#[must_use]
pub fn offset(p: Pt, deg: i64, fwd: i64, right: i64) -> Pt {
    let (s, c) = dir(deg);
    // Ahead: (s, c); to the right: (c, -s).
    let dx = i128::from(fwd) * i128::from(s) + i128::from(right) * i128::from(c);
    let dy = i128::from(fwd) * i128::from(c) - i128::from(right) * i128::from(s);
    Pt {
        x: p.x + div_round(dx, i128::from(SCALE)),
        y: p.y + div_round(dy, i128::from(SCALE)),
    }
}

/// The whole-degree bearing from `a` to `b` (0 = +y, clockwise), the
/// nearest whole degree by exact comparison of cross products (ties to the
/// smaller angle). `a == b` gives 0.
#[must_use]
pub fn bearing(a: Pt, b: Pt) -> i32 {
    let vx = i128::from(b.x - a.x);
    let vy = i128::from(b.y - a.y);
    if vx == 0 && vy == 0 {
        return 0;
    }
    // The best degree maximises the dot product with (sin, cos); checking
    // all 360 is cheap and needs no arctangent.
    let mut best = 0i64;
    let mut best_dot = i128::MIN;
    for d in 0..360 {
        let (s, c) = dir(d);
        let dot = vx * i128::from(s) + vy * i128::from(c);
        if dot > best_dot {
            best_dot = dot;
            best = d;
        }
    }
    best as i32
}

/// Twice the signed area direction of (a, b, c): > 0 when c is left of a->b
/// (counter-clockwise), exact.
#[must_use]
pub fn cross(a: Pt, b: Pt, c: Pt) -> i128 {
    i128::from(b.x - a.x) * i128::from(c.y - a.y) - i128::from(b.y - a.y) * i128::from(c.x - a.x)
}

/// A squared distance as an exact rational: `num / den` squared sixteenths.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct Dist2 {
    pub num: i128,
    pub den: i128,
}

impl Dist2 {
    #[must_use]
    pub fn of(num: i128) -> Dist2 {
        Dist2 { num, den: 1 }
    }
    /// True if the distance is at most `len` sixteenths.
    #[must_use]
    pub fn within(self, len: i64) -> bool {
        let l = i128::from(len);
        self.num <= l * l * self.den
    }
    /// True if the distance is at least `len` sixteenths (exact: a
    /// distance a hair under `len` is not).
    #[must_use]
    pub fn at_least(self, len: i64) -> bool {
        let l = i128::from(len);
        self.num >= l * l * self.den
    }
    /// The distance rounded down to the sixteenth.
    #[must_use]
    pub fn floor(self) -> i64 {
        if self.den <= 0 || self.num <= 0 {
            return 0;
        }
        ((self.num / self.den) as u128).isqrt() as i64
    }
}

impl PartialEq for Dist2 {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}
impl Eq for Dist2 {}
impl PartialOrd for Dist2 {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Dist2 {
    fn cmp(&self, o: &Self) -> Ordering {
        (self.num * o.den).cmp(&(o.num * self.den))
    }
}

/// The exact squared distance from `p` to the segment a-b.
#[must_use]
pub fn dist2_point_segment(p: Pt, a: Pt, b: Pt) -> Dist2 {
    let abx = i128::from(b.x - a.x);
    let aby = i128::from(b.y - a.y);
    let apx = i128::from(p.x - a.x);
    let apy = i128::from(p.y - a.y);
    let len2 = abx * abx + aby * aby;
    let t = apx * abx + apy * aby;
    if len2 == 0 || t <= 0 {
        return Dist2::of(p.dist2(a));
    }
    if t >= len2 {
        return Dist2::of(p.dist2(b));
    }
    let c = apx * aby - apy * abx;
    Dist2 {
        num: c * c,
        den: len2,
    }
}

/// A formation's ground: a rectangle given by the centre of its front edge,
/// its facing, frontage and depth.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Footprint {
    pub front: Pt,
    pub facing: i32,
    pub width: i64,
    pub depth: i64,
}

impl Footprint {
    /// Front-left, front-right, rear-right, rear-left (clockwise seen from
    /// above, since y grows up the table and angles run clockwise).
    #[must_use]
    pub fn corners(&self) -> [Pt; 4] {
        let f = i64::from(self.facing);
        let h = self.width / 2;
        let w2 = self.width - h;
        [
            offset(self.front, f, 0, -h),
            offset(self.front, f, 0, w2),
            offset(self.front, f, -self.depth, w2),
            offset(self.front, f, -self.depth, -h),
        ]
    }
    /// The centre of the ground (rounded).
    #[must_use]
    pub fn centre(&self) -> Pt {
        offset(self.front, i64::from(self.facing), -self.depth / 2, 0)
    }
    /// The rectangle as a `geo` polygon over integer coordinates.
    #[must_use]
    pub fn polygon(&self) -> Polygon<i64> {
        polygon(&self.corners())
    }
    /// True if `p` is inside or on the edge.
    #[must_use]
    pub fn covers(&self, p: Pt) -> bool {
        covered(&self.corners(), p)
    }
    /// The exact squared distance from `p` to the nearest point of the ground.
    #[must_use]
    pub fn dist2_from(&self, p: Pt) -> Dist2 {
        dist2_from_corners(&self.corners(), p)
    }
    /// The four edges: front, right flank, rear, left flank.
    #[must_use]
    pub fn edges(&self) -> [(Pt, Pt); 4] {
        let c = self.corners();
        [(c[0], c[1]), (c[1], c[2]), (c[2], c[3]), (c[3], c[0])]
    }
}

/// [`Footprint::dist2_from`] for a ground given by its corners (worked out
/// once by a caller that measures from many points).
fn dist2_from_corners(c: &[Pt; 4], p: Pt) -> Dist2 {
    if covered(c, p) {
        return Dist2::of(0);
    }
    (0..4)
        .map(|i| dist2_point_segment(p, c[i], c[(i + 1) % 4]))
        .min()
        .unwrap_or(Dist2::of(0))
}

/// A closed `geo` polygon over integer points.
#[must_use]
pub fn polygon(pts: &[Pt]) -> Polygon<i64> {
    Polygon::new(
        LineString::from(pts.iter().map(|p| p.coord()).collect::<Vec<_>>()),
        vec![],
    )
}

/// A `geo` line between two points.
#[must_use]
pub fn line(a: Pt, b: Pt) -> Line<i64> {
    Line::new(a.coord(), b.coord())
}

/// A `geo` polyline.
#[must_use]
pub fn polyline(pts: &[Pt]) -> LineString<i64> {
    LineString::from(pts.iter().map(|p| p.coord()).collect::<Vec<_>>())
}

/// True if `p` lies inside the polygon of `pts` or on its edge (exact), as
/// `in_polygon(&polygon(pts), p)`; a point outside the points' bounding box
/// is answered without building the polygon (the text map asks this of every
/// character for every unit and area).
#[must_use]
pub fn covered(pts: &[Pt], p: Pt) -> bool {
    let (mut lo, mut hi) = (Pt::new(i64::MAX, i64::MAX), Pt::new(i64::MIN, i64::MIN));
    for q in pts {
        lo = Pt::new(lo.x.min(q.x), lo.y.min(q.y));
        hi = Pt::new(hi.x.max(q.x), hi.y.max(q.y));
    }
    if p.x < lo.x || p.x > hi.x || p.y < lo.y || p.y > hi.y {
        return false;
    }
    in_polygon(&polygon(pts), p)
}

/// True if `p` lies inside the polygon or on its edge (exact).
#[must_use]
pub fn in_polygon(poly: &Polygon<i64>, p: Pt) -> bool {
    poly.intersects(&p.coord())
}

/// True if `p` lies strictly inside the polygon (exact).
#[must_use]
pub fn strictly_in_polygon(poly: &Polygon<i64>, p: Pt) -> bool {
    poly.contains(&p.coord())
}

/// True if the interiors of two convex footprints overlap; edges that only
/// touch do not (a charge ends in contact, not overlap). The separating-axis
/// test over exact integer cross products: two convex polygons are apart
/// iff some edge of one has the whole other polygon on or beyond it.
#[must_use]
pub fn overlap(a: &Footprint, b: &Footprint) -> bool {
    convex_overlap(&a.corners(), &b.corners())
}

/// [`overlap`] for any two convex polygons given by their corners in order.
#[must_use]
pub fn convex_overlap(a: &[Pt], b: &[Pt]) -> bool {
    !separated_by_edge_of(a, b) && !separated_by_edge_of(b, a)
}

/// True if two footprints share ground a whole sixteenth deep or more: the
/// corners are rounded to the sixteenth, so two units set in contact by
/// different roundings (a retreat's end against the sweep that cleared it,
/// a veer's end against the ground ridden through) may cross by a fraction
/// of one. Every corner may lie up to (not including) a sixteenth past the
/// other's edge. A final position must not [`overlap_deeply`] another.
#[must_use]
pub fn overlap_deeply(a: &Footprint, b: &Footprint) -> bool {
    let (a, b) = (a.corners(), b.corners());
    !separated_within(&a, &b, true) && !separated_within(&b, &a, true)
}

fn separated_by_edge_of(a: &[Pt], b: &[Pt]) -> bool {
    separated_within(a, b, false)
}

/// Some edge of `a` has the whole of `b` on or beyond it; with `rounding`,
/// a corner of `b` less than one sixteenth inside counts as beyond (the
/// distance inside is cross / |pq|, compared squared).
fn separated_within(a: &[Pt], b: &[Pt], rounding: bool) -> bool {
    let n = a.len();
    if n < 3 {
        return true;
    }
    // Orientation of a: the sign of its area.
    let area: i128 = (0..n)
        .map(|i| cross(Pt::new(0, 0), a[i], a[(i + 1) % n]))
        .sum();
    let inside = if area >= 0 { 1 } else { -1 };
    (0..n).any(|i| {
        let (p, q) = (a[i], a[(i + 1) % n]);
        let len2 = i128::from(q.x - p.x).pow(2) + i128::from(q.y - p.y).pow(2);
        b.iter().all(|r| {
            let c = cross(p, q, *r) * inside;
            c <= 0 || (rounding && c * c < len2)
        })
    })
}

/// The distance along a ray from `p` facing `deg` to where it first meets
/// the footprint, as an exact rational of sixteenths (`num / den`), or None
/// if the ray misses it. The ray's direction is [`dir`], so a distance `t`
/// here lands where [`offset`]`(p, deg, t, 0)` does.
#[must_use]
pub fn ray_hit(p: Pt, deg: i64, fp: &Footprint) -> Option<(i128, i128)> {
    if fp.covers(p) {
        return Some((0, 1));
    }
    let (s, c) = dir(deg);
    let (dx, dy) = (i128::from(s), i128::from(c));
    let mut best: Option<(i128, i128)> = None;
    for (a, b) in fp.edges() {
        let ex = i128::from(b.x - a.x);
        let ey = i128::from(b.y - a.y);
        let apx = i128::from(a.x - p.x);
        let apy = i128::from(a.y - p.y);
        let den = dx * ey - dy * ex;
        if den == 0 {
            continue;
        }
        // p + t*d = a + u*e ; t = cross(ap, e)/cross(d, e), u = cross(ap, d)/cross(d, e)
        let tn = apx * ey - apy * ex;
        let un = apx * dy - apy * dx;
        let (tn, un, den) = if den < 0 {
            (-tn, -un, -den)
        } else {
            (tn, un, den)
        };
        if tn < 0 || un < 0 || un > den {
            continue;
        }
        // Distance in sixteenths = t * SCALE.
        let cand = (tn * i128::from(SCALE), den);
        best = match best {
            Some(b) if b.0 * cand.1 <= cand.0 * b.1 => Some(b),
            _ => Some(cand),
        };
    }
    best
}

/// True if the straight line a-b crosses or touches the polygon.
#[must_use]
pub fn crosses(a: Pt, b: Pt, poly: &Polygon<i64>) -> bool {
    line(a, b).intersects(poly)
}

/// True if the straight line a-b crosses or touches the polyline.
#[must_use]
pub fn crosses_line(a: Pt, b: Pt, pl: &LineString<i64>) -> bool {
    line(a, b).intersects(pl)
}

/// The length of the arc a flank `radius` from the pivot travels turning
/// `deg` degrees, rounded up to the sixteenth, with pi taken as 355/113 (a
/// rational good to seven figures: exact integers, the same everywhere).
#[must_use]
pub fn arc(radius: i64, deg: i64) -> i64 {
    let n = i128::from(radius) * i128::from(deg.abs()) * 355;
    let d = 113 * 180;
    ((n + d - 1) / d) as i64
}

/// True if `p` is within `half` degrees either side of the facing `deg`
/// seen from `from` (inclusive), exact: the angle between v and the facing
/// f is at most `half` iff dot(v,f) >= |v||f| cos(half), compared squared.
#[must_use]
pub fn in_arc(from: Pt, deg: i64, half: i64, p: Pt) -> bool {
    let vx = i128::from(p.x - from.x);
    let vy = i128::from(p.y - from.y);
    if vx == 0 && vy == 0 {
        return true;
    }
    let (s, c) = dir(deg);
    let dot = vx * i128::from(s) + vy * i128::from(c);
    let ch = i128::from(cos_s(half));
    let f2 = i128::from(s) * i128::from(s) + i128::from(c) * i128::from(c);
    let v2 = vx * vx + vy * vy;
    // dot >= |v||f| cos(half): with cos(half) >= 0 (half <= 90).
    if half >= 90 {
        return dot >= 0 || half >= 180;
    }
    if dot < 0 {
        return false;
    }
    // dot^2 * SCALE^2 >= v2 * f2 * ch^2, every term >= 0. With |v| below
    // 2^15 sixteenths and |f|, ch below 2^21 both sides stay under 2^112.
    let sc = i128::from(SCALE);
    dot * dot * sc * sc >= v2 * f2 * ch * ch
}

/// Sixteenths from a length written by a player or a file: "6", "7.5",
/// "7½", "7 1/2", "2/16", optionally with a trailing `"` or `in`. Only
/// multiples of a sixteenth are accepted.
#[must_use]
pub fn parse_len(s: &str) -> Option<i64> {
    let t = s
        .trim()
        .trim_end_matches('"')
        .trim_end_matches("in")
        .trim()
        .replace('½', " 1/2")
        .replace('¼', " 1/4")
        .replace('¾', " 3/4");
    let mut total: i64 = 0;
    let mut any = false;
    for part in t.split_whitespace() {
        let v = if let Some((a, b)) = part.split_once('/') {
            let a: i64 = a.parse().ok()?;
            let b: i64 = b.parse().ok()?;
            let a = a.checked_mul(PER_INCH)?;
            if b <= 0 || a % b != 0 {
                return None;
            }
            a / b
        } else if let Some((w, f)) = part.split_once('.') {
            let w: i64 = if w.is_empty() { 0 } else { w.parse().ok()? };
            if f.is_empty() || f.len() > 4 || !f.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            let den = 10i64.pow(f.len() as u32);
            let num: i64 = f.parse().ok()?;
            if (num * PER_INCH) % den != 0 {
                return None;
            }
            w.checked_mul(PER_INCH)?.checked_add(num * PER_INCH / den)?
        } else {
            part.parse::<i64>().ok()?.checked_mul(PER_INCH)?
        };
        if !(0..=MAX_TABLE_INCHES * PER_INCH).contains(&v) {
            return None;
        }
        total += v;
        any = true;
    }
    any.then_some(total)
}

/// A length in sixteenths as inches for a player: `7 1/2"`, `24"`, `3/16"`.
#[must_use]
pub fn fmt_len(v: i64) -> String {
    let sign = if v < 0 { "-" } else { "" };
    let v = v.abs();
    let (w, f) = (v / PER_INCH, v % PER_INCH);
    if f == 0 {
        return format!("{sign}{w}\"");
    }
    let g = gcd(f, PER_INCH);
    let (n, d) = (f / g, PER_INCH / g);
    if w == 0 {
        format!("{sign}{n}/{d}\"")
    } else {
        format!("{sign}{w} {n}/{d}\"")
    }
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// The distance between two footprints (0 if they touch or overlap).
pub fn fp_dist2(a: &Footprint, b: &Footprint) -> Dist2 {
    // Each ground's corners once (they were most of a measured game's time).
    let (ca, cb) = (a.corners(), b.corners());
    if convex_overlap(&ca, &cb) {
        return Dist2::of(0);
    }
    let ab = ca.iter().map(|c| dist2_from_corners(&cb, *c)).min();
    let ba = cb.iter().map(|c| dist2_from_corners(&ca, *c)).min();
    ab.into_iter().chain(ba).min().unwrap_or(Dist2::of(0))
}

/// Square root rounded up, of sixteenths squared.
#[must_use]
pub fn isqrt_up(v: i128) -> i64 {
    if v <= 0 {
        return 0;
    }
    let r = (v as u128).isqrt() as i128;
    (if r * r < v { r + 1 } else { r }) as i64
}

/// A point `d` along the way from `a` to `b`.
#[must_use]
pub fn toward(a: Pt, b: Pt, d: i64) -> Pt {
    let len = isqrt_up(a.dist2(b));
    if len == 0 || d >= len {
        return b;
    }
    Pt::new(
        a.x + div_round(i128::from(b.x - a.x) * i128::from(d), i128::from(len)),
        a.y + div_round(i128::from(b.y - a.y) * i128::from(d), i128::from(len)),
    )
}
