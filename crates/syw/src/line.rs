//! A line's refused wings (the Seven Years' War rulebook, "Correct Formation", Line): "A line
//! may pivot/refuse the line up to 45° forward or 90° back no more than
//! twice to be incorrect formation. Unit fire by section between break in
//! line (fire bonus allocated to sections at players discretion). Only
//! ultimate edge of unit is flank."
//!
//! The judge keeps a unit's ground as its rectangle (moves, contacts and
//! overlaps are measured on it, as for any unit); a refused wing is the
//! stretch of files at one end of the line turned about the break, and it
//! counts where the book gives it a meaning: each section (the stretch
//! between breaks) fires on its own from its own front, a wing refused
//! back by 45° or more turns that flank into a front, and a wing turned
//! beyond the limits is an incorrect formation (J.5: disordered).
//! docs/rules/seven-years-war.md, "Refused wings", gives the readings.

use super::Refusal;
use crate::geometry as g;
use crate::ruleset::Troop;
use crate::state::shape;
use crate::Ruleset;
use crate::Unit;

/// "up to 45° forward or 90° back".
pub const FORWARD_MAX: i32 = 45;
pub const BACK_MAX: i32 = 90;
/// A wing refused back this far or more faces the enemy who comes at that
/// flank: "Only ultimate edge of unit is flank".
pub const FLANK_TURNED: i32 = 45;

/// Parse the words after REFUSE: `LEFT 3 BACK 90`.
pub fn parse(words: &[&str]) -> Result<Refusal, String> {
    let usage = "REFUSE LEFT|RIGHT <files> BACK|FORWARD <degrees>, e.g. REFUSE LEFT 3 BACK 90";
    let [end, files, way, deg] = words else {
        return Err(usage.into());
    };
    let end = match end.to_ascii_uppercase().as_str() {
        "LEFT" => "left",
        "RIGHT" => "right",
        _ => return Err(usage.into()),
    };
    let back = match way.to_ascii_uppercase().as_str() {
        "BACK" => true,
        "FORWARD" => false,
        _ => return Err(usage.into()),
    };
    let files: u32 = files
        .parse()
        .ok()
        .filter(|f| (1..=99).contains(f))
        .ok_or_else(|| format!("'{files}' is not a number of files (1 to 99)"))?;
    let deg: i32 = deg
        .trim_end_matches('°')
        .parse()
        .ok()
        .filter(|d| (1..=180).contains(d))
        .ok_or_else(|| format!("'{deg}' is not an angle: whole degrees 1 to 180"))?;
    Ok(Refusal {
        end: end.into(),
        files,
        angle: if back { -deg } else { deg },
    })
}

/// The refusal as an order writes it (after REFUSE).
#[must_use]
pub fn canonical(x: &Refusal) -> String {
    format!(
        "{} {} {} {}",
        x.end.to_ascii_uppercase(),
        x.files,
        if x.angle < 0 { "BACK" } else { "FORWARD" },
        x.angle.abs()
    )
}

/// Why the unit is in an incorrect formation (J.5), or None: a wing
/// turned more than 45° forward or 90° back.
#[must_use]
pub fn incorrect(u: &Unit) -> Option<String> {
    u.refused.iter().find_map(|x| {
        if x.angle > FORWARD_MAX {
            Some(format!(
                "its {} wing is refused {}° forward (a line may refuse up to {FORWARD_MAX}°)",
                x.end, x.angle
            ))
        } else if -x.angle > BACK_MAX {
            Some(format!(
                "its {} wing is refused {}° back (a line may refuse up to {BACK_MAX}°)",
                x.end, -x.angle
            ))
        } else {
            None
        }
    })
}

/// Whether the edge `face` of the unit (1 the right flank, 3 the left) is
/// the front of a wing refused back 45° or more rather than a flank.
#[must_use]
pub fn flank_is_front(u: &Unit, face: usize) -> bool {
    let end = match face {
        1 => "right",
        3 => "left",
        _ => return false,
    };
    u.refused
        .iter()
        .any(|x| x.end == end && -x.angle >= FLANK_TURNED)
}

