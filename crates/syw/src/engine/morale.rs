//! G. Morale, and the end of the player-turn.

#[allow(clippy::wildcard_imports)]
use super::*;

// ------------------------------------------------------------------ G. morale

pub(super) fn morale(tn: &mut Turn<'_, '_, '_>) {
    let turn = tn.st.turn;
    let mut done: BTreeSet<String> = BTreeSet::new();
    let mut seen = 0usize;
    // Casualties of 2 or more: a TEST.
    let hit: Vec<String> = tn
        .lost
        .iter()
        .filter(|(_, n)| **n >= tn.t.test_at)
        .map(|(k, _)| k.clone())
        .collect();
    for id in hit {
        if tn
            .st
            .unit(&id)
            .is_some_and(|u| u.tested != turn && u.forced.is_none())
        {
            done.insert(id.clone());
            morale_test(tn, &id, "2 or more casualties");
        }
    }
    // Within 18" of a friend's retreat, rout or destruction: closest to
    // the destroyed first, then to the routing, then to the retreating.
    loop {
        let events: Vec<(String, usize, String, Pt, &'static str)> = tn.happened[seen..].to_vec();
        if events.is_empty() {
            break;
        }
        seen = tn.happened.len();
        let mut order: Vec<(u8, i128, String, String)> = Vec::new();
        for (who, side, _, at, what) in &events {
            let rank = match *what {
                "destroyed" => 0,
                "rout" => 1,
                _ => 2,
            };
            for u in &tn.st.units {
                if u.side != *side || u.id == *who || u.tested == turn || done.contains(&u.id) {
                    continue;
                }
                if tn.troop_class(u) == "command" || u.forced.is_some() {
                    continue;
                }
                let c = footprint(tn.r, u).centre();
                if Dist2::of(c.dist2(*at)).within(i64::from(tn.t.test.radius) * PER_INCH) {
                    order.push((rank, c.dist2(*at), u.id.clone(), format!("{who} {what}")));
                }
            }
        }
        order.sort();
        for (_, _, id, why) in order {
            if done.insert(id.clone()) {
                morale_test(tn, &id, &format!("within 18\" of {why}"));
            }
        }
    }
}

// ------------------------------------------------------------------ the end

pub(super) fn end_of_player_turn(tn: &mut Turn<'_, '_, '_>) {
    let side = tn.side;
    let next = 1 - side.min(1);
    if let Some(s) = tn.st.syw.as_mut() {
        s.active = next;
    }
    if side == 1 {
        tn.st.turn += 1;
    }
    let alive: Vec<usize> = (0..2)
        .map(|s| {
            tn.st
                .units
                .iter()
                .filter(|u| {
                    u.side == s && tn.troop_class(u) != "command" && u.forced != Some(Forced::Rout)
                })
                .count()
                // Units still off the table are in the game.
                + super::super::entry::reserves(&tn.st)
                    .iter()
                    .filter(|x| x.unit.side == s && tn.troop_class(&x.unit) != "command")
                    .count()
        })
        .collect();
    let winner = if alive[0] == 0 && alive[1] == 0 {
        Some(String::new())
    } else if alive[0] == 0 {
        Some(tn.st.sides[1].clone())
    } else if alive[1] == 0 {
        Some(tn.st.sides[0].clone())
    } else if side == 1 && tn.st.turn > tn.st.moves {
        Some(match tn.st.removed[0].cmp(&tn.st.removed[1]) {
            std::cmp::Ordering::Greater => tn.st.sides[0].clone(),
            std::cmp::Ordering::Less => tn.st.sides[1].clone(),
            std::cmp::Ordering::Equal => String::new(),
        })
    } else {
        None
    };
    if let Some(w) = winner {
        tn.st.over = true;
        tn.note(
            if w.is_empty() {
                "The game is over: a draw".to_string()
            } else {
                format!("The game is over: {w} wins")
            },
            Syw::GameOver {
                winner: w.to_string(),
                removed: tn.st.removed.clone(),
            },
        );
        tn.st.winner = Some(w);
    }
}
