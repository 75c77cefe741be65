//! The judge's side of reports: the host's mail templates read from its
//! `templates/` folder, and the board's picture (`adjutant-picture`). The
//! generic parts a family fills ([`Parts`], [`wrap`], [`html`], the
//! [`Templates`]) live in the rules interface crate.

use std::path::Path;

pub use adjutant_picture as picture;
pub use adjutant_rules::report::{html, wrap, Parts, Templates, TEMPLATES};

/// The mail templates, preferring `override_dir/NAME` over the shipped text.
#[must_use]
pub fn load_templates(override_dir: Option<&Path>) -> Templates {
    Templates::new(|name| {
        override_dir
            .map(|d| d.join(name))
            .and_then(|p| std::fs::read_to_string(p).ok())
    })
}

/// The HTML alternative of a report and its pictures, as `picture` says
/// ([`picture::mail_html`]).
#[must_use]
pub fn mail_html(
    parts: &Parts,
    heading: &str,
    text: &str,
    picture: picture::Picture,
) -> picture::MailHtml {
    picture::mail_html(&board_fragment(parts), heading, text, picture)
}

/// [`mail_html`] with the picture at its smallest
/// ([`picture::mail_html_smallest`]): for a mail [`mail_html`]'s would
/// take over its bound.
#[must_use]
pub fn mail_html_smallest(
    parts: &Parts,
    heading: &str,
    text: &str,
    picture: picture::Picture,
) -> picture::MailHtml {
    picture::mail_html_smallest(&board_fragment(parts), heading, text, picture)
}

/// The board fragment of a mail's HTML: the board and the compact map.
fn board_fragment(parts: &Parts) -> String {
    format!("{}{}", parts.board_html, compact_block(&parts.compact))
}

/// The compact 40-column map under the picture (docs/reports.md, "The
/// compact map"): what a phone shows without scrolling sideways, where
/// the 78-column report below it scrolls in its own box (issue 53).
/// A family whose compact map is not within 40 columns (the measured
/// tables' comes with its 78-column list of units) has none here.
fn compact_block(compact: &str) -> String {
    if compact.trim().is_empty() || compact.lines().any(|l| l.chars().count() > 40) {
        return String::new();
    }
    format!(
        "<p style=\"margin:6px 0 2px;font-size:13px\">The map in 40 columns (the full map is in the report below):</p>\n<pre class=\"compact\" style=\"font-size:12px;line-height:1.25;margin:0 0 8px;overflow-x:auto\">{}</pre>\n",
        html::esc(compact.trim_end())
    )
}
