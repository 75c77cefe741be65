//! `adjutant duel` (docs/general.md): the judge's general against the
//! random-order player, a side that passes every turn, or itself, in games
//! set up and adjudicated exactly as the service does (`setup_state`,
//! `adjudicate_turn`: the same seeds, dice streams and phase numbers).

use crate::engine::dice::{derive, ChaChaDice, Seed};
use crate::rules::{Orders, Rules, Scenario, State, Viewer};
use crate::service::{adjudicate_turn, setup_state, ServiceError};
use adjutant_general::Settings;

/// Who the general plays against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opponent {
    /// The family's random legal orders (the property tests' generator).
    Random,
    /// Pass orders every phase (the orders of a missed deadline).
    Pass,
    /// The general itself.
    Ai,
}

impl Opponent {
    /// `random`, `pass` or `ai`.
    #[must_use]
    pub fn parse(word: &str) -> Option<Opponent> {
        match word {
            "random" => Some(Opponent::Random),
            "pass" => Some(Opponent::Pass),
            "ai" => Some(Opponent::Ai),
            _ => None,
        }
    }
    /// The word the CLI takes and prints.
    #[must_use]
    pub fn word(self) -> &'static str {
        match self {
            Opponent::Random => "random",
            Opponent::Pass => "pass",
            Opponent::Ai => "ai",
        }
    }
}

/// How one game of a duel ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Game {
    /// The side the general played.
    pub ai_side: String,
    /// The winner (`""` a draw), or `None`: not over at the phase limit.
    pub winner: Option<String>,
    /// Phases played.
    pub phases: u32,
    /// The longest the general took to decide a phase (wall clock, for
    /// the figures of docs/general.md; never part of a game).
    pub slowest: std::time::Duration,
}

impl Game {
    /// The general won.
    #[must_use]
    pub fn ai_won(&self) -> bool {
        self.winner.as_deref() == Some(self.ai_side.as_str())
    }
}

/// A game's phases are cut off here (an unfinished game is no win).
pub const PHASE_LIMIT: u32 = 600;

/// The master seed of game `n` of a duel seeded `seed`.
#[must_use]
pub fn game_seed(seed: u64, n: u32) -> Seed {
    derive("adjutant/duel", &[&seed.to_be_bytes(), &n.to_be_bytes()])
}

/// Play one game of `scenario`: the general as `ai_side`, every other side
/// by `against`.
pub fn play(
    rules: &Rules,
    scenario: &Scenario,
    master: &Seed,
    ai_side: &str,
    against: Opponent,
    settings: Settings,
) -> Result<Game, ServiceError> {
    play_watched(
        rules,
        scenario,
        master,
        ai_side,
        against,
        settings,
        &mut |_, _| {},
    )
}

/// [`play`], and `watch` is shown each position the general decides in
/// (the judge's phase count, the state) before it decides: the criterion
/// bench (bench/benches/general.rs) times the general on a game's
/// positions, not only on the opening.
pub fn play_watched(
    rules: &Rules,
    scenario: &Scenario,
    master: &Seed,
    ai_side: &str,
    against: Opponent,
    settings: Settings,
    watch: &mut dyn FnMut(u32, &State),
) -> Result<Game, ServiceError> {
    let mut state = setup_state(rules, scenario, master)?;
    let mut turn = 0u32;
    let mut slowest = std::time::Duration::ZERO;
    while rules.result(&state).is_none() && turn < PHASE_LIMIT {
        let phase = rules.phase(&state);
        let mut orders = Vec::new();
        for side in &phase.sides {
            let who = if side == ai_side {
                Opponent::Ai
            } else {
                against
            };
            if who == Opponent::Ai {
                watch(turn, &state);
            }
            let started = std::time::Instant::now();
            let text = orders_of(rules, &state, side, who, master, turn, settings);
            if who == Opponent::Ai {
                slowest = slowest.max(started.elapsed());
            }
            tracing::trace!(phase = turn + 1, side = %side, by = who.word(), orders = %text.trim_end().replace('\n', "; "), "duel orders");
            orders.push(Orders {
                side: side.clone(),
                text,
            });
        }
        let adj = match adjudicate_turn(rules, &state, master, turn + 1, &orders) {
            Ok(adj) => adj,
            // As the service does with orders refused at adjudication: the
            // phase is played with every side's pass orders.
            // A phase no orders can play ends the game unfinished.
            Err(_) => {
                let passes: Vec<Orders> = phase
                    .sides
                    .iter()
                    .map(|s| Orders {
                        side: s.clone(),
                        text: orders_of(rules, &state, s, Opponent::Pass, master, turn, settings),
                    })
                    .collect();
                match adjudicate_turn(rules, &state, master, turn + 1, &passes) {
                    Ok(adj) => adj,
                    Err(_) => break,
                }
            }
        };
        turn += 1;
        if tracing::enabled!(tracing::Level::TRACE) {
            // =trace: what each phase did, as the referee reads it.
            for line in rules.describe_events(&adj.state, &adj.events, &Viewer::Referee) {
                tracing::trace!(phase = turn, "{line}");
            }
        }
        state = rules.numbered(adj.state, turn);
    }
    // ADJUTANT_LOG=adjutant::duel=debug: how each game ended, to watch a
    // duel game by game (=trace: every side's orders, phase by phase).
    tracing::debug!(
        ai = ai_side,
        winner = ?rules.result(&state),
        phases = turn,
        score = ?rules.score(&state),
        strength = ?rules.strength(&state),
        "duel game over"
    );
    Ok(Game {
        ai_side: ai_side.to_string(),
        winner: rules.result(&state),
        phases: turn,
        slowest,
    })
}

