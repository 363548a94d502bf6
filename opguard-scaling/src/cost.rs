//! Per-trial cost per semantic frame.
//!
//! Each trace file of a trial is read into its own [`TraceModel`] (one
//! artifact each). Every complete slice adds its cost to its semantic frame
//! ([`TraceModel::semantic_frame`], `semantic-frame/v1`); occurrence ids
//! ([`TraceModel::occurrence`]) and slice positions are used only inside the
//! artifact — for nesting (`self_ns`) and to point at an example of an
//! unmatched frame — and never leave the trial as a key.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use opguard_formats::ReadOptions;
use opguard_model::{ArtifactSpec, FrameIdentity, IdValue, Provider, SliceClass, TraceModel};

use crate::error::{Error, ErrorKind};
use crate::metric::{Metric, Unit};
use crate::report::Unmatched;
use crate::trials::TrialSpec;

/// Top-level trace metadata key naming the build a trace was captured
/// from. Traces with different build ids never match; neither do a trace
/// that states one and a trace that does not.
pub const BUILD_ID_KEY: &str = "build_id";

/// Top-level trace metadata key naming the source state (e.g. a commit).
pub const SOURCE_STATE_KEY: &str = "source_state";

/// One semantic frame's cost in one trial.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FrameCost {
    /// The `semantic-frame/v1` id.
    pub semantic_frame_id: String,
    /// The normalized name.
    pub name: String,
    /// The event category.
    pub category: String,
    /// Source file, when the frame names one.
    pub file: Option<String>,
    /// Source line, when the frame names one.
    pub line: Option<u32>,
    /// The metric's total over the trial's traces.
    pub value: i64,
    /// How many slices contributed.
    pub occurrences: u64,
    /// The first contributing event (`<artifact sha256>:<index>`).
    pub first_occurrence: String,
}

/// One trace file of a trial.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TraceArtifact {
    /// Where it was read from.
    pub path: PathBuf,
    /// SHA-256 of its bytes.
    pub sha256: String,
}

/// What one trial measured: cost per semantic frame, and the frames whose
/// identity could not be established.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct TrialCosts {
    /// The trial id.
    pub trial_id: String,
    /// The variant label.
    pub variant: String,
    /// The input value.
    pub input: f64,
    /// The metric.
    pub metric: Metric,
    /// The unit.
    pub unit: Unit,
    /// The build id (declared or carried by a trace).
    pub build_id: Option<String>,
    /// The source state (declared or carried by a trace).
    pub source_state: Option<String>,
    /// The traces read.
    pub artifacts: Vec<TraceArtifact>,
    /// Complete frames, sorted by id.
    pub frames: Vec<FrameCost>,
    /// Frames with a partial identity, sorted by category, name and reason.
    pub unmatched: Vec<Unmatched>,
}

/// A value stated once and where it was stated.
struct Stated {
    value: String,
    origin: String,
}

fn state(
    trial: &str,
    field: &'static str,
    slot: &mut Option<Stated>,
    value: Option<String>,
    origin: impl FnOnce() -> String,
) -> Result<(), Error> {
    let Some(value) = value else { return Ok(()) };
    match slot {
        None => {
            *slot = Some(Stated {
                value,
                origin: origin(),
            })
        }
        Some(first) if first.value != value => {
            return Err(ErrorKind::SourceStateConflict {
                trial: trial.to_owned(),
                field,
                first: first.value.clone(),
                first_origin: first.origin.clone(),
                second: value,
                second_origin: origin(),
            }
            .into())
        }
        Some(_) => {}
    }
    Ok(())
}

fn metadata_text(model: &TraceModel, key: &str) -> Option<String> {
    match model.summary().metadata.get_json(key)? {
        serde_json::Value::Null => None,
        serde_json::Value::String(s) => Some(s),
        other => Some(other.to_string()),
    }
}

/// Reads a trial's traces and totals `metric` per semantic frame.
pub fn trial_costs(
    trial: &TrialSpec,
    metric: Metric,
    options: &ReadOptions,
) -> Result<TrialCosts, Error> {
    trial_costs_as(trial, metric, options, None)
}

