//! Memoir '44 as the house rules play it (their "Main Rules" to
//! "Obstacles"), with the readings of docs/rules/memoir44.md. See
//! docs/rules/memoir44.md for every interpretation and docs/orders.md for the
//! order language.
//!
//! The engine is pure: dice come through [`Chance`], nothing reads the clock,
//! and every map is a `BTreeMap`.

pub mod airdrop;
pub mod amend;
pub mod battle;
pub mod blitzkrieg;
pub mod board;
pub mod bridges;
pub mod campaign;
pub mod case;
pub mod commissar;
pub mod disorder;
pub mod events;
pub mod fog;
pub mod general;
pub mod landmarks;
pub mod mines;
pub mod orders;
pub mod predict;
pub mod random;
pub mod render;
pub mod report;
pub mod ruleset;
pub mod scenario;
pub mod stars;
pub mod state;
pub mod supply;
pub mod support;
pub mod team;
pub mod tiles;
pub mod trains;
pub mod turn;
pub mod variants;
pub mod victory;
pub mod view;
pub mod weather;
pub mod whole_turn;

use adjutant_dice::{ChaChaDice, Dice, ForcedDice};
use adjutant_rules::report::Parts;
use adjutant_rules::{
    Chance, DataError, Family, FamilyEntry, Orders, Phase, Rejection, Rules, Scenario, Viewer,
};

pub use board::{Hex, Section};
pub use case::{run_case_text, CaseResult};
pub use events::Event;
pub use random::random_orders;
pub use ruleset::Ruleset;
pub use state::State;
pub use view::View;

/// Shipped scenario ids.
#[must_use]
pub fn scenario_ids() -> Vec<String> {
    scenario::ids()
}

/// Parse and check a scenario text without dealing (for `check` tools).
pub fn load_scenario(r: &Ruleset, text: &str, file: &str) -> Result<State, DataError> {
    scenario::load(r, text, file).map(|(_, s)| s)
}

/// Set up a shipped scenario: place everything, shuffle with `deck`, deal.
pub fn setup(r: &Ruleset, scenario: &str, deck: &mut dyn Dice) -> Result<State, DataError> {
    scenario::setup(r, scenario, deck)
}

/// Set up from a scenario text (a club's own file).
pub fn setup_text(
    r: &Ruleset,
    text: &str,
    file: &str,
    deck: &mut dyn Dice,
) -> Result<State, DataError> {
    scenario::setup_text(r, text, file, deck)
}

#[must_use]
pub fn sides(s: &State) -> Vec<String> {
    s.sides.clone()
}

#[must_use]
pub fn waiting(s: &State) -> Phase {
    if s.over {
        return Phase {
            name: "turn".into(),
            sides: vec![],
            what: "game over".into(),
        };
    }
    let side = s.sides.get(s.to_move).cloned().unwrap_or_default();
    let last = if s.final_turn == Some(s.to_move) {
        " (the last Counter-Attack turn)"
    } else {
        ""
    };
    let what = if variants::zombies::is_dead(s, s.to_move) {
        "to move and battle with its zombie units (no card)"
    } else {
        "to play a card and order units"
    };
    Phase {
        name: "turn".into(),
        what: format!("{side} {what}{last}"),
        sides: vec![side],
    }
}

/// One whole player turn from the orders text. Every order is checked
/// before any is carried out; a rejection leaves the state untouched.
pub fn adjudicate(
    r: &Ruleset,
    s: &State,
    side: &str,
    orders: &str,
    chance: &mut Chance<'_>,
) -> Result<(State, Vec<Event>), Rejection> {
    let idx = mover_index(s, side)?;
    let ctx = battle::Ctx::new(r);
    let lines = orders::parse(&ctx.board, r, orders)?;
    let plan = turn::plan(&ctx, s, idx, &lines)?;
    let (mut next, mut events) = turn::apply(&ctx, s, &plan, chance);
    // Night & Severe Weather: the night track's roll for dawn.
    weather::after_turn(r, &mut next, &mut events, chance);
    if s.fog.is_some() {
        let seen = fog::seen_hexes(r, s);
        if let Some(f) = next.fog.as_mut() {
            f.seen_before = seen;
        }
        fog::learn_after_turn(r, s, &mut next, &events);
    }
    Ok((next, events))
}

