//! The path-carrying readers every document in this crate uses, on top of
//! `opguard-document`'s strict tree (bounded, repeated keys refused).

use std::borrow::Cow;
use std::io::Read;
use std::path::Path;

pub(crate) use opguard_document::{JsonPath as JPath, Value as J};

use crate::CensusError;

/// The largest document any reader here accepts unless told otherwise: 256 MiB.
pub const DEFAULT_MAX_BYTES: u64 = opguard_document::DEFAULT_MAX_BYTES;

/// A document that could not be read or parsed, as this crate's error.
fn document_error(e: opguard_document::Error, what: &str, path: Option<&Path>) -> CensusError {
    let (json_path, line, column) = (e.path(), e.line().unwrap_or(0), e.column().unwrap_or(0));
    let message = e.message();
    match e.into_kind() {
        opguard_document::ErrorKind::Io(source) => CensusError::Io {
            path: path
                .map(Path::to_path_buf)
                .unwrap_or_else(|| "<reader>".into()),
            source,
        },
        opguard_document::ErrorKind::LimitExceeded { limit } => CensusError::TooLarge {
            what: what.to_string(),
            limit,
        },
        opguard_document::ErrorKind::DuplicateKey { .. } => CensusError::DuplicateKey {
            what: what.to_string(),
            path: json_path,
        },
        _ => CensusError::Syntax {
            what: what.to_string(),
            line,
            column,
            message,
        },
    }
}

/// Parse bytes into a tree (repeated keys refused at every depth); the
/// caller has bounded the bytes.
pub(crate) fn parse<'a>(bytes: &'a [u8], what: &str) -> Result<J<'a>, CensusError> {
    opguard_document::tree_from_slice(bytes, u64::MAX).map_err(|e| document_error(e, what, None))
}

/// Read at most `limit` bytes; one more is an error, not a truncation.
pub(crate) fn read_limited<R: Read>(
    reader: R,
    limit: u64,
    what: &str,
    path: Option<&Path>,
) -> Result<Vec<u8>, CensusError> {
    opguard_document::read_bounded(reader, limit).map_err(|e| document_error(e, what, path))
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

    /// An object's entries (the reader refused repeated keys already).
    pub(crate) fn object<'v>(
        &self,
        path: &JPath,
        v: &'v J,
        expected: &str,
    ) -> Result<&'v [(Cow<'v, str>, J<'v>)], CensusError> {
        match v {
            J::Object(entries) => Ok(entries),
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
            J::Array(items) => Ok(items),
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
