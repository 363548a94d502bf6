//! Bounded reads: at most `limit` bytes; one more byte is an error, never a
//! silent truncation.

use std::io::Read;
use std::path::Path;

use crate::{Error, ErrorKind};

/// The limit a document type uses unless it documents its own: 256 MiB.
pub const DEFAULT_MAX_BYTES: u64 = 256 * 1024 * 1024;

/// Reads all of `reader`, refusing it once it is longer than `limit` bytes.
///
/// At most `limit + 1` bytes are read, so an endless reader stops.
pub fn read_bounded<R: Read>(reader: R, limit: u64) -> Result<Vec<u8>, Error> {
    let mut bytes = Vec::new();
    reader
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| Error::new(ErrorKind::Io(e)))?;
    check_len(bytes.len(), limit)?;
    Ok(bytes)
}

/// Opens and reads a file with [`read_bounded`].
pub fn read_path_bounded(path: &Path, limit: u64) -> Result<Vec<u8>, Error> {
    let file = std::fs::File::open(path).map_err(|e| Error::new(ErrorKind::Io(e)))?;
    read_bounded(file, limit)
}

/// Refuses a document already in memory that is longer than `limit` bytes.
pub(crate) fn check_len(len: usize, limit: u64) -> Result<(), Error> {
    if len as u64 > limit {
        return Err(Error::new(ErrorKind::LimitExceeded { limit }));
    }
    Ok(())
}
