//! Blitzkrieg Rules (Optional) in the house rules: the side a scenario (or the game
//! option `blitzkrieg`) names plays a "Recon 1" card as Air Power in its
//! section, and the enemy's ordered armour moves at most 2 hexes.

use super::battle::Ctx;
use super::board::{Hex, Section};
use super::orders::{Cmd, Line};
use super::state::{State, Unit};
use super::turn::{Action, Mode};
use super::Rejection;

/// The game option naming the side that uses the Blitzkrieg rules (`none`
/// plays without the scenario's).
pub const OPTION: &str = "blitzkrieg";

/// The section a Recon card orders in.
fn recon_section(ctx: &Ctx<'_>, card: &str) -> Option<Section> {
    let spec = ctx.r.card(card)?;
    if !spec.recon || spec.orders.len() != 1 {
        return None;
    }
    let key = spec.orders.keys().next()?;
    Section::ALL.into_iter().find(|s| s.id() == key)
}

/// Air Attack: "The player may play a "Recon 1" card as an Air Power Tactic
/// Card in that Section of the Battlefield." The Blitzkrieg side's Recon
/// card followed by a TARGET line is played as Air Power.
pub fn air_attack(
    ctx: &Ctx<'_>,
    st: &State,
    side: usize,
    first: &Line,
    action: Action,
    lines: &[&Line],
) -> Result<Action, Rejection> {
    let Action::Card { played, effect, .. } = &action else {
        return Ok(action);
    };
    let targets = lines.iter().any(|l| matches!(l.cmd, Cmd::Target { .. }));
    let Some(sec) = recon_section(ctx, effect) else {
        return Ok(action);
    };
    if !targets {
        return Ok(action);
    }
    // Battle Star Markers, Calling In Air Strikes (Hill 317 Rule): "the
    // player may play any Recon Card as an Air Power Card" (Air Power's own
    // dice, anywhere).
    let strikes = super::stars::air_strikes(st, side);
    if st.blitzkrieg != Some(side) && !strikes {
        return Err(first.reject(
            "a Recon card is played as Air Power (TARGET) only by the side that uses the Blitzkrieg rules, or while a unit holds its Calling In Air Strikes hex (no air strikes now)",
        ));
    }
    if let Some(air) = ctx.r.card("air-power") {
        super::weather::card_check(ctx.r, st, air).map_err(|m| first.reject(m))?;
    }
    Ok(Action::Card {
        played: played.clone(),
        effect: "air-power".into(),
        section: (!strikes).then_some(sec),
    })
}

/// Is this turn's Air Power a Blitzkrieg Air Attack (a Recon card)?
#[must_use]
pub fn is_air_attack(ctx: &Ctx<'_>, action: &Action) -> Option<Section> {
    match action {
        // A Blitzkrieg Air Attack keeps its Recon card's section; air
        // strikes called from a Battle Star hex do not.
        Action::Card {
            played,
            effect,
            section: Some(_),
        } if effect == "air-power" => recon_section(ctx, played),
        _ => None,
    }
}

/// "At least one target hex must be in that Section."
pub fn check_targets(
    ctx: &Ctx<'_>,
    side: usize,
    action: &Action,
    hexes: &[Hex],
) -> Result<(), String> {
    let Some(sec) = is_air_attack(ctx, action) else {
        return Ok(());
    };
    if hexes
        .iter()
        .any(|h| ctx.board.in_section(*h, sec, side == 0))
    {
        Ok(())
    } else {
        Err(format!(
            "Blitzkrieg Air Attack: at least one target hex must be in the {} section of the Recon card",
            sec.id()
        ))
    }
}

/// "Individually roll 1 Battle Dice per hex against each enemy Unit."
#[must_use]
pub fn air_dice(ctx: &Ctx<'_>, action: &Action) -> Option<u32> {
    is_air_attack(ctx, action).map(|_| 1)
}

/// Armour Movement: "An ordered Armour Unit may Move upto 3 hexes and
/// Battle, while an ordered enemy Armour Unit may only Move upto 2 Hexes and
/// Battle."
#[must_use]
pub fn mode(ctx: &Ctx<'_>, st: &State, u: &Unit, m: Mode) -> Mode {
    let mut m = m;
    if let Some(b) = st.blitzkrieg {
        if u.side != b && ctx.spec(&u.kind).class == "armour" {
            m.max_move = m.max_move.min(2);
            m.move_battle = m.move_battle.min(2);
        }
    }
    m
}

/// Set the side that uses the Blitzkrieg rules.
pub fn set(r: &super::Ruleset, st: &mut State, side: Option<usize>) -> Result<(), String> {
    if side.is_some() && !r.options.blitzkrieg {
        return Err("this ruleset does not play the optional Blitzkrieg rules".into());
    }
    st.blitzkrieg = side;
    Ok(())
}

/// Blitzkrieg on the turn's hooks (turn/hooks.rs): the enemy's armour moves
/// at most 2.
pub struct Hooks;

impl crate::turn::Hook for Hooks {
    fn mode(
        &self,
        ctx: &Ctx<'_>,
        st: &State,
        u: &Unit,
        m: Mode,
        _: Option<&[crate::board::Hex]>,
    ) -> Mode {
        mode(ctx, st, u, m)
    }
}
