//! The conventional map symbols every family's picture draws its units
//! with (issue 53): a NATO-style frame in the side's colour holding the
//! mark of the unit's kind (infantry a cross, cavalry a diagonal,
//! artillery a dot, armour an oval, ...), the strength beside it, and a
//! legend naming each kind drawn. Each mark is defined once in the SVG's
//! `<defs>` (`<path id="k-inf">`, drawn for a frame 28 wide and 18 high
//! centred on the origin) and `<use>`d by every unit of that kind: a few
//! simple paths, which the rasteriser (resvg) draws as fast as any shape.
//! Nothing here knows a rules family: each maps its own unit classes.

/// A kind of unit, as the map symbols tell them apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    Infantry,
    Cavalry,
    Artillery,
    Armour,
    MachineGun,
    Mortar,
    ArmouredCar,
    Transport,
    Train,
    Command,
    Wagon,
    Barge,
    Other,
}

/// Every kind, in the legend's order.
pub const KINDS: [Kind; 13] = [
    Kind::Infantry,
    Kind::Cavalry,
    Kind::Artillery,
    Kind::Armour,
    Kind::MachineGun,
    Kind::Mortar,
    Kind::ArmouredCar,
    Kind::Transport,
    Kind::Train,
    Kind::Command,
    Kind::Wagon,
    Kind::Barge,
    Kind::Other,
];

impl Kind {
    /// The kind of a unit class as the rulebooks' unit tables name it
    /// (`infantry`, `armour`, `machine-gun`, ...); a class no symbol
    /// knows is [`Kind::Other`] (a frame with a question mark).
    #[must_use]
    pub fn of_class(class: &str) -> Kind {
        match class {
            "infantry" => Kind::Infantry,
            "cavalry" => Kind::Cavalry,
            "artillery" => Kind::Artillery,
            "armour" | "armor" | "tank" => Kind::Armour,
            "machine-gun" => Kind::MachineGun,
            "mortar" => Kind::Mortar,
            "armoured-car" => Kind::ArmouredCar,
            "transport" => Kind::Transport,
            "train" => Kind::Train,
            "general" | "command" => Kind::Command,
            "wagon" => Kind::Wagon,
            "barge" => Kind::Barge,
            _ => Kind::Other,
        }
    }

