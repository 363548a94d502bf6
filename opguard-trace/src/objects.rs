//! serde field helpers for the documents opguard crates read: a struct is
//! read only from a JSON object.
//!
//! serde's derived `Deserialize` also fills a struct from a JSON array, by
//! field position, so `["pkg.mod:f", 1, null]` would read as
//! `{"spec": "pkg.mod:f", "declared_depth": 1, "marker": null}`. A document a
//! person writes (a seam request, an alignment map, a C ABI request) must
//! say what it means by name; these helpers refuse the array with serde's
//! own "invalid type: sequence, expected struct ..." error, position
//! included.
//!
//! ```
//! use serde::Deserialize;
//!
//! #[derive(Deserialize)]
//! struct Limits {
//!     max_depth: Option<u32>,
//! }
//!
//! #[derive(Deserialize)]
//! struct Request {
//!     #[serde(deserialize_with = "opguard_trace::objects::object")]
//!     limits: Limits,
//!     #[serde(default, deserialize_with = "opguard_trace::objects::objects")]
//!     more: Vec<Limits>,
//! }
//!
//! let by_name: Request = serde_json::from_str(r#"{"limits": {"max_depth": 4}}"#)?;
//! assert_eq!(by_name.limits.max_depth, Some(4));
//! let Err(by_position) = serde_json::from_str::<Request>(r#"{"limits": [4]}"#) else {
//!     panic!("an array was read as Limits");
//! };
//! assert!(by_position.to_string().contains("invalid type: sequence"));
//! let in_a_list = serde_json::from_str::<Request>(r#"{"limits": {}, "more": [[4]]}"#);
//! assert!(in_a_list.is_err());
//! # Ok::<(), serde_json::Error>(())
//! ```

use serde::de::{Deserializer, Visitor};
use serde::Deserialize;

/// Reads a `T` that must be written as a JSON object (for
/// `#[serde(deserialize_with)]`, or called on a whole document).
pub fn object<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<T, D::Error> {
    T::deserialize(ObjectOnly(d))
}

/// Parses a whole JSON text that must be an object (no trailing data), as
/// `serde_json::from_str` does otherwise; borrowed strings stay borrowed.
pub fn from_str<'a, T: Deserialize<'a>>(text: &'a str) -> serde_json::Result<T> {
    let mut de = serde_json::Deserializer::from_str(text);
    let value = object(&mut de)?;
    de.end()?;
    Ok(value)
}

/// [`from_str`] for bytes (validated as UTF-8 where strings are read).
pub fn from_slice<'a, T: Deserialize<'a>>(bytes: &'a [u8]) -> serde_json::Result<T> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value = object(&mut de)?;
    de.end()?;
    Ok(value)
}

/// Reads a list whose every entry must be a JSON object; see [`object`].
pub fn objects<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Vec<T>, D::Error> {
    Vec::<Object<T>>::deserialize(d).map(|list| list.into_iter().map(|o| o.0).collect())
}

/// Reads an optional `T` (`null` or absent is `None`) that, when present,
/// must be a JSON object; see [`object`].
pub fn optional_object<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<T>, D::Error> {
    Option::<Object<T>>::deserialize(d).map(|o| o.map(|o| o.0))
}

struct Object<T>(T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Object<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        object(d).map(Object)
    }
}

/// Asks the inner deserializer for a map whatever the struct asks for.
struct ObjectOnly<D>(D);

impl<'de, D: Deserializer<'de>> Deserializer<'de> for ObjectOnly<D> {
    type Error = D::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.0.deserialize_map(visitor)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum
        identifier ignored_any
    }
}
