//! Across trials: one series per (variant, semantic frame, metric, unit),
//! Spearman's rho per series, Benjamini–Hochberg over all tested series.

use std::collections::{BTreeMap, HashMap};

use crate::cost::{FrameCost, TrialCosts};
use crate::error::{Error, ErrorKind};
use crate::metric::{Metric, Unit};
use crate::report::{
    Hotspot, Insufficient, InsufficientReason, MultiplicityMethod, NotCorrelatable,
    NotCorrelatableReason, ScalingReport, SeriesInfo, Unmatched,
};
use opguard_stats::{benjamini_hochberg, integer_ranks, spearman, Spearman};

/// A series needs at least this many trials (one sample each).
pub const MIN_SAMPLES: usize = 3;

/// A series needs at least this many distinct input values.
pub const MIN_DISTINCT_INPUTS: usize = 2;

/// What identifies a series. The semantic frame is qualified by the build
/// id and source state its trials state (an unstated one is its own value),
/// so frames of different builds or source states never meet. No occurrence
/// id, artifact digest or trial id is part of it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct SeriesKey<'a> {
    variant: &'a str,
    semantic_frame_id: &'a str,
    build_id: Option<&'a str>,
    source_state: Option<&'a str>,
    metric: Metric,
    unit: Unit,
}

struct Sample<'a> {
    input: f64,
    value: i64,
    trial_id: &'a str,
    frame: &'a FrameCost,
}

struct Series<'a> {
    frame: &'a FrameCost,
    samples: Vec<Sample<'a>>,
}

/// What a frame is called, apart from its id: the frames of one description
/// that carry several ids across trials did not join because of identity.
type Description<'a> = (
    &'a str,
    &'a str,
    &'a str,
    Option<&'a str>,
    Option<&'a str>,
    Metric,
    Unit,
);

fn description<'a>(key: &SeriesKey<'a>, frame: &'a FrameCost) -> Description<'a> {
    (
        key.variant,
        &frame.category,
        &frame.name,
        key.build_id,
        key.source_state,
        key.metric,
        key.unit,
    )
}

/// Every description with the distinct `(id, file, line)` its series carry.
fn descriptions<'a>(
    groups: &BTreeMap<SeriesKey<'a>, Series<'a>>,
) -> BTreeMap<Description<'a>, Vec<&'a FrameCost>> {
    let mut index: BTreeMap<Description<'a>, Vec<&'a FrameCost>> = BTreeMap::new();
    for (key, series) in groups {
        index
            .entry(description(key, series.frame))
            .or_default()
            .push(series.frame);
    }
    index
}

/// Why a short series is an identity split, when another series of the same
/// description carries a different id.
fn identity_split(
    key: &SeriesKey<'_>,
    frame: &FrameCost,
    index: &BTreeMap<Description<'_>, Vec<&FrameCost>>,
) -> Option<String> {
    let same = index.get(&description(key, frame))?;
    if same.len() < 2 {
        return None;
    }
    let place = |f: &FrameCost| match (&f.file, f.line) {
        (Some(file), Some(line)) => format!("{file}:{line}"),
        (Some(file), None) => file.clone(),
        _ => "no source location".to_owned(),
    };
    let others: Vec<String> = same
        .iter()
        .filter(|f| f.semantic_frame_id != frame.semantic_frame_id)
        .map(|f| format!("{} ({})", f.semantic_frame_id, place(f)))
        .collect();
    Some(format!(
        "identity differs across trials: {:?} here is {} ({}), in other trials {}; \
         the source paths or lines differ after normalization, so the frames cannot be \
         joined (give each trial the checkout it ran from as `source_root` in the trials \
         document, or profile one checkout)",
        frame.name,
        frame.semantic_frame_id,
        place(frame),
        others.join(", ")
    ))
}

fn invalid(location: String, problem: String, expected: &str) -> Error {
    ErrorKind::TrialsInvalid {
        document: "<trial costs>".into(),
        location,
        problem,
        expected: expected.into(),
    }
    .into()
}