/// One phase: the campaign's pre-battle phases, or a player's turn.
fn adjudicate_phase(
    r: &Ruleset,
    s: &State,
    orders: &[Orders],
    chance: &mut Chance<'_>,
) -> Result<(State, Vec<Event>), Rejection> {
    match &s.pre_battle {
        Some(pb) if !pb.rolled => return Ok(campaign::roll(r, s, chance)),
        Some(_) => return campaign::choose(r, s, orders),
        None => {}
    }
    if !s.airdrops.is_empty() {
        let (mut next, events) = airdrop::drop_all(r, s, chance);
        // Drop-Zone: the Paratroops that landed draw their supply from it.
        supply::landed(r, s, &mut next);
        return Ok((next, events));
    }
    let [one] = orders else {
        return Err(Rejection::whole(format!(
            "a Memoir '44 turn takes one side's orders, not {}",
            orders.len()
        )));
    };
    adjudicate(r, s, &one.side, &one.text, chance)
}

/// The winner's side id once the game is over ("" for a draw).
#[must_use]
pub fn result(s: &State) -> Option<String> {
    if s.over {
        Some(s.winner.clone().unwrap_or_default())
    } else {
        None
    }
}

#[must_use]
pub fn render_text(r: &Ruleset, s: &State, viewer: &Viewer) -> String {
    render::text(r, s, viewer)
}

#[must_use]
pub fn describe_event(event: &Event, viewer: &Viewer) -> Option<String> {
    render::describe(event, viewer)
}

/// A report line folded to the mail's 78 columns (the airdrop's lines are
/// long); a short line is left as it is.
fn fit(line: &str) -> String {
    if line.chars().count() <= 78 {
        return line.to_string();
    }
    adjutant_rules::report::wrap(line, 78, "  ")
        .trim_end()
        .to_string()
}

/// How Memoir '44 joins the judge.
pub const ENTRY: FamilyEntry = FamilyEntry {
    name: "memoir44",
    rulesets: &["memoir44"],
    owns: owns_ruleset,
    load: load_ruleset,
    scenarios: shipped_scenarios,
    run_case: case::run_case_text,
    options: &[
        &[("kriegspiel", "true")],
        &[("weather", "night")],
        &[("young-generals", "true")],
        &[("zombies", "axis")],
    ],
};

fn owns_ruleset(id: &str) -> bool {
    id == "memoir44" || id.starts_with("memoir44-")
}

fn load_ruleset(_id: &str, text: Option<(&str, &str)>) -> Result<Rules, DataError> {
    Ok(Rules::new(match text {
        Some((text, file)) => Ruleset::from_toml(text, file)?,
        None => Ruleset::builtin()?,
    }))
}

fn shipped_scenarios() -> Vec<(String, String)> {
    scenario_ids()
        .into_iter()
        .map(|s| (s, "memoir44".to_string()))
        .collect()
}

/// The game options (`new-game --option`) Memoir '44 knows.
pub const GAME_OPTIONS: &[&str] = &[
    campaign::OPTION,
    fog::OPTION,
    YOUNG_GENERALS,
    weather::OPTION,
    weather::DAWN_OPTION,
    blitzkrieg::OPTION,
    disorder::OPTION,
    commissar::OPTION,
    supply::OPTION,
    variants::zombies::OPTION,
    variants::nineteen84::OPTION,
    variants::exterminate::OPTION,
    variants::cybermen::OPTION,
    variants::worlds::OPTION,
];

/// The game option of the house rules' "Variant For Young Generals".
pub const YOUNG_GENERALS: &str = "young-generals";

