//! The map step: one rank's trace → a [`RankSummary`].
//!
//! The trace is read into one [`TraceModel`] that keeps only what the
//! summary reads slice by slice (runtime calls, device activity); host
//! operators, annotations and Python frames, usually most of a trace, are
//! added up per (name, category) as they stream past
//! ([`ModelOptions::launches_and_host_totals`]), and flow points are not
//! kept ([`ModelOptions::flows`]). The model is summarised and dropped: a
//! summary holds counts and durations only, so its size follows the number
//! of distinct frames, not the file. A worker reads its next rank into the
//! buffers of the last one ([`ModelStorage`]), so it grows them once. Every time in it is a
//! duration inside the rank's own clock domain; there is no field for an
//! absolute time.

use std::collections::HashMap;
use std::path::Path;

use opguard_formats::ReadOptions;
use opguard_model::analysis::{launch_region, Communication};
use opguard_model::{
    ArtifactSpec, FrameIdentity, HostTotal, ModelOptions, ModelStorage, NameId, Slice, SliceClass,
    TraceModel,
};
use opguard_trace::ReaderOptions;
use serde::{Deserialize, Serialize};

/// The `format` of a [`RankSummary`].
pub const RANK_FORMAT: &str = "opguard.job.rank/v1";

/// How many Top-N rows a summary keeps by default.
pub const DEFAULT_TOP: usize = 10;

/// How a rank is read and summarised.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct SummaryOptions {
    /// Top-N rows kept per rank.
    pub top: usize,
    /// Reader limits and modes, applied to every rank.
    pub reader: ReaderOptions,
    /// Read native exports whose schema is outside the verified ones
    /// (`opguard_formats::ReadOptions::unverified_schema`).
    pub unverified_schema: bool,
}

impl Default for SummaryOptions {
    fn default() -> Self {
        SummaryOptions {
            top: DEFAULT_TOP,
            reader: ReaderOptions::default(),
            unverified_schema: false,
        }
    }
}

impl SummaryOptions {
    /// [`DEFAULT_TOP`] rows, default reader limits.
    pub fn new() -> Self {
        Self::default()
    }
    /// Sets the Top-N row count.
    pub fn top(mut self, top: usize) -> Self {
        self.top = top;
        self
    }
    /// Sets the reader options.
    pub fn reader(mut self, reader: ReaderOptions) -> Self {
        self.reader = reader;
        self
    }
    /// Sets [`SummaryOptions::unverified_schema`].
    pub fn unverified_schema(mut self, on: bool) -> Self {
        self.unverified_schema = on;
        self
    }
}

/// One rank's summary: what the map step returns and the merge consumes.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RankSummary {
    /// [`RANK_FORMAT`].
    pub format: String,
    /// The rank: file, artifact, rank number, launch region, Top-N,
    /// collectives — or the error that kept it from being read.
    pub rank: RankInfo,
    /// Cost per semantic frame, sorted by frame id.
    pub frames: Vec<RankFrame>,
}

/// What a job reports about one rank (the entries of `ranks`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RankInfo {
    /// `distributedInfo.rank`, when the trace states a non-negative integer
    /// one ([`TraceModel::distributed_rank`]).
    pub rank: Option<i64>,
    /// The path as given.
    pub file: String,
    /// SHA-256 of the file's bytes; absent when it could not be read.
    pub artifact: Option<String>,
    /// Why the rank could not be read; when present, nothing below is.
    pub error: Option<RankError>,
    /// Who wrote the trace (`kineto_cuda`, ...).
    pub provider: Option<String>,
    /// What the frames are: `device` (kernels and other device rows, by
    /// canonical identity) or `host_ops` (operators, when the trace has no
    /// device rows).
    pub frame_basis: Option<FrameBasis>,
    /// Launches and device work, as counts and durations.
    pub launch: Option<LaunchSummary>,
    /// Total device time, ns.
    pub device_time_ns: i64,
    /// The Top-N device rows by total device time.
    pub top: Vec<TopRow>,
    /// Collective kernels (NCCL/RCCL) by identity, with their durations.
    pub collectives: Vec<Collective>,
    /// Frames whose identity is partial: reported, never merged.
    pub unmatched_frames: Vec<UnmatchedFrame>,
}

