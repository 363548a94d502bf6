//! Reader: the captures a command's arguments name — each file as given,
//! and the captures directly inside each directory, recognised by content,
//! with every other file of those directories and why it is not read.
//! `opguard job` reads each capture as a rank, `opguard compare` as a run.

use std::path::{Path, PathBuf};

use crate::detect::Detected;

/// What arguments name: captures, and the files their directories hold
/// that are not read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Captures {
    /// Every argument that is not a directory, and the captures directly
    /// inside each directory, recognised by content (Chrome JSON plain or
    /// gzip, an XSpace, an Nsight Systems export, a rocprofv3 JSON
    /// document, rocpd database or the kernel trace of its CSV capture),
    /// sorted by name within a directory.
    pub captures: Vec<PathBuf>,
    /// The other regular files directly inside the directories, with why
    /// each is not read. Hidden files are neither.
    pub skipped: Vec<SkippedFile>,
}

/// A directory that could not be listed.
#[derive(Debug)]
pub struct ListError {
    /// The directory.
    pub directory: PathBuf,
    /// Why.
    pub source: std::io::Error,
}

impl std::fmt::Display for ListError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "cannot list {}: {}",
            self.directory.display(),
            self.source
        )
    }
}

impl std::error::Error for ListError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

impl ListError {
    fn new(directory: &Path, source: std::io::Error) -> ListError {
        ListError {
            directory: directory.to_owned(),
            source,
        }
    }
}

/// A file of a directory that is not read as a capture.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SkippedFile {
    /// The file.
    pub path: PathBuf,
    /// Why it is not read.
    pub reason: SkipReason,
}

/// Why a file of a directory is not read.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SkipReason {
    /// Its content is no capture opguard reads (a log, a program, another
    /// SQLite database, ...).
    NotACapture,
    /// JSON whose top level is an object without `traceEvents` (a seam
    /// request, a job document, a census capture beside the traces).
    NotATrace,
    /// Nsight Systems' binary report (`.nsys-rep`), which opguard does not
    /// read: its SQLite export is the capture.
    NsightReport,
    /// A file of a rocprofv3 CSV capture other than its kernel trace: the
    /// capture is read once, from its kernel trace, with this file.
    PartOfCsvCapture,
    /// A JSON view JAX wrote of the run whose XSpace is beside it
    /// (`<host>.trace.json.gz` of `<host>.xplane.pb`, and the run's
    /// `perfetto_trace.json.gz`): read too, the run would count
    /// twice; the XSpace holds more (launch correlation).
    ViewOfXspace(PathBuf),
}

impl SkipReason {
    /// What to tell the user.
    pub fn describe(&self) -> String {
        match self {
            SkipReason::NotACapture => "not a capture opguard reads (by content: Chrome JSON, \
                 plain or gzip, an XSpace .xplane.pb, an Nsight Systems SQLite export, \
                 rocprofv3 output), so not read; name it on the command line to read it"
                .to_owned(),
            SkipReason::NotATrace => "a JSON object without traceEvents (a seam request, a job \
                 document, ...), not a trace, so not read; name it on the command line to \
                 read it"
                .to_owned(),
            SkipReason::NsightReport => "an Nsight Systems report (.nsys-rep), which opguard \
                 does not read: its SQLite export (nsys export --type sqlite) is the capture"
                .to_owned(),
            SkipReason::PartOfCsvCapture => "a file of a rocprofv3 CSV capture, read with its \
                 *_kernel_trace.csv (the capture), not on its own"
                .to_owned(),
            SkipReason::ViewOfXspace(xspace) => format!(
                "a JSON view JAX wrote of the run whose XSpace {} is beside it: the XSpace is \
                 read (it holds more: launch correlation), not both",
                xspace.display()
            ),
        }
    }
}

