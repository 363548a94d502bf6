//! Request parsing shared by every JSON entry point.

use serde::de::{Deserializer, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::error::Error;

/// Parses a request; unknown and repeated fields are refused by the request
/// types (`deny_unknown_fields`, serde's duplicate-field check).
///
/// A request is a JSON object. serde would also fill a request type from an
/// array, by position (`["x"]` as `{"symbol": "x"}`), and report a longer
/// array as invalid JSON ("trailing characters"); both are refused here as
/// `capi.invalid_request` before the request type sees them.
pub(crate) fn parse<'a, T: Deserialize<'a>>(entry: &str, request: &'a str) -> Result<T, Error> {
    let first = request
        .trim_start_matches([' ', '\t', '\n', '\r'])
        .chars()
        .next();
    if first.is_some_and(|c| c != '{') {
        return match serde_json::from_str::<serde::de::IgnoredAny>(request) {
            Ok(_) => Err(Error::invalid_request(format!(
                "{entry} request: {}; expected a JSON object",
                json_kind(first)
            ))),
            Err(e) => Err(Error::request(entry, &e)),
        };
    }
    serde_json::from_str(request).map_err(|e| Error::request(entry, &e))
}

/// A field whose value must be a JSON object (`#[serde(deserialize_with)]`):
/// like a whole request, a nested one is never read from an array by
/// position.
pub(crate) fn object<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<T, D::Error> {
    T::deserialize(ObjectOnly(d))
}

/// A field holding a list of JSON objects; see [`object`].
pub(crate) fn objects<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Vec<T>, D::Error> {
    Vec::<Object<T>>::deserialize(d).map(|list| list.into_iter().map(|o| o.0).collect())
}

struct Object<T>(T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Object<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        object(d).map(Object)
    }
}

/// Hands every request for a value to the inner deserializer as a request
/// for a map, so a struct cannot be filled from a sequence.
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

/// What a valid JSON text starting with `first` is.
fn json_kind(first: Option<char>) -> &'static str {
    match first {
        Some('[') => "a JSON array",
        Some('"') => "a JSON string",
        Some('t' | 'f') => "a JSON boolean",
        Some('n') => "JSON null",
        _ => "a JSON number",
    }
}

/// One document given either inline (`<name>`) or by file (`<name>_path`).
pub(crate) enum Doc<'a> {
    Inline(&'a RawValue),
    Path(&'a str),
}

/// Exactly one of `inline` and `path`, or neither when `required` is false.
pub(crate) fn one_of<'a>(
    name: &str,
    inline: Option<&'a RawValue>,
    path: Option<&'a str>,
    required: bool,
) -> Result<Option<Doc<'a>>, Error> {
    match (inline, path) {
        (Some(_), Some(_)) => Err(Error::invalid_request(format!(
            "`{name}` and `{name}_path` are both given; expected one of them"
        ))),
        (Some(doc), None) => Ok(Some(Doc::Inline(doc))),
        (None, Some(path)) => Ok(Some(Doc::Path(path))),
        (None, None) if required => Err(Error::invalid_request(format!(
            "neither `{name}` (the document inline) nor `{name}_path` (a file) is given; \
             expected one of them"
        ))),
        (None, None) => Ok(None),
    }
}
