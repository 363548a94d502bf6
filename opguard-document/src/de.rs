//! The strict reading: a serde `Deserializer` wrapper around serde_json's that
//! refuses repeated keys at every depth, reads every struct from an object
//! only, and records the JSON path an error unwinds through.
//!
//! serde_json calls our visitors with its own error type and we call the
//! caller's visitors with ours, so every crossing converts: our error is
//! parked in a [`Stash`] while serde_json carries a stand-in (which it stamps
//! with line and column), and is taken back out on the other side.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashSet;
use std::fmt;

use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, IgnoredAny, MapAccess, SeqAccess,
    VariantAccess, Visitor,
};

use crate::error::found_from_text;
use crate::path::Segment;
use crate::{Error, ErrorKind};

/// Our error while serde_json carries a stand-in for it.
#[derive(Default)]
pub(crate) struct Stash {
    parked: RefCell<Option<Error>>,
}

impl Stash {
    fn park<E: de::Error>(&self, e: Error) -> E {
        let stand_in = E::custom(e.message());
        *self.parked.borrow_mut() = Some(e);
        stand_in
    }

    /// Our error back from serde_json's; one serde_json made itself is kept
    /// as text and classified by [`classify`] once the read has failed.
    fn take<E: fmt::Display>(&self, e: E) -> Error {
        let text = e.to_string();
        let (message, line, column) = split_position(&text);
        match self.parked.borrow_mut().take() {
            Some(ours) => ours.at(line, column),
            None => Error::unclassified(message.to_string()).at(line, column),
        }
    }
}

/// serde_json ends a positioned message with " at line L column C".
fn split_position(text: &str) -> (&str, usize, usize) {
    let parsed = text.rsplit_once(" at line ").and_then(|(message, rest)| {
        let (line, column) = rest.split_once(" column ")?;
        Some((message, line.parse().ok()?, column.parse().ok()?))
    });
    parsed.unwrap_or((text, 0, 0))
}

/// Names an error serde_json raised on its own (syntax, a number that does
/// not fit, a wrong primitive type) by parsing the bytes again plainly; only
/// runs on a failed read.
pub(crate) fn classify(e: Error, bytes: &[u8]) -> Error {
    if !e.is_unclassified() {
        return e;
    }
    let message = e.message();
    if let Err(plain) = serde_json::from_slice::<IgnoredAny>(bytes) {
        if !plain.is_data() {
            return e.replace_kind(ErrorKind::Syntax(
                split_position(&plain.to_string()).0.into(),
            ));
        }
    }
    // Skipping a string does not check its UTF-8, so a document that is
    // not UTF-8 can pass the plain parse; it is still not JSON.
    if std::str::from_utf8(bytes).is_err() {
        return e.replace_kind(ErrorKind::Syntax(message));
    }
    let kind = match message
        .strip_prefix("invalid type: ")
        .and_then(|rest| rest.split_once(", expected "))
    {
        Some((found, expected)) => ErrorKind::WrongType {
            found: found_from_text(found),
            expected: expected.to_string(),
        },
        None => ErrorKind::InvalidValue(message),
    };
    e.replace_kind(kind)
}

/// The strict deserializer over one of serde_json's.
pub(crate) struct Strict<'s, D> {
    pub(crate) de: D,
    pub(crate) stash: &'s Stash,
    /// Read whatever is asked for as an object (the top of a document).
    pub(crate) object_only: bool,
}

