//! Heavy cavalry versus infantry (docs/rules/charge.md, "Heavy cavalry
//! through infantry"): "If heavy cavalry charge infantry who are formed less
//! than 4 ranks deep, they may ride down the men and burst through. Each
//! cavalry figure moving up to contact throws one D6. … If breakthrough
//! successful, the front enemy figure is removed as a casualty. … The
//! horsemen continue through to the extent of their charge move to contact
//! another enemy if possible. They may veer up to 30° to do this."
//!
//! Worked out on the position after the charge's contact; the engine
//! applies the result (casualties, the new ground, the new melee).

use super::{charge_plan, Action};
use crate::charge::Ruleset;
use crate::charge::{State, Unit};
use crate::events::{Charge, RideDownNext};
use crate::geometry::{self as g, Footprint};
use crate::state::{footprint, shape};

/// What the horsemen did.
pub struct Outcome {
    /// Infantry figures ridden down (removed).
    pub killed: u32,
    /// The regiment burst through: where it ends (and whom it strikes next,
    /// as a charge action), or None if it stays in the melee.
    pub through: Option<(Unit, Option<(Action, i64)>)>,
    pub event: Charge,
}

/// The veer allowed to reach another enemy.
const VEER: i64 = 30;

/// Ride down `tg` if the rule applies: `face` is the face struck (0 front,
/// 2 rear), `dist` the charge distance already covered.
pub fn attempt(
    r: &Ruleset,
    st: &State,
    ch: &Unit,
    tg: &Unit,
    face: usize,
    dist: i64,
    roll: &mut dyn FnMut() -> u32,
) -> Option<Outcome> {
    let tc = r.troop(&ch.troop)?;
    let tt = r.troop(&tg.troop)?;
    if !(tc.heavy && tc.is("cavalry") && tt.is("infantry")) {
        return None;
    }
    // Ranks deep: struck in front or rear the target's ranks; in a flank its
    // files stand one behind another (a judgement).
    let tsh = shape(tt, tg);
    let deep = if face.is_multiple_of(2) {
        tsh.ranks
    } else {
        tsh.files
    };
    let throw = r.ride_down.iter().find(|d| d.ranks == deep)?;
    if deep >= 4 {
        return None;
    }
    // "Each cavalry figure moving up to contact": the front rank of the
    // horsemen that meets the enemy's face.
    let csh = shape(tc, ch);
    let face_len = if face.is_multiple_of(2) {
        tsh.width
    } else {
        tsh.depth
    };
    let meeting = ((face_len + csh.pitch - 1) / csh.pitch.max(1)) as u32;
    let n = csh.files.min(meeting).min(ch.rf).max(1);
    let throws: Vec<u32> = (0..n).map(|_| roll()).collect();
    let broke = throws.iter().filter(|d| throw.throw.contains(d)).count() as u32;
    let killed = broke.min(tg.rf);
    // The regiment bursts through when at least half its horsemen in
    // contact broke through (a judgement: it moves as one body).
    let mut why = String::new();
    let mut through = None;
    if broke * 2 >= n {
        let reach = tc.moves.get("charge").copied().unwrap_or(0);
        let own = footprint(r, ch);
        // Through the infantry's ground and clear of it.
        let across = if face.is_multiple_of(2) {
            tsh.depth
        } else {
            tsh.width
        };
        let clear = across + own.depth;
        let left = reach - dist - clear;
        let mut end = ch.clone();
        end.front = g::offset(ch.front, i64::from(ch.facing), clear, 0);
        end.melee = None;
        let efp = footprint(r, &end);
        let path = Footprint {
            front: end.front,
            depth: own.depth + clear,
            ..own
        };
        let blocked = st
            .units
            .iter()
            .find(|o| o.id != ch.id && o.id != tg.id && g::overlap(&path, &footprint(r, o)));
        if left < 0 {
            why = "its charge move does not carry it clear".into();
        } else if let Some(o) = blocked {
            why = format!("{} stands in the way", o.id);
        } else if !st.on_table(&efp) {
            why = "the table's edge".into();
        } else {
            let next = next_target(r, st, &end, tg, left);
            through = Some((end, next));
        }
    }
    let next = through
        .as_ref()
        .and_then(|(_, n)| n.as_ref())
        .and_then(|(a, veer)| match a {
            Action::Charge { target, dist, .. } => Some(RideDownNext {
                target: target.clone(),
                dist: *dist,
                text: g::fmt_len(*dist),
                veer: *veer,
            }),
            _ => None,
        });
    let event = Charge::RideDown {
        unit: ch.id.to_string(),
        target: tg.id.to_string(),
        ranks: deep,
        need: throw.throw.clone(),
        throws: throws.clone(),
        broke,
        killed,
        through: through.is_some(),
        why: why.to_string(),
        next,
    };
    Some(Outcome {
        killed,
        through,
        event,
    })
}

/// Another enemy the horsemen reach within `left`, veering up to 30°: the
/// nearest contact (measured from the centre of their front, as a charge
/// is), then the smallest veer (left before right), then the first unit.
fn next_target(
    r: &Ruleset,
    st: &State,
    end: &Unit,
    ridden: &Unit,
    left: i64,
) -> Option<(Action, i64)> {
    let mut best: Option<(i128, i64, Action)> = None;
    for o in &st.units {
        if o.side == end.side
            || o.id == ridden.id
            || o.broken
            || o.melee.is_some()
            || r.troop(&o.troop)
                .is_some_and(|t| ["general", "wagon", "barge"].contains(&t.class.as_str()))
        {
            continue;
        }
        let ofp = footprint(r, o);
        for v in 0..=VEER {
            for sign in [-1, 1] {
                if v == 0 && sign == 1 {
                    continue;
                }
                let h = g::norm_deg(i64::from(end.facing) + sign * v);
                let Some((num, den)) = g::ray_hit(end.front, i64::from(h), &ofp) else {
                    continue;
                };
                if num > i128::from(left) * den {
                    continue;
                }
                let mut cur = end.clone();
                cur.facing = h;
                let Ok((act, _)) = charge_plan(r, end, &cur, o, &[]) else {
                    continue;
                };
                // The horsemen's ground on the way and at the end must not
                // cross a third unit.
                let d = num / den.max(1);
                let fp = footprint(r, &cur);
                let path = Footprint {
                    front: g::offset(cur.front, i64::from(h), d as i64, 0),
                    depth: fp.depth + d as i64,
                    ..fp
                };
                let Action::Charge { front, facing, .. } = &act else {
                    continue;
                };
                let mut fin = cur.clone();
                fin.front = *front;
                fin.facing = *facing;
                let ffp = footprint(r, &fin);
                // (The infantry just ridden through is behind them: the
                // path starts in contact with it, but a veer must not end
                // back on its ground.)
                if st.units.iter().any(|x| {
                    let xfp = footprint(r, x);
                    x.id != end.id
                        && x.id != o.id
                        && if x.id == ridden.id {
                            g::overlap_deeply(&ffp, &xfp)
                        } else {
                            g::overlap(&path, &xfp) || g::overlap(&ffp, &xfp)
                        }
                }) {
                    continue;
                }
                let key = (d, v);
                if best
                    .as_ref()
                    .is_none_or(|(bd, bv, _)| key < (*bd, bv.abs()))
                {
                    best = Some((d, sign * v, act));
                }
            }
        }
    }
    best.map(|(_, v, a)| (a, v))
}
