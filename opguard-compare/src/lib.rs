//! Did a change make the job slower, where, and how sure are we: two sets
//! of runs compared entity by entity, as a regression gate for CI.
//!
//! - [`run_samples`] turns one trace model, whatever format fed it, into
//!   [`RunSamples`]: the whole run, and each step it marks (`ProfilerStep#N`,
//!   ranges named `step`, or the range [`CompareOptions::step`] names), each
//!   a cost per entity. Device work is joined by canonical kernel identity
//!   (so a renamed template spelling, a mangled symbol and the same kernel in
//!   another profiler's export are one entity, and two instantiations are
//!   two), host work by semantic frame; never by position or timestamp.
//!   Each sample also has whole-sample totals: device busy time, each
//!   stream's busy time, the launch region's length, the step's own length.
//! - [`compare`] puts each side's samples side by side: per entity the two
//!   distributions and their medians, the ratio of medians, the
//!   Hodges–Lehmann ratio with its interval, a two-sided Mann–Whitney test
//!   (exact for small samples), Benjamini–Hochberg over everything tested,
//!   and a [`Verdict`]; then the [`Gate`]. One sample per side is never a
//!   regression: it is `insufficient`, and the gate is `undecided`.
//! - [`compare_paths`] does all of it from files and directories;
//!   [`Comparison`] is the `opguard.compare/v1` document, read back by
//!   [`comparison_from_path`].
//!
//! The statistics are `opguard-stats`' (shared with `opguard-scaling`, held
//! to scipy there).
//!
//! One kernel 20% slower over eight steps, another unchanged:
//!
//! ```
//! use opguard_compare::{compare, CompareOptions, Cost, EntityKey, EntityKind, GateStatus, RunSamples, Verdict};
//!
//! let gemm = EntityKey::new(EntityKind::Kernel, "gemm<float>");
//! let relu = EntityKey::new(EntityKind::Kernel, "relu<float>");
//! let run = |file: &str, gemm_ns: i64| {
//!     let mut run = RunSamples::new(file);
//!     for step in 0..8 {
//!         let noise = [0, 30, -20, 10, -40, 20, -10, 40][step];
//!         run.push_step(format!("ProfilerStep#{step}"), [
//!             (gemm.clone(), "gemm".to_owned(), Cost { ns: gemm_ns + noise, calls: 1 }),
//!             (relu.clone(), "relu".to_owned(), Cost { ns: 500 - noise, calls: 1 }),
//!         ]);
//!     }
//!     run
//! };
//! let comparison = compare(&[run("base.json", 1_000)], &[run("test.json", 1_200)], &CompareOptions::new())?;
//! assert_eq!(comparison.gate.status, GateStatus::Failed);
//! assert_eq!(comparison.gate.failing, ["gemm"]);
//! let relu = comparison.entities.iter().find(|e| e.name == "relu").expect("compared");
//! assert_eq!(relu.verdict, Verdict::Unchanged);
//!
//! // One run of one sample a side: nothing can be said, and the gate says so.
//! let mut once = RunSamples::new("a.json");
//! once.push_step("ProfilerStep#0", [(gemm.clone(), "gemm".to_owned(), Cost { ns: 1_000, calls: 1 })]);
//! let mut again = RunSamples::new("b.json");
//! again.push_step("ProfilerStep#0", [(gemm, "gemm".to_owned(), Cost { ns: 9_000, calls: 1 })]);
//! let comparison = compare(&[once], &[again], &CompareOptions::new())?;
//! assert_eq!(comparison.gate.status, GateStatus::Undecided);
//! assert_eq!(comparison.entities[0].verdict, Verdict::Insufficient);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// Data flow: traces (any format) → trace models → per-run samples (cost
// per entity per step) → the comparison (tests, verdicts, gate) → the
// opguard.compare/v1 document.

// Model: what is compared and how it is joined.
mod entity;
// The settings a comparison is made with.
mod options;
// Analysis, per run: a trace model → its samples.
mod samples;
// Analysis, across runs: samples → tests, verdicts, the gate.
mod compare;
// Writer: the comparison document.
mod report;
// Reader: files and directories → runs → the comparison.
mod run;
// Reader: a comparison document read back.
mod document;
// The crate's error and its codes.
mod error;

pub use compare::compare;
pub use document::{comparison_from_json, comparison_from_path, MAX_DOCUMENT_BYTES};
pub use entity::{Cost, EntityKey, EntityKind};
pub use error::{Error, ErrorKind, ERROR_CODES};
pub use options::{CompareOptions, DEFAULT_CONFIDENCE, DEFAULT_FAIL_ABOVE, DEFAULT_FDR};
pub use report::{
    Comparison, Distribution, EntityComparison, Gate, GateStatus, RatioInterval, RunInfo,
    SampleUnit, Settings, Side, StepAssignment, UnmatchedEntity, Verdict, COMPARE_FORMAT,
};
pub use run::{compare_paths, read_side, side_inputs, SideInputs};
pub use samples::{is_step_name, run_samples, RunSamples, Sample};

/// This crate's version (its Cargo.toml `version`).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The README's examples are compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
