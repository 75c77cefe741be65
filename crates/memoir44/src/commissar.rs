//! Political Commissar (Eastern Front Only) in the house rules: "At the beginning of
//! his turn, the Russian Player must then select one Command Card from his
//! hand and place it face-down under the Commissar Marker. He will play this
//! card on his next turn. However, on the Russian player's next turn, instead
//! of playing the Command Card already under the Commissar Marker, the
//! Russian player may choose to play an Ambush, Recon, or Counter-Attack
//! Command Card. The Command Card under the Commissar Marker remains where it
//! is until it is played the following turn. The Russian Player must select
//! one card to play on the first turn as well as another to go under the
//! Commissar Marker. He then selects only one unused, replacement Command
//! Card to put in his cardholder."
//!
//! A scenario names the side with the marker (`commissar = "<side>"`); a
//! host sets or clears it per game (`new-game --option commissar=<side>`,
//! `commissar=none`); a club's ruleset may refuse the rule (`[options]
//! political_commissar = false`). The side writes `COMMISSAR <card>` to put
//! a card of its hand under the marker; `PLAY <card>` of the card under the
//! marker plays it from there.

use super::battle::Ctx;
use super::orders::{Cmd, Line};
use super::ruleset::{at, Ruleset};
use super::scenario::{file_side, Layout};
use super::state::State;
use super::{DataError, Rejection};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use toml::Spanned;

/// The game option naming the Russian side (`none`: not the scenario's).
pub const OPTION: &str = "commissar";

/// The Commissar marker.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Commissar {
    /// The Russian side.
    pub side: usize,
    /// The card face down under the marker (None before the first turn).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub card: Option<String>,
}

/// A turn checked against the marker.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Use {
    /// The turn plays (or discards) the card under the marker.
    pub from_marker: bool,
    /// The card the turn puts under the marker.
    pub under: Option<String>,
}

/// `side`'s marker, if it has one.
#[must_use]
pub fn marker(st: &State, side: usize) -> Option<&Commissar> {
    st.commissar
        .iter()
        .chain(st.second_commissar.iter())
        .find(|c| c.side == side)
}

fn marker_mut(st: &mut State, side: usize) -> Option<&mut Commissar> {
    st.commissar
        .iter_mut()
        .chain(st.second_commissar.iter_mut())
        .find(|c| c.side == side)
}

/// Take the markers off the board, their cards back to the hands.
fn clear(st: &mut State) {
    for c in [st.commissar.take(), st.second_commissar.take()]
        .into_iter()
        .flatten()
    {
        if let Some(card) = c.card {
            st.hands[c.side].push(card);
        }
    }
}

/// "Nineteen Eighty-Four": "Political Commissar rules are always in
/// effect", a marker for each side.
pub fn set_all(st: &mut State) {
    clear(st);
    st.commissar = Some(Commissar {
        side: 0,
        card: None,
    });
    st.second_commissar = Some(Commissar {
        side: 1,
        card: None,
    });
}

/// Give the marker to `side` (None: no marker).
pub fn set(r: &Ruleset, st: &mut State, side: Option<usize>) -> Result<(), String> {
    clear(st);
    if side.is_some() && !r.options.political_commissar {
        return Err("this ruleset does not play the optional Political Commissar rule".into());
    }
    st.commissar = side.map(|side| Commissar { side, card: None });
    Ok(())
}

/// A file's `commissar = "<side>"`, with line:column errors.
pub fn place(
    r: &Ruleset,
    st: &mut State,
    l: &Layout<'_>,
    side: &Spanned<String>,
) -> Result<(), DataError> {
    let s = file_side(l, side)?;
    set(r, st, Some(s)).map_err(|m| at(l.text, l.file, side.span(), m))
}

/// The game option: a side id, or `none`.
pub fn set_option(r: &Ruleset, st: &mut State, value: &str) -> Result<(), String> {
    let v = value.trim().to_ascii_lowercase();
    let side = match v.as_str() {
        "none" | "false" | "no" => None,
        s => Some(st.side_index(s).ok_or_else(|| {
            format!(
                "unknown side '{s}' (sides: {}, or none)",
                st.sides.join(", ")
            )
        })?),
    };
    set(r, st, side)
}

/// "an Ambush, Recon, or Counter-Attack Command Card": the cards played from
/// the hand instead of the card under the marker (an Army Manoeuvre is not a
/// command card and leaves the marker alone too).
fn instead(ctx: &Ctx<'_>, card: &str) -> bool {
    ctx.r.card(card).is_some_and(|c| {
        c.recon
            || c.kind == "manoeuvre"
            || matches!(c.effect.as_deref(), Some("ambush" | "counter-attack"))
    })
}

fn is_ambush(ctx: &Ctx<'_>, card: &str) -> bool {
    ctx.r.card(card).and_then(|c| c.effect.as_deref()) == Some("ambush")
}

