//! The crate's error: reading a job's inputs and its JSON documents.

use std::path::{Path, PathBuf};

use crate::merge::RankRef;

/// A job input or document that cannot be used.
///
/// Boxed, like every opguard error, so a result carries one pointer.
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct Error {
    inner: Box<ErrorKind>,
}

/// What went wrong.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A named input (file or directory) cannot be read.
    #[error("cannot read job input {}: {source}", path.display())]
    Input {
        /// The input.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A summary or job document could not be read: unreadable, larger than
    /// [`MAX_DOCUMENT_BYTES`](crate::MAX_DOCUMENT_BYTES), not JSON, or not
    /// what it claims (a missing or unknown field, a wrong type, a key given
    /// twice). [`Error::code`] is the document reader's own
    /// (`duplicate_key`, `wrong_type`, ...), and `source` keeps its JSON path,
    /// line and column.
    #[error("{what} is not an {expected} document: {source}")]
    Document {
        /// Which document (`summaries[3]`, a path).
        what: String,
        /// The format expected (`object` before the format is known).
        expected: &'static str,
        /// The document reader's error.
        #[source]
        source: opguard_document::Error,
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

/// What [`ErrorKind::FrameConflict`] found: one frame id, two values of a field
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
    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.inner
    }

    /// The stable code of this error; the list is [`ERROR_CODES`] and the
    /// document reader's [`opguard_document::ERROR_CODES`].
    pub fn code(&self) -> &'static str {
        self.inner.code()
    }

    pub(crate) fn input(path: &Path, source: std::io::Error) -> Error {
        ErrorKind::Input {
            path: path.to_owned(),
            source,
        }
        .into()
    }

    pub(crate) fn document(
        what: &str,
        expected: &'static str,
        source: opguard_document::Error,
    ) -> Error {
        ErrorKind::Document {
            what: what.to_owned(),
            expected,
            source,
        }
        .into()
    }
}

impl From<ErrorKind> for Error {
    fn from(kind: ErrorKind) -> Self {
        Error {
            inner: Box::new(kind),
        }
    }
}

opguard_document::error_codes! {
    /// Every code [`Error::code`] returns for this crate's own faults, with
    /// its one-line meaning (the C ABI lists them under the `job.` prefix). A
    /// document the reader refuses keeps the document reader's code
    /// ([`opguard_document::ERROR_CODES`], `document.` in the C ABI).
    pub const ERROR_CODES;
    impl ErrorKind {
        /// The stable code of this kind of error.
        pub fn code;
    }
    passthrough {
        ErrorKind::Document { source, .. } => source.code(),
    }
    codes {
        ErrorKind::Input { .. } => "io": "a job input (file or directory) cannot be read",
        ErrorKind::WrongFormat { .. } => "wrong_format": "a document's `format` is neither a rank summary's nor a job's",
        ErrorKind::FrameConflict(_) => "frame_conflict": "two entries for one frame id disagree on its category or kernel identity",
    }
}
