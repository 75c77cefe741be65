//! The exported games of the golden corpus: seeded random games played
//! through the service (`Judge::new_game`, `Judge::submit`, a real SQLite
//! file, the clock fixed), their bytes the `export` JSON as `adjutant
//! export` writes it (the host's backup, with the seed, and the players'
//! file) and what `verify` says of it. A game made by `new-game` draws its
//! seed from the OS: [`reseed`] stores the fixed one and the set-up made
//! from it, as the judge makes it, before any order.

use super::games::{master, random_orders, Spec};
use super::manifest::Items;
use crate::common::Site;
use adjutant::engine::dice::{derive, ChaChaDice, Seed};
use adjutant::rules::Load;
use adjutant::rules::{Rules, Scenario};
use adjutant::service::clock::FixedClock;
use adjutant::service::{setup_state, state_hash, GameOptions, Judge, ServiceError};
use std::fmt::Write as _;

/// The judge's clock.
pub const NOW: &str = "2026-11-22T10:00:00Z";

/// Game `id` of the database `db` given the seed `master`: the seed and the
/// set-up made from it stored in place of the OS's. Only for a game that
/// has played no phase yet.
pub fn reseed(db: &rusqlite::Connection, id: i64, master: &Seed) {
    let (ruleset, scenario, options, text, variant, turn): (
        String,
        String,
        String,
        Option<String>,
        Option<String>,
        u32,
    ) = db
        .query_row(
            "SELECT ruleset, scenario, options, scenario_text, ruleset_text, turn \
             FROM games WHERE id = ?1",
            [id],
            |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                ))
            },
        )
        .unwrap();
    assert_eq!(
        turn, 0,
        "game {id} opened with a phase of the judge's own: it cannot be re-seeded"
    );
    let rules = Rules::of_game(&ruleset, variant.as_deref()).unwrap();
    let mut sc = match text {
        Some(t) => {
            Scenario::from_text(&t, &format!("{scenario}.toml"))
                .unwrap()
                .0
        }
        None => Scenario::shipped(&scenario),
    };
    sc.options = serde_json::from_str(&options).unwrap();
    let state = setup_state(&rules, &sc, master).unwrap();
    let json = rules.to_json(&state);
    db.execute(
        "UPDATE games SET seed = ?2 WHERE id = ?1",
        rusqlite::params![id, hex::encode(master)],
    )
    .unwrap();
    let n = db
        .execute(
            "UPDATE snapshots SET state = ?2, state_hash = ?3 WHERE game_id = ?1 AND turn = 0",
            rusqlite::params![id, json, state_hash(&json)],
        )
        .unwrap();
    assert_eq!(n, 1, "game {id}: one set-up snapshot");
}

/// A judge on a fresh site, its clock at [`NOW`].
fn judge(site: &Site) -> Judge {
    let cfg = adjutant::config::Config::load(&site.config()).unwrap();
    let now = chrono::DateTime::parse_from_rfc3339(NOW).unwrap().to_utc();
    Judge::open(cfg, Box::new(FixedClock(now))).unwrap()
}

/// A new game of `spec` with a seat for each side (and a referee under
/// fog of war), seeded with `seed`: its id.
fn new_game(site: &Site, judge: &mut Judge, spec: &Spec, seed: &Seed) -> i64 {
    let rules = spec.rules();
    let scenario = spec.source_for_service(site);
    let mut opts = GameOptions::default();
    if spec.variant {
        opts.ruleset_file = Some(super::games::club_variant());
    }
    for (k, v) in spec.options {
        opts.rule_options.insert((*k).into(), (*v).into());
    }
    if spec.options.iter().any(|(k, _)| *k == "kriegspiel") {
        opts.referee = Some("referee@example.org".into());
    }
    // The sides, from a set-up (any seed).
    let sides = rules.sides(&setup_state(&rules, &spec.source(), seed).unwrap());
    let seats: Vec<(String, String)> = sides
        .iter()
        .map(|s| (s.clone(), format!("{s}@example.org")))
        .collect();
    let id = judge.turns().new_game(&scenario, &seats, &opts).unwrap();
    reseed(&site.db(), id, seed);
    id
}

/// Play seed `n` of `spec` through the service: the item's bytes.
pub fn play(spec: &Spec, n: u64) -> Vec<u8> {
    let site = Site::new();
    let mut judge = judge(&site);
    let master = master(spec, n);
    let id = new_game(&site, &mut judge, spec, &master);
    let mut rng = ChaChaDice::from_seed(derive("adjutant/golden-orders", &[&master]));
    let mut out = String::new();
    let mut refused = Vec::new();
    for _ in 0..spec.max_phases {
        let game = judge.game(id).unwrap();
        let pos = judge.position(&game, None).unwrap();
        let phase = pos.rules.phase(&pos.state);
        if game.status == "over" || phase.sides.is_empty() {
            break;
        }
        for o in random_orders(&pos.rules, &pos.state, &phase.sides, &mut rng) {
            if let Err(ServiceError::Rejected(r)) = judge.turns().submit(id, &o.side, &o.text) {
                refused.push(format!("{}: {r}", o.side));
                let pass = pos.rules.pass_orders(&pos.state, &o.side);
                judge
                    .turns()
                    .submit(id, &o.side, pass.as_deref().unwrap_or("PASS"))
                    .unwrap();
            }
        }
    }
    let backup = judge.exports().export_with(id, true, false).unwrap();
    out.push_str(&(serde_json::to_string_pretty(&backup).unwrap() + "\n"));
    let v = adjutant::service::export::verify(&backup);
    let _ = writeln!(
        out,
        "== verify: {} turns checked\ndifferences:\n{}\nnotes:\n{}",
        v.checked_turns,
        v.differences.join("\n"),
        v.notes.join("\n")
    );
    let _ = writeln!(out, "== refused\n{}", refused.join("\n"));
    match judge.exports().export(id, false) {
        Ok(players) => out.push_str(&(serde_json::to_string_pretty(&players).unwrap() + "\n")),
        Err(e) => {
            let _ = writeln!(out, "== the players' export: {e}");
        }
    }
    out.replace(&site.path().display().to_string(), "SITE")
        .into_bytes()
}

/// Play the exported games (seeds 0..`deep` of every spec at the deep
/// depth, seed 0 of the quick specs at the quick one) into `items`.
pub fn run(specs: &[Spec], deep: u64, items: &mut Items) {
    let full = super::manifest::full();
    for spec in specs {
        // A game whose first phase is the judge's own plays it in
        // `new-game`, with the OS's seed: it cannot be re-seeded.
        let rules = spec.rules();
        let opening = setup_state(&rules, &spec.source(), &[0; 32]).unwrap();
        if rules.phase(&opening).sides.is_empty() {
            println!(
                "golden: {} opens with a phase of the judge's own: not through the service",
                spec.name(0)
            );
            continue;
        }
        let seeds = if full { deep } else { u64::from(spec.quick) };
        for n in 0..seeds {
            let name = spec.name(n).replacen("game ", "export ", 1);
            items.add(&name, &play(spec, n));
        }
    }
}
