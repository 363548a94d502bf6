//! The path-carrying readers every document in this crate uses, on top of
//! `opguard-document`'s strict tree (bounded, repeated keys refused).

use std::borrow::Cow;
use std::io::Read;
use std::path::Path;

pub(crate) use opguard_document::{JsonPath as JPath, Value as J};

use crate::error::{Error, ErrorKind};

/// The largest document any reader here accepts unless told otherwise: 256 MiB.
pub const DEFAULT_MAX_BYTES: u64 = opguard_document::DEFAULT_MAX_BYTES;

/// A document that could not be read or parsed, as this crate's error.
fn document_error(what: &str, source: opguard_document::Error) -> Error {
    ErrorKind::Document {
        what: what.to_string(),
        source,
    }
    .into()
}

/// Parse bytes (at most `limit`) into a tree, repeated keys refused at every
/// depth.
pub(crate) fn parse<'a>(bytes: &'a [u8], limit: u64, what: &str) -> Result<J<'a>, Error> {
    opguard_document::tree_from_slice(bytes, limit).map_err(|e| document_error(what, e))
}

/// A document read from JSON bytes; the reader and file entry points of every
/// document type funnel through [`load_reader`] and [`load_path`].
pub(crate) trait Document: Sized {
    /// What the document is called in messages (`capture`, `family table`, …).
    const KIND: &'static str;
    /// Parse bytes, naming the document `what` in errors.
    fn parse_as(bytes: &[u8], what: &str) -> Result<Self, Error>;
}

/// Read at most `limit` bytes from `reader` and parse them.
pub(crate) fn load_reader<T: Document, R: Read>(reader: R, limit: u64) -> Result<T, Error> {
    let bytes =
        opguard_document::read_bounded(reader, limit).map_err(|e| document_error(T::KIND, e))?;
    T::parse_as(&bytes, T::KIND)
}

/// Read a file (at most [`DEFAULT_MAX_BYTES`]) and parse it.
pub(crate) fn load_path<T: Document>(path: &Path) -> Result<T, Error> {
    let what = format!("{} {}", T::KIND, path.display());
    let bytes = opguard_document::read_path_bounded(path, DEFAULT_MAX_BYTES)
        .map_err(|e| document_error(&what, e))?;
    T::parse_as(&bytes, &what)
}

/// The reading context: what document this is, for error messages.
pub(crate) struct Ctx<'w> {
    pub(crate) what: &'w str,
}

impl Ctx<'_> {
    /// A document error at a place in this document.
    pub(crate) fn fail(&self, e: opguard_document::Error) -> Error {
        document_error(self.what, e)
    }

    pub(crate) fn wrong_type(&self, path: &JPath, v: &J, expected: &str) -> Error {
        self.fail(opguard_document::Error::wrong_type(
            path,
            v.type_name(),
            expected,
        ))
    }

    pub(crate) fn invalid(&self, path: &JPath, problem: String, expected: &str) -> Error {
        self.fail(opguard_document::Error::invalid_value(
            path,
            format!("{problem}; expected {expected}"),
        ))
    }

    pub(crate) fn missing(&self, parent: &JPath, field: &'static str) -> Error {
        self.fail(opguard_document::Error::missing_field(parent, field))
    }

    /// An object's entries (the reader refused repeated keys already).
    pub(crate) fn object<'v>(
        &self,
        path: &JPath,
        v: &'v J,
        expected: &str,
    ) -> Result<&'v [(Cow<'v, str>, J<'v>)], Error> {
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
        known: &'static [&'static str],
        expected: &str,
    ) -> Result<Fields<'v>, Error> {
        let entries = self.object(path, v, expected)?;
        for (k, _) in entries {
            if !known.contains(&&**k) {
                return Err(self.fail(opguard_document::Error::unknown_field(
                    &path.key(k),
                    k,
                    known,
                )));
            }
        }
        Ok(Fields { entries })
    }

    pub(crate) fn array<'v>(
        &self,
        path: &JPath,
        v: &'v J,
        expected: &str,
    ) -> Result<&'v [J<'v>], Error> {
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
    ) -> Result<&'v str, Error> {
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
    ) -> Result<&'v str, Error> {
        let s = self.string(path, v, expected)?;
        if s.trim().is_empty() {
            return Err(self.invalid(path, "the string is empty".into(), expected));
        }
        Ok(s)
    }

    pub(crate) fn u64(&self, path: &JPath, v: &J, expected: &str) -> Result<u64, Error> {
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
        key: &'static str,
    ) -> Result<&'v J<'v>, Error> {
        self.get(key).ok_or_else(|| ctx.missing(parent, key))
    }
}
