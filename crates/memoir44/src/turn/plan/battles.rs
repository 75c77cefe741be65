//! BATTLE: who battles, with what mode, at what, and whether it may take
//! ground or overrun after.

use super::*;
use crate::battle::target_check;
use crate::ruleset::UnitSpec;

impl Walk<'_, '_> {
    pub(super) fn battle(
        &mut self,
        l: &Line,
        from: Hex,
        target: Hex,
        take_ground: bool,
        overrun: Option<Hex>,
        via: Option<Hex>,
    ) -> Result<(), Rejection> {
        let (ctx, side) = (self.ctx, self.side);
        if via.is_some() && !crate::tiles::desert_rules(&self.sc) {
            return Err(l.reject(
                "VIA: the North African Armour Overrun needs the North African Desert Rules (the scenario's desert = true)",
            ));
        }
        if matches!(self.action, Action::Exchange(_)) {
            return Err(l.reject("an EXCHANGE is the whole turn"));
        }
        let Some(u) = self.battler(l, from, target)? else {
            return Ok(());
        };
        let spec = ctx.spec(&u.kind);
        // Kriegspiel: a side may only target what it sees.
        let tgt = self
            .sc
            .unit_at(target)
            .filter(|x| x.side == side || crate::fog::sees(ctx.r, &self.sc, side, x))
            .cloned();
        let (m, firefight) = self.battle_mode(l, &u, tgt.as_ref(), from)?;
        let advance = take_ground || overrun.is_some();
        let (range, charge) = self.may_battle(l, &u, &m, tgt.as_ref(), target, advance)?;
        self.check_target(l, &u, tgt.is_some(), target, range, advance)?;
        if advance {
            self.check_advance(l, spec, firefight, range, take_ground, overrun, target)?;
        }
        // The Big Push: "Infantry Units must ... Take Ground if the
        // opportunity presents itself. Armour Units must Armour
        // Overrun if the opportunity presents itself."
        let sc = &self.sc;
        let push = m.push && range == 1 && !sc.young_generals && !firefight;
        let take_ground = take_ground || (push && (spec.take_ground || spec.overrun));
        let auto_overrun =
            push && spec.overrun && overrun.is_none() && !crate::variants::nineteen84::on(sc);
        self.track.entry(u.id).or_default().battles += 1;
        self.battled = true;
        self.steps.push(Step::Battle {
            line: l.clone(),
            unit: u.id,
            target,
            take_ground,
            overrun,
            firefight,
            charge,
            auto_overrun,
        });
        Ok(())
    }

    /// The unit that battles: the one at `from`, or (Kriegspiel) the unit
    /// stopped short on its way there, which battles from where it stopped
    /// if it can; if not, the order lapses (None).
    fn battler(&mut self, l: &Line, from: Hex, target: Hex) -> Result<Option<Unit>, Rejection> {
        let (ctx, side) = (self.ctx, self.side);
        let Walk {
            sc, steps, stopped, ..
        } = self;
        let redirected = stopped
            .get(&from)
            .filter(|_| sc.unit_at(from).is_none_or(|x| x.side != side))
            .and_then(|id| sc.unit(*id))
            .cloned();
        Ok(Some(match redirected {
            Some(u) => {
                let seen = sc
                    .unit_at(target)
                    .is_some_and(|x| x.side != side && crate::fog::sees(ctx.r, sc, side, x));
                let why = if seen {
                    target_check(ctx, sc, &u, target).err()
                } else {
                    Some(format!("it sees no enemy unit at {target}"))
                };
                if let Some(why) = why {
                    steps.push(Step::Lapse {
                        line: l.clone(),
                        reason: format!("the unit was stopped short at {}: {why}", u.at),
                    });
                    return Ok(None);
                }
                u
            }
            None => {
                let Some(u) = sc.unit_at(from).cloned() else {
                    return Err(l.reject(no_unit(sc, from)));
                };
                if u.side != side {
                    return Err(l.reject(not_yours(sc, from)));
                }
                u
            }
        }))
    }

