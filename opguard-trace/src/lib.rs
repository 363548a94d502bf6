//! Streaming, bounded, exact reading and writing of Chrome Trace Event Format
//! profiler traces: PyTorch profiler (Kineto, CUDA and ROCm), Perfetto's JSON
//! export, and opguard's own export.
//!
//! - [`TraceReader`] visits events one at a time, in file order, each with
//!   its zero-based `traceEvents` index. It reads plain JSON or gzip
//!   (detected from the first bytes), hashes the encoded bytes with SHA-256
//!   in the same pass, enforces byte and depth limits while streaming, and
//!   reports every failure with a stable code, a byte offset and the event
//!   index. Its memory does not grow with the number of events.
//! - [`Event`] borrows from the reader's buffer and gives typed access to
//!   `ph`, `name`, `cat`, `pid`, `tid`, `ts`, `dur`, ids and `args`; numbers
//!   stay exact ([`Number`]), and `ts`/`dur` convert to integer nanoseconds
//!   without `f64`.
//! - [`TraceWriter`] writes the same format deterministically.
//! - [`EventRef`] names one event of one artifact: `<sha256>:<index>`.
//!
//! ```
//! use opguard_trace::{EventRef, TraceReader};
//!
//! let trace = br#"{"traceEvents":[
//!   {"ph":"X","cat":"kernel","name":"void k<4>(float*)","pid":0,"tid":7,
//!    "ts":4203669604595.407,"dur":3.25,"args":{"correlation":10159970886766084423}}
//! ]}"#;
//! let mut reader = TraceReader::new(&trace[..])?;
//! let mut kernels = Vec::new();
//! while let Some(event) = reader.next_event()? {
//!     if event.cat().is_some_and(|c| c == "kernel") {
//!         let start = event.ts_ns()?.unwrap_or_default();
//!         let correlation = event.correlation().map(|c| c.to_key());
//!         kernels.push((event.index(), start, correlation));
//!     }
//! }
//! let summary = reader.finish()?;
//! let first = EventRef { artifact: summary.sha256, index: kernels[0].0 };
//! assert_eq!(kernels[0].1, 4_203_669_604_595_407);
//! assert_eq!(kernels[0].2.as_ref().unwrap().to_string(), "10159970886766084423");
//! assert_eq!(first.to_string().len(), 64 + 2);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// Data flow: file → decoded input (SHA-256, limits, gzip) → scanned and
// read events → one artifact's provider-neutral model (opguard-model), or
// the file's plain facts (`trace_info`); and a deterministic writer for
// traces opguard produces.

// Input: the decoded bytes of a file, plain or gzip, hashed and bounded;
// knows nothing of events.
mod input;
// Reader, lowest level: the validating JSON scanner over byte slices.
mod scan;
// Reader: exact JSON numbers, kept as their text.
mod number;
// Reader: the event fields the reader types, and what each may hold.
mod field;
// Reader: one event, borrowed from the reader's buffer.
mod event;
// Reader: events streamed out of a trace file, in file order.
mod reader;
// Reader: what a read accepted that a strict reader would not.
mod warning;
// Reader → model: events into opguard-model's TraceModel, provider detected.
mod model_reader;
// Analysis: the plain facts of one file, from one read (`trace info`).
pub mod info;
// Writer: the streaming, deterministic Chrome-trace JSON writer.
mod writer;
// The crate's one error type and its codes.
mod error;

pub use error::{Error, ErrorKind, Limit, ERROR_CODES};
pub use event::{Args, ArrayIter, Event, LaunchArgs, ObjectIter, Scalar, ScalarKey, Str, Value};
pub use field::Field;
pub use info::{trace_info, TraceInfo};
pub use input::{
    Compression, DecodedInput, InputOptions, InputSummary, DEFAULT_MAX_DECODED_BYTES,
    DEFAULT_MAX_ENCODED_BYTES,
};
pub use model_reader::{
    model_from_reader, model_from_reader_reusing, read_model, read_model_reusing,
};
pub use number::{nanos_to_micros_text, Number, NumberError};
pub use opguard_model::{EventRef, Metadata, Sha256Digest};
pub use reader::{
    ReaderOptions, TopLevelForm, TraceReader, TraceSummary, DEFAULT_MAX_DEPTH,
    DEFAULT_MAX_VALUE_BYTES,
};
pub use scan::ValueKind;
pub use warning::ReadWarning;
pub use writer::{write_json_string, OwnedEvent, RawJson, TraceWriter};

/// This crate's version (its Cargo.toml `version`), for tools that report what
/// they were built with (`opguard --version`).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The README's examples are compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
