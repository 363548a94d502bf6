//! The one error type of this crate.

use std::fmt;
use std::io;

use crate::field::Field;
use crate::scan::ValueKind;

/// A reader or writer failure: what went wrong and where.
///
/// Boxed so the hot path stays small. Every error has a stable [`code`],
/// the decoded byte offset where the problem is when there is one, and the
/// index of the event being read.
///
/// [`code`]: Error::code
pub struct Error {
    inner: Box<ErrorImpl>,
}

struct ErrorImpl {
    kind: ErrorKind,
    offset: Option<u64>,
    encoded_offset: Option<u64>,
    event_index: Option<u64>,
    path: Option<String>,
}

/// Which configured limit was exceeded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Limit {
    /// Bytes read from the file (compressed size for gzip).
    EncodedBytes,
    /// Bytes of JSON after decompression.
    DecodedBytes,
    /// Nesting depth of JSON containers.
    Depth,
    /// Size of one event or one top-level metadata value.
    ValueBytes,
}

impl Limit {
    fn describe(self) -> &'static str {
        match self {
            Limit::EncodedBytes => "encoded bytes",
            Limit::DecodedBytes => "decoded bytes",
            Limit::Depth => "nesting depth",
            Limit::ValueBytes => "bytes in one value",
        }
    }
}

/// What went wrong.
#[derive(Debug)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Reading or writing failed.
    Io(io::Error),
    /// The input starts like gzip but is not a valid gzip stream (this
    /// includes trailing bytes after the last gzip member).
    GzipInvalid(String),
    /// The gzip stream ends before its end marker.
    GzipTruncated,
    /// A configured limit was exceeded; nothing past it was read or kept.
    LimitExceeded {
        /// Which limit.
        which: Limit,
        /// Its configured value.
        limit: u64,
    },
    /// The decoded bytes are not UTF-8.
    InvalidUtf8,
    /// The input is empty (or only whitespace).
    EmptyInput,
    /// The JSON ends in the middle of a value.
    Truncated {
        /// Complete events before the cut ([`crate::ReaderOptions::salvage`]
        /// reads them).
        complete_events: u64,
    },
    /// The JSON is malformed.
    Syntax(&'static str),
    /// A string was closed by a quote that should have been escaped (old
    /// Kineto versions wrote names such as `"f("x")"` this way).
    UnescapedQuote,
    /// `NaN` or `Infinity`, which are not JSON numbers.
    NonFiniteNumber,
    /// A `traceEvents` element that is not an object.
    EventNotObject {
        /// What was found instead.
        found: ValueKind,
    },
    /// `traceEvents` is not an array.
    TraceEventsNotArray {
        /// What was found instead.
        found: ValueKind,
    },
    /// The document is neither an object nor an array.
    TopLevelNotContainer,
    /// A top-level object without a `traceEvents` key.
    MissingTraceEvents,
    /// A key that must be unique appeared twice (`traceEvents`, or a field
    /// the reader types within one event). The reader refuses rather than
    /// picking one, because readers disagree on which one wins.
    DuplicateKey {
        /// The key.
        key: String,
    },
    /// A typed field has the wrong JSON type.
    WrongType {
        /// The field.
        field: Field,
        /// What was found.
        found: ValueKind,
    },
    /// Something other than whitespace follows the document.
    TrailingData,
    /// The writer was given a value it cannot write.
    InvalidWrite(String),
    /// A number (usually `ts` or `dur`) does not fit the model's range.
    Number(crate::NumberError),
}

impl Error {
    pub(crate) fn new(kind: ErrorKind) -> Self {
        Error {
            inner: Box::new(ErrorImpl {
                kind,
                offset: None,
                encoded_offset: None,
                event_index: None,
                path: None,
            }),
        }
    }

    pub(crate) fn at(mut self, offset: u64) -> Self {
        self.inner.offset = Some(offset);
        self
    }

    pub(crate) fn at_encoded(mut self, offset: u64) -> Self {
        self.inner.encoded_offset = Some(offset);
        self
    }

    pub(crate) fn in_event(mut self, index: Option<u64>) -> Self {
        self.inner.event_index = index;
        self
    }

    pub(crate) fn with_path(mut self, path: String) -> Self {
        self.inner.path = Some(path);
        self
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.inner.kind
    }

    /// Byte offset into the decoded JSON, when the error has a position.
    pub fn offset(&self) -> Option<u64> {
        self.inner.offset
    }

    /// Byte offset into the encoded (compressed) input, for gzip errors.
    pub fn encoded_offset(&self) -> Option<u64> {
        self.inner.encoded_offset
    }

    /// Zero-based index of the `traceEvents` element being read.
    pub fn event_index(&self) -> Option<u64> {
        self.inner.event_index
    }

    /// JSON path of the offending value, e.g. `traceEvents[12].ts`.
    pub fn path(&self) -> Option<&str> {
        self.inner.path.as_deref()
    }