    /// The short name the SVG gives the kind (`data-kind="inf"`, the
    /// mark's id `k-inf`, the legend's `data-legend="kind-inf"`).
    #[must_use]
    pub fn id(self) -> &'static str {
        match self {
            Kind::Infantry => "inf",
            Kind::Cavalry => "cav",
            Kind::Artillery => "art",
            Kind::Armour => "arm",
            Kind::MachineGun => "mg",
            Kind::Mortar => "mor",
            Kind::ArmouredCar => "car",
            Kind::Transport => "tpt",
            Kind::Train => "trn",
            Kind::Command => "cmd",
            Kind::Wagon => "wag",
            Kind::Barge => "brg",
            Kind::Other => "unk",
        }
    }

    /// What the legend calls the kind.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Kind::Infantry => "infantry",
            Kind::Cavalry => "cavalry",
            Kind::Artillery => "artillery",
            Kind::Armour => "armour",
            Kind::MachineGun => "machine gun",
            Kind::Mortar => "mortar",
            Kind::ArmouredCar => "armoured car",
            Kind::Transport => "transport",
            Kind::Train => "train",
            Kind::Command => "general",
            Kind::Wagon => "wagon",
            Kind::Barge => "barge",
            Kind::Other => "other",
        }
    }

    /// The mark's drawing, for a frame from (-14,-9) to (14,9): NATO's
    /// infantry cross, cavalry diagonal, artillery dot, armour oval (the
    /// tracks), machine gun and mortar as the weapon's arrow (the mortar
    /// on its base ring), an armoured car as armour's oval crossed by
    /// cavalry's diagonal (armoured reconnaissance), transport and trains
    /// on wheels, a general's flag, a wagon's wheels under a load, a
    /// barge's hull.
    #[must_use]
    pub fn mark(self) -> &'static str {
        match self {
            Kind::Infantry => "<path d=\"M-14,-9L14,9M-14,9L14,-9\" fill=\"none\"",
            Kind::Cavalry => "<path d=\"M-14,9L14,-9\" fill=\"none\"",
            Kind::Artillery => "<circle r=\"4\" fill=\"#fff\"",
            Kind::Armour => "<rect x=\"-10\" y=\"-5\" width=\"20\" height=\"10\" rx=\"5\" fill=\"none\"",
            Kind::MachineGun => "<path d=\"M0,7V-6M-4,-2L0,-6L4,-2M-5,7H5\" fill=\"none\"",
            Kind::Mortar => "<path d=\"M0,3V-7M-4,-3L0,-7L4,-3M2,5A2,2 0 1 1 -2,5A2,2 0 1 1 2,5\" fill=\"none\"",
            Kind::ArmouredCar => "<path d=\"M-14,9L14,-9M-5,-5H5A5,5 0 0 1 5,5H-5A5,5 0 0 1 -5,-5\" fill=\"none\"",
            Kind::Transport => "<path d=\"M-9,0H9M-3,4A3,3 0 1 1 -9,4A3,3 0 1 1 -3,4M9,4A3,3 0 1 1 3,4A3,3 0 1 1 9,4\" fill=\"none\"",
            Kind::Train => "<path d=\"M-11,-4H11V2H-11ZM-2,5A2,2 0 1 1 -6,5A2,2 0 1 1 -2,5M6,5A2,2 0 1 1 2,5A2,2 0 1 1 6,5\" fill=\"none\"",
            Kind::Command => "<path d=\"M-6,8V-7L7,-3L-6,1\" fill=\"none\"",
            Kind::Wagon => "<path d=\"M-9,-5H9V2H-9ZM-2,5A2,2 0 1 1 -6,5A2,2 0 1 1 -2,5M6,5A2,2 0 1 1 2,5A2,2 0 1 1 6,5\" fill=\"none\"",
            Kind::Barge => "<path d=\"M-11,-1H11L7,5H-7Z\" fill=\"none\"",
            Kind::Other => "<path d=\"M-4,-3A4,4 0 1 1 0,1V3M0,5V7\" fill=\"none\"",
        }
    }
}

/// The `<defs>` entries of the marks of `kinds` (each once, whatever the
/// order or repeats given): `<path id="k-inf" .../>`, white lines 1.6
/// wide, to be drawn over a frame filled in the side's colour.
#[must_use]
pub fn defs(kinds: &[Kind]) -> String {
    let mut out = String::new();
    for k in KINDS.iter().filter(|k| kinds.contains(k)) {
        out.push_str(k.mark());
        out.push_str(" id=\"k-");
        out.push_str(k.id());
        out.push_str("\" stroke=\"#fff\" stroke-width=\"1.6\"/>");
    }
    out
}