    /// The battling unit's mode: its card's, or (no order) a firefight's,
    /// or the one unit a DISCARD lets battle.
    fn battle_mode(
        &mut self,
        l: &Line,
        u: &Unit,
        tgt: Option<&Unit>,
        from: Hex,
    ) -> Result<(Mode, bool), Rejection> {
        let (ctx, action, turn_no) = (self.ctx, self.action, self.turn_no);
        let Walk {
            sc,
            modes,
            discard_battler,
            ..
        } = self;
        let u = u.clone();
        let engaged = ctx.r.options.firefight
            && tgt.is_some_and(|t| {
                sc.engagements.iter().any(|e| {
                    e.since < turn_no
                        && ((e.a == u.id && e.b == t.id) || (e.b == u.id && e.a == t.id))
                })
            });
        let mut firefight = false;
        let m = match modes.get(&u.id).cloned() {
            Some(m) => m,
            None if engaged && !modes.contains_key(&u.id) => {
                firefight = true;
                let mut m = default_mode(ctx, &u);
                m.max_move = 0;
                modes.insert(u.id, m.clone());
                m
            }
            None if matches!(action, Action::Discard(_)) && discard_battler.is_none() => {
                *discard_battler = Some(u.id);
                let mut m = default_mode(ctx, &u);
                m.max_move = 0;
                modes.insert(u.id, m.clone());
                m
            }
            None => {
                return Err(l.reject(match action {
                    Action::Discard(_) => {
                        "after a DISCARD only one unit may battle (and units in a firefight)"
                            .to_string()
                    }
                    _ => format!("the unit at {from} was not ordered"),
                }))
            }
        };
        Ok((m, firefight))
    }

    /// May the unit battle after what it did this turn? The range, and
    /// whether its battle is an Infantry Charge.
    fn may_battle(
        &mut self,
        l: &Line,
        u: &Unit,
        m: &Mode,
        tgt: Option<&Unit>,
        target: Hex,
        advance: bool,
    ) -> Result<(u32, bool), Rejection> {
        let (ctx, side) = (self.ctx, self.side);
        let spec = ctx.spec(&u.kind);
        let Walk { sc, track, .. } = self;
        if m.nothing {
            return Err(l.reject("a unit that digs in does nothing else this turn"));
        }
        let t = track.entry(u.id).or_default().clone();
        // Restoring Order: "Only Units that do not Move may Battle".
        if m.regroup && t.moved.is_some_and(|d| d > 0) {
            return Err(l.reject(
                "Restoring Order: only units that do not move may battle; this unit moved",
            ));
        }
        if m.regroup && advance {
            return Err(l.reject(
                    "Restoring Order: no Take Ground or Overrun, for units may not advance towards the enemy",
                ));
        }
        if t.wire {
            return Err(l.reject("this unit removes barbed wire instead of battling"));
        }
        if t.charging {
            return Err(l.reject(
                    "placing charges on a bridge or a Pontoon Bridge is the engineers' entire action: they may not move or battle",
                ));
        }
        if t.exterminating {
            return Err(l.reject(EXTERMINATING));
        }
        if t.clearing {
            return Err(l.reject(
                    "Engineer Units may not battle while engaged in Minefield Clearance: this unit clears the minefield it moved onto instead of battling",
                ));
        }
        if t.battles >= m.battles {
            return Err(l.reject("a unit battles only once per turn"));
        }
        let range = crate::trains::range(sc, u, target);
        let mut charge = false;
        if let Some(d) = t.moved {
            if d > m.move_battle {
                let can_charge = ctx.r.options.infantry_charge
                    && spec.charge
                    && d == 2
                    && !m.ignore_terrain
                    && range == 1
                    && tgt.is_some_and(|t| {
                        t.side != side && matches!(class_of(ctx, t), "infantry" | "artillery")
                    });
                if !can_charge {
                    return Err(l.reject(format!(
                        "this unit moved {d} hex(es) and may not battle this turn"
                    )));
                }
                charge = true;
            }
            if t.barred {
                return Err(l.reject(
                    "a unit may not battle the turn it moves onto woods, a town or a hedgerow",
                ));
            }
        }
        // "All Zombie Close Assaults are treated as Infantry Charges".
        let charge = charge || crate::variants::zombies::charges(ctx, u, range);
        Ok((range, charge))
    }

