//! Alignment requests (seed 000): build an export view, apply an alignment map.

use std::path::Path;

use opguard_align::{ErrorKind, ExportRequest};
use serde::de::IgnoredAny;

use crate::boundary::ok;
use crate::error::Error;
use crate::request::parse;

/// Maps an align error: reader errors keep their `trace.*` code, a document
/// the JSON reader refused its `document.*` code, a request that does not
/// fit is `capi.invalid_request`, the rest are `align.*`.
fn align_error(e: &opguard_align::Error) -> Error {
    let err = match e.kind() {
        ErrorKind::Trace(t) => Error::trace(t),
        ErrorKind::Document { source, .. } => Error::document(e.to_string(), source),
        ErrorKind::InvalidRequest(_) => Error::invalid_request(e.to_string()),
        _ => Error::new(format!("align.{}", e.code()), e.to_string()),
    };
    match e.path() {
        Some(p) => err.with("path", p.display().to_string()),
        None => err,
    }
}

/// `{"records": file, "output": file}` or
/// `{"from_profile": [{"path", "run"?, "rank"?}, …], "output": file}` →
/// the export summary. Relative paths are relative to the process's
/// working directory; the output must not exist.
pub(crate) fn export_build(request: &str) -> Result<String, Error> {
    let r: ExportRequest = parse("export_build", request)?;
    let summary = opguard_align::export(&r).map_err(|e| align_error(&e))?;
    Ok(ok(&summary))
}

/// The seed's apply request, `{"protocol_version": 1, "artifact": file,
/// "alignment_map": file, "output": file}` → the apply response
/// (`verdict: not_evaluated`). Nothing is written unless every rule holds.
pub(crate) fn map_apply(request: &str) -> Result<String, Error> {
    // Syntax first, so a non-JSON request reads the same as everywhere else.
    parse::<IgnoredAny>("alignment_map_apply", request)?;
    let r = opguard_align::parse_request(request, Path::new("")).map_err(|e| align_error(&e))?;
    let response = opguard_align::apply_request(&r).map_err(|e| align_error(&e))?;
    Ok(ok(&response))
}
