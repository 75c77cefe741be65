//! Applying a checked plan with dice: the action (action.rs), each step
//! (steps.rs; a battle is crate::battle::fight), the optional rules at
//! every point of the turn (hooks.rs), and the end of the turn.

use super::hooks::Play;
use super::*;
use adjutant_dice::shuffle;

mod action;
mod steps;

/// A turn being applied.
pub(crate) struct Turn<'a, 'b, 'c> {
    pub(crate) ctx: &'a Ctx<'b>,
    pub(crate) st: State,
    pub(crate) ev: Vec<Event>,
    pub(crate) chance: &'a mut Chance<'c>,
    pub(crate) side: usize,
    pub(crate) ambush_draw: bool,
    pub(crate) overrun_used: BTreeSet<u32>,
    pub(crate) modes_extra: BTreeMap<u32, (i32, bool, String)>,
    /// Combat Engineers that removed wire or a hedgehog this turn: "reduces
    /// the number of Battle Dice it rolls by 1".
    pub(crate) obstacle_cost: BTreeSet<u32>,
    /// The cards in the hand when the turn began (the dice of Medics &
    /// Mechanics, Their Finest Hour and an oasis).
    hand_count: u32,
    /// The units the gate's dice let act (None: no gate).
    allowed: Option<BTreeSet<u32>>,
    /// The cards played, each with whether it is a Recon card.
    played: Vec<(String, bool)>,
    /// Their Finest Hour: the deck is reshuffled.
    finest: bool,
    /// Appendix 2, Oasis: units whose recovery roll returned no figure (as
    /// with Medics & Mechanics, they may not move or battle).
    stalled: BTreeSet<u32>,
}

impl Turn<'_, '_, '_> {
    pub(crate) fn skip(&mut self, line: &Line, reason: &str) {
        self.ev.push(Event::OrderSkipped {
            side: self.st.sides[self.side].clone(),
            order: line.text.clone(),
            reason: reason.into(),
        });
    }

    fn draw(&mut self, side: usize) -> Option<String> {
        if self.st.deck.is_empty() {
            let mut d = std::mem::take(&mut self.st.discard);
            if d.is_empty() {
                return None;
            }
            shuffle(&mut d, &mut *self.chance.deck);
            self.ev.push(Event::DeckReshuffled { cards: d.len() });
            self.st.deck = d;
        }
        let c = self.st.deck.remove(0);
        self.ev.push(Event::CardDrawn {
            side: self.st.sides[side].clone(),
            card: c.clone(),
            private: true,
        });
        Some(c)
    }

    /// The position as the optional rules' hooks see it.
    pub(crate) fn play_at(&mut self) -> Play<'_, '_> {
        Play {
            ctx: self.ctx,
            st: &mut self.st,
            ev: &mut self.ev,
            dice: &mut *self.chance.dice,
        }
    }
}

/// Apply a checked plan with dice.
pub fn apply(
    ctx: &Ctx<'_>,
    st0: &State,
    plan: &Plan,
    chance: &mut Chance<'_>,
) -> (State, Vec<Event>) {
    let mut t = Turn::begin(ctx, st0, plan, chance);
    for step in &plan.steps {
        t.run_step(plan, step);
    }
    t.finish(st0, plan);
    (t.st, t.ev)
}

/// A turn paused between two of its steps: everything the turn carries but
/// the dice, so that PREDICT's whole turn (crate::predict::whole_turn) can
/// go on from one position with every throw the next step may show.
#[derive(Debug, Clone)]
pub struct Paused {
    pub st: State,
    pub ev: Vec<Event>,
    side: usize,
    ambush_draw: bool,
    overrun_used: BTreeSet<u32>,
    modes_extra: BTreeMap<u32, (i32, bool, String)>,
    obstacle_cost: BTreeSet<u32>,
    hand_count: u32,
    allowed: Option<BTreeSet<u32>>,
    played: Vec<(String, bool)>,
    finest: bool,
    stalled: BTreeSet<u32>,
}

impl Paused {
    /// What the rest of the turn may depend on, besides the state: two
    /// pauses alike in this lead to the same turn.
    #[must_use]
    pub fn key(&self) -> String {
        format!(
            "{:?}",
            (
                &self.ambush_draw,
                &self.overrun_used,
                &self.modes_extra,
                &self.obstacle_cost,
                &self.hand_count,
                &self.allowed,
                &self.played,
                &self.finest,
                &self.stalled,
            )
        )
    }
}

/// The turn up to its first step (the card, the gate's dice, what comes
/// before the steps), paused.
pub fn begin_paused(ctx: &Ctx<'_>, st0: &State, plan: &Plan, chance: &mut Chance<'_>) -> Paused {
    Turn::begin(ctx, st0, plan, chance).pause()
}

/// Step `i` of the plan carried out on a paused turn, paused again.
pub fn step_paused(
    ctx: &Ctx<'_>,
    p: Paused,
    plan: &Plan,
    i: usize,
    chance: &mut Chance<'_>,
) -> Paused {
    let mut t = Turn::resume(ctx, p, chance);
    if let Some(step) = plan.steps.get(i) {
        t.run_step(plan, step);
    }
    t.pause()
}

