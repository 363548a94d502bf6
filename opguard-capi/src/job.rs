//! Whole-job requests: the map step (one rank's summary) and the reduce
//! step (merge summaries and partial jobs) of `opguard-job`, so any engine
//! can run them through the C ABI and the bindings.

use std::borrow::Cow;

use opguard_job::{job_from_json, summarize_as, Job, SummaryOptions, DEFAULT_TOP};
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::boundary::ok;
use crate::error::Error;
use crate::request::parse;
use crate::trace::Reader;

fn job_error(e: &opguard_job::Error) -> Error {
    match e.kind() {
        opguard_job::ErrorKind::Document { what, source, .. } => {
            Error::document(e.to_string(), source).in_input(what.clone())
        }
        _ => Error::new(format!("job.{}", e.code()), e.to_string()),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SummaryRequest<'a> {
    #[serde(borrow)]
    path: Cow<'a, str>,
    #[serde(default)]
    file: Option<String>,
    #[serde(default)]
    top: Option<usize>,
    #[serde(default)]
    reader: Reader,
}

/// `{"path": trace, "file"?, "top"?, "reader"?}` → the rank's summary
/// (`opguard.job.rank/v1`); `file` names the rank in the job (default: the
/// path as given). A trace that cannot be read is not a failed
/// call: the summary carries the reader's error, as in `opguard job`.
pub(crate) fn summary(request: &str) -> Result<String, Error> {
    let r: SummaryRequest<'_> = parse("job_summary", request)?;
    let options = SummaryOptions::new()
        .top(r.top.unwrap_or(DEFAULT_TOP))
        .reader(r.reader.options())
        .unverified_schema(r.reader.unverified_schema());
    let file = r.file.unwrap_or_else(|| r.path.clone().into_owned());
    Ok(ok(&summarize_as(r.path.as_ref(), file, &options)))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MergeRequest<'a> {
    #[serde(borrow)]
    summaries: Vec<&'a RawValue>,
}

/// `{"summaries": [rank summary | job, …]}` → the merged job
/// (`opguard.job/v1`); the same document for any order and grouping, or
/// `job.frame_conflict` for documents that disagree on what a frame id is.
pub(crate) fn merge(request: &str) -> Result<String, Error> {
    let r: MergeRequest<'_> = parse("job_merge", request)?;
    let jobs = r
        .summaries
        .iter()
        .enumerate()
        .map(|(i, raw)| job_from_json(&format!("summaries[{i}]"), raw.get()))
        .collect::<Result<Vec<Job>, _>>()
        .map_err(|e| job_error(&e))?;
    let job = Job::merge_all(jobs).map_err(|e| job_error(&e))?;
    Ok(ok(&job))
}
