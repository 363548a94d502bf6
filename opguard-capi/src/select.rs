//! Selection requests (seed 001): profile Top-N with entity kinds, and the
//! seam verdict.

use std::borrow::Cow;
use std::path::Path;

use opguard_model::{ArtifactSpec, Provider};
use opguard_select::Request;
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::boundary::ok;
use crate::error::Error;
use crate::request::{one_of, parse, Doc};

fn select_error(e: &opguard_select::Error) -> Error {
    if let opguard_select::ErrorKind::Document { what, source } = e.kind() {
        return Error::document(e.to_string(), source).in_input(what.clone());
    }
    let err = Error::new(format!("select.{}", e.code()), e.to_string());
    match e.trace_code() {
        Some(code) => err.with("trace_code", code),
        None => err,
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ProfileRequest<'a> {
    #[serde(borrow)]
    path: Cow<'a, str>,
    top: usize,
    #[serde(borrow, default)]
    provider: Option<Cow<'a, str>>,
}

/// `{"path": trace, "top": n, "provider"?: name}` → the Top-N profile (rows
/// with their entity kind and evidence; dispatcher aggregates expanded; a
/// capture without device activity gets its host profile).
pub(crate) fn profile_top_n(request: &str) -> Result<String, Error> {
    let r: ProfileRequest<'_> = parse("profile_top_n", request)?;
    let mut spec = ArtifactSpec::new();
    if let Some(name) = r.provider.as_deref() {
        spec.provider = Some(Provider::from_name(name).ok_or_else(|| {
            Error::invalid_request(format!(
                "provider is {name:?}; expected one of {}",
                Provider::names()
            ))
        })?);
    }
    let doc = opguard_select::profile_with(
        r.path.as_ref(),
        r.top,
        spec,
        &opguard_formats::ReadOptions::default(),
    )
    .map_err(|e| select_error(&e))?;
    Ok(ok(&doc))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct VerdictRequest<'a> {
    #[serde(borrow, default)]
    request: Option<&'a RawValue>,
    #[serde(borrow, default)]
    request_path: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    base: Option<Cow<'a, str>>,
}

/// `{"request": {seam request} | "request_path": file, "base"?: dir}` → the
/// verdict. Trace paths of an inline request resolve against `base` (default:
/// the working directory), of a request file against its folder.
pub(crate) fn seam_verdict(request: &str) -> Result<String, Error> {
    let r: VerdictRequest<'_> = parse("seam_verdict", request)?;
    let verdict = match one_of("request", r.request, r.request_path.as_deref(), true)? {
        Some(Doc::Inline(raw)) => {
            let req = Request::from_json(raw.get().as_bytes(), "request")
                .map_err(|e| select_error(&e))?;
            opguard_select::verdict(req, Path::new(r.base.as_deref().unwrap_or(".")))
        }
        Some(Doc::Path(path)) => {
            if r.base.is_some() {
                return Err(Error::invalid_request(
                    "`base` applies to an inline `request`; a `request_path` file's traces \
                     resolve against its own folder",
                ));
            }
            opguard_select::verdict_from_request_file(path)
        }
        None => return Err(Error::invalid_request("no seam request given")),
    }
    .map_err(|e| select_error(&e))?;
    Ok(ok(&verdict))
}
