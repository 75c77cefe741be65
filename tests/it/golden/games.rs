//! The games of the golden corpus: seeded random games of every shipped
//! ruleset, played through the `Rules` contract the service uses, with
//! the service's own set-up and dice (`service::setup_state`,
//! `service::adjudicate_turn`) and its store form (`to_json`, `restore`,
//! `numbered`, `state_hash`). An item is the whole game as text: the
//! set-up state, then every phase's orders, the check's answer, the events,
//! the state's hash and every viewer's description of the events; the
//! reports (`render_text` and every part of `report_parts`) of every
//! viewer (each side, the referee, an observer) at the set-up, every
//! [`REPORT_EVERY`] phases and at the end; the result, the score and the
//! final state.

use adjutant::engine::dice::{derive, ChaChaDice, Seed};
use adjutant::rules::measured::ChargeRuleset as _;
use adjutant::rules::Load;
use adjutant::rules::{measured, memoir44, memoir_grid, syw};
use adjutant::rules::{Orders, Rules, Scenario, State, Viewer};
use adjutant::service::{adjudicate_turn, setup_state, state_hash};
use std::fmt::Write as _;

/// Seeds of every spec played through the service too, at the deep depth.
const EXPORTED_SEEDS: u64 = 3;

/// The reports of every viewer are kept every this many phases.
const REPORT_EVERY: u32 = 10;

/// One kind of game of the corpus: a ruleset's scenario, with options.
pub struct Spec {
    pub ruleset: &'static str,
    pub scenario: &'static str,
    /// Game options (`new-game --option KEY=VALUE`).
    pub options: &'static [(&'static str, &'static str)],
    /// A grid scenario set up on the other grid kind (from its text).
    pub other_grid: bool,
    /// Played under the house-rule variant [`club_variant`].
    pub variant: bool,
    /// Seeds 0..seeds at the deep depth.
    pub seeds: u64,
    /// The most phases a game plays.
    pub max_phases: u32,
    /// Seed 0 is played at the quick depth too.
    pub quick: bool,
}

impl Spec {
    /// The item's name for seed `n`: `game RULESET SCENARIO[+OPTIONS] seed=NN`.
    pub fn name(&self, n: u64) -> String {
        let mut what = self.scenario.to_string();
        if self.other_grid {
            what.push_str("+other-grid");
        }
        if self.variant {
            what.push_str("+club-variant");
        }
        for (k, v) in self.options {
            let _ = write!(what, "+{k}={v}");
        }
        format!("game {} {what} seed={n:03}", self.ruleset)
    }

    /// The spec's rules: the shipped ruleset, or the club's variant.
    pub fn rules(&self) -> Rules {
        if self.variant {
            let (file, text) = club_variant();
            Rules::from_text(&text, &file).expect("the variant")
        } else {
            Rules::load(self.ruleset).expect("ruleset")
        }
    }

    /// The scenario's text set on the other grid kind (`other_grid`).
    fn other_grid_text(&self) -> (String, String) {
        let file = format!("{}.toml", self.scenario);
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("scenarios")
            .join(self.ruleset)
            .join(&file);
        let text = std::fs::read_to_string(&path).expect("the scenario's file");
        let swapped = if text.contains("grid = \"hex\"") {
            text.replace("grid = \"hex\"", "grid = \"square\"")
        } else {
            assert!(text.contains("grid = \"square\""), "{file}: a grid kind");
            text.replace("grid = \"square\"", "grid = \"hex\"")
        };
        (file, swapped)
    }

    /// The scenario with the spec's options.
    pub fn source(&self) -> Scenario {
        let mut sc = if self.other_grid {
            let (file, text) = self.other_grid_text();
            Scenario::from_text(&text, &file).expect("scenario").0
        } else {
            Scenario::shipped(self.scenario)
        };
        for (k, v) in self.options {
            sc.options.insert((*k).into(), (*v).into());
        }
        sc
    }

    /// What `new-game --scenario` takes for it: the shipped id, or a file
    /// written in `site` (`other_grid`).
    pub fn source_for_service(&self, site: &crate::common::Site) -> String {
        if !self.other_grid {
            return self.scenario.to_string();
        }
        let (file, text) = self.other_grid_text();
        let path = site.path().join(file);
        std::fs::write(&path, text).expect("write the scenario");
        path.display().to_string()
    }
}

