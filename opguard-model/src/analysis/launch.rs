//! Analysis stage: launch regions, one per artifact.
//!
//! A [`LaunchRegion`] summarizes host launches and device work of one
//! artifact (one clock domain, one role/stage): region bounds, direct and
//! graph launches, kernels and their top names, kernels whose launch is
//! *proven* through the artifact's qualified correlation namespace, host
//! launch gaps per thread and idle gaps per (device, context, stream).
//! Several artifacts are summarized only by [`aggregate`], which adds counts
//! and durations and has no field for an absolute time. Sums saturate at the
//! limits of `i64` nanoseconds rather than wrap, and negative durations add
//! nothing (they are counted in [`Coverage::negative_duration_slices`]).

use std::collections::{BTreeMap, HashMap, HashSet};

use crate::identity::Sha256Digest;
use crate::provider::{Format, Provider};
use crate::slice::{
    FlowPhase, IdValue, LaunchKind, LaunchProof, NameId, Slice, SliceClass, Unproven,
};
use crate::TraceModel;

/// How many kernel names [`LaunchRegion::top_kernels`] lists by default.
pub const DEFAULT_TOP_KERNELS: usize = 10;

/// Where a result came from.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Provenance {
    /// The artifact's SHA-256.
    pub artifact: Sha256Digest,
    /// Its provider.
    pub provider: Provider,
    /// The format it was read from.
    pub format: Format,
    /// The producer's name and version, when the capture states them.
    pub producer: Option<String>,
    /// Its role.
    pub role: Option<String>,
    /// Its stage.
    pub stage: Option<String>,
    /// Its clock domain.
    pub clock_domain: String,
    /// Its source path.
    pub source: Option<String>,
}

/// Gaps between consecutive launches on one host thread.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct HostTrackGaps {
    /// `pid`.
    pub pid: String,
    /// `tid`.
    pub tid: String,
    /// Launches on the thread.
    pub launches: u64,
    /// Positive gaps between one launch's end and the next one's start.
    pub gap_count: u64,
    /// Their total, ns.
    pub gap_total_ns: i64,
    /// The largest, ns.
    pub gap_max_ns: i64,
}

/// Busy and idle time of one device stream. Streams of two processes are
/// never one stream, even when their labels agree.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct StreamIdle {
    /// The process owning the stream's activities, when established
    /// ([`Slice::process`]).
    pub process: Option<String>,
    /// The track's `pid` as written (Kineto writes the device there).
    pub track: String,
    /// `args.device` (or the track's `pid`).
    pub device: String,
    /// `args.context`, when present.
    pub context: Option<String>,
    /// `args.stream` (or the event's `tid`).
    pub stream: String,
    /// Device activities (kernels, copies, sets) on the stream.
    pub activities: u64,
    /// Time covered by at least one activity, ns.
    pub busy_ns: i64,
    /// Gaps between activities.
    pub idle_gap_count: u64,
    /// Their total, ns.
    pub idle_gap_total_ns: i64,
    /// The largest, ns.
    pub idle_gap_max_ns: i64,
}

/// One kernel identity's total.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct KernelTotal {
    /// Display name (`opguard-kernel-name` short name).
    pub short_name: String,
    /// Canonical identity (template arguments kept).
    pub identity: String,
    /// Launches of it.
    pub count: u64,
    /// Total device time, ns.
    pub duration_ns: i64,
}

/// What the correlation figures rest on.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Coverage {
    /// Whether any kernel carries a correlation id.
    pub correlation_ids_present: bool,
    /// Kernels carrying a correlation id.
    pub kernels_with_correlation_id: u64,
    /// Kernels whose correlation id names several launch rows of their
    /// process: ambiguous, never counted in `correlated_kernel_count`.
    pub ambiguous_correlation_kernel_count: u64,
    /// Kernels carrying a correlation id whose owning process is not
    /// established (a file whose runtime calls come from several processes,
    /// e.g. a merge of ranks): present, not proven.
    pub owner_unknown_kernel_count: u64,
    /// Whether at least one kernel's launch is proven in a qualified
    /// namespace. False for providers without one, whatever the ids say,
    /// and when every correlated id is ambiguous.
    pub host_to_device_correlation_proven: bool,
    /// The namespace used (the provider table in [`crate::provider`]), or
    /// `none`.
    pub namespace: String,
    /// Kernels linked to a host launch by an `ac2g` flow pair.
    pub flow_correlated_kernel_count: u64,
    /// Why the flow cross-check and the correlation count differ, if they do.
    pub disagreement: Option<String>,
    /// Launches and device activities whose duration is negative (they end
    /// before they start): counted here, added as 0 to every total.
    pub negative_duration_slices: u64,
}

