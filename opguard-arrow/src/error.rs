//! The crate's one error type: a reader's error passes through with its
//! code and position; the writers add what they decide themselves.

use std::fmt;
use std::io;
use std::path::PathBuf;

/// Tables that could not be read or written.
#[derive(Debug)]
pub struct Error {
    inner: Box<ErrorKind>,
}

/// What went wrong.
#[derive(Debug)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The capture could not be read (its reader's code and position).
    Read(opguard_formats::Error),
    /// A table name that is none of [`crate::Table::names`].
    UnknownTable {
        /// The name given.
        name: String,
    },
    /// An output file that already exists: outputs are created
    /// exclusively, never overwritten.
    OutputExists {
        /// The file.
        path: PathBuf,
    },
    /// An output cannot be created or written.
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// Arrow IPC or Parquet refused a batch (a bug of this crate, or an
    /// I/O failure inside the writer).
    Write {
        /// The file.
        path: PathBuf,
        /// The writer's message.
        message: String,
    },
}

opguard_document::error_codes! {
    /// This crate's own error codes and what each means (a reader's error
    /// keeps the reader's code).
    pub const ERROR_CODES;
    impl ErrorKind {
        /// The stable code of this error.
        pub fn code;
    }
    passthrough {
        ErrorKind::Read(e) => e.code(),
    }
    codes {
        ErrorKind::UnknownTable { .. } => "unknown_table": "a table name that is not device, host, launches or metadata",
        ErrorKind::OutputExists { .. } => "output_exists": "an output file already exists (outputs are never overwritten)",
        ErrorKind::Io { .. } => "io": "an output cannot be created or written",
        ErrorKind::Write { .. } => "write_failed": "the Arrow IPC or Parquet writer refused a batch",
    }
}

impl Error {
    pub(crate) fn new(kind: ErrorKind) -> Self {
        Error {
            inner: Box::new(kind),
        }
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.inner
    }

    /// The stable code ([`ERROR_CODES`], or the reader's).
    pub fn code(&self) -> &'static str {
        self.inner.code()
    }
}

impl From<opguard_formats::Error> for Error {
    fn from(e: opguard_formats::Error) -> Self {
        Error::new(ErrorKind::Read(e))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &*self.inner {
            ErrorKind::Read(e) => write!(f, "{e}"),
            ErrorKind::UnknownTable { name } => write!(
                f,
                "no table named {name:?} (tables: {})",
                crate::Table::names()
            ),
            ErrorKind::OutputExists { path } => {
                write!(
                    f,
                    "{}: already exists (outputs are never overwritten)",
                    path.display()
                )
            }
            ErrorKind::Io { path, source } => write!(f, "{}: {source}", path.display()),
            ErrorKind::Write { path, message } => write!(f, "{}: {message}", path.display()),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &*self.inner {
            ErrorKind::Read(e) => Some(e),
            ErrorKind::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}