/// Every side, the referee and an observer.
fn viewers(rules: &Rules, state: &State) -> Vec<Viewer> {
    let mut v: Vec<Viewer> = rules.sides(state).into_iter().map(Viewer::Side).collect();
    v.push(Viewer::Referee);
    v.push(Viewer::Observer);
    v
}

/// The house-rule variant of the corpus (a club's ruleset file, kept with
/// the game): Memoir '44 with Regular Infantry battling with 3, 3 and 2
/// dice at ranges 1, 2 and 3: (file name, text).
pub fn club_variant() -> (String, String) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("rulesets/memoir44.toml");
    let text = std::fs::read_to_string(path).expect("the shipped ruleset");
    assert!(text.contains("id = \"memoir44\"") && text.contains("dice = [3, 2, 1]"));
    let text = text
        .replacen("id = \"memoir44\"", "id = \"memoir44-club\"", 1)
        .replacen("dice = [3, 2, 1]", "dice = [3, 3, 2]", 1);
    ("memoir44-club.toml".into(), text)
}

/// A viewer in words (not its `Debug` form, which a refactoring may change).
fn viewer_name(v: &Viewer) -> String {
    match v {
        Viewer::Side(s) => format!("side {s}"),
        Viewer::Referee => "the referee".into(),
        Viewer::Observer => "an observer".into(),
        Viewer::Revealed(None) => "the revealed board".into(),
        Viewer::Revealed(Some(s)) => format!("the revealed sight of {s}"),
    }
}

/// Random legal orders of every side the phase needs, from the family's
/// own generator.
pub fn random_orders(
    rules: &Rules,
    state: &State,
    sides: &[String],
    rng: &mut ChaChaDice,
) -> Vec<Orders> {
    match rules.family() {
        "memoir44" => {
            let r = memoir44::Ruleset::builtin().expect("ruleset");
            let st = state.get::<memoir44::State>().expect("a Memoir '44 state");
            sides
                .iter()
                .map(|s| Orders {
                    side: s.clone(),
                    text: memoir44::random_orders(&r, st, s, rng),
                })
                .collect()
        }
        "memoir_grid" => {
            let r = memoir_grid::Ruleset::builtin(rules.id()).expect("ruleset");
            let st = state.get::<memoir_grid::State>().expect("a grid state");
            memoir_grid::random::random_phase(&r, st, rng)
        }
        "syw" => {
            let r = syw::builtin().expect("ruleset");
            let st = state.get::<syw::State>().expect("a measured state");
            measured::random::random_move(&r, st, rng)
        }
        "measured" => {
            let r = measured::Ruleset::builtin(rules.id()).expect("ruleset");
            let st = state
                .get::<measured::charge::State>()
                .expect("a measured state");
            measured::random::random_move(&r, st, rng)
        }
        other => panic!("the golden corpus has no order generator for the family {other}"),
    }
}

/// Every viewer's text view and report parts.
fn reports(
    out: &mut String,
    rules: &Rules,
    state: &State,
    events: &[adjutant::rules::Event],
    mover: Option<&str>,
) {
    for v in viewers(rules, state) {
        let p = rules.report_parts(state, events, &v, mover);
        let _ = writeln!(out, "== report for {}", viewer_name(&v));
        let _ = writeln!(out, "-- render_text\n{}", rules.render_text(state, &v));
        let _ = writeln!(out, "-- map\n{}\n-- compact\n{}", p.map, p.compact);
        let orders = p.orders.as_deref().unwrap_or("(none)");
        let _ = writeln!(out, "-- combat\n{}\n-- orders\n{orders}", p.combat);
        let _ = writeln!(out, "-- board_html\n{}\n-- svg\n{}", p.board_html, p.svg);
        let _ = writeln!(out, "-- json\n{}", p.json);
    }
}

/// Each side's orders, checked as the service checks a mail's: refused
/// orders are written down and replaced by the side's pass orders.
fn checked(out: &mut String, rules: &Rules, state: &State, orders: Vec<Orders>) -> Vec<Orders> {
    orders
        .into_iter()
        .map(|o| {
            let _ = writeln!(out, "orders {}:\n{}", o.side, o.text.trim_end());
            match rules.check(state, &o.side, &o.text) {
                Ok(lines) => {
                    let _ = writeln!(out, "checked:\n  {}", lines.join("\n  "));
                    o
                }
                Err(e) => {
                    let pass = rules
                        .pass_orders(state, &o.side)
                        .unwrap_or_else(|| "PASS".into());
                    let _ = writeln!(out, "refused: {e}\npassing instead:\n{pass}");
                    Orders {
                        side: o.side,
                        text: pass,
                    }
                }
            }
        })
        .collect()
}

