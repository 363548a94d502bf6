//! A small JSON tree that keeps every key (so duplicates can be refused with their
//! JSON path), plus the path-carrying readers every document in this crate uses.

use std::borrow::Cow;
use std::fmt;
use std::io::Read;
use std::path::Path;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

use crate::CensusError;

/// The largest document any reader here accepts unless told otherwise: 256 MiB.
pub const DEFAULT_MAX_BYTES: u64 = 256 * 1024 * 1024;

/// A parsed JSON value. Objects keep their keys in order, duplicates included.
#[derive(Debug)]
pub(crate) enum J<'a> {
    Null,
    Bool(bool),
    Int(i64),
    BigUint(u64),
    Float(f64),
    Str(Cow<'a, str>),
    Arr(Vec<J<'a>>),
    Obj(Vec<(Cow<'a, str>, J<'a>)>),
}

impl J<'_> {
    pub(crate) fn type_name(&self) -> &'static str {
        match self {
            J::Null => "null",
            J::Bool(_) => "a boolean",
            J::Int(_) | J::BigUint(_) => "an integer",
            // serde_json reads integers beyond u64/i64 as floats; saying
            // "non-integer" about 18446744073709551616 would mislead.
            J::Float(v) if v.fract() == 0.0 && (*v >= TWO_TO_THE_64 || *v <= -TWO_TO_THE_63) => {
                "a number beyond the 64-bit integer range"
            }
            J::Float(v) if v.fract() == 0.0 => "a number written with a fraction or exponent",
            J::Float(_) => "a non-integer number",
            J::Str(_) => "a string",
            J::Arr(_) => "an array",
            J::Obj(_) => "an object",
        }
    }
}

const TWO_TO_THE_64: f64 = 18_446_744_073_709_551_616.0;
const TWO_TO_THE_63: f64 = 9_223_372_036_854_775_808.0;

struct JVisitor;

/// A string borrowed from the input when it has no escapes.
struct Text<'a>(Cow<'a, str>);

struct TextVisitor;

impl<'de> Visitor<'de> for TextVisitor {
    type Value = Text<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Text<'de>, E> {
        Ok(Text(Cow::Borrowed(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Text<'de>, E> {
        Ok(Text(Cow::Owned(v.to_string())))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Text<'de>, E> {
        Ok(Text(Cow::Owned(v)))
    }
}

impl<'de> Deserialize<'de> for Text<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Text<'de>, D::Error> {
        d.deserialize_str(TextVisitor)
    }
}

impl<'de> Visitor<'de> for JVisitor {
    type Value = J<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_unit<E: de::Error>(self) -> Result<J<'de>, E> {
        Ok(J::Null)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<J<'de>, E> {
        Ok(J::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<J<'de>, E> {
        Ok(J::Int(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<J<'de>, E> {
        Ok(match i64::try_from(v) {
            Ok(v) => J::Int(v),
            Err(_) => J::BigUint(v),
        })
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<J<'de>, E> {
        Ok(J::Float(v))
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<J<'de>, E> {
        Ok(J::Str(Cow::Borrowed(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<J<'de>, E> {
        Ok(J::Str(Cow::Owned(v.to_string())))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<J<'de>, E> {
        Ok(J::Str(Cow::Owned(v)))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<J<'de>, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(v) = seq.next_element::<J<'de>>()? {
            out.push(v);
        }
        Ok(J::Arr(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<J<'de>, A::Error> {
        let mut out = Vec::new();
        while let Some(Text(k)) = map.next_key::<Text<'de>>()? {
            let v = map.next_value::<J<'de>>()?;
            out.push((k, v));
        }
        Ok(J::Obj(out))
    }
}

impl<'de> Deserialize<'de> for J<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<J<'de>, D::Error> {
        d.deserialize_any(JVisitor)
    }
}

/// Parse bytes into a tree, mapping serde_json's error to [`CensusError::Syntax`].
pub(crate) fn parse<'a>(bytes: &'a [u8], what: &str) -> Result<J<'a>, CensusError> {
    serde_json::from_slice::<J<'a>>(bytes).map_err(|e| CensusError::Syntax {
        what: what.to_string(),
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })
}