/// Why a rank could not be read.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RankError {
    /// The reader's stable code, prefixed `trace.` (`trace.json_truncated`).
    pub code: String,
    /// What went wrong, without where: the fields below say that.
    pub message: String,
    /// Byte offset into the decoded JSON, when known.
    pub offset: Option<u64>,
    /// The `traceEvents` index being read, when known.
    pub event_index: Option<u64>,
    /// Byte offset into the compressed file, when known (a gzip stream cut
    /// short, an encoded-bytes limit).
    #[serde(default)]
    pub encoded_offset: Option<u64>,
    /// The JSON path of the value, when the error is about one (a metadata
    /// value).
    #[serde(default)]
    pub json_path: Option<String>,
}

/// What a rank's frames are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FrameBasis {
    /// Device rows, by canonical kernel identity.
    Device,
    /// Host operators (`cpu_op`): the trace has no device rows.
    HostOps,
}

impl FrameBasis {
    /// The name the JSON uses (`device`, `host_ops`).
    pub fn as_str(self) -> &'static str {
        match self {
            FrameBasis::Device => "device",
            FrameBasis::HostOps => "host_ops",
        }
    }
}

/// A rank's launch region without its position in time: every field is a
/// count or a duration inside the rank's own clock domain.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LaunchSummary {
    /// From the first launch or device activity to the last end, ns.
    pub region_duration_ns: Option<i64>,
    /// Direct launches.
    pub direct_launch_count: u64,
    /// Their total duration, ns.
    pub direct_launch_duration_ns: i64,
    /// Graph launches.
    pub graph_launch_count: u64,
    /// Their total duration, ns.
    pub graph_launch_duration_ns: i64,
    /// Device kernels.
    pub kernel_count: u64,
    /// Their total duration, ns.
    pub kernel_duration_ns: i64,
    /// Device memory copies and sets.
    pub memory_op_count: u64,
    /// Kernels whose launch is proven in the artifact's namespace.
    pub correlated_kernel_count: u64,
    /// Sum of the device streams' idle gaps, ns.
    pub idle_gap_total_ns: i64,
    /// Time at least one device activity ran, ns (absent from documents
    /// written before it: 0).
    #[serde(default)]
    pub device_busy_ns: i64,
    /// The region minus `device_busy_ns`: time no device worked, ns.
    #[serde(default)]
    pub device_idle_ns: i64,
    /// Collective kernels against the other kernels: busy, overlapped with
    /// computation, exposed.
    #[serde(default)]
    pub communication: Communication,
}

/// One Top-N row (`opguard-select`'s profile, projected).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TopRow {
    /// 1-based position.
    pub position: usize,
    /// The device row name as the trace writes it.
    pub name: String,
    /// Its short name.
    pub short_name: String,
    /// `gpu_kernel`, `memory_op`, `unresolved`, ...
    pub entity_kind: String,
    /// Total device time, ns.
    pub total_device_ns: i64,
    /// Device rows.
    pub calls: u64,
}

/// One collective kernel identity on one rank.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Collective {
    /// Short name (`ncclKernel_AllReduce_RING_LL_Sum_float`).
    pub name: String,
    /// Canonical identity (the raw name when it has none).
    pub identity: String,
    /// Kernel rows.
    pub count: u64,
    /// Their total duration, ns.
    pub total_ns: i64,
    /// The shortest, ns.
    pub min_ns: i64,
    /// The longest, ns.
    pub max_ns: i64,
}

/// One semantic frame's cost on one rank.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RankFrame {
    /// The `semantic-frame/v1` id.
    pub id: String,
    /// The event category.
    pub category: String,
    /// The normalized name.
    pub name: String,
    /// Canonical kernel identity, for device frames.
    pub kernel_identity: Option<String>,
    /// Total duration, ns (negative durations add nothing).
    pub cost_ns: i64,
    /// Slices that contributed.
    pub count: u64,
}