/// Young Generals (the house rules, Appendix 3): "Remove all Tactic Cards and only
/// use the Section Cards". The tactic cards leave the game; a hand that held
/// some is filled again from the top of the (already shuffled) deck.
pub fn young_generals(r: &Ruleset, st: &mut State) {
    st.young_generals = true;
    let tactic = |c: &String| r.card(c).is_some_and(|s| s.kind != "section");
    st.deck.retain(|c| !tactic(c));
    st.discard.retain(|c| !tactic(c));
    for i in 0..st.hands.len() {
        st.hands[i].retain(|c| !tactic(c));
        let want = st.hand_size.get(i).copied().unwrap_or(0) as usize;
        while st.hands[i].len() < want && !st.deck.is_empty() {
            let c = st.deck.remove(0);
            st.hands[i].push(c);
        }
    }
}

/// The words Memoir '44 order lines start with.
pub const ORDER_WORDS: &[&str] = &[
    "PLAY",
    "ORDER",
    "MOVE",
    "BATTLE",
    "ATTACK",
    "FIRE",
    "TARGET",
    "REMOVE-WIRE",
    // Battle Star Markers: Sabotage (stars.rs).
    "SABOTAGE",
    // Appendix 2, Oasis: recover lost figures (landmarks.rs).
    "RECOVER",
    "CHARGE",
    "DETONATE",
    "UNLOAD",
    "LAND",
    "PONTOON",
    // "Achtung! Zombie!": the Living retreat off the board.
    "EXIT",
    // "EX-TER-MIN-ATE!": a Dalek unit exterminates a town.
    "EXTERMINATE",
    "KEEP",
    "DISCARD",
    "EXCHANGE",
    "STANDING",
    "COMMISSAR",
    // Before a campaign battle (campaign.rs).
    "REMOVE",
    "RETREAT",
    "PASS",
];

impl Ruleset {
    /// A report's parts ([`Family::report`]); without the board picture
    /// (SVG, its HTML and the compact map) unless `board`.
    fn report_drawn(
        &self,
        s: &State,
        events: &[Event],
        viewer: &Viewer,
        mover: Option<&str>,
        board: bool,
    ) -> Parts {
        let ev = view::visible_events(events, viewer);
        let v = view::view_with_events(self, s, viewer, &ev);
        let mut parts = if board {
            report::parts(&v, mover)
        } else {
            report::parts_without_board(&v, mover)
        };
        if s.pre_battle.is_some() {
            // Before the battle: the choices a side owes, not its cards.
            parts.orders = match viewer {
                Viewer::Side(me) => s
                    .side_index(me)
                    .and_then(|i| campaign::template(self, s, i)),
                _ => None,
            };
        }
        parts
    }
}

impl Family for Ruleset {
    type State = State;
    type Event = Event;

    fn id(&self) -> &str {
        &self.id
    }

