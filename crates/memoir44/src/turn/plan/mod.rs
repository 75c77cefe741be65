//! Checking a turn's orders against the position, before any die is
//! rolled: the card played and the units it orders (this file, and
//! cards.rs), then each step line walked on a scratch position, one method
//! per command: moves.rs (MOVE), battles.rs (BATTLE), targets.rs (TARGET),
//! works.rs (the engineers' and the variants' other orders).

use super::cards::{big_push_check, blimp_orders, card_orders, play_action};
use super::*;

mod battles;
mod moves;
mod targets;
mod works;

/// Check a whole orders text against the position.
pub fn plan(ctx: &Ctx<'_>, st: &State, side: usize, lines: &[Line]) -> Result<Plan, Rejection> {
    // Political Commissar (commissar.rs): the card under the marker is
    // played from there; COMMISSAR puts the next one under it.
    let (st, lines, commissar) = crate::commissar::prepare(ctx, st, side, lines)?;
    let (truth, lines) = (st.as_ref(), lines.as_slice());
    // Kriegspiel: every check the side can observe is made on the position
    // as it knows it (fog::knowledge); the truth is walked after it, line by
    // line, for what really happens (docs/rules/kriegspiel.md).
    let known = truth
        .fog
        .as_ref()
        .map(|_| crate::fog::knowledge(ctx.r, truth, side));
    let st = known.as_ref().unwrap_or(truth);
    let standing = standing_of(st, side, lines)?;
    let keep: Vec<String> = lines
        .iter()
        .filter_map(|l| match &l.cmd {
            Cmd::Keep { cards } => Some(cards.iter().cloned()),
            _ => None,
        })
        .flatten()
        .collect();
    let rest: Vec<&Line> = lines
        .iter()
        .filter(|l| !matches!(l.cmd, Cmd::Standing(_) | Cmd::Keep { .. }))
        .collect();
    // "Achtung! Zombie!": the Dead Player plays no card (variants/zombies.rs).
    let horde = crate::variants::zombies::is_dead(st, side);
    let horde_line = Line {
        no: 0,
        text: "(the Dead Player's turn)".into(),
        cmd: Cmd::OrderAll,
    };
    let hand = st.hands.get(side).cloned().unwrap_or_default();
    let (first, after, action): (&Line, &[&Line], Action) = if horde {
        crate::variants::zombies::check_dead_lines(&rest)?;
        (&horde_line, &rest[..], Action::Horde)
    } else {
        let Some((first, after)) = rest.split_first() else {
            return Err(Rejection::whole(
                "no card played: a turn starts with PLAY <card> (or DISCARD / EXCHANGE)",
            ));
        };
        let action = first_action(ctx, st, side, first, after, &hand)?;
        (*first, after, action)
    };
    // Blitzkrieg Air Attack: a Recon card with a TARGET line is Air Power.
    let action = crate::blitzkrieg::air_attack(ctx, st, side, first, action, after)?;
    let head = sort_lines(ctx, st, side, first, after, &action, &hand)?;
    let (ids, modes, effect, gate) = card_modes(ctx, st, side, first, &action, &head)?;
    // The optional rules' say on each ordered unit (turn/hooks.rs): Night &
    // Severe Weather, Blitzkrieg, Supply Lines, ...
    let base_modes = modes.clone();
    let modes = modes
        .into_iter()
        .map(|(id, m)| match st.unit(id) {
            Some(u) => (id, hooks::mode(ctx, st, u, m, None)),
            None => (id, m),
        })
        .collect();
    let mut w = Walk {
        ctx,
        side,
        action: &action,
        effect,
        ids: &ids,
        sc: st.clone(),
        modes,
        base_modes,
        track: BTreeMap::new(),
        steps: Vec::new(),
        battled: false,
        targeted: false,
        discard_battler: None,
        stopped: BTreeMap::new(),
        mine_tries: BTreeSet::new(),
        detonated: BTreeSet::new(),
        turn_no: st.turn + 1,
        blind: known.as_ref(),
    };
    // The truth's walk (under fog only): the same lines on the real
    // position, each modes as the optional rules set them there.
    let mut tw = known.as_ref().map(|_| Walk {
        sc: truth.clone(),
        modes: w
            .base_modes
            .iter()
            .map(|(id, m)| match truth.unit(*id) {
                Some(u) => (*id, hooks::mode(ctx, truth, u, m.clone(), None)),
                None => (*id, m.clone()),
            })
            .collect(),
        ..w.fresh()
    });
    for l in &head.steps {
        w.step(l)?;
        if let Some(tw) = tw.as_mut() {
            tw.step_or_lapse(l);
        }
    }
    if horde {
        crate::variants::zombies::finish_plan(ctx, st, &w.sc, side, &mut w.steps)?;
        if let Some(tw) = tw.as_mut() {
            let _ = crate::variants::zombies::finish_plan(ctx, truth, &tw.sc, side, &mut tw.steps);
        }
    }
    if matches!(w.effect.as_str(), "air-power" | "barrage") && !w.targeted {
        return Err(first.reject("this card needs its targets: TARGET <hex> ..."));
    }
    if w.effect == "big-push" {
        big_push_check(ctx, &w.sc, side, first, &w.modes, &w.track)?;
    }
    let Walk { modes, steps, .. } = tw.unwrap_or(w);
    Ok(Plan {
        side,
        action,
        more: head.more.into_iter().map(|(_, a)| a).collect(),
        ordered: ids,
        modes,
        steps,
        keep,
        standing,
        gate,
        commissar,
    })
}

