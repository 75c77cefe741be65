//! The card a turn plays, applied: the card, a discard or an exchange; the
//! dice that decide which orders stand; the cards drawn at the end.

use super::*;

impl Turn<'_, '_, '_> {
    /// Play the turn's action: its card(s), a discard or an exchange.
    pub(super) fn play(&mut self, plan: &Plan) {
        match &plan.action {
            Action::Card {
                played,
                effect,
                section,
            } if self
                .ctx
                .r
                .card(played)
                .is_some_and(|c| c.kind == "manoeuvre") =>
            {
                self.manoeuvre(plan, played, effect, *section);
            }
            Action::Card { .. } => self.cards(plan),
            Action::Horde => {}
            Action::Discard(card) => self.discard(card),
            Action::Exchange(cards) => self.exchange(cards),
        }
    }

    /// Army Manoeuvres: declared instead of a command card; the hand is
    /// untouched and nothing is drawn. Once per game.
    fn manoeuvre(
        &mut self,
        plan: &Plan,
        played: &String,
        effect: &String,
        section: Option<Section>,
    ) {
        self.ev.push(Event::CardPlayed {
            side: self.st.sides[self.side].clone(),
            card: played.clone(),
            section: section.map(|s| s.id().to_string()),
            as_card: (played != effect).then(|| effect.clone()),
        });
        if self.st.manoeuvres_used.len() < self.st.sides.len() {
            self.st
                .manoeuvres_used
                .resize(self.st.sides.len(), Vec::new());
        }
        self.st.manoeuvres_used[self.side].push(played.clone());
        // Not a command card, so a Counter-Attack cannot copy it.
        self.st.last_played[self.side] = None;
        for id in &plan.ordered {
            if let Some(u) = self.st.unit(*id) {
                self.ev.push(Event::UnitOrdered {
                    side: self.st.sides[self.side].clone(),
                    unit: u.kind.clone(),
                    at: u.at,
                });
            }
        }
    }

    /// The command card (Colonel Blimp: cards) played from the hand.
    fn cards(&mut self, plan: &Plan) {
        let Action::Card {
            played,
            effect,
            section,
        } = &plan.action
        else {
            return;
        };
        let mut all = vec![(played, effect, section)];
        for a in &plan.more {
            if let Action::Card {
                played,
                effect,
                section,
            } = a
            {
                all.push((played, effect, section));
            }
        }
        for (played, effect, section) in all {
            if let Some(p) = self.st.hands[self.side].iter().position(|c| c == played) {
                self.st.hands[self.side].remove(p);
            }
            self.ev.push(Event::CardPlayed {
                side: self.st.sides[self.side].clone(),
                card: played.clone(),
                section: section.map(|s| s.id().to_string()),
                as_card: (played != effect).then(|| effect.clone()),
            });
            let spec = self.ctx.r.card(effect);
            self.played
                .push((played.clone(), spec.is_some_and(|c| c.recon)));
            self.st.last_played[self.side] = Some(Played {
                card: effect.clone(),
                section: section.map(|s| s.id().to_string()),
            });
        }
        let spec = self.ctx.r.card(effect);
        self.finest = spec.and_then(|c| c.effect.as_deref()) == Some("their-finest-hour");
        if !matches!(plan.gate, Gate::FinestHour(_)) {
            for id in &plan.ordered {
                if let Some(u) = self.st.unit(*id) {
                    self.ev.push(Event::UnitOrdered {
                        side: self.st.sides[self.side].clone(),
                        unit: u.kind.clone(),
                        at: u.at,
                    });
                }
            }
        }
        if spec.and_then(|c| c.effect.as_deref()) == Some("dig-in") {
            for id in &plan.ordered {
                if let Some(h) = self.st.unit(*id).map(|u| u.at) {
                    self.st.terrain.entry(h).or_default().push("sandbag".into());
                    self.ev.push(Event::SandbagPlaced { at: h });
                }
            }
        }
    }

    fn discard(&mut self, card: &String) {
        if let Some(p) = self.st.hands[self.side].iter().position(|c| c == card) {
            let c = self.st.hands[self.side].remove(p);
            self.st.discard.push(c);
        }
        self.ev.push(Event::CardDiscarded {
            side: self.st.sides[self.side].clone(),
            card: card.clone(),
            private: true,
        });
        self.st.last_played[self.side] = None;
        if let Some(c) = self.draw(self.side) {
            self.st.hands[self.side].push(c);
        }
    }

    fn exchange(&mut self, cards: &Vec<String>) {
        let other = State::other(self.side);
        let mut shown = cards.clone();
        for c in cards {
            if let Some(p) = self.st.hands[self.side].iter().position(|x| x == c) {
                self.st.hands[self.side].remove(p);
            }
        }
        let mut taken = Vec::new();
        let swaps = self.st.standing[other].swaps.clone();
        for (take, give) in swaps {
            if let (Some(p), Some(q)) = (
                shown.iter().position(|x| *x == take),
                self.st.hands[other].iter().position(|x| *x == give),
            ) {
                let c = shown.remove(p);
                let g = self.st.hands[other].remove(q);
                self.st.hands[other].push(c.clone());
                self.st.hands[self.side].push(g.clone());
                taken.push((c, g));
            }
        }
        self.ev.push(Event::CardsExchanged {
            side: self.st.sides[self.side].clone(),
            shown: cards.clone(),
            taken,
        });
        self.st.discard.extend(shown);
        self.st.exchanged[self.side] = true;
        self.st.last_played[self.side] = None;
        while (self.st.hands[self.side].len() as u32) < self.st.hand_size[self.side] {
            match self.draw(self.side) {
                Some(c) => self.st.hands[self.side].push(c),
                None => break,
            }
        }
    }

    /// Dice that decide which orders stand (Medics & Mechanics, Their
    /// Finest Hour).
    pub(super) fn gate(&mut self, plan: &Plan) {
        match &plan.gate {
            Gate::Medics(id) => self.medics(*id),
            Gate::FinestHour(ids) => self.finest_hour(ids),
            Gate::None => {}
        }
    }

    fn medics(&mut self, id: u32) {
        let id = &id;
        if let Some(u) = self.st.unit(*id).cloned() {
            let sym = self.ctx.r.symbol(&self.ctx.spec(&u.kind).class).to_string();
            let mut faces = Vec::new();
            let mut n = 0;
            for _ in 0..self.hand_count {
                let f = self.ctx.r.face(self.chance.dice.roll(6));
                if f == "star" || (!sym.is_empty() && f == sym) {
                    n += 1;
                }
                faces.push(f);
            }
            let back = n.min(u.start - u.figures.min(u.start));
            if let Some(m) = self.st.unit_mut(*id) {
                m.figures += back;
            }
            self.ev.push(Event::FiguresReturned {
                side: self.st.sides[self.side].clone(),
                unit: u.kind.clone(),
                at: u.at,
                returned: back,
                now: u.figures + back,
                faces,
            });
            self.allowed = Some(if back > 0 {
                [*id].into_iter().collect()
            } else {
                BTreeSet::new()
            });
        }
    }

    fn finest_hour(&mut self, ids: &[u32]) {
        let mut faces = Vec::new();
        for _ in 0..self.hand_count {
            faces.push(self.ctx.r.face(self.chance.dice.roll(6)));
        }
        let mut pool = faces.clone();
        let mut ok = BTreeSet::new();
        let mut hexes = Vec::new();
        for id in ids {
            let Some(u) = self.st.unit(*id) else { continue };
            let sym = self.ctx.r.symbol(&self.ctx.spec(&u.kind).class).to_string();
            let pos = pool
                .iter()
                .position(|f| !sym.is_empty() && *f == sym)
                .or_else(|| pool.iter().position(|f| f == "star"));
            if let Some(p) = pos {
                pool.remove(p);
                ok.insert(*id);
                hexes.push(u.at);
            }
        }
        self.ev.push(Event::OrdersByDice {
            side: self.st.sides[self.side].clone(),
            faces,
            ordered: hexes,
        });
        self.allowed = Some(ok);
    }

    /// Draw: one card for each card played (Colonel Blimp: up to three).
    pub(super) fn draws(&mut self, plan: &Plan) {
        let any_played = !self.played.is_empty();
        for (c, recon) in std::mem::take(&mut self.played) {
            self.st.discard.push(c);
            if self.finest {
                let mut all = std::mem::take(&mut self.st.discard);
                all.append(&mut self.st.deck);
                shuffle(&mut all, &mut *self.chance.deck);
                self.ev.push(Event::DeckReshuffled { cards: all.len() });
                self.st.deck = all;
            }
            if recon {
                let mut drawn = Vec::new();
                for _ in 0..self.ctx.r.options.recon_draw.max(1) {
                    if let Some(c) = self.draw(self.side) {
                        drawn.push(c);
                    }
                }
                let keep_i = plan
                    .keep
                    .iter()
                    .find_map(|k| drawn.iter().position(|d| d == k))
                    .unwrap_or(0);
                for (i, c) in drawn.into_iter().enumerate() {
                    if i == keep_i {
                        self.st.hands[self.side].push(c);
                    } else {
                        self.ev.push(Event::CardDiscarded {
                            side: self.st.sides[self.side].clone(),
                            card: c.clone(),
                            private: false,
                        });
                        self.st.discard.push(c);
                    }
                }
            } else if let Some(c) = self.draw(self.side) {
                self.st.hands[self.side].push(c);
            }
        }
        if any_played {
            // A hand cut short before a campaign battle draws two a turn until
            // it holds the briefing's number again (the house rules, Appendix 3).
            if self.st.short_hand.get(self.side).copied().unwrap_or(false) {
                if (self.st.hands[self.side].len() as u32) < self.st.hand_size[self.side] {
                    if let Some(c) = self.draw(self.side) {
                        self.st.hands[self.side].push(c);
                    }
                }
                if (self.st.hands[self.side].len() as u32) >= self.st.hand_size[self.side] {
                    self.st.short_hand[self.side] = false;
                }
            }
        }
    }
}
