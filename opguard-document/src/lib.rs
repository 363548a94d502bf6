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

// Data flow: bytes read bounded → deserialized strictly into the caller's
// type or a tree; every error carries a JSON path and a code.

// Reader: bounded reads and the strict entry points (`from_slice`, ...).
mod read;
// Reader: the serde deserializer that refuses repeated keys and structs
// from arrays, recording the JSON path an error unwinds through.
mod de;
// Model: the JSON tree for readers that validate by hand.
mod value;
// JSON paths (`reviews[2].evidence[0].basis`) for errors.
mod path;
// The crate's one error type and its code list.
mod error;
// The error-code convention every opguard crate follows.
mod codes;

pub use read::{
    from_path, from_reader, from_slice, from_str, read_bounded, read_path_bounded, tree_from_slice,
    DEFAULT_MAX_BYTES,
};
pub use value::Value;

pub use error::{Error, ErrorKind, ERROR_CODES};
pub use path::JsonPath;

pub use codes::check_error_codes;

/// This crate's version (its Cargo.toml `version`), for tools that report what
/// they were built with (`opguard --version`).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The README's examples are compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
