//! `opguard-census`: the symbolic-shape census of a traced step, its host-resolution
//! log against a declared set, and a two-width comparison that says whether the step
//! width is a free symbol — on named evidence.
//!
//! The core types:
//!
//! - [`Capture`]: an `opguard.census/capture-v1` record, parsed and validated (typed
//!   errors with a JSON path and a stable [`Error::code`]). A capture whose step
//!   axis is not a symbol — torch specialises sizes 0 and 1 — is refused
//!   (`step_axis_not_symbolic`), never read as a symbolic capture.
//! - [`FamilyTable`]: operator families, matched on the whole operator name with
//!   only the overload dropped; a default ships with the crate.
//! - [`Census`]: per family, operator calls, shape entries and non-numeric entries;
//!   totals beside them; the unclassified operators by name; a name-free SHA-256
//!   digest; the concrete-dimension multiset; the host-resolution log by line;
//!   `distinct_ops`.
//! - [`HostResolutionDiff`]: the log against a [`DeclaredHostResolutions`] set, as
//!   multisets: a seventeenth line fails, and so does a line converting twice where
//!   it converted once.
//! - [`WidthComparison`]: two captures of one step at two widths (and optionally a
//!   concrete control): `free_symbol` plus one named [`Check`] per piece of
//!   evidence, each with what it proves and what was measured.
//!
//! Every output type is `serde::Serialize` with stable field names.
//!
//! ```
//! use opguard_census::{Capture, Census, FamilyTable, WidthComparison};
//!
//! let at = |width: u64, sym: &str| {
//!     format!(r#"{{"format": "opguard.census/capture-v1", "label": "w{width}",
//!        "step_axis": "{sym}", "step_hint": {width},
//!        "ops": [{{"name": "aten.mm.default",
//!                  "shapes": [["{sym}", 5120], [5120, 17408], ["{sym}", 17408]]}},
//!                {{"name": "aten.add.Tensor", "shapes": [["{sym} + 1"], ["{sym} + 1"]]}}],
//!        "guards": ["28*{sym} <= 8192"], "replacements": {{}},
//!        "host_resolutions": []}}"#)
//! };
//! // Symbol names are not stable across captures; nothing depends on them.
//! let narrow = Capture::from_slice(at(2, "s0").as_bytes())?;
//! let wide = Capture::from_slice(at(8, "s77").as_bytes())?;
//!
//! let census = Census::compute(&narrow, &FamilyTable::default());
//! let gemm = census.family("gemm").unwrap();
//! assert_eq!((gemm.ops, gemm.shape_entries, gemm.non_numeric), (1, 6, 2));
//! assert_eq!(census.totals.non_numeric, 4);
//! census.require_classified()?;
//!
//! let cmp = WidthComparison::compare(&narrow, &wide, None)?;
//! assert!(cmp.free_symbol, "{}", cmp.verdict);
//! assert!(cmp.evidence.same_digest.held && cmp.evidence.same_digest.load_bearing);
//!
//! // A capture at width 1 cannot carry a symbol and is refused.
//! let err = Capture::from_slice(at(1, "s0").as_bytes()).unwrap_err();
//! assert_eq!(err.code(), "step_axis_not_symbolic");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # What the digest does not cover
//!
//! The digest is over operator names and tensor shapes with symbol names set aside:
//! symbols are renamed by first appearance and linear expressions (`28*s0`,
//! `s0 + 1`) are put in one term order, so two captures digest equal exactly when
//! their operator sequences and shapes are equal up to a renaming of symbols. It
//! does **not** cover scalar arguments, dtypes, strides, guards, replacements or host
//! resolutions. A value-level difference (one capture calls `scalar_tensor` where
//! the other calls `lift_fresh_copy`) is found with [`Census::distinct_ops`] or
//! [`WidthComparison::control_distinct_ops_differences`]. Where sympy's printing
//! order depends on symbol names — two symbols making their first appearance in the
//! same expression, or the arguments of a non-linear expression (`Max(s1, s0)`),
//! kept as written — equal structures can digest differently (a false "not free");
//! a different structure never digests equal.

// Data flow: capture document → its shapes and expressions → one pass of
// analysis → the census of one capture; two censuses → the width
// comparison; the host-resolution log → its diff against a declared set.

// Reader: the path-carrying readers every document here uses, on top of
// opguard-document's strict tree.
mod json;
// Reader: `opguard.census/capture-v1` records, parsed and validated.
mod capture;
// Reader: operator family tables (`opguard.census/families-v1`) and
// whole-name matching.
mod families;
// Model: the sympy-printed size, guard and replacement expressions torch
// writes: symbols, linear forms, relations, canonical rendering.
mod expr;
// Analysis: what a capture's guards admit for one size symbol (pins decided
// by the admitted values, not by the spelling).
mod admitted;
// Analysis: one pass over a capture's shapes (digest, concrete dimensions,
// per-operator counts, the step axis).
mod analysis;
// Writer: the census of one capture.
mod census;
// Analysis and writer: the two-width comparison (is the step axis a free
// symbol, on what evidence).
mod compare;
// Analysis: the host-resolution log against a declared set.
mod host;
// The crate's one error type and its codes.
mod error;

pub use json::DEFAULT_MAX_BYTES;

pub use capture::{
    Capture, Dim, FramesOrder, HostResolution, OpView, Replacement, Shape, CAPTURE_FORMAT,
    MIN_SYMBOLIC_WIDTH,
};

pub use families::{
    operator_base_name, FamilyTable, DEFAULT_FAMILIES_JSON, FAMILIES_FORMAT, UNCLASSIFIED,
};

pub use census::{
    host_resolutions_by_line, Census, ConcreteDim, FamilyRow, StepAxisReport, StepAxisStatus,
    Totals, Unclassified, CENSUS_FORMAT, NO_FRAME,
};

pub use compare::{
    CaptureSummary, Check, Evidence, GuardRelation, GuardRow, OpCountDiff, Specialisation,
    WidthComparison, COMPARISON_FORMAT,
};

pub use host::{DeclaredHostResolutions, HostResolutionDiff, LineDiff};

pub use error::{Error, ErrorKind, ERROR_CODES};

/// This crate's version (its Cargo.toml `version`), for tools that report what
/// they were built with (`opguard --version`).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The README's examples are compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
