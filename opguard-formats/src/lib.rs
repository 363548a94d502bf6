//! One door to every trace format opguard reads.
//!
//! [`read`] detects a capture's format from its content ([`detect`]: the
//! SQLite header, a protobuf probe, a CSV header, JSON keys — never the file
//! name) and reads it with that format's reader into
//! [`opguard_model::TraceModel`], the provider-neutral model every analysis
//! reads. A reader's error passes through with its own code and position
//! ([`Error::code`]).
//!
//! | format | reader |
//! |---|---|
//! | Chrome trace JSON, plain or gzip (PyTorch profiler, Perfetto JSON, viztracer, JAX, opguard's export) | `opguard-trace` |
//! | Nsight Systems SQLite export (`nsys export --type sqlite`; feature `nsys`, on by default) | `opguard-nsys` |
//! | rocprofv3: CSV capture (a `*_kernel_trace.csv`, any file of its set, or their directory), JSON document (plain or gzip), rocpd database | `opguard-rocprof` (feature `rocprof`, default) |
//! | XLA profiler XSpace protobuf (`*.xplane.pb`: JAX, TensorFlow; feature `xplane`, on by default) | `opguard-xplane` |
//!
//! A program that reads only Chrome JSON can depend on `opguard-trace`
//! alone, or on this crate with `default-features = false`, and never
//! compile a native format's library (SQLite). [`info`] gives a capture's
//! plain facts, by format ([`Info`]).
//!
//! ```
//! use opguard_formats::{read, ReadOptions};
//! use opguard_model::analysis::launch_region;
//! use opguard_model::{ArtifactSpec, ModelOptions};
//!
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("decode.json");
//! std::fs::write(&path, br#"{"traceEvents":[
//!   {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":7,"tid":7,"ts":1,"dur":1,"args":{"correlation":5}},
//!   {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":3,"ts":2,"dur":4,"args":{"correlation":5}}]}"#)?;
//! let options = ReadOptions::new(ModelOptions::launches_only());
//! let model = read(&path, ArtifactSpec::new().stage("decode"), &options)?;
//! let region = launch_region(&model, 10);
//! assert_eq!((region.kernel_count, region.correlated_kernel_count), (1, 1));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// Reader, first step: what a capture is, from its first bytes.
mod detect;
// Reader: the captures arguments name, directories listed by content.
mod inputs;
// Reader: a capture of any format into the model.
mod read;
// Reader: the plain facts of a capture of any format.
mod info;
// Analysis through the door: launch regions, streamed where the format allows.
mod region;
// The crate's one error type: readers' errors pass through.
mod error;

pub use detect::{detect, detect_bytes, recognize, Detected};
pub use error::{Error, ErrorKind, ERROR_CODES};
pub use info::{info, info_with_progress, Info};
pub use inputs::{captures_in, Captures, ListError, SkipReason, SkippedFile};
pub use read::{read, read_reusing, ReadOptions};
pub use region::{launch_region, RegionRead};

/// The README's examples are compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// This crate's version (its Cargo.toml `version`).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