/// The end of a paused turn (the draws, victory, the next side's supply).
pub fn finish_paused(
    ctx: &Ctx<'_>,
    p: Paused,
    st0: &State,
    plan: &Plan,
    chance: &mut Chance<'_>,
) -> (State, Vec<Event>) {
    let mut t = Turn::resume(ctx, p, chance);
    t.finish(st0, plan);
    (t.st, t.ev)
}

impl<'a, 'b, 'c> Turn<'a, 'b, 'c> {
    /// The turn up to its first step: the card played, the gate's dice,
    /// what comes before the steps, and the hooks after it.
    fn begin(
        ctx: &'a Ctx<'b>,
        st0: &State,
        plan: &Plan,
        chance: &'a mut Chance<'c>,
    ) -> Turn<'a, 'b, 'c> {
        let side = plan.side;
        let mut t = Turn {
            ctx,
            st: st0.clone(),
            ev: Vec::new(),
            chance,
            side,
            ambush_draw: false,
            overrun_used: BTreeSet::new(),
            obstacle_cost: BTreeSet::new(),
            modes_extra: plan
                .modes
                .iter()
                .map(|(k, m)| (*k, (m.extra, m.extra_close_only, m.extra_reason.clone())))
                .collect(),
            hand_count: st0.hands.get(side).map_or(0, |h| h.len() as u32),
            allowed: None,
            played: Vec::new(),
            finest: false,
            stalled: BTreeSet::new(),
        };
        crate::commissar::begin(&mut t.st, side, &plan.commissar);
        t.ev.push(Event::TurnBegun {
            turn: t.st.turn + 1,
            side: t.st.sides[side].clone(),
        });
        if let Some(sd) = &plan.standing {
            t.st.standing[side] = sd.clone();
        }
        t.hand_count = t.st.hands[side].len() as u32;
        t.play(plan);
        t.gate(plan);
        t.before_steps(plan);
        let since = t.ev.len();
        // Battle Star Markers (stars.rs): after each order, what became of
        // them.
        hooks::after_step(&mut t.play_at(), since);
        t
    }

    /// One step of the plan, if its unit may act, and the hooks after it.
    fn run_step(&mut self, plan: &Plan, step: &Step) {
        let since = self.ev.len();
        if self.may_act(step) {
            self.step(plan, step);
        }
        hooks::after_step(&mut self.play_at(), since);
    }

    /// The end of the turn after its last step.
    fn finish(&mut self, st0: &State, plan: &Plan) {
        self.draws(plan);
        self.end(st0, plan);
    }

    fn pause(self) -> Paused {
        Paused {
            st: self.st,
            ev: self.ev,
            side: self.side,
            ambush_draw: self.ambush_draw,
            overrun_used: self.overrun_used,
            modes_extra: self.modes_extra,
            obstacle_cost: self.obstacle_cost,
            hand_count: self.hand_count,
            allowed: self.allowed,
            played: self.played,
            finest: self.finest,
            stalled: self.stalled,
        }
    }

    fn resume(ctx: &'a Ctx<'b>, p: Paused, chance: &'a mut Chance<'c>) -> Turn<'a, 'b, 'c> {
        Turn {
            ctx,
            st: p.st,
            ev: p.ev,
            chance,
            side: p.side,
            ambush_draw: p.ambush_draw,
            overrun_used: p.overrun_used,
            modes_extra: p.modes_extra,
            obstacle_cost: p.obstacle_cost,
            hand_count: p.hand_count,
            allowed: p.allowed,
            played: p.played,
            finest: p.finest,
            stalled: p.stalled,
        }
    }
}

