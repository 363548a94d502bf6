//! The crate's error: reading a job's inputs and its JSON documents.

use std::path::{Path, PathBuf};

use crate::merge::RankRef;

/// A job input or document that cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A named input (file or directory) cannot be read.
    #[error("cannot read job input {}: {source}", path.display())]
    Input {
        /// The input.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A summary or job document is larger than its limit.
    #[error("{what} is over the limit of {limit} bytes")]
    TooLarge {
        /// Which document (`summaries[3]`, ...).
        what: String,
        /// [`MAX_DOCUMENT_BYTES`](crate::MAX_DOCUMENT_BYTES).
        limit: usize,
    },
    /// A summary or job document is not what it claims.
    #[error("{what} is not an {expected} document: {message}")]
    InvalidDocument {
        /// Which document.
        what: String,
        /// The format expected.
        expected: &'static str,
        /// What is wrong, with the JSON path and, when known, the line and
        /// column.
        message: String,
        /// 1-based line of the problem (0 when not positional).
        line: usize,
        /// 1-based column.
        column: usize,
    },
    /// A document's `format` is neither a rank summary's nor a job's.
    #[error("{what} has format {found:?}; expected {rank:?} or {job:?}")]
    WrongFormat {
        /// Which document.
        what: String,
        /// The `format` it has (empty when absent).
        found: String,
        /// [`RANK_FORMAT`](crate::RANK_FORMAT).
        rank: &'static str,
        /// [`JOB_FORMAT`](crate::JOB_FORMAT).
        job: &'static str,
    },
    /// Two entries for one frame id disagree on its category or kernel
    /// identity, which the id is derived from: one of the documents was
    /// altered or is not opguard's. Merging either way would depend on the
    /// order of the inputs.
    #[error("{0}")]
    FrameConflict(Box<FrameConflict>),
}

/// What [`Error::FrameConflict`] found: one frame id, two values of a field
/// it is derived from, and a rank giving each.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "frame {id} has {field} {first} on {} but {second} on {}; the id is derived from the \
     category and kernel identity, so one of the documents was altered or is not opguard's",
    rank_name(first_rank),
    rank_name(second_rank)
)]
#[non_exhaustive]
pub struct FrameConflict {
    /// The frame id.
    pub id: String,
    /// `category` or `kernel_identity`.
    pub field: &'static str,
    /// The smaller of the two values, as JSON.
    pub first: String,
    /// The first rank (in rank order) that gave `first`.
    pub first_rank: RankRef,
    /// The larger value, as JSON.
    pub second: String,
    /// The first rank that gave `second`.
    pub second_rank: RankRef,
}

fn rank_name(r: &RankRef) -> String {
    match r.rank {
        Some(n) => format!("rank {n} ({})", r.file),
        None => r.file.clone(),
    }
}

impl Error {
    pub(crate) fn input(path: &Path, source: std::io::Error) -> Error {
        Error::Input {
            path: path.to_owned(),
            source,
        }
    }

    pub(crate) fn document(
        what: &str,
        expected: &'static str,
        e: opguard_document::Error,
    ) -> Error {
        if let Some(limit) = e.limit() {
            return Error::TooLarge {
                what: what.to_owned(),
                limit: usize::try_from(limit).unwrap_or(usize::MAX),
            };
        }
        Error::InvalidDocument {
            what: what.to_owned(),
            expected,
            message: e.to_string(),
            line: e.line().unwrap_or(0),
            column: e.column().unwrap_or(0),
        }
    }
}

opguard_document::error_codes! {
    /// Every code [`Error::code`] returns, with its one-line meaning (the C ABI
    /// lists them under the `job.` prefix).
    pub const ERROR_CODES;
    impl Error {
        /// A stable code for the kind of error.
        pub fn code;
    }
    codes {
        Error::Input { .. } => "io": "a job input (file or directory) cannot be read",
        Error::TooLarge { .. } => "limit_exceeded": "a summary or job document is larger than its limit",
        Error::InvalidDocument { .. } => "invalid_document": "a summary or job document is not what it claims",
        Error::WrongFormat { .. } => "wrong_format": "a document's `format` is neither a rank summary's nor a job's",
        Error::FrameConflict(_) => "frame_conflict": "two entries for one frame id disagree on its category or kernel identity",
    }
}