    fn order_words(&self) -> &'static [&'static str] {
        ORDER_WORDS
    }

    fn order_help(&self) -> String {
        "Memoir '44 orders, one per line:\n\
  PLAY <card>                       e.g. PLAY probe-centre\n\
  ORDER <hex> <hex> ...             the units the card orders\n\
  MOVE <from> <hex> ... <to>        the path, hex by hex\n\
  BATTLE <from> <target> [TAKE-GROUND] [OVERRUN <target>]\n"
            .to_string()
    }

    fn die_faces(&self) -> Vec<String> {
        self.dice.faces.clone()
    }

    fn setup(&self, scenario: &Scenario, deck: &mut dyn Dice) -> Result<State, DataError> {
        if let Some(k) = scenario
            .options
            .keys()
            .find(|k| !GAME_OPTIONS.contains(&k.as_str()) && !self.variants.contains_key(*k))
        {
            let known: Vec<&str> = GAME_OPTIONS
                .iter()
                .copied()
                .chain(self.variants.keys().map(String::as_str))
                .collect();
            return Err(DataError::Invalid {
                file: scenario.file.clone(),
                message: format!(
                    "unknown game option '{k}' for Memoir '44 (known: {})",
                    known.join(", ")
                ),
            });
        }
        let mut st = match &scenario.text {
            Some(text) => setup_text(self, text, &scenario.file, deck),
            None => setup(self, &scenario.id, deck),
        }?;
        rule_options(self, scenario, &mut st)?;
        more_options(self, scenario, &mut st)?;
        Ok(st)
    }

    fn sides(&self, s: &State) -> Vec<String> {
        sides(s)
    }

    fn phase(&self, s: &State) -> Phase {
        campaign::phase(s)
            .or_else(|| airdrop::phase(s))
            .unwrap_or_else(|| waiting(s))
    }

    fn check(&self, s: &State, side: &str, orders: &str) -> Result<Vec<String>, Rejection> {
        if s.pre_battle.is_some() {
            let Some(idx) = s.side_index(side) else {
                return Err(Rejection::whole(format!(
                    "'{side}' is not a side of this game"
                )));
            };
            return campaign::check(self, s, idx, orders);
        }
        if !s.airdrops.is_empty() {
            return Err(Rejection::whole(
                "the judge drops the paratroops and gliders before the first turn; no orders yet",
            ));
        }
        let idx = mover_index(s, side)?;
        let ctx = battle::Ctx::new(self);
        let lines = orders::parse(&ctx.board, self, orders)?;
        turn::plan(&ctx, s, idx, &lines)?;
        Ok(lines.iter().map(|l| l.cmd.canonical()).collect())
    }

    fn adjudicate(
        &self,
        s: &State,
        orders: &[Orders],
        chance: &mut Chance<'_>,
    ) -> Result<(State, Vec<Event>), Rejection> {
        let (mut next, events) = adjudicate_phase(self, s, orders, chance)?;
        next.phases = s.phases.map(|p| p + 1);
        // Kriegspiel: where each side saw enemy units as this phase began,
        // so that its events are told as far as each side could know them.
        if s.fog.is_some() {
            let seen = fog::seen_hexes(self, s);
            if let Some(f) = next.fog.as_mut() {
                f.seen_before = seen;
            }
        }
        Ok((next, events))
    }

    fn result(&self, s: &State) -> Option<String> {
        result(s)
    }

    /// A pass: the first card of the hand that can be played ordering no
    /// unit (docs/rules/memoir44.md, "No move received").
    fn random_orders(&self, s: &State, side: &str, dice: &mut dyn Dice) -> Option<String> {
        Some(random_orders(self, s, side, dice))
    }

    /// The judge's general's sensible orders (general.rs).
    fn general_orders(
        &self,
        s: &State,
        side: &str,
        dice: &mut dyn Dice,
        variant: u32,
    ) -> Option<String> {
        general::general_orders(self, s, side, dice, variant)
    }

    /// The judge's general's worth of a position (general.rs, `value`).
    fn general_value(&self, s: &State, side: &str) -> Option<f64> {
        general::value(self, s, side)
    }

    fn pass_orders(&self, s: &State, side: &str) -> Option<String> {
        if s.pre_battle.is_some() {
            // Before a campaign battle: the documented defaults.
            return Some("# the defaults\n".into());
        }
        let idx = s.side_index(side)?;
        if variants::zombies::is_dead(s, idx) {
            // The Dead Player plays no card: the moves its rules require.
            return Some(variants::zombies::pass_orders(&battle::Ctx::new(self), s));
        }
        // The first card that can be played ordering no unit; a card that
        // names a section is tried on each, left to right (docs/orders.md).
        let tries = ["", " LEFT", " CENTRE", " RIGHT"];
        s.hands.get(idx)?.iter().find_map(|card| {
            tries.iter().find_map(|section| {
                let orders = format!("PLAY {card}{section}\n");
                let mut dice = ForcedDice::new(Vec::new());
                let mut deck = ChaChaDice::from_seed([0; 32]);
                let mut chance = Chance {
                    dice: &mut dice,
                    deck: &mut deck,
                };
                adjudicate(self, s, side, &orders, &mut chance)
                    .ok()
                    .map(|_| orders)
            })
        })
    }

    fn report(&self, s: &State, events: &[Event], viewer: &Viewer, mover: Option<&str>) -> Parts {
        self.report_drawn(s, events, viewer, mover, true)
    }

    fn report_without_board(
        &self,
        s: &State,
        events: &[Event],
        viewer: &Viewer,
        mover: Option<&str>,
    ) -> Parts {
        self.report_drawn(s, events, viewer, mover, false)
    }

    fn describe_events(&self, s: &State, events: &[Event], viewer: &Viewer) -> Vec<String> {
        let shifted = shift_turns(s, events);
        let events = shifted.as_slice();
        if s.fog.is_some() {
            // A correction and the pre-battle events say for themselves
            // what a side may read; they are told after the turn's others.
            let (own, told): (Vec<&Event>, Vec<&Event>) = events
                .iter()
                .partition(|e| !matches!(e, Event::Amended { .. }) && !e.is_pre_battle());
            let own: Vec<Event> = own.into_iter().cloned().collect();
            let ev = view::visible_events(&own, viewer);
            let mut lines: Vec<String> = fog::redact(self, s, viewer, ev)
                .iter()
                .filter_map(|e| render::describe_event(e, viewer))
                .collect();
            let told: Vec<Event> = told.into_iter().cloned().collect();
            let told = fog::redact(self, s, viewer, view::visible_events(&told, viewer));
            lines.extend(told.iter().filter_map(|e| render::describe(e, viewer)));
            return lines.iter().map(|l| fit(l)).collect();
        }
        events
            .iter()
            .filter_map(|e| render::describe(e, viewer))
            .map(|l| fit(&l))
            .collect()
    }

    fn render_text(&self, s: &State, viewer: &Viewer) -> String {
        render::text(self, s, viewer)
    }

    /// Medals: the victory points a campaign's next battle rolls for.
    fn score(&self, s: &State) -> Vec<(String, u32)> {
        s.sides
            .iter()
            .enumerate()
            .map(|(i, side)| (side.clone(), s.medals(i)))
            .collect()
    }

    fn fog_of_war(&self, s: &State) -> bool {
        s.fog.is_some()
    }

    /// What `side` knows (fog.rs, `knowledge`), and no more: the judge's
    /// general (docs/general.md) decides from this only. Beyond fog.rs's
    /// position, the cards `side` has not seen are one pool in a fixed
    /// order (which of them the enemy holds, and the deck's order, are
    /// secret), and a minefield not yet turned over counts as a 2 ("its
    /// numbered side hidden from both players until revealed").
    fn knowledge(&self, s: &State, side: &str) -> State {
        let Some(i) = s.side_index(side) else {
            return s.clone();
        };
        let mut k = fog::knowledge(self, s, i);
        let mut unseen = s.deck.clone();
        for (j, hand) in s.hands.iter().enumerate() {
            if j != i {
                unseen.extend(hand.iter().cloned());
            }
        }
        unseen.sort();
        k.deck = unseen;
        for m in k.minefields.iter_mut().filter(|m| !m.revealed) {
            m.strength = 2;
        }
        k
    }

    /// The general's guess at the enemy's hand (general.rs, `deal_unseen`).
    fn deal_unseen(&self, known: &State, side: &str, dice: &mut dyn Dice) -> Option<State> {
        general::deal_unseen(known, side, dice)
    }

    /// Figures on the board per side.
    fn strength(&self, s: &State) -> Vec<(String, u32)> {
        adjutant_rules::side_sums(&s.sides, s.units.iter().map(|u| (u.side, u.figures)))
    }

    fn amend(&self, s: &State, text: &str) -> Result<(State, Vec<Event>), Rejection> {
        let (mut next, events) = amend::amend(self, s, text)?;
        next.phases = s.phases.map(|p| p + 1);
        Ok((next, events))
    }

    fn numbered(&self, mut s: State, phases: u32) -> State {
        s.phases = Some(phases);
        s
    }

    /// PREDICT: the exact odds of the side's battles (predict.rs).
    fn predict(&self, s: &State, side: &str, orders: &str) -> Result<String, Rejection> {
        predict::predict(self, s, side, orders)
    }

    /// Team play: the left, centre and right sections (docs/teams.md).
    fn teams(&self) -> Option<&dyn adjutant_rules::TeamPlay<State>> {
        Some(self)
    }
}

