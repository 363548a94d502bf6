//! The errors of writing a report.

use std::path::{Path, PathBuf};

/// What went wrong.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The output path exists already (a file, a directory or a link).
    #[error("the output exists already; a report never replaces a file")]
    OutputExists,
    /// The output's directory does not exist.
    #[error("the output's directory does not exist")]
    OutputDirMissing,
    /// Creating or writing the file failed.
    #[error("cannot write the report: {0}")]
    Io(std::io::Error),
}

/// An error of [`write_new`](crate::write_new), with the path it concerns.
///
/// Boxed like every opguard error, so a successful write carries one pointer.
#[derive(Debug, thiserror::Error)]
#[error("{}: {}", inner.path.display(), inner.kind)]
pub struct Error {
    inner: Box<ErrorImpl>,
}

#[derive(Debug)]
struct ErrorImpl {
    kind: ErrorKind,
    path: PathBuf,
}

impl Error {
    pub(crate) fn new(kind: ErrorKind, path: &Path) -> Error {
        Error {
            inner: Box::new(ErrorImpl {
                kind,
                path: path.to_path_buf(),
            }),
        }
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.inner.kind
    }

    /// The output path.
    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    /// The stable code: `output_exists`, `output_dir_missing` or `io`.
    pub fn code(&self) -> &'static str {
        self.inner.kind.code()
    }
}

opguard_document::error_codes! {
    /// Every code [`Error::code`] returns, with its one-line meaning (`opguard report`
    /// prints them; the C ABI does not draw reports).
    pub const ERROR_CODES;
    impl ErrorKind {
        /// The stable code of this kind of error (see [`ERROR_CODES`]).
        pub fn code;
    }
    codes {
        ErrorKind::OutputExists => "output_exists": "the output path exists; outputs are never overwritten",
        ErrorKind::OutputDirMissing => "output_dir_missing": "the output's directory does not exist",
        ErrorKind::Io(_) => "io": "reading an input or writing the report failed",
    }
}
