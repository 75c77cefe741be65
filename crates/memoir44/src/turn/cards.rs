//! The card a turn plays: which units it orders and how (`card_orders`),
//! whether it may be played (`play_action`), Colonel Blimp's several cards,
//! and the checks a card makes once every order is walked.

use super::*;
use crate::battle::target_check;
use crate::ruleset::CardSpec;

/// The units of `side` a card may order, and the modes they get.
pub(super) fn card_orders(
    ctx: &Ctx<'_>,
    st: &State,
    side: usize,
    card: &CardSpec,
    section: Option<Section>,
    line: &Line,
    ordered: &[(u32, Line)],
    all: bool,
) -> Result<(Vec<u32>, BTreeMap<u32, Mode>), Rejection> {
    let o = Ordering {
        ctx,
        st,
        side,
        card,
        section,
        line,
        ordered,
        all,
    };
    match card.kind.as_str() {
        "manoeuvre" => o.manoeuvre(),
        "section" => o.section(),
        _ => o.tactic(),
    }
}

/// What [`card_orders`] works from.
struct Ordering<'a, 'b> {
    ctx: &'a Ctx<'b>,
    st: &'a State,
    side: usize,
    card: &'a CardSpec,
    section: Option<Section>,
    line: &'a Line,
    ordered: &'a [(u32, Line)],
    all: bool,
}

type Orders = Result<(Vec<u32>, BTreeMap<u32, Mode>), Rejection>;

impl Ordering<'_, '_> {
    fn own(&self) -> Vec<&Unit> {
        self.st
            .units
            .iter()
            .filter(|u| u.side == self.side)
            .collect()
    }

    fn effect(&self) -> String {
        self.card.effect.clone().unwrap_or_default()
    }

    /// The line that ordered the `i`th unit (the card's line if none).
    fn line_of(&self, i: usize) -> &Line {
        self.ordered.get(i).map_or(self.line, |(_, l)| l)
    }

    fn in_section(&self, u: &Unit) -> bool {
        self.section
            .is_none_or(|s| self.ctx.board.in_section(u.at, s, self.side == 0))
    }

    /// An Army Manoeuvre orders every unit.
    fn manoeuvre(&self) -> Orders {
        let (ctx, card, ordered) = (self.ctx, self.card, self.ordered);
        let own = self.own();
        let effect = self.effect();
        let mut modes = BTreeMap::new();
        // "He may order all his Units" (Restoring Order); "Every Unit must
        // advance" (The Big Push): the declaration orders every unit.
        if let Some((_, l)) = ordered.first() {
            return Err(l.reject(format!(
                "{} orders every one of your units: no ORDER lines",
                card.name
            )));
        }
        let mut ids = Vec::new();
        for u in &own {
            let mut m = default_mode(ctx, u);
            if effect == "restoring-order" {
                m.regroup = true;
            } else {
                m.push = true;
                if class_of(ctx, u) == "artillery" {
                    // "Artillery Units can March forward one hex or Battle
                    // with one additional Battle-Die."
                    m.max_move = card.artillery_march.unwrap_or(1);
                    m.move_battle = 0;
                    m.forward_only = true;
                    m.extra = card.artillery_extra_dice.unwrap_or(1) as i32;
                    m.extra_reason = card.name.clone();
                }
            }
            ids.push(u.id);
            modes.insert(u.id, m);
        }
        Ok((ids, modes))
    }

