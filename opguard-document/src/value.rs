//! A small JSON tree for readers that validate by hand; read through the
//! strict reader, so no object in it has a repeated key.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

/// A parsed JSON value. Strings without escapes borrow from the input;
/// objects keep their keys in document order.
#[derive(Debug, Clone, PartialEq)]
pub enum Value<'a> {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// An integer in the `i64` range.
    Int(i64),
    /// An integer above `i64::MAX` that fits `u64`.
    BigUint(u64),
    /// Any other number (serde_json reads integers beyond 64 bits as floats).
    Float(f64),
    /// A string.
    Str(Cow<'a, str>),
    /// An array.
    Array(Vec<Value<'a>>),
    /// An object's entries in document order.
    Object(Vec<(Cow<'a, str>, Value<'a>)>),
}

const TWO_TO_THE_64: f64 = 18_446_744_073_709_551_616.0;
const TWO_TO_THE_63: f64 = 9_223_372_036_854_775_808.0;

impl Value<'_> {
    /// What the value is, for "found …" in an error message.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Int(_) | Value::BigUint(_) => "an integer",
            // Saying "non-integer" about 18446744073709551616 would mislead.
            Value::Float(v)
                if v.fract() == 0.0 && (*v >= TWO_TO_THE_64 || *v <= -TWO_TO_THE_63) =>
            {
                "a number beyond the 64-bit integer range"
            }
            Value::Float(v) if v.fract() == 0.0 => "a number written with a fraction or exponent",
            Value::Float(_) => "a non-integer number",
            Value::Str(_) => "a string",
            Value::Array(_) => "an array",
            Value::Object(_) => "an object",
        }
    }

    /// The value of `key` when this is an object that has it.
    pub fn get(&self, key: &str) -> Option<&Value<'_>> {
        match self {
            Value::Object(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
}

/// Compact JSON, for quoting a value in a message.
impl fmt::Display for Value<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let quoted = |f: &mut fmt::Formatter<'_>, s: &str| match serde_json::to_string(s) {
            Ok(q) => f.write_str(&q),
            Err(_) => Err(fmt::Error),
        };
        match self {
            Value::Null => f.write_str("null"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(n) => write!(f, "{n}"),
            Value::BigUint(n) => write!(f, "{n}"),
            // As JSON writes it: `1.0` stays `1.0` (Display would say `1`,
            // and "protocol_version 1 is not 1" says nothing).
            Value::Float(n) => write!(f, "{n:?}"),
            Value::Str(s) => quoted(f, s),
            Value::Array(items) => {
                f.write_str("[")?;
                for (n, v) in items.iter().enumerate() {
                    if n > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{v}")?;
                }
                f.write_str("]")
            }
            Value::Object(entries) => {
                f.write_str("{")?;
                for (n, (k, v)) in entries.iter().enumerate() {
                    if n > 0 {
                        f.write_str(",")?;
                    }
                    quoted(f, k)?;
                    write!(f, ":{v}")?;
                }
                f.write_str("}")
            }
        }
    }
}

struct ValueVisitor;

/// A key borrowed from the input when it has no escapes.
struct Key<'a>(Cow<'a, str>);

struct KeyVisitor;

impl<'de> Visitor<'de> for KeyVisitor {
    type Value = Key<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Key<'de>, E> {
        Ok(Key(Cow::Borrowed(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Key<'de>, E> {
        Ok(Key(Cow::Owned(v.to_string())))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Key<'de>, E> {
        Ok(Key(Cow::Owned(v)))
    }
}

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Key<'de>, D::Error> {
        d.deserialize_str(KeyVisitor)
    }
}

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_unit<E: de::Error>(self) -> Result<Value<'de>, E> {
        Ok(Value::Null)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value<'de>, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value<'de>, E> {
        Ok(Value::Int(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value<'de>, E> {
        Ok(match i64::try_from(v) {
            Ok(v) => Value::Int(v),
            Err(_) => Value::BigUint(v),
        })
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value<'de>, E> {
        Ok(Value::Float(v))
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Value<'de>, E> {
        Ok(Value::Str(Cow::Borrowed(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value<'de>, E> {
        Ok(Value::Str(Cow::Owned(v.to_string())))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Value<'de>, E> {
        Ok(Value::Str(Cow::Owned(v)))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value<'de>, A::Error> {
        // The hint comes from the input; cap what it can make us reserve.
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(v) = seq.next_element::<Value<'de>>()? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value<'de>, A::Error> {
        let mut out = Vec::new();
        while let Some(Key(k)) = map.next_key::<Key<'de>>()? {
            let v = map.next_value::<Value<'de>>()?;
            out.push((k, v));
        }
        Ok(Value::Object(out))
    }
}

impl<'de> Deserialize<'de> for Value<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Value<'de>, D::Error> {
        d.deserialize_any(ValueVisitor)
    }
}
