//! Analysis, per run: one trace model → its samples (the whole run, and
//! each step it marks), each a cost per entity.
//!
//! Device work is keyed by canonical kernel identity, host work by semantic
//! frame: what an event *is*, never where it sits in the file or when it
//! ran. Time is used only inside the run's own clock domain, to say which
//! step a slice belongs to:
//!
//! - a host slice belongs to the step range of its own process that
//!   contains its start;
//! - a device slice belongs to the step of its launch when the launch is
//!   proven ([`TraceModel::launch_proof`]: a kernel launched at the end of
//!   step 3 that runs during step 4 is step 3's work); else to the step
//!   named by a device-timeline step annotation (Kineto's
//!   `gpu_user_annotation` `ProfilerStep#N`) containing its start; else to
//!   the host step range containing its start. [`StepAssignment`] counts
//!   each basis, and what fell outside every step.

use std::collections::{BTreeMap, HashMap};

use opguard_model::analysis::{launch_region, launch_region_of, LaunchRegion};
use opguard_model::{
    FrameIdentity, HostKind, IdValue, LaunchProof, NameId, SliceClass, TraceModel,
};

use crate::entity::{Cost, EntityKey, EntityKind};
use crate::error::{Error, ErrorKind};
use crate::options::CompareOptions;
use crate::report::{RunInfo, StepAssignment, UnmatchedEntity};

/// One sample: the whole run, or one step of it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sample {
    /// What the sample is: the run's file, and the step's name.
    pub label: String,
    /// Cost per entity. An entity the sample does not mention cost
    /// nothing in it (zero time, zero calls).
    pub costs: BTreeMap<EntityKey, Cost>,
}

/// One run's samples: what [`compare`](crate::compare) consumes, one per
/// trace on each side.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunSamples {
    /// The run: its file, artifact, provider, format, steps.
    pub run: RunInfo,
    /// The whole run as one sample.
    pub whole: Sample,
    /// One sample per step the trace marks (empty when it marks none).
    pub steps: Vec<Sample>,
    /// A display name per entity.
    pub names: BTreeMap<EntityKey, String>,
    /// Work whose identity is partial (a degenerate or elided kernel name,
    /// an unnamed event): reported, never joined.
    pub unmatched: Vec<UnmatchedEntity>,
}

impl RunSamples {
    /// A run named `file` with no samples yet: for callers that measure
    /// costs themselves (and for tests of the statistics).
    pub fn new(file: impl Into<String>) -> RunSamples {
        let file = file.into();
        RunSamples {
            whole: Sample {
                label: file.clone(),
                costs: BTreeMap::new(),
            },
            run: RunInfo {
                file,
                ..RunInfo::default()
            },
            ..RunSamples::default()
        }
    }

    /// Adds a step named `label` with these costs, and each entity's
    /// display name; the whole run's sample is their sum.
    pub fn push_step(
        &mut self,
        label: impl Into<String>,
        costs: impl IntoIterator<Item = (EntityKey, String, Cost)>,
    ) {
        let label = label.into();
        let mut sample = Sample {
            label: format!("{}: {label}", self.run.file),
            costs: BTreeMap::new(),
        };
        for (key, name, cost) in costs {
            let whole = self.whole.costs.entry(key.clone()).or_default();
            whole.ns = whole.ns.saturating_add(cost.ns);
            whole.calls += cost.calls;
            self.names.entry(key.clone()).or_insert(name);
            sample.costs.insert(key, cost);
        }
        self.run.steps.push(label);
        self.steps.push(sample);
    }
}