/// The side's standing orders, if the text has STANDING lines.
fn standing_of(st: &State, side: usize, lines: &[Line]) -> Result<Option<Standing>, Rejection> {
    let standing_lines: Vec<Line> = lines
        .iter()
        .filter(|l| matches!(l.cmd, Cmd::Standing(_)))
        .cloned()
        .collect();
    if standing_lines.is_empty() {
        return Ok(None);
    }
    standing_from(st, side, &standing_lines, Standing::default()).map(Some)
}

/// What the turn's first line does: PLAY, DISCARD or EXCHANGE.
fn first_action(
    ctx: &Ctx<'_>,
    st: &State,
    side: usize,
    first: &Line,
    after: &[&Line],
    hand: &[String],
) -> Result<Action, Rejection> {
    let in_hand = |c: &str| hand.iter().any(|h| h == c);
    Ok(match &first.cmd {
        Cmd::Play { card, section } => play_action(ctx, st, side, first, card, section, hand)?,
        Cmd::Discard { card } => {
            if !in_hand(card) {
                return Err(first.reject(format!("{card} is not in your hand")));
            }
            Action::Discard(card.clone())
        }
        Cmd::Exchange { cards } => {
            if st.exchanged.get(side).copied().unwrap_or(true) {
                return Err(first.reject("Method 1 exchanges may be used only once per game"));
            }
            let mut h = hand.to_vec();
            for c in cards {
                match h.iter().position(|x| x == c) {
                    Some(p) => {
                        h.remove(p);
                    }
                    None => return Err(first.reject(format!("{c} is not in your hand"))),
                }
            }
            if let Some(l) = after.first() {
                return Err(l.reject("an EXCHANGE (Method 1) is the whole turn: no other orders"));
            }
            Action::Exchange(cards.clone())
        }
        _ => return Err(first.reject("a turn starts with PLAY <card> (or DISCARD / EXCHANGE)")),
    })
}

/// The lines after the first, sorted: the units ORDERed, Colonel Blimp's
/// further cards, and the steps (MOVE, BATTLE, ...) in their order.
struct Head<'l> {
    ordered: Vec<(u32, Line)>,
    all: bool,
    steps: Vec<&'l Line>,
    more: Vec<(Line, Action)>,
}

