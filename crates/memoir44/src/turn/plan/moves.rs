use super::*;

impl Walk<'_, '_> {
    pub(super) fn move_unit(&mut self, l: &Line, path: &[Hex]) -> Result<(), Rejection> {
        let (ctx, side, action) = (self.ctx, self.side, self.action);
        let Walk {
            sc,
            modes,
            base_modes,
            track,
            steps,
            battled,
            stopped,
            mine_tries,
            ..
        } = self;
        if matches!(action, Action::Exchange(_)) {
            return Err(l.reject("an EXCHANGE is the whole turn"));
        }
        let Some(u) = sc.unit_at(path[0]).cloned() else {
            return Err(l.reject(no_unit(sc, path[0])));
        };
        if u.side != side {
            return Err(l.reject(not_yours(sc, path[0])));
        }
        let Some(m) = modes.get(&u.id).cloned() else {
            return Err(l.reject(format!("the unit at {} was not ordered", path[0])));
        };
        let m = match base_modes.get(&u.id).filter(|_| sc.weather.is_some()) {
            Some(b) => {
                let w = hooks::mode(ctx, sc, &u, b.clone(), Some(path));
                modes.insert(u.id, w.clone());
                w
            }
            None => m,
        };
        if m.nothing {
            return Err(l.reject("a unit that digs in does nothing else this turn"));
        }
        let t = track.entry(u.id).or_default().clone();
        let second = m.second_move && t.battles > 0 && !t.second_moved;
        if t.moved.is_some() && !second {
            return Err(l.reject("a unit moves only once per turn"));
        }
        if *battled && !second {
            return Err(l.reject("all movement comes before the first battle"));
        }
        let max = if second {
            // Behind Enemy Lines' second move, slowed by the weather.
            let b = Mode {
                max_move: 3,
                ..m.clone()
            };
            crate::weather::mode(ctx, sc, &u, &b, Some(path)).max_move
        } else {
            m.max_move
        };
        if t.charging {
            return Err(l.reject(
                    "placing charges on a bridge or a Pontoon Bridge is the engineers' entire action: they may not move or battle",
                ));
        }
        if t.exterminating {
            return Err(l.reject(EXTERMINATING));
        }
        if let Some(why) = engineer_stuck(ctx, sc, &u) {
            if path.len() > 1 && t.moved.is_none() {
                return Err(l.reject(why));
            }
        }
        // Kriegspiel: the move stops short of an enemy unit it did
        // not see, or where it comes next to a camouflaged one.
        let (path, contact) = crate::fog::fog_path(ctx.r, sc, side, path);
        manoeuvre_path(l, side, &m, &path)?;
        let (dist, barred) = if path.len() < 2 {
            (0, false)
        } else {
            let info = check_path(
                ctx,
                sc,
                &u,
                &path,
                MoveRule {
                    max,
                    ignore_terrain: m.ignore_terrain,
                },
            )
            .map_err(|e| l.reject(e))?;
            (info.dist, info.barred_from_battle)
        };
        if let Some(x) = sc.unit_mut(u.id) {
            x.at = *path.last().unwrap_or(&u.at);
        }
        crate::trains::moved(ctx, sc, &u, &path);
        if contact.is_some() {
            if let Some(end) = l_path_end(&l.cmd) {
                stopped.insert(end, u.id);
            }
        }
        let t = track.entry(u.id).or_default();
        if second {
            t.second_moved = true;
        } else {
            t.moved = Some(dist);
            t.barred = barred;
        }
        // Combat Engineers: "Must clear a Minefield hex instead of
        // Battling on the same turn that it moves onto the hex,
        // provided that it is eligible to Battle."
        let end = *path.last().unwrap_or(&u.at);
        if path.len() > 1
            && crate::mines::enemy_at(sc, end, side)
            && engineer_clears(ctx, &u, &m, dist, barred)
        {
            t.clearing = true;
            mine_tries.insert(end);
        }
        steps.push(Step::Move {
            line: l.clone(),
            unit: u.id,
            path,
            contact,
        });
        Ok(())
    }
}