    /// A section card: the units it orders in each section.
    fn section(&self) -> Orders {
        let (ctx, st, card, line, all) = (self.ctx, self.st, self.card, self.line, self.all);
        let bottom = self.side == 0;
        let own = self.own();
        let mut modes = BTreeMap::new();
        let unit = |id: u32| st.unit(id).cloned();
        let first_line = |i: usize| self.line_of(i);
        let mut ids: Vec<u32> = self.ordered.iter().map(|(i, _)| *i).collect();
        if all {
            if card.orders.values().any(|c| c.limit() != usize::MAX) {
                return Err(line.reject("ORDER ALL is only for cards that order every unit of a section or kind; name the hexes"));
            }
            ids = own
                .iter()
                .filter(|u| {
                    card.orders.keys().any(|s| {
                        Section::parse(s)
                            .is_some_and(|s| crate::trains::sections(ctx, u, bottom).contains(&s))
                    })
                })
                .map(|u| u.id)
                .collect();
        }
        let limits: BTreeMap<Section, usize> = card
            .orders
            .iter()
            .filter_map(|(k, v)| Section::parse(k).map(|s| (s, v.limit())))
            .collect();
        let mut opts = Vec::new();
        for (i, id) in ids.iter().enumerate() {
            let Some(u) = unit(*id) else { continue };
            let secs: Vec<Section> = crate::trains::sections(ctx, &u, bottom)
                .into_iter()
                .filter(|s| limits.contains_key(s))
                .collect();
            if secs.is_empty() {
                return Err(first_line(i).reject(format!(
                "the unit at {} is not in a section {} orders (sections are seen from your own side of the board)",
                u.at, card.name
            )));
            }
            opts.push(secs);
        }
        if !fits(&opts, &limits) {
            return Err(first_line(0).reject(format!(
                "{} does not order that many units in those sections",
                card.name
            )));
        }
        for id in &ids {
            if let Some(u) = unit(*id) {
                modes.insert(*id, default_mode(ctx, &u));
            }
        }
        Ok((ids, modes))
    }

    /// A tactic card: the units it orders, and what each may do.
    fn tactic(&self) -> Orders {
        let (ctx, st, card, line, all, side) =
            (self.ctx, self.st, self.card, self.line, self.all, self.side);
        let own = self.own();
        let effect = self.effect();
        let first_line = |i: usize| self.line_of(i);
        // The units eligible under the card, for ORDER ALL and checks.
        let class = card.unit_class.clone();
        let of_class: Vec<&Unit> = own
            .iter()
            .copied()
            .filter(|u| {
                class
                    .as_ref()
                    .is_none_or(|c| crate::support::ordered_as(ctx.spec(&u.kind), c))
                    && (effect != "infantry-assault" || self.in_section(u))
            })
            .collect();
        let fallback = class.is_some() && of_class.is_empty();
        let mut ids: Vec<u32> = self.ordered.iter().map(|(i, _)| *i).collect();
        if all {
            ids = match effect.as_str() {
                "close-assault" => own
                    .iter()
                    .filter(|u| matches!(class_of(ctx, u), "infantry" | "armour") && st.enemy_adjacent(u.at, side))
                    .map(|u| u.id)
                    .collect(),
                "artillery-bombard" | "infantry-assault" if !fallback => of_class.iter().map(|u| u.id).collect(),
                _ => return Err(line.reject("ORDER ALL is only for Assault, Close Assault, Artillery Bombard and Infantry Assault; name the hexes")),
            };
        }
        let max = match effect.as_str() {
            "air-power" | "barrage" => 0,
            _ if fallback => 1,
            "artillery-bombard" | "close-assault" | "infantry-assault" | "their-finest-hour" => {
                usize::MAX
            }
            _ => card.units.map_or(usize::MAX, |n| n as usize),
        };
        if ids.len() > max {
            let msg = if max == 0 {
                format!("{} orders no units; give its TARGET instead", card.name)
            } else if fallback {
                format!(
                    "with no {} unit, {} orders 1 unit of your choice",
                    class.clone().unwrap_or_default(),
                    card.name
                )
            } else {
                format!("{} orders at most {max} unit(s)", card.name)
            };
            return Err(first_line(max.min(ids.len().saturating_sub(1))).reject(msg));
        }
        let mut modes = BTreeMap::new();
        for (i, id) in ids.iter().enumerate() {
            let Some(u) = st.unit(*id).cloned() else {
                continue;
            };
            let m = self.tactic_mode(&u, first_line(i), fallback)?;
            modes.insert(*id, m);
        }
        Ok((ids, modes))
    }

