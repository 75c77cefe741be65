use super::*;
use crate::battle::{lose, resolve_flags, roll, unit_moved, HitRule};

impl Turn<'_, '_, '_> {
    pub(super) fn apply_move(&mut self, plan: &Plan, step: &Step) {
        let Step::Move {
            line,
            unit,
            path,
            contact,
        } = step
        else {
            return;
        };
        let Some(u) = self.st.unit(*unit).cloned() else {
            return;
        };
        if path.len() < 2 {
            // Stopped before its first step (Kriegspiel).
            self.ev.extend(contact.iter().cloned());
            return;
        }
        let m = plan
            .modes
            .get(unit)
            .cloned()
            .unwrap_or_else(|| default_mode(self.ctx, &u));
        let max = if path.first() == Some(&u.at) && m.second_move {
            m.max_move.max(3)
        } else {
            m.max_move
        };
        let info = match check_path(
            self.ctx,
            &self.st,
            &u,
            path,
            MoveRule {
                max,
                ignore_terrain: m.ignore_terrain,
            },
        ) {
            Ok(i) => i,
            Err(e) => {
                self.skip(line, &e);
                return;
            }
        };
        let dest = *path.last().unwrap_or(&u.at);
        if let Some(x) = self.st.unit_mut(*unit) {
            x.at = dest;
        }
        crate::trains::moved(self.ctx, &mut self.st, &u, path);
        unit_moved(&mut self.st, *unit);
        self.ev.push(Event::Move {
            side: self.st.sides[self.side].clone(),
            unit: u.kind.clone(),
            path: path.clone(),
        });
        self.ev.extend(contact.iter().cloned());
        self.wire_on_entry(*unit, dest);
        self.engineer_removes(*unit, dest);
        let e = crate::victory::update_objectives(&mut self.st);
        self.ev.extend(e);
        // The ground entered: a frozen river tests the ice, a minefield
        // (turn/hooks.rs).
        let clearing = engineer_clears(self.ctx, &u, &m, info.dist, info.barred_from_battle);
        let entered = hooks::Entered {
            unit: *unit,
            path: path.get(1..).unwrap_or(&[]),
            dest,
            clearing,
        };
        hooks::entered(&mut self.play_at(), &entered);
    }

    pub(super) fn land(&mut self, plan: &Plan, step: &Step) {
        let Step::Land { line, at } = step else {
            return;
        };
        let effect = match &plan.action {
            Action::Card { effect, .. } => effect.clone(),
            _ => String::new(),
        };
        match crate::landmarks::land(self.ctx, &mut self.st, self.side, *at, &effect) {
            Ok((_, e)) => self.ev.push(e),
            Err(e) => self.skip(line, &e),
        }
    }

    pub(super) fn unload(&mut self, step: &Step) {
        let Step::Unload {
            line,
            unit,
            to,
            kind,
        } = step
        else {
            return;
        };
        let Some(h) = self.st.unit(*unit).map(|u| u.at) else {
            return;
        };
        match crate::trains::unload(
            self.ctx,
            &mut self.st,
            self.side,
            h,
            *to,
            kind.as_deref(),
            true,
        ) {
            Ok((_, e)) => {
                self.ev.push(e);
                let e = crate::victory::update_objectives(&mut self.st);
                self.ev.extend(e);
            }
            Err(e) => self.skip(line, &e),
        }
    }

    pub(super) fn detonate(&mut self, step: &Step) {
        let Step::Detonate { line, bridge } = step else {
            return;
        };
        if self.st.unit_at(*bridge).is_some() {
            self.skip(line, "the bridge holds a unit");
        } else if crate::bridges::charge(&self.st, *bridge).is_some_and(|c| c.side == self.side) {
            crate::bridges::detonate(
                self.ctx.r,
                &mut self.st,
                &mut self.ev,
                &mut *self.chance.dice,
                self.side,
                *bridge,
            );
        } else {
            self.skip(line, "the charges are no longer on the bridge");
        }
    }

    pub(super) fn recover(&mut self, step: &Step) {
        let Step::Recover { line, unit } = step else {
            return;
        };
        let refusal = self
            .st
            .unit(*unit)
            .and_then(|u| crate::landmarks::recover_refusal(self.ctx, &self.st, u));
        if let Some(why) = refusal {
            self.skip(line, &why);
            self.stalled.insert(*unit);
        } else if !crate::landmarks::recover(
            self.ctx,
            &mut self.st,
            &mut self.ev,
            &mut *self.chance.dice,
            *unit,
            self.hand_count,
        ) {
            self.stalled.insert(*unit);
        }
    }

    pub(super) fn sabotage(&mut self, step: &Step) {
        let Step::Sabotage { line, unit } = step else {
            return;
        };
        // The unit may have been pushed off the objective since the
        // orders were checked (a minefield's retreat).
        if self
            .st
            .unit(*unit)
            .is_some_and(|u| crate::stars::sabotage_at(&self.st, u.side, u.at))
        {
            crate::stars::sabotage(
                self.ctx,
                &mut self.st,
                &mut self.ev,
                &mut *self.chance.dice,
                *unit,
            );
        } else {
            self.skip(line, "the unit is no longer on its objective");
        }
    }

    pub(super) fn remove_wire(&mut self, step: &Step) {
        let Step::RemoveWire { unit, .. } = step else {
            return;
        };
        if let Some(h) = self.st.unit(*unit).map(|u| u.at) {
            if let Some(fs) = self.st.terrain.get_mut(&h) {
                fs.retain(|f| !self.ctx.r.feature(f).is_some_and(|x| x.wire));
            }
            self.ev.push(Event::WireRemoved {
                at: h,
                by: "infantry".into(),
            });
        }
    }

    pub(super) fn target(&mut self, plan: &Plan, step: &Step) {
        let Step::Target { hexes, .. } = step else {
            return;
        };
        let air = matches!(&plan.action, Action::Card { effect, .. } if effect == "air-power");
        let (how, per) = if air {
            (
                "air-power",
                crate::blitzkrieg::air_dice(self.ctx, &plan.action)
                    .unwrap_or(self.st.air_power_dice[self.side]),
            )
        } else {
            ("barrage", 4)
        };
        for h in hexes {
            let Some(tgt) = self.st.unit_at(*h).cloned() else {
                // Bridge Demolition, Option 3: "four Black Tank
                // Hits from ... Barrage, and/or Air Power".
                if crate::bridges::card_target(&self.st, *h) {
                    let faces = (0..per)
                        .map(|_| self.ctx.r.face(self.chance.dice.roll(6)))
                        .collect();
                    crate::bridges::bombard(
                        self.ctx.r,
                        &mut self.st,
                        &mut self.ev,
                        self.side,
                        *h,
                        *h,
                        faces,
                        Some(how),
                    );
                }
                continue;
            };
            if tgt.side == self.side {
                continue;
            }
            let tspec = self.ctx.spec(&tgt.kind);
            let rule = HitRule {
                stars_hit: air,
                grenades_ignored: false,
                flags_unignorable: true,
            };
            let (faces, hits, flags) =
                roll(self.ctx, &mut *self.chance.dice, per, None, tspec, rule);
            self.ev.push(Event::Battle {
                side: self.st.sides[self.side].clone(),
                attacker: how.into(),
                from: None,
                target: tgt.kind.clone(),
                at: *h,
                range: 0,
                how: how.into(),
                base_dice: per,
                modifiers: vec![],
                dice: per,
                faces,
                hits,
                flags,
                ignored_flags: 0,
            });
            let mut gone = false;
            if hits > 0 {
                gone = lose(
                    self.ctx,
                    &mut self.st,
                    &mut self.ev,
                    tgt.id,
                    hits,
                    self.side,
                    "hits",
                    how,
                );
            }
            if !gone && flags > 0 {
                resolve_flags(
                    self.ctx,
                    &mut self.st,
                    &mut self.ev,
                    tgt.id,
                    flags,
                    self.side,
                    rule,
                );
            }
        }
    }

    pub(super) fn battle_step(&mut self, step: &Step) {
        let Step::Battle {
            line,
            unit,
            target,
            take_ground,
            overrun,
            firefight,
            charge,
            auto_overrun,
        } = step
        else {
            return;
        };
        let removed = self.st.figures_removed.get(self.side).copied().unwrap_or(0);
        // The range the battle is fought at (as `battle` reckons it).
        let range = self
            .st
            .unit(*unit)
            .map_or(0, |u| crate::trains::range(&self.st, u, *target));
        self.battle(
            line,
            *unit,
            *target,
            *take_ground,
            *overrun,
            *firefight,
            *charge,
            *auto_overrun,
        );
        let fought = hooks::Fought {
            side: self.side,
            unit: *unit,
            target: *target,
            range,
            removed,
        };
        hooks::after_battle(&mut self.play_at(), &fought);
    }
}
