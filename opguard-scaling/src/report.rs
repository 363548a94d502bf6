//! The scaling report and its entries (the JSON `opguard scaling --json`
//! prints).

use crate::metric::{Metric, Unit};

/// What a scaling run found.
///
/// Every series (one variant, one semantic frame, one build/source state,
/// one metric and unit) lands in exactly one of `hotspots`,
/// `insufficient` and `not_correlatable`; every frame whose identity is
/// partial lands in `unmatched`. So an empty `hotspots` with an empty
/// `unmatched` means "nothing correlated", while a non-empty `unmatched`
/// says identity kept some cost out of the comparison.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct ScalingReport {
    /// Every tested series, with rho and p-values, sorted by adjusted
    /// p-value, then frame id (then variant, build id, source state). No
    /// significance threshold is applied: the caller chooses one.
    pub hotspots: Vec<Hotspot>,
    /// Frames whose identity is partial, per trial: never merged with
    /// anything, never dropped.
    pub unmatched: Vec<Unmatched>,
    /// Series with fewer than three samples or fewer than two distinct
    /// inputs, sorted by frame id.
    pub insufficient: Vec<Insufficient>,
    /// Series with enough samples but no rho (a constant cost), sorted by
    /// frame id.
    pub not_correlatable: Vec<NotCorrelatable>,
}

/// What a series is: one variant, one semantic frame (qualified by build id
/// and source state), one metric and unit.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub struct SeriesInfo {
    /// The `semantic-frame/v1` id.
    pub semantic_frame_id: String,
    /// The frame's normalized name.
    pub name: String,
    /// The frame's category.
    pub category: String,
    /// Source file, when the frame names one.
    pub file: Option<String>,
    /// Source line, when the frame names one.
    pub line: Option<u32>,
    /// The variant.
    pub variant: String,
    /// The build id its trials were captured from, when stated.
    pub build_id: Option<String>,
    /// The source state its trials were captured from, when stated.
    pub source_state: Option<String>,
    /// The metric.
    pub metric: Metric,
    /// The unit.
    pub unit: Unit,
}

/// One tested series.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Hotspot {
    /// Which series (its keys appear at the top level of the JSON entry).
    #[serde(flatten)]
    pub series: SeriesInfo,
    /// Spearman's rho between input and cost.
    pub spearman_rho: f64,
    /// Two-sided p-value of rho.
    pub p_value: f64,
    /// Benjamini–Hochberg adjusted p-value over all tested series.
    pub adjusted_p_value: f64,
    /// How many series were tested (the BH family size).
    pub tested_hypothesis_count: usize,
    /// How `adjusted_p_value` corrects for testing many series (seed 003's
    /// `multiplicity_method`).
    pub multiplicity_method: MultiplicityMethod,
    /// How many trials (one sample each) the series has.
    pub independent_trial_count: usize,
    /// The smallest input among them.
    pub supported_min: f64,
    /// The largest input among them.
    pub supported_max: f64,
}

/// A multiple-testing correction; serialized as seed 003 spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub enum MultiplicityMethod {
    /// Benjamini–Hochberg false-discovery-rate adjustment over every tested series.
    #[serde(rename = "benjamini-hochberg-fdr")]
    BenjaminiHochbergFdr,
}

/// Why a series was not tested for lack of data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum InsufficientReason {
    /// Fewer than [`MIN_SAMPLES`](crate::MIN_SAMPLES) trials contain the frame.
    #[serde(rename = "fewer_than_3_samples")]
    FewerThan3Samples,
    /// The trials that contain it cover fewer than
    /// [`MIN_DISTINCT_INPUTS`](crate::MIN_DISTINCT_INPUTS) input values.
    #[serde(rename = "fewer_than_2_distinct_inputs")]
    FewerThan2DistinctInputs,
}

/// A series with too little data to test.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Insufficient {
    /// Which series (its keys appear at the top level of the JSON entry).
    #[serde(flatten)]
    pub series: SeriesInfo,
    /// Why it was not tested.
    pub reason: InsufficientReason,
    /// How many trials contain the frame.
    pub independent_trial_count: usize,
    /// How many distinct inputs they cover.
    pub distinct_input_count: usize,
    /// The smallest input among them.
    pub supported_min: f64,
    /// The largest input among them.
    pub supported_max: f64,
    /// The trials, in input order.
    pub trial_ids: Vec<String>,
}

/// Why a series with enough data has no rho.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum NotCorrelatableReason {
    /// The cost is the same in every trial: rho is undefined (not 0).
    ConstantSeries,
}

/// A series with enough data but no defined correlation.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct NotCorrelatable {
    /// Which series (its keys appear at the top level of the JSON entry).
    #[serde(flatten)]
    pub series: SeriesInfo,
    /// Why there is no rho.
    pub reason: NotCorrelatableReason,
    /// How many trials contain the frame.
    pub independent_trial_count: usize,
    /// The smallest input among them.
    pub supported_min: f64,
    /// The largest input among them.
    pub supported_max: f64,
    /// The trials, in input order.
    pub trial_ids: Vec<String>,
}

/// A frame whose semantic identity is partial, in one trial: its cost was
/// kept out of every series and is accounted for here.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Unmatched {
    /// The trial.
    pub trial_id: String,
    /// The trial's variant.
    pub variant: String,
    /// The trial's input.
    pub input: f64,
    /// The event category.
    pub category: String,
    /// The event name as written.
    pub name: String,
    /// Why the identity is partial (from `opguard-trace`).
    pub reason: String,
    /// The metric.
    pub metric: Metric,
    /// The unit.
    pub unit: Unit,
    /// The metric's total over these events in the trial.
    pub value: i64,
    /// How many events.
    pub occurrence_count: u64,
    /// The first such event (`<artifact sha256>:<index>`; artifact-local,
    /// for finding it, never for matching).
    pub first_occurrence: String,
}