    /// How a tactic card orders one unit (`fallback`: the card's class has
    /// no unit, so it orders one of any kind).
    fn tactic_mode(&self, u: &Unit, l: &Line, fallback: bool) -> Result<Mode, Rejection> {
        let (ctx, st, card, side) = (self.ctx, self.st, self.card, self.side);
        let effect = self.effect();
        let class = card.unit_class.clone();
        let u = u.clone();
        let cls = class_of(ctx, &u);
        let mut m = default_mode(ctx, &u);
        if !fallback {
            if let Some(c) = &class {
                if !crate::support::ordered_as(ctx.spec(&u.kind), c) {
                    return Err(l.reject(format!(
                        "{} orders only {c} units; the unit at {} is {}",
                        card.name, u.at, cls
                    )));
                }
            }
            match effect.as_str() {
                "armor-assault" => {
                    m.extra = 1;
                    m.extra_close_only = true;
                    m.extra_reason = "Armour Assault".into();
                }
                "artillery-bombard" => {
                    m.max_move = 3;
                    m.move_battle = 0;
                    m.battles = 2;
                }
                "behind-enemy-lines" => {
                    m.max_move = 3;
                    m.move_battle = 3;
                    m.ignore_terrain = true;
                    m.extra = 1;
                    m.extra_reason = "Behind Enemy Lines".into();
                    m.second_move = true;
                }
                "dig-in" => {
                    if !may_dig_in(st, u.at) {
                        return Err(l.reject(format!(
                            "the hex {} already has a sandbag: no second one",
                            u.at
                        )));
                    }
                    m.nothing = true;
                }
                "infantry-assault" => {
                    if !self.in_section(&u) {
                        return Err(l.reject(format!(
                            "the unit at {} is not in the section of the Infantry Assault",
                            u.at
                        )));
                    }
                    // Never less than the unit's own (cavalry, ski troops).
                    m.max_move = m.max_move.max(3);
                    m.move_battle = m.move_battle.max(2);
                }
                _ => {}
            }
        }
        match effect.as_str() {
            "close-assault" => {
                if !matches!(cls, "infantry" | "armour") || !st.enemy_adjacent(u.at, side) {
                    return Err(l.reject(format!("Close Assault orders infantry and armour next to an enemy; the unit at {} is not", u.at)));
                }
                m.max_move = 0;
                m.extra = 1;
                m.extra_reason = crate::battle::CLOSE_ASSAULT.into();
            }
            "firefight" => {
                if st.enemy_adjacent(u.at, side) {
                    return Err(l.reject(format!(
                        "Firefight orders units not next to an enemy; the unit at {} is",
                        u.at
                    )));
                }
                m.max_move = 0;
                m.extra = 1;
                m.extra_reason = "Firefight card".into();
            }
            "medics-and-mechanics" if u.figures >= u.start => {
                return Err(l.reject(format!("the unit at {} has lost no figures", u.at)));
            }
            "their-finest-hour" => {
                m.extra = 1;
                m.extra_reason = "Their Finest Hour".into();
            }
            _ => {}
        }
        Ok(m)
    }
}