/// The samples of one run read into `model`; `file` names it.
///
/// Fails only when [`CompareOptions::step`] names a range the trace does
/// not have ([`ErrorKind::StepNotFound`]).
pub fn run_samples(
    file: impl Into<String>,
    model: &TraceModel,
    options: &CompareOptions,
) -> Result<RunSamples, Error> {
    let file = file.into();
    let steps = find_steps(model, options.step.as_deref());
    if steps.ranges.is_empty() {
        if let Some(step) = &options.step {
            return Err(ErrorKind::StepNotFound {
                file,
                step: step.clone(),
            }
            .into());
        }
    }
    let mut out = RunSamples::new(file.clone());
    out.run = run_info(&file, model, &steps);
    out.steps = steps
        .ranges
        .iter()
        .map(|r| Sample {
            label: format!("{file}: {}", r.label),
            costs: BTreeMap::new(),
        })
        .collect();
    let mut identities = Identities::default();
    let mut assignment = StepAssignment::default();
    let mut step_positions: Vec<Vec<usize>> = vec![Vec::new(); steps.ranges.len()];
    let mut unmatched: BTreeMap<(EntityKind, String, String), (i64, u64)> = BTreeMap::new();
    for (i, s) in model.slices().iter().enumerate() {
        if steps.is_step_slice(i) {
            continue;
        }
        let step = if steps.ranges.is_empty() {
            None
        } else if s.class.is_device() {
            let (step, basis) = steps.device_step(model, i);
            assignment.count_device(basis);
            step
        } else {
            let step = steps.host_step(s.process, s.ts_ns);
            if step.is_none() && !matches!(s.class, SliceClass::GpuUserAnnotation) {
                assignment.host_outside_steps += 1;
            }
            step
        };
        if let Some(step) = step {
            step_positions[step].push(i);
        }
        let Some(entity) = identities.entity(model, i, options) else {
            continue;
        };
        match entity {
            Identified::Complete(key) => {
                out.whole
                    .costs
                    .entry(key.clone())
                    .or_default()
                    .add(s.dur_ns);
                if let Some(step) = step {
                    out.steps[step].costs.entry(key).or_default().add(s.dur_ns);
                }
            }
            Identified::Partial { kind, reason } => {
                let name = model.name(s.name).to_owned();
                let entry = unmatched.entry((kind, name, reason)).or_default();
                entry.0 = entry.0.saturating_add(s.counted_dur_ns());
                entry.1 += 1;
            }
        }
    }
    out.names = identities.names;
    out.unmatched = unmatched
        .into_iter()
        .map(|((kind, name, reason), (ns, calls))| UnmatchedEntity {
            side: String::new(),
            file: file.clone(),
            kind,
            name,
            reason,
            cost_ns: ns,
            calls,
        })
        .collect();
    // Totals: the whole run's launch region, and each step's.
    let whole = launch_region(model, 0);
    if has_device_work(&whole) {
        add_region_totals(&mut out.whole, &mut out.names, &whole);
        for (step, positions) in step_positions.iter().enumerate() {
            let region = launch_region_of(model, positions, 0);
            add_region_totals(&mut out.steps[step], &mut out.names, &region);
        }
    }
    for (step, range) in steps.ranges.iter().enumerate() {
        let key = EntityKey::new(EntityKind::StepDuration, "step");
        out.names
            .entry(key.clone())
            .or_insert_with(|| "step".into());
        out.steps[step]
            .costs
            .entry(key)
            .or_default()
            .add(range.end - range.start);
    }
    if !steps.ranges.is_empty() {
        out.run.step_assignment = Some(assignment);
    }
    Ok(out)
}

fn has_device_work(region: &LaunchRegion) -> bool {
    region.kernel_count + region.memory_op_count > 0 || !region.streams.is_empty()
}

/// Device busy time, the launch region's length and each stream's busy
/// time of one sample.
fn add_region_totals(
    sample: &mut Sample,
    names: &mut BTreeMap<EntityKey, String>,
    region: &LaunchRegion,
) {
    let activities: u64 = region.streams.iter().map(|s| s.activities).sum();
    let mut put = |key: EntityKey, name: String, ns: i64, calls: u64| {
        names.entry(key.clone()).or_insert(name);
        let cost = sample.costs.entry(key).or_default();
        cost.ns = cost.ns.saturating_add(ns.max(0));
        cost.calls += calls;
    };
    put(
        EntityKey::new(EntityKind::DeviceBusy, "device busy"),
        "device busy".into(),
        region.device_busy_ns,
        activities,
    );
    put(
        EntityKey::new(EntityKind::LaunchRegion, "launch region"),
        "launch region".into(),
        region.region_duration_ns.unwrap_or(0),
        region.direct_launch_count + region.graph_launch_count + activities,
    );
    for s in &region.streams {
        // Streams of two processes with one label (a merge of ranks) add
        // up: across runs, process ids are not an identity.
        let label = format!("device {} stream {}", s.device, s.stream);
        put(
            EntityKey::new(EntityKind::StreamBusy, label.clone()),
            label,
            s.busy_ns,
            s.activities,
        );
    }
}

