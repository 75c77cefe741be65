//! What a side of a Kriegspiel game may know, and the leaks of a report
//! that shows it more: shared by the engine-level and the mail-level
//! no-leak tests.

use adjutant::rules::memoir44::{fog, Ruleset, State as M44};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// Every hex string an event's JSON names.
pub fn hexes_named(e: &Value, out: &mut Vec<String>) {
    for key in ["at", "from", "to", "gun", "enemy"] {
        if let Some(h) = e.get(key).and_then(Value::as_str) {
            out.push(h.to_string());
        }
    }
    for key in ["path", "ordered"] {
        if let Some(a) = e.get(key).and_then(Value::as_array) {
            out.extend(a.iter().filter_map(Value::as_str).map(str::to_string));
        }
    }
}

/// What `side` may know after a turn from `before` to `after` with `events`.
pub fn known(
    r: &Ruleset,
    before: &M44,
    after: &M44,
    side: usize,
    events: &[Value],
    own_orders: &str,
) -> BTreeSet<String> {
    let me = &before.sides[side];
    // The side's own orders: the judge may quote back what it wrote.
    let mut k: BTreeSet<String> = own_orders
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_uppercase)
        .collect();
    for s in [before, after] {
        for u in s.units.iter().filter(|u| u.side == side) {
            k.insert(u.at.to_string());
        }
        for u in fog::seen_units(r, s, side) {
            k.insert(u.at.to_string());
        }
    }
    for e in events {
        if e.get("side").and_then(Value::as_str) == Some(me.as_str()) {
            let mut v = Vec::new();
            hexes_named(e, &mut v);
            k.extend(v);
        }
    }
    k
}

/// Problems with what `parts`/`v` show `side`.
pub fn leaks(
    r: &Ruleset,
    after: &M44,
    side: usize,
    known: &BTreeSet<String>,
    v: &Value,
    svg: &str,
    combat: &str,
) -> Vec<String> {
    let mut out = Vec::new();
    let enemy = &after.sides[1 - side];
    let seen: BTreeSet<String> = fog::seen_units(r, after, side)
        .iter()
        .map(|u| u.at.to_string())
        .collect();
    for u in v["units"].as_array().into_iter().flatten() {
        if u["side"].as_str() == Some(enemy.as_str()) {
            if !u["at"].as_str().is_some_and(|h| seen.contains(h)) {
                out.push(format!("view holds unseen unit {u}"));
            }
            // A side is told what an enemy unit is, not which one.
            if u["id"].as_u64() != Some(0) {
                out.push(format!("view gives an enemy unit its id: {u}"));
            }
        }
    }
    let shown = v["units"].as_array().map_or(0, |a| {
        a.iter()
            .filter(|u| u["side"].as_str() == Some(enemy))
            .count()
    });
    if v.get("units").is_some() && shown != seen.len() {
        out.push(format!(
            "view shows {shown} enemy units, the side sees {}",
            seen.len()
        ));
    }
    for e in v["last_turn"].as_array().into_iter().flatten() {
        if e.get("side").and_then(Value::as_str) == Some(enemy.as_str()) {
            let mut hs = Vec::new();
            hexes_named(e, &mut hs);
            for h in hs {
                if !known.contains(&h) {
                    out.push(format!("enemy event names {h}, unknown to the side: {e}"));
                }
            }
        }
    }
    // Appendix 1, Minefields: a piece still face down shows no strength, in
    // the view JSON, the SVG board ("M?") or the text (never the referee's
    // "hidden: 2").
    for m in after.minefields.iter().filter(|m| !m.revealed) {
        let h = m.at.to_string();
        for f in v["minefields"].as_array().into_iter().flatten() {
            if f["at"].as_str() == Some(h.as_str()) && f.get("strength").is_some() {
                out.push(format!(
                    "view holds the hidden strength of the minefield at {h}"
                ));
            }
        }
        if let Some(label) = face_up_in_svg(svg, &h) {
            out.push(format!(
                "the SVG shows the hidden minefield at {h}: {label}"
            ));
        }
    }
    if combat.contains("hidden:") {
        out.push("the report's text holds a hidden minefield strength".into());
    }
    // The compact map's legend lists the scenario's objectives and the
    // minefields by hex (public data; whether the enemy holds an objective,
    // or has turned a minefield over, is hidden in the view and checked by
    // `board_leaks`): not a sighting, whoever stands there.
    let combat = &without_public_lists(combat);
    for u in after.units.iter().filter(|u| u.side != side) {
        let h = u.at.to_string();
        if known.contains(&h) {
            continue;
        }
        if svg.contains(&format!("<g class=\"unit\" data-hex=\"{h}\"")) {
            out.push(format!("the SVG draws the unseen unit at {h}"));
        }
        let bounded = combat.lines().filter(|l| !board_line(l)).any(|line| {
            line.match_indices(&h).any(|(i, _)| {
                let before = line[..i].chars().next_back();
                let after = line[i + h.len()..].chars().next();
                !before.is_some_and(char::is_alphanumeric)
                    && !after.is_some_and(char::is_alphanumeric)
            })
        });
        if bounded {
            out.push(format!("the report's text names {h}"));
        }
    }
    out
}

