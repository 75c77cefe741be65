//! What every measured ruleset has, whichever book's file it is read
//! from: troop types and terrain types, checked and in sixteenths (a
//! file's lengths are inches, whole sixteenths), the generic [`Ruleset`]
//! over a book, and the reading helpers ([`Reader`], [`toml_error`],
//! [`at`]). Each book's file and tables are its own crate's (Charge!'s
//! `charge::tables` and `charge::file`).

use super::geometry::parse_len;
use crate::book::Book;
use adjutant_rules::DataError;
use serde::Deserialize;
use std::collections::BTreeMap;

/// A length in inches as the file writes it (a number).
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(transparent)]
pub struct Inches(pub f64);

impl Inches {
    /// Sixteenths, or None if not a whole number of sixteenths. The file's
    /// decimal is parsed from its own text form, so "7.5" is 120 exactly.
    #[must_use]
    pub fn sixteenths(self) -> Option<i64> {
        // A TOML float such as 7.5 or 0.75 prints back as written; the
        // parse below is integer arithmetic on that text.
        parse_len(&format!("{}", self.0))
    }
}

/// One officer of an establishment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OfficerSpec {
    pub rank: String,
    pub points: u32,
    pub mounted: bool,
}

/// A troop type, checked.
#[derive(Debug, Clone)]
pub struct Troop {
    pub id: String,
    pub name: String,
    pub class: String,
    pub letter: char,
    pub rank_and_file: u32,
    pub formations: Vec<String>,
    pub ranks: u32,
    pub column_files: u32,
    pub open_spacing: i64,
    pub fig_w: i64,
    pub fig_d: i64,
    pub moves: BTreeMap<String, i64>,
    pub musket: String,
    pub fire_per: u32,
    pub grenadiers: bool,
    pub light: bool,
    pub heavy: bool,
    pub guns: u32,
    pub howitzer: bool,
    pub gun_frontage: i64,
    pub officers: Vec<OfficerSpec>,
    pub losses: Vec<[u32; 3]>,
}

impl Troop {
    #[must_use]
    pub fn is(&self, class: &str) -> bool {
        self.class == class
    }
}

#[derive(Debug, Clone)]
pub struct Terrain {
    pub id: String,
    pub name: String,
    pub cover: bool,
    pub blocks_sight: bool,
    pub capacity: Option<u32>,
    pub crossing: BTreeMap<String, u32>,
    pub uphill: Option<u32>,
    pub line: bool,
    pub moves: BTreeMap<String, u32>,
}

impl Terrain {
    /// Percent of the move a troop may use here (0: not permitted): the
    /// troop's id, else its class, else "*".
    #[must_use]
    pub fn move_percent(&self, t: &Troop) -> u32 {
        self.moves
            .get(&t.id)
            .or_else(|| self.moves.get(&t.class))
            .or_else(|| self.moves.get("*"))
            .copied()
            .unwrap_or(100)
    }
    /// Moves to cross (fords), by troop id or class.
    #[must_use]
    pub fn crossing_moves(&self, t: &Troop) -> Option<u32> {
        self.crossing
            .get(&t.id)
            .or_else(|| self.crossing.get(&t.class))
            .copied()
    }
}

/// A measured ruleset, checked and in sixteenths.
#[derive(Debug, Clone, Default)]
pub struct Ruleset<B: Book> {
    pub id: String,
    pub name: String,
    pub troops: BTreeMap<String, Troop>,
    pub terrain: BTreeMap<String, Terrain>,
    /// The book's own tables.
    pub book: B::Tables,
}

impl<B: Book> std::ops::Deref for Ruleset<B> {
    type Target = B::Tables;
    fn deref(&self) -> &B::Tables {
        &self.book
    }
}

impl<B: Book> Ruleset<B> {
    /// The procedures of this ruleset's book.
    #[must_use]
    pub fn book(&self) -> &'static dyn crate::Procedures<B> {
        B::procedures()
    }

    #[must_use]
    pub fn troop(&self, id: &str) -> Option<&Troop> {
        self.troops.get(id)
    }
}

/// Reading a measured ruleset file (either book's): errors placed at a
/// key's first occurrence.
pub struct Reader<'a> {
    pub text: &'a str,
    pub file: &'a str,
}

impl Reader<'_> {
    pub fn bad(&self, key: &str, msg: String) -> DataError {
        at(self.text, self.file, self.text.find(key).unwrap_or(0), msg)
    }

    pub fn len(&self, key: &str, v: Inches) -> Result<i64, DataError> {
        v.sixteenths().ok_or_else(|| {
            self.bad(
                key,
                format!(
                    "{key}: {} is not a whole number of sixteenths of an inch",
                    v.0
                ),
            )
        })
    }
}

/// A positioned error from a TOML parse error, and at a byte offset of
/// a file: the interface crate's, shared by every family's readers.
pub use adjutant_rules::{error_at as at, toml_error};