fn sort_lines<'l>(
    ctx: &Ctx<'_>,
    st: &State,
    side: usize,
    first: &Line,
    after: &[&'l Line],
    action: &Action,
    hand: &[String],
) -> Result<Head<'l>, Rejection> {
    let mut h = Head {
        ordered: Vec::new(),
        all: false,
        steps: Vec::new(),
        more: Vec::new(),
    };
    // Colonel Blimp: further PLAY lines, before the first MOVE or BATTLE.
    let blimp = st.plays(BLIMP) && matches!(action, Action::Card { .. });
    for l in after {
        let seen_step = !h.steps.is_empty();
        match &l.cmd {
            Cmd::Play { card, section } if blimp && !seen_step => {
                let mut left = hand.to_vec();
                let mut taken: Vec<&Line> = vec![first];
                taken.extend(h.more.iter().map(|(x, _)| x));
                for t in taken {
                    if let Cmd::Play { card: c, .. } = &t.cmd {
                        if let Some(p) = left.iter().position(|x| x == c) {
                            left.remove(p);
                        }
                    }
                }
                let a = play_action(ctx, st, side, l, card, section, &left)?;
                h.more.push(((*l).clone(), a));
            }
            Cmd::Play { .. } | Cmd::Discard { .. } | Cmd::Exchange { .. } => {
                return Err(l.reject(if blimp {
                    "Colonel Blimp: every PLAY comes before the first MOVE or BATTLE"
                } else {
                    "only one card is played per turn"
                }));
            }
            Cmd::Order { .. } | Cmd::OrderAll if seen_step => {
                return Err(l.reject("announce every ORDER before the first MOVE or BATTLE"));
            }
            Cmd::Order { hexes } => {
                if matches!(action, Action::Discard(_)) {
                    return Err(l.reject("after a DISCARD (Method 2) no unit is ordered: one unit may battle without moving"));
                }
                for x in hexes {
                    match st.unit_at(*x) {
                        Some(u) if u.side == side => {
                            if h.ordered.iter().any(|(i, _)| *i == u.id) {
                                return Err(l.reject(format!("the unit at {x} is ordered twice")));
                            }
                            h.ordered.push((u.id, (*l).clone()));
                        }
                        Some(_) => return Err(l.reject(not_yours(st, *x))),
                        None => return Err(l.reject(no_unit(st, *x))),
                    }
                }
            }
            Cmd::OrderAll => h.all = true,
            _ => h.steps.push(l),
        }
    }
    Ok(h)
}

/// The units ordered, their modes, the card's effect, the gate.
type CardModes = (Vec<u32>, BTreeMap<u32, Mode>, String, Gate);

/// The units the card (or cards) order, their modes before the optional
/// rules, the card's effect, and the dice that decide which orders stand.
fn card_modes(
    ctx: &Ctx<'_>,
    st: &State,
    side: usize,
    first: &Line,
    action: &Action,
    head: &Head<'_>,
) -> Result<CardModes, Rejection> {
    let mut gate = Gate::None;
    let (ids, modes, effect) = match action {
        Action::Card {
            effect, section, ..
        } => {
            let spec = ctx
                .r
                .card(effect)
                .ok_or_else(|| first.reject("unknown card"))?;
            let (ids, modes) = if head.more.is_empty() {
                card_orders(
                    ctx,
                    st,
                    side,
                    spec,
                    *section,
                    first,
                    &head.ordered,
                    head.all,
                )?
            } else {
                let mut cards = vec![(first.clone(), action.clone())];
                cards.extend(head.more.iter().cloned());
                blimp_orders(ctx, st, side, &cards, &head.ordered, head.all)?
            };
            match spec.effect.as_deref() {
                Some("medics-and-mechanics") => {
                    if let Some(id) = ids.first() {
                        gate = Gate::Medics(*id);
                    } else {
                        return Err(first.reject(
                            "Medics & Mechanics needs ORDER <hex> of a unit that has lost figures",
                        ));
                    }
                }
                Some("their-finest-hour") => gate = Gate::FinestHour(ids.clone()),
                _ => {}
            }
            (ids, modes, spec.effect.clone().unwrap_or_default())
        }
        Action::Horde => {
            let (ids, modes) = crate::variants::zombies::modes(ctx, st, side);
            (ids, modes, String::new())
        }
        _ => (vec![], BTreeMap::new(), String::new()),
    };
    Ok((ids, modes, effect, gate))
}