/// `text` without the compact map's " Objectives: E5 Allies, I5 Allies."
/// and " Minefields: C4 (Axis, hidden), ..." lists (which may be wrapped
/// over lines), nor the legend's.
fn without_public_lists(text: &str) -> String {
    let mut out = text.to_string();
    for list in [" Objectives:", " Minefields:"] {
        while let Some(i) = out.find(list) {
            out = match out[i..].find('.') {
                Some(j) => format!("{}{}", &out[..i], &out[i + j + 1..]),
                None => out[..i].to_string(),
            };
        }
    }
    out
}

/// What a side's board has shown it over a game (`board_leaks`).
#[derive(Default)]
pub struct Board {
    /// The minefields it may know are turned over.
    pub mines: BTreeSet<String>,
    /// The hexes its last view drew (tile and obstacles), by hex.
    pub hexes: Option<BTreeMap<String, Value>>,
}

/// Kriegspiel: a minefield turned over, or a hex's tiles or obstacles
/// changed, where a side saw nothing must not change its board (the change
/// would say an enemy unit stepped there). `seen` grows over a game: the
/// minefields the side may know are turned over (turned over at a hex it
/// knew this turn, `known`, or within its units' battle range now), and the
/// hexes its last view drew. Returns the view's, the SVG's and the text's
/// showings of any other minefield turned over, and the view's hexes changed
/// out of the side's sight since its last view.
#[allow(clippy::too_many_arguments)] // the side's whole mail, as `leaks`
pub fn board_leaks(
    r: &Ruleset,
    before: &M44,
    after: &M44,
    side: usize,
    known: &BTreeSet<String>,
    seen: &mut Board,
    v: &Value,
    svg: &str,
    text: &str,
) -> Vec<String> {
    let mut out = terrain_leaks(r, before, after, side, known, seen, v);
    let told = &mut seen.mines;
    for m in after.minefields.iter().filter(|m| m.revealed) {
        let h = m.at.to_string();
        if known.contains(&h) || fog::sees_hex(r, after, side, m.at) {
            told.insert(h);
        }
    }
    for f in v["minefields"].as_array().into_iter().flatten() {
        let shown = f["revealed"].as_bool() == Some(true) || f.get("strength").is_some();
        if let Some(h) = f["at"].as_str() {
            if shown && !told.contains(h) {
                out.push(format!(
                    "view shows the minefield at {h} turned over, unseen by the side: {f}"
                ));
            }
        }
    }
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    for m in &after.minefields {
        let h = m.at.to_string();
        if told.contains(&h) {
            continue;
        }
        if let Some(label) = face_up_in_svg(svg, &h) {
            out.push(format!(
                "the SVG shows the minefield at {h} turned over: {label}"
            ));
        }
        for (i, _) in flat.match_indices(&format!("{h} (")) {
            let entry = &flat[i..];
            let entry = &entry[..entry.find(')').unwrap_or(entry.len())];
            if entry.contains("strength") {
                out.push(format!(
                    "the text shows the minefield at {h} turned over: {entry})"
                ));
            }
        }
    }
    out
}

/// The SVG's label of the minefield at `h` if it shows a strength (not
/// "M?", face down).
fn face_up_in_svg<'a>(svg: &'a str, h: &str) -> Option<&'a str> {
    let i = svg.find(&format!("class=\"minefield\" data-hex=\"{h}\""))?;
    let rest = &svg[i..];
    let label = &rest[..rest.find("<title>").unwrap_or(rest.len())];
    (!label.ends_with(">M?")).then_some(label)
}

/// The view's hexes (tile and obstacles) that changed since the side's last
/// view where the truth changed this turn out of its sight; records this
/// view's hexes as the last.
fn terrain_leaks(
    r: &Ruleset,
    before: &M44,
    after: &M44,
    side: usize,
    known: &BTreeSet<String>,
    seen: &mut Board,
    v: &Value,
) -> Vec<String> {
    let Some(list) = v["board"]["hexes"].as_array() else {
        return Vec::new();
    };
    let now: BTreeMap<String, Value> = list
        .iter()
        .filter_map(|e| Some((e["at"].as_str()?.to_string(), e.clone())))
        .collect();
    let mut out = Vec::new();
    if let Some(last) = &seen.hexes {
        let mut hexes: Vec<_> = before.terrain.keys().chain(after.terrain.keys()).collect();
        hexes.sort();
        hexes.dedup();
        for &h in hexes {
            let name = h.to_string();
            let out_of_sight = !known.contains(&name)
                && !fog::sees_hex(r, before, side, h)
                && !fog::sees_hex(r, after, side, h);
            if before.features(h) != after.features(h)
                && out_of_sight
                && now.get(&name) != last.get(&name)
            {
                out.push(format!(
                    "the view's board at {name} changed out of the side's sight: {:?} -> {:?}",
                    last.get(&name),
                    now.get(&name)
                ));
            }
        }
    }
    seen.hexes = Some(now);
    out
}

