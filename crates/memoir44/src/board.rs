//! The hex board: coordinates, distance, sections and line of sight.
//!
//! Internally a hex is `(col, row)` in doubled-width coordinates: `row` counts
//! from 0 at the edge of the first side (printed as row 1), and the 0-based even
//! rows hold the full rows of 13 hexes at doubled columns 0, 2, ..., 24; the odd
//! rows hold 12 hexes at 1, 3, ..., 23. Players type a letter and a number:
//! letter `A` is the leftmost hex of its row (seen from row 1), so in a row of
//! 12, `A` sits up-right of the `A` of the row below.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// A board hex in doubled-width coordinates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Hex {
    /// Doubled column: `2 * letter + (row % 2)`.
    pub col: i32,
    /// 0-based row from the first side's edge.
    pub row: i32,
}

impl Hex {
    #[must_use]
    pub const fn new(col: i32, row: i32) -> Hex {
        Hex { col, row }
    }

    /// The hex of `letter` (0-based) in `row` (0-based).
    #[must_use]
    pub fn from_letter(letter: i32, row: i32) -> Hex {
        Hex::new(2 * letter + row.rem_euclid(2), row)
    }

    /// 0-based letter index within its row.
    #[must_use]
    pub fn letter(self) -> i32 {
        (self.col - self.row.rem_euclid(2)).div_euclid(2)
    }

    /// Parse `E5`, `e5`, `L8` (no board check).
    #[must_use]
    pub fn parse(text: &str) -> Option<Hex> {
        let t = text.trim();
        let mut chars = t.chars();
        let l = chars.next()?.to_ascii_uppercase();
        if !l.is_ascii_uppercase() {
            return None;
        }
        let rest = chars.as_str();
        if rest.is_empty() || rest.len() > 2 || !rest.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let n: i32 = rest.parse().ok()?;
        if n < 1 {
            return None;
        }
        Some(Hex::from_letter(i32::from(l as u8 - b'A'), n - 1))
    }

    /// The six neighbours, in a fixed order.
    #[must_use]
    pub fn neighbours(self) -> [Hex; 6] {
        let Hex { col: c, row: r } = self;
        [
            Hex::new(c + 2, r),
            Hex::new(c + 1, r + 1),
            Hex::new(c - 1, r + 1),
            Hex::new(c - 2, r),
            Hex::new(c - 1, r - 1),
            Hex::new(c + 1, r - 1),
        ]
    }

    /// Distance in hexes.
    #[must_use]
    pub fn distance(self, other: Hex) -> u32 {
        let dx = (self.col - other.col).unsigned_abs();
        let dy = (self.row - other.row).unsigned_abs();
        dy + dx.saturating_sub(dy) / 2
    }

    #[must_use]
    pub fn adjacent(self, other: Hex) -> bool {
        self.distance(other) == 1
    }
}

impl fmt::Display for Hex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let l = self.letter();
        let ch = if (0..26).contains(&l) {
            (b'A' + l as u8) as char
        } else {
            '?'
        };
        write!(f, "{}{}", ch, self.row + 1)
    }
}

impl Serialize for Hex {
    /// The name as [`fmt::Display`] writes it ("F4"), made without a
    /// formatter for a board's worth of hexes in every view and snapshot.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let n = self.row + 1;
        if !(0..1000).contains(&n) {
            return s.collect_str(self);
        }
        let l = self.letter();
        let mut buf = [0u8; 4];
        buf[0] = if (0..26).contains(&l) {
            b'A' + l as u8
        } else {
            b'?'
        };
        let mut len = 1;
        let n = n as u32;
        for (d, at_least) in [(100, 100), (10, 10), (1, 0)] {
            if n >= at_least {
                buf[len] = b'0' + ((n / d) % 10) as u8;
                len += 1;
            }
        }
        s.serialize_str(std::str::from_utf8(&buf[..len]).unwrap_or("?"))
    }
}

impl<'de> Deserialize<'de> for Hex {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Hex, D::Error> {
        let s = String::deserialize(d)?;
        Hex::parse(&s).ok_or_else(|| serde::de::Error::custom(format!("bad hex '{s}'")))
    }
}

/// The board's shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Board {
    pub columns: i32,
    pub rows: i32,
    pub lines: [i32; 2],
}

/// A board section from a player's own seat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Section {
    Left,
    Centre,
    Right,
}

impl Section {
    pub const ALL: [Section; 3] = [Section::Left, Section::Centre, Section::Right];
    #[must_use]
    pub fn id(self) -> &'static str {
        match self {
            Section::Left => "left",
            Section::Centre => "centre",
            Section::Right => "right",
        }
    }
    #[must_use]
    pub fn parse(w: &str) -> Option<Section> {
        match w.to_ascii_lowercase().as_str() {
            "left" | "left-flank" => Some(Section::Left),
            "centre" | "center" => Some(Section::Centre),
            "right" | "right-flank" => Some(Section::Right),
            _ => None,
        }
    }
    #[must_use]
    pub fn mirror(self) -> Section {
        match self {
            Section::Left => Section::Right,
            Section::Centre => Section::Centre,
            Section::Right => Section::Left,
        }
    }
}

impl Board {
    #[must_use]
    pub fn row_len(&self, row: i32) -> i32 {
        if row.rem_euclid(2) == 0 {
            self.columns
        } else {
            self.columns - 1
        }
    }