/// Read at most `limit` bytes; one more is an error, not a truncation.
pub(crate) fn read_limited<R: Read>(
    reader: R,
    limit: u64,
    what: &str,
    path: Option<&Path>,
) -> Result<Vec<u8>, CensusError> {
    let mut buf = Vec::new();
    let io_err = |source| CensusError::Io {
        path: path
            .map(Path::to_path_buf)
            .unwrap_or_else(|| "<reader>".into()),
        source,
    };
    reader
        .take(limit.saturating_add(1))
        .read_to_end(&mut buf)
        .map_err(io_err)?;
    if buf.len() as u64 > limit {
        return Err(CensusError::TooLarge {
            what: what.to_string(),
            limit,
        });
    }
    Ok(buf)
}

/// A document read from JSON bytes; the reader and file entry points of every
/// document type funnel through [`load_reader`] and [`load_path`].
pub(crate) trait Document: Sized {
    /// What the document is called in messages (`capture`, `family table`, …).
    const KIND: &'static str;
    /// Parse bytes, naming the document `what` in errors.
    fn parse_as(bytes: &[u8], what: &str) -> Result<Self, CensusError>;
}

/// Read at most `limit` bytes from `reader` and parse them.
pub(crate) fn load_reader<T: Document, R: Read>(reader: R, limit: u64) -> Result<T, CensusError> {
    let bytes = read_limited(reader, limit, T::KIND, None)?;
    T::parse_as(&bytes, T::KIND)
}

/// Read a file (at most [`DEFAULT_MAX_BYTES`]) and parse it.
pub(crate) fn load_path<T: Document>(path: &Path) -> Result<T, CensusError> {
    let what = format!("{} {}", T::KIND, path.display());
    let file = std::fs::File::open(path).map_err(|source| CensusError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let bytes = read_limited(file, DEFAULT_MAX_BYTES, &what, Some(path))?;
    T::parse_as(&bytes, &what)
}

/// A JSON path, built on the stack as the reader descends and rendered only when an
/// error needs it: `ops[12].shapes[1][0]`.
#[derive(Clone, Copy)]
pub(crate) enum JPath<'a> {
    Root,
    Key(&'a JPath<'a>, &'a str),
    Index(&'a JPath<'a>, usize),
}

impl JPath<'_> {
    pub(crate) fn key<'b>(&'b self, k: &'b str) -> JPath<'b> {
        JPath::Key(self, k)
    }
    pub(crate) fn index(&self, i: usize) -> JPath<'_> {
        JPath::Index(self, i)
    }
}

fn plain_key(k: &str) -> bool {
    !k.is_empty()
        && k.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

impl fmt::Display for JPath<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JPath::Root => f.write_str("$"),
            JPath::Key(JPath::Root, k) if plain_key(k) => f.write_str(k),
            JPath::Key(parent, k) if plain_key(k) => write!(f, "{parent}.{k}"),
            JPath::Key(parent, k) => write!(f, "{parent}[{k:?}]"),
            JPath::Index(parent, i) => write!(f, "{parent}[{i}]"),
        }
    }
}

/// The reading context: what document this is, for error messages.
pub(crate) struct Ctx<'w> {
    pub(crate) what: &'w str,
}