impl adjutant_rules::TeamPlay<State> for Ruleset {
    fn sections(&self, _s: &State) -> Vec<String> {
        team::sections()
    }

    fn order_scope(
        &self,
        s: &State,
        side: &str,
        orders: &str,
    ) -> Result<Vec<adjutant_rules::ScopedLine>, Rejection> {
        team::scope(self, s, side, orders)
    }

    fn member_template(
        &self,
        s: &State,
        side: &str,
        sections: &[String],
        leader: bool,
    ) -> Option<String> {
        if s.pre_battle.is_some() {
            // The pre-battle choices are the Commander-in-Chief's.
            return s
                .side_index(side)
                .filter(|_| leader)
                .and_then(|i| campaign::template(self, s, i));
        }
        let v = view::view(self, s, &Viewer::Side(side.to_string()));
        report::orders::member_template(&v, sections, leader)
    }
}

/// The events with each `turn-begun` numbered as the board is
/// ([`State::shown_turn`]): the judge's phases before the first turn (a
/// campaign's pre-battle, an airdrop) count, as in every mail.
fn shift_turns(s: &State, events: &[Event]) -> Vec<Event> {
    let ahead = s.shown_turn().saturating_sub(s.turn);
    events
        .iter()
        .map(|e| match e {
            Event::TurnBegun { turn, side } if ahead > 0 => Event::TurnBegun {
                turn: turn + ahead,
                side: side.clone(),
            },
            e => e.clone(),
        })
        .collect()
}