fn run_info(file: &str, model: &TraceModel, steps: &Steps) -> RunInfo {
    let a = model.artifact();
    RunInfo {
        file: file.to_owned(),
        artifact: a.sha256.to_hex(),
        provider: a.provider.as_str().to_owned(),
        format: a.format.as_str().to_owned(),
        producer: a.producer.clone(),
        rank: model.distributed_rank().ok().flatten().map(i64::from),
        steps: steps.ranges.iter().map(|r| r.label.clone()).collect(),
        step_assignment: None,
    }
}

/// How a device slice was placed in a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Basis {
    Launch,
    DeviceAnnotation,
    Time,
    Outside,
}

impl StepAssignment {
    fn count_device(&mut self, basis: Basis) {
        match basis {
            Basis::Launch => self.device_by_launch += 1,
            Basis::DeviceAnnotation => self.device_by_device_annotation += 1,
            Basis::Time => self.device_by_time += 1,
            Basis::Outside => self.device_outside_steps += 1,
        }
    }
}

/// What a slice is, for the comparison.
enum Identified {
    Complete(EntityKey),
    Partial { kind: EntityKind, reason: String },
}

/// Entity identities by (class, name, category): a semantic frame or a
/// canonical kernel identity depends on nothing else, and computing one
/// (canonicalizing, hashing) per slice would cost more than the read.
#[derive(Default)]
struct Identities {
    /// The join key, or why the identity is partial.
    by_name: HashMap<(EntityKind, SliceClass, NameId, NameId), Result<String, String>>,
    names: BTreeMap<EntityKey, String>,
}

impl Identities {
    fn entity(
        &mut self,
        model: &TraceModel,
        position: usize,
        options: &CompareOptions,
    ) -> Option<Identified> {
        let s = &model.slices()[position];
        let kind = entity_kind(model, position, options)?;
        let identity = self
            .by_name
            .entry((kind, s.class, s.name, s.cat))
            .or_insert_with(|| identify(model, s.class, s.name, s.cat, kind))
            .clone();
        Some(match identity {
            Ok(key) => {
                let key = EntityKey::new(kind, key);
                if !self.names.contains_key(&key) {
                    let name = display_name(model, s.class, s.name, s.cat, kind);
                    self.names.insert(key.clone(), name);
                }
                Identified::Complete(key)
            }
            Err(reason) => Identified::Partial { kind, reason },
        })
    }
}

/// Which kind of entity slice `position` is, or `None` when it is not
/// compared (markers, placeholders, device-timeline annotations, Python
/// frames unless asked).
fn entity_kind(
    model: &TraceModel,
    position: usize,
    options: &CompareOptions,
) -> Option<EntityKind> {
    let s = &model.slices()[position];
    match s.class {
        SliceClass::Kernel => return Some(EntityKind::Kernel),
        SliceClass::Memcpy | SliceClass::Memset => return Some(EntityKind::Memory),
        SliceClass::DeviceOther => return Some(EntityKind::DeviceOther),
        c if c.is_runtime() => return Some(EntityKind::Runtime),
        _ => {}
    }
    match model.host_kind(position) {
        HostKind::FrameworkOp | HostKind::XlaOp | HostKind::Unclassified => {
            Some(EntityKind::HostOp)
        }
        HostKind::Region => Some(EntityKind::Region),
        HostKind::PythonFunction if options.python_frames => Some(EntityKind::PythonFunction),
        _ => None,
    }
}

/// The join key of a (class, name, category) as `kind`: the canonical
/// kernel identity for device work (never the semantic frame id, which
/// hashes the provider and category, so a Kineto kernel and the same
/// kernel in an Nsight export would never join), the semantic frame id for
/// host work; `Err` with the reason when the identity is partial.
fn identify(
    model: &TraceModel,
    class: SliceClass,
    name: NameId,
    cat: NameId,
    kind: EntityKind,
) -> Result<String, String> {
    let raw = model.name(name);
    if kind.is_device() {
        if raw.trim().is_empty() {
            return Err("event has no name".into());
        }
        let canonical = opguard_kernel_name::canonicalize(raw);
        return match canonical.strict_identity() {
            Ok(_) => Ok(canonical.qualified_identity()),
            Err(e) => Err(format!("kernel identity is partial: {e}")),
        };
    }
    let frame = model.semantic_frame_of(class, name, cat);
    match (frame.id, frame.identity) {
        (Some(id), FrameIdentity::Complete) => Ok(id.as_str().to_owned()),
        (_, FrameIdentity::Partial(reason)) => Err(reason),
        (None, FrameIdentity::Complete) => Err("semantic frame has no id".into()),
    }
}

