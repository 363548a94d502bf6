//! One self-contained HTML page of what opguard found in profiler traces.
//!
//! [`ArtifactReport::from_model`] analyses one trace (its launch region, its
//! profile Top-N, its [`Timeline`]); a [`Report`] gathers those and,
//! across traces, an [`AlignmentSummary`], a seam
//! [`Verdict`](opguard_select::Verdict), a [`ScalingView`] and a whole
//! [`Job`](opguard_job::Job) (its ranks and its costliest frames, a dot per
//! rank). [`render`]
//! draws it as one HTML document: CSS and SVG inline, nothing fetched, no
//! script (the page's Content-Security-Policy forbids both), text
//! selectable. [`write_new`] creates the file exclusively.
//!
//! ```
//! use opguard_report::{render, write_new, ArtifactReport, Report};
//! use opguard_formats::ReadOptions;
//! use opguard_model::{ArtifactSpec, ModelOptions};
//!
//! // One host thread launches two kernels on stream 7 (as the PyTorch
//! // profiler writes it: microseconds, launch and kernel joined by their
//! // correlation id); one kernel is named like an attack.
//! let trace_text = r#"{"traceEvents": [
//!   {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
//!    "ts": 0, "dur": 1, "args": {"correlation": 1}},
//!   {"ph": "X", "cat": "kernel", "name": "gemm_kernel<float>", "pid": 0, "tid": 7,
//!    "ts": 2, "dur": 3, "args": {"device": 0, "stream": 7, "correlation": 1}},
//!   {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
//!    "ts": 1.5, "dur": 0.5, "args": {"correlation": 2}},
//!   {"ph": "X", "cat": "kernel", "name": "<script>alert(1)</script>", "pid": 0, "tid": 7,
//!    "ts": 6, "dur": 1, "args": {"device": 0, "stream": 7, "correlation": 2}}
//! ], "schemaVersion": 1}"#;
//! let dir = tempfile::tempdir()?;
//! let trace = dir.path().join("trace.json");
//! std::fs::write(&trace, trace_text)?;
//!
//! let model = opguard_formats::read(&trace, ArtifactSpec::new(), &ReadOptions::new(ModelOptions::new()))?;
//! let report = Report::new(vec![ArtifactReport::from_model("trace.json", &model, 10)]);
//! let html = render(&report);
//! assert!(html.contains("<svg class=\"chart timeline\""));
//! assert!(html.contains("<svg class=\"chart bars\""));
//! // Both launches are proven by their correlation ids, and the coverage chart
//! // says so.
//! let proven = html.lines().find(|row| row.contains(">launch proven by correlation<"));
//! assert!(proven.is_some_and(|row| row.ends_with(">2</text></g>")));
//! // Trace text is escaped: the name is shown, never run.
//! assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
//! assert!(!html.contains("<script"));
//!
//! let out = dir.path().join("report.html");
//! write_new(&out, &html)?;
//! assert!(write_new(&out, &html).is_err(), "an existing file is never replaced");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// Data flow: trace models and analysis results → what the report shows →
// one HTML document → one file created exclusively.

// Model: what a report shows, gathered from analyses before anything is drawn.
mod report;
// Analysis: the launch region as timeline lanes, each in its own clock domain.
mod timeline;
// Writer: chart geometry (lengths and positions as shares of a whole).
mod geometry;
// Writer: every string from a trace, a request or a file name escaped.
mod escape;
// Writer: the report as one self-contained HTML document.
mod html;
// Writer: the file, created exclusively after everything was rendered.
mod output;
// The errors of writing a report.
mod error;

pub use report::{
    Aligned, AlignmentRefusal, AlignmentSummary, ArtifactReport, Report, ScalingView,
    MAX_JOB_FRAMES, MAX_LIST_ROWS, MAX_SCATTERS,
};

pub use timeline::{Lane, LaneKind, Timeline};

pub use html::render;

pub use output::write_new;

pub use error::{Error, ErrorKind, ERROR_CODES};

/// This crate's version (its Cargo.toml `version`), for tools that report what
/// they were built with (`opguard --version`).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The README's examples are compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
