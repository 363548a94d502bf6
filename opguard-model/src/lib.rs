//! The provider-neutral model of a GPU profiler trace, and the analyses
//! over it.
//!
//! Every format opguard reads — Chrome trace JSON from the PyTorch profiler
//! (`opguard-trace`), Nsight Systems SQLite exports (`opguard-nsys`),
//! rocprofv3 output (`opguard-rocprof`), XLA's XSpace (`opguard-xplane`) —
//! is a reader into this one model, so no analysis knows which format fed
//! it:
//!
//! - [`Artifact`]: one capture as a unit of identity (SHA-256 of its bytes),
//!   provenance ([`Provider`], [`Format`], producer version) and time (its
//!   own clock domain).
//! - [`Slice`]: one timed record — a kernel, a memory copy, a runtime call,
//!   a host operator or range — classified once, by the rules in
//!   [`classify`], into a [`SliceClass`].
//! - [`TraceModel`]: one artifact's slices with qualified correlation: a
//!   device slice's launch is proven only inside (artifact, owning process,
//!   correlation id) — the provider table in [`provider`] says, per format,
//!   which fields make that key and what makes it unknown.
//! - [`ModelBuilder`]: what a reader pushes records into.
//! - [`analysis`]: launch regions (launches, kernels, proven correlation,
//!   gaps and idle per stream) of one artifact, and their explicit
//!   aggregate.
//!
//! ```
//! use opguard_model::{
//!     ArtifactSpec, Format, IdValue, ModelBuilder, ModelOptions, Provider, ReadSummary,
//!     SliceClass, SliceRecord, Sha256Digest,
//! };
//! use opguard_model::analysis::launch_region;
//!
//! let mut builder = ModelBuilder::new(&ModelOptions::new());
//! let launch = SliceRecord {
//!     class: SliceClass::Runtime, // a runtime call that a kernel correlates with becomes a launch
//!     name: "cudaLaunchKernel",
//!     category: "cuda_runtime",
//!     pid: Some(IdValue::Int(4242)),
//!     tid: Some(IdValue::Int(4242)),
//!     ts_ns: 1_000,
//!     dur_ns: 200,
//!     correlation: Some(IdValue::Int(7)),
//!     ..SliceRecord::new(0)
//! };
//! let kernel = SliceRecord {
//!     class: SliceClass::Kernel,
//!     name: "void gemm<float>(float*)",
//!     category: "kernel",
//!     pid: Some(IdValue::Int(0)),
//!     tid: Some(IdValue::Int(7)),
//!     ts_ns: 1_500,
//!     dur_ns: 3_000,
//!     correlation: Some(IdValue::Int(7)),
//!     ..SliceRecord::new(1)
//! };
//! builder.push_slice(&launch);
//! builder.push_slice(&kernel);
//! let bytes = b"the capture's bytes";
//! let summary = ReadSummary::new(Sha256Digest::of(bytes), Format::ChromeJson, Provider::KinetoCuda);
//! let model = builder.finish(summary, ArtifactSpec::new().stage("decode"));
//!
//! let region = launch_region(&model, 10);
//! assert_eq!((region.kernel_count, region.correlated_kernel_count), (1, 1));
//! assert_eq!(region.direct_launch_count, 1);
//! assert_eq!(region.region_duration_ns, Some(3_500));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// Model: identities of artifacts (SHA-256) and their records.
mod identity;
// Model: which program wrote a capture, its format, and its join keys.
pub mod provider;
// Model: one capture as a unit of identity, provenance and time.
mod artifact;
// Model: the timed records of a capture and their classes.
mod slice;
// Model: the one rule for what a record is (device activity, launch, collective).
pub mod classify;
// Model: what a reader asks the model to keep.
mod options;
// Model: interned names and sorted position indexes.
mod index;
// Model: what readers push records into.
mod builder;
// Model: records streamed to a consumer as a read goes.
mod sink;
// Model: the launch join (owners, launches, proofs), for slices and streamed rows.
mod join;
// Model: one artifact's records, indexed for qualified joins.
mod model;
// Model: semantic frame identity (what a record is, across captures).
mod frame;
// Model: host work, and how much of its time is its own.
mod host;
// Analysis: launch regions, one per artifact, and their explicit aggregate.
pub mod analysis;

pub use artifact::{Artifact, ArtifactSpec, Metadata, ReadSummary, ReadWarning};
pub use builder::{FlowRecord, Kept, ModelBuilder, ModelStorage, SliceRecord};
pub use frame::{
    normalize_source_path, FrameIdentity, SemanticFrame, SemanticFrameId, SEMANTIC_FRAME_ID_PREFIX,
    SEMANTIC_FRAME_VERSION,
};
pub use host::{
    HostDetail, HostKind, HostSelfTimes, OperationArgs, INDUCTOR_PLACEHOLDER, JAX_END_MARKER_PREFIX,
};
pub use identity::{EventRef, ReferenceError, Sha256Digest};
pub use index::Interner;
pub use join::{JoinedLaunches, LaunchJoin};
pub use model::{Progress, TraceModel};
pub use options::ModelOptions;
pub use provider::{Format, Provider};
pub use sink::{RecordSink, SinkSlot};
pub use slice::{
    CorrelationKey, FlowPhase, FlowPoint, HostTotal, IdValue, LaunchKind, LaunchProof, NameId,
    Slice, SliceClass, Unproven,
};

/// The README's examples are compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// The codes of this crate's errors, each with its one-line meaning:
/// [`ReferenceError`], [`analysis::ArtifactReused`] and
/// [`analysis::OutOfOrder`].
pub const ERROR_CODES: &[(&str, &str)] = &[
    (
        "invalid_reference",
        "a digest or event reference does not parse",
    ),
    (
        "artifact_reused",
        "one artifact given twice to an aggregate: its counts would be added twice",
    ),
    (
        "out_of_order",
        "records given to a region builder out of time order",
    ),
];

/// This crate's version (its Cargo.toml `version`).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
