//! The verdict document: the seed's contract fields, per-process verdicts
//! and the evidence each rests on.

use serde::Serialize;

use crate::request::ProcessId;

/// The `format` of a [`Verdict`] document.
pub const VERDICT_FORMAT: &str = "opguard.select.verdict/v1";

/// Why a verdict failed. Serialized as its [`Failure::code`]; the codes are
/// the contract and never change meaning. Lists are kept in this order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Failure {
    /// The request names no capture process.
    NoCaptureProcesses,
    /// The capture recorded no target (`capture_target` is null).
    CaptureTargetMissing,
    /// The capture recorded a different callable than the selected target.
    CaptureTargetMismatch,
    /// A process named in the install log left no trace (null or a path
    /// that does not exist).
    CaptureProcessTraceMissing,
    /// A declared probe candidate has no installed marker in a process
    /// (never probed, refused at install included).
    CandidateMarkerMissing,
    /// The target's marker has no host span in a process.
    TargetMarkerMissing,
    /// No device row of a process's trace matches the device kernel (a
    /// CPU-only trace, or another kernel).
    DeviceKernelNotObserved,
    /// The device kernel, named without template arguments, matches several
    /// distinct instantiations among the rows attributed to the target.
    /// Instantiations that run only outside the target do not count: the
    /// target's own launches decide which kernel its short name means.
    DeviceKernelAmbiguous,
    /// No matching device row was launched, by edge, from inside a target
    /// span on the target's own thread.
    DeviceKernelNotUnderTarget,
    /// A live candidate observed nested inside the target also launches the
    /// kernel: the target is not the innermost launcher.
    DeeperLiveCandidate,
    /// A candidate that declares a greater depth than the target launches
    /// the kernel and was never observed enclosing the target.
    DeclaredDeeperLiveCandidate,
}

impl Failure {
    /// The stable code (`capture_target_mismatch`, ...).
    pub fn code(self) -> &'static str {
        match self {
            Failure::NoCaptureProcesses => "no_capture_processes",
            Failure::CaptureTargetMissing => "capture_target_missing",
            Failure::CaptureTargetMismatch => "capture_target_mismatch",
            Failure::CaptureProcessTraceMissing => "capture_process_trace_missing",
            Failure::CandidateMarkerMissing => "candidate_marker_missing",
            Failure::TargetMarkerMissing => "target_marker_missing",
            Failure::DeviceKernelNotObserved => "device_kernel_not_observed",
            Failure::DeviceKernelAmbiguous => "device_kernel_ambiguous",
            Failure::DeviceKernelNotUnderTarget => "device_kernel_not_under_target",
            Failure::DeeperLiveCandidate => "deeper_live_candidate",
            Failure::DeclaredDeeperLiveCandidate => "declared_deeper_live_candidate",
        }
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.code())
    }
}

