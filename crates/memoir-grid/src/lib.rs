//! Memoir of Battle and Memoir of Modern Battle (the rulebooks of those titles): one
//! engine for grid-area games with strength values, a simultaneous artillery
//! phase, an initiative roll and unit-by-unit moves, on square or hex grids
//! of any size. Tables in rulesets/*.toml; readings in
//! docs/rules/memoir-of-battle.md and docs/rules/memoir-of-modern-battle.md.

pub mod board;
pub mod case;
pub mod engine;
pub mod events;
pub mod general;
pub mod predict;
pub mod random;
pub mod report;
pub mod ruleset;
pub mod state;
pub mod whole_turn;

use adjutant_dice::Dice;
use adjutant_rules::report::Parts;
use adjutant_rules::{
    Chance, DataError, Family, FamilyEntry, Orders, Phase, Rejection, Rules, Scenario, Viewer,
};
pub use ruleset::Ruleset;
pub use state::State;

/// How the grid family joins the judge.
pub const ENTRY: FamilyEntry = FamilyEntry {
    name: "memoir_grid",
    rulesets: &["memoir-of-battle", "memoir-of-modern-battle"],
    owns: owns_ruleset,
    load: load_ruleset,
    scenarios: shipped_scenarios,
    run_case: case::run_case_text,
    options: &[],
};

fn owns_ruleset(id: &str) -> bool {
    ENTRY
        .rulesets
        .iter()
        .any(|r| id == *r || id.strip_prefix(r).is_some_and(|rest| rest.starts_with('-')))
        // "memoir-of-battle-x" must not swallow "memoir-of-modern-battle".
        && !id.starts_with("memoir44")
}

fn load_ruleset(id: &str, text: Option<(&str, &str)>) -> Result<Rules, DataError> {
    Ok(Rules::new(match text {
        Some((text, file)) => Ruleset::from_toml(text, file)?,
        None => Ruleset::builtin(id)?,
    }))
}

fn shipped_scenarios() -> Vec<(String, String)> {
    adjutant_rules::shipped_list(state::SHIPPED)
}

impl Family for Ruleset {
    type State = State;
    type Event = events::Event;

    fn id(&self) -> &str {
        &self.id
    }

    fn order_words(&self) -> &'static [&'static str] {
        engine::ORDER_WORDS
    }

    fn order_help(&self) -> String {
        "Memoir of Battle and Memoir of Modern Battle orders, one per line:\n\
  FIRE <from> <target>              artillery in phase 1, or a unit's combat\n\
  MOVE <from> <area> ... <to>       the path, area by area through edges\n\
  REMOVE-WIRE <at>  LOAD/UNLOAD/LIMBER/UNLIMBER <transport> <area>\n\
  INITIATIVE FIRST|SECOND           your choice if you win the initiative\n"
            .to_string()
    }

    fn die_faces(&self) -> Vec<String> {
        self.faces.clone()
    }

    fn setup(&self, scenario: &Scenario, _deck: &mut dyn Dice) -> Result<State, DataError> {
        let (text, file) = scenario.text_in(&self.name, state::SHIPPED)?;
        let mut st = state::load(self, text, file)?;
        if scenario.text.is_some() {
            st.scenario = scenario.id.clone();
        }
        Ok(st)
    }

    fn sides(&self, s: &State) -> Vec<String> {
        s.sides.clone()
    }

    fn phase(&self, s: &State) -> Phase {
        let sides: Vec<String> = engine::needs(self, s)
            .iter()
            .map(|i| s.sides[*i].clone())
            .collect();
        let (name, what) = match s.step {
            _ if s.over => ("over".to_string(), "game over".to_string()),
            state::Step::Artillery if sides.is_empty() => (
                "artillery".into(),
                "no artillery on the board: the judge rolls the initiative".into(),
            ),
            state::Step::Artillery => (
                "artillery".into(),
                format!(
                    "turn {}, artillery fire: both sides' orders are held and resolved together",
                    s.turn
                ),
            ),
            state::Step::Move { side, second } => (
                "move".into(),
                format!(
                    "turn {}: {} moves and fights {}",
                    s.turn,
                    s.sides[side],
                    if second { "second" } else { "first" }
                ),
            ),
        };
        Phase { name, sides, what }
    }

    fn check(&self, s: &State, side: &str, orders: &str) -> Result<Vec<String>, Rejection> {
        let o = [Orders {
            side: side.to_string(),
            text: orders.to_string(),
        }];
        // Only this side's orders: in the artillery phase the others' are
        // not needed to check these.
        engine::run(self, s, &o, None)?;
        Ok(engine::parse(s, orders)?
            .iter()
            .map(|(_, _, c)| c.canonical())
            .collect())
    }

    fn adjudicate(
        &self,
        s: &State,
        orders: &[Orders],
        chance: &mut Chance<'_>,
    ) -> Result<(State, Vec<events::Event>), Rejection> {
        let out = engine::run(self, s, orders, Some(chance))?;
        Ok((out.st, out.ev))
    }

    fn result(&self, s: &State) -> Option<String> {
        s.over.then(|| s.winner.clone().unwrap_or_default())
    }

    /// A pass keeps the standing initiative choice and orders nothing.
    fn random_orders(&self, s: &State, side: &str, dice: &mut dyn Dice) -> Option<String> {
        let i = s.sides.iter().position(|x| x == side)?;
        Some(random::random_orders(self, s, i, dice))
    }

    /// The judge's general's sensible orders (general.rs).
    fn general_orders(
        &self,
        s: &State,
        side: &str,
        dice: &mut dyn Dice,
        variant: u32,
    ) -> Option<String> {
        let i = s.sides.iter().position(|x| x == side)?;
        general::general_orders(self, s, i, dice, variant)
    }

    fn pass_orders(&self, _s: &State, _side: &str) -> Option<String> {
        Some("PASS\n".into())
    }

    fn report(
        &self,
        s: &State,
        events: &[events::Event],
        viewer: &Viewer,
        _mover: Option<&str>,
    ) -> Parts {
        report::parts(self, s, events, viewer)
    }

    fn report_without_board(
        &self,
        s: &State,
        events: &[events::Event],
        viewer: &Viewer,
        _mover: Option<&str>,
    ) -> Parts {
        report::parts_without_board(self, s, events, viewer)
    }

    fn describe_events(
        &self,
        _s: &State,
        events: &[events::Event],
        _viewer: &Viewer,
    ) -> Vec<String> {
        events.iter().filter_map(report::describe).collect()
    }

    fn predict(&self, s: &State, side: &str, orders: &str) -> Result<String, Rejection> {
        predict::predict(self, s, side, orders)
    }

    /// Units destroyed: the victory points of these rulebooks.
    fn score(&self, s: &State) -> Vec<(String, u32)> {
        s.sides
            .iter()
            .cloned()
            .zip(s.destroyed.iter().copied())
            .collect()
    }

    /// Strength points on the board per side.
    fn strength(&self, s: &State) -> Vec<(String, u32)> {
        adjutant_rules::side_sums(&s.sides, s.units.iter().map(|u| (u.side, u.strength)))
    }
}
