//! Summaries and jobs as JSON documents: what crosses a process or
//! machine boundary between the map and the reduce (Ray, the C ABI).

use std::path::Path;

use serde::Deserialize;

use crate::error::{Error, ErrorKind};
use crate::merge::{Job, JOB_FORMAT};
use crate::summary::{RankSummary, RANK_FORMAT};

/// The largest summary or job document accepted, in bytes.
pub const MAX_DOCUMENT_BYTES: u64 = opguard_document::DEFAULT_MAX_BYTES;

/// Reads the document at `path` with [`job_from_json`], refusing a file
/// over [`MAX_DOCUMENT_BYTES`] before reading past the limit: the output of
/// `opguard job --json`, of `examples/ray_job.py`, or a rank summary.
pub fn job_from_path(path: &Path) -> Result<Job, Error> {
    let what = path.display().to_string();
    let bytes = opguard_document::read_path_bounded(path, MAX_DOCUMENT_BYTES)
        .map_err(|e| Error::document(&what, "object", e))?;
    job_from_bytes(&what, &bytes)
}

/// Reads one document that is either a rank summary
/// (`opguard.job.rank/v1`) or a job (`opguard.job/v1`), as a job; `what`
/// names it in errors. Unknown and repeated fields are refused, and so are
/// two frames with one id and different categories or kernel identities
/// (`frame_conflict`).
pub fn job_from_json(what: &str, text: &str) -> Result<Job, Error> {
    job_from_bytes(what, text.as_bytes())
}

fn job_from_bytes(what: &str, bytes: &[u8]) -> Result<Job, Error> {
    #[derive(Deserialize)]
    struct Format<'a> {
        #[serde(borrow, default)]
        format: Option<std::borrow::Cow<'a, str>>,
    }
    // One strict reading for every document: bounded, object-only,
    // repeated keys refused, the JSON path in the error.
    let limit = MAX_DOCUMENT_BYTES;
    let invalid = |expected: &'static str, e| Error::document(what, expected, e);
    let format: Format<'_> =
        opguard_document::from_slice(bytes, limit).map_err(|e| invalid("object", e))?;
    match format.format.as_deref() {
        Some(RANK_FORMAT) => opguard_document::from_slice::<RankSummary>(bytes, limit)
            .map_err(|e| invalid(RANK_FORMAT, e))
            .and_then(Job::try_from),
        // Derived fields are recomputed, not trusted; frames that share an
        // id but not its category or kernel identity are refused.
        Some(JOB_FORMAT) => opguard_document::from_slice::<Job>(bytes, limit)
            .map_err(|e| invalid(JOB_FORMAT, e))
            .and_then(|job| Job::merge_all([job])),
        other => Err(ErrorKind::WrongFormat {
            what: what.to_owned(),
            found: other.unwrap_or_default().to_owned(),
            rank: RANK_FORMAT,
            job: JOB_FORMAT,
        }
        .into()),
    }
}