macro_rules! forward {
    ($($method:ident ($($arg:ident: $ty:ty),*);)*) => {
        $(
            fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value, Error> {
                let stash = self.stash;
                let visitor = Wrapped { visitor, stash };
                if self.object_only {
                    $(let _ = $arg;)*
                    return self.de.deserialize_map(visitor).map_err(|e| stash.take(e));
                }
                self.de.$method($($arg,)* visitor).map_err(|e| stash.take(e))
            }
        )*
    };
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Strict<'_, D> {
    type Error = Error;

    forward! {
        deserialize_any();
        deserialize_bool();
        deserialize_i8();
        deserialize_i16();
        deserialize_i32();
        deserialize_i64();
        deserialize_i128();
        deserialize_u8();
        deserialize_u16();
        deserialize_u32();
        deserialize_u64();
        deserialize_u128();
        deserialize_f32();
        deserialize_f64();
        deserialize_char();
        deserialize_str();
        deserialize_string();
        deserialize_bytes();
        deserialize_byte_buf();
        deserialize_option();
        deserialize_unit();
        deserialize_unit_struct(name: &'static str);
        deserialize_newtype_struct(name: &'static str);
        deserialize_seq();
        deserialize_tuple(len: usize);
        deserialize_tuple_struct(name: &'static str, len: usize);
        deserialize_map();
        deserialize_enum(name: &'static str, variants: &'static [&'static str]);
        deserialize_identifier();
        deserialize_ignored_any();
    }

    /// serde_json would fill a struct from an array by position; a person's
    /// document says what it means by name.
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        let stash = self.stash;
        self.de
            .deserialize_map(Wrapped { visitor, stash })
            .map_err(|e| stash.take(e))
    }

    fn is_human_readable(&self) -> bool {
        self.de.is_human_readable()
    }
}

/// The caller's visitor, called with our error type and our accessors.
struct Wrapped<'s, V> {
    visitor: V,
    stash: &'s Stash,
}

macro_rules! visit_plain {
    ($($method:ident ($($ty:ty)?);)*) => {
        $(
            fn $method<E: de::Error>(self, $(v: $ty)?) -> Result<Self::Value, E> {
                let stash = self.stash;
                self.visitor.$method::<Error>($(visit_plain!(@arg v $ty))?).map_err(|e| stash.park(e))
            }
        )*
    };
    (@arg $v:ident $ty:ty) => { $v };
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Wrapped<'_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.visitor.expecting(f)
    }

    visit_plain! {
        visit_bool(bool);
        visit_i8(i8);
        visit_i16(i16);
        visit_i32(i32);
        visit_i64(i64);
        visit_i128(i128);
        visit_u8(u8);
        visit_u16(u16);
        visit_u32(u32);
        visit_u64(u64);
        visit_u128(u128);
        visit_f32(f32);
        visit_f64(f64);
        visit_char(char);
        visit_str(&str);
        visit_borrowed_str(&'de str);
        visit_string(String);
        visit_bytes(&[u8]);
        visit_borrowed_bytes(&'de [u8]);
        visit_byte_buf(Vec<u8>);
        visit_none();
        visit_unit();
    }

    fn visit_some<D: Deserializer<'de>>(self, de: D) -> Result<Self::Value, D::Error> {
        let stash = self.stash;
        let inner = Strict {
            de,
            stash,
            object_only: false,
        };
        self.visitor.visit_some(inner).map_err(|e| stash.park(e))
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, de: D) -> Result<Self::Value, D::Error> {
        let stash = self.stash;
        let inner = Strict {
            de,
            stash,
            object_only: false,
        };
        self.visitor
            .visit_newtype_struct(inner)
            .map_err(|e| stash.park(e))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        let stash = self.stash;
        let seq = Seq {
            seq,
            stash,
            index: 0,
        };
        self.visitor.visit_seq(seq).map_err(|e| stash.park(e))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        let stash = self.stash;
        let map = Map {
            map,
            stash,
            seen: Seen::default(),
            current: None,
        };
        self.visitor.visit_map(map).map_err(|e| stash.park(e))
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<Self::Value, A::Error> {
        let stash = self.stash;
        self.visitor
            .visit_enum(Enum { data, stash })
            .map_err(|e| stash.park(e))
    }
}

/// A seed whose value is read strictly.
struct Seed<'s, S> {
    seed: S,
    stash: &'s Stash,
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for Seed<'_, S> {
    type Value = S::Value;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<S::Value, D::Error> {
        let stash = self.stash;
        let inner = Strict {
            de,
            stash,
            object_only: false,
        };
        self.seed.deserialize(inner).map_err(|e| stash.park(e))
    }
}

struct Seq<'s, A> {
    seq: A,
    stash: &'s Stash,
    index: usize,
}

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for Seq<'_, A> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        let (index, stash) = (self.index, self.stash);
        self.index += 1;
        self.seq
            .next_element_seed(Seed { seed, stash })
            .map_err(|e| stash.take(e).within(Segment::Index(index)))
    }

    fn size_hint(&self) -> Option<usize> {
        self.seq.size_hint()
    }
}

struct Map<'s, 'de, A> {
    map: A,
    stash: &'s Stash,
    seen: Seen<'de>,
    /// The key whose value is read next, as an index into `seen`.
    current: Option<usize>,
}

/// The keys of one object so far. Most objects are small, where a scan is
/// cheaper than hashing; a large one switches to a set.
#[derive(Default)]
struct Seen<'de> {
    // Borrowed from the input unless the key had escapes: no allocation
    // per key on the common path (record lines are read this way).
    keys: Vec<Cow<'de, str>>,
    large: Option<HashSet<Cow<'de, str>>>,
}

const SCAN_UP_TO: usize = 16;

