//! Whole-job profiling: one trace per rank, summarised in parallel, merged
//! into one cross-rank report.
//!
//! - The map step, [`summarize`], reads one rank's trace and returns a
//!   [`RankSummary`]: a plain serialisable value (`opguard.job.rank/v1`)
//!   with the file, the artifact digest, `distributedInfo.rank`, the
//!   provider, the launch region's counts and durations, device time, the
//!   Top-N rows, the collectives (NCCL/RCCL kernels) and the cost per
//!   semantic frame (kernels by canonical identity; host operators when the
//!   trace has no device rows). A trace that cannot be read gives a summary
//!   carrying its error, so one bad file never hides the others.
//! - The reduce step, [`Job`], is associative and commutative down to the
//!   serialised bytes: [`Job::from_summaries`], [`Job::merge`] and
//!   [`Job::merge_all`] give the same `opguard.job/v1` document for any
//!   grouping and order, so any engine (threads here, Ray, Spark) can run it.
//!   Per frame it lists each rank's cost, `max_ns`, `median_ns`, the
//!   `slowest_rank` and the ranks `missing` it. Inputs that disagree on what
//!   a frame id is (its category or kernel identity, which the id is derived
//!   from) are refused, whatever their order (`frame_conflict`).
//! - [`run_job`] runs the map on a given number of threads (none unless
//!   asked), each holding one trace at a time.
//!
//! Each rank is its own clock domain (seed 002): the report compares
//! durations and has no field for an absolute time.
//!
//! ```
//! use opguard_job::{summarize, Job, SummaryOptions};
//!
//! let dir = tempfile::tempdir()?;
//! let mut paths = Vec::new();
//! // Rank 1's all-reduce takes three times as long as rank 0's (durations
//! // in microseconds, as the PyTorch profiler writes them).
//! for (rank, dur_us) in [(0, 1), (1, 3)] {
//!     let trace = format!(r#"{{"traceEvents": [
//!       {{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 10, "tid": 10,
//!         "ts": 0, "dur": 0.05, "args": {{"correlation": 1}}}},
//!       {{"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*)",
//!         "pid": 0, "tid": 7, "ts": 0.1, "dur": {dur_us},
//!         "args": {{"device": 0, "stream": 7, "correlation": 1}}}},
//!       {{"ph": "s", "cat": "ac2g", "name": "ac2g", "pid": 10, "tid": 10, "ts": 0, "id": 1}},
//!       {{"ph": "f", "cat": "ac2g", "name": "ac2g", "pid": 0, "tid": 7, "ts": 0.1, "id": 1, "bp": "e"}}
//!     ], "schemaVersion": 1, "distributedInfo": {{"rank": {rank}}}}}"#);
//!     let path = dir.path().join(format!("rank{rank}.json"));
//!     std::fs::write(&path, trace)?;
//!     paths.push(path);
//! }
//! let options = SummaryOptions::new();
//! let summaries: Vec<_> = paths.iter().map(|p| summarize(p, &options)).collect();
//! assert_eq!(summaries[1].rank.collectives[0].total_ns, 3_000);
//!
//! // Merge in any grouping: the same bytes.
//! let all = Job::from_summaries(summaries.clone())?;
//! let [a, b] = [summaries[0].clone(), summaries[1].clone()].map(Job::try_from);
//! assert_eq!(serde_json::to_string(&b?.merge(a?)?)?, serde_json::to_string(&all)?);
//!
//! let frame = &all.frames[0];
//! assert_eq!((frame.max_ns, frame.median_ns), (3_000, 2_000));
//! assert_eq!(frame.slowest_rank, Some(1));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// Data flow: one rank's trace (trace model) → its summary (map) → summaries
// and partial jobs merged (reduce) → the job document.

// Reader and analysis, the map step: one rank's trace → a `RankSummary`.
mod summary;
// Running the map step over many ranks, on the calling thread or on a given
// number of workers.
mod run;
// Analysis, the reduce step: summaries and partial jobs → one `Job`.
mod merge;
// Reader and writer: summaries and jobs as JSON documents crossing a process
// or machine boundary.
mod document;
// The crate's error and its codes.
mod error;

pub use summary::{
    summarize, summarize_as, summarize_model, unreadable, Collective, FrameBasis, LaunchSummary,
    RankError, RankFrame, RankInfo, RankSummary, SummaryOptions, TopRow, UnmatchedFrame,
    DEFAULT_TOP, RANK_FORMAT,
};

pub use run::{job_inputs, run_job, JobInputs, SkipReason, SkippedFile};

pub use merge::{Job, JobFrame, RankCost, RankRef, JOB_FORMAT};

pub use document::{job_from_json, job_from_path, MAX_DOCUMENT_BYTES};

pub use error::{Error, ErrorKind, FrameConflict, ERROR_CODES};

/// This crate's version (`Cargo.toml`'s), for tools that report what they
/// were built with (`opguard --version`).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The README's examples are compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