/// A frame whose identity is partial, with its cost on this rank.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnmatchedFrame {
    /// The event category.
    pub category: String,
    /// The name as written.
    pub name: String,
    /// Why the identity is partial.
    pub reason: String,
    /// Total duration, ns.
    pub cost_ns: i64,
    /// Slices.
    pub count: u64,
}

/// Reads the trace at `path` and summarises it. Never fails: a trace that
/// cannot be read (corrupt, cut off, over a limit) gives a summary that
/// carries its [`RankError`] and nothing else.
pub fn summarize(path: impl AsRef<Path>, options: &SummaryOptions) -> RankSummary {
    let path = path.as_ref();
    summarize_as(path, path.display().to_string(), options)
}

/// [`summarize`], with the rank named `file` in the job instead of by its
/// path (e.g. when a cluster worker reads it from another mount).
pub fn summarize_as(path: impl AsRef<Path>, file: String, options: &SummaryOptions) -> RankSummary {
    summarize_reusing(path.as_ref(), file, options, &mut ModelStorage::new())
}

/// [`summarize_as`], reading the model into `storage`'s buffers and giving
/// them back when done, so a worker that reads rank after rank grows its
/// buffers once instead of once per rank (see [`ModelStorage`]).
pub(crate) fn summarize_reusing(
    path: &Path,
    file: String,
    options: &SummaryOptions,
    storage: &mut ModelStorage,
) -> RankSummary {
    let read_options = job_read_options(options);
    match opguard_formats::read_reusing(
        path,
        ArtifactSpec::new().role("rank"),
        &read_options,
        &mut |_, _| {},
        storage,
    ) {
        Ok(model) => {
            let summary = summarize_model(file, &model, options.top);
            *storage = model.into_storage();
            summary
        }
        Err(e) => unreadable(file, &e),
    }
}

/// What a rank's model keeps: runtime calls and device rows as slices, host
/// operators added up, and no flow points (they only cross-check the launch
/// region's correlation, which a summary does not report).
fn job_read_options(options: &SummaryOptions) -> ReadOptions {
    ReadOptions::new(ModelOptions::launches_and_host_totals().flows(false))
        .reader(options.reader.clone())
        .unverified_schema(options.unverified_schema)
}

/// The summary of a rank whose trace could not be read: the reader's own
/// code (under `trace.`) and position.
pub fn unreadable(file: String, error: &opguard_formats::Error) -> RankSummary {
    let rank_error = match error.kind() {
        opguard_formats::ErrorKind::Json(json) => RankError {
            code: format!("trace.{}", json.code()),
            message: json.message(),
            offset: json.offset(),
            event_index: json.event_index(),
            encoded_offset: json.encoded_offset(),
            json_path: json.path().map(str::to_owned),
        },
        opguard_formats::ErrorKind::Xplane(x) => RankError {
            code: format!("trace.{}", x.code()),
            message: x.message(),
            offset: x.offset(),
            event_index: None,
            encoded_offset: None,
            json_path: x.message_path().map(str::to_owned),
        },
        _ => RankError {
            code: format!("trace.{}", error.code()),
            message: error.message(),
            offset: None,
            event_index: None,
            encoded_offset: None,
            json_path: None,
        },
    };
    RankSummary {
        format: RANK_FORMAT.to_owned(),
        rank: RankInfo {
            rank: None,
            file,
            artifact: None,
            error: Some(rank_error),
            provider: None,
            frame_basis: None,
            launch: None,
            device_time_ns: 0,
            top: Vec::new(),
            collectives: Vec::new(),
            unmatched_frames: Vec::new(),
        },
        frames: Vec::new(),
    }
}