/// Launch and device activity of one artifact.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct LaunchRegion {
    /// The artifact's SHA-256.
    pub artifact: Sha256Digest,
    /// Its provider.
    pub provider: Provider,
    /// Its role.
    pub role: Option<String>,
    /// Its stage.
    pub stage: Option<String>,
    /// Its clock domain; every time below lives in it.
    pub clock_domain: String,
    /// Where it came from.
    pub provenance: Vec<Provenance>,
    /// First launch or device activity start, ns.
    pub region_start_ns: Option<i64>,
    /// Last launch or device activity end, ns.
    pub region_end_ns: Option<i64>,
    /// End minus start, within this clock domain.
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
    /// Kernels whose correlation id names exactly one host runtime call in
    /// this artifact's namespace (see [`TraceModel::launch_proof`]).
    pub correlated_kernel_count: u64,
    /// Kernel identities by total device time.
    pub top_kernels: Vec<KernelTotal>,
    /// Launch gaps per host thread.
    pub launch_gaps: Vec<HostTrackGaps>,
    /// Idle gaps per device stream.
    pub streams: Vec<StreamIdle>,
    /// Sum of the streams' idle gaps, ns.
    pub idle_gap_total_ns: i64,
    /// What the correlation figures rest on.
    pub coverage: Coverage,
}

/// Computes the launch region of one artifact.
pub fn launch_region(model: &TraceModel, top: usize) -> LaunchRegion {
    let mut region = empty_region(model);
    let tracks = tally_slices(model, &mut region);
    region.launch_gaps = tracks
        .by_thread
        .into_iter()
        .map(|(thread, launches)| host_track_gaps(thread, launches))
        .collect();
    region.streams = tracks
        .by_stream
        .into_iter()
        .map(|(stream, activities)| stream_idle(stream, activities))
        .collect();
    region.idle_gap_total_ns = region
        .streams
        .iter()
        .fold(0i64, |total, s| total.saturating_add(s.idle_gap_total_ns));
    region.top_kernels = top_kernels(model, tracks.kernel_totals, top);
    cross_check_correlation(model, &mut region);
    region
}

/// `(pid, tid)` of a host thread, as text.
type ThreadKey = (String, String);
/// `(process, track pid, device, context, stream)` of a device stream, as
/// text: two processes' streams never fuse, nor do two tracks as written.
type StreamKey = (Option<String>, String, String, Option<String>, String);

/// The slices [`tally_slices`] grouped for the per-track passes.
struct Tracks<'m> {
    /// Launches per host thread.
    by_thread: BTreeMap<ThreadKey, Vec<&'m Slice>>,
    /// Device activities per stream.
    by_stream: BTreeMap<StreamKey, Vec<&'m Slice>>,
    /// Count and counted duration per kernel name.
    kernel_totals: HashMap<NameId, (u64, i64)>,
}

/// The region of `model`'s artifact with its provenance and every count at zero.
fn empty_region(model: &TraceModel) -> LaunchRegion {
    let a = model.artifact();
    let provenance = Provenance {
        artifact: a.sha256,
        provider: a.provider,
        format: a.format,
        producer: a.producer.clone(),
        role: a.role.clone(),
        stage: a.stage.clone(),
        clock_domain: a.clock_domain.clone(),
        source: a.source.clone(),
    };
    LaunchRegion {
        artifact: a.sha256,
        provider: a.provider,
        role: a.role.clone(),
        stage: a.stage.clone(),
        clock_domain: a.clock_domain.clone(),
        provenance: vec![provenance],
        region_start_ns: None,
        region_end_ns: None,
        region_duration_ns: None,
        direct_launch_count: 0,
        direct_launch_duration_ns: 0,
        graph_launch_count: 0,
        graph_launch_duration_ns: 0,
        kernel_count: 0,
        kernel_duration_ns: 0,
        memory_op_count: 0,
        correlated_kernel_count: 0,
        top_kernels: Vec::new(),
        launch_gaps: Vec::new(),
        streams: Vec::new(),
        idle_gap_total_ns: 0,
        coverage: Coverage {
            correlation_ids_present: false,
            kernels_with_correlation_id: 0,
            ambiguous_correlation_kernel_count: 0,
            owner_unknown_kernel_count: 0,
            host_to_device_correlation_proven: false,
            namespace: a.provider.correlation_namespace().unwrap_or("none").into(),
            flow_correlated_kernel_count: 0,
            disagreement: None,
            negative_duration_slices: 0,
        },
    }
}