/// [`trial_costs`] with the traces' provider given instead of detected
/// (`None` detects it). The provider is part of every semantic frame's
/// identity, so it decides which series the trials share.
pub fn trial_costs_as(
    trial: &TrialSpec,
    metric: Metric,
    options: &ReadOptions,
    provider: Option<Provider>,
) -> Result<TrialCosts, Error> {
    let mut frames: BTreeMap<String, FrameCost> = BTreeMap::new();
    let mut unmatched: BTreeMap<(String, String, String), Unmatched> = BTreeMap::new();
    let mut artifacts: Vec<TraceArtifact> = Vec::new();
    let (mut build, mut source) = (None, None);
    state(
        &trial.id,
        BUILD_ID_KEY,
        &mut build,
        trial.build_id.clone(),
        || "the trials document".into(),
    )?;
    state(
        &trial.id,
        SOURCE_STATE_KEY,
        &mut source,
        trial.source_state.clone(),
        || "the trials document".into(),
    )?;
    for path in &trial.traces {
        let model = read(trial, path, options, provider)?;
        let sha256 = model.artifact().sha256.to_hex();
        if artifacts.iter().any(|a| a.sha256 == sha256) {
            return Err(ErrorKind::ArtifactReused {
                sha256,
                path: path.clone(),
                first_trial: trial.id.clone(),
                trial: trial.id.clone(),
            }
            .into());
        }
        let origin = || format!("trace {}", path.display());
        state(
            &trial.id,
            BUILD_ID_KEY,
            &mut build,
            metadata_text(&model, BUILD_ID_KEY),
            origin,
        )?;
        state(
            &trial.id,
            SOURCE_STATE_KEY,
            &mut source,
            metadata_text(&model, SOURCE_STATE_KEY),
            origin,
        )?;
        accumulate(&model, trial, metric, &mut frames, &mut unmatched);
        artifacts.push(TraceArtifact {
            path: path.clone(),
            sha256,
        });
    }
    Ok(TrialCosts {
        trial_id: trial.id.clone(),
        variant: trial.variant.clone(),
        input: trial.input,
        metric,
        unit: metric.unit(),
        build_id: build.map(|s| s.value),
        source_state: source.map(|s| s.value),
        artifacts,
        frames: frames.into_values().collect(),
        unmatched: unmatched.into_values().collect(),
    })
}

fn read(
    trial: &TrialSpec,
    path: &Path,
    options: &ReadOptions,
    provider: Option<Provider>,
) -> Result<TraceModel, Error> {
    let mut spec = ArtifactSpec::new();
    spec.provider = provider;
    spec.source_root.clone_from(&trial.source_root);
    opguard_formats::read(path, spec, options).map_err(|source| {
        ErrorKind::TraceUnreadable {
            trial: trial.id.clone(),
            path: path.to_owned(),
            source,
        }
        .into()
    })
}

fn accumulate(
    model: &TraceModel,
    trial: &TrialSpec,
    metric: Metric,
    frames: &mut BTreeMap<String, FrameCost>,
    unmatched: &mut BTreeMap<(String, String, String), Unmatched>,
) {
    let self_ns = (metric == Metric::SelfNs).then(|| self_times(model));
    for (i, slice) in model.slices().iter().enumerate() {
        let value = match (&self_ns, metric) {
            (Some(own), _) => own[i],
            (None, Metric::Count) => 1,
            (None, _) => slice.dur_ns,
        };
        let frame = model.semantic_frame(slice);
        let reason = match (&frame.id, &frame.identity) {
            (Some(id), FrameIdentity::Complete) => {
                let entry = frames
                    .entry(id.as_str().to_owned())
                    .or_insert_with(|| FrameCost {
                        semantic_frame_id: id.as_str().to_owned(),
                        name: frame.name.clone(),
                        category: frame.category.clone(),
                        file: frame.file.clone(),
                        line: frame.line,
                        value: 0,
                        occurrences: 0,
                        first_occurrence: model.occurrence(slice).to_string(),
                    });
                entry.value = entry.value.saturating_add(value);
                entry.occurrences += 1;
                continue;
            }
            (_, FrameIdentity::Partial(reason)) => reason.clone(),
            (None, FrameIdentity::Complete) => "the frame has no semantic id".to_owned(),
        };
        let name = model.name(slice.name).to_owned();
        let entry = unmatched
            .entry((frame.category.clone(), name.clone(), reason.clone()))
            .or_insert_with(|| Unmatched {
                trial_id: trial.id.clone(),
                variant: trial.variant.clone(),
                input: trial.input,
                category: frame.category.clone(),
                name,
                reason,
                metric,
                unit: metric.unit(),
                value: 0,
                occurrence_count: 0,
                first_occurrence: model.occurrence(slice).to_string(),
            });
        entry.value = entry.value.saturating_add(value);
        entry.occurrence_count += 1;
    }
}

