//! The crate's one error type.

use std::path::PathBuf;

/// Why a request or a trace could not be evaluated at all.
///
/// A verdict that *fails* (`ok: false`) is not an error: it is a
/// [`Verdict`](crate::Verdict) with reasons. An `Error` means there is no
/// verdict: the request is malformed or refused at admission, or a trace that
/// exists cannot be read. Every kind says what was read (a path), where (a
/// JSON path such as `candidates[2].spec`) and what was expected;
/// [`Error::code`] is a stable machine-readable string.
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
    /// The request document could not be read: unreadable, larger than
    /// [`MAX_REQUEST_BYTES`](crate::MAX_REQUEST_BYTES), not JSON, or not of
    /// the documented shape (a missing or unknown field, a wrong type, a key
    /// given twice, an array where an object is read). [`Error::code`] is the
    /// document reader's own (`duplicate_key`, `wrong_type`, ...), and
    /// `source` keeps its JSON path, line and column.
    #[error("{what}: {source}")]
    Document {
        /// What was read (the request path, or `request`).
        what: String,
        /// The document reader's error.
        #[source]
        source: opguard_document::Error,
    },
    /// `protocol_version` is not one this crate implements.
    #[error(
        "request protocol_version is {found}; this crate implements protocol_version {expected}"
    )]
    UnsupportedProtocol {
        /// The version found.
        found: u64,
        /// The version implemented.
        expected: u64,
    },
    /// A callable spec is not `module:attr` (dotted Python identifiers on
    /// both sides of exactly one colon, e.g. `pkg.mod:Runner.run`).
    #[error("{path} is {spec:?}: {problem}; expected module:attr such as \"pkg.mod:Runner.run\"")]
    InvalidSpec {
        /// JSON path of the spec.
        path: String,
        /// The spec.
        spec: String,
        /// What is wrong with it.
        problem: String,
    },
    /// The head names no device symbol: refused at admission, before any
    /// trace is read.
    #[error("device_kernel {found:?} names no device symbol ({problem}); expected a kernel symbol such as \"fused_moe_kernel\"")]
    NoDeviceSymbol {
        /// The value found.
        found: String,
        /// Why it is not a device symbol.
        problem: String,
    },
    /// A field has the right type but a value the protocol does not allow
    /// (an empty marker, two candidates with one spec or one marker, two
    /// processes with one name, a trace path that is empty).
    #[error("{path}: {problem}; expected {expected}")]
    InvalidValue {
        /// JSON path of the value.
        path: String,
        /// What is wrong.
        problem: String,
        /// What was expected.
        expected: String,
    },
    /// A trace that exists could not be read (I/O failure, bad gzip, bad
    /// JSON, a limit). A trace that does not exist is not an error: it is
    /// the verdict failure `capture_process_trace_missing`.
    #[error("cannot read trace {path}: {source}", path = path.display())]
    TraceUnreadable {
        /// The trace file.
        path: PathBuf,
        /// The reader's error; its own code is [`Error::trace_code`].
        #[source]
        source: opguard_formats::Error,
    },
}

impl Error {
    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.inner
    }

    /// The stable code of this error (`wrong_type`, `no_device_symbol`,
    /// `trace_unreadable`, ...); the list is [`ERROR_CODES`] and the
    /// document reader's [`opguard_document::ERROR_CODES`].
    pub fn code(&self) -> &'static str {
        self.inner.code()
    }

    /// For [`ErrorKind::TraceUnreadable`], the trace reader's own code
    /// (`gzip_truncated`, `json_syntax`, `limit_exceeded`, ...).
    pub fn trace_code(&self) -> Option<&'static str> {
        match &*self.inner {
            ErrorKind::TraceUnreadable { source, .. } => Some(source.code()),
            _ => None,
        }
    }

    /// A request that could not be read or parsed.
    pub(crate) fn document(what: &str, source: opguard_document::Error) -> Self {
        ErrorKind::Document {
            what: what.to_owned(),
            source,
        }
        .into()
    }

    pub(crate) fn invalid(
        path: impl Into<String>,
        problem: impl Into<String>,
        expected: impl Into<String>,
    ) -> Self {
        ErrorKind::InvalidValue {
            path: path.into(),
            problem: problem.into(),
            expected: expected.into(),
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
    /// its one-line meaning (the C ABI lists them under the `select.` prefix).
    /// A request the document reader refuses keeps the reader's code
    /// ([`opguard_document::ERROR_CODES`], `document.` in the C ABI).
    pub const ERROR_CODES;
    impl ErrorKind {
        /// The stable code of this kind of error (see [`ERROR_CODES`]).
        /// Codes never change meaning.
        pub fn code;
    }
    passthrough {
        ErrorKind::Document { source, .. } => source.code(),
    }
    codes {
        ErrorKind::UnsupportedProtocol { .. } => "unsupported_protocol_version": "the seam request's `protocol_version` is not 1",
        ErrorKind::InvalidSpec { .. } => "invalid_spec": "a callable spec is not `module:attr`",
        ErrorKind::NoDeviceSymbol { .. } => "no_device_symbol": "the request names no device kernel symbol",
        ErrorKind::InvalidValue { .. } => "invalid_value": "a seam request field has a value the protocol does not allow",
        ErrorKind::TraceUnreadable { .. } => "trace_unreadable": "a trace that exists cannot be read (field `trace_code`)",
    }
}
