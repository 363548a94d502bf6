//! Reader: a comparison document (`opguard compare --json`) read back, for
//! the report and for tools that keep them.

use std::path::Path;

use serde::Deserialize;

use crate::error::{Error, ErrorKind};
use crate::report::{Comparison, COMPARE_FORMAT};

/// The largest comparison document accepted, in bytes.
pub const MAX_DOCUMENT_BYTES: u64 = opguard_document::DEFAULT_MAX_BYTES;

/// Reads the comparison at `path` ([`comparison_from_json`]), refusing a
/// file over [`MAX_DOCUMENT_BYTES`] before reading past the limit.
pub fn comparison_from_path(path: &Path) -> Result<Comparison, Error> {
    let what = path.display().to_string();
    let bytes = opguard_document::read_path_bounded(path, MAX_DOCUMENT_BYTES)
        .map_err(|e| document(&what, "object", e))?;
    comparison_from_bytes(&what, &bytes)
}

/// Reads one `opguard.compare/v1` document; `what` names it in errors.
/// Unknown and repeated fields are refused.
pub fn comparison_from_json(what: &str, text: &str) -> Result<Comparison, Error> {
    comparison_from_bytes(what, text.as_bytes())
}

fn document(what: &str, expected: &'static str, source: opguard_document::Error) -> Error {
    ErrorKind::Document {
        what: what.to_owned(),
        expected,
        source,
    }
    .into()
}

fn comparison_from_bytes(what: &str, bytes: &[u8]) -> Result<Comparison, Error> {
    #[derive(Deserialize)]
    struct Format<'a> {
        #[serde(borrow, default)]
        format: Option<std::borrow::Cow<'a, str>>,
    }
    let format: Format<'_> = opguard_document::from_slice(bytes, MAX_DOCUMENT_BYTES)
        .map_err(|e| document(what, "object", e))?;
    match format.format.as_deref() {
        Some(COMPARE_FORMAT) => opguard_document::from_slice(bytes, MAX_DOCUMENT_BYTES)
            .map_err(|e| document(what, COMPARE_FORMAT, e)),
        other => Err(ErrorKind::WrongFormat {
            what: what.to_owned(),
            found: other.unwrap_or_default().to_owned(),
            expected: COMPARE_FORMAT,
        }
        .into()),
    }
}
