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
    picture::mail_html(&parts.board_html, heading, text, picture)
}
