//! Reader stage, first step: what a capture is, from its content.
//!
//! The first bytes decide, never the file name: an SQLite database starts
//! with `SQLite format 3\0`, Nsight Systems' binary report with its product
//! name, gzip with `1f 8b`. An SQLite database is then told apart by its
//! tables: one with an Nsight Systems export's metadata table is an export
//! (feature `nsys`). Anything not recognised goes to the Chrome JSON
//! reader, whose error then says what the bytes are not.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use crate::error::{Error, ErrorKind};

/// How many leading bytes detection reads.
const PROBE_BYTES: usize = 64;

/// The SQLite file header (the first 16 bytes of every database).
const SQLITE_HEADER: &[u8] = b"SQLite format 3\0";

/// How Nsight Systems' binary report (`.nsys-rep`, `.qdrep`) begins: its
/// product name, as the 2026.1 report in the shared data shows.
const NSIGHT_REPORT_MAGIC: &[u8] = b"NVIDIA Tegra Profiler Report";

/// What a capture is, by content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Detected {
    /// Chrome Trace Event Format JSON, plain or gzip, and anything not
    /// recognised as another format.
    ChromeJson,
    /// An Nsight Systems SQLite export (`nsys export --type sqlite`): an
    /// SQLite database with the export's metadata table (`META_DATA_EXPORT`
    /// or `EXPORT_META_DATA`). Only builds with the `nsys` feature probe the
    /// tables; others say [`Detected::Sqlite`].
    NsysSqlite,
    /// Any other SQLite database (a rocpd database among them: the rocprofv3
    /// reader probes its tables when it reads), or any database in a build
    /// without a reader of SQLite captures.
    Sqlite,
    /// Nsight Systems' binary report, which must be exported first.
    NsightReport,
    /// A rocprofv3 CSV capture: a directory holding a `*_kernel_trace.csv`,
    /// or a file whose first line is a rocprofv3 CSV header.
    RocprofCsv,
    /// A rocprofv3 JSON document (plain or gzip): an object whose first key
    /// is `rocprofiler-sdk-tool`.
    RocprofJson,
}

/// Detects what the capture at `path` is from its first bytes.
///
/// ```
/// use opguard_formats::{detect, Detected};
///
/// let dir = tempfile::tempdir()?;
/// let json = dir.path().join("run.db"); // the name says nothing
/// std::fs::write(&json, br#"{"traceEvents":[]}"#)?;
/// assert_eq!(detect(&json)?, Detected::ChromeJson);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn detect(path: impl AsRef<Path>) -> Result<Detected, Error> {
    let path = path.as_ref();
    // A rocprofv3 CSV capture may be the directory of its files.
    #[cfg(feature = "rocprof")]
    if path.is_dir() && opguard_rocprof::detect(path).is_some() {
        return Ok(Detected::RocprofCsv);
    }
    let mut prefix = Vec::with_capacity(PROBE_BYTES);
    File::open(path)
        .and_then(|f| f.take(PROBE_BYTES as u64).read_to_end(&mut prefix))
        .map_err(|e| Error::new(ErrorKind::Io(e)).in_file(path))?;
    let detected = match detect_bytes(&prefix) {
        Detected::Sqlite => detect_database(path)?,
        other => other,
    };
    // rocprofv3's CSV header and JSON key need more than the prefix (and
    // gzip inflated): its reader looks.
    #[cfg(feature = "rocprof")]
    if detected == Detected::ChromeJson {
        match opguard_rocprof::detect(path) {
            Some(opguard_rocprof::CaptureFormat::Csv) => return Ok(Detected::RocprofCsv),
            Some(opguard_rocprof::CaptureFormat::Json) => return Ok(Detected::RocprofJson),
            _ => {}
        }
    }
    Ok(detected)
}

/// Which capture an SQLite database is, by its tables. An Nsight Systems
/// export is told by its metadata table; any other database stays
/// [`Detected::Sqlite`], where the rocpd reader (feature `rocprof`) looks
/// for its `rocpd_*` tables. A database whose tables cannot be listed
/// (corrupt, truncated) is the export reader's error.
fn detect_database(path: &Path) -> Result<Detected, Error> {
    #[cfg(feature = "nsys")]
    if opguard_nsys::is_export(path).map_err(|e| Error::from(e).in_file(path))? {
        return Ok(Detected::NsysSqlite);
    }
    let _ = path;
    Ok(Detected::Sqlite)
}

/// [`detect`] on a capture's first bytes (at least 64 of them when the
/// capture has that many). The bytes cannot tell which SQLite capture a
/// database is: every database is [`Detected::Sqlite`] here.
pub fn detect_bytes(prefix: &[u8]) -> Detected {
    if prefix.starts_with(SQLITE_HEADER) {
        Detected::Sqlite
    } else if prefix.starts_with(NSIGHT_REPORT_MAGIC) {
        Detected::NsightReport
    } else {
        Detected::ChromeJson
    }
}
