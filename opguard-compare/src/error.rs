//! The crate's error: inputs that cannot be compared.

use std::path::{Path, PathBuf};

/// Why a comparison could not be made.
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
    #[error("cannot read {side} input {}: {source}", path.display())]
    Input {
        /// `baseline` or `candidate`.
        side: &'static str,
        /// The input.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A side names no trace (no argument, or directories without traces).
    #[error("the {side} names no trace")]
    NoRuns {
        /// `baseline` or `candidate`.
        side: &'static str,
    },
    /// A trace cannot be read: the reader's error ([`Error::trace_error`])
    /// says why and where.
    #[error("{side} trace {}: {source}", path.display())]
    TraceUnreadable {
        /// `baseline` or `candidate`.
        side: &'static str,
        /// The trace.
        path: PathBuf,
        /// The reader's error.
        #[source]
        source: opguard_formats::Error,
    },
    /// `--step NAME` names a range a trace does not have.
    #[error("{file} has no range named {step:?} (or {step:?} with a counter, as in {step}#3): its steps cannot be samples")]
    StepNotFound {
        /// The trace.
        file: String,
        /// The name asked for.
        step: String,
    },
    /// One trace given twice on one side: its samples would count twice,
    /// as if it were evidence twice.
    #[error("the {side} names one trace twice ({file}, artifact {artifact}): its samples would count twice")]
    ArtifactReused {
        /// `baseline` or `candidate`.
        side: &'static str,
        /// The second naming.
        file: String,
        /// Its SHA-256.
        artifact: String,
    },
    /// A setting outside its range.
    #[error("{option} {value:?} is not {expected}")]
    InvalidOption {
        /// The setting.
        option: &'static str,
        /// Its value as given.
        value: String,
        /// What it must be.
        expected: &'static str,
    },
    /// A comparison document could not be read (unreadable, over
    /// [`MAX_DOCUMENT_BYTES`](crate::MAX_DOCUMENT_BYTES), not JSON, not a
    /// comparison). [`Error::code`] is the document reader's own.
    #[error("{what} is not an {expected} document: {source}")]
    Document {
        /// Which document.
        what: String,
        /// The format expected.
        expected: &'static str,
        /// The document reader's error.
        #[source]
        source: opguard_document::Error,
    },
    /// A document's `format` is not a comparison's.
    #[error("{what} has format {found:?}; expected {expected:?}")]
    WrongFormat {
        /// Which document.
        what: String,
        /// The `format` it has (empty when absent).
        found: String,
        /// [`COMPARE_FORMAT`](crate::COMPARE_FORMAT).
        expected: &'static str,
    },
}

impl Error {
    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.inner
    }

    /// The stable code of this error ([`ERROR_CODES`], or the document
    /// reader's own for a document fault).
    pub fn code(&self) -> &'static str {
        self.inner.code()
    }

    /// The trace reader's error, when a trace could not be read: its own
    /// code (`json_truncated`, `io`, ...) and position.
    pub fn trace_error(&self) -> Option<&opguard_formats::Error> {
        match &*self.inner {
            ErrorKind::TraceUnreadable { source, .. } => Some(source),
            _ => None,
        }
    }

    pub(crate) fn input(side: &'static str, path: &Path, source: std::io::Error) -> Error {
        ErrorKind::Input {
            side,
            path: path.to_owned(),
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
    /// its one-line meaning (the C ABI lists them under the `compare.`
    /// prefix). A document the reader refuses keeps the document reader's
    /// code ([`opguard_document::ERROR_CODES`]).
    pub const ERROR_CODES;
    impl ErrorKind {
        /// The stable code of this kind of error.
        pub fn code;
    }
    passthrough {
        ErrorKind::Document { source, .. } => source.code(),
    }
    codes {
        ErrorKind::Input { .. } => "io": "a baseline or candidate input (file or directory) cannot be read",
        ErrorKind::NoRuns { .. } => "no_runs": "a side names no trace",
        ErrorKind::TraceUnreadable { .. } => "trace_unreadable": "a trace cannot be read (the reader's own error says why)",
        ErrorKind::StepNotFound { .. } => "step_not_found": "a trace has no range of the --step name",
        ErrorKind::ArtifactReused { .. } => "artifact_reused": "one trace given twice on one side",
        ErrorKind::InvalidOption { .. } => "invalid_option": "a threshold, rate, confidence or step name outside its range",
        ErrorKind::WrongFormat { .. } => "wrong_format": "a document's `format` is not opguard.compare/v1",
    }
}