/// Checks that the trials can form series: unique ids, finite inputs, one
/// metric and one unit, and no trace bytes shared between trials.
fn check(trials: &[TrialCosts]) -> Result<(), Error> {
    let Some(first) = trials.first() else {
        return Ok(());
    };
    let (metric, unit) = (first.metric, first.metric.unit());
    let mut ids: HashMap<&str, usize> = HashMap::new();
    let mut artifacts: HashMap<&str, &str> = HashMap::new();
    for (i, t) in trials.iter().enumerate() {
        let location = format!("trial {:?}", t.trial_id);
        if let Some(j) = ids.insert(&t.trial_id, i) {
            return Err(invalid(
                format!("trials[{i}]"),
                format!("trial id {:?} is already used by trials[{j}]", t.trial_id),
                "one entry per trial",
            ));
        }
        if !t.input.is_finite() {
            return Err(invalid(
                format!("{location}.input"),
                format!("{} is not finite", t.input),
                "a finite number",
            ));
        }
        if t.metric != metric {
            return Err(ErrorKind::MixedMetrics {
                location,
                expected: metric,
                found: t.metric,
            }
            .into());
        }
        for found in [t.unit, t.metric.unit()] {
            if found != unit {
                return Err(ErrorKind::MixedUnits {
                    location: format!("{location}.unit"),
                    expected: unit,
                    found,
                }
                .into());
            }
        }
        for a in &t.artifacts {
            if let Some(first_trial) = artifacts.insert(&a.sha256, &t.trial_id) {
                return Err(ErrorKind::ArtifactReused {
                    sha256: a.sha256.clone(),
                    path: a.path.clone(),
                    first_trial: first_trial.to_owned(),
                    trial: t.trial_id.clone(),
                }
                .into());
            }
        }
    }
    Ok(())
}

