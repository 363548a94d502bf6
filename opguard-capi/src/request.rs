//! Request parsing shared by every JSON entry point.

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