/// The walk of a turn's step lines over a scratch position: what each
/// unit has done so far, and the checked steps.
struct Walk<'a, 'b> {
    ctx: &'a Ctx<'b>,
    side: usize,
    action: &'a Action,
    /// The card's effect ("" for none).
    effect: String,
    /// The units the card ordered.
    ids: &'a [u32],
    sc: State,
    modes: BTreeMap<u32, Mode>,
    /// The modes before the optional rules (the weather looks again at
    /// each move's path).
    base_modes: BTreeMap<u32, Mode>,
    track: BTreeMap<u32, Track>,
    steps: Vec<Step>,
    battled: bool,
    targeted: bool,
    discard_battler: Option<u32>,
    /// Kriegspiel: units stopped short, by the hex their orders moved them to.
    stopped: BTreeMap<Hex, u32>,
    /// Minefields: "Only one attempt per turn may be made to clear a Minefield."
    mine_tries: BTreeSet<Hex>,
    /// Bridge Demolition: bridges detonated this turn ("once per turn").
    detonated: BTreeSet<Hex>,
    turn_no: u32,
    /// Kriegspiel, the side's own walk: the position as it knew it when
    /// the turn began. A BATTLE at a hex out of its sight then, which a
    /// move this turn may bring into sight, is accepted here and carried
    /// out (or lapses) on the truth: whether it is accepted must not
    /// depend on what stands there.
    blind: Option<&'a State>,
}

impl<'a, 'b> Walk<'a, 'b> {
    /// A walk of the same turn from its start, for another position.
    fn fresh(&self) -> Walk<'a, 'b> {
        Walk {
            ctx: self.ctx,
            side: self.side,
            action: self.action,
            effect: self.effect.clone(),
            ids: self.ids,
            sc: self.sc.clone(),
            modes: self.modes.clone(),
            base_modes: self.base_modes.clone(),
            track: BTreeMap::new(),
            steps: Vec::new(),
            battled: false,
            targeted: false,
            discard_battler: None,
            stopped: BTreeMap::new(),
            mine_tries: BTreeSet::new(),
            detonated: BTreeSet::new(),
            turn_no: self.turn_no,
            blind: None,
        }
    }

    /// The truth's walk of a line the side's own walk accepted: what the
    /// line does on the real position, or, where the real position keeps it
    /// from being carried out (a unit stopped short by an unseen enemy), a
    /// lapse with the reason, told to the side alone. "A fog game cannot ask
    /// a player to foresee what he cannot see": the rest of the orders stand.
    fn step_or_lapse(&mut self, l: &Line) {
        if let Err(e) = self.step(l) {
            self.steps.push(Step::Lapse {
                line: l.clone(),
                reason: e.message,
            });
        }
    }
}

impl Walk<'_, '_> {
    /// Check one step line and add it to the plan.
    fn step(&mut self, l: &Line) -> Result<(), Rejection> {
        match &l.cmd {
            Cmd::Move { path } => self.move_unit(l, path),
            Cmd::Battle {
                from,
                target,
                take_ground,
                overrun,
                via,
            } => self.battle(l, *from, *target, *take_ground, *overrun, *via),
            Cmd::Target { hexes } => self.target(l, hexes),
            Cmd::RemoveWire { at } => self.remove_wire(l, *at),
            Cmd::Recover { at } => self.recover(l, *at),
            Cmd::Sabotage { at } => self.sabotage(l, *at),
            Cmd::Charge { unit: at, bridge } => self.charge(l, *at, *bridge),
            Cmd::Pontoon { unit: at, river } => self.pontoon(l, *at, *river),
            Cmd::Detonate { bridge } => self.detonate(l, *bridge),
            Cmd::Land { at } => self.land(l, *at),
            Cmd::Unload { train, to, kind } => self.unload(l, *train, *to, kind.as_deref()),
            Cmd::Exit { at } => self.exit(l, *at),
            Cmd::Exterminate { at } => self.exterminate(l, *at),
            _ => Err(l.reject("unexpected order here")),
        }
    }
}