/// One pass over the slices: counts and durations by class, the region's
/// bounds and the correlation counts go into `region`; launches and device
/// activities come back grouped by track.
fn tally_slices<'m>(model: &'m TraceModel, region: &mut LaunchRegion) -> Tracks<'m> {
    let mut tracks = Tracks {
        by_thread: BTreeMap::new(),
        by_stream: BTreeMap::new(),
        kernel_totals: HashMap::new(),
    };
    let mut start: Option<i64> = None;
    let mut end: Option<i64> = None;
    for (i, s) in model.slices().iter().enumerate() {
        if !count_slice(model, i, s, region, &mut tracks.kernel_totals) {
            continue;
        }
        if s.dur_ns < 0 {
            region.coverage.negative_duration_slices += 1;
        }
        start = Some(start.map_or(s.ts_ns, |v| v.min(s.ts_ns)));
        end = Some(end.map_or(s.end_ns(), |v| v.max(s.end_ns())));
        let text = |v: Option<IdValue>| v.map(|v| model.id_text(v));
        if matches!(s.class, SliceClass::Launch(_)) {
            let key = (
                text(s.pid).unwrap_or_default(),
                text(s.tid).unwrap_or_default(),
            );
            tracks.by_thread.entry(key).or_default().push(s);
        } else {
            let key = (
                text(s.process),
                text(s.pid).unwrap_or_default(),
                text(s.device.or(s.pid)).unwrap_or_default(),
                text(s.context),
                text(s.stream.or(s.tid)).unwrap_or_default(),
            );
            tracks.by_stream.entry(key).or_default().push(s);
        }
    }
    region.region_start_ns = start;
    region.region_end_ns = end;
    region.region_duration_ns = start.zip(end).map(|(s, e)| e.saturating_sub(s));
    region.coverage.correlation_ids_present = region.coverage.kernels_with_correlation_id > 0;
    region.coverage.host_to_device_correlation_proven = region.correlated_kernel_count > 0;
    tracks
}

/// Adds slice `i` to the counts of its class; false when the class is
/// neither a launch nor device activity (the slice is not part of a region).
fn count_slice(
    model: &TraceModel,
    i: usize,
    s: &Slice,
    r: &mut LaunchRegion,
    kernel_totals: &mut HashMap<NameId, (u64, i64)>,
) -> bool {
    // A negative duration (an event that ends before it starts) adds
    // nothing to a total; it is counted in coverage instead.
    let dur = s.counted_dur_ns();
    match s.class {
        SliceClass::Launch(LaunchKind::Direct) => {
            r.direct_launch_count += 1;
            r.direct_launch_duration_ns = r.direct_launch_duration_ns.saturating_add(dur);
            true
        }
        SliceClass::Launch(LaunchKind::Graph) => {
            r.graph_launch_count += 1;
            r.graph_launch_duration_ns = r.graph_launch_duration_ns.saturating_add(dur);
            true
        }
        SliceClass::Kernel => {
            r.kernel_count += 1;
            r.kernel_duration_ns = r.kernel_duration_ns.saturating_add(dur);
            let t = kernel_totals.entry(s.name).or_default();
            t.0 += 1;
            t.1 = t.1.saturating_add(dur);
            if s.correlation.is_some() {
                r.coverage.kernels_with_correlation_id += 1;
            }
            match model.launch_proof(i) {
                LaunchProof::Proven(_) => r.correlated_kernel_count += 1,
                LaunchProof::Ambiguous(_) => r.coverage.ambiguous_correlation_kernel_count += 1,
                LaunchProof::Unproven(Unproven::OwnerUnknown) => {
                    r.coverage.owner_unknown_kernel_count += 1
                }
                LaunchProof::Unproven(_) => {}
            }
            true
        }
        SliceClass::Memcpy | SliceClass::Memset => {
            r.memory_op_count += 1;
            true
        }
        SliceClass::DeviceOther => true,
        _ => false,
    }
}

