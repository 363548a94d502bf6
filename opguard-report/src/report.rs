//! What a report shows: analysis results, gathered before anything is drawn.

use std::path::Path;

use opguard_align::{FirstDifference, StatusCounts};
use opguard_compare::Comparison;
use opguard_job::Job;
use opguard_model::analysis::{launch_region, LaunchRegion};
use opguard_model::TraceModel;
use opguard_scaling::{correlate, trial_costs, Metric, ScalingReport, TrialCosts, TrialsDocument};
use opguard_select::{profile_model, ProfileDocument, Verdict};

use crate::timeline::Timeline;

/// Scatter plots drawn for the strongest scaling hotspots; the rest are
/// listed in a table.
pub const MAX_SCATTERS: usize = 6;

/// Frames of a job drawn as strips and listed (the most expensive first);
/// `opguard job --json` has them all.
pub const MAX_JOB_FRAMES: usize = 20;

/// Rows of any list that grows with the input (first differences, scaling
/// series) shown on the page; the count of the rest is stated.
pub const MAX_LIST_ROWS: usize = 50;

/// Everything one report shows.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Report {
    /// A sentence under the title saying what was read (e.g. that this is
    /// the shipped default input), or `None`.
    pub note: Option<String>,
    /// One section per trace, each in its own clock domain.
    pub artifacts: Vec<ArtifactReport>,
    /// The alignment summary of the first two traces.
    pub alignment: Option<AlignmentSummary>,
    /// The seam verdict, when a request was evaluated.
    pub seam_verdict: Option<Verdict>,
    /// Scaling across trials, when a trials document was given.
    pub scaling: Option<ScalingView>,
    /// A whole job's ranks compared, when a job was given (`opguard job
    /// --json`, or the reduce of any engine).
    pub job: Option<Job>,
    /// Baseline runs compared with candidate runs, when a comparison was
    /// given (`opguard compare --json`).
    pub compare: Option<Comparison>,
}

impl Report {
    /// A report of `artifacts` and nothing across them yet.
    pub fn new(artifacts: Vec<ArtifactReport>) -> Report {
        Report {
            note: None,
            artifacts,
            alignment: None,
            seam_verdict: None,
            scaling: None,
            job: None,
            compare: None,
        }
    }

    /// Sets the note under the title.
    pub fn note(mut self, note: impl Into<String>) -> Self {
        self.note = Some(note.into());
        self
    }

    /// Adds the alignment summary.
    pub fn alignment(mut self, alignment: AlignmentSummary) -> Self {
        self.alignment = Some(alignment);
        self
    }

    /// Adds the seam verdict.
    pub fn seam_verdict(mut self, verdict: Verdict) -> Self {
        self.seam_verdict = Some(verdict);
        self
    }

    /// Adds the scaling view.
    pub fn scaling(mut self, scaling: ScalingView) -> Self {
        self.scaling = Some(scaling);
        self
    }

    /// Adds a job: its ranks, and its most expensive frames with every
    /// rank's cost.
    pub fn job(mut self, job: Job) -> Self {
        self.job = Some(job);
        self
    }

    /// Adds a comparison: per entity both sides' samples, regressions
    /// first, and the gate.
    pub fn compare(mut self, comparison: Comparison) -> Self {
        self.compare = Some(comparison);
        self
    }
}

/// One trace: its launch region, profile Top-N and timeline.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ArtifactReport {
    /// The name shown for it (a path or file name).
    pub file: String,
    /// Its launch region.
    pub region: LaunchRegion,
    /// Its profile Top-N.
    pub profile: ProfileDocument,
    /// Its launch region drawn per lane.
    pub timeline: Timeline,
}

impl ArtifactReport {
    /// Analyses one read trace: launch region, profile Top-`top` and
    /// timeline.
    pub fn from_model(file: impl Into<String>, model: &TraceModel, top: usize) -> ArtifactReport {
        let region = launch_region(model, top);
        let timeline = Timeline::new(model, &region);
        ArtifactReport {
            file: file.into(),
            profile: profile_model(model, top),
            region,
            timeline,
        }
    }
}

