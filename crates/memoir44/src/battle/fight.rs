//! A battle as a step of the turn: the defender's reactions (Ambush, the
//! Infantry Charge reply), the dice and their results, taking ground, the
//! Armour Overrun, and the obstacles the attackers clear. The dice tables
//! and the rules of one battle are the parent module (battle/mod.rs).

use super::{
    battle_dice, lose, may_enter, resolve_flags, roll, target_check, total, unit_moved, HitRule,
    Outcome,
};
use crate::board::Hex;
use crate::events::{Event, Modifier};
use crate::orders::{Cmd, Line};
use crate::state::{CrossHair, Engagement, State, Unit};
use crate::turn::{enemy_seen_at, Turn};

impl Turn<'_, '_, '_> {
    /// A battle between two units. Returns the target's outcome, or None
    /// when it could not be fought.
    fn fight(
        &mut self,
        att_id: u32,
        tgt_id: u32,
        how: &str,
        extra: Vec<Modifier>,
        rule: HitRule,
    ) -> Option<Outcome> {
        let att = self.st.unit(att_id)?.clone();
        let tgt = self.st.unit(tgt_id)?.clone();
        let ctx = self.ctx;
        crate::bridges::battled(&mut self.st, att.at, tgt.at);
        let mut extra = extra;
        if self.obstacle_cost.contains(&att_id) {
            extra.push(Modifier {
                dice: -1,
                reason: "removing an obstacle".into(),
            });
        }
        let (base, mods) = battle_dice(ctx, &self.st, &att, &tgt, &extra);
        let n = total(base, &mods);
        let aspec = ctx.spec(&att.kind);
        let tspec = ctx.spec(&tgt.kind);
        let (faces, hits, flags) = roll(ctx, &mut *self.chance.dice, n, Some(aspec), tspec, rule);
        // Appendix 2: a Fortress is hit by artillery stars only.
        let hits =
            crate::tiles::limited_hits(ctx, &self.st, &aspec.class, tgt.at, &faces).unwrap_or(hits);
        let idx = self.ev.len();
        self.ev.push(Event::Battle {
            side: self.st.sides[att.side].clone(),
            attacker: att.kind.clone(),
            from: Some(att.at),
            target: tgt.kind.clone(),
            at: tgt.at,
            range: crate::trains::range(&self.st, &att, tgt.at),
            how: how.into(),
            base_dice: base,
            modifiers: mods,
            dice: n,
            faces,
            hits,
            flags,
            ignored_flags: 0,
        });
        let remover = if aspec.class == "artillery" {
            "artillery"
        } else {
            "unit"
        };
        let mut out = Outcome::default();
        if hits > 0 {
            out.eliminated = lose(
                ctx,
                &mut self.st,
                &mut self.ev,
                tgt_id,
                hits,
                att.side,
                "hits",
                remover,
            );
        }
        if !out.eliminated && flags > 0 {
            let (ig, o) = resolve_flags(
                ctx,
                &mut self.st,
                &mut self.ev,
                tgt_id,
                flags,
                att.side,
                rule,
            );
            out = o;
            if let Some(Event::Battle { ignored_flags, .. }) = self.ev.get_mut(idx) {
                *ignored_flags = ig;
            }
            // Appendix 2: a retreat onto a frozen river tests the ice.
            let retreat = self.ev[idx..].iter().rev().find_map(|e| match e {
                Event::Retreat { path, .. } if path.len() > 1 => Some(path[1..].to_vec()),
                _ => None,
            });
            if let Some(path) = retreat {
                crate::tiles::entered(
                    ctx,
                    &mut self.st,
                    &mut self.ev,
                    &mut *self.chance.dice,
                    tgt_id,
                    &path,
                );
                if self.st.unit(tgt_id).is_none() {
                    out.eliminated = true;
                }
            }
        }
        // Appendix 2: fire that destroys the tile the target stood on.
        crate::tiles::fire_on_hex(ctx, &mut self.st, &mut self.ev, &aspec.class, tgt.at);
        // Big-Gun cross-hairs; Forward Spotting Artillery gives every
        // artillery unit the Big Guns rules while its hex is held.
        if crate::battle::big_guns(&self.st, aspec, &att)
            && hits > 0
            && !out.eliminated
            && !out.retreated
        {
            let have = self
                .st
                .cross_hairs
                .iter()
                .filter(|c| c.gun == att_id)
                .count() as u32;
            if have < ctx.r.options.cross_hair_markers
                && !self
                    .st
                    .cross_hairs
                    .iter()
                    .any(|c| c.gun == att_id && c.target == tgt_id)
            {
                self.st.cross_hairs.push(CrossHair {
                    gun: att_id,
                    target: tgt_id,
                });
                self.ev.push(Event::CrossHairPlaced {
                    gun: att.at,
                    target: tgt.at,
                });
            }
        }
        Some(out)
    }

    /// The defender's reaction before a close assault: Ambush, then the
    /// Infantry Charge reply. Returns false if the attack is cancelled.
    fn reactions(&mut self, att_id: u32, tgt_id: u32, charge: bool) -> bool {
        let ctx = self.ctx;
        let Some(tgt) = self.st.unit(tgt_id).cloned() else {
            return true;
        };
        let dside = tgt.side;
        let can_reply = |st: &State| -> bool {
            let (Some(d), Some(a)) = (st.unit(tgt_id), st.unit(att_id)) else {
                return false;
            };
            target_check(ctx, st, d, a.at).is_ok()
        };
        let policy = self.st.standing.get(dside).and_then(|s| s.ambush.clone());
        let wants = match &policy {
            None => true,
            Some(ids) => ids.contains(&tgt_id),
        };
        if wants
            && self
                .st
                .hands
                .get(dside)
                .is_some_and(|h| h.iter().any(|c| c == "ambush"))
            && can_reply(&self.st)
        {
            if let Some(p) = self.st.hands[dside].iter().position(|c| c == "ambush") {
                let c = self.st.hands[dside].remove(p);
                self.st.discard.push(c);
            }
            self.ambush_draw = true;
            self.ev.push(Event::AmbushPlayed {
                side: self.st.sides[dside].clone(),
                at: tgt.at,
            });
            let before = self.st.unit(att_id).map(|u| u.at);
            self.fight(tgt_id, att_id, "ambush", vec![], HitRule::default());
            if self.st.unit(att_id).map(|u| u.at) != before {
                return false;
            }
        }
        if charge && can_reply(&self.st) {
            let before = self.st.unit(att_id).map(|u| u.at);
            self.fight(tgt_id, att_id, "charge-reply", vec![], HitRule::default());
            if self.st.unit(att_id).map(|u| u.at) != before {
                return false;
            }
        }
        true
    }

    fn card_extra(&self, unit: u32, range: u32) -> Vec<Modifier> {
        match self.modes_extra.get(&unit) {
            Some((e, close_only, reason)) if *e != 0 && (!*close_only || range == 1) => {
                vec![Modifier {
                    dice: *e,
                    reason: reason.clone(),
                }]
            }
            _ => vec![],
        }
    }

    pub(crate) fn wire_on_entry(&mut self, unit: u32, h: Hex) {
        let ctx = self.ctx;
        let Some(u) = self.st.unit(unit) else { return };
        if ctx.spec(&u.kind).class != "armour" {
            return;
        }
        if let Some(fs) = self.st.terrain.get_mut(&h) {
            let before = fs.len();
            fs.retain(|f| !ctx.r.feature(f).is_some_and(|x| x.wire));
            if fs.len() != before {
                self.ev.push(Event::WireRemoved {
                    at: h,
                    by: "armour".into(),
                });
            }
        }
    }

    /// North African Armour Overrun (Appendix 2): the one additional hex
    /// after taking ground. False (and the line skipped) if it cannot be
    /// made; the armour then stays on the ground it took.
    fn desert_step(&mut self, line: &Line, unit: u32, to: Hex) -> bool {
        let ctx = self.ctx;
        let Some(u) = self.st.unit(unit).cloned() else {
            return false;
        };
        let spec = ctx.spec(&u.kind);
        let why = if !u.at.adjacent(to) {
            Some(format!("{to} is not next to {}", u.at))
        } else if self.st.unit_at(to).is_some() {
            Some(format!("{to} holds a unit"))
        } else if !may_enter(ctx, &self.st, spec, to)
            || !crate::tiles::step_allowed(ctx, &self.st, spec.movement_class(), u.at, to)
        {
            Some(format!("{} may not enter {to}", spec.name))
        } else {
            None
        };
        if let Some(why) = why {
            self.skip(line, &format!("the additional hex of the overrun: {why}"));
            return false;
        }
        if let Some(x) = self.st.unit_mut(unit) {
            x.at = to;
        }
        unit_moved(&mut self.st, unit);
        self.ev.push(Event::Move {
            side: self.st.sides[u.side].clone(),
            unit: u.kind.clone(),
            path: vec![u.at, to],
        });
        self.wire_on_entry(unit, to);
        let e = crate::victory::update_objectives(&mut self.st);
        self.ev.extend(e);
        if crate::tiles::barred_on_or_off(ctx, &self.st, spec.movement_class(), u.at, to) {
            self.skip(
                line,
                "the overrun moved onto or out of terrain where armour may not battle",
            );
            return false;
        }
        true
    }

    fn take_ground(&mut self, unit: u32, to: Hex, overrun: bool) -> bool {
        let ctx = self.ctx;
        let Some(u) = self.st.unit(unit).cloned() else {
            return false;
        };
        if self.st.unit_at(to).is_some()
            || !may_enter(ctx, &self.st, ctx.spec(&u.kind), to)
            || !crate::tiles::step_allowed(
                ctx,
                &self.st,
                ctx.spec(&u.kind).movement_class(),
                u.at,
                to,
            )
        {
            return false;
        }
        if let Some(x) = self.st.unit_mut(unit) {
            x.at = to;
        }
        unit_moved(&mut self.st, unit);
        let side = self.st.sides[u.side].clone();
        if overrun {
            self.ev.push(Event::Overrun {
                side,
                unit: u.kind.clone(),
                from: u.at,
                to,
            });
        } else {
            self.ev.push(Event::TakeGround {
                side,
                unit: u.kind.clone(),
                from: u.at,
                to,
            });
        }
        self.wire_on_entry(unit, to);
        let e = crate::victory::update_objectives(&mut self.st);
        self.ev.extend(e);
        // Appendix 2: a frozen river tests the ice.
        crate::tiles::entered(
            ctx,
            &mut self.st,
            &mut self.ev,
            &mut *self.chance.dice,
            unit,
            &[to],
        );
        // Taking ground onto a minefield is entering it.
        crate::mines::entered(
            ctx,
            &mut self.st,
            &mut self.ev,
            &mut *self.chance.dice,
            unit,
            to,
            false,
        );
        self.st.unit(unit).is_some()
    }

    /// Combat Engineers: "Must remove Barbed Wire or Hedgehog hex on the
    /// same turn that it moves onto the hex but reduces the number of Battle
    /// Dice it rolls by 1."
    pub(crate) fn engineer_removes(&mut self, unit: u32, h: Hex) {
        let ctx = self.ctx;
        let Some(u) = self.st.unit(unit).cloned() else {
            return;
        };
        if !ctx.spec(&u.kind).engineer {
            return;
        }
        let Some(fs) = self.st.terrain.get_mut(&h) else {
            return;
        };
        let gone: Vec<String> = fs
            .iter()
            .filter(|f| ctx.r.feature(f).is_some_and(|x| x.engineer_removes))
            .cloned()
            .collect();
        if gone.is_empty() {
            return;
        }
        fs.retain(|f| !gone.contains(f));
        if fs.is_empty() {
            self.st.terrain.remove(&h);
        }
        let (side, kind) = (self.st.sides[u.side].clone(), u.kind.clone());
        for g in gone {
            let name = ctx.r.feature(&g).map_or(g.clone(), |x| x.name.clone());
            self.ev.push(Event::ObstacleRemoved {
                side: side.clone(),
                unit: kind.clone(),
                at: h,
                obstacle: name,
            });
        }
        self.obstacle_cost.insert(unit);
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn battle(
        &mut self,
        line: &Line,
        unit: u32,
        target: Hex,
        take_ground: bool,
        overrun: Option<Hex>,
        firefight: bool,
        charge: bool,
        auto_overrun: bool,
    ) {
        let ctx = self.ctx;
        let Some(att) = self.st.unit(unit).cloned() else {
            return;
        };
        // Kriegspiel: a camouflaged unit the side does not see is not on
        // its board; a shot at the wire, bridge or minefield of its hex is
        // a shot at those, and nothing of the unit is told.
        let hidden = |t: &Unit| {
            self.st.fog.is_some()
                && t.side != att.side
                && t.concealed
                && !crate::fog::sees(ctx.r, &self.st, att.side, t)
        };
        let Some(tgt) = self.st.unit_at(target).filter(|t| !hidden(t)).cloned() else {
            self.battle_ground(line, &att, target);
            return;
        };
        if tgt.side == att.side {
            self.skip(line, "the target hex now holds your own unit");
            return;
        }
        if let Err(e) = target_check(ctx, &self.st, &att, target) {
            self.skip(line, &e);
            return;
        }
        // Camouflage: "A Unit loses its concealment the moment it Battles,
        // is Battled by an enemy Unit, or Moves."
        for id in [unit, tgt.id] {
            if let Some(x) = self.st.unit_mut(id) {
                x.concealed = false;
            }
        }
        // From the nearer piece of a train to the nearer piece of a train
        // (as the order check and the dice reckon it).
        let range = crate::trains::range(&self.st, &att, target);
        if range == 1 && !self.reactions(unit, tgt.id, charge) {
            self.skip(
                line,
                "the attack is cancelled: the unit was forced back or eliminated",
            );
            return;
        }
        if self.st.unit(unit).is_none() {
            return;
        }
        if self.st.unit(tgt.id).is_none() {
            return;
        }
        let mut extra = if firefight {
            vec![]
        } else {
            self.card_extra(unit, range)
        };
        let mut rule = HitRule::default();
        let how = if firefight {
            extra.push(Modifier {
                dice: -1,
                reason: "Firefight (no orders)".into(),
            });
            rule.grenades_ignored = true;
            "firefight"
        } else if charge {
            "charge"
        } else if range == 1 {
            "close-assault"
        } else {
            "combat"
        };
        let Some(out) = self.fight(unit, tgt.id, how, extra, rule) else {
            return;
        };
        if range == 1 && !out.eliminated && !out.retreated && self.st.unit(unit).is_some() {
            let turn_no = self.st.turn + 1;
            if !self
                .st
                .engagements
                .iter()
                .any(|e| (e.a == unit && e.b == tgt.id) || (e.a == tgt.id && e.b == unit))
            {
                self.st.engagements.push(Engagement {
                    a: unit,
                    b: tgt.id,
                    since: turn_no,
                });
            }
        }
        let vacated = out.eliminated || out.retreated;
        if range != 1 || firefight || !vacated {
            return;
        }
        self.advance(line, unit, target, take_ground, overrun, auto_overrun);
    }

    /// A shot at a hex without a unit the side sees: artillery against
    /// barbed wire, a bridge or a minefield; anything else is skipped.
    fn battle_ground(&mut self, line: &Line, att: &Unit, target: Hex) {
        let ctx = self.ctx;
        let unit = att.id;
        // Artillery against barbed wire.
        let spec = ctx.spec(&att.kind);
        if spec.class == "artillery"
            && self
                .st
                .features(target)
                .iter()
                .any(|f| ctx.r.feature(f).is_some_and(|x| x.wire))
        {
            let range = att.at.distance(target);
            let base = spec
                .dice
                .get((range as usize).wrapping_sub(1))
                .copied()
                .unwrap_or(0);
            // Demoralisation: "reduce ... Battle Dice".
            let less = crate::disorder::battle_mods(&self.st, att.id);
            let n = total(base, less.as_slice());
            let mut faces = Vec::new();
            let mut hit = false;
            for _ in 0..n {
                let f = ctx.r.face(self.chance.dice.roll(6));
                hit |= f == "infantry" || f == "grenade";
                faces.push(f);
            }
            self.ev.push(Event::Battle {
                side: self.st.sides[self.side].clone(),
                attacker: att.kind.clone(),
                from: Some(att.at),
                target: "wire".into(),
                at: target,
                range,
                how: "wire".into(),
                base_dice: base,
                modifiers: less.into_iter().collect(),
                dice: n,
                faces,
                hits: u32::from(hit),
                flags: 0,
                ignored_flags: 0,
            });
            if hit {
                if let Some(fs) = self.st.terrain.get_mut(&target) {
                    fs.retain(|f| !ctx.r.feature(f).is_some_and(|x| x.wire));
                }
                self.ev.push(Event::WireRemoved {
                    at: target,
                    by: "artillery".into(),
                });
            }
        } else if ctx.r.bridge_demolition.bombard_units.contains(&att.kind)
            && crate::bridges::is_bridge(&self.st, target)
            && crate::bridges::charge(&self.st, target).is_none()
        {
            let range = att.at.distance(target);
            let base = spec
                .dice
                .get((range as usize).wrapping_sub(1))
                .copied()
                .unwrap_or(0);
            // Demoralisation: "reduce ... Battle Dice".
            let less = crate::disorder::battle_mods(&self.st, att.id);
            let n = total(base, less.as_slice());
            let mut faces = Vec::new();
            for _ in 0..n {
                faces.push(ctx.r.face(self.chance.dice.roll(6)));
            }
            crate::bridges::bombard(
                ctx.r,
                &mut self.st,
                &mut self.ev,
                att.side,
                att.at,
                target,
                faces,
                None,
            );
        } else if spec.class == "artillery" && crate::mines::at(&self.st, target).is_some() {
            crate::mines::artillery_clear(
                ctx,
                &mut self.st,
                &mut self.ev,
                &mut *self.chance.dice,
                unit,
                target,
            );
        } else {
            self.skip(
                line,
                &format!("there is no enemy unit at {target} any more"),
            );
        }
    }

    /// After a close assault that emptied the target's hex: Take Ground, the
    /// Armour Overrun (named, or The Big Push's own), and the overrun's
    /// battle.
    fn advance(
        &mut self,
        line: &Line,
        unit: u32,
        target: Hex,
        take_ground: bool,
        overrun: Option<Hex>,
        auto_overrun: bool,
    ) {
        let ctx = self.ctx;
        let overrun = match overrun {
            Some(h) => Some(Some(h)),
            None if auto_overrun => Some(None),
            None => None,
        };
        // Appendix 2: armour that takes ground onto a flooded field or a
        // marsh "may Take Ground but may not make an Armour Overrun".
        let overrun = if overrun.is_some() && !crate::tiles::overrun_allowed(ctx, &self.st, target)
        {
            if self.take_ground(unit, target, false) {
                self.skip(
                    line,
                    "an armour unit that takes ground onto this terrain may not overrun",
                );
            }
            return;
        } else {
            overrun
        };
        if let Some(named) = overrun {
            if self.overrun_used.contains(&unit) || !self.take_ground(unit, target, true) {
                return;
            }
            // North African Armour Overrun: "may Take Ground and may then
            // Move one additional hex. It can then Battle again."
            if let Cmd::Battle { via: Some(v), .. } = &line.cmd {
                if !self.desert_step(line, unit, *v) {
                    return;
                }
            }
            // The Big Push without a named target: the armour overruns the
            // weakest enemy unit it may battle from its new hex (fewest
            // figures, then the lowest unit id), if there is one.
            let next = match named {
                Some(h) => h,
                None => {
                    let Some(a2) = self.st.unit(unit).cloned() else {
                        return;
                    };
                    let mut foes: Vec<&Unit> = self
                        .st
                        .units
                        .iter()
                        .filter(|e| e.side != a2.side && e.at.distance(a2.at) == 1)
                        .filter(|e| target_check(ctx, &self.st, &a2, e.at).is_ok())
                        .collect();
                    foes.sort_by_key(|e| (e.figures, e.id));
                    match foes.first() {
                        Some(e) => e.at,
                        None => return,
                    }
                }
            };
            self.overrun_used.insert(unit);
            let Some(a2) = self.st.unit(unit).cloned() else {
                return;
            };
            if ctx
                .info(&self.st, a2.at)
                .any(|t| t.no_battle_after_entering)
                && !ctx.spec(&a2.kind).battle_after_stop
            {
                self.skip(
                    line,
                    "the overrun ends on terrain where a unit may not battle the turn it enters",
                );
                return;
            }
            // Kriegspiel: a unit the side does not see from its new hex (a
            // camouflaged one beyond close assault) is not on its board: the
            // overrun lapses as at an empty hex, naming nothing of it.
            let check = if self.st.fog.is_some() && !enemy_seen_at(ctx, &self.st, a2.side, next) {
                Err(format!("you see no enemy unit at {next}"))
            } else {
                target_check(ctx, &self.st, &a2, next)
            };
            if let Err(e) = check {
                self.skip(line, &format!("overrun: {e}"));
                return;
            }
            let Some(t2) = self.st.unit_at(next).cloned() else {
                return;
            };
            let r2 = a2.at.distance(next);
            if r2 == 1 && !self.reactions(unit, t2.id, false) {
                self.skip(line, "the overrun attack is cancelled");
                return;
            }
            // Close Assault's extra die goes with the close assault the card
            // orders, not with the Armour Overrun's second battle (docs/rules/
            // memoir44.md, "Close Assault and the overrun").
            let extra = if self
                .modes_extra
                .get(&unit)
                .is_some_and(|m| m.2 == super::CLOSE_ASSAULT)
            {
                vec![]
            } else {
                self.card_extra(unit, r2)
            };
            let Some(o2) = self.fight(unit, t2.id, "overrun", extra, HitRule::default()) else {
                return;
            };
            if take_ground && r2 == 1 && (o2.eliminated || o2.retreated) {
                self.take_ground(unit, next, false);
            }
        } else if take_ground {
            self.take_ground(unit, target, false);
        }
    }
}
