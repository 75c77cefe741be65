//! What the measured books' order languages share: the shape of a unit's
//! line. Each book's own words and steps are in its `orders` module
//! (`charge::orders`, `syw::orders`).

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
