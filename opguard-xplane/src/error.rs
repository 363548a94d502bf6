//! The one error type of this crate.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// A failure to read an XSpace: what, at which byte of the file, in which
/// message (`planes[2].lines[0].events[7]`) and which file.
///
/// Boxed so the reading path stays small; every error has a stable
/// [`code`](Error::code).
pub struct Error {
    inner: Box<ErrorImpl>,
}

struct ErrorImpl {
    kind: ErrorKind,
    offset: Option<u64>,
    message: Option<String>,
    file: Option<PathBuf>,
}

/// Which configured limit was exceeded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Limit {
    /// The file's size, checked before it is opened.
    EncodedBytes,
    /// Bytes decoded: the file's, plus those inflated from gzip-compressed
    /// string stats (`XStat.compressed_str_value`).
    DecodedBytes,
}

impl Limit {
    fn describe(self) -> &'static str {
        match self {
            Limit::EncodedBytes => "encoded bytes",
            Limit::DecodedBytes => "decoded bytes",
        }
    }
}

/// What went wrong.
#[derive(Debug)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The file cannot be opened or read.
    Io(io::Error),
    /// A configured limit was exceeded; nothing past it was read.
    LimitExceeded {
        /// Which limit.
        which: Limit,
        /// Its configured value.
        limit: u64,
    },
    /// The file is empty: an empty protobuf is a valid, empty XSpace, but
    /// not a profile anyone wrote.
    EmptyInput,
    /// The first bytes are not a protobuf field an XSpace can start with
    /// (text, JSON, gzip, SQLite ... are refused here).
    NotProtobuf {
        /// What the first bytes are.
        found: String,
    },
    /// The bytes are protobuf, but not an XSpace: a field has a number or
    /// wire type the XSpace schema does not give it.
    NotXSpace {
        /// Which field, and what it holds instead.
        reason: String,
    },
    /// The file ends inside a message: it was cut.
    Truncated {
        /// Bytes the message needs from its key on.
        needed: u64,
        /// Bytes the file has left from there.
        available: u64,
    },
    /// The protobuf wire format is broken inside the file.
    Corrupt {
        /// What is broken.
        reason: String,
    },
    /// A `string` field that is not UTF-8.
    InvalidUtf8 {
        /// The field, e.g. `XPlane.name`.
        field: &'static str,
    },
    /// A time or duration that does not fit signed 64-bit nanoseconds.
    TimeOutOfRange,
    /// A gzip-compressed string stat does not inflate to UTF-8 text.
    CompressedStat {
        /// Why.
        reason: String,
    },
}

impl Error {
    pub(crate) fn new(kind: ErrorKind) -> Self {
        Error {
            inner: Box::new(ErrorImpl {
                kind,
                offset: None,
                message: None,
                file: None,
            }),
        }
    }

    pub(crate) fn at(mut self, offset: usize) -> Self {
        self.inner.offset = Some(offset as u64);
        self
    }

    pub(crate) fn in_message(mut self, message: String) -> Self {
        self.inner.message = Some(message);
        self
    }

    pub(crate) fn in_file(mut self, file: &Path) -> Self {
        self.inner.file = Some(file.to_path_buf());
        self
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.inner.kind
    }

    /// Byte offset into the file where the faulty field's key starts.
    pub fn offset(&self) -> Option<u64> {
        self.inner.offset
    }

    /// The message being read, e.g. `planes[2].lines[0].events[7]`.
    pub fn message_path(&self) -> Option<&str> {
        self.inner.message.as_deref()
    }

    /// The file, when the error came from reading one.
    pub fn file(&self) -> Option<&Path> {
        self.inner.file.as_deref()
    }

    /// A stable, machine-readable code for the kind of error.
    pub fn code(&self) -> &'static str {
        self.inner.kind.code()
    }

    /// The message without position.
    pub fn message(&self) -> String {
        match &self.inner.kind {
            ErrorKind::Io(e) => format!("I/O error: {e}"),
            ErrorKind::LimitExceeded { which, limit } => {
                format!("limit of {limit} {} exceeded", which.describe())
            }
            ErrorKind::EmptyInput => "empty file: an XSpace profile has planes".into(),
            ErrorKind::NotProtobuf { found } => {
                format!("not an XSpace protobuf (.xplane.pb): the file starts with {found}")
            }
            ErrorKind::NotXSpace { reason } => {
                format!("a protobuf, but not an XSpace (.xplane.pb): {reason}")
            }
            ErrorKind::Truncated { needed, available } => format!(
                "the file ends inside a message that needs {needed} bytes where {available} \
                 are left: the file was cut (or a length in it is corrupt)"
            ),
            ErrorKind::Corrupt { reason } => format!("corrupt protobuf: {reason}"),
            ErrorKind::InvalidUtf8 { field } => format!("{field} is not UTF-8"),
            ErrorKind::TimeOutOfRange => {
                "an event's time does not fit signed 64-bit nanoseconds".into()
            }
            ErrorKind::CompressedStat { reason } => {
                format!("a compressed string stat does not inflate: {reason}")
            }
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message())?;
        if let Some(o) = self.inner.offset {
            write!(f, " at byte {o}")?;
        }
        if let Some(m) = &self.inner.message {
            write!(f, " ({m})")?;
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
            .field("message", &self.inner.message)
            .field("file", &self.inner.file)
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

opguard_document::error_codes! {
    /// Every code [`Error::code`] returns, with its one-line meaning.
    pub const ERROR_CODES;
    impl ErrorKind {
        /// The stable code of this kind of error (see [`ERROR_CODES`]).
        pub fn code;
    }
    codes {
        ErrorKind::Io(_) => "io": "an XSpace file cannot be opened or read",
        ErrorKind::LimitExceeded { .. } => "limit_exceeded": "an encoded or decoded byte limit was exceeded",
        ErrorKind::EmptyInput => "empty_input": "the file is empty",
        ErrorKind::NotProtobuf { .. } => "not_protobuf": "the file does not start like an XSpace protobuf",
        ErrorKind::NotXSpace { .. } => "not_xspace": "a protobuf of another message type, not an XSpace",
        ErrorKind::Truncated { .. } => "protobuf_truncated": "the file ends inside a message: it was cut",
        ErrorKind::Corrupt { .. } => "protobuf_corrupt": "the protobuf wire format is broken",
        ErrorKind::InvalidUtf8 { .. } => "invalid_utf8": "a string field is not UTF-8",
        ErrorKind::TimeOutOfRange => "number_out_of_range": "an event time does not fit 64-bit nanoseconds",
        ErrorKind::CompressedStat { .. } => "compressed_stat_invalid": "a gzip-compressed string stat does not inflate to text",
    }
}
