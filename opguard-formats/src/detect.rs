//! Reader stage, first step: what a capture is, from its content.
//!
//! The first bytes decide, never the file name: an SQLite database starts
//! with `SQLite format 3\0`, Nsight Systems' binary report with its product
//! name, gzip with `1f 8b`, an XSpace with a protobuf key of its own whose
//! fields fit XSpace's schema (`opguard_xplane::probe`, feature `xplane`).
//! An SQLite database is then told apart by its tables: one with an Nsight
//! Systems export's metadata table is an export (feature `nsys`); rocprofv3's
//! CSV header and JSON key are looked for in what would otherwise go to the
//! Chrome JSON reader (feature `rocprof`). Anything not recognised goes to
//! the Chrome JSON reader, whose error then says what the bytes are not.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use crate::error::{Error, ErrorKind};

/// How many leading bytes detection reads: enough for an XSpace's first
/// plane header.
const PROBE_BYTES: usize = 4096;

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
    /// Any other SQLite database, or any database in a build without a
    /// reader of SQLite captures.
    Sqlite,
    /// Nsight Systems' binary report, which must be exported first.
    NsightReport,
    /// A rocprofv3 CSV capture: a directory holding a `*_kernel_trace.csv`,
    /// or a file whose first line is a rocprofv3 CSV header.
    RocprofCsv,
    /// A rocprofv3 JSON document (plain or gzip): an object whose first key
    /// is `rocprofiler-sdk-tool`.
    RocprofJson,
    /// A rocprofv3 rocpd database: an SQLite database with rocpd's tables.
    /// Only builds with the `rocprof` feature probe the tables; others say
    /// [`Detected::Sqlite`].
    RocpdSqlite,
    /// An XLA profiler XSpace protobuf (`*.xplane.pb`, JAX and
    /// TensorFlow), or binary bytes that start with an XSpace field's key
    /// (the XSpace reader then says what they are not: another protobuf, a
    /// corrupt one). Only builds with the `xplane` feature probe for it.
    Xspace,
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
    let (prefix, len) = read_prefix(path)?;
    let detected = match detect_prefix(&prefix, len) {
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

/// What the capture at `path` is when its content says so, `None` when
/// nothing recognises it: where [`detect`] hands anything to the Chrome
/// JSON reader, this counts as JSON only what starts like JSON (`{` or `[`
/// after whitespace) or is gzip, and as an XSpace only what its probe
/// accepts (a protobuf of another type is not one). For picking captures
/// out of a directory that holds other files too (a run's logs, its
/// program).
///
/// ```
/// use opguard_formats::{recognize, Detected};
///
/// let dir = tempfile::tempdir()?;
/// let log = dir.path().join("train.json"); // the name says nothing
/// std::fs::write(&log, "step 1 loss 2.3\n")?;
/// assert_eq!(recognize(&log)?, None);
/// let trace = dir.path().join("rank0");
/// std::fs::write(&trace, "\n [{\"ph\":\"X\"}]")?;
/// assert_eq!(recognize(&trace)?, Some(Detected::ChromeJson));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn recognize(path: impl AsRef<Path>) -> Result<Option<Detected>, Error> {
    let path = path.as_ref();
    let detected = detect(path)?;
    let prefix = || read_prefix(path).map(|(prefix, _)| prefix);
    Ok(match detected {
        Detected::ChromeJson => starts_like_json(&prefix()?).then_some(Detected::ChromeJson),
        // Whatever the file's length: a cut XSpace (its first plane longer
        // than the file) is a capture whose reader says where it was cut.
        Detected::Xspace => is_xspace(&prefix()?, u64::MAX).then_some(Detected::Xspace),
        other => Some(other),
    })
}

fn read_prefix(path: &Path) -> Result<(Vec<u8>, u64), Error> {
    let io = |e| Error::new(ErrorKind::Io(e)).in_file(path);
    let file = File::open(path).map_err(io)?;
    let len = file.metadata().map_err(io)?.len();
    let mut prefix = Vec::with_capacity(PROBE_BYTES);
    file.take(PROBE_BYTES as u64)
        .read_to_end(&mut prefix)
        .map_err(io)?;
    Ok((prefix, len))
}

/// Whether the bytes start like a Chrome trace: gzip, or `{` or `[` after
/// whitespace (and a UTF-8 byte order mark).
fn starts_like_json(prefix: &[u8]) -> bool {
    let text = prefix.strip_prefix(b"\xef\xbb\xbf").unwrap_or(prefix);
    let first = text.iter().find(|b| !b.is_ascii_whitespace());
    prefix.starts_with(&[0x1f, 0x8b]) || matches!(first, Some(b'{' | b'['))
}

/// Which capture an SQLite database is, by its tables: an Nsight Systems
/// export by its metadata table (feature `nsys`), a rocpd database by its
/// `rocpd_*` tables (feature `rocprof`); any other database stays
/// [`Detected::Sqlite`]. A database whose tables cannot be listed (corrupt,
/// truncated) is the export reader's error.
fn detect_database(path: &Path) -> Result<Detected, Error> {
    #[cfg(feature = "nsys")]
    if opguard_nsys::is_export(path).map_err(|e| Error::from(e).in_file(path))? {
        return Ok(Detected::NsysSqlite);
    }
    #[cfg(feature = "rocprof")]
    if opguard_rocprof::detect(path) == Some(opguard_rocprof::CaptureFormat::Rocpd) {
        return Ok(Detected::RocpdSqlite);
    }
    let _ = path;
    Ok(Detected::Sqlite)
}

/// [`detect`] on a capture's first bytes (at least 4096 of them when the
/// capture has that many; an XSpace whose first plane claims more bytes
/// than the prefix is taken to go on past it). The bytes cannot tell which
/// SQLite capture a database is, nor find rocprofv3's CSV header or JSON
/// key: every database is [`Detected::Sqlite`] here, rocprofv3's text
/// [`Detected::ChromeJson`].
pub fn detect_bytes(prefix: &[u8]) -> Detected {
    detect_prefix(prefix, u64::MAX)
}

fn detect_prefix(prefix: &[u8], file_len: u64) -> Detected {
    if prefix.starts_with(SQLITE_HEADER) {
        Detected::Sqlite
    } else if prefix.starts_with(NSIGHT_REPORT_MAGIC) {
        Detected::NsightReport
    } else if is_xspace(prefix, file_len) || starts_like_xspace(prefix) {
        Detected::Xspace
    } else {
        Detected::ChromeJson
    }
}

/// Whether the bytes probe as an XSpace (`opguard_xplane::probe`).
#[cfg(feature = "xplane")]
fn is_xspace(prefix: &[u8], file_len: u64) -> bool {
    opguard_xplane::probe(prefix, file_len).is_ok()
}

/// Binary bytes that start with an XSpace key go to the XSpace reader even
/// when the probe refuses them: its error says which protobuf they are not
/// (`not_xspace` at a byte), where the JSON reader's would say they are
/// not JSON.
#[cfg(feature = "xplane")]
fn starts_like_xspace(prefix: &[u8]) -> bool {
    opguard_xplane::starts_like_xspace(prefix)
}

#[cfg(not(feature = "xplane"))]
fn is_xspace(_: &[u8], _: u64) -> bool {
    false
}

#[cfg(not(feature = "xplane"))]
fn starts_like_xspace(_: &[u8]) -> bool {
    false
}
