//! The Seven Years' War's procedures on the measured core: player-turns,
//! the active side's orders, the other side answering by its standing
//! orders ([`super::engine`], [`super::orders`]).

use super::{engine, orders, template};
use crate::case::CaseSequence;
use crate::ruleset::Troop;
use crate::state::{footprint, Placement};
use crate::Ruleset;
use crate::{Outcome, Procedures};
use crate::{State, Unit};
use adjutant_dice::Dice;
use adjutant_rules::{Chance, Orders, Phase, Rejection};

/// The Seven Years' War's procedures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SevenYearsWar;

impl Procedures<SevenYearsWar> for SevenYearsWar {
    fn name(&self) -> &'static str {
        "the Seven Years' War"
    }

    fn order_words(&self) -> &'static [&'static str] {
        orders::ORDER_WORDS
    }

    fn order_help(&self) -> String {
        "Seven Years' War orders, one line per unit or brigade, steps in order;
the judge throws the movement dice, so FORWARD n goes up to n inches:
  UNIT <name>: FORWARD 8, WHEEL LEFT 20
  UNIT <name>: FORWARD ALL                 as far as the dice allow
  BRIGADE <brigade>: FORWARD ALL            one throw for the brigade, +1 die
  REGIMENT <regt>: FORWARD ALL              its squadrons: one throw, one body
  REGIMENT <regt>: CHARGE u WITH <squadron> it charges, the others support
  steps: FORWARD n|ALL | BACK n | WHEEL LEFT|RIGHT deg | ABOUT | HOLD
         FORM LINE|MARCH|ATTACK|SQUARE|OPEN | LIMBER | UNLIMBER
         FIRE AT u (units that move cannot fire) | CHARGE u   (last step)
         REFUSE LEFT|RIGHT <files> BACK|FORWARD deg   turn a line's wing
         FIRE AT u WITH LEFT|CENTRE|RIGHT [BONUS]     one section of it fires
  STANDING <name>: EVADE | STAND | COUNTER-CHARGE,
                   RESPONSE FIRE | HOLD FIRE, FIGHT ON | BREAK OFF   (or NONE)
  FOG BRIGADE <brigade> | FOG GUNS <u> [<u> <u>]  if the fog-of-war table calls
  SPLIT <battery>                        one gun and its crew become <battery>-2
  RETREAT <name>                         manufactured retreat (melee lost by 1)
  PASS                                   no orders this player-turn
"
        .to_string()
    }

    fn needs(&self, st: &State) -> Vec<usize> {
        engine::needs(st)
    }

    fn orderable(&self, u: &Unit) -> Result<(), String> {
        engine::orderable(u)
    }

    fn phase(&self, s: &State) -> Phase {
        let sides: Vec<String> = engine::needs(s)
            .iter()
            .map(|i| s.sides[*i].clone())
            .collect();
        let what = if s.over {
            "game over".to_string()
        } else {
            format!(
                "turn {}: {}'s player-turn (the other side answers by its standing orders)",
                s.turn,
                sides.join(", ")
            )
        };
        Phase {
            name: if s.over { "over" } else { "player-turn" }.into(),
            sides,
            what,
        }
    }

    fn predict(
        &self,
        r: &Ruleset,
        st: &State,
        side: &str,
        orders: &str,
    ) -> Result<String, Rejection> {
        super::predict::predict(r, st, side, orders)
    }

    fn check(
        &self,
        r: &Ruleset,
        s: &State,
        side: &str,
        text: &str,
    ) -> Result<Vec<String>, Rejection> {
        let o = [Orders {
            side: side.to_string(),
            text: text.to_string(),
        }];
        engine::run(r, s, &o, None)?;
        let steps = |steps: &[orders::Step]| {
            steps
                .iter()
                .map(orders::Step::canonical)
                .collect::<Vec<_>>()
                .join(", ")
        };
        Ok(orders::parse(text)?
            .into_iter()
            .map(|(_, text, l)| match l {
                orders::Line::Pass => "PASS".to_string(),
                orders::Line::Unit { id, steps: st } => format!(
                    "UNIT {}: {}",
                    s.unit(&id).map_or(id.clone(), |u| u.id.clone()),
                    steps(&st)
                ),
                orders::Line::Brigade { id, steps: st } => format!("BRIGADE {id}: {}", steps(&st)),
                _ => text.to_ascii_uppercase(),
            })
            .collect())
    }

    fn check_side(
        &self,
        r: &Ruleset,
        st: &State,
        side: usize,
        text: &str,
    ) -> Result<(), Rejection> {
        engine::check(r, st, side, text).map(|_| ())
    }

    fn run(
        &self,
        r: &Ruleset,
        st: &State,
        orders: &[Orders],
        chance: Option<&mut Chance<'_>>,
    ) -> Result<Outcome<Self>, Rejection> {
        engine::run(r, st, orders, chance)
    }

    /// A fresh position's sequence of play (the active side, effects in
    /// force, units off the table).
    fn start(&self, st: &mut State) {
        st.syw = Some(Box::default());
    }

    /// Its experience, brigade and marker; held off the table when it
    /// starts there ("Off table movement via umpire").
    fn place_unit(
        &self,
        r: &Ruleset,
        t: &Troop,
        p: &Placement<crate::SywKeys>,
        mut u: Unit,
        st: &mut State,
    ) -> Result<Option<Unit>, String> {
        if let Some(sy) = &r.syw {
            super::place_unit(sy, t, p, &mut u)?;
        }
        if p.book.off_table {
            let fp = footprint(r, &u);
            super::entry::hold_off_table(st, u, p.book.delayed.min(20), &fp)?;
            return Ok(None);
        }
        Ok(Some(u))
    }

    /// A case's active side and effects in force.
    fn case_position(
        &self,
        r: &Ruleset,
        st: &mut State,
        case: &CaseSequence<'_>,
    ) -> Result<(), (&'static str, String)> {
        let sides = st.sides.clone();
        let Some(seq) = st.syw.as_mut() else {
            return Ok(());
        };
        if let Some(a) = case.active {
            seq.active = case
                .sides
                .map_or_else(
                    || vec!["british".into(), "french".into()],
                    <[String]>::to_vec,
                )
                .iter()
                .position(|s| s.eq_ignore_ascii_case(a.trim()))
                .ok_or_else(|| ("active", format!("unknown side '{a}'")))?;
        }
        for e in case.effects {
            let side = sides
                .iter()
                .position(|s| s.eq_ignore_ascii_case(e.side.trim()))
                .ok_or_else(|| ("effects", format!("unknown side '{}'", e.side)))?;
            let name = r
                .syw
                .as_ref()
                .and_then(|t| t.fog.values().flatten().find(|f| f.id == e.id))
                .map_or_else(|| e.id.clone(), |f| f.name.clone());
            seq.effects.push(super::Effect {
                id: e.id.clone(),
                name,
                side,
                until: e.until,
                checks: e.checks,
                units: e.units.iter().map(|u| u.to_ascii_uppercase()).collect(),
            });
        }
        Ok(())
    }

    fn off_table<'s>(&self, st: &'s State) -> Vec<&'s Unit> {
        super::entry::reserves(st).iter().map(|x| &x.unit).collect()
    }

    fn bring_on(&self, st: &mut State, k: usize) {
        if let Some(seq) = st.syw.as_mut() {
            if k < seq.off_table.len() {
                seq.off_table.remove(k);
            }
        }
    }

    /// The umpire's MARKER and OFF (off-table movement).
    fn amend_unit(&self, st: &mut State, k: usize, rest: &[&str]) -> Option<Result<(), String>> {
        match rest {
            ["MARKER", m] => {
                st.units[k].marker = match *m {
                    "RED" => Some("red".into()),
                    "ORANGE" => Some("orange".into()),
                    "NONE" => None,
                    _ => return Some(Err("MARKER RED, MARKER ORANGE or MARKER NONE".into())),
                };
            }
            ["OFF"] => {
                let mut u = st.units.remove(k);
                u.melee = None;
                crate::amend::out_of_melee(st, &u.id);
                let seq = st.syw.get_or_insert_with(Box::default);
                u.forced = None;
                seq.off_table.push(super::entry::Reserve {
                    unit: u,
                    delayed: 0,
                });
            }
            _ => return None,
        }
        Some(Ok(()))
    }

    fn effects_in_force(&self, st: &State) -> Vec<String> {
        st.syw
            .as_ref()
            .map(|s| s.effects.iter().map(|x| x.id.clone()).collect())
            .unwrap_or_default()
    }

    fn template(&self, r: &Ruleset, st: &State, side: usize, _name: &str) -> Option<String> {
        template::template(r, st, side)
    }

    /// The Seven Years' War's own lines: standing orders and the fog
    /// table's choices, now and then.
    fn random_lines(
        &self,
        r: &Ruleset,
        st: &State,
        side: usize,
        rng: &mut dyn Dice,
    ) -> Vec<String> {
        let mut lines = Vec::new();
        let mine: Vec<String> = st
            .units
            .iter()
            .filter(|u| u.side == side)
            .map(|u| u.id.clone())
            .collect();
        // FOG BRIGADE names one of the side's infantry brigades.
        let brigades = template::fog_brigades(r, st, side);
        if let Some(u) = crate::random::pick(rng, &mine) {
            let cavalry = st
                .unit(u)
                .and_then(|u| r.troop(&u.troop))
                .is_some_and(|t| t.class == "cavalry");
            let s = match rng.roll(7) {
                1 => "EVADE",
                2 => "STAND",
                3 if cavalry => "COUNTER-CHARGE",
                3 => "STAND",
                4 => "HOLD FIRE",
                5 => "BREAK OFF",
                6 => "FIGHT ON",
                _ => "RESPONSE FIRE",
            };
            lines.push(format!("STANDING {u}: {s}"));
        }
        if let Some(b) = crate::random::pick(rng, &brigades) {
            lines.push(format!("FOG BRIGADE {b}"));
        }
        let guns: Vec<String> = st
            .units
            .iter()
            .filter(|u| u.side == side && r.troop(&u.troop).is_some_and(|t| t.class == "artillery"))
            .map(|u| u.id.clone())
            .collect();
        if !guns.is_empty() {
            lines.push(format!(
                "FOG GUNS {}",
                guns.iter().take(3).cloned().collect::<Vec<_>>().join(" ")
            ));
        }
        lines
    }

    fn random_step(&self, k: u32, rng: &mut dyn Dice) -> Option<String> {
        match k {
            1 => Some("FORWARD ALL".into()),
            5 => Some(
                match rng.roll(6) {
                    1 => "FORM LINE",
                    2 => "FORM MARCH",
                    3 => "FORM ATTACK",
                    4 => "FORM SQUARE",
                    5 => "LIMBER",
                    _ => "UNLIMBER",
                }
                .into(),
            ),
            _ => None,
        }
    }
}