impl Ctx<'_> {
    pub(crate) fn wrong_type(&self, path: &JPath, v: &J, expected: &str) -> CensusError {
        CensusError::WrongType {
            what: self.what.to_string(),
            path: path.to_string(),
            found: v.type_name(),
            expected: expected.to_string(),
        }
    }

    pub(crate) fn invalid(&self, path: &JPath, problem: String, expected: &str) -> CensusError {
        CensusError::InvalidValue {
            what: self.what.to_string(),
            path: path.to_string(),
            problem,
            expected: expected.to_string(),
        }
    }

    pub(crate) fn missing(&self, path: &JPath, expected: &str) -> CensusError {
        CensusError::MissingField {
            what: self.what.to_string(),
            path: path.to_string(),
            expected: expected.to_string(),
        }
    }

    /// An object's entries, refusing duplicate keys.
    pub(crate) fn object<'v>(
        &self,
        path: &JPath,
        v: &'v J,
        expected: &str,
    ) -> Result<&'v [(Cow<'v, str>, J<'v>)], CensusError> {
        match v {
            J::Obj(entries) => {
                check_duplicates(entries).map_or(Ok(()), |k| {
                    Err(CensusError::DuplicateKey {
                        what: self.what.to_string(),
                        path: path.key(k).to_string(),
                    })
                })?;
                Ok(entries)
            }
            other => Err(self.wrong_type(path, other, expected)),
        }
    }

    /// An object whose keys must all be in `known`; returns a lookup over it.
    pub(crate) fn fields<'v>(
        &self,
        path: &JPath,
        v: &'v J,
        known: &[&str],
        expected: &str,
    ) -> Result<Fields<'v>, CensusError> {
        let entries = self.object(path, v, expected)?;
        for (k, _) in entries {
            if !known.contains(&&**k) {
                return Err(CensusError::UnknownField {
                    what: self.what.to_string(),
                    path: path.key(k).to_string(),
                    known: known.join(", "),
                });
            }
        }
        Ok(Fields { entries })
    }

    pub(crate) fn array<'v>(
        &self,
        path: &JPath,
        v: &'v J,
        expected: &str,
    ) -> Result<&'v [J<'v>], CensusError> {
        match v {
            J::Arr(items) => Ok(items),
            other => Err(self.wrong_type(path, other, expected)),
        }
    }

    pub(crate) fn string<'v>(
        &self,
        path: &JPath,
        v: &'v J,
        expected: &str,
    ) -> Result<&'v str, CensusError> {
        match v {
            J::Str(s) => Ok(s),
            other => Err(self.wrong_type(path, other, expected)),
        }
    }

    pub(crate) fn non_empty_string<'v>(
        &self,
        path: &JPath,
        v: &'v J,
        expected: &str,
    ) -> Result<&'v str, CensusError> {
        let s = self.string(path, v, expected)?;
        if s.trim().is_empty() {
            return Err(self.invalid(path, "the string is empty".into(), expected));
        }
        Ok(s)
    }

    pub(crate) fn u64(&self, path: &JPath, v: &J, expected: &str) -> Result<u64, CensusError> {
        match v {
            J::Int(i) if *i >= 0 => Ok(*i as u64),
            J::Int(i) => Err(self.invalid(path, format!("{i} is negative"), expected)),
            J::BigUint(u) => Ok(*u),
            other => Err(self.wrong_type(path, other, expected)),
        }
    }
}

/// First key that appears twice, if any.
fn check_duplicates<'e>(entries: &'e [(Cow<'_, str>, J<'_>)]) -> Option<&'e str> {
    if entries.len() <= 16 {
        for (i, (k, _)) in entries.iter().enumerate() {
            if entries[..i].iter().any(|(p, _)| p == k) {
                return Some(k);
            }
        }
        return None;
    }
    let mut seen = std::collections::HashSet::with_capacity(entries.len());
    entries
        .iter()
        .find(|(k, _)| !seen.insert(&**k))
        .map(|(k, _)| &**k)
}

/// Lookup over an object's fields.
pub(crate) struct Fields<'v> {
    entries: &'v [(Cow<'v, str>, J<'v>)],
}

impl<'v> Fields<'v> {
    pub(crate) fn get(&self, key: &str) -> Option<&'v J<'v>> {
        self.entries
            .iter()
            .find(|(k, _)| &**k == key)
            .map(|(_, v)| v)
    }

    /// A required field of the object at `parent`.
    pub(crate) fn require(
        &self,
        ctx: &Ctx,
        parent: &JPath,
        key: &str,
        expected: &str,
    ) -> Result<&'v J<'v>, CensusError> {
        self.get(key)
            .ok_or_else(|| ctx.missing(&parent.key(key), expected))
    }
}