/// One side's orders for the phase, by whoever plays it.
fn orders_of(
    rules: &Rules,
    state: &State,
    side: &str,
    who: Opponent,
    master: &Seed,
    turn: u32,
    settings: Settings,
) -> String {
    let random = || {
        // The random-game driver's player: random orders `check` accepts,
        // a few tries, else a pass.
        let mut rng = ChaChaDice::from_seed(derive(
            "adjutant/duel-random",
            &[master, &turn.to_be_bytes(), side.as_bytes()],
        ));
        for _ in 0..8 {
            match rules.random_orders(state, side, &mut rng) {
                Some(t) if rules.check(state, side, &t).is_ok() => return Some(t),
                Some(_) => {}
                None => break,
            }
        }
        None
    };
    // A side with no pass orders in a phase (Memoir '44 with no card that
    // orders no unit) gives random ones.
    let pass = || {
        rules
            .pass_orders(state, side)
            .filter(|t| rules.check(state, side, t).is_ok())
            .or_else(random)
            .unwrap_or_default()
    };
    match who {
        Opponent::Pass => pass(),
        Opponent::Ai => adjutant_general::decide(rules, state, side, master, turn, settings)
            .map_or_else(pass, |d| d.orders),
        Opponent::Random => random().unwrap_or_else(pass),
    }
}

/// A duel's results: per side the general played, (won, lost, drawn,
/// unfinished).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tally {
    pub games: Vec<Game>,
}

impl Tally {
    /// Games the general won.
    #[must_use]
    pub fn won(&self) -> usize {
        self.games.iter().filter(|g| g.ai_won()).count()
    }
    /// The lines `adjutant duel` prints: one per side the general played,
    /// and the last `ai won W of N games against X`.
    #[must_use]
    pub fn lines(&self, sides: &[String], against: Opponent) -> Vec<String> {
        let mut out = Vec::new();
        for side in sides {
            let mine: Vec<&Game> = self.games.iter().filter(|g| &g.ai_side == side).collect();
            let won = mine.iter().filter(|g| g.ai_won()).count();
            let drawn = mine
                .iter()
                .filter(|g| g.winner.as_deref() == Some(""))
                .count();
            let open = mine.iter().filter(|g| g.winner.is_none()).count();
            let lost = mine.len() - won - drawn - open;
            let phases: u32 = mine.iter().map(|g| g.phases).sum();
            out.push(format!(
                "ai as {side}: {} games, {won} won, {lost} lost, {drawn} drawn, {open} unfinished at {PHASE_LIMIT} phases ({} phases a game)",
                mine.len(),
                phases / u32::try_from(mine.len().max(1)).unwrap_or(1)
            ));
        }
        let slowest = self
            .games
            .iter()
            .map(|g| g.slowest)
            .max()
            .unwrap_or_default();
        out.push(format!("slowest decision: {} ms", slowest.as_millis()));
        out.push(format!(
            "ai won {} of {} games against {}",
            self.won(),
            self.games.len(),
            against.word()
        ));
        out
    }
}

/// Play `games` games of `scenario`, the general taking the scenario's sides
/// in turn (game n plays side n mod sides), game n seeded from `seed` and n.
pub fn duel(
    rules: &Rules,
    scenario: &Scenario,
    games: u32,
    seed: u64,
    against: Opponent,
    settings: Settings,
) -> Result<Tally, ServiceError> {
    let sides = rules.sides(&setup_state(rules, scenario, &game_seed(seed, 0))?);
    let mut tally = Tally::default();
    for n in 0..games {
        let side = &sides[n as usize % sides.len().max(1)];
        tally.games.push(play(
            rules,
            scenario,
            &game_seed(seed, n),
            side,
            against,
            settings,
        )?);
    }
    Ok(tally)
}
