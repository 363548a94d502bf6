//! Summaries and jobs as JSON documents: what crosses a process or
//! machine boundary between the map and the reduce (Ray, the C ABI).

use std::io::Read;
use std::path::Path;

use serde::Deserialize;

use crate::error::Error;
use crate::merge::{Job, JOB_FORMAT};
use crate::summary::{RankSummary, RANK_FORMAT};

/// The largest summary or job document accepted, in bytes.
pub const MAX_DOCUMENT_BYTES: usize = 256 << 20;

/// Reads the document at `path` with [`job_from_json`], refusing a file
/// over [`MAX_DOCUMENT_BYTES`] before reading past the limit: the output of
/// `opguard job --json`, of `examples/ray_job.py`, or a rank summary.
pub fn job_from_path(path: &Path) -> Result<Job, Error> {
    let what = path.display().to_string();
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| {
            f.take(MAX_DOCUMENT_BYTES as u64 + 1)
                .read_to_end(&mut bytes)
        })
        .map_err(|e| Error::input(path, e))?;
    if bytes.len() > MAX_DOCUMENT_BYTES {
        return Err(Error::TooLarge {
            what,
            limit: MAX_DOCUMENT_BYTES,
        });
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        Error::input(
            path,
            std::io::Error::new(std::io::ErrorKind::InvalidData, e),
        )
    })?;
    job_from_json(&what, &text)
}

/// Reads one document that is either a rank summary
/// (`opguard.job.rank/v1`) or a job (`opguard.job/v1`), as a job; `what`
/// names it in errors. Unknown and repeated fields are refused, and so are
/// two frames with one id and different categories or kernel identities
/// (`frame_conflict`).
pub fn job_from_json(what: &str, text: &str) -> Result<Job, Error> {
    #[derive(Deserialize)]
    struct Format<'a> {
        #[serde(borrow, default)]
        format: Option<std::borrow::Cow<'a, str>>,
    }
    // One strict reading for every document: bounded, object-only,
    // repeated keys refused, the JSON path in the error.
    let limit = MAX_DOCUMENT_BYTES as u64;
    let invalid = |expected: &'static str, e| Error::document(what, expected, e);
    let format: Format<'_> =
        opguard_document::from_str(text, limit).map_err(|e| invalid("object", e))?;
    match format.format.as_deref() {
        Some(RANK_FORMAT) => opguard_document::from_str::<RankSummary>(text, limit)
            .map_err(|e| invalid(RANK_FORMAT, e))
            .and_then(Job::try_from),
        // Derived fields are recomputed, not trusted; frames that share an
        // id but not its category or kernel identity are refused.
        Some(JOB_FORMAT) => opguard_document::from_str::<Job>(text, limit)
            .map_err(|e| invalid(JOB_FORMAT, e))
            .and_then(|job| Job::merge_all([job])),
        other => Err(Error::WrongFormat {
            what: what.to_owned(),
            found: other.unwrap_or_default().to_owned(),
            rank: RANK_FORMAT,
            job: JOB_FORMAT,
        }),
    }
}
