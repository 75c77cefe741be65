//! What the measured books' order languages share: the lines of an
//! orders text, the shape of a unit's line and of a standing order line,
//! the steps both books write alike (a distance, a wheel, a target), and a
//! template's comment wrapped to the template's width. Each book's own
//! words and steps are in its own `orders` module.

use crate::geometry::{fmt_len, parse_len, MAX_TABLE_INCHES};
use adjutant_rules::Rejection;

/// The order lines of a text: (1-based line number, the line without its
/// `#` comment, trimmed), blank lines skipped; a line over 400 characters
/// refused.
pub fn lines(text: &str) -> Result<Vec<(usize, &str)>, Rejection> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let n = i + 1;
        if line.len() > 400 {
            return Err(Rejection::at(
                n,
                &line.chars().take(40).collect::<String>(),
                "an order line is at most 400 characters",
            ));
        }
        out.push((n, line));
    }
    Ok(out)
}

/// A `STANDING <name>:` line's orders, each one of `known` or NONE.
pub fn standing(
    parts: &[&str],
    known: &[&str],
    n: usize,
    line: &str,
) -> Result<Vec<String>, Rejection> {
    let mut orders = Vec::new();
    for p in parts {
        let p = p.split_whitespace().collect::<Vec<_>>().join(" ");
        if p == "NONE" || known.contains(&p.as_str()) {
            orders.push(p);
        } else {
            return Err(Rejection::at(
                n,
                line,
                format!("'{p}' is not a standing order ({}, NONE)", known.join(", ")),
            ));
        }
    }
    Ok(orders)
}

/// A unit's steps, each read by the book's `step`: at most 12.
pub fn steps<S>(
    parts: &[&str],
    n: usize,
    line: &str,
    step: fn(&str) -> Result<S, String>,
) -> Result<Vec<S>, Rejection> {
    let mut steps = Vec::new();
    for p in parts {
        steps.push(step(p).map_err(|m| Rejection::at(n, line, m))?);
    }
    if steps.len() > 12 {
        return Err(Rejection::at(n, line, "at most 12 steps for one unit"));
    }
    Ok(steps)
}

/// A step's distance (`FORWARD 7.5`, `BACK 2 1/4`), in sixteenths.
pub fn distance(w: &str, what: &str) -> Result<i64, String> {
    if w.is_empty() {
        return Err(format!("{what} takes a distance in inches, e.g. {what} 6"));
    }
    match parse_len(w) {
        Some(d) if d > 0 => Ok(d),
        _ => Err(format!(
            "'{w}' is not a distance: inches, whole or in sixteenths (6, 7.5, 2 1/4), more than 0 and at most {}",
            fmt_len(MAX_TABLE_INCHES * 16)
        )),
    }
}

/// `WHEEL LEFT|RIGHT <degrees>`: negative degrees wheel left.
pub fn wheel(dir: &str, deg: &str) -> Result<i64, String> {
    let d: i64 = deg
        .trim_end_matches('°')
        .parse()
        .ok()
        .filter(|d| (1..=180).contains(d))
        .ok_or_else(|| format!("'{deg}' is not an angle: whole degrees 1 to 180"))?;
    match dir {
        "LEFT" => Ok(-d),
        "RIGHT" => Ok(d),
        _ => Err("WHEEL LEFT <degrees> or WHEEL RIGHT <degrees>".into()),
    }
}

/// The one unit a step names as its last word (`w[k]`, `FIRE AT <unit>`).
pub fn target(w: &[&str], k: usize, what: &str, example: &str) -> Result<String, String> {
    match w.get(k) {
        Some(t) if w.len() == k + 1 => Ok((*t).to_string()),
        _ => Err(format!(
            "{what} takes one unit's name, e.g. {what} {example}"
        )),
    }
}

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
