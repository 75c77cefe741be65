//! The order language: one order per line, case-blind, `#` comments.
//! See docs/orders.md. Parsing never panics on any input.

use super::board::{Board, Hex, Section};
use super::ruleset::Ruleset;
use super::Rejection;

/// One standing order (for the other side's turn).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StandingCmd {
    NoRetreat(Vec<Hex>),
    NoRetreatAll,
    Retreat(Hex, Vec<Hex>),
    AmbushNever,
    AmbushFirst,
    AmbushAt(Vec<Hex>),
    Swap(String, String),
    Clear,
}

/// One order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cmd {
    Play {
        card: String,
        section: Option<Section>,
    },
    Discard {
        card: String,
    },
    Exchange {
        cards: Vec<String>,
    },
    Order {
        hexes: Vec<Hex>,
    },
    OrderAll,
    Move {
        path: Vec<Hex>,
    },
    Battle {
        from: Hex,
        target: Hex,
        take_ground: bool,
        overrun: Option<Hex>,
        /// North African Armour Overrun (Appendix 2): the one additional
        /// hex the armour moves to after taking ground, before it battles
        /// again.
        via: Option<Hex>,
    },
    Target {
        hexes: Vec<Hex>,
    },
    RemoveWire {
        at: Hex,
    },
    /// Battle Star Markers, Sabotage: the ordered unit at `at` rolls its
    /// close assault dice to destroy the objective there.
    Sabotage {
        at: Hex,
    },
    /// Appendix 2, Oasis: the ordered infantry at `at` recovers lost
    /// figures as with a Medics & Mechanics card.
    Recover {
        at: Hex,
    },
    /// Bridge Demolition, Option 1: the engineers at `unit` charge the
    /// bridge at `bridge`.
    Charge {
        unit: Hex,
        bridge: Hex,
    },
    /// Bridge Demolition, Option 2.
    Detonate {
        bridge: Hex,
    },
    /// Appendix 2, Trains: a unit carried by the train at `train`
    /// disembarks onto `to` (`kind`: which, when it carries several).
    Unload {
        train: Hex,
        to: Hex,
        kind: Option<String>,
    },
    /// Appendix 2, Airfield: reinforcements land on the airfield at `at`.
    Land {
        at: Hex,
    },
    /// Appendix 1's engineers: "construct a Pontoon Bridge" on the river
    /// hex `river` next to them (Appendix 2, Bridge, Pontoon).
    Pontoon {
        unit: Hex,
        river: Hex,
    },
    /// "Achtung! Zombie!": a Living unit retreats off the board.
    Exit {
        at: Hex,
    },
    /// "EX-TER-MIN-ATE!": a Dalek unit exterminates the town it occupies.
    Exterminate {
        at: Hex,
    },
    Keep {
        cards: Vec<String>,
    },
    Standing(StandingCmd),
    /// Political Commissar: the card put face down under the marker.
    Commissar {
        card: String,
    },
}

/// An order with its line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    pub no: usize,
    pub text: String,
    pub cmd: Cmd,
}

impl Line {
    #[must_use]
    pub fn reject(&self, msg: impl Into<String>) -> Rejection {
        Rejection::at(self.no, &self.text, msg)
    }
}