/// How an entity is shown: a kernel by its short name, host work by its
/// normalized name (a Python function with its file and line).
fn display_name(
    model: &TraceModel,
    class: SliceClass,
    name: NameId,
    cat: NameId,
    kind: EntityKind,
) -> String {
    let raw = model.name(name);
    if kind.is_device() {
        return opguard_kernel_name::short_name(raw).into_owned();
    }
    let frame = model.semantic_frame_of(class, name, cat);
    match (frame.file, frame.line) {
        (Some(file), Some(line)) => format!("{} ({file}:{line})", frame.name),
        _ => frame.name,
    }
}

/// One step range of a run.
#[derive(Debug, Clone)]
struct StepRange {
    /// Its name (with its process when several processes mark steps).
    label: String,
    /// Its process.
    process: Option<IdValue>,
    start: i64,
    end: i64,
}

/// The steps a run marks, and what is needed to place slices in them.
#[derive(Debug, Default)]
struct Steps {
    /// In order of (process, start).
    ranges: Vec<StepRange>,
    /// Positions of the slices that are the step ranges (host and device
    /// annotations): steps are not entities of their own.
    step_slices: Vec<usize>,
    /// Device-timeline step annotations: (track pid, start, end, step).
    device_windows: Vec<(Option<IdValue>, i64, i64, usize)>,
}

impl Steps {
    fn is_step_slice(&self, position: usize) -> bool {
        self.step_slices.binary_search(&position).is_ok()
    }

    /// The step of `process` whose range contains `ts`.
    fn host_step(&self, process: Option<IdValue>, ts: i64) -> Option<usize> {
        let process = process.or_else(|| self.only_process())?;
        let first = self.ranges.partition_point(|r| r.process < Some(process));
        let own = &self.ranges[first..];
        let own = &own[..own.partition_point(|r| r.process == Some(process))];
        let below = own.partition_point(|r| r.start <= ts);
        let candidate = below.checked_sub(1)?;
        (ts < own[candidate].end).then_some(first + candidate)
    }

    /// The one process that marks steps, when there is one.
    fn only_process(&self) -> Option<IdValue> {
        let first = self.ranges.first()?.process;
        self.ranges
            .iter()
            .all(|r| r.process == first)
            .then_some(first)
            .flatten()
    }

    fn device_step(&self, model: &TraceModel, position: usize) -> (Option<usize>, Basis) {
        let slices = model.slices();
        let s = &slices[position];
        if let LaunchProof::Proven(launch) = model.launch_proof(position) {
            let l = &slices[launch];
            return match self.host_step(l.process, l.ts_ns) {
                Some(step) => (Some(step), Basis::Launch),
                None => (None, Basis::Outside),
            };
        }
        if let Some(&(_, _, _, step)) = self
            .device_windows
            .iter()
            .find(|(pid, start, end, _)| *pid == s.pid && *start <= s.ts_ns && s.ts_ns < *end)
        {
            return (Some(step), Basis::DeviceAnnotation);
        }
        match self.host_step(s.process, s.ts_ns) {
            Some(step) => (Some(step), Basis::Time),
            None => (None, Basis::Outside),
        }
    }
}

/// `name` without a trailing iteration counter: `#12`, ` 12`, `_12`,
/// `-12` or `:12` (digits after a separator).
fn without_counter(name: &str) -> &str {
    let trimmed = name.trim();
    let digits = trimmed.trim_end_matches(|c: char| c.is_ascii_digit());
    if digits.len() == trimmed.len() {
        return trimmed;
    }
    match digits.strip_suffix(['#', ' ', '_', '-', ':']) {
        Some(base) if !base.trim_end().is_empty() => base.trim_end(),
        // `fp8`, `layer1`: digits that are part of the name.
        _ => trimmed,
    }
}

/// Whether a range named `name` is a step: with `step` given, a range of
/// that name, with or without a trailing counter (`--step train_step`
/// takes `train_step#3`); otherwise the PyTorch profiler's `ProfilerStep#N`
/// or, in a trace without them, a range named `step` with or without a
/// counter (NVTX, roctx), case ignored.
pub fn is_step_name(name: &str, step: Option<&str>) -> bool {
    match step {
        Some(step) => name.trim() == step || without_counter(name) == step,
        None => step_priority(name).is_some(),
    }
}