    /// A stable, machine-readable code for the kind of error.
    pub fn code(&self) -> &'static str {
        self.inner.kind.code()
    }

    /// The message without position, e.g. for a JSON error object.
    pub fn message(&self) -> String {
        match &self.inner.kind {
            ErrorKind::Io(e) => format!("I/O error: {e}"),
            ErrorKind::GzipInvalid(m) => format!("invalid gzip stream: {m}"),
            ErrorKind::GzipTruncated => "gzip stream is truncated".into(),
            ErrorKind::LimitExceeded { which, limit } => {
                format!("limit of {limit} {} exceeded", which.describe())
            }
            ErrorKind::InvalidUtf8 => "invalid UTF-8".into(),
            ErrorKind::EmptyInput => "empty input: expected a JSON object or array".into(),
            ErrorKind::Truncated { complete_events } => format!(
                "unexpected end of input inside a JSON value; {complete_events} complete events \
                 precede the cut (salvage, --salvage, reads them)"
            ),
            ErrorKind::Syntax(what) => format!("invalid JSON: {what}"),
            ErrorKind::UnescapedQuote => "a string is followed by text instead of ',' or a \
                 closing bracket: probably an unescaped quote inside the string"
                .into(),
            ErrorKind::NonFiniteNumber => "NaN and Infinity are not JSON numbers".into(),
            ErrorKind::EventNotObject { found } => {
                format!("trace event is {}, expected an object", an(found.name()))
            }
            ErrorKind::TraceEventsNotArray { found } => {
                format!("traceEvents is {}, expected an array", an(found.name()))
            }
            ErrorKind::TopLevelNotContainer => {
                "the document must be an object with traceEvents or an array of events".into()
            }
            ErrorKind::MissingTraceEvents => "the top-level object has no traceEvents".into(),
            ErrorKind::DuplicateKey { key } => format!("duplicate key {key:?}"),
            ErrorKind::WrongType { field, found } => format!(
                "field {:?} is {}, expected {}",
                field.key(),
                an(found.name()),
                field.expected()
            ),
            ErrorKind::TrailingData => "unexpected data after the end of the document".into(),
            ErrorKind::InvalidWrite(m) => format!("cannot write: {m}"),
            ErrorKind::Number(e) => e.to_string(),
        }
    }
}

fn an(noun: &str) -> String {
    match noun.as_bytes().first() {
        Some(b'a' | b'e' | b'i' | b'o' | b'u') => format!("an {noun}"),
        _ => format!("a {noun}"),
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message())?;
        if let Some(o) = self.inner.offset {
            write!(f, " at byte {o}")?;
        }
        if let Some(o) = self.inner.encoded_offset {
            write!(f, " at compressed byte {o}")?;
        }
        match (&self.inner.path, self.inner.event_index) {
            (Some(p), _) => write!(f, " ({p})")?,
            (None, Some(i)) => write!(f, " (traceEvents[{i}])")?,
            (None, None) => {}
        }
        Ok(())
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Error")
            .field("code", &self.code())
            .field("kind", &self.inner.kind)
            .field("offset", &self.inner.offset)
            .field("encoded_offset", &self.inner.encoded_offset)
            .field("event_index", &self.inner.event_index)
            .field("path", &self.inner.path)
            .finish()
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.inner.kind {
            ErrorKind::Io(e) => Some(e),
            _ => None,
        }
    }
}

/// An `io::Error` that carries one of ours (from
/// [`DecodedInput`](crate::DecodedInput)'s `io::Read`) gives it back.
impl From<io::Error> for Error {
    fn from(e: io::Error) -> Self {
        if !e.get_ref().is_some_and(|inner| inner.is::<Error>()) {
            return Error::new(ErrorKind::Io(e));
        }
        let kind = e.kind();
        match e.into_inner().map(|inner| inner.downcast::<Error>()) {
            Some(Ok(ours)) => *ours,
            Some(Err(other)) => Error::new(ErrorKind::Io(io::Error::new(kind, other))),
            None => Error::new(ErrorKind::Io(kind.into())),
        }
    }
}

opguard_document::error_codes! {
    /// Every code [`Error::code`] returns, with its one-line meaning (the C ABI
    /// lists them under the `trace.` prefix).
    pub const ERROR_CODES;
    impl ErrorKind {
        /// The stable code of this kind of error (see [`ERROR_CODES`]).
        pub fn code;
    }
    codes {
        ErrorKind::Io(_) => "io": "a trace file cannot be opened or read",
        ErrorKind::GzipInvalid(_) => "gzip_invalid": "the input starts like gzip but is not a valid gzip stream",
        ErrorKind::GzipTruncated => "gzip_truncated": "the gzip stream ends early",
        ErrorKind::LimitExceeded { .. } => "limit_exceeded": "an encoded, decoded, depth or value-size limit was exceeded",
        ErrorKind::InvalidUtf8 => "invalid_utf8": "the trace is not UTF-8",
        ErrorKind::EmptyInput => "empty_input": "the trace is empty",
        ErrorKind::Truncated { .. } => "json_truncated": "the trace ends inside a JSON value",
        ErrorKind::Syntax(_) => "json_syntax": "the trace is not valid JSON",
        ErrorKind::UnescapedQuote => "unescaped_quote": "a string is followed by text: probably an unescaped quote",
        ErrorKind::NonFiniteNumber => "non_finite_number": "NaN or Infinity in the trace",
        ErrorKind::EventNotObject { .. } => "event_not_object": "a trace event is not an object",
        ErrorKind::TraceEventsNotArray { .. } => "trace_events_not_array": "`traceEvents` is not an array",
        ErrorKind::TopLevelNotContainer => "top_level_not_container": "the document is neither an object nor an array",
        ErrorKind::MissingTraceEvents => "missing_trace_events": "the top-level object has no `traceEvents`",
        ErrorKind::DuplicateKey { .. } => "duplicate_key": "an object of the trace has the same key twice",
        ErrorKind::WrongType { .. } => "wrong_type": "a trace field has the wrong JSON type",
        ErrorKind::TrailingData => "trailing_data": "data after the end of the trace document",
        ErrorKind::InvalidWrite(_) => "invalid_write": "the trace writer was misused",
        ErrorKind::Number(_) => "number_out_of_range": "a number does not fit where it is used",
    }
}
