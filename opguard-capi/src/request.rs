//! Request parsing shared by every JSON entry point.

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::error::Error;

/// Parses a request; unknown and repeated fields are refused by the request
/// types (`deny_unknown_fields`, serde's duplicate-field check).
pub(crate) fn parse<'a, T: Deserialize<'a>>(entry: &str, request: &'a str) -> Result<T, Error> {
    serde_json::from_str(request).map_err(|e| Error::request(entry, &e))
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