/// Positive gaps between one launch's end and the next one's start on one
/// host thread.
fn host_track_gaps((pid, tid): ThreadKey, mut launches: Vec<&Slice>) -> HostTrackGaps {
    launches.sort_by_key(|s| (s.ts_ns, s.index));
    let mut g = HostTrackGaps {
        pid,
        tid,
        launches: launches.len() as u64,
        gap_count: 0,
        gap_total_ns: 0,
        gap_max_ns: 0,
    };
    for pair in launches.windows(2) {
        let gap = pair[1].ts_ns.saturating_sub(pair[0].end_ns());
        if gap > 0 {
            g.gap_count += 1;
            g.gap_total_ns = g.gap_total_ns.saturating_add(gap);
            g.gap_max_ns = g.gap_max_ns.max(gap);
        }
    }
    g
}

/// Busy time (the union of the activities) and idle gaps of one device
/// stream; overlapping activities are busy once.
fn stream_idle(
    (process, track, device, context, stream): StreamKey,
    mut activities: Vec<&Slice>,
) -> StreamIdle {
    activities.sort_by_key(|s| (s.ts_ns, s.index));
    let mut st = StreamIdle {
        process,
        track,
        device,
        context,
        stream,
        activities: activities.len() as u64,
        busy_ns: 0,
        idle_gap_count: 0,
        idle_gap_total_ns: 0,
        idle_gap_max_ns: 0,
    };
    let mut covered_until: Option<i64> = None;
    for s in activities {
        match covered_until {
            Some(until) if s.ts_ns > until => {
                let gap = s.ts_ns.saturating_sub(until);
                st.idle_gap_count += 1;
                st.idle_gap_total_ns = st.idle_gap_total_ns.saturating_add(gap);
                st.idle_gap_max_ns = st.idle_gap_max_ns.max(gap);
                st.busy_ns = st.busy_ns.saturating_add(s.counted_dur_ns());
                covered_until = Some(s.end_ns());
            }
            Some(until) => {
                st.busy_ns = st
                    .busy_ns
                    .saturating_add(s.end_ns().saturating_sub(until).max(0));
                covered_until = Some(until.max(s.end_ns()));
            }
            None => {
                st.busy_ns = st.busy_ns.saturating_add(s.counted_dur_ns());
                covered_until = Some(s.end_ns());
            }
        }
    }
    st
}

/// The `top` kernel identities by total device time (identity breaks ties);
/// names that canonicalize to one identity are added together.
fn top_kernels(
    model: &TraceModel,
    kernel_totals: HashMap<NameId, (u64, i64)>,
    top: usize,
) -> Vec<KernelTotal> {
    let mut totals: BTreeMap<String, KernelTotal> = BTreeMap::new();
    for (name, (count, dur)) in kernel_totals {
        let raw = model.name(name);
        let canonical = opguard_kernel_name::canonicalize(raw);
        let identity = canonical.qualified_identity();
        let t = totals
            .entry(identity.clone())
            .or_insert_with(|| KernelTotal {
                short_name: canonical.short_name().into_owned(),
                identity,
                count: 0,
                duration_ns: 0,
            });
        t.count += count;
        t.duration_ns = t.duration_ns.saturating_add(dur);
    }
    let mut totals: Vec<KernelTotal> = totals.into_values().collect();
    totals.sort_by(|a, b| {
        b.duration_ns
            .cmp(&a.duration_ns)
            .then_with(|| a.identity.cmp(&b.identity))
    });
    totals.truncate(top);
    totals
}

/// Sets the `ac2g` flow count beside the correlation count (Kineto only) and
/// says why they differ, why kernels whose process is not established prove
/// nothing, or why a provider without a qualified namespace claims nothing
/// from the ids it carries.
fn cross_check_correlation(model: &TraceModel, r: &mut LaunchRegion) {
    let provider = model.artifact().provider;
    let unknown = r.coverage.owner_unknown_kernel_count;
    if unknown > 0 {
        r.coverage.disagreement = Some(format!(
            "{unknown} kernels carry correlation ids, but the runtime calls come from several \
             processes that reuse ids and nothing states which process each kernel belongs \
             to; ids are unique per process only: present, not proven"
        ));
    } else if provider.is_kineto() {
        r.coverage.flow_correlated_kernel_count = flow_correlated_kernels(model);
        let (c, f) = (
            r.correlated_kernel_count,
            r.coverage.flow_correlated_kernel_count,
        );
        if c != f {
            r.coverage.disagreement = Some(if f == 0 && c > 0 {
                format!("{c} kernels correlate by id but the trace has no ac2g flow pairs ending on them")
            } else if c == 0 && f > 0 {
                format!("{f} kernels are linked by ac2g flows but carry no correlation id that matches a host call")
            } else {
                format!("{c} kernels correlate by id, {f} are linked by ac2g flow pairs")
            });
        }
    } else if r.coverage.correlation_ids_present && provider.correlation_namespace().is_none() {
        // Native formats (rocprofv3, Nsight Systems, XLA) have a namespace
        // and no flows to cross-check: nothing to say.
        r.coverage.disagreement = Some(format!(
            "{} kernels carry correlation ids, but provider {} defines no qualified namespace: nothing is claimed",
            r.coverage.kernels_with_correlation_id,
            provider.as_str()
        ));
    }
}