/// Correlates per-trial costs with the trials' inputs.
///
/// Series are grouped by (variant, semantic frame id qualified by build id
/// and source state, metric, unit) only. A series with fewer than
/// [`MIN_SAMPLES`] trials or fewer than [`MIN_DISTINCT_INPUTS`] inputs is
/// `insufficient`; one whose cost never changes is `not_correlatable`; every
/// other series is tested and reported with its BH-adjusted p-value. A frame
/// missing from a trial contributes no sample (absence is not a zero cost).
pub fn correlate(trials: &[TrialCosts]) -> Result<ScalingReport, Error> {
    check(trials)?;
    let mut groups: BTreeMap<SeriesKey<'_>, Series<'_>> = BTreeMap::new();
    for t in trials {
        for frame in &t.frames {
            let key = SeriesKey {
                variant: &t.variant,
                semantic_frame_id: &frame.semantic_frame_id,
                build_id: t.build_id.as_deref(),
                source_state: t.source_state.as_deref(),
                metric: t.metric,
                unit: t.unit,
            };
            let series = groups.entry(key).or_insert_with(|| Series {
                frame,
                samples: Vec::new(),
            });
            if series
                .samples
                .last()
                .is_some_and(|s| s.trial_id == t.trial_id)
            {
                return Err(invalid(
                    format!("trial {:?}.frames", t.trial_id),
                    format!("frame {} is listed twice", frame.semantic_frame_id),
                    "one total per frame per trial",
                ));
            }
            series.samples.push(Sample {
                frame,
                input: t.input,
                value: frame.value,
                trial_id: &t.trial_id,
            });
        }
    }

    let mut report = ScalingReport {
        unmatched: trials.iter().flat_map(|t| t.unmatched.clone()).collect(),
        ..ScalingReport::default()
    };
    let split_index = descriptions(&groups);
    let mut tested: Vec<(SeriesInfo, f64, f64, usize, f64, f64)> = Vec::new();
    for (key, mut series) in groups {
        series.samples.sort_by(|a, b| {
            a.input
                .total_cmp(&b.input)
                .then_with(|| a.trial_id.cmp(b.trial_id))
        });
        let xs: Vec<f64> = series.samples.iter().map(|s| s.input).collect();
        // Spearman's rho depends on ranks only: the costs go in as their
        // exact integer ranks, so costs an f64 cannot tell apart stay apart.
        let values: Vec<i64> = series.samples.iter().map(|s| s.value).collect();
        let ys: Vec<f64> = integer_ranks(&values);
        let n = xs.len();
        let mut distinct = xs.clone();
        distinct.dedup();
        let (min, max) = (xs[0], xs[n - 1]);
        let trial_ids = || {
            series
                .samples
                .iter()
                .map(|s| s.trial_id.to_owned())
                .collect()
        };
        let frame = series.frame;
        let info = SeriesInfo {
            semantic_frame_id: frame.semantic_frame_id.clone(),
            name: frame.name.clone(),
            category: frame.category.clone(),
            file: frame.file.clone(),
            line: frame.line,
            variant: key.variant.to_owned(),
            build_id: key.build_id.map(str::to_owned),
            source_state: key.source_state.map(str::to_owned),
            metric: key.metric,
            unit: key.unit,
        };
        // Too few samples because the same frame got different ids in other
        // trials is an identity failure, not a lack of data: say so.
        if n < MIN_SAMPLES {
            if let Some(reason) = identity_split(&key, frame, &split_index) {
                report
                    .unmatched
                    .extend(
                        series
                            .samples
                            .iter()
                            .map(|s| (s, s.frame))
                            .map(|(s, f)| Unmatched {
                                trial_id: s.trial_id.to_owned(),
                                variant: key.variant.to_owned(),
                                input: s.input,
                                category: f.category.clone(),
                                name: f.name.clone(),
                                reason: reason.clone(),
                                metric: key.metric,
                                unit: key.unit,
                                value: s.value,
                                occurrence_count: f.occurrences,
                                first_occurrence: f.first_occurrence.clone(),
                            }),
                    );
                continue;
            }
        }
        let reason = if n < MIN_SAMPLES {
            Some(InsufficientReason::FewerThan3Samples)
        } else if distinct.len() < MIN_DISTINCT_INPUTS {
            Some(InsufficientReason::FewerThan2DistinctInputs)
        } else {
            None
        };
        if let Some(reason) = reason {
            report.insufficient.push(Insufficient {
                series: info,
                reason,
                independent_trial_count: n,
                distinct_input_count: distinct.len(),
                supported_min: min,
                supported_max: max,
                trial_ids: trial_ids(),
            });
            continue;
        }
        match spearman(&xs, &ys) {
            Spearman::Rho { rho, p_value } => tested.push((info, rho, p_value, n, min, max)),
            Spearman::ConstantSeries | Spearman::Undefined => {
                report.not_correlatable.push(NotCorrelatable {
                    series: info,
                    reason: NotCorrelatableReason::ConstantSeries,
                    independent_trial_count: n,
                    supported_min: min,
                    supported_max: max,
                    trial_ids: trial_ids(),
                })
            }
        }
    }

    let p_values: Vec<f64> = tested.iter().map(|t| t.2).collect();
    let adjusted = benjamini_hochberg(&p_values);
    let count = tested.len();
    report.hotspots = tested
        .into_iter()
        .zip(adjusted)
        .map(|((series, rho, p, n, min, max), adjusted)| Hotspot {
            series,
            spearman_rho: rho,
            p_value: p,
            adjusted_p_value: adjusted,
            tested_hypothesis_count: count,
            multiplicity_method: MultiplicityMethod::BenjaminiHochbergFdr,
            independent_trial_count: n,
            supported_min: min,
            supported_max: max,
        })
        .collect();
    // SeriesInfo orders by frame id first, then variant, build, source.
    report.hotspots.sort_by(|a, b| {
        a.adjusted_p_value
            .total_cmp(&b.adjusted_p_value)
            .then_with(|| a.series.cmp(&b.series))
    });
    report.insufficient.sort_by(|a, b| a.series.cmp(&b.series));
    report
        .not_correlatable
        .sort_by(|a, b| a.series.cmp(&b.series));
    Ok(report)
}