/// The machine verdict over every capture process.
///
/// Counts at this level are sums over the evaluated processes
/// (`counts_scope: "sum_over_processes"`); each process's own counts are in
/// [`Verdict::processes`]. The one field that names a single process,
/// `best_process_meta_file`, lives in [`Verdict::best_process`], next to
/// that process's name only.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Verdict {
    /// [`VERDICT_FORMAT`].
    pub format: &'static str,
    /// Every process passed and the request-level checks held.
    pub ok: bool,
    /// On every process: the target is live, launches the kernel, the
    /// candidate set was fully probed, the kernel is unambiguous, and no
    /// live candidate observed (or declared) deeper launches it.
    pub deepest_verified: bool,
    /// Every failure, request-level and from any process, deduplicated, in
    /// [`Failure`] order.
    pub failed: Vec<Failure>,
    /// The selected callable.
    pub target: String,
    /// The marker the target is observed under.
    pub target_marker: String,
    /// The device kernel symbol (trimmed).
    pub device_kernel: String,
    /// The capture's recorded target.
    pub capture_target: Option<String>,
    /// What the counts below are: `sum_over_processes`.
    pub counts_scope: &'static str,
    /// Logical target calls: host marker spans, same-name same-thread nested
    /// copies counted once (outermost).
    pub target_marker_calls: u64,
    /// Raw host spans of the target marker (nested copies included).
    pub target_marker_spans: u64,
    /// Device rows matching the kernel, launched (by correlation or
    /// External-id edge) from inside a target span on the span's thread.
    pub matched_kernel_calls: u64,
    /// Distinct External ids of device rows (any kernel) whose External-id
    /// host op sits inside a target span on its thread.
    pub correlated_external_ids: u64,
    /// Device rows (any kernel) whose proven launch (correlation) sits
    /// inside a target span on its thread.
    pub launch_correlation_edges: u64,
    /// Every probe: the declared candidates, and the target when it was not
    /// declared.
    pub declared_candidates: Vec<String>,
    /// Probes whose marker was installed in every process.
    pub candidate_targets_tested: Vec<String>,
    /// Probes with a host span in at least one evaluated process.
    pub live_candidates: Vec<String>,
    /// Candidates observed nested inside the target that launch the kernel,
    /// in any process.
    pub deeper_live_candidates: Vec<String>,
    /// Candidates declaring a greater depth than the target that launch the
    /// kernel and were never observed enclosing it, in any process.
    pub declared_deeper_live_candidates: Vec<String>,
    /// Probes without an installed marker in at least one process ("never
    /// probed").
    pub missing_candidate_markers: Vec<String>,
    /// Probes installed somewhere and live nowhere ("probed and never
    /// observed"): reported, never read as "not deeper".
    pub installed_but_never_live_candidates: Vec<String>,
    /// One verdict per capture process, in request order.
    pub processes: Vec<ProcessVerdict>,
    /// The best evaluated process (passing first, then most matched
    /// launches, then most target calls; first in request order on ties).
    pub best_process: Option<BestProcess>,
}

/// The single best process and its meta file: nothing here is summed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct BestProcess {
    /// The process name.
    pub process: String,
    /// Its capture meta file (its trace file when the request names no
    /// meta), as written in the request.
    pub best_process_meta_file: String,
}

/// The verdict of one capture process; every count is this process's own.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ProcessVerdict {
    /// The process name.
    pub name: String,
    /// Its trace, as written in the request.
    pub trace: Option<String>,
    /// The host pid the process was restricted to, if the request gave one.
    pub pid: Option<ProcessId>,
    /// Whether its trace was read and evaluated.
    pub evaluated: bool,
    /// SHA-256 of the trace file.
    pub trace_sha256: Option<String>,
    /// The trace's provider (`kineto_cuda`, `kineto_rocm`, ...).
    pub provider: Option<String>,
    /// This process passed.
    pub ok: bool,
    /// See [`Verdict::deepest_verified`], for this process.
    pub deepest_verified: bool,
    /// This process's failures.
    pub failed: Vec<Failure>,
    /// Logical target calls.
    pub target_marker_calls: u64,
    /// Raw host spans of the target marker.
    pub target_marker_spans: u64,
    /// Device-timeline copies of the target marker (`gpu_user_annotation`):
    /// counted, never used for nesting or calls.
    pub target_device_projected_spans: u64,
    /// Matching device rows attributed to the target.
    pub matched_kernel_calls: u64,
    /// Of those, how many a launch-correlation edge attributes.
    pub matched_by_launch_correlation: u64,
    /// Of those, how many an External-id edge attributes.
    pub matched_by_external_id: u64,
    /// Device rows in the trace matching the kernel, attributed or not.
    pub matched_kernel_rows: u64,
    /// See [`Verdict::correlated_external_ids`].
    pub correlated_external_ids: u64,
    /// See [`Verdict::launch_correlation_edges`].
    pub launch_correlation_edges: u64,
    /// Device rows whose correlation id proves nothing: it names several
    /// launch rows of their process, or the trace merges processes that
    /// reuse ids and the row's process is not established. No correlation
    /// edge is drawn for them.
    pub ambiguous_correlation_rows: u64,
    /// The distinct device symbols the kernel matched.
    pub matched_kernel_names: Vec<MatchedKernelName>,
    /// Probes installed here.
    pub candidate_targets_tested: Vec<String>,
    /// Probes with a host span here.
    pub live_candidates: Vec<String>,
    /// See [`Verdict::deeper_live_candidates`].
    pub deeper_live_candidates: Vec<String>,
    /// See [`Verdict::declared_deeper_live_candidates`].
    pub declared_deeper_live_candidates: Vec<String>,
    /// Probes not installed here.
    pub missing_candidate_markers: Vec<String>,
    /// Probes the installer refused here, with its reason.
    pub refused_candidates: Vec<RefusedCandidate>,
    /// Probes installed here with no host span here.
    pub installed_but_never_live_candidates: Vec<String>,
    /// Install-log entries that are not probes of this request.
    pub undeclared_installed: Vec<String>,
    /// The evidence per probe.
    pub candidates: Vec<CandidateEvidence>,
}

