//! Scaling requests (seed 003): correlate semantic frames' cost with a
//! numeric input across independently captured trials.

use std::borrow::Cow;
use std::path::Path;

use opguard_model::ModelOptions;
use opguard_scaling::{ErrorKind, Metric, TrialsDocument};
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::boundary::ok;
use crate::error::Error;
use crate::request::{one_of, parse, Doc};
use crate::trace::Reader;

fn scaling_error(e: &opguard_scaling::Error) -> Error {
    let err = Error::new(format!("scaling.{}", e.code()), e.to_string());
    match e.kind() {
        ErrorKind::Document { what, source } => {
            Error::document(e.to_string(), source).in_input(what.clone())
        }
        ErrorKind::TraceUnreadable { source, .. } => err.with("trace_code", source.code()),
        _ => err,
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CorrelateRequest<'a> {
    #[serde(borrow, default)]
    trials: Option<&'a RawValue>,
    #[serde(borrow, default)]
    trials_path: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    base: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    metric: Option<Cow<'a, str>>,
    #[serde(default)]
    reader: Reader,
}

/// `{"trials": {document} | "trials_path": file, "base"?: dir, "metric"?,
/// "reader"?}` → the scaling report. An inline document's relative trace
/// paths resolve against `base` (default: the working directory); a file's
/// against its folder.
pub(crate) fn correlate(request: &str) -> Result<String, Error> {
    let r: CorrelateRequest<'_> = parse("scaling_correlate", request)?;
    let doc = one_of("trials", r.trials, r.trials_path.as_deref(), true)?;
    let metric = match &r.metric {
        Some(name) => Some(
            name.parse::<Metric>()
                .map_err(|e| scaling_error(&e.into()))?,
        ),
        None => None,
    };
    let doc = match doc {
        Some(Doc::Inline(raw)) => {
            let base = r.base.as_deref().unwrap_or(".");
            TrialsDocument::from_json(raw.get().as_bytes(), Path::new(base), "trials")
        }
        Some(Doc::Path(path)) => {
            if r.base.is_some() {
                return Err(Error::invalid_request(
                    "`base` applies to an inline `trials` document; a `trials_path` document's \
                     traces resolve against its own folder",
                ));
            }
            TrialsDocument::read(path)
        }
        None => return Err(Error::invalid_request("no trials document given")),
    }
    .map_err(|e| scaling_error(&e))?;
    let options = r.reader.read_options(ModelOptions::new());
    let report =
        opguard_scaling::run_trials(&doc, metric, &options).map_err(|e| scaling_error(&e))?;
    Ok(ok(&report))
}
