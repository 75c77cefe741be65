//! The board picture of a Memoir '44 mail: the SVG with its caption and
//! colour key, as an HTML fragment for the generic document.

use crate::render::side_name;
use crate::view::View;
use adjutant_rules::report::html::esc;
use std::fmt::Write;

/// The board picture with its caption and colour key (an HTML fragment);
/// `svg` is `svg::board` of the same view.
#[must_use]
pub fn board(v: &View, svg: &str) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "<p style=\"margin:4px 0;font-size:13px\">{}, after turn {}. Seen from the {} edge.</p>",
        esc(&v.title),
        v.turn,
        esc(&side_name(v.bottom_side()))
    );
    o.push_str("<div style=\"max-width:100%;overflow-x:auto\">\n");
    o.push_str(svg);
    o.push_str("</div>\n");
    let first = v
        .sides
        .first()
        .map(|s| side_name(&s.id))
        .unwrap_or_default();
    let second = v.sides.get(1).map(|s| side_name(&s.id)).unwrap_or_default();
    // Battle Star markers: what each star stands for (a phone cannot hover
    // for the title).
    let stars = if v.markers.is_empty() {
        String::new()
    } else {
        let list: Vec<String> = v
            .markers
            .iter()
            .map(|m| format!("{} {}", m.at, m.describe()))
            .collect();
        format!(" Stars: {}.", esc(&list.join("; ")))
    };
    let _ = writeln!(
        o,
        "<p style=\"font-size:12px\">Blue: {}. Red: {}. Letters: I infantry, E elite, A armour, G artillery, T anti-tank; the digit is figures. Black arrows: moves; orange: retreats; red dashes: battles, with the hits. Gold rings: objectives (filled when held).{stars}</p>",
        esc(&first),
        esc(&second)
    );
    o
}
