//! Running the map step over many ranks, on the calling thread or on a
//! given number of worker threads.
//!
//! Each worker reads one trace at a time and keeps only its summary, so
//! peak memory grows with the number of workers, never with the number of
//! ranks. The result does not depend on the worker count: the merge puts
//! ranks and frames in one canonical order.

use std::cmp::Reverse;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use opguard_model::ModelStorage;

use crate::error::Error;
use crate::merge::Job;
use crate::summary::{summarize_reusing, RankSummary, SummaryOptions};

/// Summarises every trace in `paths` on `workers` threads and merges them.
///
/// With `workers <= 1` (or one path) everything runs on the calling thread
/// and no thread is started; otherwise the workers take the largest files
/// first, so a big rank does not finish alone at the end. `on_rank(done, summary)` is called once per
/// finished rank, from the thread that read it, with the number of ranks
/// finished so far.
///
/// An unreadable rank is not an error (its summary carries it). The merge's
/// [`ErrorKind::FrameConflict`](crate::ErrorKind::FrameConflict) cannot happen here: every summary is made by
/// [`summarize`](crate::summarize), whose frame ids are derived from the
/// fields the merge compares.
pub fn run_job(
    paths: &[PathBuf],
    workers: usize,
    options: &SummaryOptions,
    on_rank: &(dyn Fn(usize, &RankSummary) + Sync),
) -> Result<Job, Error> {
    let workers = workers.clamp(1, paths.len().max(1));
    let done = AtomicUsize::new(0);
    let finish = |summary: RankSummary| {
        on_rank(done.fetch_add(1, Ordering::Relaxed) + 1, &summary);
        summary
    };
    // Each worker reads its ranks into one set of model buffers. Grown anew
    // for every rank, they would leave freed blocks and the holes between
    // them with the allocator, and a worker would grow past what one rank
    // needs.
    let read = |path: &PathBuf, storage: &mut ModelStorage| {
        summarize_reusing(path, path.display().to_string(), options, storage)
    };
    if workers == 1 {
        let mut storage = ModelStorage::new();
        return Job::from_summaries(paths.iter().map(|p| finish(read(p, &mut storage))));
    }
    // Largest file first: a big rank taken last would leave the other
    // workers idle at the end (longest-processing-time-first). The merge
    // orders ranks itself, so the job does not depend on this order.
    let mut queue: Vec<&PathBuf> = paths.iter().collect();
    queue.sort_by_cached_key(|p| Reverse(std::fs::metadata(p).map_or(0, |m| m.len())));
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<RankSummary>> = Mutex::new(Vec::with_capacity(paths.len()));
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                let mut storage = ModelStorage::new();
                while let Some(path) = queue.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let summary = finish(read(path, &mut storage));
                    // A poisoned lock means another worker panicked; its
                    // panic resurfaces when the scope joins.
                    if let Ok(mut all) = results.lock() {
                        all.push(summary);
                    }
                }
            });
        }
    });
    Job::from_summaries(results.into_inner().unwrap_or_else(|e| e.into_inner()))
}

/// What the arguments of a job name: its ranks, and the files its
/// directories hold that are not traces.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct JobInputs {
    /// One capture per rank: every argument that is not a directory, and
    /// the captures directly inside each directory, recognised by content
    /// (`opguard_formats::recognize`: Chrome JSON plain or gzip, an XSpace, an
    /// Nsight Systems export, a rocprofv3 JSON document, rocpd database or
    /// the kernel trace of its CSV capture), sorted by name.
    pub ranks: Vec<PathBuf>,
    /// The other regular files directly inside the directories, with why
    /// each is not read. Hidden files are neither.
    pub skipped: Vec<SkippedFile>,
}

/// A file of a job's directory that is not read as a rank.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SkippedFile {
    /// The file.
    pub path: PathBuf,
    /// Why it is not a rank.
    pub reason: SkipReason,
}

/// Why a file of a job's directory is not a rank.
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
    /// `perfetto_trace.json.gz`): read as a rank too, the run would count
    /// twice; the XSpace holds more (launch correlation).
    ViewOfXspace(PathBuf),
}

impl SkipReason {
    /// What to tell the user.
    pub fn describe(&self) -> String {
        match self {
            SkipReason::NotACapture => "not a capture opguard reads (by content: Chrome JSON, \
                 plain or gzip, an XSpace .xplane.pb, an Nsight Systems SQLite export, \
                 rocprofv3 output), so not read as a rank; name it on the command line to read it"
                .to_owned(),
            SkipReason::NotATrace => "a JSON object without traceEvents (a seam request, a job \
                 document, ...), not a trace, so not read as a rank; name it on the command \
                 line to read it"
                .to_owned(),
            SkipReason::NsightReport => "an Nsight Systems report (.nsys-rep), which opguard \
                 does not read: its SQLite export (nsys export --type sqlite) is the capture"
                .to_owned(),
            SkipReason::PartOfCsvCapture => "a file of a rocprofv3 CSV capture, read with its \
                 *_kernel_trace.csv (the capture's rank), not as a rank of its own"
                .to_owned(),
            SkipReason::ViewOfXspace(xspace) => format!(
                "a JSON view JAX wrote of the run whose XSpace {} is beside it: the XSpace is \
                 read as the rank (it holds more: launch correlation), not both",
                xspace.display()
            ),
        }
    }
}

/// The ranks a job's arguments name ([`JobInputs`]). An argument that is
/// not a directory is a rank even when it cannot be opened (its summary then
/// carries the read error) or is not a capture: naming a file is asking for
/// it. A file of a directory that cannot be opened is a rank too, so its
/// error is reported. A directory that cannot be listed is an error.
pub fn job_inputs(args: &[PathBuf]) -> Result<JobInputs, Error> {
    let mut out = JobInputs::default();
    for arg in args {
        if !std::fs::metadata(arg).is_ok_and(|m| m.is_dir()) {
            out.ranks.push(arg.clone());
            continue;
        }
        let mut files: Vec<PathBuf> = Vec::new();
        for entry in std::fs::read_dir(arg).map_err(|e| Error::input(arg, e))? {
            let entry = entry.map_err(|e| Error::input(arg, e))?;
            let path = entry.path();
            let hidden = entry.file_name().to_string_lossy().starts_with('.');
            if !hidden && is_file(&path) {
                files.push(path);
            }
        }
        files.sort();
        let mut captures = Vec::new();
        for path in files {
            use opguard_formats::Detected;
            let skip = match opguard_formats::recognize(&path) {
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
                None => out.ranks.push(path.clone()),
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
    format: Option<opguard_formats::Detected>,
    captures: &[(PathBuf, Option<opguard_formats::Detected>)],
) -> Option<PathBuf> {
    if format != Some(opguard_formats::Detected::ChromeJson) {
        return None;
    }
    let xspaces: Vec<&PathBuf> = captures
        .iter()
        .filter(|(_, f)| *f == Some(opguard_formats::Detected::Xspace))
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
