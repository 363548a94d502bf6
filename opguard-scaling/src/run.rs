//! The whole path: trials document → traces → per-trial costs → report.

use std::path::Path;

use opguard_formats::ReadOptions;
use opguard_model::Provider;

use crate::correlate::correlate;
use crate::cost::{trial_costs_as, TrialCosts};
use crate::error::Error;
use crate::metric::Metric;
use crate::report::ScalingReport;
use crate::trials::TrialsDocument;

/// Reads a trials document and its traces and correlates every semantic
/// frame's cost with the trials' inputs. `metric` overrides the document's
/// (default `inclusive_ns`).
pub fn run_trials_file(
    path: impl AsRef<Path>,
    metric: Option<Metric>,
) -> Result<ScalingReport, Error> {
    let doc = TrialsDocument::read(path)?;
    run_trials(&doc, metric, &ReadOptions::default())
}

/// Runs an already parsed document, reading traces with `options` (reader
/// limits; host operators must be kept for host frames to be measured).
pub fn run_trials(
    doc: &TrialsDocument,
    metric: Option<Metric>,
    options: &ReadOptions,
) -> Result<ScalingReport, Error> {
    run_trials_as(doc, metric, options, None)
}

/// [`run_trials`] with every trace's provider given instead of detected
/// (`None` detects it); see [`trial_costs_as`](crate::trial_costs_as).
pub fn run_trials_as(
    doc: &TrialsDocument,
    metric: Option<Metric>,
    options: &ReadOptions,
    provider: Option<Provider>,
) -> Result<ScalingReport, Error> {
    let (metric, _unit) = doc.measure(metric)?;
    let costs = doc
        .trials
        .iter()
        .map(|t| trial_costs_as(t, metric, options, provider))
        .collect::<Result<Vec<TrialCosts>, Error>>()?;
    correlate(&costs)
}
