//! Comparison requests: baseline runs against candidate runs of any
//! format, per kernel identity and semantic frame, per step, with the
//! gate's verdict (`opguard-compare`).

use std::path::PathBuf;

use opguard_compare::{
    compare_paths, CompareOptions, ErrorKind, DEFAULT_CONFIDENCE, DEFAULT_FAIL_ABOVE, DEFAULT_FDR,
};
use serde::Deserialize;

use crate::boundary::ok;
use crate::error::Error;
use crate::request::parse;
use crate::trace::Reader;

fn compare_error(e: &opguard_compare::Error) -> Error {
    let err = Error::new(format!("compare.{}", e.code()), e.to_string());
    match e.kind() {
        ErrorKind::Document { what, source, .. } => {
            Error::document(e.to_string(), source).in_input(what.clone())
        }
        ErrorKind::TraceUnreadable { path, source, .. } => err
            .with("trace_code", source.code())
            .in_input(path.display().to_string()),
        _ => err,
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CompareRequest {
    baseline: Vec<PathBuf>,
    candidate: Vec<PathBuf>,
    #[serde(default)]
    fail_above: Option<f64>,
    #[serde(default)]
    fdr: Option<f64>,
    #[serde(default)]
    confidence: Option<f64>,
    #[serde(default)]
    step: Option<String>,
    #[serde(default)]
    python_frames: bool,
    #[serde(default)]
    reader: Reader,
}

/// `{"baseline": [trace | dir, …], "candidate": [trace | dir, …],
/// "fail_above"?, "fdr"?, "confidence"?, "step"?, "python_frames"?,
/// "reader"?}` → the `opguard.compare/v1` comparison, gate included. A
/// failed gate is a result, not an error: `gate.status` says it.
pub(crate) fn compare(request: &str) -> Result<String, Error> {
    let r: CompareRequest = parse("compare", request)?;
    let mut options = CompareOptions::new()
        .fail_above(r.fail_above.unwrap_or(DEFAULT_FAIL_ABOVE))
        .fdr(r.fdr.unwrap_or(DEFAULT_FDR))
        .confidence(r.confidence.unwrap_or(DEFAULT_CONFIDENCE))
        .python_frames(r.python_frames)
        .reader(r.reader.options());
    if let Some(step) = r.step {
        options = options.step(step);
    }
    let comparison =
        compare_paths(&r.baseline, &r.candidate, &options).map_err(|e| compare_error(&e))?;
    Ok(ok(&comparison))
}