/// Automatic step names, best first: a trace with `ProfilerStep#N` ranges
/// uses them and no other.
fn step_priority(name: &str) -> Option<u8> {
    let base = without_counter(name);
    if base.eq_ignore_ascii_case("ProfilerStep") && base.len() < name.trim().len() {
        Some(0)
    } else if base.eq_ignore_ascii_case("step") {
        Some(1)
    } else {
        None
    }
}

fn find_steps(model: &TraceModel, step: Option<&str>) -> Steps {
    let slices = model.slices();
    let named = |class: SliceClass| -> Vec<(usize, Option<u8>)> {
        slices
            .iter()
            .enumerate()
            .filter(|(_, s)| s.class == class)
            .filter_map(|(i, s)| {
                let name = model.name(s.name);
                match step {
                    Some(_) => is_step_name(name, step).then_some((i, Some(0))),
                    None => step_priority(name).map(|p| (i, Some(p))),
                }
            })
            .collect()
    };
    let host = named(SliceClass::UserAnnotation);
    let best = host.iter().filter_map(|(_, p)| *p).min();
    let mut chosen: Vec<usize> = host
        .iter()
        .filter(|(_, p)| *p == best)
        .map(|(i, _)| *i)
        .collect();
    // Outer ranges first; a range inside another of its own process with
    // the same name is a copy of it (a step marked twice), not a step.
    chosen.sort_by_key(|&i| {
        let s = &slices[i];
        (
            s.process,
            s.ts_ns,
            std::cmp::Reverse(s.counted_end_ns()),
            s.index,
        )
    });
    let mut ranges: Vec<StepRange> = Vec::new();
    let mut step_slices = Vec::new();
    for i in chosen {
        let s = &slices[i];
        step_slices.push(i);
        let label = model.name(s.name).trim().to_owned();
        let inside_copy = ranges
            .iter()
            .rev()
            .take_while(|r| r.process == s.process)
            .any(|r| r.label == label && r.start <= s.ts_ns && s.counted_end_ns() <= r.end);
        if !inside_copy && s.counted_dur_ns() > 0 {
            ranges.push(StepRange {
                label,
                process: s.process,
                start: s.ts_ns,
                end: s.counted_end_ns(),
            });
        }
    }
    // Several processes marking steps (a merge of ranks): each process's
    // steps are samples of their own, and say whose they are.
    let processes: std::collections::BTreeSet<Option<IdValue>> =
        ranges.iter().map(|r| r.process).collect();
    if processes.len() > 1 {
        for r in &mut ranges {
            if let Some(p) = r.process {
                r.label = format!("{} (process {})", r.label, model.id_text(p));
            }
        }
    }
    // Device-timeline copies of the steps place device work whose launch is
    // not proven.
    let mut device_windows = Vec::new();
    for (i, _) in named(SliceClass::GpuUserAnnotation) {
        step_slices.push(i);
        let s = &slices[i];
        let name = model.name(s.name).trim();
        let mut same = ranges
            .iter()
            .enumerate()
            .filter(|(_, r)| r.label == name || r.label.starts_with(&format!("{name} (process ")));
        if let (Some((step, _)), None) = (same.next(), same.next()) {
            device_windows.push((s.pid, s.ts_ns, s.counted_end_ns(), step));
        }
    }
    step_slices.sort_unstable();
    Steps {
        ranges,
        step_slices,
        device_windows,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_come_off_step_names() {
        assert_eq!(without_counter("ProfilerStep#1009"), "ProfilerStep");
        assert_eq!(without_counter("step 3"), "step");
        assert_eq!(without_counter("train_step_12"), "train_step");
        assert_eq!(without_counter("step"), "step");
        assert_eq!(without_counter("fp8"), "fp8");
        assert_eq!(without_counter("#3"), "#3");
        assert!(is_step_name("ProfilerStep#2", None));
        assert!(
            !is_step_name("ProfilerStep", None),
            "no counter: not the profiler's"
        );
        assert!(is_step_name("Step 4", None));
        assert!(!is_step_name("opguard.train_step", None));
        assert!(is_step_name("train_step#3", Some("train_step")));
        assert!(is_step_name("train_step", Some("train_step")));
        assert!(!is_step_name("train_steps", Some("train_step")));
    }
}
