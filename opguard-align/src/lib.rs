//! Align the operations of two runs of "the same" program, let a reviewer
//! record which pairs are comparable, and render a reviewed view to open in
//! Perfetto (seed 000, alignment maps v1).
//!
//! - [`Record`]: one operation of one run and rank — id, sequence, operator,
//!   callsite and stack, and flattened tensor summaries `io.inputs` /
//!   `io.outputs`. They come from an `opguard.records/v1` file
//!   ([`RecordsWriter`], [`read_records`]) or straight from PyTorch profiler
//!   traces recorded with shapes ([`records_from_profile`], or
//!   [`records_from_model`] from a trace model already read).
//! - [`export`] pairs the two runs per rank by an order-aware alignment
//!   ([`align_sequences`]) of run-invariant signatures and writes an
//!   `opguard.export/v1` view: one `X` event per operation, flows for
//!   active pairs, status lanes, first-observed difference markers.
//! - [`apply`] checks an [`AlignmentMap`] against such a view and renders a
//!   new one; nothing is written unless every rule holds, the original is
//!   never modified, and the [`Response`] says `verdict: not_evaluated`.
//! - [`validate_export`] checks a view's structure.
//!
//! The formats (`opguard.records/v1`, `opguard.export/v1`, alignment maps v1,
//! request protocol 1) and the resolution rules are specified in the
//! repository's `fixtures/align/README.md`, with one language-neutral case
//! per rule in `fixtures/align/map_cases.json`. Memory is bounded by the
//! operation index: inputs are streamed twice, never held whole. Everything
//! runs on the caller's thread unless the options ask for helper threads
//! (reading an input: [`ReaderOptions::decode_thread`](opguard_trace::ReaderOptions::decode_thread)
//! in [`ExportOptions::reader`], [`ApplyOptions::decode_thread`];
//! compressing, hashing and writing the output:
//! [`ExportOptions::output_thread`], [`ApplyOptions::output_thread`]);
//! the bytes written are the same either way.
//!
//! ```
//! use opguard_align::{apply, export_records, validate_export, Record, RecordsWriter, TensorSummary};
//!
//! let dir = tempfile::tempdir()?;
//! let op = |run: &str, seq: u64, name: &str, dtype: &str| Record {
//!     record_id: format!("{run}/{seq}"), run: run.into(), rank: 0, sequence: seq,
//!     op: name.into(), callsite: None, stack: vec![],
//!     io: opguard_align::Io {
//!         inputs: vec![TensorSummary { shape: vec![4, 8], dtype: dtype.into(), ..Default::default() }],
//!         outputs: vec![],
//!     },
//!     thread: None, ts_ns: None, dur_ns: None, origin: None,
//! };
//! let mut w = RecordsWriter::new(std::fs::File::create(dir.path().join("runs.jsonl"))?)?;
//! for r in [op("a", 0, "aten::mm", "float"), op("a", 1, "aten::relu", "float"),
//!           op("b", 0, "aten::to", "float"), op("b", 1, "aten::mm", "c10::Half"),
//!           op("b", 2, "aten::relu", "float")] {
//!     w.write(&r)?;
//! }
//! w.finish()?;
//!
//! let view = dir.path().join("view.json");
//! let summary = export_records(&dir.path().join("runs.jsonl"), &view)?;
//! assert_eq!((summary.pairs, summary.statuses.ok, summary.statuses.differs), (2, 2, 2));
//! assert_eq!(summary.statuses.unpaired, 1); // the extra aten::to shifts nothing
//! assert!(validate_export(&view)?.is_valid());
//!
//! // Reject the mm pair (operations 0 and 3 of the export).
//! let map = serde_json::json!({
//!     "version": 1,
//!     "artifact_sha256": summary.output_sha256,
//!     "reviews": [{
//!         "left_ref": format!("{}:0", summary.output_sha256),
//!         "right_ref": format!("{}:3", summary.output_sha256),
//!         "decision": "not_comparable",
//!         "reason": "the candidate computes in half precision by design",
//!         "evidence": [{"basis": "source_inference", "reference": "model.py:12"}]
//!     }]
//! });
//! std::fs::write(dir.path().join("map.json"), map.to_string())?;
//! let reviewed = dir.path().join("reviewed.json.gz");
//! let response = apply(&view, &dir.path().join("map.json"), &reviewed)?;
//! assert_eq!(response.verdict, "not_evaluated");
//! assert_eq!((response.pairs, response.statuses.not_comparable), (1, 2));
//! assert!(validate_export(&reviewed)?.is_valid());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// Data flow: records (from a records file or from profiler traces) →
// candidates by order-aware alignment → recorded-field comparison → an
// export/v1 view; view + alignment map → a reviewed view. Every view is
// written exclusively and can be validated.

// Reader: operation records and the `opguard.records/v1` file.
mod record;
// Reader: operation records from PyTorch profiler traces recorded with shapes.
mod profile;
// Analysis: order-aware alignment of two operation sequences (candidates).
mod sequence;
// Analysis: recorded-field agreement of tensor summaries.
mod compare;
// Model: the `opguard.export/v1` view: its layout, metadata and the one
// reader of its operation events.
mod format;
// Writer: records of two runs → candidates → an export/v1 view.
mod export;
// Reader: alignment maps v1, parsed and checked.
mod map;
// Analysis and writer: an alignment map applied to a view → a reviewed view.
mod apply;
// Analysis: the structural validator of export/v1 views.
mod validate;
// Writer: exclusive, all-or-nothing creation of a view file.
mod output;
// The crate's one error type and its codes.
mod error;

pub use apply::{
    apply, apply_request, apply_request_file, apply_request_file_with, apply_with, parse_request,
    ApplyOptions, DecisionCounts, Request, Response, MAX_REQUEST_BYTES, PROTOCOL_VERSION,
};
pub use error::{Error, ErrorKind, ERROR_CODES};
pub use export::{
    export, export_profile_records, export_profile_streams, export_profiles, export_records,
    export_request_file, export_with, CallsiteMatch, ExportOptions, ExportRequest, ExportSummary,
    InputWarning, ProfileStream,
};
pub use format::{
    Correspondence, ExportMetadata, FirstDifference, Peer, Selector, Selectors, Side, SourceInfo,
    Status, StatusCounts, Validation, ValidationCounts, CAT_OPERATION, EXPORT_FORMAT,
    MAX_EXPORT_BYTES, MAX_MAP_BYTES,
};
pub use map::{AlignmentMap, Basis, Decision, Evidence, Review, MAP_VERSION};
pub use profile::{
    records_from_model, records_from_profile, records_model_options, ProfileInput, ProfileRecords,
};
pub use record::{
    read_records, Callsite, Frame, Io, Record, RecordsWriter, TensorSummary, RECORDS_FORMAT,
};
pub use sequence::{align_sequences, Alignment, DEFAULT_ALIGNMENT_BUDGET};
pub use validate::{validate_export, ValidationReport};

/// This crate's version (its Cargo.toml `version`), for tools that report what
/// they were built with (`opguard --version`).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The README's examples are compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
