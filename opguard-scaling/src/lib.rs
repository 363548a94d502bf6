//! Which operators' cost grows with an experiment's numeric input (batch
//! size, sequence length, ...), across independently captured trial traces.
//!
//! A trial is one run at one input value, with one or more trace files. Per
//! trial, [`trial_costs`] reads each trace with `opguard-trace` and totals a
//! [`Metric`] per *semantic* frame (`semantic-frame/v1`: provider, category,
//! normalized name, source location, canonical kernel identity) — never per
//! occurrence, whose id names one event of one file. [`correlate`] then
//! forms one series per (variant, semantic frame, metric, unit), computes
//! Spearman's rho and its p-value (as `scipy.stats.spearmanr` gives them) for
//! every series with at least three trials and two distinct inputs, and
//! adjusts the p-values with
//! Benjamini–Hochberg. Frames whose identity is partial are listed as
//! [`Unmatched`], so "nothing correlates" and "identity prevented matching"
//! look different. [`run_trials_file`] does all of it from a trials
//! document ([`TrialsDocument`]).
//!
//! The same operator at 10, 20 and 30 ns in three separately written traces:
//!
//! ```
//! use opguard_scaling::{run_trials_file, Metric};
//!
//! let dir = tempfile::tempdir()?;
//! for (i, cost_us) in ["0.010", "0.020", "0.030"].into_iter().enumerate() {
//!     // Two PyTorch profiler `cpu_op`s per trial; different timestamps and
//!     // process ids make each trace its own artifact.
//!     let (pid, ts) = (1000 + i, 5 * i);
//!     let trace = format!(r#"{{"traceEvents": [
//!       {{"ph": "X", "cat": "cpu_op", "name": "reverse_scan", "pid": {pid}, "tid": 7,
//!         "ts": {ts}, "dur": {cost_us}, "args": {{"External id": 1}}}},
//!       {{"ph": "X", "cat": "cpu_op", "name": "aten::zeros", "pid": {pid}, "tid": 7,
//!         "ts": 100, "dur": 0.5, "args": {{"External id": 2}}}}
//!     ], "schemaVersion": 1}}"#);
//!     std::fs::write(dir.path().join(format!("t{}.json", i + 1)), trace)?;
//! }
//! let trials = r#"{"trials": [
//!   {"id": "t1", "input": 1, "variant": "base", "traces": ["t1.json"]},
//!   {"id": "t2", "input": 2, "variant": "base", "traces": ["t2.json"]},
//!   {"id": "t3", "input": 3, "variant": "base", "traces": ["t3.json"]}
//! ], "metric": "inclusive_ns"}"#;
//! std::fs::write(dir.path().join("trials.json"), trials)?;
//!
//! let report = run_trials_file(dir.path().join("trials.json"), Some(Metric::InclusiveNs))?;
//! assert_eq!(report.hotspots.len(), 1);
//! let hot = &report.hotspots[0];
//! assert_eq!(hot.series.name, "reverse_scan");
//! assert_eq!((hot.spearman_rho, hot.independent_trial_count), (1.0, 3));
//! // aten::zeros costs the same everywhere: no rho, and not a rho of 0.
//! assert_eq!(report.not_correlatable[0].series.name, "aten::zeros");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// Data flow: trials document → each trial's traces (trace models) → cost
// per semantic frame → series across trials and their statistics → the
// scaling report.

// Reader: the trials document (which traces, which trial, which input).
mod trials;
// Model: the cost a series measures, and its unit.
mod metric;
// Analysis: per-trial cost per semantic frame, from each trace's model.
mod cost;
// Analysis: across trials, one series per (variant, frame, metric, unit).
mod correlate;
// Writer: the scaling report and its entries.
mod report;
// The whole path: trials document → report.
mod run;
// The crate's one error type and its codes.
mod error;

pub use trials::{TrialSpec, TrialsDocument, MAX_TRIALS_DOCUMENT_BYTES, TRIALS_FORMAT};

pub use metric::{Metric, Unit, UnknownMetric};

pub use cost::{
    self_times, trial_costs, trial_costs_as, FrameCost, TraceArtifact, TrialCosts, BUILD_ID_KEY,
    SOURCE_STATE_KEY,
};

pub use correlate::{correlate, MIN_DISTINCT_INPUTS, MIN_SAMPLES};

pub use report::{
    Hotspot, Insufficient, InsufficientReason, MultiplicityMethod, NotCorrelatable,
    NotCorrelatableReason, ScalingReport, SeriesInfo, Unmatched,
};

pub use run::{run_trials, run_trials_as, run_trials_file};

pub use error::{Error, ErrorKind, ERROR_CODES};

/// This crate's version (its Cargo.toml `version`), for tools that report what
/// they were built with (`opguard --version`).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The README's examples are compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