/// The index of `side` if it is the side to move.
fn mover_index(s: &State, side: &str) -> Result<usize, Rejection> {
    if s.over {
        return Err(Rejection::whole("the game is over"));
    }
    let Some(idx) = s.side_index(side) else {
        return Err(Rejection::whole(format!(
            "'{side}' is not a side of this game ({})",
            s.sides.join(", ")
        )));
    };
    if idx != s.to_move {
        return Err(Rejection::whole(format!(
            "it is not {side}'s turn: waiting for {}",
            s.sides[s.to_move]
        )));
    }
    Ok(idx)
}

/// A game's options, first part: fog of war, Young Generals, Army
/// Manoeuvres and the weather (the game option wins over the scenario's).
fn rule_options(r: &Ruleset, scenario: &Scenario, st: &mut State) -> Result<(), DataError> {
    if let Some(v) = scenario.options.get(fog::OPTION) {
        st.fog = Some(fog::parse_option(v).map_err(|m| DataError::Invalid {
            file: scenario.file.clone(),
            message: format!("game option {}: {m}", fog::OPTION),
        })?);
    }
    if let Some(v) = scenario.options.get(YOUNG_GENERALS) {
        match v.as_str() {
            "" | "true" | "yes" => young_generals(r, st),
            "false" | "no" => {}
            other => {
                return Err(DataError::Invalid {
                    file: scenario.file.clone(),
                    message: format!(
                        "game option {YOUNG_GENERALS}: '{other}' is not true or false"
                    ),
                })
            }
        }
    }
    // Army Manoeuvres (Appendix 3): each variant is a game option of
    // the ruleset's [variants] table.
    for id in r.variants.keys() {
        let Some(v) = scenario.options.get(id) else {
            continue;
        };
        match v.as_str() {
            "" | "true" | "yes" => {
                st.variants.push(id.clone());
                st.manoeuvres_used = vec![Vec::new(); st.sides.len()];
            }
            "false" | "no" => {}
            other => {
                return Err(DataError::Invalid {
                    file: scenario.file.clone(),
                    message: format!("game option {id}: '{other}' is not true or false"),
                })
            }
        }
    }
    // Night & Severe Weather Conditions (weather.rs): the game options
    // `weather` (conditions, or `clear`) and `dawn` (the side that rolls
    // the night track) win over the scenario's [weather].
    if scenario.options.contains_key(weather::OPTION)
        || scenario.options.contains_key(weather::DAWN_OPTION)
    {
        let bad = |m: String| DataError::Invalid {
            file: scenario.file.clone(),
            message: format!("game option {}: {m}", weather::OPTION),
        };
        let cur = st.weather.clone().unwrap_or_default();
        let conditions = match scenario.options.get(weather::OPTION).map(String::as_str) {
            Some("clear" | "none" | "false" | "no") => Vec::new(),
            Some(v) => {
                let items: Vec<String> = v.split([',', '+']).map(str::to_string).collect();
                weather::parse_conditions(r, &items).map_err(bad)?
            }
            None => cur.conditions.clone(),
        };
        let dawn = match scenario.options.get(weather::DAWN_OPTION) {
            Some(d) => Some(st.side_index(d).ok_or_else(|| {
                bad(format!(
                    "dawn: unknown side '{d}' (sides: {})",
                    st.sides.join(", ")
                ))
            })?),
            None => cur.dawn.filter(|_| conditions.iter().any(|c| c == "night")),
        };
        st.weather = None;
        weather::set(r, st, conditions, dawn, cur.track_box.max(1)).map_err(bad)?;
    }
    Ok(())
}

