//! The crate's error: reading a job's inputs and its JSON documents.

use std::path::{Path, PathBuf};

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
    }
}