fn words(t: &str) -> Vec<String> {
    t.split(|c: char| c.is_whitespace() || c == ',' || c == ';')
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// Hexes from words; `E5-F6-G6` splits into three.
fn hexes(board: &Board, ws: &[String]) -> Result<Vec<Hex>, String> {
    let mut out = Vec::new();
    for w in ws {
        for part in w.split(['-', '>']).filter(|p| !p.is_empty()) {
            match Hex::parse(part) {
                Some(h) if board.contains(h) => out.push(h),
                Some(_) => {
                    return Err(format!(
                        "{} is not a hex on the board",
                        part.to_ascii_uppercase()
                    ))
                }
                None => {
                    return Err(format!(
                        "'{part}' is not a hex (write a column letter A-M and a row 1-9, like E5)"
                    ))
                }
            }
        }
    }
    Ok(out)
}

fn one_hex(board: &Board, w: Option<&String>, what: &str) -> Result<Hex, String> {
    let Some(w) = w else {
        return Err(format!("{what} is missing"));
    };
    let v = hexes(board, std::slice::from_ref(w))?;
    match v.as_slice() {
        [h] => Ok(*h),
        _ => Err(format!("{what} must be one hex")),
    }
}

fn card(r: &Ruleset, w: Option<&String>) -> Result<String, String> {
    let Some(w) = w else {
        return Err("which card? (for example PLAY probe-centre)".into());
    };
    r.card_id(w).ok_or_else(|| format!("'{w}' is not a card (card ids are the names in lower case with dashes, like attack-left-flank)"))
}

fn norm(w: &str) -> String {
    w.to_ascii_uppercase().replace('_', "-")
}

fn parse_standing(board: &Board, r: &Ruleset, ws: &[String]) -> Result<StandingCmd, String> {
    let Some(k) = ws.first() else {
        return Err("STANDING what? (NO-RETREAT, RETREAT, AMBUSH, SWAP or CLEAR)".into());
    };
    let rest = ws.get(1..).unwrap_or(&[]);
    match norm(k).as_str() {
        "NO-RETREAT" | "NORETREAT" => {
            if rest.len() == 1 && norm(&rest[0]) == "ALL" {
                return Ok(StandingCmd::NoRetreatAll);
            }
            let h = hexes(board, rest)?;
            if h.is_empty() {
                return Err("NO-RETREAT needs the hexes of your units, or ALL".into());
            }
            Ok(StandingCmd::NoRetreat(h))
        }
        "RETREAT" => {
            let h = hexes(board, rest)?;
            match h.split_first() {
                Some((u, prefs)) if !prefs.is_empty() => {
                    Ok(StandingCmd::Retreat(*u, prefs.to_vec()))
                }
                _ => Err(
                    "RETREAT needs your unit's hex and then the hexes it prefers to retreat onto"
                        .into(),
                ),
            }
        }
        "AMBUSH" => match rest.first().map(|w| norm(w)).as_deref() {
            Some("NEVER" | "NO" | "OFF") => Ok(StandingCmd::AmbushNever),
            Some("FIRST" | "YES" | "ON") | None => Ok(StandingCmd::AmbushFirst),
            Some(_) => Ok(StandingCmd::AmbushAt(hexes(board, rest)?)),
        },
        "SWAP" => {
            let a = card(r, rest.first())?;
            let b = card(r, rest.get(1))?;
            Ok(StandingCmd::Swap(a, b))
        }
        "CLEAR" | "NONE" => Ok(StandingCmd::Clear),
        other => Err(format!(
            "unknown standing order '{other}' (NO-RETREAT, RETREAT, AMBUSH, SWAP or CLEAR)"
        )),
    }
}

fn parse_line(board: &Board, r: &Ruleset, t: &str) -> Result<Cmd, String> {
    let ws = words(t);
    let Some(verb) = ws.first() else {
        return Err("empty order".into());
    };
    let rest = ws.get(1..).unwrap_or(&[]);
    match norm(verb).as_str() {
        "PLAY" => {
            let c = card(r, rest.first())?;
            let section = match rest.get(1) {
                Some(w) => Some(Section::parse(w).ok_or_else(|| format!("'{w}' is not a section (LEFT, CENTRE or RIGHT)"))?),
                None => None,
            };
            if rest.len() > 2 {
                return Err("PLAY takes a card and at most a section".into());
            }
            Ok(Cmd::Play { card: c, section })
        }
        "DISCARD" => Ok(Cmd::Discard { card: card(r, rest.first())? }),
        "EXCHANGE" => {
            let mut cards = Vec::new();
            for w in rest {
                cards.push(card(r, Some(w))?);
            }
            if cards.is_empty() {
                return Err("EXCHANGE needs the cards you show".into());
            }
            Ok(Cmd::Exchange { cards })
        }
        "ORDER" => {
            if rest.len() == 1 && norm(&rest[0]) == "ALL" {
                return Ok(Cmd::OrderAll);
            }
            let h = hexes(board, rest)?;
            if h.is_empty() {
                return Err("ORDER needs the hexes of the units you order".into());
            }
            Ok(Cmd::Order { hexes: h })
        }
        "MOVE" => {
            let h = hexes(board, rest)?;
            if h.len() < 2 {
                return Err("MOVE needs the unit's hex and then every hex of its path".into());
            }
            Ok(Cmd::Move { path: h })
        }
        "BATTLE" | "ATTACK" | "FIRE" => {
            let from = one_hex(board, rest.first(), "the battling unit's hex")?;
            let target = one_hex(board, rest.get(1), "the target hex")?;
            let mut take_ground = false;
            let mut overrun = None;
            let mut via = None;
            let mut i = 2;
            while let Some(w) = rest.get(i) {
                match norm(w).as_str() {
                    "TAKE-GROUND" | "TAKEGROUND" => take_ground = true,
                    "OVERRUN" => {
                        if overrun.is_some() {
                            return Err("only one Armour Overrun per unit and turn".into());
                        }
                        overrun = Some(one_hex(board, rest.get(i + 1), "the overrun target")?);
                        i += 1;
                    }
                    "VIA" => {
                        if overrun.is_none() || via.is_some() {
                            return Err("VIA <hex> follows OVERRUN <target>: the one additional hex of a North African Armour Overrun".into());
                        }
                        via = Some(one_hex(board, rest.get(i + 1), "the additional hex")?);
                        i += 1;
                    }
                    other => return Err(format!("'{other}' after BATTLE: expected TAKE-GROUND, OVERRUN <hex> or VIA <hex>")),
                }
                i += 1;
            }
            Ok(Cmd::Battle { from, target, take_ground, overrun, via })
        }
        "TARGET" | "TARGETS" => {
            let h = hexes(board, rest)?;
            if h.is_empty() {
                return Err("TARGET needs hexes".into());
            }
            Ok(Cmd::Target { hexes: h })
        }
        "REMOVE-WIRE" | "CLEAR-WIRE" => Ok(Cmd::RemoveWire { at: one_hex(board, rest.first(), "the unit's hex")? }),
        "SABOTAGE" => Ok(Cmd::Sabotage { at: one_hex(board, rest.first(), "the saboteurs' hex")? }),
        "RECOVER" => Ok(Cmd::Recover { at: one_hex(board, rest.first(), "the hex of the unit in the oasis")? }),
        "CHARGE" => Ok(Cmd::Charge {
            unit: one_hex(board, rest.first(), "the engineers' hex")?,
            bridge: one_hex(board, rest.get(1), "the bridge's hex")?,
        }),
        "DETONATE" => Ok(Cmd::Detonate { bridge: one_hex(board, rest.first(), "the bridge's hex")? }),
        "LAND" => Ok(Cmd::Land { at: one_hex(board, rest.first(), "the airfield's hex")? }),
        "UNLOAD" | "DISEMBARK" => {
            if rest.len() > 3 {
                return Err("UNLOAD <train> <hex> [<unit type>]: one unit per line".into());
            }
            Ok(Cmd::Unload {
                train: one_hex(board, rest.first(), "the train's hex")?,
                to: one_hex(board, rest.get(1), "the hex the unit disembarks onto")?,
                kind: rest.get(2).map(|k| k.to_ascii_lowercase()),
            })
        }
        "PONTOON" => Ok(Cmd::Pontoon {
            unit: one_hex(board, rest.first(), "the engineers' hex")?,
            river: one_hex(board, rest.get(1), "the river hex")?,
        }),
        "EXIT" => Ok(Cmd::Exit { at: one_hex(board, rest.first(), "the hex of the unit leaving the board")? }),
        "EXTERMINATE" => Ok(Cmd::Exterminate { at: one_hex(board, rest.first(), "the hex of the Dalek unit and its town")? }),
        "KEEP" => {
            let mut cards = Vec::new();
            for w in rest {
                cards.push(card(r, Some(w))?);
            }
            Ok(Cmd::Keep { cards })
        }
        "STANDING" => Ok(Cmd::Standing(parse_standing(board, r, rest)?)),
        "COMMISSAR" => Ok(Cmd::Commissar { card: card(r, rest.first())? }),
        other => Err(format!(
            "unknown order '{other}' (PLAY, ORDER, MOVE, BATTLE, TARGET, REMOVE-WIRE, SABOTAGE, RECOVER, CHARGE, DETONATE, UNLOAD, LAND, PONTOON, KEEP, DISCARD, EXCHANGE, COMMISSAR or STANDING)"
        )),
    }
}

/// A line longer than [`adjutant_rules::ORDER_LINE_CHARS`] is refused
/// (quoted by its start), as the measured family's parser does.
fn too_long(no: usize, t: &str) -> Result<(), Rejection> {
    if t.chars().count() > adjutant_rules::ORDER_LINE_CHARS {
        return Err(Rejection::at(
            no,
            &t.chars().take(40).collect::<String>(),
            format!(
                "an order line is at most {} characters",
                adjutant_rules::ORDER_LINE_CHARS
            ),
        ));
    }
    Ok(())
}

/// Parse a whole orders text.
pub fn parse(board: &Board, r: &Ruleset, text: &str) -> Result<Vec<Line>, Rejection> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let t = raw.split('#').next().unwrap_or("").trim();
        if t.is_empty() {
            continue;
        }
        too_long(i + 1, t)?;
        match parse_line(board, r, t) {
            Ok(cmd) => out.push(Line {
                no: i + 1,
                text: t.to_string(),
                cmd,
            }),
            Err(m) => return Err(Rejection::at(i + 1, t, m)),
        }
    }
    Ok(out)
}

