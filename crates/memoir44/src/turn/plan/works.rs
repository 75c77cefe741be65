use super::*;
use crate::turn::cards::bridge_card;

impl Walk<'_, '_> {
    pub(super) fn remove_wire(&mut self, l: &Line, at: Hex) -> Result<(), Rejection> {
        let (ctx, side) = (self.ctx, self.side);
        let Walk {
            sc,
            modes,
            track,
            steps,
            ..
        } = self;
        let Some(u) = sc
            .unit_at(at)
            .filter(|u| u.side == side || sc.fog.is_none())
            .cloned()
        else {
            // Kriegspiel: an enemy hex answers as an empty one.
            return Err(l.reject(no_unit(sc, at)));
        };
        let Some(m) = modes.get(&u.id).cloned().filter(|_| u.side == side) else {
            return Err(l.reject(format!("the unit at {at} is not one of your ordered units")));
        };
        if class_of(ctx, &u) != "infantry"
            || !sc
                .features(at)
                .iter()
                .any(|f| ctx.r.feature(f).is_some_and(|x| x.wire))
        {
            return Err(l.reject("only an infantry unit on a barbed-wire hex may remove the wire"));
        }
        let t = track.entry(u.id).or_default();
        if t.battles > 0 || m.nothing || t.moved.is_some_and(|d| d > m.move_battle) || t.barred {
            return Err(
                l.reject("removing wire takes the unit's battle, and it may not battle this turn")
            );
        }
        t.wire = true;
        t.battles = m.battles;
        steps.push(Step::RemoveWire {
            line: l.clone(),
            unit: u.id,
        });
        Ok(())
    }

    pub(super) fn recover(&mut self, l: &Line, at: Hex) -> Result<(), Rejection> {
        let (ctx, side) = (self.ctx, self.side);
        let Walk {
            sc,
            modes,
            track,
            steps,
            ..
        } = self;
        let (u, _) = ordered_unit(sc, modes, side, at, l)?;
        if let Some(why) = crate::landmarks::recover_refusal(ctx, sc, &u) {
            return Err(l.reject(why));
        }
        let t = track.entry(u.id).or_default();
        if t.moved.is_some() || t.battles > 0 || t.recovered {
            return Err(l.reject(
                    "RECOVER comes before the unit moves or battles, once a turn: the unit in the oasis rolls first",
                ));
        }
        t.recovered = true;
        steps.push(Step::Recover {
            line: l.clone(),
            unit: u.id,
        });
        Ok(())
    }

    pub(super) fn sabotage(&mut self, l: &Line, at: Hex) -> Result<(), Rejection> {
        let side = self.side;
        let Walk {
            sc,
            modes,
            track,
            steps,
            ..
        } = self;
        let (u, m) = ordered_unit(sc, modes, side, at, l)?;
        if !crate::stars::sabotage_at(sc, side, at) {
            return Err(l.reject(format!(
                "there is no objective of the scenario's Sabotage rule for your side at {at}"
            )));
        }
        let t = track.entry(u.id).or_default();
        if t.battles > 0 || m.nothing || t.moved.is_some_and(|d| d > m.move_battle) || t.barred {
            return Err(l.reject(
                    "sabotage is rolled with the unit's close assault dice: it takes the unit's battle, and the unit may not battle this turn",
                ));
        }
        t.battles = m.battles;
        steps.push(Step::Sabotage {
            line: l.clone(),
            unit: u.id,
        });
        Ok(())
    }

    pub(super) fn charge(&mut self, l: &Line, at: Hex, bridge: Hex) -> Result<(), Rejection> {
        let (ctx, side, action) = (self.ctx, self.side, self.action);
        let Walk {
            sc,
            modes,
            track,
            steps,
            ..
        } = self;
        let (u, m) = ordered_unit(sc, modes, side, at, l)?;
        if !ctx.spec(&u.kind).engineer {
            return Err(
                l.reject("only an Engineer Unit at one end of a bridge may place charges on it")
            );
        }
        if !crate::bridges::is_bridge(sc, bridge) {
            return Err(l.reject(format!("there is no bridge at {bridge}")));
        }
        if !u.at.adjacent(bridge) {
            return Err(l.reject(format!(
                    "only an Engineer Unit at one end of a bridge may place charges: {at} is not next to {bridge}"
                )));
        }
        bridge_card(ctx, action, side, bridge, l)?;
        whole_action(track, &u, &m, l, "placing charges on a bridge")?;
        crate::bridges::place(sc, &mut Vec::new(), side, u.at, bridge);
        steps.push(Step::Charge {
            line: l.clone(),
            unit: u.id,
            bridge,
        });
        Ok(())
    }

    pub(super) fn pontoon(&mut self, l: &Line, at: Hex, river: Hex) -> Result<(), Rejection> {
        let (ctx, side, action) = (self.ctx, self.side, self.action);
        let Walk {
            sc,
            modes,
            track,
            steps,
            ..
        } = self;
        let (u, m) = ordered_unit(sc, modes, side, at, l)?;
        let why = crate::bridges::pontoon_check(ctx, sc, action, side, &u, river);
        why.map_err(|m| l.reject(m))?;
        bridge_card(ctx, action, side, river, l)?;
        whole_action(track, &u, &m, l, "placing a Pontoon Bridge")?;
        crate::bridges::build_pontoon(sc, &mut Vec::new(), side, u.at, river);
        steps.push(Step::Pontoon {
            line: l.clone(),
            unit: u.id,
            river,
        });
        Ok(())
    }

