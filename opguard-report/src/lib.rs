//! One self-contained HTML page of what opguard found in profiler traces.
//!
//! [`ArtifactReport::from_model`] analyses one trace (its launch region, its
//! profile Top-N, its [`Timeline`]); a [`Report`] gathers those and,
//! across traces, an [`AlignmentSummary`], a seam
//! [`Verdict`](opguard_select::Verdict) and a [`ScalingView`]. [`render`]
//! draws it as one HTML document: CSS and SVG inline, nothing fetched, no
//! script (the page's Content-Security-Policy forbids both), text
//! selectable. [`write_new`] creates the file exclusively.
//!
//! ```
//! use opguard_report::{render, write_new, ArtifactReport, Report};
//! use opguard_testdata::kineto_writer::KinetoTrace;
//! // (opguard-testdata is the workspace's unpublished test support: here it
//! // writes the trace a PyTorch profiler would.)
//! use opguard_trace::model::{ArtifactSpec, ModelOptions, TraceModel};
//!
//! // One host thread launches two kernels on stream 7; one kernel is named
//! // like an attack.
//! let host = (1, 1);
//! let mut t = KinetoTrace::new();
//! t.launch(host, "cudaLaunchKernel", 0, 1_000, 1, None)
//!     .kernel(0, 7, "gemm_kernel<float>", 2_000, 3_000);
//! t.launch(host, "cudaLaunchKernel", 1_500, 500, 2, None)
//!     .kernel(0, 7, "<script>alert(1)</script>", 6_000, 1_000);
//! let dir = tempfile::tempdir()?;
//! let trace = dir.path().join("trace.json.gz");
//! std::fs::write(&trace, t.to_gzip()?)?;
//!
//! let model = TraceModel::read(&trace, ArtifactSpec::new(), &ModelOptions::new())?;
//! let report = Report::new(vec![ArtifactReport::from_model("trace.json.gz", &model, 10)]);
//! let html = render(&report);
//! assert!(html.contains("<svg class=\"chart timeline\""));
//! assert!(html.contains("<svg class=\"chart bars\""));
//! // Trace text is escaped: the name is shown, never run.
//! assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
//! assert!(!html.contains("<script"));
//!
//! let out = dir.path().join("report.html");
//! write_new(&out, &html)?;
//! assert!(write_new(&out, &html).is_err(), "an existing file is never replaced");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod error;
mod escape;
pub mod geometry;
mod html;
mod output;
mod report;
mod timeline;

pub use error::{Error, ErrorKind, ERROR_CODES};
pub use escape::escape;
pub use html::{render, BAR_PLOT_WIDTH, TIMELINE_PLOT_WIDTH};
pub use output::write_new;
pub use report::{
    Aligned, AlignmentRefusal, AlignmentSummary, ArtifactReport, Report, ScalingView,
    MAX_LIST_ROWS, MAX_SCATTERS,
};
pub use timeline::{Lane, LaneKind, Timeline, MAX_LANES, TIMELINE_BINS};

/// This crate's version (its Cargo.toml `version`), for tools that report what
/// they were built with (`opguard --version`).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
