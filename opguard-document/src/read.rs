//! Reader stage: bounded reads (at most `limit` bytes; one more byte is an
//! error, never a silent truncation) and the strict entry points that read a
//! document through them.

use std::io::Read;
use std::path::Path;

use serde::de::DeserializeOwned;
use serde::Deserialize;

use crate::de;
use crate::{Error, ErrorKind, Value};

/// The limit a document type uses unless it documents its own: 256 MiB.
pub const DEFAULT_MAX_BYTES: u64 = 256 * 1024 * 1024;

/// Reads all of `reader`, refusing it once it is longer than `limit` bytes.
///
/// At most `limit + 1` bytes are read, so an endless reader stops.
pub fn read_bounded<R: Read>(reader: R, limit: u64) -> Result<Vec<u8>, Error> {
    let mut bytes = Vec::new();
    reader
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| Error::new(ErrorKind::Io(e)))?;
    check_len(bytes.len(), limit)?;
    Ok(bytes)
}

/// Opens and reads a file with [`read_bounded`].
pub fn read_path_bounded(path: &Path, limit: u64) -> Result<Vec<u8>, Error> {
    let file = std::fs::File::open(path).map_err(|e| Error::new(ErrorKind::Io(e)))?;
    read_bounded(file, limit)
}

/// Refuses a document already in memory that is longer than `limit` bytes.
fn check_len(len: usize, limit: u64) -> Result<(), Error> {
    if len as u64 > limit {
        return Err(Error::new(ErrorKind::LimitExceeded { limit }));
    }
    Ok(())
}

/// Reads a document of at most `limit` bytes from memory: an object at the
/// top, no repeated key, every struct from an object. Strings without escapes
/// may borrow from `bytes`.
pub fn from_slice<'a, T: Deserialize<'a>>(bytes: &'a [u8], limit: u64) -> Result<T, Error> {
    read_strict(bytes, limit, true)
}

/// Reads a [`Value`] tree of at most `limit` bytes whatever its top is, for a
/// reader that checks the types itself (and says what it expected); repeated
/// keys are refused as by [`from_slice`].
pub fn tree_from_slice(bytes: &[u8], limit: u64) -> Result<Value<'_>, Error> {
    read_strict(bytes, limit, false)
}

fn read_strict<'a, T: Deserialize<'a>>(
    bytes: &'a [u8],
    limit: u64,
    object_only: bool,
) -> Result<T, Error> {
    check_len(bytes.len(), limit)?;
    let stash = de::Stash::default();
    let mut json = serde_json::Deserializer::from_slice(bytes);
    let strict = de::Strict {
        de: &mut json,
        stash: &stash,
        object_only,
    };
    let value = T::deserialize(strict).map_err(|e| de::classify(e, bytes))?;
    json.end().map_err(Error::from_json)?;
    Ok(value)
}

/// [`from_slice`] for text.
pub fn from_str<'a, T: Deserialize<'a>>(text: &'a str, limit: u64) -> Result<T, Error> {
    from_slice(text.as_bytes(), limit)
}

/// Reads at most `limit` bytes from `reader` (one more is an error) and then
/// the document, as [`from_slice`].
pub fn from_reader<R: Read, T: DeserializeOwned>(reader: R, limit: u64) -> Result<T, Error> {
    let bytes = read_bounded(reader, limit)?;
    from_slice(&bytes, limit)
}

/// Reads the file at `path` as [`from_reader`]. The error does not repeat the
/// path; the caller knows it.
pub fn from_path<T: DeserializeOwned>(path: &Path, limit: u64) -> Result<T, Error> {
    let bytes = read_path_bounded(path, limit)?;
    from_slice(&bytes, limit)
}
