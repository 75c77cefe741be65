//! What the measured books' order languages share: the shape of a unit's
//! line, and a template's comment wrapped to the template's width. Each
//! book's own words and steps are in its own `orders` module.

use adjutant_rules::Rejection;

/// A `WORD <name>: step, step` line (the colon may be left out): the name
/// and the steps, split at commas or semicolons; refused when either is
/// missing. Shared by every ruleset of the family.
pub fn unit_line<'a>(
    word: &str,
    rest: &'a str,
    n: usize,
    line: &str,
    what: &str,
    example: &str,
) -> Result<(&'a str, Vec<&'a str>), Rejection> {
    let rest = rest.trim();
    let (id, body) = match rest.split_once(':') {
        Some((a, b)) => (a.trim(), b.trim()),
        None => rest
            .split_once(char::is_whitespace)
            .map_or((rest, ""), |(a, b)| (a.trim(), b.trim())),
    };
    if id.is_empty() {
        return Err(Rejection::at(
            n,
            line,
            format!("{word} takes {what} first, e.g. {word} {example}: ..."),
        ));
    }
    let parts: Vec<&str> = body
        .split([',', ';'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    if parts.is_empty() {
        return Err(Rejection::at(
            n,
            line,
            format!("no orders for {id} (write HOLD to stand)"),
        ));
    }
    Ok((id, parts))
}

/// `head` and a comment `note` after it, wrapped at the template width:
/// the note's further lines start `#   ` (issue 53: a line a player may
/// send back fits 72 columns, so a mail client does not wrap it).
pub fn commented(o: &mut String, head: &str, note: &str) {
    o.push_str(&adjutant_rules::report::wrap(
        &format!("{head} {note}"),
        TEMPLATE_WIDTH,
        "#   ",
    ));
}

/// The widest line of an order template (issue 53).
pub const TEMPLATE_WIDTH: usize = 72;