/// The kinds among `kinds`, each once, in the legend's order.
#[must_use]
pub fn shown(kinds: impl IntoIterator<Item = Kind>) -> Vec<Kind> {
    let mut v: Vec<Kind> = kinds.into_iter().collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// The strength at a glance (issue 53): one square pip a figure, block or
/// step, in a row centred at `x` with its top at `y`: filled in `colour`
/// for those left, hollow (white) for those lost. The group says the
/// numbers too: `<g class="strength" data-strength="3" data-max="4">`
/// holding `<path class="pip">` (one square a pip left) and
/// `<path class="pip lost">`. A row is at most 22 units wide: more than
/// four pips are drawn smaller. Drawn with crisp edges, a filled pip with
/// no outline: anti-aliased outlined squares cost Pegasus Bridge's
/// busy-turn PNG mail over 80 KB (83,237 bytes).
pub fn pips(o: &mut String, x: f64, y: f64, strength: u32, max: u32, colour: &str) {
    let max = max.max(strength);
    // Whole units (a board's 1.5 pixels a unit): every pip the same
    // pixels, which the PNG's deflate finds again.
    let step = (24.0 / f64::from(max.max(1))).min(6.0);
    let size = step - 2.0;
    let left = x - (step * f64::from(max) - 2.0) / 2.0;
    let mut full = String::new();
    let mut lost = String::new();
    for i in 0..max {
        // A hollow pip's outline (1 wide) drawn inside its square.
        let (d, inset) = if i < strength {
            (&mut full, 0.0)
        } else {
            (&mut lost, 0.5)
        };
        let px = left + step * f64::from(i) + inset;
        let side = size - 2.0 * inset;
        d.push_str(&format!(
            "M{},{}h{}v{}h-{}z",
            r1(px),
            r1(y + inset),
            r1(side),
            r1(side),
            r1(side)
        ));
    }
    o.push_str(&format!(
        "<g class=\"strength\" data-strength=\"{strength}\" data-max=\"{max}\" shape-rendering=\"crispEdges\">"
    ));
    if !full.is_empty() {
        o.push_str(&format!(
            "<path class=\"pip\" d=\"{full}\" fill=\"{colour}\"/>"
        ));
    }
    if !lost.is_empty() {
        o.push_str(&format!(
            "<path class=\"pip lost\" d=\"{lost}\" fill=\"#fff\" stroke=\"#111\"/>"
        ));
    }
    o.push_str("</g>");
}

/// The strength at a glance where a unit has too many figures for pips
/// (the measured games' rank and file): a bar `width` long and 3 high from
/// (`x`, `y`), its filled part (`class="bar left"`) the share left, the
/// rest white, in a `<g class="strength" data-strength data-max>` as
/// [`pips`] writes.
pub fn bar(o: &mut String, x: f64, y: f64, width: f64, strength: u32, max: u32, colour: &str) {
    let max = max.max(strength);
    let left = width * f64::from(strength) / f64::from(max.max(1));
    o.push_str(&format!(
        "<g class=\"strength\" data-strength=\"{strength}\" data-max=\"{max}\" shape-rendering=\"crispEdges\"><rect class=\"bar\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"3\" fill=\"#fff\" stroke=\"#111\" stroke-width=\"0.5\"/><rect class=\"bar left\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"3\" fill=\"{colour}\"/></g>",
        r1(x),
        r1(y),
        r2(width),
        r1(x),
        r1(y),
        r2(left)
    ));
}

/// A coordinate to a tenth, without a trailing `.0`: the text of
/// `format!("{v:.1}")` so shortened. Five a pip, some 700 a board: the
/// standard library's exact formatting took some 2,000 instructions a
/// number (its Dragon fallback), 3% of a report mail's with its picture
/// (docs/performance.md), so the tenths are counted here where they are
/// certain, and left to it where `v` is near a tie or out of range.
fn r1(v: f64) -> String {
    match tenths(v) {
        Some(0) if v.is_sign_negative() => "-0".into(),
        Some(n) if n % 10 == 0 => (n / 10).to_string(),
        Some(n) => {
            let sign = if n < 0 { "-" } else { "" };
            let m = n.unsigned_abs();
            format!("{sign}{}.{}", m / 10, m % 10)
        }
        None => {
            let s = format!("{v:.1}");
            match s.strip_suffix(".0") {
                Some(whole) => whole.to_string(),
                None => s,
            }
        }
    }
}

/// `v` in tenths, rounded to the nearest, where that is certain: `v * 10`
/// is within half a unit in its last place of the exact product, so
/// unless it lies within a millionth of a half the rounding of the two is
/// the same. `None` for a near tie (the exact formatting rounds a tie to
/// even), a value not finite or too large.
fn tenths(v: f64) -> Option<i64> {
    let t = v * 10.0;
    if !t.is_finite() || t.abs() >= 1e12 {
        return None;
    }
    let below = t.floor();
    if ((t - below) - 0.5).abs() < 1e-6 {
        return None;
    }
    // Safe: |t| < 1e12 fits an i64 exactly.
    #[allow(clippy::cast_possible_truncation)]
    Some(t.round() as i64)
}

/// A length to a hundredth, without trailing zeros (a bar's share exact
/// enough to read back).
fn r2(v: f64) -> String {
    let s = format!("{v:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".into()
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `r1` gives `format!("{v:.1}")`'s text (less a trailing `.0`) for
    /// the board's coordinates (multiples of a hundredth and of 1/64, and
    /// thirds and sevenths: a pip's step is 24 / 7), for values near and
    /// on ties, negative ones and arbitrary ones.
    #[test]
    fn a_tenth_is_written_as_the_standard_librarys_exact_formatting() {
        let slow = |v: f64| {
            let s = format!("{v:.1}");
            s.strip_suffix(".0").map_or(s.clone(), str::to_string)
        };
        let mut values: Vec<f64> = Vec::new();
        for k in -20_000..20_000 {
            let k = f64::from(k);
            values.extend([k / 100.0, k / 64.0, k / 3.0, k / 7.0, k * 24.0 / 7.0 - 2.0]);
            values.extend([k / 20.0 + 1e-9, k / 20.0 - 1e-9, k / 20.0]);
        }
        // A fixed xorshift: arbitrary values over a board's range and far off it.
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            #[allow(clippy::cast_precision_loss)]
            let u = (x >> 11) as f64 / (1u64 << 53) as f64;
            values.extend([u * 2_000.0 - 1_000.0, (u - 0.5) * 1e13]);
        }
        values.extend([
            0.0,
            -0.0,
            -0.04,
            0.05,
            0.15,
            0.25,
            0.35,
            2.5,
            f64::MAX,
            f64::NAN,
        ]);
        let mut fast = 0;
        for v in values {
            assert_eq!(r1(v), slow(v), "{v:e}");
            fast += usize::from(tenths(v).is_some());
        }
        // The fast path is the common one (not every value left to the slow).
        assert!(fast > 400_000, "{fast}");
    }

    #[test]
    fn every_kind_has_its_own_id_name_and_mark() {
        for (i, a) in KINDS.iter().enumerate() {
            for b in &KINDS[i + 1..] {
                assert_ne!(a.id(), b.id());
                assert_ne!(a.name(), b.name());
                assert_ne!(a.mark(), b.mark());
            }
        }
        assert_eq!(Kind::of_class("infantry"), Kind::Infantry);
        assert_eq!(Kind::of_class("tank"), Kind::Armour);
        assert_eq!(Kind::of_class("command"), Kind::Command);
        assert_eq!(Kind::of_class("submarine"), Kind::Other);
    }

    #[test]
    fn defs_hold_each_kind_asked_once_and_no_other() {
        let d = defs(&[Kind::Cavalry, Kind::Infantry, Kind::Cavalry]);
        assert_eq!(d.matches("id=\"k-inf\"").count(), 1);
        assert_eq!(d.matches("id=\"k-cav\"").count(), 1);
        assert!(!d.contains("k-art"));
        assert_eq!(
            shown([Kind::Artillery, Kind::Infantry, Kind::Artillery]),
            vec![Kind::Infantry, Kind::Artillery]
        );
    }

    #[test]
    fn pips_draw_one_square_a_figure_the_lost_hollow() {
        let mut o = String::new();
        pips(&mut o, 100.0, 50.0, 3, 4, "#2b5fa8");
        assert!(o.starts_with("<g class=\"strength\" data-strength=\"3\" data-max=\"4\""));
        let d = |class: &str| {
            o.split(&format!("class=\"{class}\" d=\""))
                .nth(1)
                .map_or(0, |d| {
                    d.split('"').next().unwrap_or("").matches('M').count()
                })
        };
        assert_eq!((d("pip"), d("pip lost")), (3, 1), "{o}");
        // More figures than it began with: every pip filled.
        let mut o = String::new();
        pips(&mut o, 0.0, 0.0, 5, 4, "#000");
        assert!(
            o.contains("data-strength=\"5\" data-max=\"5\"") && !o.contains("pip lost"),
            "{o}"
        );
    }

    #[test]
    fn a_bar_shows_the_share_left() {
        let mut o = String::new();
        bar(&mut o, 10.0, 20.0, 30.0, 12, 36, "#123");
        assert!(
            o.contains("class=\"bar\" x=\"10\" y=\"20\" width=\"30\""),
            "{o}"
        );
        assert!(
            o.contains("class=\"bar left\" x=\"10\" y=\"20\" width=\"10\""),
            "{o}"
        );
    }
}
