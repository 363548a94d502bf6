//! Request parsing shared by every JSON entry point.

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::error::Error;

/// The largest request any entry point reads: 256 MiB
/// ([`opguard_document::DEFAULT_MAX_BYTES`]), so a document given inline can
/// be as large as the same document read from a file.
pub(crate) const MAX_REQUEST_BYTES: u64 = opguard_document::DEFAULT_MAX_BYTES;

/// Parses a request with the strict document reader: a JSON object (never
/// fields by position), no key given twice at any depth, at most
/// [`MAX_REQUEST_BYTES`]; unknown fields are refused by the request types
/// (`deny_unknown_fields`).
pub(crate) fn parse<'a, T: Deserialize<'a>>(entry: &str, request: &'a str) -> Result<T, Error> {
    opguard_document::from_str(request, MAX_REQUEST_BYTES).map_err(|e| Error::request(entry, &e))
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