/// A game's options, second part: Blitzkrieg, disorder, the Commissar,
/// supply, Appendix 3's variants (in their order) and a campaign's
/// pre-battle dice.
fn more_options(r: &Ruleset, scenario: &Scenario, st: &mut State) -> Result<(), DataError> {
    // Blitzkrieg Rules (blitzkrieg.rs): the game option names the side
    // that uses them (`none`: not the scenario's).
    if let Some(v) = scenario.options.get(blitzkrieg::OPTION) {
        let bad = |m: String| DataError::Invalid {
            file: scenario.file.clone(),
            message: format!("game option {}: {m}", blitzkrieg::OPTION),
        };
        let side = match v.as_str() {
            "none" | "false" | "no" => None,
            s => Some(st.side_index(s).ok_or_else(|| {
                bad(format!(
                    "unknown side '{s}' (sides: {}, or none)",
                    st.sides.join(", ")
                ))
            })?),
        };
        blitzkrieg::set(r, st, side).map_err(bad)?;
    }
    // Demoralisation, & Disorganisation (disorder.rs) and the Political
    // Commissar (commissar.rs): the game options win over the
    // scenario's.
    if let Some(v) = scenario.options.get(disorder::OPTION) {
        disorder::set_option(r, st, v).map_err(|m| DataError::Invalid {
            file: scenario.file.clone(),
            message: format!("game option {}: {m}", disorder::OPTION),
        })?;
    }
    if let Some(v) = scenario.options.get(commissar::OPTION) {
        commissar::set_option(r, st, v).map_err(|m| DataError::Invalid {
            file: scenario.file.clone(),
            message: format!("game option {}: {m}", commissar::OPTION),
        })?;
    }
    // Supply Lines & Sieges (supply.rs): the game option puts the rules
    // in force for every side or one (`false`: not the scenario's).
    if let Some(v) = scenario.options.get(supply::OPTION) {
        let bad = |m: String| DataError::Invalid {
            file: scenario.file.clone(),
            message: format!("game option {}: {m}", supply::OPTION),
        };
        let sides = supply::parse_option(st, v).map_err(bad)?;
        supply::set(r, st, sides).map_err(bad)?;
    }
    // Appendix 3's Suggested Variants (variants/): each option converts
    // the position the scenario sets up, in the order of
    // `variants::OPTIONS`; then the Human Factor of "EX-TER-MIN-ATE!".
    for option in variants::OPTIONS {
        if let Some(v) = scenario.options.get(option) {
            variants::apply_option(r, st, option, v).map_err(|m| DataError::Invalid {
                file: scenario.file.clone(),
                message: format!("game option {option}: {m}"),
            })?;
        }
    }
    variants::exterminate::human_factor(r, st);
    supply::start(r, st);
    if let Some(v) = scenario.options.get(campaign::OPTION) {
        let dice = campaign::parse_option(v, &st.sides).map_err(|m| DataError::Invalid {
            file: scenario.file.clone(),
            message: format!("game option {}: {m}", campaign::OPTION),
        })?;
        if dice.iter().any(|d| *d > 0) {
            st.short_hand = vec![false; st.sides.len()];
            st.pre_battle = Some(campaign::PreBattle {
                dice,
                rolled: false,
                choices: Vec::new(),
            });
        }
    }
    Ok(())
}
