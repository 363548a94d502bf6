//! Writer: the comparison as a serialisable document,
//! `opguard.compare/v1`.

use serde::{Deserialize, Serialize};

use crate::entity::EntityKind;
use opguard_stats::MannWhitneyMethod;

/// The `format` of a [`Comparison`].
pub const COMPARE_FORMAT: &str = "opguard.compare/v1";

/// Two sides compared: per entity and per whole-sample total, the two
/// distributions, their ratio with its interval, the test, and a verdict;
/// then the gate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Comparison {
    /// [`COMPARE_FORMAT`].
    pub format: String,
    /// What the comparison decided with.
    pub settings: Settings,
    /// What one sample is: a step, or a whole run.
    pub sample_unit: SampleUnit,
    /// Why: every trace marks steps, or which one does not.
    pub sample_unit_reason: String,
    /// The baseline: its runs, where they came from, its samples.
    pub baseline: Side,
    /// The candidate, likewise.
    pub candidate: Side,
    /// Hypotheses tested: the family Benjamini–Hochberg adjusts over
    /// (entities and totals that were neither insufficient nor on one side
    /// only).
    pub tested: usize,
    /// The gate's outcome.
    pub gate: Gate,
    /// Whole-sample figures (device busy time, each stream's busy time,
    /// the launch region, the step), in that order.
    pub totals: Vec<EntityComparison>,
    /// Kernels, memory operations, host operators, regions, runtime calls:
    /// regressions first (the largest ratio first), then improvements,
    /// unchanged, insufficient, and entities of one side only; within each,
    /// the larger median first.
    pub entities: Vec<EntityComparison>,
    /// Work whose identity is partial, per side and file: never joined, so
    /// never compared.
    pub unmatched: Vec<UnmatchedEntity>,
}

/// The settings a comparison was made with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// A regression beyond this ratio fails the gate (0.05: 5%).
    pub fail_above: f64,
    /// The false discovery rate.
    pub fdr: f64,
    /// The confidence of each ratio interval.
    pub confidence: f64,
    /// The step range asked for, if any.
    pub step: Option<String>,
    /// Whether Python functions were compared.
    pub python_frames: bool,
    /// The test: `mann_whitney_u` (two-sided).
    pub test: String,
    /// The interval: `hodges_lehmann_ratio` (on log times, Moses).
    pub interval: String,
}

/// What one sample is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SampleUnit {
    /// One step of a run: eight steps of one trace are eight samples.
    Step,
    /// One whole run.
    Run,
}

/// One side of the comparison.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Side {
    /// Its runs, in the order given.
    pub runs: Vec<RunInfo>,
    /// The providers its runs came from (`kineto_cuda`, `nsight_systems`,
    /// `rocprofv3`, ...), sorted.
    pub providers: Vec<String>,
    /// The formats they were read from, sorted.
    pub formats: Vec<String>,
    /// Its samples, in order: each entity's `samples_ns` follows it.
    pub samples: Vec<String>,
}

/// One run (one trace).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunInfo {
    /// The trace as named.
    pub file: String,
    /// The SHA-256 of its bytes.
    pub artifact: String,
    /// Who wrote it.
    pub provider: String,
    /// The format it was read from.
    pub format: String,
    /// The producer's name and version, when the capture states them.
    pub producer: Option<String>,
    /// `distributedInfo.rank`, when stated.
    pub rank: Option<i64>,
    /// The steps it marks, in order.
    pub steps: Vec<String>,
    /// How its slices were placed in steps (absent when it marks none).
    pub step_assignment: Option<StepAssignment>,
}

/// How a run's slices were placed in its steps.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StepAssignment {
    /// Device slices placed by their proven launch's step.
    pub device_by_launch: u64,
    /// Device slices placed by a device-timeline step annotation.
    pub device_by_device_annotation: u64,
    /// Device slices whose launch is not proven, placed by their own start
    /// in a host step range (one clock domain: the run's own).
    pub device_by_time: u64,
    /// Device slices in no step (before the first, after the last).
    pub device_outside_steps: u64,
    /// Host slices in no step.
    pub host_outside_steps: u64,
}

/// The verdict on one entity or total.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Slower in the candidate, significantly at the FDR.
    Regressed,
    /// Faster in the candidate, significantly at the FDR.
    Improved,
    /// Tested, and no significant difference.
    Unchanged,
    /// Not tested: too few samples for the test to ever reach the FDR
    /// (`why` says how many and what the smallest p-value would be).
    Insufficient,
    /// In the baseline only.
    OnlyInBaseline,
    /// In the candidate only.
    OnlyInCandidate,
}

impl Verdict {
    /// The name the JSON uses.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Regressed => "regressed",
            Verdict::Improved => "improved",
            Verdict::Unchanged => "unchanged",
            Verdict::Insufficient => "insufficient",
            Verdict::OnlyInBaseline => "only_in_baseline",
            Verdict::OnlyInCandidate => "only_in_candidate",
        }
    }
}