    /// What the unit battles: a unit it sees, or (artillery) wire, a bridge
    /// or a minefield.
    fn check_target(
        &mut self,
        l: &Line,
        u: &Unit,
        seen: bool,
        target: Hex,
        range: u32,
        advance: bool,
    ) -> Result<(), Rejection> {
        let ctx = self.ctx;
        let spec = ctx.spec(&u.kind);
        let may_see = self.blind.is_some_and(|start| {
            may_come_into_sight(ctx, start, &self.sc, self.track.values(), u, target)
        });
        let Walk { sc, mine_tries, .. } = self;
        match seen {
            true => target_check(ctx, sc, u, target).map_err(|e| l.reject(e))?,
            false
                if spec.class == "artillery"
                    && sc
                        .features(target)
                        .iter()
                        .any(|f| ctx.r.feature(f).is_some_and(|x| x.wire)) =>
            {
                if range as usize > spec.dice.len() {
                    return Err(l.reject(format!("the wire at {target} is out of range")));
                }
                in_sight(ctx, sc, u, target, spec.indirect).map_err(|e| l.reject(e))?;
                if advance {
                    return Err(l.reject("artillery may not take ground"));
                }
            }
            false
                if ctx.r.bridge_demolition.bombard_units.contains(&u.kind)
                    && crate::bridges::is_bridge(sc, target)
                    && crate::bridges::charge(sc, target).is_none() =>
            {
                // Bridge Demolition, Option 3.
                if range as usize > spec.dice.len() {
                    return Err(l.reject(format!("the bridge at {target} is out of range")));
                }
                in_sight(ctx, sc, u, target, spec.indirect).map_err(|e| l.reject(e))?;
                if advance {
                    return Err(l.reject("artillery may not take ground"));
                }
            }
            false if spec.class == "artillery" && crate::mines::at(sc, target).is_some() => {
                // "Artillery may also attempt to clear a Minefield
                // by firing at it."
                if range as usize > spec.dice.len() {
                    return Err(l.reject(format!("the minefield at {target} is out of range")));
                }
                in_sight(ctx, sc, u, target, spec.indirect).map_err(|e| l.reject(e))?;
                if advance {
                    return Err(l.reject("artillery may not take ground"));
                }
                if !mine_tries.insert(target) {
                    return Err(l.reject(format!(
                            "only one attempt per turn may be made to clear a minefield: {target} already has one"
                        )));
                }
            }
            false if may_see => {}
            false if sc.fog.is_some() => {
                return Err(l.reject(format!("you see no enemy unit at {target}")))
            }
            false => return Err(l.reject(format!("there is no enemy unit at {target}"))),
        }
        Ok(())
    }

    /// TAKE GROUND and OVERRUN: who may, and when.
    fn check_advance(
        &self,
        l: &Line,
        spec: &UnitSpec,
        firefight: bool,
        range: u32,
        take_ground: bool,
        overrun: Option<Hex>,
        target: Hex,
    ) -> Result<(), Rejection> {
        let sc = &self.sc;
        if sc.young_generals {
            return Err(l.reject("Young Generals play without Take Ground or Armour Overrun"));
        }
        if firefight {
            return Err(l.reject("units in a firefight may not Take Ground or Overrun"));
        }
        if range != 1 {
            return Err(l.reject("Take Ground and Armour Overrun follow only a close assault"));
        }
        if take_ground && !(spec.take_ground || spec.overrun) {
            return Err(l.reject(format!("{} may not take ground", spec.name)));
        }
        if overrun.is_some() && crate::variants::nineteen84::on(sc) {
            return Err(l.reject(
                "Nineteen Eighty-Four: no Armour Overruns are allowed (TAKE-GROUND only)",
            ));
        }
        if overrun.is_some() && !spec.overrun {
            return Err(l.reject(format!(
                "{} may not make an Armour Overrun (only armour and cavalry may)",
                spec.name
            )));
        }
        if overrun == Some(target) {
            return Err(l.reject("the overrun target must be another unit"));
        }
        Ok(())
    }
}

/// Kriegspiel: may a battle at `target`, where the side sees no unit, find
/// one there? The hex was out of the side's sight when the turn began, a
/// unit of the side has moved this turn, and the hex is within the
/// battler's Battle Range (docs/rules/kriegspiel.md, "Orders under fog").
fn may_come_into_sight<'t>(
    ctx: &Ctx<'_>,
    start: &State,
    sc: &State,
    mut track: impl Iterator<Item = &'t Track>,
    u: &Unit,
    target: Hex,
) -> bool {
    let side = u.side;
    !crate::fog::sees_hex(ctx.r, start, side, target)
        && crate::fog::sees_hex(ctx.r, sc, side, target)
        && track.any(|t| t.moved.is_some_and(|d| d > 0))
        && u.at.distance(target) as usize <= ctx.spec(&u.kind).dice.len()
}
