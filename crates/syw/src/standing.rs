//! Checks of the Seven Years' War lines that take effect only when
//! something happens: standing orders (docs/orders.md: "`EVADE`, `STAND`
//! or `COUNTER-CHARGE` (cavalry only) for when it is charged; `RESPONSE
//! FIRE` or `HOLD FIRE`; `FIGHT ON` or `BREAK OFF`") and the fog-of-war
//! lines `FOG BRIGADE` / `FOG GUNS`. A line the judge could not carry out
//! as written is refused when the orders are read, naming it, rather than
//! set aside when the charge or the fog event comes.

use crate::Ruleset;
use crate::State;

/// The standing orders that exclude each other: one of each group.
pub const GROUPS: &[&[&str]] = &[
    &["EVADE", "STAND", "COUNTER-CHARGE"],
    &["RESPONSE FIRE", "HOLD FIRE"],
    &["FIGHT ON", "BREAK OFF"],
];

/// Two orders of one group among `orders` (after the last `NONE`).
#[must_use]
pub fn contradiction(orders: &[String]) -> Option<(String, String)> {
    let from = orders
        .iter()
        .rposition(|o| o == "NONE")
        .map_or(0, |k| k + 1);
    let live = &orders[from..];
    for g in GROUPS {
        let mut hit = live.iter().filter(|o| g.contains(&o.as_str()));
        if let (Some(a), Some(b)) = (hit.next(), hit.next()) {
            if a != b {
                return Some((a.clone(), b.clone()));
            }
        }
    }
    None
}

/// Why a unit of class `class` (a troop's `class`) may not hold `order`.
#[must_use]
pub fn unfit(order: &str, class: &str, name: &str) -> Option<String> {
    (order == "COUNTER-CHARGE" && class != "cavalry").then(|| {
        format!(
            "COUNTER-CHARGE is for cavalry only (\"Only cavalry, if not disordered, may counter charge\"): {name}, which may EVADE or STAND"
        )
    })
}

/// Check one `STANDING` line for unit `id` of the side: what its troop may
/// hold, and no two orders that exclude each other, counting the ones
/// `earlier` lines of this mail gave the same unit.
pub fn check_line(
    r: &Ruleset,
    st: &State,
    id: &str,
    orders: &[String],
    earlier: &[String],
) -> Result<(), String> {
    let Some(u) = st.unit(id) else {
        return Ok(());
    };
    let troop = r.troop(&u.troop);
    let class = troop.map_or("", |t| t.class.as_str());
    let name = format!(
        "{} is {}",
        u.id,
        troop.map_or(u.troop.clone(), |t| t.name.clone())
    );
    for o in orders {
        if let Some(why) = unfit(o, class, &name) {
            return Err(why);
        }
    }
    let all: Vec<String> = earlier.iter().chain(orders).cloned().collect();
    if let Some((a, b)) = contradiction(&all) {
        return Err(format!(
            "{a} and {b} contradict each other: a unit holds one of EVADE, STAND, COUNTER-CHARGE, one of RESPONSE FIRE, HOLD FIRE and one of FIGHT ON, BREAK OFF"
        ));
    }
    Ok(())
}

/// `FOG BRIGADE b`: `b` must be one of the side's infantry brigades (the
/// ones Von Spoken's elan or Attaque! moves).
pub fn check_fog_brigade(r: &Ruleset, st: &State, side: usize, b: &str) -> Result<(), String> {
    let mine = super::template::fog_brigades(r, st, side);
    if mine.iter().any(|x| x.eq_ignore_ascii_case(b)) {
        return Ok(());
    }
    let other = st.units.iter().any(|u| {
        u.side != side
            && u.brigade.eq_ignore_ascii_case(b)
            && r.troop(&u.troop).is_some_and(|t| t.class == "infantry")
    });
    Err(format!(
        "{}: FOG BRIGADE names one of your infantry brigades ({})",
        if other {
            format!("{b} is an enemy brigade")
        } else {
            format!("you have no infantry brigade {b}")
        },
        if mine.is_empty() {
            "you have none".to_string()
        } else {
            mine.join(", ")
        }
    ))
}

/// `FOG GUNS g...`: each must be one of the side's guns, named once.
pub fn check_fog_guns(r: &Ruleset, st: &State, side: usize, guns: &[String]) -> Result<(), String> {
    let mine = super::template::fog_guns(r, st, side);
    let list = if mine.is_empty() {
        "you have none".to_string()
    } else {
        mine.join(", ")
    };
    for (k, g) in guns.iter().enumerate() {
        if guns[..k].iter().any(|x| x.eq_ignore_ascii_case(g)) {
            return Err(format!("{g} is named twice in FOG GUNS"));
        }
        let why = match st.unit(g) {
            None => format!("there is no unit {g}"),
            Some(u) if u.side != side => format!("{} is not yours", u.id),
            Some(u) if !mine.contains(&u.id) => format!("{} is not guns", u.id),
            Some(_) => continue,
        };
        return Err(format!("{why}: FOG GUNS names your guns ({list})"));
    }
    Ok(())
}
