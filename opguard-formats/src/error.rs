//! The one error type of this crate: a reader's own error passes through
//! with its code and position; the door adds only what it decides itself
//! (an unreadable file, a format it cannot read) and which file it was.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// A capture that could not be read: what went wrong, in which file.
///
/// [`Error::code`] is the reader's own code when a reader failed
/// (`json_truncated`, `limit_exceeded`...), so one fault has one code
/// whichever door it came through.
pub struct Error {
    inner: Box<ErrorImpl>,
}

struct ErrorImpl {
    kind: ErrorKind,
    file: Option<PathBuf>,
}

/// What went wrong.
#[derive(Debug)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The Chrome JSON reader's error, with its position.
    Json(opguard_trace::Error),
    /// The rocprofv3 reader's error (CSV, JSON or rocpd), with the file of
    /// the capture it is in and its position.
    #[cfg(feature = "rocprof")]
    Rocprof(opguard_rocprof::Error),
    /// The Nsight Systems export reader's error, with its table, row and
    /// column.
    #[cfg(feature = "nsys")]
    Nsys(opguard_nsys::Error),
    /// The XSpace reader's error, with its byte offset and message path
    /// (`planes[2].lines[0].events[7]`).
    #[cfg(feature = "xplane")]
    Xplane(opguard_xplane::Error),
    /// The capture cannot be opened or read.
    Io(io::Error),
    /// Nsight Systems' binary report: it must be exported to SQLite first.
    NsightReport,
    /// An SQLite database that no reader of this build reads.
    UnsupportedDatabase {
        /// What the door knows about it.
        detail: String,
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
        ErrorKind::Json(e) => e.code(),
        #[cfg(feature = "rocprof")]
        ErrorKind::Rocprof(e) => e.code(),
        #[cfg(feature = "nsys")]
        ErrorKind::Nsys(e) => e.code(),
        #[cfg(feature = "xplane")]
        ErrorKind::Xplane(e) => e.code(),
    }
    codes {
        ErrorKind::Io(_) => "io": "a capture cannot be opened or read",
        ErrorKind::NsightReport => "nsight_report": "an Nsight Systems binary report, which must be exported to SQLite first",
        ErrorKind::UnsupportedDatabase { .. } => "unsupported_database": "an SQLite database that is not a capture this build reads",
    }
}

impl Error {
    pub(crate) fn new(kind: ErrorKind) -> Self {
        Error {
            inner: Box::new(ErrorImpl { kind, file: None }),
        }
    }

    pub(crate) fn in_file(mut self, file: &Path) -> Self {
        self.inner.file = Some(file.to_path_buf());
        self
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.inner.kind
    }

    /// The stable code (a reader's own code for a reader's error).
    pub fn code(&self) -> &'static str {
        self.inner.kind.code()
    }

    /// The capture the error is about.
    pub fn file(&self) -> Option<&Path> {
        self.inner.file.as_deref()
    }

    /// The message without the file: a reader's error keeps its position.
    pub fn message(&self) -> String {
        match &self.inner.kind {
            ErrorKind::Json(e) => e.to_string(),
            // A CSV capture is several files: name the one at fault when it
            // is not the one the front end names.
            #[cfg(feature = "rocprof")]
            ErrorKind::Rocprof(e) => match e.file() {
                Some(f) if Some(f) != self.inner.file.as_deref() => e.to_string(),
                _ => e.located_message(),
            },
            #[cfg(feature = "nsys")]
            ErrorKind::Nsys(e) => e.to_string(),
            #[cfg(feature = "xplane")]
            ErrorKind::Xplane(e) => e.to_string(),
            ErrorKind::Io(e) => format!("I/O error: {e}"),
            ErrorKind::NsightReport => "this is an Nsight Systems report (.nsys-rep/.qdrep), \
                 the binary file nsys writes; export it to SQLite first: \
                 nsys export --type sqlite --output report.sqlite report.nsys-rep"
                .into(),
            ErrorKind::UnsupportedDatabase { detail } => detail.clone(),
        }
    }
}

#[cfg(feature = "rocprof")]
impl From<opguard_rocprof::Error> for Error {
    fn from(e: opguard_rocprof::Error) -> Self {
        Error::new(ErrorKind::Rocprof(e))
    }
}

impl From<opguard_trace::Error> for Error {
    fn from(e: opguard_trace::Error) -> Self {
        Error::new(ErrorKind::Json(e))
    }
}

#[cfg(feature = "xplane")]
impl From<opguard_xplane::Error> for Error {
    fn from(e: opguard_xplane::Error) -> Self {
        Error::new(ErrorKind::Xplane(e))
    }
}

#[cfg(feature = "nsys")]
impl From<opguard_nsys::Error> for Error {
    fn from(e: opguard_nsys::Error) -> Self {
        Error::new(ErrorKind::Nsys(e))
    }
}

/// The message with its position, without the file: front ends say which
/// file once, where they print it ([`Error::file`]).
impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message())
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Error")
            .field("code", &self.code())
            .field("kind", &self.inner.kind)
            .field("file", &self.inner.file)
            .finish()
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.inner.kind {
            ErrorKind::Json(e) => Some(e),
            #[cfg(feature = "rocprof")]
            ErrorKind::Rocprof(e) => Some(e),
            #[cfg(feature = "nsys")]
            ErrorKind::Nsys(e) => Some(e),
            #[cfg(feature = "xplane")]
            ErrorKind::Xplane(e) => Some(e),
            ErrorKind::Io(e) => Some(e),
            _ => None,
        }
    }
}