/// Seed `n` of `spec`: its master seed.
pub fn master(spec: &Spec, n: u64) -> Seed {
    derive("adjutant/golden", &[spec.name(n).as_bytes()])
}

/// Play seed `n` of `spec`: the item's bytes.
pub fn play(spec: &Spec, n: u64) -> Vec<u8> {
    let rules = spec.rules();
    let master = master(spec, n);
    let mut rng = ChaChaDice::from_seed(derive("adjutant/golden-orders", &[&master]));
    let mut out = String::new();
    let _ = writeln!(out, "{}\nmaster seed {}", spec.name(n), hex::encode(master));
    let mut state = setup_state(&rules, &spec.source(), &master).expect("set-up");
    let json = rules.to_json(&state);
    let _ = writeln!(out, "setup {}\nstate {json}", state_hash(&json));
    reports(&mut out, &rules, &state, &[], None);
    let mut turn = 0;
    while turn < spec.max_phases && rules.result(&state).is_none() {
        let phase = rules.phase(&state);
        let _ = writeln!(
            out,
            "\n=== phase {}: {}; needs [{}]; {}",
            turn + 1,
            phase.name,
            phase.sides.join(", "),
            phase.what
        );
        let orders = random_orders(&rules, &state, &phase.sides, &mut rng);
        let orders = checked(&mut out, &rules, &state, orders);
        turn += 1;
        let adj = match adjudicate_turn(&rules, &state, &master, turn, &orders) {
            Ok(adj) => adj,
            Err(e) => {
                let _ = writeln!(out, "adjudication refused: {e}");
                break;
            }
        };
        for e in &adj.events {
            let _ = writeln!(out, "event {}", e.to_store());
        }
        let json = rules.to_json(&adj.state);
        let _ = writeln!(out, "state {}", state_hash(&json));
        for v in viewers(&rules, &adj.state) {
            let lines = rules.describe_events(&adj.state, &adj.events, &v);
            let _ = writeln!(
                out,
                "described for {}:\n  {}",
                viewer_name(&v),
                lines.join("\n  ")
            );
        }
        if turn % REPORT_EVERY == 0 {
            let mover = orders.first().map(|o| o.side.as_str());
            reports(&mut out, &rules, &adj.state, &adj.events, mover);
        }
        // As the service does: a phase of the judge's own follows at once
        // on the state in hand; otherwise the next phase starts from the
        // stored state.
        state = if rules.phase(&adj.state).sides.is_empty() && rules.result(&adj.state).is_none() {
            adj.state
        } else {
            rules.numbered(rules.restore(&json).expect("restore"), turn)
        };
    }
    let result = match rules.result(&state) {
        None => "none".to_string(),
        Some(w) if w.is_empty() => "a draw".to_string(),
        Some(w) => format!("{w} wins"),
    };
    let score: Vec<String> = rules
        .score(&state)
        .iter()
        .map(|(s, p)| format!("{s} {p}"))
        .collect();
    let _ = writeln!(
        out,
        "\n=== end after {turn} phases: result {result}; score {}; fog of war {}",
        score.join(", "),
        rules.fog_of_war(&state)
    );
    let _ = writeln!(out, "state {}", rules.to_json(&state));
    reports(&mut out, &rules, &state, &[], None);
    out.into_bytes()
}

const NONE: &[(&str, &str)] = &[];

/// Deep seeds of a shipped Memoir '44 scenario, of a Memoir '44 game with
/// options, of a grid scenario (and on the other grid kind), of a measured
/// scenario.
const M44_SEEDS: u64 = 30;
const M44_OPTION_SEEDS: u64 = 15;
const GRID_SEEDS: u64 = 60;
const OTHER_GRID_SEEDS: u64 = 50;
const MEASURED_SEEDS: u64 = 50;

/// The shipped Memoir '44 scenarios when the corpus was recorded (a
/// scenario shipped later joins the list with a rewrite of the manifest).
const M44_SCENARIOS: &[&str] = &[
    "pegasus-bridge",
    "sainte-mere-eglise",
    "arnhem-bridge",
    "bir-hakeim",
    "fall-of-london",
    "maleme",
    "merville-battery",
    "miteiriya-ridge",
];