/// Check one PLAY line: the card is in the hand (or, for a manoeuvre, the
/// game plays its variant and the side has not used it), may be played, and
/// takes a section only where the card needs one.
pub(super) fn play_action(
    ctx: &Ctx<'_>,
    st: &State,
    side: usize,
    first: &Line,
    card: &String,
    section: &Option<Section>,
    hand: &[String],
) -> Result<Action, Rejection> {
    let in_hand = |c: &str| hand.iter().any(|h| h == c);
    let spec = ctx
        .r
        .card(card)
        .ok_or_else(|| first.reject("unknown card"))?;
    if st.young_generals && spec.kind != "section" {
        return Err(first.reject(format!(
            "Young Generals play with section cards only; {} is a tactic card",
            spec.name
        )));
    }
    crate::weather::card_check(ctx.r, st, spec).map_err(|m| first.reject(m))?;
    if spec.kind == "manoeuvre" {
        // Army Manoeuvres (Appendix 3): "May only be used by each player
        // once per game. Instead of playing a Command Card ..."
        let variant = spec.variant.clone().unwrap_or_default();
        if !st.plays(&variant) {
            let name = ctx
                .r
                .variants
                .get(&variant)
                .map_or(variant.clone(), |v| v.name.clone());
            return Err(first.reject(format!(
                "{} belongs to the {name} variant, which this game does not play (game option {variant})",
                spec.name
            )));
        }
        if st.manoeuvre_used(side, card) {
            return Err(first.reject(format!(
                "{} may be used only once per game, and you have used it",
                spec.name
            )));
        }
        if section.is_some() {
            return Err(first.reject(format!("{} takes no section", spec.name)));
        }
        return Ok(Action::Card {
            played: card.clone(),
            effect: card.clone(),
            section: None,
        });
    }
    if !in_hand(card) {
        return Err(first.reject(format!("{card} is not in your hand")));
    }
    let (effect, mut sec) = match spec.effect.as_deref() {
        Some("ambush") => {
            return Err(first.reject("Ambush is played only in the opponent's turn, against a close assault; keep it in your hand"))
        }
        Some("counter-attack") => match counter_card(ctx, st, side) {
            Some((c, s)) => (c, s),
            // Kriegspiel: "A player may not know which Command Cards his
            // opponent has or are being played", and the card is all the
            // Counter-Attack would do (docs/rules/kriegspiel.md).
            None if st.fog.is_some() => return Err(first.reject("Counter-Attack copies the card your opponent played last turn, which under fog of war you may not know: it cannot be played (DISCARD it instead)")),
            None => return Err(first.reject("Counter-Attack copies the card your opponent played last turn, and there is none")),
        },
        _ => (card.clone(), *section),
    };
    let espec = ctx
        .r
        .card(&effect)
        .ok_or_else(|| first.reject("unknown card"))?;
    if espec.effect.as_deref() == Some("infantry-assault") {
        if sec.is_none() {
            sec = *section;
        }
        if sec.is_none() {
            return Err(first.reject(
                "Infantry Assault needs a section: PLAY infantry-assault LEFT|CENTRE|RIGHT",
            ));
        }
    } else if section.is_some() && spec.effect.as_deref() != Some("counter-attack") {
        return Err(first.reject(format!("{} takes no section", spec.name)));
    } else {
        sec = None;
    }
    Ok(Action::Card {
        played: card.clone(),
        effect,
        section: sec,
    })
}

/// The Big Push, once every order is walked: "Every Unit must advance at
/// least one hex towards the enemy" (a unit that could step forward and has
/// no MOVE is refused; artillery "can" march, so it need not), and a unit
/// that ends in close assault and may battle must ("Infantry Units must
/// Infantry Charge ... if the opportunity presents itself").
pub(super) fn big_push_check(
    ctx: &Ctx<'_>,
    sc: &State,
    side: usize,
    first: &Line,
    modes: &BTreeMap<u32, Mode>,
    track: &BTreeMap<u32, Track>,
) -> Result<(), Rejection> {
    for u in sc.units.iter().filter(|u| u.side == side) {
        let Some(m) = modes.get(&u.id) else { continue };
        let t = track.get(&u.id).cloned().unwrap_or_default();
        let cls = class_of(ctx, u);
        if cls == "artillery" || !m.push {
            continue;
        }
        if t.moved.is_none_or(|d| d == 0) {
            let step = u.at.neighbours().into_iter().find(|n| {
                forward(side, u.at, *n) > 0
                    && ctx.board.contains(*n)
                    && sc.unit_at(*n).is_none()
                    && check_path(
                        ctx,
                        sc,
                        u,
                        &[u.at, *n],
                        MoveRule {
                            max: m.max_move,
                            ignore_terrain: false,
                        },
                    )
                    .is_ok()
            });
            if let Some(n) = step {
                return Err(first.reject(format!(
                    "The Big Push: every unit must advance at least one hex towards the enemy; the unit at {} has no MOVE and could move to {n}",
                    u.at
                )));
            }
        }
        if t.battles > 0 || t.wire {
            continue;
        }
        let spec = ctx.spec(&u.kind);
        for n in u.at.neighbours() {
            let Some(e) = sc.unit_at(n).filter(|e| e.side != side) else {
                continue;
            };
            let may = match t.moved {
                Some(d) if d > m.move_battle => {
                    ctx.r.options.infantry_charge
                        && spec.charge
                        && d == 2
                        && matches!(class_of(ctx, e), "infantry" | "artillery")
                }
                _ => true,
            } && !t.barred
                && target_check(ctx, sc, u, n).is_ok();
            if may {
                return Err(first.reject(format!(
                    "The Big Push: the unit at {} is in close assault with the enemy at {n} and may battle, so it must (BATTLE {} {n})",
                    u.at, u.at
                )));
            }
        }
    }
    Ok(())
}