/// Why a wing of `files` cannot be refused at `end` of the unit (with its
/// other refusals), or Ok: the centre keeps at least one file.
pub fn room(t: &Troop, u: &Unit, x: &Refusal) -> Result<(), String> {
    if u.formation != "line" || t.light || !matches!(t.class.as_str(), "infantry" | "cavalry") {
        return Err(format!(
            "only a line of line infantry or cavalry refuses a wing; {} is {} in {}",
            u.id, t.name, u.formation
        ));
    }
    let files = shape(t, u).files;
    let other: u32 = u
        .refused
        .iter()
        .filter(|o| o.end != x.end)
        .map(|o| o.files)
        .sum();
    if x.files + other >= files {
        return Err(format!(
            "{} has {files} files in line: a wing of {} (with {other} refused at the other end) leaves no centre",
            u.id, x.files
        ));
    }
    Ok(())
}

/// The sections of the unit's line between its breaks, each as a unit of
/// its own (its figures, front centre and facing; the same id), in the
/// order centre, left, right. A straight line is one section named
/// "whole".
#[must_use]
pub fn sections(r: &Ruleset, u: &Unit) -> Vec<(&'static str, Unit)> {
    let Some(t) = r.troop(&u.troop) else {
        return vec![("whole", u.clone())];
    };
    if u.refused.is_empty() {
        return vec![("whole", u.clone())];
    }
    let sh = shape(t, u);
    let files = sh.files;
    let ranks = sh.ranks.max(1);
    let pitch = sh.pitch;
    let f = i64::from(u.facing);
    let wing = |end: &str| u.refused.iter().find(|x| x.end == end);
    let kl = wing("left").map_or(0, |x| x.files.min(files));
    let kr = wing("right").map_or(0, |x| x.files.min(files.saturating_sub(kl)));
    // The wings take their files' figures; the centre the rest.
    let rl = (kl * ranks).min(u.rf);
    let rr = (kr * ranks).min(u.rf - rl);
    let rc = u.rf - rl - rr;
    let part = |rf: u32, front: g::Pt, facing: i64| {
        let mut s = u.clone();
        s.refused.clear();
        s.rf = rf;
        s.start_rf = s.start_rf.max(rf);
        s.front = front;
        s.facing = g::norm_deg(facing);
        s
    };
    let half = sh.width / 2;
    // The wing's inner front corner. Forward, the wing wheels on the
    // break itself; back, on the centre's rear corner behind the break, so
    // the wing's files stand outside the centre's ground (an L, not a
    // fold).
    let depth = sh.depth;
    let hinge = |b: g::Pt, angle: i32, wf: i64| {
        if angle >= 0 {
            b
        } else {
            g::offset(g::offset(b, f, -depth, 0), wf, depth, 0)
        }
    };
    let mut out = Vec::new();
    out.push((
        "centre",
        part(
            rc,
            g::offset(u.front, f, 0, (i64::from(kl) - i64::from(kr)) * pitch / 2),
            f,
        ),
    ));
    if let Some(x) = wing("left").filter(|_| rl > 0) {
        // The break: kl files in from the left end of the front edge.
        let b = g::offset(u.front, f, 0, -half + i64::from(kl) * pitch);
        let wf = f + i64::from(x.angle);
        let front = g::offset(hinge(b, x.angle, wf), wf, 0, -i64::from(kl) * pitch / 2);
        out.push(("left", part(rl, front, wf)));
    }
    if let Some(x) = wing("right").filter(|_| rr > 0) {
        let b = g::offset(u.front, f, 0, half - i64::from(kr) * pitch);
        let wf = f - i64::from(x.angle);
        let front = g::offset(hinge(b, x.angle, wf), wf, 0, i64::from(kr) * pitch / 2);
        out.push(("right", part(rr, front, wf)));
    }
    out
}

/// A section's name as an order writes it.
#[must_use]
pub fn section_word(w: &str) -> Option<&'static str> {
    match w.to_ascii_uppercase().as_str() {
        "LEFT" => Some("left"),
        "RIGHT" => Some("right"),
        "CENTRE" | "CENTER" => Some("centre"),
        _ => None,
    }
}