impl Turn<'_, '_, '_> {
    /// What comes after the card and before the first step.
    fn before_steps(&mut self, plan: &Plan) {
        let (ctx, side) = (self.ctx, self.side);
        // Sabotaging A Dam (stars.rs): "After playing a Command Card, and
        // before any Units are ordered, he rolls two Battle Dice." (An Army
        // Manoeuvre is declared "instead of playing a Command Card".)
        let command_card = matches!(&plan.action, Action::Card { played, .. }
            if ctx.r.card(played).is_some_and(|c| c.kind != "manoeuvre"));
        if command_card {
            crate::stars::dam_sabotage(
                ctx,
                &mut self.st,
                &mut self.ev,
                &mut *self.chance.dice,
                side,
            );
        }
        // Combat Engineers standing on wire or a hedgehog they have not
        // removed remove it when next ordered, before they may move away.
        for id in &plan.ordered {
            if self.allowed.as_ref().is_some_and(|a| !a.contains(id)) {
                continue;
            }
            if let Some(h) = self.st.unit(*id).map(|u| u.at) {
                self.engineer_removes(*id, h);
            }
        }
    }

    /// May the step's unit act (the gate's dice let it, it is still on the
    /// board, it did not fail to recover in an oasis)? If not, the step is
    /// reported skipped.
    fn may_act(&mut self, step: &Step) -> bool {
        let (line, unit) = match step {
            Step::Move { line, unit, .. }
            | Step::Battle { line, unit, .. }
            | Step::RemoveWire { line, unit }
            | Step::Sabotage { line, unit }
            | Step::Recover { line, unit }
            | Step::Unload { line, unit, .. }
            | Step::Charge { line, unit, .. }
            | Step::Pontoon { line, unit, .. }
            | Step::Exit { line, unit }
            | Step::Exterminate { line, unit } => (line, Some(*unit)),
            Step::Target { line, .. }
            | Step::Lapse { line, .. }
            | Step::Land { line, .. }
            | Step::Detonate { line, .. } => (line, None),
        };
        let Some(u) = unit else {
            return true;
        };
        let firefight = matches!(
            step,
            Step::Battle {
                firefight: true,
                ..
            }
        );
        let why = if self.allowed.as_ref().is_some_and(|a| !a.contains(&u)) && !firefight {
            "the unit was not ordered by the dice"
        } else if self.st.unit(u).is_none() {
            "the unit is no longer on the board"
        } else if self.stalled.contains(&u) {
            "the unit recovered no figure in the oasis: it may not move or battle this turn"
        } else {
            return true;
        };
        self.skip(line, why);
        false
    }

    fn step(&mut self, plan: &Plan, step: &Step) {
        match step {
            Step::Lapse { line, reason } => self.skip(line, reason),
            Step::Move { .. } => self.apply_move(plan, step),
            Step::Land { .. } => self.land(plan, step),
            Step::Unload { .. } => self.unload(step),
            Step::Exit { unit, .. } => {
                crate::variants::zombies::exit(&mut self.st, &mut self.ev, *unit)
            }
            Step::Exterminate { unit, .. } => {
                crate::variants::exterminate::begin(&mut self.st, &mut self.ev, *unit);
            }
            Step::Charge { unit, bridge, .. } => {
                if let Some(h) = self.st.unit(*unit).map(|u| u.at) {
                    crate::bridges::place(&mut self.st, &mut self.ev, self.side, h, *bridge);
                }
            }
            Step::Pontoon { unit, river, .. } => {
                if let Some(h) = self.st.unit(*unit).map(|u| u.at) {
                    crate::bridges::build_pontoon(&mut self.st, &mut self.ev, self.side, h, *river);
                }
            }
            Step::Detonate { .. } => self.detonate(step),
            Step::Recover { .. } => self.recover(step),
            Step::Sabotage { .. } => self.sabotage(step),
            Step::RemoveWire { .. } => self.remove_wire(step),
            Step::Target { .. } => self.target(plan, step),
            Step::Battle { .. } => self.battle_step(step),
        }
    }

    /// The end of the turn: the commissar's card, the ambusher's draw,
    /// objectives and victory, the end-of-turn placements, and the next
    /// side's supply.
    fn end(&mut self, st0: &State, plan: &Plan) {
        let side = self.side;
        crate::commissar::end(&mut self.st, side, &plan.commissar);
        if self.ambush_draw {
            let o = State::other(side);
            if let Some(c) = self.draw(o) {
                self.st.hands[o].push(c);
            }
        }
        let e = crate::victory::update_objectives(&mut self.st);
        self.ev.extend(e);
        // "EX-TER-MIN-ATE!": the towns exterminated this turn.
        hooks::end_turn(&mut self.play_at());
        // "Achtung! Zombie!" and "War Of The Worlds" judge their own victory.
        let judged = hooks::victory(&mut self.play_at(), st0, side);
        if !judged {
            let e = crate::victory::end_of_turn(self.ctx.r, &mut self.st, side);
            self.ev.extend(e);
        }
        // "Nineteen Eighty-Four": the units eliminated this turn are
        // replaced before the next turn begins (and before its supply is
        // judged).
        hooks::placements(&mut self.play_at());
        // Bridge Demolition: "The explosive charges are considered to be
        // removed if the Bridge is ever occupied by the enemy", also by a
        // unit placed at the end of the turn (a replacement, the risen Dead).
        crate::bridges::after_step(&mut self.st, &mut self.ev);
        let supply_mark = self.ev.len();
        // Supply Lines & Sieges: the beginning of the other side's turn (its
        // units' supply, and the Third Turn Losses) is judged now, so that
        // its report says it before it writes its orders. (A variant's own
        // victory, judged above, stands.)
        if !self.st.over
            && crate::supply::begin_turn(
                self.ctx,
                &mut self.st,
                &mut self.ev,
                State::other(side),
                Some(&mut *self.chance.dice),
            )
            && !judged
        {
            let e = crate::victory::end_of_turn(self.ctx.r, &mut self.st, side);
            self.ev.extend(e);
        }
        // "Nineteen Eighty-Four": the units lost at the beginning of the
        // next side's turn (supply losses, judged just above) are replaced
        // at the end of that turn.
        hooks::next_turn_begun(&mut self.st, &self.ev[supply_mark..]);
        self.st.turn += 1;
        self.st.to_move = State::other(side);
    }
}