/// The Memoir '44 games with options: (scenario, options).
const M44_OPTIONS: &[(&str, &[(&str, &str)])] = &[
    ("pegasus-bridge", &[("kriegspiel", "true")]),
    ("sainte-mere-eglise", &[("kriegspiel", "true")]),
    ("pegasus-bridge", &[("weather", "night")]),
    ("sainte-mere-eglise", &[("blitzkrieg", "axis")]),
    ("pegasus-bridge", &[("young-generals", "true")]),
    ("pegasus-bridge", &[("zombies", "axis")]),
];

/// Every game kind of the corpus, family by family. At the quick depth
/// seed 0 of each is played through the `Rules` contract, and seed 0 of
/// those marked `quick` through the service too.
pub fn specs(family: &str) -> Vec<Spec> {
    let spec = |ruleset, scenario, options, other_grid, seeds, max_phases, quick| Spec {
        ruleset,
        scenario,
        options,
        other_grid,
        variant: false,
        seeds,
        max_phases,
        quick,
    };
    match family {
        "memoir44" => {
            let mut v: Vec<Spec> = M44_SCENARIOS
                .iter()
                .map(|s| {
                    spec(
                        "memoir44",
                        s,
                        NONE,
                        false,
                        M44_SEEDS,
                        200,
                        *s == "pegasus-bridge",
                    )
                })
                .collect();
            for (i, (sc, options)) in M44_OPTIONS.iter().enumerate() {
                v.push(spec(
                    "memoir44",
                    sc,
                    options,
                    false,
                    M44_OPTION_SEEDS,
                    200,
                    i == 0,
                ));
            }
            let plain = spec(
                "memoir44",
                "pegasus-bridge",
                NONE,
                false,
                M44_OPTION_SEEDS,
                200,
                false,
            );
            v.push(Spec {
                variant: true,
                ..plain
            });
            v
        }
        "memoir_grid" => ["memoir-of-battle", "memoir-of-modern-battle"]
            .into_iter()
            .flat_map(|rs| {
                let sc = if rs == "memoir-of-battle" {
                    "le-cateau-1914"
                } else {
                    "villers-bocage-1944"
                };
                [
                    spec(rs, sc, NONE, false, GRID_SEEDS, 200, true),
                    spec(rs, sc, NONE, true, OTHER_GRID_SEEDS, 200, false),
                ]
            })
            .collect(),
        "measured" => vec![
            spec(
                "charge",
                "el-bodon-1811",
                NONE,
                false,
                MEASURED_SEEDS,
                40,
                true,
            ),
            spec(
                "charge",
                "fuentes-de-onoro-1811",
                NONE,
                false,
                MEASURED_SEEDS,
                40,
                false,
            ),
        ],
        "syw" => vec![spec(
            "seven-years-war",
            "minden-1759",
            NONE,
            false,
            MEASURED_SEEDS,
            40,
            true,
        )],
        other => panic!("no golden games for the family {other}"),
    }
}

/// Play the family's games (every seed at the deep depth, seed 0 at the
/// quick one; and some through the service) and settle them against the
/// manifest.
pub fn run(family: &str) {
    let full = super::manifest::full();
    let specs = specs(family);
    // Every shipped ruleset of the family has games here.
    let entry = adjutant::rules::families()
        .iter()
        .find(|f| f.name == family)
        .expect("a family");
    for rs in entry.rulesets {
        assert!(
            specs.iter().any(|s| s.ruleset == *rs),
            "no golden games of {rs}"
        );
    }
    let t0 = std::time::Instant::now();
    let mut items = super::manifest::Items::default();
    for spec in &specs {
        let seeds = if full { spec.seeds } else { 1 };
        for n in 0..seeds {
            items.add(&spec.name(n), &play(spec, n));
        }
    }
    println!(
        "golden {family}: {} games in {:.1?}",
        items.0.len(),
        t0.elapsed()
    );
    let t0 = std::time::Instant::now();
    let games = items.0.len();
    super::exports::run(&specs, EXPORTED_SEEDS, &mut items);
    println!(
        "golden {family}: {} games through the service in {:.1?}",
        items.0.len() - games,
        t0.elapsed()
    );
    let prefix: Vec<String> = entry
        .rulesets
        .iter()
        .flat_map(|r| [format!("game {r} "), format!("export {r} ")])
        .collect();
    super::manifest::settle(&prefix, &items, full);
}
