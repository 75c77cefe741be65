//! Rules test vectors: a small TOML case (board, units, hand, orders, forced
//! dice, expectations) run through the real engine. The format is the
//! contract of issue 3; see docs/testing.md.

use super::events::Event;
use super::orders;
use super::ruleset::{at, toml_error, Ruleset};
use super::scenario::{
    self, DropSpec, Layout, MineSpec, ObjectiveSpec, OneOrMany, Placement, RiggedSpec,
};
use super::state::{Engagement, Played, State};
use super::turn::standing_from;
use super::{adjudicate, Chance, DataError};
use adjutant_dice::{ChaChaDice, Dice, ForcedDice};
use serde::Deserialize;
use std::collections::BTreeMap;
use toml::Spanned;

pub use adjutant_rules::CaseResult;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CaseFile {
    name: String,
    #[serde(default)]
    ruleset: Option<Spanned<String>>,
    #[serde(default)]
    cites: Option<String>,
    #[serde(default)]
    notes: Option<String>,
    #[serde(default)]
    scenario: Option<Spanned<String>>,
    #[serde(default)]
    board: BoardPart,
    #[serde(default)]
    units: Vec<Placement>,
    turn: TurnPart,
    /// Extension: a campaign battle's pre-battle rolls, played before the
    /// turn (an empty turn `orders` plays no turn).
    #[serde(default)]
    pre_battle: Option<PreBattlePart>,
    /// Extension: Paratroops & Glider Landings, dropped by the judge before
    /// the turn (an empty turn `orders` plays no turn).
    #[serde(default)]
    airdrops: Vec<DropSpec>,
    /// Extension: Appendix 1's minefields, each with its strength.
    #[serde(default)]
    minefields: Vec<MineSpec>,
    /// Extension: bridges rigged for detonation (Bridge Demolition).
    #[serde(default)]
    rigged_bridges: Vec<RiggedSpec>,
    /// The d6 numbers (1-6) the drop rolls, in order.
    #[serde(default)]
    airdrop_dice: Vec<Spanned<u32>>,
    /// Extension: Battle Star markers, as in scenario files.
    #[serde(default)]
    battle_stars: Vec<scenario::StarSpec>,
    /// Extension: Demoralisation, & Disorganisation, as in scenario files.
    #[serde(default)]
    demoralisation: Vec<super::disorder::DisorderSpec>,
    #[serde(default)]
    expect: ExpectPart,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PreBattlePart {
    /// Dice per side (victory points of the last battle + campaign wins).
    dice: BTreeMap<String, u32>,
    /// Faces forced for the pre-battle roll, in order (sides in scenario order).
    #[serde(default)]
    faces: Vec<Spanned<String>>,
    /// The choices each side mails (absent: the defaults).
    #[serde(default)]
    orders: BTreeMap<String, String>,
    /// The briefing's hand size per side (default: the hand as given).
    #[serde(default)]
    hand_size: BTreeMap<String, u32>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct BoardPart {
    #[serde(default)]
    bottom: Option<Spanned<String>>,
    #[serde(default)]
    scenario: Option<Spanned<String>>,
    #[serde(default)]
    terrain: BTreeMap<Spanned<String>, Spanned<OneOrMany>>,
    /// Extension: objectives (victory markers).
    #[serde(default)]
    objectives: Vec<ObjectiveSpec>,
    /// Extension: victory points needed.
    #[serde(default)]
    victory: Option<u32>,
    /// Extension: medals already won (eliminated units).
    #[serde(default)]
    medals: BTreeMap<String, u32>,
    /// Extension: the side that may claim bunkers.
    #[serde(default)]
    bunkers: Option<Spanned<String>>,
    /// Extension: played as Kriegspiel ("true" or "known-start").
    #[serde(default)]
    kriegspiel: Option<Spanned<String>>,
    /// Extension: the Variant For Young Generals (game option `young-generals`).
    #[serde(default)]
    young_generals: bool,
    /// Extension: Army Manoeuvres variants played (game options
    /// `colonel-blimp`, `colonel-chapman`, `general-melchett`).
    #[serde(default)]
    variants: Vec<Spanned<String>>,
    /// Extension: the side that uses the Blitzkrieg rules.
    #[serde(default)]
    blitzkrieg: Option<Spanned<String>>,
    /// Extension: "Achtung! Zombie!" (game option `zombies`): the Dead
    /// Player's side; its units that are not zombies are converted.
    #[serde(default)]
    zombies: Option<Spanned<String>>,
    /// Extension: "Nineteen Eighty-Four" (game option
    /// `nineteen-eighty-four`): the board's units are converted.
    #[serde(default)]
    nineteen_eighty_four: Option<Spanned<bool>>,
    /// Extension: "EX-TER-MIN-ATE!" (game option `exterminate`): the Dalek
    /// side; its units are converted, the Human side gets its Human Factor.
    #[serde(default)]
    exterminate: Option<Spanned<String>>,
    /// Extension: "EX-TER-MIN-ATE!", the Cybermen (game option `cybermen`):
    /// the Cyberman side; its infantry, armour and artillery become
    /// Cybermen, the Human side (if not the Daleks) gets its Human Factor.
    #[serde(default)]
    cybermen: Option<Spanned<String>>,
    /// Extension: "War Of The Worlds" (game option `worlds`): the Martian
    /// Player's side; its units are converted to Martian machines (those
    /// that already are machines stay).
    #[serde(default)]
    worlds: Option<Spanned<String>>,
    /// Extension ("War Of The Worlds"): the Martians' sickness level when
    /// the turn begins (each Martian unit's full strength is that many
    /// models less).
    #[serde(default)]
    sickness: Option<u32>,
    /// Extension: Night & Severe Weather, as a scenario's `[weather]`.
    #[serde(default)]
    weather: Option<scenario::WeatherSpec>,
    /// Extension: the side with the Political Commissar marker.
    #[serde(default)]
    commissar: Option<Spanned<String>>,
    /// Extension: a Flooded Field scenario (a scenario's `flooded`).
    #[serde(default)]
    flooded: bool,
    /// Extension: airfield reinforcements, as a scenario's.
    #[serde(default)]
    airfield_reinforcements: Vec<super::landmarks::ReinforcementSpec>,
    /// Extension: Supply Lines & Sieges, as a scenario's `[supply]`.
    #[serde(default)]
    supply: Option<Spanned<super::supply::SupplySpec>>,
    /// Extension: the sides allowed to build Pontoon Bridges.
    #[serde(default)]
    pontoon_bridges: Vec<Spanned<String>>,
    /// Extension (Battle Star Markers, Sabotage of a Supply Depot): per
    /// side, the hexes of movement its armour has already lost.
    #[serde(default)]
    armour_move_lost: BTreeMap<String, u32>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TurnPart {
    side: Spanned<String>,
    #[serde(default)]
    hand: Option<Vec<Spanned<String>>>,
    /// Extension: the other side's hand (Ambush).
    #[serde(default)]
    opponent_hand: Option<Vec<Spanned<String>>>,
    #[serde(default)]
    opponent_orders: Option<Spanned<String>>,
    /// Extension: the card the opponent played last turn (Counter-Attack).
    #[serde(default)]
    opponent_played: Option<Spanned<String>>,
    /// Extension: pairs of hexes already in close assault ("D4 E5").
    #[serde(default)]
    firefights: Vec<Spanned<String>>,
    /// Extension: the side's own standing orders already on file.
    #[serde(default)]
    standing: Option<Spanned<String>>,
    /// Extension: the once-per-game manoeuvre cards the side has already
    /// used (`restoring-order`, `big-push`).
    #[serde(default)]
    used: Vec<Spanned<String>>,
    /// Extension (Political Commissar): the card face down under the
    /// marker when the turn begins (`[board] commissar` names the side).
    #[serde(default)]
    commissar: Option<Spanned<String>>,
    orders: String,
    #[serde(default)]
    dice: Vec<Spanned<String>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExpectPart {
    #[serde(default)]
    dice_rolled: Option<usize>,
    #[serde(default)]
    units: Vec<ExpectUnit>,
    #[serde(default)]
    empty: Vec<Spanned<String>>,
    #[serde(default)]
    medals: BTreeMap<String, u32>,
    #[serde(default)]
    rejected: Option<String>,
    /// Extension: event kinds that must appear.
    #[serde(default)]
    events: Vec<String>,
    /// Extension: event kinds that must not appear.
    #[serde(default)]
    no_events: Vec<String>,
    /// Extension: the game is over with this winner ("" for a draw).
    #[serde(default)]
    winner: Option<String>,
    /// Extension (Night & Severe Weather): the visibility in hexes after
    /// the turn (0: normal, no limit).
    #[serde(default)]
    visibility: Option<u32>,
    /// Extension (Battle Star Markers): every marker on the board after the
    /// turn.
    #[serde(default)]
    stars: Option<Vec<ExpectStar>>,
    /// Extension: the night track's box after the turn (0: no track).
    #[serde(default)]
    night_box: Option<u32>,
    /// Extension: the cards in each side's hand at the end.
    #[serde(default)]
    hands: BTreeMap<String, usize>,
    /// Extension (Kriegspiel): per side, the enemy units its view must and
    /// must not hold after the turn; `referee`: the units (of either side)
    /// the referee's view must and must not hold.
    #[serde(default)]
    view: BTreeMap<String, ExpectView>,
    /// Extension (Minefields): the minefields on the board after the turn.
    #[serde(default)]
    minefields: Vec<ExpectMine>,
    /// Extension (Minefields): hexes with no minefield after the turn.
    #[serde(default)]
    no_minefields: Vec<Spanned<String>>,
    /// Extension: hexes whose tile and obstacles after the turn are these
    /// (`[]` = open countryside).
    #[serde(default)]
    terrain: BTreeMap<String, Vec<String>>,
    /// Extension (Bridge Demolition): the bridges rigged after the turn
    /// (exactly these).
    #[serde(default)]
    rigged: Option<Vec<String>>,
    /// Extension (Bridge Demolition): tank hits scored on bridges.
    #[serde(default)]
    bridge_damage: BTreeMap<String, u32>,
    /// Extension (Bridge Demolition): rigged bridges a battle took place on.
    #[serde(default)]
    battled_bridges: Option<Vec<String>>,
    /// Extension (Political Commissar): the card under the marker after
    /// the turn ("" for none).
    #[serde(default)]
    commissar: Option<String>,
    /// Extension (Appendix 2, Trains): trains after the turn (trains.rs).
    #[serde(default)]
    trains: Vec<super::trains::ExpectTrain>,
    /// Extension (Supply Lines & Sieges): per hex after the turn, the turns
    /// its unit has begun out of supply (0: in supply).
    #[serde(default)]
    supply: BTreeMap<String, u32>,
    /// Extension: whether the game is over after the turn.
    #[serde(default)]
    over: Option<bool>,
    /// Extension ("Achtung! Zombie!"): the victory markers not yet removed
    /// after the turn (exactly these).
    #[serde(default)]
    zombie_markers: Option<Vec<String>>,
    /// Extension ("Achtung! Zombie!"): Living figures saved off the board.
    #[serde(default)]
    saved: Option<u32>,
    /// Extension (Sabotage of a Supply Depot): per side, the hexes of
    /// movement its armour has lost after the turn.
    #[serde(default)]
    armour_move_lost: BTreeMap<String, u32>,
    /// Extension ("EX-TER-MIN-ATE!"): the towns the Daleks have
    /// exterminated after the turn (exactly these).
    #[serde(default)]
    exterminated: Option<Vec<String>>,
    /// Extension ("War Of The Worlds"): the Martians' sickness level.
    #[serde(default)]
    sickness: Option<u32>,
    /// Extension ("War Of The Worlds"): the towns seized (exactly these).
    #[serde(default)]
    seized: Option<Vec<String>>,
    /// PREDICT's odds on the case's position, before the turn is played.
    #[serde(default)]
    predict: Option<PredictPart>,
}

/// `[expect.predict]` (docs/testing.md): the side defaults to the case's
/// side, the orders to its orders.
type PredictPart = adjutant_rules::odds::ExpectPredict;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExpectMine {
    at: Spanned<String>,
    #[serde(default)]
    strength: Option<u32>,
    #[serde(default)]
    revealed: Option<bool>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExpectView {
    /// Hexes of enemy units the side sees (its view holds them).
    #[serde(default)]
    sees: Vec<Spanned<String>>,
    /// Hexes of enemy units the side does not see: its view holds no unit
    /// there and no event of the enemy names the hex.
    #[serde(default)]
    hidden: Vec<Spanned<String>>,
    /// Words that must appear in the side's combat report lines.
    #[serde(default)]
    told: Vec<String>,
    /// Words that must not appear in them, nor in its view's summary of
    /// the sides (the enemy's card, say).
    #[serde(default)]
    not_told: Vec<String>,
    /// Words (any case) that must appear nowhere in the side's view.json,
    /// nor in its report lines (a card's id or name).
    #[serde(default)]
    not_in_view: Vec<String>,
    /// Words (any case) that must appear in the side's view.json or report
    /// lines (the wire it last saw on a hex).
    #[serde(default)]
    in_view: Vec<String>,
    /// Words that must appear in exactly one of the side's report lines.
    #[serde(default)]
    told_once: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExpectStar {
    kind: String,
    at: String,
    /// With a unit (a leader's unit, carried equipment).
    #[serde(default)]
    carried: Option<bool>,
    /// Sabotaging A Dam: the Battle Stars on the dam.
    #[serde(default)]
    count: Option<u32>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExpectUnit {
    at: Spanned<String>,
    #[serde(default)]
    side: Option<String>,
    #[serde(default)]
    r#type: Option<String>,
    #[serde(default)]
    figures: Option<u32>,
}

fn fail(name: &str, detail: impl Into<String>) -> CaseResult {
    CaseResult {
        name: name.to_string(),
        passed: false,
        detail: detail.into(),
    }
}

struct Built {
    name: String,
    st: State,
    side: usize,
    orders: String,
    faces: Vec<u32>,
    expect: ExpectPart,
    /// Pre-battle: forced faces and each side's orders.
    pre_battle: Option<(Vec<u32>, Vec<adjutant_rules::Orders>)>,
    /// The airdrop's forced d6 numbers.
    airdrop_dice: Vec<u32>,
}

/// The case file's text and name, for errors that point into it.
#[derive(Clone, Copy)]
struct Src<'a> {
    text: &'a str,
    file: &'a str,
}

impl Src<'_> {
    fn at(&self, span: std::ops::Range<usize>, message: impl Into<String>) -> DataError {
        at(self.text, self.file, span, message)
    }

    /// "unknown side '...'" at `s`.
    fn unknown_side(&self, s: &Spanned<String>) -> DataError {
        self.at(s.span(), format!("unknown side '{}'", s.get_ref()))
    }

    /// The id of the card `c` names.
    fn card(&self, r: &Ruleset, c: &Spanned<String>) -> Result<String, DataError> {
        r.card_id(c.get_ref())
            .ok_or_else(|| self.at(c.span(), format!("unknown card '{}'", c.get_ref())))
    }
}

fn build(r: &Ruleset, text: &str, file: &str) -> Result<Built, DataError> {
    let src = Src { text, file };
    let cf: CaseFile = toml::from_str(text).map_err(|e| toml_error(text, file, &e))?;
    let _ = (&cf.cites, &cf.notes);
    let mut st = starting_state(r, &cf, src)?;
    set_up_board(r, &mut st, &cf, src)?;
    set_up_variants(r, &mut st, &cf, src)?;
    let side = turn_side(r, &mut st, &cf, src)?;
    let (hand, mut ohand) = hands(r, &cf, src)?;
    set_standing(r, &mut st, &cf, side, &mut ohand, src)?;
    st.turn = 1;
    set_firefights(r, &mut st, &cf, src)?;
    deal(r, &mut st, &cf, side, hand, ohand, src)?;
    let faces = forced_faces(r, &cf, src)?;
    check_expected_hexes(r, &cf, src)?;
    let pre_battle = pre_battle(r, &mut st, &cf, src)?;
    let airdrop_dice = airdrop_dice(&cf, src)?;
    Ok(Built {
        airdrop_dice,
        name: cf.name,
        st,
        side,
        orders: cf.turn.orders,
        faces,
        expect: cf.expect,
        pre_battle,
    })
}

/// The position before the board is set up: the scenario's, or a blank
/// board with the sides in the order `[board] bottom` asks.
fn starting_state(r: &Ruleset, cf: &CaseFile, src: Src) -> Result<State, DataError> {
    if let Some(rs) = &cf.ruleset {
        if rs.get_ref() != "memoir44" {
            return Err(src.at(
                rs.span(),
                format!("ruleset '{}' is not memoir44", rs.get_ref()),
            ));
        }
    }
    let scen = cf.scenario.as_ref().or(cf.board.scenario.as_ref());
    if let Some(sc) = scen {
        let Some(t) = scenario::text(sc.get_ref()) else {
            return Err(src.at(
                sc.span(),
                format!(
                    "unknown scenario '{}' (known: {})",
                    sc.get_ref(),
                    scenario::ids().join(", ")
                ),
            ));
        };
        let (_, mut s) =
            scenario::load(r, t, &format!("scenarios/memoir44/{}.toml", sc.get_ref()))?;
        s.hands = vec![vec![], vec![]];
        return Ok(s);
    }
    let mut ids: Vec<String> = r.sides.iter().map(|s| s.id.clone()).collect();
    let mut names: Vec<String> = r.sides.iter().map(|s| s.name.clone()).collect();
    if let Some(b) = &cf.board.bottom {
        let want = b.get_ref().trim().to_ascii_lowercase();
        match ids.iter().position(|x| *x == want) {
            Some(0) => {}
            Some(_) => {
                ids.reverse();
                names.reverse();
            }
            None => return Err(src.unknown_side(b)),
        }
    }
    Ok(scenario::blank(r, "case", &cf.name, ids, names))
}

/// The `[board]` table and the placements beside it: terrain, units,
/// markers and the optional rules' set-up.
fn set_up_board(r: &Ruleset, st: &mut State, cf: &CaseFile, src: Src) -> Result<(), DataError> {
    let Src { text, file } = src;
    let layout = Layout {
        text,
        file,
        sides: st.sides.clone(),
        terrain: &cf.board.terrain,
        units: &cf.units,
        objectives: &cf.board.objectives,
        airdrops: &cf.airdrops,
        minefields: &cf.minefields,
        rigged: &cf.rigged_bridges,
    };
    scenario::place(r, st, &layout)?;
    if cf.board.flooded {
        super::landmarks::flood(r, st);
    }
    if let Some(m) = cf.minefields.iter().find(|m| m.strength.is_none()) {
        return Err(src.at(
            m.at.span(),
            "a case gives each minefield its strength (strength = 0 to 6)",
        ));
    }
    if let Some(v) = cf.board.victory {
        st.victory = v;
    }
    for (k, v) in &cf.board.medals {
        if let Some(i) = st.side_index(k) {
            st.medal_units[i] = *v;
        }
    }
    for (k, v) in &cf.board.armour_move_lost {
        if let Some(i) = st.side_index(k) {
            st.armour_move_lost.resize(2, 0);
            st.armour_move_lost[i] = *v;
        }
    }
    if let Some(k) = &cf.board.kriegspiel {
        st.fog = Some(super::fog::parse_option(k.get_ref()).map_err(|m| src.at(k.span(), m))?);
    }
    if let Some(w) = &cf.board.weather {
        scenario::place_weather(r, st, &layout, w)?;
    }
    if let Some(sp) = &cf.board.supply {
        super::supply::place(r, st, &layout, sp.get_ref(), sp.span())?;
    }
    for s in &cf.board.pontoon_bridges {
        let i = scenario::file_side(&layout, s)?;
        st.pontoon_sides.push(i);
    }
    scenario::place_stars(r, st, &layout, &cf.battle_stars)?;
    super::disorder::place(r, st, &layout, &cf.demoralisation)?;
    if let Some(c) = &cf.board.commissar {
        super::commissar::place(r, st, &layout, c)?;
    }
    super::landmarks::place_reinforcements(r, st, &layout, &cf.board.airfield_reinforcements)?;
    if let Some(b) = &cf.board.blitzkrieg {
        let side = st
            .side_index(b.get_ref())
            .ok_or_else(|| src.unknown_side(b))?;
        super::blitzkrieg::set(r, st, Some(side)).map_err(|m| src.at(b.span(), m))?;
    }
    st.young_generals = cf.board.young_generals;
    Ok(())
}

/// The variants `[board]` names: Appendix 3's Suggested Variants, the Army
/// Manoeuvres variants, the bunkers side and "Nineteen Eighty-Four".
fn set_up_variants(r: &Ruleset, st: &mut State, cf: &CaseFile, src: Src) -> Result<(), DataError> {
    // Appendix 3's Suggested Variants, as the game options name them
    // ("Nineteen Eighty-Four" converts later, with the bunkers side).
    let suggested = [
        (super::variants::zombies::OPTION, &cf.board.zombies),
        (super::variants::exterminate::OPTION, &cf.board.exterminate),
        (super::variants::cybermen::OPTION, &cf.board.cybermen),
        (super::variants::worlds::OPTION, &cf.board.worlds),
    ];
    for (option, side) in suggested {
        if let Some(z) = side {
            super::variants::apply_option(r, st, option, z.get_ref())
                .map_err(|m| src.at(z.span(), m))?;
        }
    }
    if let (Some(n), Some(_)) = (cf.board.sickness, &st.worlds) {
        super::variants::worlds::set_sickness(r, st, n);
    }
    for v in &cf.board.variants {
        if !r.variants.contains_key(v.get_ref()) {
            let known: Vec<&str> = r.variants.keys().map(String::as_str).collect();
            return Err(src.at(
                v.span(),
                format!(
                    "unknown variant '{}' (known: {})",
                    v.get_ref(),
                    known.join(", ")
                ),
            ));
        }
        st.variants.push(v.get_ref().clone());
    }
    st.manoeuvres_used = vec![Vec::new(); st.sides.len()];
    if let Some(b) = &cf.board.bunkers {
        st.bunker_side = Some(
            st.side_index(b.get_ref())
                .ok_or_else(|| src.unknown_side(b))?,
        );
    }
    // "Nineteen Eighty-Four" converts the position the [board] sets up (a
    // scenario's bunkers side and Commissar included).
    if let Some(v) = cf
        .board
        .nineteen_eighty_four
        .as_ref()
        .filter(|v| *v.get_ref())
    {
        super::variants::nineteen84::convert(r, st).map_err(|m| src.at(v.span(), m))?;
    }
    super::variants::exterminate::human_factor(r, st);
    Ok(())
}

/// The side to move, and the once-per-game manoeuvres it has used.
fn turn_side(r: &Ruleset, st: &mut State, cf: &CaseFile, src: Src) -> Result<usize, DataError> {
    let side = st
        .side_index(cf.turn.side.get_ref())
        .ok_or_else(|| src.unknown_side(&cf.turn.side))?;
    st.to_move = side;
    for c in &cf.turn.used {
        match r.card_id(c.get_ref()) {
            Some(id) if r.card(&id).is_some_and(|s| s.kind == "manoeuvre") => {
                st.manoeuvres_used[side].push(id);
            }
            _ => {
                return Err(src.at(
                    c.span(),
                    format!("'{}' is not a manoeuvre card", c.get_ref()),
                ))
            }
        }
    }
    Ok(side)
}

/// The hand (as given, or the cards the orders play) and the opponent's.
fn hands(r: &Ruleset, cf: &CaseFile, src: Src) -> Result<(Vec<String>, Vec<String>), DataError> {
    let mut hand = Vec::new();
    match &cf.turn.hand {
        Some(h) => {
            for c in h {
                hand.push(src.card(r, c)?);
            }
        }
        None => hand = played_cards(r, &cf.turn.orders),
    }
    let mut ohand = Vec::new();
    for c in cf.turn.opponent_hand.iter().flatten() {
        ohand.push(src.card(r, c)?);
    }
    Ok((hand, ohand))
}

/// The cards the orders play, discard or exchange (a manoeuvre is held
/// outside the hand).
fn played_cards(r: &Ruleset, orders: &str) -> Vec<String> {
    let mut hand = Vec::new();
    for l in orders.lines() {
        let t = l.split('#').next().unwrap_or("");
        let mut w = t.split_whitespace();
        let verb = w.next().unwrap_or("").to_ascii_uppercase();
        if matches!(verb.as_str(), "PLAY" | "DISCARD" | "EXCHANGE") {
            for c in w {
                if let Some(id) = r.card_id(c) {
                    // A manoeuvre is held outside the hand.
                    if r.card(&id).is_none_or(|s| s.kind != "manoeuvre") {
                        hand.push(id);
                    }
                }
                if verb == "PLAY" {
                    break;
                }
            }
        }
    }
    hand
}

/// Standing orders on file (the opponent's and the side's own) and the
/// card the opponent played last.
fn set_standing(
    r: &Ruleset,
    st: &mut State,
    cf: &CaseFile,
    side: usize,
    ohand: &mut Vec<String>,
    src: Src,
) -> Result<(), DataError> {
    let other = State::other(side);
    let board = State::board(r);
    if let Some(oo) = &cf.turn.opponent_orders {
        let lines = orders::parse_standing_text(&board, r, oo.get_ref())
            .map_err(|e| src.at(oo.span(), format!("opponent_orders: {e}")))?;
        let sd = standing_from(st, other, &lines, Default::default())
            .map_err(|e| src.at(oo.span(), format!("opponent_orders: {e}")))?;
        // Standing orders about Ambush mean the opponent holds the card.
        let ambush = lines.iter().any(|l| {
            matches!(
                l.cmd,
                orders::Cmd::Standing(
                    orders::StandingCmd::AmbushFirst | orders::StandingCmd::AmbushAt(_)
                )
            )
        });
        if ambush && !ohand.iter().any(|c| c == "ambush") {
            ohand.push("ambush".into());
        }
        st.standing[other] = sd;
    }
    if let Some(own) = &cf.turn.standing {
        let lines = orders::parse_standing_text(&board, r, own.get_ref())
            .map_err(|e| src.at(own.span(), format!("standing: {e}")))?;
        st.standing[side] = standing_from(st, side, &lines, Default::default())
            .map_err(|e| src.at(own.span(), format!("standing: {e}")))?;
    }
    if let Some(p) = &cf.turn.opponent_played {
        st.last_played[other] = Some(Played {
            card: src.card(r, p)?,
            section: None,
        });
    }
    Ok(())
}

/// Pairs of units already in close assault.
fn set_firefights(r: &Ruleset, st: &mut State, cf: &CaseFile, src: Src) -> Result<(), DataError> {
    let board = State::board(r);
    for f in &cf.turn.firefights {
        let hs: Vec<_> = f
            .get_ref()
            .split_whitespace()
            .filter_map(|w| board.parse(w))
            .collect();
        let ids: Vec<u32> = hs
            .iter()
            .filter_map(|h| st.unit_at(*h).map(|u| u.id))
            .collect();
        match ids.as_slice() {
            [a, b] => st.engagements.push(Engagement {
                a: *a,
                b: *b,
                since: 1,
            }),
            _ => {
                return Err(src.at(
                    f.span(),
                    "a firefight names two hexes with units, like \"D4 E5\"",
                ))
            }
        }
    }
    Ok(())
}

/// The hands, the deck without them, and the card under the Commissar.
fn deal(
    r: &Ruleset,
    st: &mut State,
    cf: &CaseFile,
    side: usize,
    hand: Vec<String>,
    ohand: Vec<String>,
    src: Src,
) -> Result<(), DataError> {
    let other = State::other(side);
    let mut deck = r.deck();
    for c in hand.iter().chain(ohand.iter()) {
        if let Some(p) = deck.iter().position(|x| x == c) {
            deck.remove(p);
        }
    }
    if let Some(c) = &cf.turn.commissar {
        let id = src.card(r, c)?;
        if let Some(p) = deck.iter().position(|x| *x == id) {
            deck.remove(p);
        }
        match st.commissar.as_mut() {
            Some(m) => m.card = Some(id),
            None => {
                return Err(src.at(
                    c.span(),
                    "a card under the Commissar marker needs [board] commissar = \"<side>\"",
                ))
            }
        }
    }
    st.hands[side] = hand;
    st.hands[other] = ohand;
    st.hand_size = vec![
        st.hands[0].len().max(1) as u32,
        st.hands[1].len().max(1) as u32,
    ];
    st.deck = deck;
    st.discard = vec![];
    Ok(())
}

/// The die faces the case forces, in order.
fn forced_faces(r: &Ruleset, cf: &CaseFile, src: Src) -> Result<Vec<u32>, DataError> {
    let mut faces = Vec::new();
    for d in &cf.turn.dice {
        match r.face_value(d.get_ref()) {
            Some(v) => faces.push(v),
            None => {
                return Err(src.at(
                    d.span(),
                    format!(
                        "'{}' is not a die face (infantry armour grenade star flag)",
                        d.get_ref()
                    ),
                ))
            }
        }
    }
    Ok(faces)
}

/// Every hex `[expect]` names for units or emptiness is on the board.
fn check_expected_hexes(r: &Ruleset, cf: &CaseFile, src: Src) -> Result<(), DataError> {
    let board = State::board(r);
    for e in &cf.expect.empty {
        if board.parse(e.get_ref()).is_none() {
            return Err(src.at(
                e.span(),
                format!("'{}' is not a hex on the board", e.get_ref()),
            ));
        }
    }
    for u in &cf.expect.units {
        if board.parse(u.at.get_ref()).is_none() {
            return Err(src.at(
                u.at.span(),
                format!("'{}' is not a hex on the board", u.at.get_ref()),
            ));
        }
    }
    Ok(())
}

/// A campaign battle's pre-battle phase: the dice and hand sizes set on
/// the state, the forced faces and each side's orders returned.
#[allow(clippy::type_complexity)]
fn pre_battle(
    r: &Ruleset,
    st: &mut State,
    cf: &CaseFile,
    src: Src,
) -> Result<Option<(Vec<u32>, Vec<adjutant_rules::Orders>)>, DataError> {
    let Some(pb) = &cf.pre_battle else {
        return Ok(None);
    };
    let mut dice = vec![0; st.sides.len()];
    for (k, n) in &pb.dice {
        let i = st
            .side_index(&k.to_ascii_lowercase())
            .ok_or_else(|| DataError::Invalid {
                file: src.file.to_string(),
                message: format!("pre_battle.dice: unknown side '{k}'"),
            })?;
        dice[i] = *n;
    }
    for (k, n) in &pb.hand_size {
        if let Some(i) = st.side_index(&k.to_ascii_lowercase()) {
            st.hand_size[i] = *n;
        }
    }
    st.short_hand = vec![false; st.sides.len()];
    st.pre_battle = Some(super::campaign::PreBattle {
        dice,
        rolled: false,
        choices: Vec::new(),
    });
    let mut pf = Vec::new();
    for d in &pb.faces {
        pf.push(
            r.face_value(d.get_ref())
                .ok_or_else(|| src.at(d.span(), format!("'{}' is not a die face", d.get_ref())))?,
        );
    }
    let orders = pb
        .orders
        .iter()
        .map(|(k, v)| adjutant_rules::Orders {
            side: k.to_ascii_lowercase(),
            text: v.clone(),
        })
        .collect();
    Ok(Some((pf, orders)))
}

/// The d6 numbers the airdrop rolls.
fn airdrop_dice(cf: &CaseFile, src: Src) -> Result<Vec<u32>, DataError> {
    let mut airdrop_dice = Vec::new();
    for d in &cf.airdrop_dice {
        if !(1..=6).contains(d.get_ref()) {
            return Err(src.at(
                d.span(),
                format!("{} is not a number of a d6 (1 to 6)", d.get_ref()),
            ));
        }
        airdrop_dice.push(*d.get_ref());
    }
    Ok(airdrop_dice)
}

/// Run a case from its text. A malformed file is a failing case.
#[must_use]
pub fn run_case_text(text: &str, file: &str) -> CaseResult {
    let r = match Ruleset::builtin() {
        Ok(r) => r,
        Err(e) => return fail(file, format!("ruleset: {e}")),
    };
    let b = match build(&r, text, file) {
        Ok(b) => b,
        Err(e) => {
            let name = toml::from_str::<toml::Table>(text)
                .ok()
                .and_then(|t| t.get("name").and_then(|n| n.as_str().map(str::to_string)))
                .unwrap_or_else(|| file.to_string());
            return fail(&name, e.to_string());
        }
    };
    match run_built(&r, b) {
        Ok(res) | Err(res) => res,
    }
}

/// What the judge's phases before the turn left: the position the turn
/// starts from, their events and the problems with their forced dice.
struct BeforeTurn {
    start: State,
    pre_events: Vec<Event>,
    airdrop_events: Vec<Event>,
    dropping: bool,
    problems: Vec<String>,
}

/// A passing case: rejected as it expected.
fn rejected(name: &str, msg: impl std::fmt::Display) -> CaseResult {
    CaseResult {
        name: name.to_string(),
        passed: true,
        detail: format!("rejected: {msg}"),
    }
}

/// Play the built case and check what it expects. `Err` is a result
/// decided before the checks (a rejection, a failed phase).
fn run_built(r: &Ruleset, b: Built) -> Result<CaseResult, CaseResult> {
    let mut dice = ForcedDice::new(b.faces.clone());
    let mut deck = ChaChaDice::from_seed([0u8; 32]);
    let mut before = BeforeTurn {
        start: b.st.clone(),
        pre_events: Vec::new(),
        airdrop_events: Vec::new(),
        dropping: false,
        problems: Vec::new(),
    };
    // A campaign battle's pre-battle phases first, through the family's
    // own phases (the rolls, then every side's choices).
    if let Some((faces, orders)) = &b.pre_battle {
        if let Some(done) = pre_battle_phase(r, &b, faces, orders, &mut deck, &mut before)? {
            return Ok(done);
        }
    }
    airdrop_phase(r, &b, &mut deck, &mut before)?;
    let odds = check_predict(r, &b, &before.start);
    let (st, events) = match play_turn(r, &b, &before, &mut dice, &mut deck) {
        Ok(played) => played,
        Err(verdict) if odds.is_empty() => return Err(verdict),
        Err(verdict) => {
            return Err(fail(
                &b.name,
                format!("{}; {}", odds.join("; "), verdict.detail),
            ))
        }
    };
    let mut problems = std::mem::take(&mut before.problems);
    problems.extend(odds);
    dice_problems(&b, &dice, &mut problems);
    let x = &b.expect;
    check_units(r, &st, x, &mut problems);
    check_sides(&st, x, &mut problems);
    check_table(r, &st, x, &mut problems);
    check_variants(&st, x, &mut problems);
    check_events(&events, &before.pre_events, x, &mut problems);
    for (sd, ev) in &x.view {
        check_view(r, &st, &events, sd, ev, &mut problems);
    }
    check_minefields(r, &st, x, &mut problems);
    check_bridges(&st, x, &mut problems);
    problems.extend(super::trains::check_expect(r, &st, &x.trains));
    check_supply(&st, x, &mut problems);
    // Whatever the case: a minefield's hidden strength is in no side's view
    // nor in any event that side is told (only the referee's).
    for who in st.sides.clone() {
        let viewer = adjutant_rules::Viewer::Side(who.clone());
        let v = super::view::view_with_events(r, &st, &viewer, &events);
        problems.extend(super::mines::leaks(&st, &v, &who));
    }
    if let Some(w) = &x.winner {
        match super::result(&st) {
            Some(got) if got == *w => {}
            got => problems.push(format!("winner: expected {w:?}, got {got:?}")),
        }
    }
    Ok(verdict(b.name, &problems, &events))
}

/// A campaign battle's pre-battle roll, then every side's choices.
/// `Some`: the case is decided (its expected rejection came).
fn pre_battle_phase(
    r: &Ruleset,
    b: &Built,
    faces: &[u32],
    orders: &[adjutant_rules::Orders],
    deck: &mut ChaChaDice,
    before: &mut BeforeTurn,
) -> Result<Option<CaseResult>, CaseResult> {
    use adjutant_rules::Family;
    let mut pd = ForcedDice::new(faces.to_vec());
    let res = {
        let mut chance = Chance {
            dice: &mut pd,
            deck,
        };
        Family::adjudicate(r, &before.start, &[], &mut chance)
    };
    match res {
        Ok((st, ev)) => {
            before.start = st;
            before.pre_events.extend(ev);
        }
        Err(e) => return Err(fail(&b.name, format!("the pre-battle roll failed: {e}"))),
    }
    if pd.exhausted() || pd.unused() > 0 {
        before.problems.push(format!(
            "pre-battle: the case forces {} dice, the engine rolled {}",
            faces.len(),
            pd.rolled()
        ));
    }
    if before.start.pre_battle.is_none() {
        return Ok(None);
    }
    let given: Vec<adjutant_rules::Orders> = orders.to_vec();
    let mut none = ForcedDice::new(Vec::new());
    let res = {
        let mut chance = Chance {
            dice: &mut none,
            deck,
        };
        Family::adjudicate(r, &before.start, &given, &mut chance)
    };
    match (res, &b.expect.rejected) {
        (Ok((st, ev)), _) => {
            before.start = st;
            before.pre_events.extend(ev);
            Ok(None)
        }
        (Err(e), Some(want)) if e.to_string().to_lowercase().contains(&want.to_lowercase()) => {
            Ok(Some(rejected(&b.name, e)))
        }
        (Err(e), _) => Err(fail(
            &b.name,
            format!("the pre-battle orders were rejected: {e}"),
        )),
    }
}

/// Paratroops & Glider Landings: the judge's airdrop phase.
fn airdrop_phase(
    r: &Ruleset,
    b: &Built,
    deck: &mut ChaChaDice,
    before: &mut BeforeTurn,
) -> Result<(), CaseResult> {
    use adjutant_rules::Family;
    before.dropping = !before.start.airdrops.is_empty();
    if !before.dropping {
        return Ok(());
    }
    let mut ad = ForcedDice::new(b.airdrop_dice.clone());
    let res = {
        let mut chance = Chance {
            dice: &mut ad,
            deck,
        };
        Family::adjudicate(r, &before.start, &[], &mut chance)
    };
    match res {
        Ok((st, ev)) => {
            before.start = st;
            before.airdrop_events.clone_from(&ev);
            before.pre_events.extend(ev);
        }
        Err(e) => return Err(fail(&b.name, format!("the airdrop failed: {e}"))),
    }
    if ad.exhausted() || ad.unused() > 0 {
        before.problems.push(format!(
            "airdrop: the case forces {} dice, the engine rolled {}",
            b.airdrop_dice.len(),
            ad.rolled()
        ));
    }
    Ok(())
}

/// The turn the case's orders play (none after a pre-battle phase or an
/// airdrop when the orders are empty), against the rejection it expects.
fn play_turn(
    r: &Ruleset,
    b: &Built,
    before: &BeforeTurn,
    dice: &mut ForcedDice,
    deck: &mut ChaChaDice,
) -> Result<(State, Vec<Event>), CaseResult> {
    let start = &before.start;
    let side = b.st.sides[b.side].clone();
    let plays = (b.pre_battle.is_none() && !before.dropping) || !b.orders.trim().is_empty();
    let res = if plays {
        let mut chance = Chance { dice, deck };
        adjudicate(r, start, &side, &b.orders, &mut chance)
    } else {
        Ok((start.clone(), before.airdrop_events.clone()))
    };
    match (res, &b.expect.rejected) {
        (Err(e), Some(want)) => {
            let msg = e.to_string();
            if msg.to_lowercase().contains(&want.to_lowercase()) {
                return Err(rejected(&b.name, msg));
            }
            Err(fail(
                &b.name,
                format!(
                    "rejected as expected, but the message \"{msg}\" does not contain \"{want}\""
                ),
            ))
        }
        (Err(e), None) => Err(fail(&b.name, format!("the orders were rejected: {e}"))),
        (Ok(_), Some(want)) => Err(fail(
            &b.name,
            format!("the orders were accepted, but a rejection containing \"{want}\" was expected"),
        )),
        (Ok(x), None) => Ok(x),
    }
}

/// The problems of `[expect.predict]`: PREDICT's answer on the position
/// the turn starts from against the lines the case expects.
fn check_predict(r: &Ruleset, b: &Built, start: &State) -> Vec<String> {
    let Some(p) = &b.expect.predict else {
        return Vec::new();
    };
    let side = p
        .side
        .as_deref()
        .map_or_else(|| b.st.sides[b.side].clone(), str::to_ascii_lowercase);
    let orders = p.orders.as_deref().unwrap_or(&b.orders);
    p.problems(super::predict::predict(r, start, &side, orders))
}

/// The dice the engine rolled against the faces the case forces.
fn dice_problems(b: &Built, dice: &ForcedDice, problems: &mut Vec<String>) {
    if dice.exhausted() {
        problems.push(format!(
            "the engine rolled {} dice but the case forces only {}",
            dice.rolled(),
            b.faces.len()
        ));
    } else if dice.unused() > 0 {
        problems.push(format!(
            "the case forces {} dice but the engine rolled only {}",
            b.faces.len(),
            dice.rolled()
        ));
    }
    if let Some(n) = b.expect.dice_rolled {
        if dice.rolled() != n {
            problems.push(format!("dice rolled: expected {n}, got {}", dice.rolled()));
        }
    }
}

/// Never two units on one hex; the units and empty hexes `[expect]` names.
fn check_units(r: &Ruleset, st: &State, x: &ExpectPart, problems: &mut Vec<String>) {
    let board = State::board(r);
    // Whatever the case: never two units on one hex.
    let mut held = std::collections::BTreeSet::new();
    for u in &st.units {
        if !held.insert(u.at) {
            problems.push(format!("two units stand on {}", u.at));
        }
    }
    for eu in &x.units {
        let Some(h) = board.parse(eu.at.get_ref()) else {
            continue;
        };
        let Some(u) = st.unit_at(h) else {
            problems.push(format!("expected a unit at {h}, found none"));
            continue;
        };
        if let Some(sd) = &eu.side {
            if st.sides.get(u.side).map(String::as_str) != Some(sd.to_ascii_lowercase().as_str()) {
                problems.push(format!(
                    "unit at {h}: expected side {sd}, got {}",
                    st.sides[u.side]
                ));
            }
        }
        if let Some(t) = &eu.r#type {
            let want = r.unit_id(t).unwrap_or_else(|| t.clone());
            if u.kind != want {
                problems.push(format!("unit at {h}: expected {want}, got {}", u.kind));
            }
        }
        if let Some(f) = eu.figures {
            if u.figures != f {
                problems.push(format!(
                    "unit at {h}: expected {f} figure(s), got {}",
                    u.figures
                ));
            }
        }
    }
    for e in &x.empty {
        if let Some(h) = board.parse(e.get_ref()) {
            if let Some(u) = st.unit_at(h) {
                problems.push(format!(
                    "expected {h} empty, found {} {} ({} figures)",
                    st.sides[u.side], u.kind, u.figures
                ));
            }
        }
    }
}

/// Per side: armour movement lost, medals, hands; the Commissar's card.
fn check_sides(st: &State, x: &ExpectPart, problems: &mut Vec<String>) {
    for (sd, n) in &x.armour_move_lost {
        match st.side_index(sd) {
            Some(i) => {
                let got = st.armour_move_lost.get(i).copied().unwrap_or(0);
                if got != *n {
                    problems.push(format!(
                        "armour movement lost by {sd}: expected {n}, got {got}"
                    ));
                }
            }
            None => problems.push(format!("armour_move_lost: unknown side '{sd}'")),
        }
    }
    for (sd, n) in &x.medals {
        match st.side_index(sd) {
            Some(i) if st.medals(i) != *n => problems.push(format!(
                "medals of {sd}: expected {n}, got {}",
                st.medals(i)
            )),
            Some(_) => {}
            None => problems.push(format!("medals: unknown side '{sd}'")),
        }
    }
    if let Some(want) = &x.commissar {
        let got = st
            .commissar
            .as_ref()
            .and_then(|c| c.card.clone())
            .unwrap_or_default();
        if got != *want {
            problems.push(format!(
                "card under the Commissar marker: expected '{want}', got '{got}'"
            ));
        }
    }
    for (sd, n) in &x.hands {
        match st.side_index(sd) {
            Some(i) if st.hands[i].len() != *n => problems.push(format!(
                "cards in the hand of {sd}: expected {n}, got {}",
                st.hands[i].len()
            )),
            Some(_) => {}
            None => problems.push(format!("hands: unknown side '{sd}'")),
        }
    }
}

/// The table after the turn: terrain, visibility, Battle Star markers and
/// whether the game is over.
fn check_table(r: &Ruleset, st: &State, x: &ExpectPart, problems: &mut Vec<String>) {
    let board = State::board(r);
    for (hx, want) in &x.terrain {
        let Some(h) = board.parse(hx) else {
            problems.push(format!("terrain: bad hex '{hx}'"));
            continue;
        };
        let norm = |v: &[String]| -> Vec<String> {
            let mut v: Vec<String> = v.iter().filter(|f| *f != "open").cloned().collect();
            v.sort();
            v
        };
        let want_ids: Vec<String> = want
            .iter()
            .map(|w| r.terrain_id(w).unwrap_or_else(|| w.clone()))
            .collect();
        if norm(st.features(h)) != norm(&want_ids) {
            problems.push(format!(
                "terrain at {h}: expected {want_ids:?}, got {:?}",
                st.features(h)
            ));
        }
    }
    if let Some(v) = x.visibility {
        let got = super::weather::visibility(r, st).unwrap_or(0);
        if got != v {
            problems.push(format!(
                "visibility: expected {v} hex(es), got {got} (0: normal)"
            ));
        }
    }
    if let Some(want) = &x.stars {
        check_stars(st, want, problems);
    }
    if let Some(o) = x.over {
        if st.over != o {
            problems.push(format!("over: expected {o}, got {}", st.over));
        }
    }
}

/// Battle Star Markers: every marker on the board after the turn.
fn check_stars(st: &State, want: &[ExpectStar], problems: &mut Vec<String>) {
    let mut got: Vec<String> = st
        .stars
        .iter()
        .map(|s| format!("{} {} {} {}", s.kind, s.at, s.unit.is_some(), s.count))
        .collect();
    let mut w: Vec<String> = want
        .iter()
        .map(|s| {
            let carried = s.carried.unwrap_or_else(|| {
                st.stars.iter().any(|x| {
                    x.kind == s.kind
                        && x.at.to_string().eq_ignore_ascii_case(&s.at)
                        && x.unit.is_some()
                })
            });
            let count = s.count.unwrap_or_else(|| {
                st.stars
                    .iter()
                    .find(|x| x.kind == s.kind && x.at.to_string().eq_ignore_ascii_case(&s.at))
                    .map_or(0, |x| x.count)
            });
            format!("{} {} {carried} {count}", s.kind, s.at.to_ascii_uppercase())
        })
        .collect();
    got.sort();
    w.sort();
    if got != w {
        problems.push(format!("battle stars: expected {w:?}, got {got:?}"));
    }
}

/// Appendix 3's variants and the night track.
fn check_variants(st: &State, x: &ExpectPart, problems: &mut Vec<String>) {
    problems.extend(super::variants::worlds::case_check(
        st,
        x.sickness,
        x.seized.as_deref(),
    ));
    problems.extend(super::variants::zombies::case_check(
        st,
        x.zombie_markers.as_deref(),
        x.saved,
    ));
    problems.extend(super::variants::exterminate::case_check(
        st,
        x.exterminated.as_deref(),
    ));
    if let Some(n) = x.night_box {
        let got = st.weather.as_ref().map_or(0, |w| w.track_box);
        if got != n {
            problems.push(format!("night track box: expected {n}, got {got}"));
        }
    }
}

/// Is there an event of kind `k` among `events`?
fn has_event<'a>(mut events: impl Iterator<Item = &'a Event>, k: &str) -> bool {
    events.any(|e| adjutant_rules::Event::of(e.clone()).kind() == k)
}

/// The event kinds that must appear (in the turn or the phases before
/// it) and those that must not (in the turn).
fn check_events(
    events: &[Event],
    pre_events: &[Event],
    x: &ExpectPart,
    problems: &mut Vec<String>,
) {
    for k in &x.events {
        if !has_event(events.iter().chain(pre_events.iter()), k) {
            problems.push(format!("expected an event '{k}'"));
        }
    }
    for k in &x.no_events {
        if has_event(events.iter(), k) {
            problems.push(format!("expected no event '{k}'"));
        }
    }
}

/// Kriegspiel: what the view of side `sd` (or the referee's) holds.
fn check_view(
    r: &Ruleset,
    st: &State,
    events: &[Event],
    sd: &str,
    ev: &ExpectView,
    problems: &mut Vec<String>,
) {
    let referee = sd.eq_ignore_ascii_case("referee");
    let viewer = if referee {
        adjutant_rules::Viewer::Referee
    } else {
        adjutant_rules::Viewer::Side(sd.to_ascii_lowercase())
    };
    let enemy = if referee {
        None
    } else if let Some(me) = st.side_index(sd) {
        Some(st.sides[State::other(me)].clone())
    } else {
        problems.push(format!("view: unknown side '{sd}'"));
        return;
    };
    let v = super::view::view_with_events(r, st, &viewer, events);
    // The referee's view: a unit of either side.
    let theirs = |side: &String| enemy.as_ref().is_none_or(|e| side == e);
    check_view_units(r, &v, sd, ev, &theirs, problems);
    let lines: Vec<String> = v
        .last_turn
        .iter()
        .filter_map(|e| super::render::describe_event(e, &viewer))
        .collect();
    for w in &ev.told {
        if !lines.iter().any(|l| l.contains(w.as_str())) {
            problems.push(format!("view.{sd}: not told \"{w}\": {lines:?}"));
        }
    }
    let sides = serde_json::to_string(&v.sides).unwrap_or_default();
    for w in &ev.not_told {
        if lines.iter().any(|l| l.contains(w.as_str())) || sides.contains(w.as_str()) {
            problems.push(format!("view.{sd}: told \"{w}\": {lines:?} {sides}"));
        }
    }
    // The side's own hand may hold any card: not a leak.
    let mut handless = v.clone();
    for x in &mut handless.sides {
        x.hand = None;
    }
    let all = format!(
        "{}\n{}",
        serde_json::to_string(&handless).unwrap_or_default(),
        lines.join("\n")
    )
    .to_lowercase();
    for w in &ev.told_once {
        let n = lines.iter().filter(|l| l.contains(w.as_str())).count();
        if n != 1 {
            problems.push(format!("view.{sd}: told \"{w}\" {n} times: {lines:?}"));
        }
    }
    for w in &ev.not_in_view {
        if all.contains(&w.to_lowercase()) {
            problems.push(format!("view.{sd}: its view holds \"{w}\": {lines:?}"));
        }
    }
    for w in &ev.in_view {
        if !all.contains(&w.to_lowercase()) {
            problems.push(format!("view.{sd}: its view lacks \"{w}\": {lines:?}"));
        }
    }
}

/// Kriegspiel: the enemy units the view must and must not hold, and no
/// event of the enemy naming a hidden one's hex.
fn check_view_units(
    r: &Ruleset,
    v: &super::view::View,
    sd: &str,
    ev: &ExpectView,
    theirs: &dyn Fn(&String) -> bool,
    problems: &mut Vec<String>,
) {
    let board = State::board(r);
    for h in &ev.sees {
        let Some(h) = board.parse(h.get_ref()) else {
            problems.push(format!("view.{sd}: '{}' is not a hex", h.get_ref()));
            continue;
        };
        if !v.units.iter().any(|u| u.at == h && theirs(&u.side)) {
            problems.push(format!("view.{sd}: should see the enemy unit at {h}"));
        }
    }
    for h in &ev.hidden {
        let Some(h) = board.parse(h.get_ref()) else {
            problems.push(format!("view.{sd}: '{}' is not a hex", h.get_ref()));
            continue;
        };
        if v.units.iter().any(|u| u.at == h && theirs(&u.side)) {
            problems.push(format!("view.{sd}: sees the enemy unit at {h}"));
        }
        let quoted = format!("\"{h}\"");
        for e in &v.last_turn {
            let j = adjutant_rules::Event::of(e.clone());
            if j.side().is_some_and(|x| theirs(&x.to_string()))
                && j.to_store().to_string().contains(&quoted)
            {
                problems.push(format!(
                    "view.{sd}: an enemy event names {h}: {}",
                    j.to_store()
                ));
            }
        }
    }
}

/// Minefields: those on the board after the turn, and hexes without one.
fn check_minefields(r: &Ruleset, st: &State, x: &ExpectPart, problems: &mut Vec<String>) {
    let board = State::board(r);
    for em in &x.minefields {
        let Some(h) = board.parse(em.at.get_ref()) else {
            continue;
        };
        match super::mines::at(st, h) {
            None => problems.push(format!("expected a minefield at {h}, found none")),
            Some(m) => {
                if em.strength.is_some_and(|x| x != m.strength) {
                    problems.push(format!(
                        "minefield at {h}: expected strength {:?}, got {}",
                        em.strength, m.strength
                    ));
                }
                if em.revealed.is_some_and(|x| x != m.revealed) {
                    problems.push(format!(
                        "minefield at {h}: expected revealed {:?}, got {}",
                        em.revealed, m.revealed
                    ));
                }
            }
        }
    }
    for e in &x.no_minefields {
        if let Some(h) = board.parse(e.get_ref()) {
            if super::mines::at(st, h).is_some() {
                problems.push(format!("expected no minefield at {h}, found one"));
            }
        }
    }
}

/// Bridge Demolition: the bridges rigged, those battled on, tank hits.
fn check_bridges(st: &State, x: &ExpectPart, problems: &mut Vec<String>) {
    if let Some(want) = &x.rigged {
        let got: Vec<String> = st.charges.iter().map(|c| c.at.to_string()).collect();
        let mut want: Vec<String> = want.iter().map(|w| w.to_ascii_uppercase()).collect();
        let mut got_sorted = got.clone();
        want.sort();
        got_sorted.sort();
        if want != got_sorted {
            problems.push(format!("rigged bridges: expected {want:?}, got {got:?}"));
        }
    }
    if let Some(want) = &x.battled_bridges {
        let mut got: Vec<String> = st
            .charges
            .iter()
            .filter(|c| c.battled)
            .map(|c| c.at.to_string())
            .collect();
        let mut want: Vec<String> = want.iter().map(|w| w.to_ascii_uppercase()).collect();
        want.sort();
        got.sort();
        if want != got {
            problems.push(format!(
                "rigged bridges battled on: expected {want:?}, got {got:?}"
            ));
        }
    }
    for (k, n) in &x.bridge_damage {
        let got = st
            .bridge_damage
            .iter()
            .find(|d| d.at.to_string() == k.to_ascii_uppercase())
            .map_or(0, |d| d.hits);
        if got != *n {
            problems.push(format!(
                "hits on the bridge at {k}: expected {n}, got {got}"
            ));
        }
    }
}

/// Supply Lines & Sieges: the turns each unit has begun out of supply.
fn check_supply(st: &State, x: &ExpectPart, problems: &mut Vec<String>) {
    for (k, n) in &x.supply {
        let got = super::board::Hex::parse(k)
            .and_then(|h| st.unit_at(h))
            .map(|u| super::supply::turns_out(st, u.id));
        match got {
            Some(g) if g == *n => {}
            Some(g) => problems.push(format!(
                "the unit at {k}: expected {n} turn(s) out of supply, got {g}"
            )),
            None => problems.push(format!("supply: there is no unit at {k} after the turn")),
        }
    }
}

/// Passed, or failed with the problems and the turn's events.
fn verdict(name: String, problems: &[String], events: &[Event]) -> CaseResult {
    if problems.is_empty() {
        return CaseResult {
            name,
            passed: true,
            detail: String::new(),
        };
    }
    let log: Vec<String> = events
        .iter()
        .filter_map(|e| super::describe_event(e, &super::Viewer::Referee))
        .collect();
    fail(
        &name,
        format!(
            "{}\n  events:\n    {}",
            problems.join("; "),
            log.join("\n    ")
        ),
    )
}
