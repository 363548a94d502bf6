//! Exact, bounded reading of AMD rocprofv3 (rocprofiler-sdk) output: its CSV
//! capture, its JSON document and its rocpd SQLite database.
//!
//! - [`read_capture`] tells the format by content ([`detect`]) and reads it;
//!   [`read_csv`], [`read_json`] and [`read_rocpd`] read one format.
//! - Every record goes to a [`Sink`] as a [`Record`]: a [`KernelDispatch`],
//!   an [`ApiCall`], a roctx [`Marker`] or a [`MemoryCopy`], each with its
//!   occurrence index, process, thread, internal correlation id and
//!   [`Span`] in nanoseconds.
//! - The [`CaptureSummary`] names the capture (SHA-256), its files, agents
//!   and processes, and counts what was read.
//!
//! A dispatch is proven launched only by the one API call of its own process
//! with its correlation id (the README's join-key table says where each
//! format keeps the process); a capture without API records has its
//! dispatches and no proof.
//!
//! ```
//! use opguard_rocprof::{read_csv, ReadOptions, Record};
//!
//! let dir = tempfile::tempdir()?;
//! std::fs::write(
//!     dir.path().join("42_kernel_trace.csv"),
//!     "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Kernel_Name\",\"Correlation_Id\",\
//!      \"Start_Timestamp\",\"End_Timestamp\"\n\
//!      \"KERNEL_DISPATCH\",\"Agent 1\",\"1\",\"void k<4>(float*, int)\",\"7\",\"100\",\"250\"\n",
//! )?;
//! std::fs::write(
//!     dir.path().join("42_hip_api_trace.csv"),
//!     "\"Domain\",\"Function\",\"Process_Id\",\"Thread_Id\",\"Correlation_Id\",\
//!      \"Start_Timestamp\",\"End_Timestamp\"\n\
//!      \"HIP_RUNTIME_API_EXT\",\"hipLaunchKernel\",\"42\",\"42\",\"7\",\"90\",\"95\"\n",
//! )?;
//! let mut seen = Vec::new();
//! let summary = read_csv(dir.path(), &ReadOptions::new(), &mut |r: &Record<'_>| {
//!     let b = r.base();
//!     seen.push((b.index, b.process, b.correlation, b.span.duration_ns()));
//! })?;
//! // The API trace is read first; its Process_Id is the dispatches' process.
//! assert_eq!(seen, [(0, Some(42), Some(7), 5), (1, Some(42), Some(7), 150)]);
//! assert_eq!(summary.records.dispatches, 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// Data flow: a path → detected format → that format's reader (bounded,
// hashed) → typed records to the caller's sink, and a summary.

// Detection by content, and the one entry point over the three readers.
mod detect;
// Reader: the CSV capture (one file per record kind, one prefix per process).
mod csv;
// Reader: the JSON document, streamed.
mod json;
// Reader: the rocpd database.
mod rocpd;
// Analysis: `trace info`'s facts of a capture, streamed.
mod info;
// Model: the records pushed into opguard-model's provider-neutral model.
mod model;
// Model: the rows a capture holds and the sink that receives them.
mod record;
// Identity: the SHA-256 of a capture of one file or several.
mod digest;
// The crate's one error type and its codes.
mod error;

pub use crate::csv::read_csv;
pub use detect::{detect, read_capture};
pub use error::{Error, ErrorKind, Limit, Position, ERROR_CODES};
pub use info::{capture_info, CaptureInfo, CaptureSpan, KindCount};
pub use json::{read_json, TOOL_KEY};
pub use model::{read_model, read_model_reusing, DISPATCH_CATEGORY, MEMORY_COPY_CATEGORY};
pub use record::{
    Agent, AgentKind, ApiCall, CaptureFile, CaptureFormat, CaptureSummary, DeviceRef,
    KernelDispatch, Marker, MemoryCopy, ProcessInfo, ReadOptions, Record, RecordBase, RecordCounts,
    Sink, Span, DEFAULT_MAX_VALUE_BYTES,
};
pub use rocpd::{read_rocpd, SQLITE_MAGIC};

/// The README's example is compiled as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// This crate's version (its Cargo.toml `version`).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