/// The game option of Colonel Blimp's extra command cards.
pub const BLIMP: &str = "colonel-blimp";

/// The sections a card takes under Colonel Blimp: a section card those it
/// names, Infantry Assault the one it is played on, and every other card
/// (a tactic card for no particular or for every section, a manoeuvre) all
/// three.
fn claims(ctx: &Ctx<'_>, effect: &str, section: Option<Section>) -> Vec<Section> {
    let Some(spec) = ctx.r.card(effect) else {
        return Section::ALL.to_vec();
    };
    if spec.kind == "section" {
        return Section::ALL
            .iter()
            .copied()
            .filter(|s| spec.orders.contains_key(s.id()))
            .collect();
    }
    match (spec.effect.as_deref(), section) {
        (Some("infantry-assault"), Some(s)) => vec![s],
        _ => Section::ALL.to_vec(),
    }
}

/// Colonel Blimp (Appendix 3, "Army Manoeuvres"): "At least one Command
/// Card may be played for each Board Section to a maximum of three cards.
/// Units may not receive more than one Order per turn. Sections may not
/// receive more than one Command Card, even if a card being used applies to
/// more than one Section. A Section cannot be given any orders if the player
/// has no cards for it that turn." Each ordered unit goes to the card of
/// its section; a unit on a hex two sections share goes to whichever card
/// lets every card's limits hold.
pub(super) fn blimp_orders(
    ctx: &Ctx<'_>,
    st: &State,
    side: usize,
    cards: &[(Line, Action)],
    ordered: &[(u32, Line)],
    all: bool,
) -> Result<(Vec<u32>, BTreeMap<u32, Mode>), Rejection> {
    let cl = blimp_sections(ctx, cards)?;
    if all {
        return Err(cards[0]
            .0
            .reject("with several cards, name the units each orders: ORDER <hex> ..."));
    }
    let options = blimp_options(ctx, st, side, cards, &cl, ordered)?;
    // Try every way to share the units of shared hexes (at most 2^8).
    let shared: Vec<usize> = (0..options.len())
        .filter(|i| options[*i].len() > 1)
        .collect();
    let mut first_err: Option<Rejection> = None;
    for mask in 0u32..(1u32 << shared.len().min(10)) {
        let pick = |i: usize| -> usize {
            match shared.iter().position(|x| *x == i) {
                Some(b) => {
                    let o = &options[i];
                    o[((mask >> b) & 1) as usize % o.len()]
                }
                None => options[i][0],
            }
        };
        let mut ids = Vec::new();
        let mut modes = BTreeMap::new();
        let mut bad = None;
        for (ci, (l, a)) in cards.iter().enumerate() {
            let Action::Card {
                effect, section, ..
            } = a
            else {
                continue;
            };
            let Some(spec) = ctx.r.card(effect) else {
                continue;
            };
            let mine: Vec<(u32, Line)> = ordered
                .iter()
                .enumerate()
                .filter(|(i, _)| pick(*i) == ci)
                .map(|(_, x)| x.clone())
                .collect();
            match card_orders(ctx, st, side, spec, *section, l, &mine, false) {
                Ok((i, m)) => {
                    ids.extend(i);
                    modes.extend(m);
                }
                Err(e) => {
                    bad = Some(e);
                    break;
                }
            }
        }
        match bad {
            None => {
                let order: Vec<u32> = ordered
                    .iter()
                    .map(|(i, _)| *i)
                    .filter(|i| ids.contains(i))
                    .collect();
                return Ok((order, modes));
            }
            Some(e) => {
                if first_err.is_none() {
                    first_err = Some(e);
                }
            }
        }
    }
    Err(first_err.unwrap_or_else(|| Rejection::whole("these cards cannot order those units")))
}