/// A refused probe.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct RefusedCandidate {
    /// The callable.
    pub spec: String,
    /// The installer's reason.
    pub reason: String,
}

/// One distinct device symbol the kernel matched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct MatchedKernelName {
    /// The symbol as the trace writes it.
    pub name: String,
    /// Its canonical identity (`opguard-kernel-name`).
    pub identity: String,
    /// What the match rests on (`exact`, `base_only`, ...).
    pub basis: String,
    /// Device rows with this name.
    pub rows: u64,
    /// Of those, attributed to the target.
    pub attributed: u64,
    /// Where its rows were seen: only this field's `under_target` and
    /// `under_and_outside_target` names decide `device_kernel_ambiguous`.
    pub seen: Seen,
}

/// Where the rows of one matched instantiation were launched from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Seen {
    /// Every row is attributed to the target.
    UnderTarget,
    /// Some rows are attributed to the target, others are not.
    UnderAndOutsideTarget,
    /// No row is attributed to the target.
    OutsideTarget,
}

impl Seen {
    /// Where `attributed` of `rows` rows were seen.
    pub fn of(rows: u64, attributed: u64) -> Seen {
        match attributed {
            0 => Seen::OutsideTarget,
            a if a >= rows => Seen::UnderTarget,
            _ => Seen::UnderAndOutsideTarget,
        }
    }

    /// Whether some row was attributed to the target.
    pub fn under_target(self) -> bool {
        self != Seen::OutsideTarget
    }
}

/// What the trace shows about one probe.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct CandidateEvidence {
    /// The callable.
    pub spec: String,
    /// The marker it is observed under.
    pub marker: String,
    /// Its self-reported depth.
    pub declared_depth: Option<i64>,
    /// Whether it is the target.
    pub is_target: bool,
    /// Whether its marker was installed here.
    pub installed: bool,
    /// Logical calls (host spans, nested same-name copies once).
    pub live_calls: u64,
    /// Raw host spans.
    pub spans: u64,
    /// Device-timeline copies (never nesting evidence).
    pub device_projected_spans: u64,
    /// Logical calls observed inside a target span on the same thread.
    pub nested_in_target_calls: u64,
    /// Logical calls observed enclosing a target span on the same thread.
    pub encloses_target_calls: u64,
    /// Matching device rows launched from inside its spans.
    pub kernel_launches: u64,
    /// Of those, launched from inside its spans that sit inside a target
    /// span: the launches that make it deeper than the target.
    pub kernel_launches_nested_in_target: u64,
}

impl CandidateEvidence {
    /// The row of a probe in a process whose trace was not read.
    pub(crate) fn unobserved(
        probe: &crate::request::Probe,
        is_target: bool,
        installed: bool,
    ) -> Self {
        CandidateEvidence {
            spec: probe.spec.clone(),
            marker: probe.marker.clone(),
            declared_depth: probe.declared_depth,
            is_target,
            installed,
            live_calls: 0,
            spans: 0,
            device_projected_spans: 0,
            nested_in_target_calls: 0,
            encloses_target_calls: 0,
            kernel_launches: 0,
            kernel_launches_nested_in_target: 0,
        }
    }
}