/// Check a turn of `side` against the marker. Returns the position the
/// engine checks the rest of the turn on (the card under the marker back in
/// the hand when the turn plays it), the lines without COMMISSAR, and what
/// the turn does with the marker.
pub fn prepare<'s>(
    ctx: &Ctx<'_>,
    st: &'s State,
    side: usize,
    lines: &[Line],
) -> Result<(Cow<'s, State>, Vec<Line>, Use), Rejection> {
    let mut ours: Vec<(&Line, &String)> = Vec::new();
    let mut rest: Vec<Line> = Vec::new();
    for l in lines {
        match &l.cmd {
            Cmd::Commissar { card } => ours.push((l, card)),
            _ => rest.push(l.clone()),
        }
    }
    let Some(marker) = marker(st, side) else {
        if let Some((l, _)) = ours.first() {
            return Err(l.reject(match &st.commissar {
                Some(c) => format!(
                    "only {} has the Political Commissar marker",
                    st.sides.get(c.side).map_or("", String::as_str)
                ),
                None => "this game plays no Political Commissar".into(),
            }));
        }
        return Ok((Cow::Borrowed(st), rest, Use::default()));
    };
    let first = rest
        .iter()
        .find(|l| !matches!(l.cmd, Cmd::Standing(_) | Cmd::Keep { .. }));
    let mut u = Use::default();
    let mut hand = st.hands.get(side).cloned().unwrap_or_default();
    let played = match first.map(|l| (&l.cmd, l)) {
        Some((Cmd::Play { card, .. } | Cmd::Discard { card }, l)) => {
            if marker.card.as_deref() == Some(card.as_str()) {
                u.from_marker = true;
            } else if let Some(m) = &marker.card {
                if !(instead(ctx, card) && matches!(l.cmd, Cmd::Play { .. })) {
                    return Err(l.reject(format!(
                        "Political Commissar: play the card under the Commissar marker ({m}), or instead an Ambush, Recon or Counter-Attack card from your hand"
                    )));
                }
            }
            Some(card.clone())
        }
        Some((Cmd::Exchange { .. }, l)) => {
            return Err(l.reject(
                "Political Commissar: your turn plays the card under the Commissar marker (or a Recon or Counter-Attack card); the cards are not exchanged",
            ))
        }
        _ => None,
    };
    // The hand once the played card(s) are out.
    if !u.from_marker {
        for l in &rest {
            if let Cmd::Play { card, .. } | Cmd::Discard { card } = &l.cmd {
                if let Some(p) = hand.iter().position(|c| c == card) {
                    hand.remove(p);
                }
            }
        }
    }
    let empty_after = u.from_marker || marker.card.is_none();
    // A hand with no card that may go under the marker (only Ambush, or
    // none) leaves it empty.
    let any_left = hand.iter().any(|c| !is_ambush(ctx, c));
    match (ours.as_slice(), empty_after) {
        ([], true) if played.is_some() && any_left => {
            return Err(first.map_or_else(
                || Rejection::whole("Political Commissar: put a card under the marker"),
                |l| {
                    l.reject(
                        "Political Commissar: put a card of your hand face down under the Commissar marker for your next turn (COMMISSAR <card>)",
                    )
                },
            ));
        }
        ([], _) => {}
        ([(l, card)], true) => {
            if is_ambush(ctx, card) {
                return Err(l.reject(
                    "Ambush is played only in the opponent's turn: it may not go under the Commissar marker",
                ));
            }
            if !hand.iter().any(|c| c == *card) {
                return Err(l.reject(format!(
                    "{card} is not in your hand (the card under the Commissar marker comes from your hand, not the one you play)"
                )));
            }
            u.under = Some((*card).clone());
        }
        ([(l, _)], false) => {
            return Err(l.reject(
                "the card under the Commissar marker stays there until it is played: no other card goes under it this turn",
            ))
        }
        ([_, (l, _), ..], _) => {
            return Err(l.reject("only one card goes under the Commissar marker"));
        }
    }
    if u.from_marker {
        let mut s = st.clone();
        if let Some(c) = marker.card.clone() {
            s.hands[side].push(c);
        }
        if let Some(c) = marker_mut(&mut s, side) {
            c.card = None;
        }
        return Ok((Cow::Owned(s), rest, u));
    }
    Ok((Cow::Borrowed(st), rest, u))
}

/// Before the turn is carried out: the card under the marker goes back to
/// the hand it is played from.
pub fn begin(st: &mut State, side: usize, u: &Use) {
    if !u.from_marker {
        return;
    }
    if let Some(c) = marker_mut(st, side).and_then(|c| c.card.take()) {
        st.hands[side].push(c);
    }
}

/// After the turn: the card chosen goes face down under the marker.
pub fn end(st: &mut State, side: usize, u: &Use) {
    let Some(card) = &u.under else { return };
    if let Some(p) = st.hands[side].iter().position(|c| c == card) {
        let c = st.hands[side].remove(p);
        if let Some(m) = marker_mut(st, side) {
            m.card = Some(c);
        }
    }
}

/// The card under the marker as `viewer` may see it: the card for the
/// Russian side and the referee, face down for anyone else.
#[must_use]
pub fn shown(st: &State, side: usize, sees: bool) -> Option<String> {
    let c = marker(st, side)?;
    let card = c.card.clone()?;
    Some(if sees {
        card
    } else {
        super::view::HIDDEN.to_string()
    })
}

/// The card under `side`'s marker, if it has one.
#[must_use]
pub fn card(st: &State, side: usize) -> Option<String> {
    marker(st, side).and_then(|c| c.card.clone())
}

/// Random orders (random.rs): the COMMISSAR line a turn that plays
/// `played` needs (empty when the marker keeps its card or the side has
/// none), putting a random card of the hand under the marker.
pub fn random_line(
    ctx: &Ctx<'_>,
    st: &State,
    side: usize,
    played: &str,
    rng: &mut dyn adjutant_dice::Dice,
) -> String {
    let Some(m) = marker(st, side) else {
        return String::new();
    };
    if m.card.as_deref().is_some_and(|c| c != played) {
        return String::new();
    }
    let mut hand = st.hands.get(side).cloned().unwrap_or_default();
    if m.card.is_none() {
        if let Some(p) = hand.iter().position(|c| c == played) {
            hand.remove(p);
        }
    }
    hand.retain(|c| !is_ambush(ctx, c));
    if hand.is_empty() {
        return String::new();
    }
    let i = (rng.roll(hand.len() as u32) - 1) as usize;
    format!("COMMISSAR {}\n", hand[i])
}