/// Parse standing orders only (a case's `opponent_orders`): lines may omit
/// the STANDING word.
pub fn parse_standing_text(board: &Board, r: &Ruleset, text: &str) -> Result<Vec<Line>, Rejection> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let t = raw.split('#').next().unwrap_or("").trim();
        if t.is_empty() {
            continue;
        }
        too_long(i + 1, t)?;
        let ws = words(t);
        let ws: Vec<String> = if ws.first().is_some_and(|w| norm(w) == "STANDING") {
            ws.get(1..).unwrap_or(&[]).to_vec()
        } else {
            ws
        };
        match parse_standing(board, r, &ws) {
            Ok(c) => out.push(Line {
                no: i + 1,
                text: t.to_string(),
                cmd: Cmd::Standing(c),
            }),
            Err(m) => return Err(Rejection::at(i + 1, t, m)),
        }
    }
    Ok(out)
}

fn hex_list(h: &[Hex]) -> String {
    h.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

impl Cmd {
    /// The order in its canonical spelling (upper-case keywords, hexes as
    /// `E5`, paths with spaces), as the receipt echoes it back.
    #[must_use]
    pub fn canonical(&self) -> String {
        match self {
            Cmd::Play { card, section } => match section {
                Some(s) => format!("PLAY {card} {}", format!("{s:?}").to_ascii_uppercase()),
                None => format!("PLAY {card}"),
            },
            Cmd::Discard { card } => format!("DISCARD {card}"),
            Cmd::Exchange { cards } => format!("EXCHANGE {}", cards.join(" ")),
            Cmd::Order { hexes: h } => format!("ORDER {}", hex_list(h)),
            Cmd::OrderAll => "ORDER ALL".into(),
            Cmd::Move { path } => format!("MOVE {}", hex_list(path)),
            Cmd::Battle {
                from,
                target,
                take_ground,
                overrun,
                via,
            } => {
                let mut s = format!("BATTLE {from} {target}");
                if *take_ground {
                    s.push_str(" TAKE-GROUND");
                }
                if let Some(o) = overrun {
                    s.push_str(&format!(" OVERRUN {o}"));
                }
                if let Some(v) = via {
                    s.push_str(&format!(" VIA {v}"));
                }
                s
            }
            Cmd::Target { hexes: h } => format!("TARGET {}", hex_list(h)),
            Cmd::RemoveWire { at } => format!("REMOVE-WIRE {at}"),
            Cmd::Sabotage { at } => format!("SABOTAGE {at}"),
            Cmd::Recover { at } => format!("RECOVER {at}"),
            Cmd::Charge { unit, bridge } => format!("CHARGE {unit} {bridge}"),
            Cmd::Detonate { bridge } => format!("DETONATE {bridge}"),
            Cmd::Land { at } => format!("LAND {at}"),
            Cmd::Unload { train, to, kind } => match kind {
                Some(k) => format!("UNLOAD {train} {to} {k}"),
                None => format!("UNLOAD {train} {to}"),
            },
            Cmd::Pontoon { unit, river } => format!("PONTOON {unit} {river}"),
            Cmd::Exit { at } => format!("EXIT {at}"),
            Cmd::Exterminate { at } => format!("EXTERMINATE {at}"),
            Cmd::Keep { cards } => format!("KEEP {}", cards.join(" ")),
            Cmd::Commissar { card } => format!("COMMISSAR {card}"),
            Cmd::Standing(s) => match s {
                StandingCmd::NoRetreat(h) => format!("STANDING NO-RETREAT {}", hex_list(h)),
                StandingCmd::NoRetreatAll => "STANDING NO-RETREAT ALL".into(),
                StandingCmd::Retreat(from, to) => {
                    format!("STANDING RETREAT {from} {}", hex_list(to))
                }
                StandingCmd::AmbushNever => "STANDING AMBUSH NEVER".into(),
                StandingCmd::AmbushFirst => "STANDING AMBUSH FIRST".into(),
                StandingCmd::AmbushAt(h) => format!("STANDING AMBUSH {}", hex_list(h)),
                StandingCmd::Swap(a, b) => format!("STANDING SWAP {a} {b}"),
                StandingCmd::Clear => "STANDING CLEAR".into(),
            },
        }
    }
}