/// Kernels whose start carries the end of an `ac2g` flow whose start sits at
/// the start of a host runtime call, in the same artifact.
fn flow_correlated_kernels(model: &TraceModel) -> u64 {
    let Some(ac2g) = model.find_name("ac2g") else {
        return 0;
    };
    type Point = (Option<IdValue>, Option<IdValue>, i64);
    let runtime_starts: HashSet<Point> = model
        .slices()
        .iter()
        .filter(|s| s.class.is_runtime())
        .map(|s| (s.pid, s.tid, s.ts_ns))
        .collect();
    let mut proven_ids: HashSet<IdValue> = HashSet::new();
    let mut ends: HashMap<Point, Vec<IdValue>> = HashMap::new();
    for f in model.flows().iter().filter(|f| f.cat == ac2g) {
        let point = (f.pid, f.tid, f.ts_ns);
        match f.phase {
            FlowPhase::Start if runtime_starts.contains(&point) => {
                proven_ids.insert(f.id);
            }
            FlowPhase::End => ends.entry(point).or_default().push(f.id),
            FlowPhase::Start => {}
        }
    }
    model
        .slices()
        .iter()
        .filter(|s| s.class == SliceClass::Kernel)
        .filter(|s| {
            ends.get(&(s.pid, s.tid, s.ts_ns))
                .is_some_and(|ids| ids.iter().any(|id| proven_ids.contains(id)))
        })
        .count() as u64
}

/// Counts and durations summed over several regions. There is deliberately
/// no start, end or gap across regions: their clocks are independent.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct RegionAggregate {
    /// Every contributing artifact.
    pub provenance: Vec<Provenance>,
    /// Regions summed.
    pub region_count: u64,
    /// Sum of each region's own duration (each within its clock domain).
    pub summed_region_duration_ns: i64,
    /// Direct launches.
    pub direct_launch_count: u64,
    /// Their total duration, ns.
    pub direct_launch_duration_ns: i64,
    /// Graph launches.
    pub graph_launch_count: u64,
    /// Their total duration, ns.
    pub graph_launch_duration_ns: i64,
    /// Kernels.
    pub kernel_count: u64,
    /// Their total duration, ns.
    pub kernel_duration_ns: i64,
    /// Kernels proven correlated, each inside its own artifact.
    pub correlated_kernel_count: u64,
    /// Sum of each region's idle gaps (each within its clock domain).
    pub idle_gap_total_ns: i64,
}

/// Adds counts and durations of `regions`; refuses absolute timestamps by
/// having no field for them.
pub fn aggregate(regions: &[LaunchRegion]) -> RegionAggregate {
    let mut a = RegionAggregate {
        provenance: Vec::new(),
        region_count: regions.len() as u64,
        summed_region_duration_ns: 0,
        direct_launch_count: 0,
        direct_launch_duration_ns: 0,
        graph_launch_count: 0,
        graph_launch_duration_ns: 0,
        kernel_count: 0,
        kernel_duration_ns: 0,
        correlated_kernel_count: 0,
        idle_gap_total_ns: 0,
    };
    for r in regions {
        a.provenance.extend(r.provenance.iter().cloned());
        a.summed_region_duration_ns = a
            .summed_region_duration_ns
            .saturating_add(r.region_duration_ns.unwrap_or(0));
        a.direct_launch_count += r.direct_launch_count;
        a.direct_launch_duration_ns = a
            .direct_launch_duration_ns
            .saturating_add(r.direct_launch_duration_ns);
        a.graph_launch_count += r.graph_launch_count;
        a.graph_launch_duration_ns = a
            .graph_launch_duration_ns
            .saturating_add(r.graph_launch_duration_ns);
        a.kernel_count += r.kernel_count;
        a.kernel_duration_ns = a.kernel_duration_ns.saturating_add(r.kernel_duration_ns);
        a.correlated_kernel_count += r.correlated_kernel_count;
        a.idle_gap_total_ns = a.idle_gap_total_ns.saturating_add(r.idle_gap_total_ns);
    }
    a
}