/// A row of a drawn board (the text map or the compact one), where a unit's
/// letter and figures ("K3") may look like a hex: its cells are set apart by
/// runs of spaces, which no sentence of a report has three of.
fn board_line(line: &str) -> bool {
    line.trim().matches("  ").count() >= 3
}

/// Every card `side` has held, drawn, played, discarded or exchanged, as
/// far as `s` and `events` show: `mine` grows over a game.
pub fn own_cards(s: &M44, side: usize, events: &[Value], mine: &mut BTreeSet<String>) {
    mine.extend(s.hands.get(side).into_iter().flatten().cloned());
    let me = &s.sides[side];
    for e in events {
        if e.get("side").and_then(Value::as_str) != Some(me.as_str()) {
            continue;
        }
        for key in ["card", "as_card"] {
            if let Some(c) = e.get(key).and_then(Value::as_str) {
                mine.insert(c.to_string());
            }
        }
        for key in ["shown", "taken"] {
            let mut stack: Vec<&Value> = e.get(key).into_iter().collect();
            while let Some(v) = stack.pop() {
                match v {
                    Value::String(c) => {
                        mine.insert(c.clone());
                    }
                    Value::Array(a) => stack.extend(a.iter()),
                    _ => {}
                }
            }
        }
    }
}

/// Words of the game that are also a card's name: a battle at range 1 is a
/// "close assault" whatever card ordered it (the rulebook's own term).
const GAME_WORDS: &[&str] = &["close assault", "close-assault"];

/// Every spelling the judge uses for a card: its id, its display name, the
/// id's words ("their finest hour", the report's `card_name`), the
/// modifier's wording ("Firefight card"), the aliases the parser takes.
fn spellings(r: &Ruleset, id: &str) -> Vec<String> {
    let mut out = vec![id.to_string(), id.replace('-', " ")];
    if let Some(c) = r.cards.iter().find(|c| c.id == id) {
        out.push(c.name.clone());
        out.push(c.name.replace('&', "&amp;"));
        out.push(format!("{} card", c.name));
    }
    for (alias, to) in &r.card_aliases {
        if to == id {
            out.push(alias.clone());
            out.push(alias.replace('-', " "));
        }
    }
    out.iter()
        .map(|s| s.to_lowercase())
        .filter(|s| !GAME_WORDS.contains(&s.as_str()))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect()
}

/// Does `hay` (lower case) hold `needle` as a whole word (not inside a
/// longer word or id)?
fn has_word(hay: &str, needle: &str) -> bool {
    hay.match_indices(needle).any(|(i, _)| {
        let before = hay[..i].chars().next_back();
        let after = hay[i + needle.len()..].chars().next();
        let part = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '-');
        !part(before) && !part(after)
    })
}

/// The cards named in `texts` (any part of a mail) that `side` neither
/// held nor played (`mine`): "A player may not know which Command Cards his
/// opponent has or are being played."
pub fn card_leaks(r: &Ruleset, mine: &BTreeSet<String>, texts: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    // Phrases of the game that hold a card's name: a scenario's "last
    // counter-attack turn" (Pegasus Bridge's victory condition), and the
    // house rule's Firefight, which is not the card (docs/rules/memoir44/
    // main-rules.md): a side's own battle "(firefight)" with "Firefight (no
    // orders)" and its event's `"how":"firefight"` (the enemy's firefights
    // reach a side as close assaults, `fog::neutral_how`).
    let lower: Vec<String> = texts
        .iter()
        .map(|t| {
            t.to_lowercase()
                .replace("counter-attack turn", "-")
                .replace("firefight (no orders)", "-")
                .replace("(firefight)", "-")
                .replace("\"how\":\"firefight\"", "\"how\":\"-\"")
        })
        .collect();
    for c in r.cards.iter().filter(|c| !mine.contains(&c.id)) {
        for s in spellings(r, &c.id) {
            if let Some(t) = lower.iter().find(|t| has_word(t, &s)) {
                let i = t.find(&s).unwrap_or(0);
                let from = t[..i].char_indices().rev().nth(60).map_or(0, |(j, _)| j);
                let to = (i + s.len() + 40).min(t.len());
                let to = (to..=t.len())
                    .find(|&j| t.is_char_boundary(j))
                    .unwrap_or(t.len());
                out.push(format!(
                    "names the card {} ({s:?}), not the side's: ...{}...",
                    c.id,
                    &t[from..to]
                ));
                break;
            }
        }
    }
    out
}