impl<'de> Seen<'de> {
    /// Adds `key`; its index, or `Err(key)` when it was seen before.
    fn insert(&mut self, key: Cow<'de, str>) -> Result<usize, Cow<'de, str>> {
        let repeated = match &mut self.large {
            Some(set) => !set.insert(key.clone()),
            None if self.keys.len() < SCAN_UP_TO => self.keys.contains(&key),
            None => {
                let mut set: HashSet<Cow<'de, str>> = self.keys.iter().cloned().collect();
                let repeated = !set.insert(key.clone());
                self.large = Some(set);
                repeated
            }
        };
        if repeated {
            return Err(key);
        }
        self.keys.push(key);
        Ok(self.keys.len() - 1)
    }
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Map<'_, 'de, A> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        let stash = self.stash;
        let mut key = None;
        let seed = KeySeed {
            seed,
            stash,
            key: &mut key,
        };
        let value = match self.map.next_key_seed(seed) {
            Ok(value) => value,
            // An unknown field is refused while its key is read; it is the place.
            Err(e) => {
                let e = stash.take(e);
                return Err(match key {
                    Some(key) => e.within(Segment::Key(key.into_owned())),
                    None => e,
                });
            }
        };
        if let Some(key) = key {
            match self.seen.insert(key) {
                Ok(at) => self.current = Some(at),
                Err(key) => {
                    let key = key.into_owned();
                    return Err(Error::new(ErrorKind::DuplicateKey { key: key.clone() })
                        .within(Segment::Key(key)));
                }
            }
        }
        Ok(value)
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, Error> {
        let stash = self.stash;
        let at = self.current.take();
        self.map.next_value_seed(Seed { seed, stash }).map_err(|e| {
            let e = stash.take(e);
            match at.and_then(|at| self.seen.keys.get(at)) {
                Some(key) => e.within(Segment::Key(key.to_string())),
                None => e,
            }
        })
    }

    fn size_hint(&self) -> Option<usize> {
        self.map.size_hint()
    }
}

/// Reads a key through the caller's seed and keeps its text.
struct KeySeed<'s, 'k, 'de, S> {
    seed: S,
    stash: &'s Stash,
    key: &'k mut Option<Cow<'de, str>>,
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for KeySeed<'_, '_, 'de, S> {
    type Value = S::Value;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<S::Value, D::Error> {
        let stash = self.stash;
        let inner = KeyDe {
            de,
            stash,
            key: self.key,
        };
        self.seed.deserialize(inner).map_err(|e| stash.park(e))
    }
}

struct KeyDe<'s, 'k, 'de, D> {
    de: D,
    stash: &'s Stash,
    key: &'k mut Option<Cow<'de, str>>,
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for KeyDe<'_, '_, 'de, D> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let stash = self.stash;
        let visitor = KeyVisitor {
            visitor,
            stash,
            key: self.key,
        };
        self.de.deserialize_any(visitor).map_err(|e| stash.take(e))
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let stash = self.stash;
        let visitor = KeyVisitor {
            visitor,
            stash,
            key: self.key,
        };
        self.de.deserialize_str(visitor).map_err(|e| stash.take(e))
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_str(visitor)
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let stash = self.stash;
        let visitor = KeyVisitor {
            visitor,
            stash,
            key: self.key,
        };
        self.de
            .deserialize_identifier(visitor)
            .map_err(|e| stash.take(e))
    }

    // A key read as anything else (a number-keyed map) is read as a string
    // first, so the repeated-key check sees its text.
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum
        ignored_any
    }
}

struct KeyVisitor<'s, 'k, 'de, V> {
    visitor: V,
    stash: &'s Stash,
    key: &'k mut Option<Cow<'de, str>>,
}

impl<'de, V: Visitor<'de>> Visitor<'de> for KeyVisitor<'_, '_, 'de, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.visitor.expecting(f)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<V::Value, E> {
        *self.key = Some(Cow::Owned(v.to_string()));
        let stash = self.stash;
        self.visitor
            .visit_str::<Error>(v)
            .map_err(|e| stash.park(e))
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<V::Value, E> {
        *self.key = Some(Cow::Borrowed(v));
        let stash = self.stash;
        self.visitor
            .visit_borrowed_str::<Error>(v)
            .map_err(|e| stash.park(e))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<V::Value, E> {
        *self.key = Some(Cow::Owned(v.clone()));
        let stash = self.stash;
        self.visitor
            .visit_string::<Error>(v)
            .map_err(|e| stash.park(e))
    }
}

struct Enum<'s, A> {
    data: A,
    stash: &'s Stash,
}

impl<'s, 'de, A: EnumAccess<'de>> EnumAccess<'de> for Enum<'s, A> {
    type Error = Error;
    type Variant = Variant<'s, A::Variant>;

    fn variant_seed<S: DeserializeSeed<'de>>(
        self,
        seed: S,
    ) -> Result<(S::Value, Self::Variant), Error> {
        let stash = self.stash;
        self.data
            .variant_seed(Seed { seed, stash })
            .map(|(value, variant)| (value, Variant { variant, stash }))
            .map_err(|e| stash.take(e))
    }
}

struct Variant<'s, A> {
    variant: A,
    stash: &'s Stash,
}

impl<'de, A: VariantAccess<'de>> VariantAccess<'de> for Variant<'_, A> {
    type Error = Error;

    fn unit_variant(self) -> Result<(), Error> {
        let stash = self.stash;
        self.variant.unit_variant().map_err(|e| stash.take(e))
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, Error> {
        let stash = self.stash;
        self.variant
            .newtype_variant_seed(Seed { seed, stash })
            .map_err(|e| stash.take(e))
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, Error> {
        let stash = self.stash;
        self.variant
            .tuple_variant(len, Wrapped { visitor, stash })
            .map_err(|e| stash.take(e))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        let stash = self.stash;
        self.variant
            .struct_variant(fields, Wrapped { visitor, stash })
            .map_err(|e| stash.take(e))
    }
}
