//! A directory created for one run only and removed when dropped.

use std::path::{Path, PathBuf};

use crate::error::CliError;

/// A fresh directory under the system's temp dir, named
/// `opguard-<purpose>-<pid>-<n>`; nobody else's directory is ever reused
/// (creation fails if the name exists). Removed, with its contents, on drop.
#[derive(Debug)]
pub struct ScratchDir(PathBuf);

impl ScratchDir {
    /// Creates the directory; `purpose` names it (e.g. `inspect`).
    pub fn create(purpose: &str) -> Result<Self, CliError> {
        let base = std::env::temp_dir();
        let pid = std::process::id();
        for attempt in 0..100u32 {
            let dir = base.join(format!("opguard-{purpose}-{pid}-{attempt}"));
            if std::fs::create_dir(&dir).is_ok() {
                return Ok(ScratchDir(dir));
            }
        }
        Err(CliError::new(
            "io",
            format!("cannot create a scratch directory under {}", base.display()),
        ))
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
