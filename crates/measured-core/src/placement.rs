//! A unit's placement as a scenario or case file writes it: the keys both
//! books read ([`Shared`], the core's) and the book's own ([`BookKeys`],
//! `Book::Placement`), in one table (`{ id = "A", side = "british", ...,
//! experience = "elite" }`). A key neither the core nor the book knows is
//! refused at the key (file:line:column), so a Charge! scenario naming a
//! Seven Years' War key (and the reverse) is refused as a typo is.
//!
//! serde's `deny_unknown_fields` does not combine with `flatten`, so the
//! table is read once: each key is sorted as it is read (the book's keys
//! to the book's [`BookKeys::read`], the rest to the derived [`Shared`]),
//! inside the key's own deserialization, where the TOML reader still
//! knows the key's position.

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use std::fmt;

pub use crate::state::Shared;

/// A book's own placement keys: their names, and how each is read.
pub trait BookKeys: Default + fmt::Debug + Send + Sync + 'static {
    /// The keys, as a file writes them.
    const KEYS: &'static [&'static str];
    /// Read the value of `key` (one of [`Self::KEYS`]) from `map`.
    ///
    /// # Errors
    /// The value's error, as the reader reports it.
    fn read<'de, A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<(), A::Error>;
}

/// A book with no placement keys of its own.
impl BookKeys for () {
    const KEYS: &'static [&'static str] = &[];
    fn read<'de, A: MapAccess<'de>>(&mut self, key: &str, _map: &mut A) -> Result<(), A::Error> {
        Err(de::Error::unknown_field(key, Self::KEYS))
    }
}

/// `impl BookKeys` for a struct of `Default` fields, each read under its
/// own name: `book_keys!(ChargeKeys { rallying });`.
#[macro_export]
macro_rules! book_keys {
    ($t:ty { $($f:ident),* $(,)? }) => {
        impl $crate::placement::BookKeys for $t {
            const KEYS: &'static [&'static str] = &[$(stringify!($f)),*];
            fn read<'de, A: ::serde::de::MapAccess<'de>>(
                &mut self,
                key: &str,
                map: &mut A,
            ) -> ::std::result::Result<(), A::Error> {
                match key {
                    $(stringify!($f) => self.$f = map.next_value()?,)*
                    _ => return Err(::serde::de::Error::unknown_field(key, Self::KEYS)),
                }
                Ok(())
            }
        }
    };
}

/// A unit's placement: the shared keys (through `Deref`) and the book's.
#[derive(Debug)]
pub struct Placement<X> {
    pub shared: Shared,
    pub book: X,
}

impl<X> std::ops::Deref for Placement<X> {
    type Target = Shared;
    fn deref(&self) -> &Shared {
        &self.shared
    }
}

impl<'de, X: BookKeys> Deserialize<'de> for Placement<X> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut book = X::default();
        let shared = Shared::deserialize(Split {
            inner: d,
            book: &mut book,
        })?;
        Ok(Self { shared, book })
    }
}

/// The placement table's deserializer, as [`Shared`]'s derive sees it:
/// the same table without the book's keys.
struct Split<'b, D, X> {
    inner: D,
    book: &'b mut X,
}

impl<'de, D: Deserializer<'de>, X: BookKeys> Deserializer<'de> for Split<'_, D, X> {
    type Error = D::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.inner.deserialize_any(SplitVisitor {
            inner: visitor,
            book: self.book,
        })
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.inner.deserialize_struct(
            name,
            fields,
            SplitVisitor {
                inner: visitor,
                book: self.book,
            },
        )
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map enum identifier ignored_any
    }
}

struct SplitVisitor<'b, V, X> {
    inner: V,
    book: &'b mut X,
}

impl<'de, V: Visitor<'de>, X: BookKeys> Visitor<'de> for SplitVisitor<'_, V, X> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.expecting(f)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.inner.visit_map(SplitMap {
            inner: map,
            book: self.book,
        })
    }
}

/// The table's entries: the book's read into the book's part as they
/// come, the others passed on.
struct SplitMap<'b, A, X> {
    inner: A,
    book: &'b mut X,
}

impl<'de, A: MapAccess<'de>, X: BookKeys> MapAccess<'de> for SplitMap<'_, A, X> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        let mut seed = Some(seed);
        loop {
            let key = self.inner.next_key_seed(KeySort::<K, X> {
                seed: &mut seed,
                book: std::marker::PhantomData,
            })?;
            match key {
                None => return Ok(None),
                Some(Sorted::Shared(v)) => return Ok(Some(v)),
                Some(Sorted::Book(k)) => self.book.read(k, &mut self.inner)?,
            }
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        self.inner.next_value_seed(seed)
    }
}

enum Sorted<T> {
    Shared(T),
    Book(&'static str),
}

/// A key, sorted while the reader still knows where it stands (so an
/// unknown key's error points at it).
struct KeySort<'s, K, X> {
    seed: &'s mut Option<K>,
    book: std::marker::PhantomData<X>,
}

impl<'de, K: DeserializeSeed<'de>, X: BookKeys> DeserializeSeed<'de> for KeySort<'_, K, X> {
    type Value = Sorted<K::Value>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de, K: DeserializeSeed<'de>, X: BookKeys> Visitor<'de> for KeySort<'_, K, X> {
    type Value = Sorted<K::Value>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a placement key")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Self::Value, E> {
        if let Some(k) = X::KEYS.iter().find(|k| **k == key) {
            return Ok(Sorted::Book(k));
        }
        if !Shared::KEYS.contains(&key) {
            return Err(E::custom(unknown(key, X::KEYS)));
        }
        let seed = self
            .seed
            .take()
            .ok_or_else(|| E::custom("a key read twice"))?;
        seed.deserialize(de::value::StrDeserializer::<E>::new(key))
            .map(Sorted::Shared)
    }
}

/// serde's own words for an unknown field, listing the shared keys and
/// the book's.
fn unknown(key: &str, book: &[&str]) -> String {
    let all: Vec<String> = Shared::KEYS
        .iter()
        .chain(book)
        .map(|k| format!("`{k}`"))
        .collect();
    format!("unknown field `{key}`, expected one of {}", all.join(", "))
}