/// The automatic alignment of two traces, as `opguard inspect` computes it.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct AlignmentSummary {
    /// The two traces' names.
    pub files: [String; 2],
    /// What the aligner found, or why it refused.
    pub outcome: Result<Aligned, AlignmentRefusal>,
}

impl AlignmentSummary {
    /// A summary of `files` with `outcome`.
    pub fn new(files: [String; 2], outcome: Result<Aligned, AlignmentRefusal>) -> Self {
        AlignmentSummary { files, outcome }
    }
}

/// An alignment that was computed.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Aligned {
    /// Each run's label and operation count.
    pub runs: Vec<(String, u64)>,
    /// Automatic candidate pairs.
    pub pairs: u64,
    /// Operations per correspondence status.
    pub statuses: StatusCounts,
    /// First-observed differences per run and rank.
    pub first_differences: Vec<FirstDifference>,
    /// The export's verdict (`not_evaluated`: candidates are not equal
    /// tensors).
    pub verdict: String,
}

impl Aligned {
    /// An alignment's figures.
    pub fn new(
        runs: Vec<(String, u64)>,
        pairs: u64,
        statuses: StatusCounts,
        first_differences: Vec<FirstDifference>,
        verdict: String,
    ) -> Self {
        Aligned {
            runs,
            pairs,
            statuses,
            first_differences,
            verdict,
        }
    }
}

/// Why two traces were not aligned (the aligner's error code and message).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct AlignmentRefusal {
    /// The library's error code.
    pub code: String,
    /// Its message.
    pub message: String,
}

impl AlignmentRefusal {
    /// A refusal with the aligner's `code` and `message`.
    pub fn new(code: impl Into<String>, message: impl Into<String>) -> Self {
        AlignmentRefusal {
            code: code.into(),
            message: message.into(),
        }
    }
}

/// The scaling report and the per-trial points behind its strongest series.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ScalingView {
    /// The correlation across trials.
    pub report: ScalingReport,
    /// For each of the first [`MAX_SCATTERS`] hotspots, in order, its
    /// (input, cost) samples: one per trial that has the frame.
    pub points: Vec<Vec<(f64, i64)>>,
}

impl ScalingView {
    /// Reads a trials document and its traces, correlates costs with
    /// inputs ([`opguard_scaling::correlate`]) and keeps the samples behind
    /// the strongest hotspots. `metric` overrides the document's.
    pub fn from_trials_file(
        path: impl AsRef<Path>,
        metric: Option<Metric>,
    ) -> Result<ScalingView, opguard_scaling::Error> {
        let doc = TrialsDocument::read(path)?;
        let (metric, _unit) = doc.measure(metric)?;
        let costs = doc
            .trials
            .iter()
            .map(|t| trial_costs(t, metric, &opguard_formats::ReadOptions::default()))
            .collect::<Result<Vec<TrialCosts>, _>>()?;
        let report = correlate(&costs)?;
        Ok(ScalingView::from_costs(report, &costs))
    }

    /// The view of `report`, with its samples taken from the `costs` it was
    /// correlated from.
    pub fn from_costs(report: ScalingReport, costs: &[TrialCosts]) -> ScalingView {
        let points = report
            .hotspots
            .iter()
            .take(MAX_SCATTERS)
            .map(|h| {
                let s = &h.series;
                costs
                    .iter()
                    .filter(|t| {
                        t.variant == s.variant
                            && t.metric == s.metric
                            && t.build_id == s.build_id
                            && t.source_state == s.source_state
                    })
                    .filter_map(|t| {
                        t.frames
                            .iter()
                            .find(|f| f.semantic_frame_id == s.semantic_frame_id)
                            .map(|f| (t.input, f.value))
                    })
                    .collect()
            })
            .collect();
        ScalingView { report, points }
    }
}