/// One side's samples of one entity.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Distribution {
    /// The entity's time in each sample of the side, ns, in the side's
    /// sample order; 0 where it did not run.
    pub samples_ns: Vec<i64>,
    /// Their median, ns (absent when the side has no sample).
    pub median_ns: Option<f64>,
    /// Calls (slices, or for a total the device activities) over all
    /// samples.
    pub calls: u64,
}

/// The Hodges–Lehmann ratio and its interval.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RatioInterval {
    /// The median of every candidate/baseline sample ratio.
    pub estimate: f64,
    /// Lower bound.
    pub low: f64,
    /// Upper bound.
    pub high: f64,
    /// The confidence the interval has (at least the one asked for).
    pub confidence: f64,
}

/// One entity (or total) compared.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EntityComparison {
    /// What it is.
    pub kind: EntityKind,
    /// What joins it: canonical kernel identity, semantic frame id, or a
    /// stream's label.
    pub key: String,
    /// How it is shown.
    pub name: String,
    /// The verdict.
    pub verdict: Verdict,
    /// Why, for `insufficient` and the one-side verdicts.
    pub why: Option<String>,
    /// The baseline's samples.
    pub baseline: Distribution,
    /// The candidate's samples.
    pub candidate: Distribution,
    /// Candidate median over baseline median (absent when the baseline's
    /// median is 0 or a side has none).
    pub ratio: Option<f64>,
    /// The Hodges–Lehmann ratio with its interval at the configured
    /// confidence (absent when not tested, when a sample is 0 — a ratio to
    /// no time has no logarithm — or when the samples cannot reach the
    /// confidence; `interval_note` says which).
    pub ratio_interval: Option<RatioInterval>,
    /// Why there is no interval, when there is none for a tested entity.
    pub interval_note: Option<String>,
    /// The two-sided Mann–Whitney p-value.
    pub p_value: Option<f64>,
    /// The Benjamini–Hochberg adjusted p-value over every tested entity and
    /// total.
    pub q_value: Option<f64>,
    /// How the p-value was computed (`exact`, `asymptotic`).
    pub test: Option<MannWhitneyMethod>,
    /// Whether this entity fails the gate: regressed, with a ratio above
    /// `1 + fail_above` (or a baseline median of 0).
    pub fails_gate: bool,
}

/// The gate's outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GateStatus {
    /// Something tested regressed beyond the threshold at the FDR.
    Failed,
    /// Something was tested, and nothing regressed beyond the threshold.
    Passed,
    /// Nothing could be tested (one sample per side, too few steps):
    /// nothing was decided, and the gate does not guess.
    Undecided,
}

impl GateStatus {
    /// The name the JSON uses.
    pub fn as_str(self) -> &'static str {
        match self {
            GateStatus::Failed => "failed",
            GateStatus::Passed => "passed",
            GateStatus::Undecided => "undecided",
        }
    }
}

/// The gate: did anything regress beyond the threshold at the FDR?
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Gate {
    /// Failed, passed or undecided.
    pub status: GateStatus,
    /// The names of what fails it, worst first.
    pub failing: Vec<String>,
    /// Regressed, but within the threshold.
    pub regressed_within_threshold: usize,
    /// Improved.
    pub improved: usize,
    /// Not tested for too few samples.
    pub insufficient: usize,
    /// In the baseline only.
    pub only_in_baseline: usize,
    /// In the candidate only.
    pub only_in_candidate: usize,
    /// One sentence saying all of it.
    pub message: String,
    /// What the verdicts cannot tell apart, each `code: explanation`:
    /// `single_run` (a side is one run, whose steps share its machine's
    /// state: a drift of the whole run reads as a change), `broad_shift`
    /// (most tested entities moved one way: more like a machine slower or
    /// faster for the whole run than a change), `low_power` (a pass with so
    /// few samples for so many hypotheses that one regression alone could
    /// never have reached the FDR). They never change the status; they say how far to trust it.
    pub caveats: Vec<String>,
}

/// Work of one side whose identity is partial.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnmatchedEntity {
    /// `baseline` or `candidate`.
    pub side: String,
    /// The run's file.
    pub file: String,
    /// What it would have been.
    pub kind: EntityKind,
    /// The name as written.
    pub name: String,
    /// Why its identity is partial.
    pub reason: String,
    /// Its total time in the run, ns.
    pub cost_ns: i64,
    /// Its slices.
    pub calls: u64,
}

impl Comparison {
    /// Every entity and total, totals first.
    pub fn all(&self) -> impl Iterator<Item = &EntityComparison> {
        self.totals.iter().chain(&self.entities)
    }
}