/// Colonel Blimp: the sections each card claims, one card a section, at
/// most the variant's cards a turn, no manoeuvre among them.
fn blimp_sections(ctx: &Ctx<'_>, cards: &[(Line, Action)]) -> Result<Vec<Vec<Section>>, Rejection> {
    let max = ctx
        .r
        .variants
        .get(BLIMP)
        .and_then(|v| v.cards_per_turn)
        .unwrap_or(3) as usize;
    if let Some((l, _)) = cards.get(max) {
        return Err(l.reject(format!(
            "Colonel Blimp: at most {max} cards a turn, one a section"
        )));
    }
    let mut taken: BTreeMap<Section, String> = BTreeMap::new();
    let mut cl: Vec<Vec<Section>> = Vec::new();
    for (l, a) in cards {
        let Action::Card {
            played,
            effect,
            section,
        } = a
        else {
            return Err(l.reject("only PLAY lines may join other cards"));
        };
        let name = ctx
            .r
            .card(played)
            .map_or(played.clone(), |c| c.name.clone());
        if ctx.r.card(played).is_some_and(|c| c.kind == "manoeuvre") {
            return Err(l.reject(format!(
                "{name} is declared instead of playing command cards: it stands alone"
            )));
        }
        let secs = claims(ctx, effect, *section);
        for s in &secs {
            if let Some(other) = taken.get(s) {
                let other_all = cl.iter().any(|c| c.len() == 3);
                let why = if other_all {
                    format!(
                        "{other} is for every section (or no particular one), so it is played alone"
                    )
                } else if secs.len() == 3 {
                    format!(
                        "{name} is for every section (or no particular one), so it is played alone"
                    )
                } else {
                    format!("{name} is also for the {} section", s.id())
                };
                return Err(l.reject(format!(
                    "Colonel Blimp: a section receives one card a turn; the {} section already has {other}: {why}",
                    s.id()
                )));
            }
        }
        for s in &secs {
            taken.insert(*s, name.clone());
        }
        cl.push(secs);
    }
    Ok(cl)
}

/// Colonel Blimp: the cards each ordered unit could belong to (a card for
/// one of its sections), or the refusal of a unit no card is for.
fn blimp_options(
    ctx: &Ctx<'_>,
    st: &State,
    side: usize,
    cards: &[(Line, Action)],
    cl: &[Vec<Section>],
    ordered: &[(u32, Line)],
) -> Result<Vec<Vec<usize>>, Rejection> {
    let bottom = side == 0;
    // The cards each ordered unit could belong to.
    let mut options: Vec<Vec<usize>> = Vec::new();
    for (id, l) in ordered {
        let Some(u) = st.unit(*id) else {
            options.push(vec![0]);
            continue;
        };
        let secs = crate::trains::sections(ctx, u, bottom);
        let fit: Vec<usize> = (0..cards.len())
            .filter(|i| secs.iter().any(|s| cl[*i].contains(s)))
            .collect();
        if fit.is_empty() {
            let names: Vec<&str> = secs.iter().map(|s| s.id()).collect();
            return Err(l.reject(format!(
                "the unit at {} is in the {} section, and no card you play this turn is for it: a section with no card receives no orders",
                u.at,
                names.join("/")
            )));
        }
        options.push(fit);
    }
    Ok(options)
}

/// Bridge Demolition: "Play a Section Card corresponding to the Section of
/// the Board in which the Bridge lays. If the Bridge is across two Sections
/// of the Board, then the player may play a Section Card from either end."
pub(super) fn bridge_card(
    ctx: &Ctx<'_>,
    action: &Action,
    side: usize,
    bridge: Hex,
    l: &Line,
) -> Result<(), Rejection> {
    let secs = ctx.board.sections(bridge, side == 0);
    let ok = match action {
        Action::Card { effect, .. } => ctx.r.card(effect).is_some_and(|c| {
            c.kind == "section"
                && c.orders.iter().any(|(k, n)| {
                    n.limit() > 0 && Section::parse(k).is_some_and(|s| secs.contains(&s))
                })
        }),
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(l.reject(format!(
            "the bridge at {bridge} needs a Section Card for its section ({})",
            secs.iter().map(|s| s.id()).collect::<Vec<_>>().join(" or ")
        )))
    }
}