    #[must_use]
    pub fn contains(&self, h: Hex) -> bool {
        if h.row < 0 || h.row >= self.rows || h.col.rem_euclid(2) != h.row.rem_euclid(2) {
            return false;
        }
        let l = h.letter();
        l >= 0 && l < self.row_len(h.row)
    }

    /// Every hex, row by row from row 1, left to right.
    #[must_use]
    pub fn hexes(&self) -> Vec<Hex> {
        let mut v = Vec::new();
        for r in 0..self.rows {
            for l in 0..self.row_len(r) {
                v.push(Hex::from_letter(l, r));
            }
        }
        v
    }

    /// Parse a typed coordinate and check it is on the board.
    #[must_use]
    pub fn parse(&self, text: &str) -> Option<Hex> {
        Hex::parse(text).filter(|h| self.contains(*h))
    }

    /// Is `h` in `section` as seen from the seat at row 1 (`bottom`) or the
    /// opposite seat? Hexes the dotted lines cut are in both.
    #[must_use]
    pub fn in_section(&self, h: Hex, section: Section, bottom: bool) -> bool {
        let s = if bottom { section } else { section.mirror() };
        let [a, b] = self.lines;
        match s {
            Section::Left => h.col <= a,
            Section::Centre => h.col >= a && h.col <= b,
            Section::Right => h.col >= b,
        }
    }

    /// The sections of a hex from a seat.
    #[must_use]
    pub fn sections(&self, h: Hex, bottom: bool) -> Vec<Section> {
        Section::ALL
            .into_iter()
            .filter(|s| self.in_section(h, *s, bottom))
            .collect()
    }
}

/// The lattice point of a hex centre: x = doubled column, y = 3 * row. Corners
/// sit at (+-1, +-1) and (0, +-2) from it. This is a linear image of the real
/// pointy-top geometry, so which side of a line a point lies on is exact.
fn centre(h: Hex) -> (i64, i64) {
    (i64::from(h.col), 3 * i64::from(h.row))
}

const CORNERS: [(i64, i64); 6] = [(1, 1), (0, 2), (-1, 1), (-1, -1), (0, -2), (1, -1)];

/// How the line between two hex centres meets another hex.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Meet {
    /// The line passes through the hex's inside.
    Crossed,
    /// The line touches the hex's boundary only, on the left of the line.
    TouchLeft,
    /// ... on the right.
    TouchRight,
}

/// The hexes between `a` and `b` that the centre-to-centre line meets, with how.
#[must_use]
pub fn line_hexes(board: &Board, a: Hex, b: Hex) -> Vec<(Hex, Meet)> {
    let (ax, ay) = centre(a);
    let (bx, by) = centre(b);
    let (dx, dy) = (bx - ax, by - ay);
    // Real-geometry dot product on the lattice: 3 x x' + y y'.
    let len2 = 3 * dx * dx + dy * dy;
    let mut out = Vec::new();
    if a == b {
        return out;
    }
    for h in board.hexes() {
        if h == a || h == b {
            continue;
        }
        let (hx, hy) = centre(h);
        let t = 3 * (hx - ax) * dx + (hy - ay) * dy;
        if t <= 0 || t >= len2 {
            continue;
        }
        let (mut pos, mut neg, mut zero) = (0, 0, 0);
        for (cx, cy) in CORNERS {
            let px = hx + cx - ax;
            let py = hy + cy - ay;
            let cross = dx * py - dy * px;
            match cross.cmp(&0) {
                std::cmp::Ordering::Greater => pos += 1,
                std::cmp::Ordering::Less => neg += 1,
                std::cmp::Ordering::Equal => zero += 1,
            }
        }
        if pos > 0 && neg > 0 {
            out.push((h, Meet::Crossed));
        } else if zero > 0 && pos > 0 {
            out.push((h, Meet::TouchLeft));
        } else if zero > 0 && neg > 0 {
            out.push((h, Meet::TouchRight));
        }
    }
    out
}

/// Line of sight from `a` to `b`: blocked if a crossed hex holds an
/// obstruction, or if the line runs along edges with obstructions on both
/// sides of it. Off-board hexes are never considered (they hold nothing).
pub fn line_of_sight(board: &Board, a: Hex, b: Hex, obstructs: impl Fn(Hex) -> bool) -> bool {
    let mut left = false;
    let mut right = false;
    for (h, meet) in line_hexes(board, a, b) {
        if !obstructs(h) {
            continue;
        }
        match meet {
            Meet::Crossed => return false,
            Meet::TouchLeft => left = true,
            Meet::TouchRight => right = true,
        }
    }
    !(left && right)
}

#[cfg(test)]
mod hex_name_tests {
    use super::Hex;

    /// The name a hex serialises to is the one `Display` writes, on and
    /// far off any board (negative rows, rows past 999, letters past Z).
    #[test]
    fn a_hex_serialises_to_its_displayed_name() {
        for row in (-12..40).chain([98, 99, 100, 101, 998, 999, 1000, 12_345]) {
            for col in -6..60 {
                let h = Hex { col, row };
                let json = serde_json::to_string(&h).unwrap();
                assert_eq!(json, format!("\"{h}\""), "col {col} row {row}");
            }
        }
    }
}
