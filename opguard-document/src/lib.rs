//! `opguard-document`: one strict reader for the JSON documents people write
//! by hand — seam requests, alignment maps, census captures, trial lists, C
//! ABI requests.
//!
//! Every document is read the same way:
//!
//! - **bounded**: at most the document type's byte limit; one byte more is a
//!   [`ErrorKind::LimitExceeded`] error, never a silent truncation
//!   ([`DEFAULT_MAX_BYTES`] unless the type documents its own);
//! - **object-only**: the top is an object, and so is every struct inside
//!   (serde would otherwise fill a struct from an array by position);
//! - **repeated keys refused** at every depth, because readers disagree on
//!   which one wins;
//! - errors with a stable [`code`](Error::code), the [JSON path](Error::path)
//!   (`reviews[2].evidence[0].basis`), line and column, and the limit.
//!
//! Typed reading goes through serde ([`from_slice`], [`from_reader`],
//! [`from_path`]), so `#[derive(Deserialize)]` types get all of it. Readers
//! that validate by hand read a [`Value`] tree the same way and name places
//! with a [`JsonPath`].
//!
//! ```
//! use serde::Deserialize;
//!
//! #[derive(Debug, Deserialize)]
//! struct Evidence {
//!     basis: String,
//! }
//! #[derive(Debug, Deserialize)]
//! struct Review {
//!     evidence: Vec<Evidence>,
//! }
//! #[derive(Debug, Deserialize)]
//! struct Map {
//!     reviews: Vec<Review>,
//! }
//!
//! let limit = 1024;
//! let text = r#"{"reviews": [{"evidence": [{"basis": "name"}]}]}"#;
//! let map: Map = opguard_document::from_slice(text.as_bytes(), limit)?;
//! assert_eq!(map.reviews[0].evidence[0].basis, "name");
//!
//! // A repeated key is refused where it is, not read as the last one.
//! let twice = r#"{"reviews": [{"evidence": [{"basis": "name", "basis": "shape"}]}]}"#;
//! let err = opguard_document::from_slice::<Map>(twice.as_bytes(), limit).unwrap_err();
//! assert_eq!(err.code(), "duplicate_key");
//! assert_eq!(err.path(), "reviews[0].evidence[0].basis");
//!
//! // A struct is never filled from an array by position.
//! let by_position = r#"{"reviews": [{"evidence": [["name"]]}]}"#;
//! let err = opguard_document::from_slice::<Map>(by_position.as_bytes(), limit).unwrap_err();
//! assert_eq!((err.code(), err.path().as_str()), ("wrong_type", "reviews[0].evidence[0]"));
//!
//! // One byte over the limit is an error.
//! let err = opguard_document::from_slice::<Map>(text.as_bytes(), text.len() as u64 - 1)
//!     .unwrap_err();
//! assert_eq!((err.code(), err.limit()), ("limit_exceeded", Some(text.len() as u64 - 1)));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]

mod codes;
mod de;
mod error;
mod path;
mod read;
mod value;

use std::io::Read;
use std::path::Path;

use serde::de::DeserializeOwned;
use serde::Deserialize;

pub use codes::check_error_codes;
pub use error::{Error, ErrorKind, ERROR_CODES};
pub use path::JsonPath;
use read::check_len;
pub use read::{read_bounded, read_path_bounded, DEFAULT_MAX_BYTES};
pub use value::Value;

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
