//! Running the map step over many ranks, on the calling thread or on a
//! given number of worker threads.
//!
//! Each worker reads one trace at a time and keeps only its summary, so
//! peak memory grows with the number of workers, never with the number of
//! ranks. The result does not depend on the worker count: the merge puts
//! ranks and frames in one canonical order.

use std::cmp::Reverse;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use opguard_model::ModelStorage;

use crate::error::Error;

use crate::merge::Job;
use crate::summary::{summarize_reusing, RankSummary, SummaryOptions};
pub use opguard_formats::{SkipReason, SkippedFile};

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

/// The ranks a job's arguments name ([`JobInputs`]), by
/// [`opguard_formats::captures_in`]: an argument that is not a directory
/// is a rank even when it cannot be opened (its summary then carries the
/// read error) or is not a capture: naming a file is asking for it. A file
/// of a directory that cannot be opened is a rank too, so its error is
/// reported. A directory that cannot be listed is an error.
pub fn job_inputs(args: &[PathBuf]) -> Result<JobInputs, Error> {
    let found =
        opguard_formats::captures_in(args).map_err(|e| Error::input(&e.directory, e.source))?;
    Ok(JobInputs {
        ranks: found.captures,
        skipped: found.skipped,
    })
}
