//! The crate's one error type.

use std::path::PathBuf;

/// Why a request or a trace could not be evaluated at all.
///
/// A verdict that *fails* (`ok: false`) is not an error: it is a
/// [`Verdict`](crate::Verdict) with reasons. An `Error` means there is no
/// verdict: the request is malformed or refused at admission, or a trace that
/// exists cannot be read. Every variant says what was read (a path), where (a
/// JSON path such as `candidates[2].spec`) and what was expected;
/// [`Error::code`] is a stable machine-readable string.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The request file cannot be read.
    #[error("cannot read request {path}: {source}", path = path.display())]
    RequestUnreadable {
        /// The request file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The request is not JSON of the documented shape (syntax, a missing or
    /// unknown field, a field of the wrong type, a key given twice, an array
    /// where an object is read).
    #[error("request {what} is invalid at {path} (line {line}, column {column}): {message}")]
    RequestInvalid {
        /// What was read (the request path, or `request`).
        what: String,
        /// The JSON path of the offending value (`candidates[0].spec`; `$`
        /// for the whole request).
        path: String,
        /// One-based line (0 when unknown).
        line: usize,
        /// One-based column (0 when unknown).
        column: usize,
        /// What is wrong, naming the field.
        message: String,
    },
    /// The request is longer than [`MAX_REQUEST_BYTES`](crate::MAX_REQUEST_BYTES);
    /// nothing past the limit was read.
    #[error("request {what} is larger than its limit of {limit} bytes")]
    RequestTooLarge {
        /// What was read (the request path, or `request`).
        what: String,
        /// The limit in bytes.
        limit: u64,
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
    /// For [`Error::TraceUnreadable`], the trace reader's own code
    /// (`gzip_truncated`, `json_syntax`, `limit_exceeded`, ...).
    pub fn trace_code(&self) -> Option<&'static str> {
        match self {
            Error::TraceUnreadable { source, .. } => Some(source.code()),
            _ => None,
        }
    }

    /// A request that could not be read or parsed; `file` is where it was
    /// read from, when it was a file.
    pub(crate) fn from_document(
        e: opguard_document::Error,
        what: &str,
        file: Option<&std::path::Path>,
    ) -> Self {
        let what = what.to_owned();
        let (path, line, column, message) = (
            e.path(),
            e.line().unwrap_or(0),
            e.column().unwrap_or(0),
            e.message(),
        );
        match e.into_kind() {
            opguard_document::ErrorKind::Io(source) => Error::RequestUnreadable {
                path: file.map(Into::into).unwrap_or_else(|| what.into()),
                source,
            },
            opguard_document::ErrorKind::LimitExceeded { limit } => {
                Error::RequestTooLarge { what, limit }
            }
            _ => Error::RequestInvalid {
                what,
                path,
                line,
                column,
                message,
            },
        }
    }

    pub(crate) fn invalid(
        path: impl Into<String>,
        problem: impl Into<String>,
        expected: impl Into<String>,
    ) -> Self {
        Error::InvalidValue {
            path: path.into(),
            problem: problem.into(),
            expected: expected.into(),
        }
    }
}

opguard_document::error_codes! {
    /// Every code [`Error::code`] returns, with its one-line meaning (the C ABI
    /// lists them under the `select.` prefix).
    pub const ERROR_CODES;
    impl Error {
        /// The stable code of this error (`request_invalid`, `no_device_symbol`,
        /// `trace_unreadable`, ...). Codes never change meaning.
        pub fn code;
    }
    codes {
        Error::RequestUnreadable { .. } => "io": "the seam request file cannot be read",
        Error::RequestInvalid { .. } => "request_invalid": "the seam request is not JSON of the documented shape",
        Error::RequestTooLarge { .. } => "limit_exceeded": "the seam request is larger than `MAX_REQUEST_BYTES`",
        Error::UnsupportedProtocol { .. } => "unsupported_protocol_version": "the seam request's `protocol_version` is not 1",
        Error::InvalidSpec { .. } => "invalid_spec": "a callable spec is not `module:attr`",
        Error::NoDeviceSymbol { .. } => "no_device_symbol": "the request names no device kernel symbol",
        Error::InvalidValue { .. } => "invalid_value": "a seam request field has a value the protocol does not allow",
        Error::TraceUnreadable { .. } => "trace_unreadable": "a trace that exists cannot be read (field `trace_code`)",
    }
}