/// Summarises a model already read; `file` names it in the job. The model
/// needs its runtime calls, device activity and, for a trace without device
/// rows, its host operators: as slices ([`ModelOptions::new`]) or as
/// [`ModelOptions::launches_and_host_totals`] (what [`summarize`] reads,
/// without flow points, with the same result in far less memory).
pub fn summarize_model(file: String, model: &TraceModel, top: usize) -> RankSummary {
    let profile = opguard_select::profile_model(model, top);
    let basis = if profile.device_rows > 0 {
        FrameBasis::Device
    } else {
        FrameBasis::HostOps
    };
    let (frames, unmatched_frames) = frame_costs(model, basis);
    let region = launch_region(model, 0);
    let launch = LaunchSummary {
        region_duration_ns: region.region_duration_ns,
        direct_launch_count: region.direct_launch_count,
        direct_launch_duration_ns: region.direct_launch_duration_ns,
        graph_launch_count: region.graph_launch_count,
        graph_launch_duration_ns: region.graph_launch_duration_ns,
        kernel_count: region.kernel_count,
        kernel_duration_ns: region.kernel_duration_ns,
        memory_op_count: region.memory_op_count,
        correlated_kernel_count: region.correlated_kernel_count,
        idle_gap_total_ns: region.idle_gap_total_ns,
        device_busy_ns: region.device_busy_ns,
        device_idle_ns: region.device_idle_ns,
        communication: region.communication,
    };
    let top = profile
        .rows
        .iter()
        .map(|r| TopRow {
            position: r.rank,
            name: r.name.clone(),
            short_name: r.short_name.clone(),
            entity_kind: r.entity_kind.as_str().to_owned(),
            total_device_ns: r.total_device_ns,
            calls: r.calls,
        })
        .collect();
    RankSummary {
        format: RANK_FORMAT.to_owned(),
        rank: RankInfo {
            rank: distributed_rank(model),
            file,
            artifact: Some(model.artifact().sha256.to_hex()),
            error: None,
            provider: Some(model.artifact().provider.as_str().to_owned()),
            frame_basis: Some(basis),
            launch: Some(launch),
            device_time_ns: profile.device_time_ns,
            top,
            collectives: collectives(model),
            unmatched_frames,
        },
        frames,
    }
}

/// `distributedInfo.rank` by the model's one rule: a rank the trace states
/// as anything but a non-negative integer is not a rank number.
fn distributed_rank(model: &TraceModel) -> Option<i64> {
    model.distributed_rank().ok().flatten().map(i64::from)
}

fn collectives(model: &TraceModel) -> Vec<Collective> {
    let mut by_name: HashMap<NameId, Option<usize>> = HashMap::new();
    let mut out: Vec<Collective> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    for s in model.slices() {
        if s.class != SliceClass::Kernel {
            continue;
        }
        let slot = *by_name.entry(s.name).or_insert_with(|| {
            let raw = model.name(s.name);
            if !opguard_model::classify::is_collective(raw) {
                return None;
            }
            let canonical = opguard_kernel_name::canonicalize(raw);
            let identity = canonical
                .strict_identity()
                .map(|_| canonical.qualified_identity())
                .unwrap_or_else(|_| raw.to_owned());
            Some(*index.entry(identity.clone()).or_insert_with(|| {
                out.push(Collective {
                    name: canonical.short_name().into_owned(),
                    identity,
                    count: 0,
                    total_ns: 0,
                    min_ns: i64::MAX,
                    max_ns: 0,
                });
                out.len() - 1
            }))
        });
        if let Some(i) = slot {
            let c = &mut out[i];
            let dur = s.dur_ns.max(0);
            c.count += 1;
            c.total_ns = c.total_ns.saturating_add(dur);
            c.min_ns = c.min_ns.min(dur);
            c.max_ns = c.max_ns.max(dur);
        }
    }
    out.sort_by(|a, b| b.total_ns.cmp(&a.total_ns).then_with(|| a.cmp(b)));
    out
}

/// Cost per semantic frame of the slices `basis` selects: device slices, or
/// host operators (kept as slices or added up as [`HostTotal`]s, whichever
/// the model holds). The frame of a slice depends only on its name,
/// category and class (the provider is the artifact's), so it is computed
/// once per distinct triple: canonicalising and hashing per event would
/// dominate the summary.
fn frame_costs(model: &TraceModel, basis: FrameBasis) -> (Vec<RankFrame>, Vec<UnmatchedFrame>) {
    let one = |s: &Slice| HostTotal {
        class: s.class,
        name: s.name,
        cat: s.cat,
        count: 1,
        counted_dur_ns: s.counted_dur_ns(),
    };
    match basis {
        FrameBasis::Device => add_frames(
            model,
            model
                .slices()
                .iter()
                .filter(|s| s.class.is_device())
                .map(one),
        ),
        FrameBasis::HostOps => add_frames(
            model,
            model
                .slices()
                .iter()
                .filter(|s| s.class == SliceClass::CpuOp)
                .map(one)
                .chain(
                    model
                        .host_totals()
                        .iter()
                        .filter(|t| t.class == SliceClass::CpuOp)
                        .cloned(),
                ),
        ),
    }
}

