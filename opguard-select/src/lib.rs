//! The machine verdict that a selected Python callable is on the live path
//! and is the innermost one that launches the profiled kernel — from the
//! evidence in the trace alone — and a profile Top-N whose rows declare what
//! they are.
//!
//! * [`verdict_from_request_file`] reads a [`Request`] (selected
//!   `module:attr` target, device kernel symbol, declared probe candidates,
//!   and per capture process its trace and install log) and returns a
//!   [`Verdict`]: `ok`, `deepest_verified`, the [`Failure`] reasons, the
//!   counts and the per-process evidence. [`verdict`] and
//!   [`verdict_for_models`] take a parsed request.
//! * [`profile`] returns a [`ProfileDocument`]: the Top-N device rows by total
//!   device time, each with its [`EntityKind`] and the evidence it rests on;
//!   dispatcher aggregates are expanded into the kernels they launched.
//!
//! ```
//! use opguard_select::{verdict_from_request_file, Failure};
//!
//! // One server thread, as the PyTorch profiler writes it: an outer wrapper
//! // calls the launcher, which issues a Triton kernel (a correlation edge and
//! // no External id).
//! let trace = r#"{"traceEvents": [
//!   {"ph": "X", "cat": "user_annotation", "name": "opguard.seam::pkg.mod:outer",
//!    "pid": 1234, "tid": 1234, "ts": 0, "dur": 10, "args": {"External id": 1}},
//!   {"ph": "X", "cat": "user_annotation", "name": "opguard.seam::pkg.mod:Runner.run",
//!    "pid": 1234, "tid": 1234, "ts": 1, "dur": 5, "args": {"External id": 2}},
//!   {"ph": "X", "cat": "cuda_driver", "name": "cuLaunchKernel",
//!    "pid": 1234, "tid": 1234, "ts": 2, "dur": 0.5, "args": {"correlation": 7}},
//!   {"ph": "X", "cat": "kernel", "name": "fused_moe_kernel", "pid": 0, "tid": 7,
//!    "ts": 6, "dur": 4, "args": {"device": 0, "stream": 7, "correlation": 7}},
//!   {"ph": "s", "cat": "ac2g", "name": "ac2g", "pid": 1234, "tid": 1234, "ts": 2, "id": 7},
//!   {"ph": "f", "cat": "ac2g", "name": "ac2g", "pid": 0, "tid": 7, "ts": 6, "id": 7, "bp": "e"}
//! ], "schemaVersion": 1}"#;
//! let dir = tempfile::tempdir()?;
//! std::fs::write(dir.path().join("trace.pid-1234.json"), trace)?;
//!
//! let request = |target: &str| format!(r#"{{"protocol_version": 1,
//!     "target": "{target}", "device_kernel": "fused_moe_kernel",
//!     "capture_target": "{target}",
//!     "candidates": [{{"spec": "pkg.mod:outer"}}, {{"spec": "pkg.mod:Runner.run"}}],
//!     "processes": [{{"name": "pid-1234", "trace": "trace.pid-1234.json",
//!                     "installed": ["pkg.mod:outer", "pkg.mod:Runner.run"]}}]}}"#);
//! let path = dir.path().join("request.json");
//!
//! // The launcher is certified ...
//! std::fs::write(&path, request("pkg.mod:Runner.run"))?;
//! let v = verdict_from_request_file(&path)?;
//! assert!(v.ok && v.deepest_verified);
//! assert_eq!((v.target_marker_calls, v.matched_kernel_calls), (1, 1));
//!
//! // ... and the outer wrapper is refused: the launcher runs nested inside it.
//! std::fs::write(&path, request("pkg.mod:outer"))?;
//! let v = verdict_from_request_file(&path)?;
//! assert!(!v.ok && !v.deepest_verified);
//! assert_eq!(v.failed, [Failure::DeeperLiveCandidate]);
//! assert_eq!(v.deeper_live_candidates, ["pkg.mod:Runner.run"]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # The rules
//!
//! * Launch causality comes only from edges, through the trace model's
//!   qualified joins: a device row is attributed to a marker span when its
//!   `correlation` names exactly one host launch, or its `External id` names
//!   a host op, whose host event sits on the marker's own thread (same
//!   artifact, pid, tid) inside the span. The device row's own timestamps
//!   are never used. Rows with a correlation and no External id (Triton)
//!   are attributed by the correlation edge alone.
//! * Only host spans (`user_annotation`, `cpu_op`) establish nesting and
//!   calls; the device-timeline copies (`gpu_user_annotation`) are counted
//!   and otherwise ignored. Same-name, same-thread nested copies of one
//!   marker are one logical call (the outermost); every raw span still
//!   counts for causality.
//! * Deepest is settled by observed nesting: a candidate whose span sits
//!   inside a target span and launches the kernel from there fails the
//!   verdict. A declared depth adds a rejection (a candidate declared deeper
//!   that launches the kernel and was never seen enclosing the target),
//!   never a pass.
//! * Every probe must be installed in every process ("never probed" is
//!   `missing_candidate_markers`, apart from "probed and never observed",
//!   `installed_but_never_live_candidates`, which is reported and does not
//!   fail). Every capture process must pass; a process without a trace fails
//!   with `capture_process_trace_missing`. Each trace is its own artifact,
//!   so correlation ids of different processes never meet; inside one merged
//!   trace a correlation naming several launches draws no edge.
//! * A head naming no device symbol is refused at admission
//!   ([`ErrorKind::NoDeviceSymbol`]); a kernel name without template arguments
//!   that meets several instantiations fails with `device_kernel_ambiguous`.
//!   Kernel names are compared with [`opguard_kernel_name::matches`].

// Data flow, seam verdict: request → each process's trace model → seam
// analysis per process → the verdict over all of them → verdict document.
// Profile: trace model → Top-N rows → profile document.

// Reader: the seam-verdict request (protocol 1): target, candidates, and
// where each capture process left its trace.
mod request;
// Analysis: one process, one trace: marker spans, launch causality by edge,
// observed host nesting of the probes.
mod seam;
// Analysis: from a request to a verdict: admission, reading each trace,
// per-process verdicts, the verdict over all of them.
mod evaluate;
// Writer: the verdict document and the evidence each field rests on.
mod verdict;
// Analysis and writer: profile Top-N rows that declare their entity kind.
mod profile;
// The crate's one error type and its codes.
mod error;

pub use request::{
    CandidateSpec, ProcessId, ProcessSpec, Refusal, Request, DEFAULT_MARKER_PREFIX,
    MAX_REQUEST_BYTES, PROTOCOL_VERSION,
};

pub use evaluate::{
    verdict, verdict_for_models, verdict_from_request_file, verdict_from_request_file_with,
    verdict_with, VerdictOptions,
};

pub use verdict::{
    BestProcess, CandidateEvidence, Failure, MatchedKernelName, ProcessVerdict, RefusedCandidate,
    Seen, Verdict, VERDICT_FORMAT,
};

pub use profile::{
    profile, profile_model, profile_with, EntityKind, ExpandedAggregate, HostEvidence, HostProfile,
    HostRow, NameTime, ProfileDocument, ProfileRow, ProfiledTrace, RegionRow, RowEvidence,
    ShapeTime, ENTITY_KIND_CONTRACT, PROFILE_FORMAT, SELF_TIME_RULE,
};

pub use error::{Error, ErrorKind, ERROR_CODES};

/// This crate's version (its Cargo.toml `version`), for tools that report what
/// they were built with (`opguard --version`).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The README's examples are compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