    pub(super) fn detonate(&mut self, l: &Line, bridge: Hex) -> Result<(), Rejection> {
        let (ctx, side, action) = (self.ctx, self.side, self.action);
        let Walk {
            sc,
            steps,
            detonated,
            ids,
            ..
        } = self;
        if crate::bridges::charge(sc, bridge).is_none_or(|c| c.side != side) {
            return Err(l.reject(format!(
                "the bridge at {bridge} is not rigged for detonation by your side"
            )));
        }
        bridge_card(ctx, action, side, bridge, l)?;
        if !detonated.insert(bridge) {
            return Err(l.reject(
                "a bridge may be detonated only once per turn (further rolls on later turns)",
            ));
        }
        if sc.unit_at(bridge).is_some() {
            return Err(l.reject(format!(
                "the bridge at {bridge} holds a unit: it is not blown with troops on it"
            )));
        }
        // "Detonation of a Bridge is the same as ordering a Unit."
        if let Action::Card { effect, .. } = &action {
            let limit = ctx.r.card(effect).map_or(0, |c| {
                c.orders
                    .values()
                    .fold(0usize, |a, n| a.saturating_add(n.limit()))
            });
            if ids.len() + detonated.len() > limit {
                return Err(l.reject(format!(
                        "this card orders at most {limit} units, and a detonation counts as ordering one"
                    )));
            }
        }
        steps.push(Step::Detonate {
            line: l.clone(),
            bridge,
        });
        Ok(())
    }

    pub(super) fn land(&mut self, l: &Line, at: Hex) -> Result<(), Rejection> {
        let (ctx, side) = (self.ctx, self.side);
        let Walk {
            sc, steps, effect, ..
        } = self;
        // Appendix 2, Airfield (landmarks.rs): one unit per card.
        if steps.iter().any(|s| matches!(s, Step::Land { .. })) {
            return Err(l.reject("one Infantry Unit lands per Direct From HQ card"));
        }
        crate::landmarks::land(ctx, sc, side, at, effect).map_err(|e| l.reject(e))?;
        steps.push(Step::Land {
            line: l.clone(),
            at,
        });
        Ok(())
    }

    pub(super) fn unload(
        &mut self,
        l: &Line,
        train: Hex,
        to: Hex,
        kind: Option<&str>,
    ) -> Result<(), Rejection> {
        let (ctx, side) = (self.ctx, self.side);
        let Walk {
            sc, modes, steps, ..
        } = self;
        // Appendix 2, Trains (trains.rs): the train is one of the
        // ordered units; the unit may not move this turn.
        let tid = sc.unit_at(train).map(|u| u.id);
        let ordered = tid.is_some_and(|id| modes.contains_key(&id));
        let (id, _) = crate::trains::unload(ctx, sc, side, train, to, kind, ordered)
            .map_err(|e| l.reject(e))?;
        if let Some(u) = sc.unit(id) {
            let mut m = default_mode(ctx, u);
            m.max_move = 0;
            modes.insert(id, m);
        }
        steps.push(Step::Unload {
            line: l.clone(),
            unit: tid.unwrap_or_default(),
            to,
            kind: kind.map(str::to_string),
        });
        Ok(())
    }

    pub(super) fn exit(&mut self, l: &Line, at: Hex) -> Result<(), Rejection> {
        let (ctx, side) = (self.ctx, self.side);
        let Walk {
            sc,
            modes,
            track,
            steps,
            ..
        } = self;
        // "Achtung! Zombie!": the Living retreat off the board.
        let id = sc.unit_at(at).map(|u| u.id);
        let acted = id.is_some_and(|i| {
            track
                .get(&i)
                .is_some_and(|t| t.moved.is_some() || t.battles > 0)
        });
        let ordered = id.is_some_and(|i| modes.contains_key(&i));
        let step = crate::variants::zombies::exit_step(ctx, sc, side, l, at, ordered, acted)?;
        steps.push(step);
        Ok(())
    }

    pub(super) fn exterminate(&mut self, l: &Line, at: Hex) -> Result<(), Rejection> {
        let (ctx, side) = (self.ctx, self.side);
        let Walk {
            sc,
            modes,
            track,
            steps,
            ..
        } = self;
        // "EX-TER-MIN-ATE!": "This takes the Unit a whole turn".
        let (u, m) = ordered_unit(sc, modes, side, at, l)?;
        crate::variants::exterminate::check(ctx, sc, &u).map_err(|e| l.reject(e))?;
        let t = track.entry(u.id).or_default();
        if t.moved.is_some()
            || t.battles > 0
            || t.clearing
            || t.charging
            || t.exterminating
            || m.nothing
        {
            return Err(l.reject(EXTERMINATING));
        }
        t.exterminating = true;
        steps.push(Step::Exterminate {
            line: l.clone(),
            unit: u.id,
        });
        Ok(())
    }
}
