use super::*;

impl Walk<'_, '_> {
    pub(super) fn target(&mut self, l: &Line, hexes: &[Hex]) -> Result<(), Rejection> {
        let (ctx, side, action) = (self.ctx, self.side, self.action);
        let Walk {
            sc,
            steps,
            targeted,
            effect,
            ..
        } = self;
        if *targeted {
            return Err(l.reject("only one TARGET line"));
        }
        *targeted = true;
        match effect.as_str() {
            "air-power" => {
                let set: BTreeSet<Hex> = hexes.iter().copied().collect();
                if set.len() != hexes.len() || hexes.len() > 4 {
                    return Err(l.reject("Air Power targets up to 4 different hexes"));
                }
                for h in hexes {
                    // Bridge Demolition, Option 3: a bridge not
                    // rigged, with no unit on it, may be a target.
                    if !enemy_seen_at(ctx, sc, side, *h) && !crate::bridges::card_target(sc, *h) {
                        return Err(l.reject(if sc.fog.is_some() {
                            format!("Air Power targets enemy units; you see none at {h}")
                        } else {
                            format!("Air Power targets enemy units; there is none at {h}")
                        }));
                    }
                }
                // The group must be connected.
                let mut reach = BTreeSet::new();
                let mut todo = vec![hexes[0]];
                while let Some(h) = todo.pop() {
                    if reach.insert(h) {
                        todo.extend(h.neighbours().into_iter().filter(|n| set.contains(n)));
                    }
                }
                if reach.len() != set.len() {
                    return Err(l.reject(
                        "Air Power targets a group of units on hexes adjacent to each other",
                    ));
                }
                crate::blitzkrieg::check_targets(ctx, side, action, hexes)
                    .map_err(|m| l.reject(m))?;
            }
            "barrage" => {
                if hexes.len() != 1
                    || (!enemy_seen_at(ctx, sc, side, hexes[0])
                        && !crate::bridges::card_target(sc, hexes[0]))
                {
                    return Err(l.reject("Barrage targets one enemy unit: TARGET <hex>"));
                }
            }
            _ => return Err(l.reject("TARGET is only for Air Power and Barrage")),
        }
        steps.push(Step::Target {
            line: l.clone(),
            hexes: hexes.to_vec(),
        });
        Ok(())
    }
}
