//! The report file is created exclusively, after everything was computed
//! and rendered: a failed run leaves nothing behind, and an existing file
//! (or a symbolic link, even a dangling one) is never replaced.

use std::fs::OpenOptions;
use std::io::{self, Write};
use std::path::Path;

use crate::error::{Error, ErrorKind};

/// Writes `html` to `path`, which must not exist.
pub fn write_new(path: impl AsRef<Path>, html: &str) -> Result<(), Error> {
    let path = path.as_ref();
    let mut file = match OpenOptions::new().write(true).create_new(true).open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            return Err(Error::new(ErrorKind::OutputExists, path))
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(Error::new(ErrorKind::OutputDirMissing, path))
        }
        Err(e) => return Err(Error::new(ErrorKind::Io(e), path)),
    };
    if let Err(e) = file
        .write_all(html.as_bytes())
        .and_then(|()| file.sync_all())
    {
        drop(file);
        // Created by this call a moment ago: removing it cannot take
        // anybody else's file.
        let _ = std::fs::remove_file(path);
        return Err(Error::new(ErrorKind::Io(e), path));
    }
    Ok(())
}