/// The captures `args` name ([`Captures`]): an argument that is not a
/// directory is a capture even when it cannot be opened or is not one
/// (naming a file is asking for it: reading it says what is wrong); the
/// files directly inside a directory are recognised by content
/// ([`recognize`](crate::recognize)), a file that cannot be opened counting
/// as a capture so its error is reported. A directory that cannot be
/// listed is an error.
pub fn captures_in(args: &[PathBuf]) -> Result<Captures, ListError> {
    let mut out = Captures::default();
    for arg in args {
        if !std::fs::metadata(arg).is_ok_and(|m| m.is_dir()) {
            out.captures.push(arg.clone());
            continue;
        }
        let mut files: Vec<PathBuf> = Vec::new();
        for entry in std::fs::read_dir(arg).map_err(|e| ListError::new(arg, e))? {
            let entry = entry.map_err(|e| ListError::new(arg, e))?;
            let path = entry.path();
            let hidden = entry.file_name().to_string_lossy().starts_with('.');
            if !hidden && is_file(&path) {
                files.push(path);
            }
        }
        files.sort();
        let mut captures = Vec::new();
        for path in files {
            let skip = match crate::recognize(&path) {
                Ok(None | Some(Detected::Sqlite)) => Some(SkipReason::NotACapture),
                Ok(Some(Detected::NsightReport)) => Some(SkipReason::NsightReport),
                Ok(Some(Detected::RocprofCsv)) if !is_kernel_trace_csv(&path) => {
                    Some(SkipReason::PartOfCsvCapture)
                }
                Ok(Some(Detected::ChromeJson)) if is_other_document(&path) => {
                    Some(SkipReason::NotATrace)
                }
                Ok(Some(format)) => {
                    captures.push((path.clone(), Some(format)));
                    None
                }
                Err(_) => {
                    captures.push((path.clone(), None));
                    None
                }
            };
            if let Some(reason) = skip {
                out.skipped.push(SkippedFile { path, reason });
            }
        }
        for (path, format) in &captures {
            match xspace_viewed(path, *format, &captures) {
                Some(xspace) => out.skipped.push(SkippedFile {
                    path: path.clone(),
                    reason: SkipReason::ViewOfXspace(xspace),
                }),
                None => out.captures.push(path.clone()),
            }
        }
    }
    Ok(out)
}

/// Whether a file is a rocprofv3 CSV capture's kernel trace, the file its
/// capture is read from.
fn is_kernel_trace_csv(path: &Path) -> bool {
    path.file_name()
        .is_some_and(|n| n.to_string_lossy().ends_with("kernel_trace.csv"))
}

/// Whether a JSON capture holds another JSON document: its top level is an
/// object without `traceEvents`. Read up to the first event only; a file
/// that fails otherwise (cut, corrupt) is still a rank, whose summary
/// carries the error.
fn is_other_document(path: &Path) -> bool {
    let first = opguard_trace::TraceReader::open(path).and_then(|mut r| r.next_event().map(drop));
    matches!(first, Err(e) if matches!(e.kind(), opguard_trace::ErrorKind::MissingTraceEvents))
}

/// The XSpace a JSON capture of a directory is JAX's view of, if any:
/// `<host>.xplane.pb` for `<host>.trace.json.gz` (or `.trace.json`), and the
/// directory's only XSpace for `perfetto_trace.json.gz` (JAX writes one run
/// per directory).
fn xspace_viewed(
    path: &Path,
    format: Option<Detected>,
    captures: &[(PathBuf, Option<Detected>)],
) -> Option<PathBuf> {
    if format != Some(Detected::ChromeJson) {
        return None;
    }
    let xspaces: Vec<&PathBuf> = captures
        .iter()
        .filter(|(_, f)| *f == Some(Detected::Xspace))
        .map(|(p, _)| p)
        .collect();
    let name = path.file_name()?.to_string_lossy();
    if name == "perfetto_trace.json.gz" || name == "perfetto_trace.json" {
        return match xspaces.as_slice() {
            [only] => Some((*only).clone()),
            _ => None,
        };
    }
    let host = name
        .strip_suffix(".trace.json.gz")
        .or_else(|| name.strip_suffix(".trace.json"))?;
    let sibling = path.with_file_name(format!("{host}.xplane.pb"));
    xspaces.into_iter().find(|p| **p == sibling).cloned()
}

fn is_file(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file())
}
