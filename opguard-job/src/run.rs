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
/// [`ErrorKind::FrameConflict`] cannot happen here: every summary is made by
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
    /// One capture per rank: every argument that is not a directory, and the
    /// captures directly inside each directory ([`is_capture`]), sorted by
    /// name.
    pub ranks: Vec<PathBuf>,
    /// The other regular files directly inside the directories (a run's
    /// logs, JAX's `.xplane.pb`, an `.nsys-rep` beside its export, ...),
    /// which the job does not read. Hidden files are neither.
    pub skipped: Vec<PathBuf>,
    /// Files inside the directories named like traces whose JSON is an
    /// object without `traceEvents` (a seam request, a job document, a
    /// census capture beside the traces): not traces, so not ranks.
    pub not_traces: Vec<PathBuf>,
}

/// Whether a file in a job's directory is a capture a rank is read from,
/// by what opguard-formats detects in its content: a native export whose
/// format says so in its first bytes and tables (an Nsight Systems SQLite
/// export, a rocprofv3 JSON document or the kernel trace of a rocprofv3 CSV
/// capture, whatever their names), or a Chrome trace by its name (`*.json`,
/// `*.json.gz`, as Kineto, Perfetto, viztracer and JAX write them): JSON has
/// no signature that tells a trace from a log or another document without
/// reading it. Nsight Systems' binary report and other SQLite databases are
/// not captures the job reads.
pub fn is_capture(path: &Path) -> bool {
    match opguard_formats::detect(path) {
        Ok(opguard_formats::Detected::NsysSqlite | opguard_formats::Detected::RocprofJson) => true,
        // A CSV capture is read from its kernel trace (its siblings with it).
        Ok(opguard_formats::Detected::RocprofCsv) => path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().ends_with("kernel_trace.csv")),
        Ok(opguard_formats::Detected::ChromeJson) | Err(_) => is_trace_name(path),
        Ok(_) => false,
    }
}

/// Whether a file is named like a Chrome trace.
fn is_trace_name(path: &Path) -> bool {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    name.ends_with(".json") || name.ends_with(".json.gz")
}

/// Whether a file named like a trace holds another JSON document: its top
/// level is an object without `traceEvents`. Read up to the first event
/// only; a file that fails otherwise (cut, corrupt) is still a rank, whose
/// summary carries the error.
fn is_other_document(path: &Path) -> bool {
    let first = opguard_trace::TraceReader::open(path).and_then(|mut r| r.next_event().map(drop));
    matches!(first, Err(e) if matches!(e.kind(), opguard_trace::ErrorKind::MissingTraceEvents))
}

/// The ranks a job's arguments name ([`JobInputs`]). An argument that is
/// not a directory is a rank even when it cannot be opened (its summary then
/// carries the read error) or is not a capture: naming a file is
/// asking for it. A directory that cannot be listed is an error.
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
        let (captures, others): (Vec<PathBuf>, Vec<PathBuf>) =
            files.into_iter().partition(|p| is_capture(p));
        let (documents, traces): (Vec<PathBuf>, Vec<PathBuf>) = captures
            .into_iter()
            .partition(|p| is_trace_name(p) && is_other_document(p));
        out.ranks.extend(traces);
        out.skipped.extend(others);
        out.not_traces.extend(documents);
    }
    Ok(out)
}

fn is_file(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file())
}
