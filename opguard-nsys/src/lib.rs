//! Reads NVIDIA Nsight Systems SQLite exports (`nsys export --type sqlite`)
//! exactly, row by row.
//!
//! * [`Export::open`] checks the file before reading a row: its size against
//!   [`ReadOptions`]' limits, that it is SQLite, the export's own
//!   metadata ([`ExportMeta`]: product and schema versions, from
//!   `META_DATA_EXPORT` or the older `EXPORT_META_DATA`), the schema against
//!   [`VERIFIED_SCHEMAS`], and every table it reads for the columns it needs.
//!   What cannot be read is an [`Error`] naming the schema version and what
//!   is missing, never a guess.
//! * [`Export::kernels`], [`Export::memory_ops`], [`Export::syncs`],
//!   [`Export::api_calls`], [`Export::nvtx`], [`Export::processes`],
//!   [`Export::thread_names`] stream typed rows from prepared statements, one
//!   at a time; [`Strings`] resolves `StringIds` on demand (a kernel's name
//!   demangled first, then mangled; NVTX text inline, else by `textId`).
//!   [`Export::info`] gives the facts `trace info` reports.
//! * Correlation ids are unique only within a process: [`GlobalId::process`]
//!   is the namespace (`globalPid >> 24` of device rows against
//!   `globalTid >> 24` of API calls); [`CallIndex`] holds which
//!   (process, correlation id) keys name one call or several in memory that
//!   follows the id range, not the row count. [`ApiCall::is_call`] sets aside
//!   the backtrace row older exports write beside a runtime call.
//! * [`read_model`] reads an export into `opguard-model`'s provider-neutral
//!   [`TraceModel`](opguard_model::TraceModel), the model every analysis
//!   reads (launch regions, Top-N, seam verdict, job, report): kernels,
//!   memory operations, synchronizations, API calls and NVTX ranges as
//!   slices, with the process set from each row and an occurrence index per
//!   row ([`occurrence`]).
//! * [`launch_region`] computes an export's launch region from its rows in
//!   time order (SQL `ORDER BY start`) through opguard-model's streaming
//!   region builder, without a model: the same figures in memory that does
//!   not grow with the rows.
//!
//! ```no_run
//! use opguard_nsys::{Export, ReadOptions};
//!
//! let export = Export::open("report1.sqlite", &ReadOptions::new())?;
//! println!("Nsight Systems {}, schema {}", export.meta().product_version, export.meta().schema);
//! let mut strings = export.strings()?;
//! export.kernels(|k| {
//!     println!("{} ns  {}", k.end - k.start, strings.get(k.demangled_name)?);
//!     Ok::<_, opguard_nsys::Error>(())
//! })?;
//! # Ok::<(), opguard_nsys::Error>(())
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod correlation;
mod error;
mod export;
mod info;
mod model;
mod read;
mod region;
mod rows;
mod schema;
mod version;

pub use correlation::{CallIndex, Calls};
pub use error::{Error, ErrorKind, Limit, MissingColumns, Position, ERROR_CODES};
pub use export::{
    is_export, Export, KnownTable, ReadOptions, DEFAULT_MAX_DECODED_BYTES,
    DEFAULT_MAX_ENCODED_BYTES,
};
pub use info::{ExportInfo, Span, TableRows};
pub use model::{occurrence, occurrence_row, read_model, read_model_reusing, OCCURRENCE_STRIDE};
pub use read::Strings;
pub use region::launch_region;
pub use rows::{
    api_name, copy_kind_label, memory_kind_label, Api, ApiCall, DeviceTrack, GlobalId, Gpu, Kernel,
    MemoryKind, MemoryOp, NvtxEvent, NvtxKind, Process, StringId, Sync, ThreadName, MEMORY_KINDS,
};
pub use version::{
    is_verified, ExportMeta, SchemaVersion, VerifiedExport, EXPORT_META_DATA, META_DATA_EXPORT,
    VERIFIED_SCHEMAS,
};

/// The README's examples, compiled as doctests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

/// This crate's version (its Cargo.toml `version`).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