/// Self time of every slice of `model` (indexed like `slices()`): its
/// duration minus the durations of the slices nested directly inside it on
/// the same `(pid, tid)` track, clamped at 0.
///
/// Nesting is what the artifact shows: a slice is inside another when it
/// starts at or after it and ends at or before its end; the innermost such
/// slice is its parent. Equal intervals nest in file order. Slices without a
/// pid or tid have no track; `gpu_user_annotation` rows are device-timeline
/// projections of host annotations and never establish nesting (their self
/// time is their duration, and kernels under them stay top-level).
pub fn self_times(model: &TraceModel) -> Vec<i64> {
    let slices = model.slices();
    let mut own: Vec<i64> = slices.iter().map(|s| s.dur_ns).collect();
    let mut tracks: HashMap<(IdValue, IdValue), Vec<usize>> = HashMap::new();
    for (i, s) in slices.iter().enumerate() {
        if s.class == SliceClass::GpuUserAnnotation {
            continue;
        }
        if let (Some(pid), Some(tid)) = (s.pid, s.tid) {
            tracks.entry((pid, tid)).or_default().push(i);
        }
    }
    let mut stack: Vec<usize> = Vec::new();
    for mut track in tracks.into_values() {
        track.sort_by(|&a, &b| {
            let (sa, sb) = (&slices[a], &slices[b]);
            sa.ts_ns
                .cmp(&sb.ts_ns)
                .then(sb.dur_ns.cmp(&sa.dur_ns))
                .then(sa.index.cmp(&sb.index))
        });
        stack.clear();
        for i in track {
            let s = &slices[i];
            while stack
                .last()
                .is_some_and(|&top| slices[top].end_ns() <= s.ts_ns && slices[top].ts_ns < s.ts_ns)
            {
                stack.pop();
            }
            let parent = stack
                .iter()
                .rev()
                .find(|&&p| slices[p].ts_ns <= s.ts_ns && s.end_ns() <= slices[p].end_ns());
            if let Some(&p) = parent {
                own[p] = own[p].saturating_sub(s.dur_ns);
            }
            stack.push(i);
        }
    }
    for v in &mut own {
        *v = (*v).max(0);
    }
    own
}

#[cfg(test)]
mod tests {
    use super::*;
    use opguard_testdata::kineto_writer::KinetoTrace;

    fn model(t: &KinetoTrace) -> TraceModel {
        let bytes = t.to_bytes().unwrap_or_default();
        let reader = opguard_trace::TraceReader::new(&bytes[..]).unwrap_or_else(|e| panic!("{e}"));
        opguard_trace::model_from_reader(
            reader,
            ArtifactSpec::new(),
            &opguard_model::ModelOptions::new(),
            &mut |_, _| {},
        )
        .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn self_time_subtracts_direct_children_on_the_same_thread_only() {
        let mut t = KinetoTrace::new();
        let (main, other) = ((1, 1), (1, 2));
        t.cpu_op(main, "outer", 0, 100, None); // children: mid (60), tail (10)
        t.cpu_op(main, "mid", 10, 60, None); // child: inner (25)
        t.cpu_op(main, "inner", 20, 25, None);
        t.cpu_op(main, "tail", 80, 10, None);
        t.cpu_op(other, "elsewhere", 20, 30, None); // another thread: no parent
        t.cpu_op(main, "after", 100, 5, None); // starts at outer's end: not inside
        t.gpu_user_annotation(0, 7, "outer", 0, 100, None);
        t.kernel(0, 7, "void some_kernel<1>(float*)", 10, 40, None, None);
        let m = model(&t);
        let own = self_times(&m);
        let by_name = |n: &str, cat: &str| {
            m.slices()
                .iter()
                .position(|s| m.name(s.name) == n && m.name(s.cat) == cat)
                .map(|i| own[i])
        };
        assert_eq!(by_name("outer", "cpu_op"), Some(30));
        assert_eq!(by_name("mid", "cpu_op"), Some(35));
        assert_eq!(by_name("inner", "cpu_op"), Some(25));
        assert_eq!(by_name("tail", "cpu_op"), Some(10));
        assert_eq!(by_name("elsewhere", "cpu_op"), Some(30));
        assert_eq!(by_name("after", "cpu_op"), Some(5));
        // The device-timeline annotation never becomes a parent.
        assert_eq!(by_name("outer", "gpu_user_annotation"), Some(100));
        assert_eq!(by_name("void some_kernel<1>(float*)", "kernel"), Some(40));
    }

    #[test]
    fn equal_intervals_nest_in_file_order_and_overlaps_do_not_nest() {
        let mut t = KinetoTrace::new();
        let th = (1, 1);
        t.cpu_op(th, "first", 0, 50, None);
        t.cpu_op(th, "second", 0, 50, None);
        t.cpu_op(th, "straddle", 40, 30, None); // overlaps the end of both
        let m = model(&t);
        assert_eq!(self_times(&m), vec![0, 50, 30]);
    }
}
