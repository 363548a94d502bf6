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
#[derive(Debug, thiserror::Error)]
#[error("{}: {kind}", path.display())]
pub struct Error {
    kind: ErrorKind,
    path: PathBuf,
}

impl Error {
    pub(crate) fn new(kind: ErrorKind, path: &Path) -> Error {
        Error {
            kind,
            path: path.to_path_buf(),
        }
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }

    /// The output path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The stable code: `output_exists`, `output_dir_missing` or `io`.
    pub fn code(&self) -> &'static str {
        match self.kind {
            ErrorKind::OutputExists => "output_exists",
            ErrorKind::OutputDirMissing => "output_dir_missing",
            ErrorKind::Io(_) => "io",
        }
    }
}