fn add_frames(
    model: &TraceModel,
    parts: impl Iterator<Item = HostTotal>,
) -> (Vec<RankFrame>, Vec<UnmatchedFrame>) {
    enum Slot {
        Frame(usize),
        Unmatched(usize),
    }
    let mut slots: HashMap<(NameId, NameId, SliceClass), Slot> = HashMap::new();
    let mut frames: Vec<RankFrame> = Vec::new();
    let mut frame_index: HashMap<String, usize> = HashMap::new();
    let mut unmatched: Vec<UnmatchedFrame> = Vec::new();
    for part in parts {
        let slot = slots
            .entry((part.name, part.cat, part.class))
            .or_insert_with(|| {
                let frame = model.semantic_frame_of(part.class, part.name, part.cat);
                match (frame.id, frame.identity) {
                    (Some(id), FrameIdentity::Complete) => {
                        let id = id.as_str().to_owned();
                        Slot::Frame(*frame_index.entry(id.clone()).or_insert_with(|| {
                            frames.push(RankFrame {
                                id,
                                category: frame.category,
                                name: frame.name,
                                kernel_identity: frame.kernel_identity,
                                cost_ns: 0,
                                count: 0,
                            });
                            frames.len() - 1
                        }))
                    }
                    (_, identity) => {
                        let reason = match identity {
                            FrameIdentity::Partial(reason) => reason,
                            FrameIdentity::Complete => "the frame has no semantic id".to_owned(),
                        };
                        unmatched.push(UnmatchedFrame {
                            category: frame.category,
                            name: model.name(part.name).to_owned(),
                            reason,
                            cost_ns: 0,
                            count: 0,
                        });
                        Slot::Unmatched(unmatched.len() - 1)
                    }
                }
            });
        let (cost, count) = match *slot {
            Slot::Frame(i) => {
                let f = &mut frames[i];
                (&mut f.cost_ns, &mut f.count)
            }
            Slot::Unmatched(i) => {
                let u = &mut unmatched[i];
                (&mut u.cost_ns, &mut u.count)
            }
        };
        *cost = cost.saturating_add(part.counted_dur_ns);
        *count += part.count;
    }
    frames.sort();
    unmatched.sort();
    (frames, unmatched)
}

#[cfg(test)]
mod tests {
    use opguard_model::{ArtifactSpec, ModelOptions};
    use opguard_trace::TraceReader;

    fn rank_of(trace: &str) -> Option<i64> {
        let reader = TraceReader::new(trace.as_bytes()).expect("a trace");
        let model = opguard_trace::model_from_reader(
            reader,
            ArtifactSpec::new(),
            &ModelOptions::launches_only(),
            &mut |_, _| {},
        )
        .expect("a model");
        super::summarize_model("rank.json".into(), &model, 5)
            .rank
            .rank
    }

    #[test]
    fn the_rank_is_read_by_the_models_one_rule() {
        let with = |info: &str| rank_of(&format!(r#"{{{info}"traceEvents":[]}}"#));
        assert_eq!(with(r#""distributedInfo":{"rank":3},"#), Some(3));
        assert_eq!(with(""), None);
        assert_eq!(with(r#""distributedInfo":{"backend":"nccl"},"#), None);
        // Not a rank number: align refuses these, a job reports no rank.
        assert_eq!(with(r#""distributedInfo":{"rank":-1},"#), None);
        assert_eq!(with(r#""distributedInfo":{"rank":"3"},"#), None);
        assert_eq!(with(r#""distributedInfo":{"rank":4294967296},"#), None);
    }
}
