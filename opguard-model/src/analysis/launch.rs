//! Analysis stage: launch regions, one per artifact.
//!
//! A [`LaunchRegion`] summarizes host launches and device work of one
//! artifact (one clock domain, one role/stage): region bounds, direct and
//! graph launches, kernels and their top names, kernels whose launch is
//! *proven* through the artifact's qualified correlation namespace, host
//! launch gaps per thread, busy and idle time per stream, per device and
//! over all devices (the union of their activity), and communication:
//! collective kernels ([`crate::classify::is_collective`]) against the other
//! kernels they overlap. Several artifacts are summarized only by
//! [`aggregate`], which adds counts and durations and has no field for an
//! absolute time. Sums saturate at the limits of `i64` nanoseconds rather
//! than wrap, and negative durations add nothing (they are counted in
//! [`Coverage::negative_duration_slices`]).
//!
//! The figures are computed by [`RegionBuilder`] from
//! records in time order: [`launch_region`] sorts a model's records and
//! feeds them through it, and a reader that can give its rows sorted feeds
//! it directly, with bounded memory.

use std::collections::{HashMap, HashSet};
use std::fmt;

use super::region::{DeviceActivity, LaunchEvidence, RegionBuilder, StreamLabels};
use crate::artifact::Artifact;
use crate::identity::Sha256Digest;
use crate::provider::{Format, Provider};
use crate::slice::{FlowPhase, IdValue, LaunchProof, SliceClass, Unproven};
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
    /// ([`Slice::process`](crate::Slice::process)).
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

/// Communication on the device: collective kernels (NCCL, RCCL, and the
/// custom all-reduce kernels named in [`crate::classify::is_collective`])
/// against the other kernels, each a union of intervals.
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    serde::Serialize,
    serde::Deserialize,
)]
#[serde(deny_unknown_fields)]
pub struct Communication {
    /// Collective kernels.
    pub kernel_count: u64,
    /// Time covered by at least one collective kernel, ns.
    pub busy_ns: i64,
    /// Of that, time some other kernel also ran (communication hidden
    /// behind computation), ns.
    pub overlapped_with_compute_ns: i64,
    /// The rest: communication nothing else ran under, ns.
    pub exposed_ns: i64,
}

/// Busy and idle time of one device: the union of all its streams'
/// activity within the region.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct DeviceTime {
    /// The owning process, when established.
    pub process: Option<String>,
    /// The device.
    pub device: String,
    /// Device activities on it.
    pub activities: u64,
    /// Time at least one of its streams was busy, ns.
    pub busy_ns: i64,
    /// The region's duration minus `busy_ns`, ns.
    pub idle_ns: i64,
    /// Its collectives against its other kernels.
    pub communication: Communication,
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
    /// Their total duration, ns.
    pub memory_op_duration_ns: i64,
    /// Kernels whose correlation id names exactly one host runtime call in
    /// this artifact's namespace (see [`TraceModel::launch_proof`]).
    pub correlated_kernel_count: u64,
    /// Kernel identities by total device time.
    pub top_kernels: Vec<KernelTotal>,
    /// Launch gaps per host thread.
    pub launch_gaps: Vec<HostTrackGaps>,
    /// Idle gaps per device stream.
    pub streams: Vec<StreamIdle>,
    /// Sum of the streams' idle gaps, ns: a per-stream figure (several
    /// streams idle at once add up, so it can exceed the region);
    /// `device_idle_ns` is the time no device worked.
    pub idle_gap_total_ns: i64,
    /// Time at least one device activity ran (the union over every stream
    /// and device), ns.
    pub device_busy_ns: i64,
    /// The region's duration minus `device_busy_ns`: time no device
    /// worked, ns.
    pub device_idle_ns: i64,
    /// Busy and idle per device.
    pub devices: Vec<DeviceTime>,
    /// Collectives against the other kernels, over all devices.
    pub communication: Communication,
    /// What the correlation figures rest on.
    pub coverage: Coverage,
}

/// Computes the launch region of one artifact: its launches and device
/// activities in order of start (then occurrence), through a
/// [`RegionBuilder`].
pub fn launch_region(model: &TraceModel, top: usize) -> LaunchRegion {
    let all: Vec<usize> = (0..model.slices().len()).collect();
    let mut region = launch_region_of(model, &all, top);
    cross_check_correlation(model, &mut region);
    region
}

/// The launch region of some of a model's records: the launches and device
/// activities among `positions` (positions into [`TraceModel::slices`];
/// anything else among them is left out), e.g. the work of one training
/// step. The same figures as [`launch_region`] over those records, except
/// the `ac2g` flow cross-check, which is about a whole artifact
/// (`coverage.flow_correlated_kernel_count` stays 0).
pub fn launch_region_of(model: &TraceModel, positions: &[usize], top: usize) -> LaunchRegion {
    let slices = model.slices();
    let mut order: Vec<usize> = positions
        .iter()
        .copied()
        .filter(|&i| {
            slices
                .get(i)
                .is_some_and(|s| matches!(s.class, SliceClass::Launch(_)) || s.class.is_device())
        })
        .collect();
    order.sort_by_key(|&i| (slices[i].ts_ns, slices[i].index));
    order.dedup();
    let mut builder = RegionBuilder::new(model.artifact());
    let text = |v: Option<IdValue>| v.map(|v| model.id_text(v));
    let mut threads = HashMap::new();
    let mut streams = HashMap::new();
    for i in order {
        let s = &slices[i];
        // Records in start order never fail the builder's order check.
        let _ = match s.class {
            SliceClass::Launch(kind) => {
                let thread = *threads.entry((s.pid, s.tid)).or_insert_with(|| {
                    builder.host_thread(
                        &text(s.pid).unwrap_or_default(),
                        &text(s.tid).unwrap_or_default(),
                    )
                });
                builder.launch(thread, kind, s.ts_ns, s.dur_ns)
            }
            _ => {
                let key = (
                    s.process,
                    s.pid,
                    s.device.or(s.pid),
                    s.context,
                    s.stream.or(s.tid),
                );
                let stream = *streams.entry(key).or_insert_with(|| {
                    builder.device_stream(StreamLabels {
                        process: text(key.0),
                        track: text(key.1).unwrap_or_default(),
                        device: text(key.2).unwrap_or_default(),
                        context: text(key.3),
                        stream: text(key.4).unwrap_or_default(),
                    })
                });
                let launch = match (s.correlation, model.launch_proof(i)) {
                    (None, _) => LaunchEvidence::NoId,
                    (_, LaunchProof::Proven(_)) => LaunchEvidence::Proven,
                    (_, LaunchProof::Ambiguous(_)) => LaunchEvidence::Ambiguous,
                    (_, LaunchProof::Unproven(Unproven::OwnerUnknown)) => {
                        LaunchEvidence::OwnerUnknown
                    }
                    (_, LaunchProof::Unproven(_)) => LaunchEvidence::Unproven,
                };
                let activity = DeviceActivity {
                    class: s.class,
                    name: model.name(s.name),
                    ts_ns: s.ts_ns,
                    dur_ns: s.dur_ns,
                    launch,
                };
                builder.device_activity(stream, activity)
            }
        };
    }
    builder.finish(top)
}

/// The region of `artifact` with its provenance and every count at zero.
pub(super) fn empty_region(a: &Artifact) -> LaunchRegion {
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
        memory_op_duration_ns: 0,
        correlated_kernel_count: 0,
        top_kernels: Vec::new(),
        launch_gaps: Vec::new(),
        streams: Vec::new(),
        idle_gap_total_ns: 0,
        device_busy_ns: 0,
        device_idle_ns: 0,
        devices: Vec::new(),
        communication: Communication::default(),
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

/// The `top` kernel identities by total device time (identity breaks ties);
/// names that canonicalize to one identity are added together.
pub(super) fn top_kernels(
    kernel_totals: HashMap<String, (u64, i64)>,
    top: usize,
) -> Vec<KernelTotal> {
    let mut totals: std::collections::BTreeMap<String, KernelTotal> = Default::default();
    for (name, (count, dur)) in kernel_totals {
        let canonical = opguard_kernel_name::canonicalize(&name);
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
    /// Sum of each region's device busy time.
    pub device_busy_ns: i64,
    /// Sum of each region's device idle time.
    pub device_idle_ns: i64,
    /// Each region's communication, added up.
    pub communication: Communication,
}

/// One artifact given twice to [`aggregate`]: its counts would be added
/// twice, so nothing is added (code `artifact_reused`, as opguard-scaling
/// names the same refusal).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArtifactReused {
    /// The artifact.
    pub artifact: Sha256Digest,
    /// The positions of the two regions that are it.
    pub positions: (usize, usize),
}

impl ArtifactReused {
    /// The stable code: `artifact_reused`.
    pub fn code(&self) -> &'static str {
        "artifact_reused"
    }
}

impl fmt::Display for ArtifactReused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "inputs {} and {} are one artifact ({}): its launches and kernels would be counted \
             twice; give each capture once",
            self.positions.0, self.positions.1, self.artifact
        )
    }
}

impl std::error::Error for ArtifactReused {}

/// Adds counts and durations of `regions`; refuses absolute timestamps by
/// having no field for them, and one artifact given twice
/// ([`ArtifactReused`]).
pub fn aggregate(regions: &[LaunchRegion]) -> Result<RegionAggregate, ArtifactReused> {
    let mut seen: HashMap<Sha256Digest, usize> = HashMap::new();
    for (i, r) in regions.iter().enumerate() {
        if let Some(&first) = seen.get(&r.artifact) {
            return Err(ArtifactReused {
                artifact: r.artifact,
                positions: (first, i),
            });
        }
        seen.insert(r.artifact, i);
    }
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
        device_busy_ns: 0,
        device_idle_ns: 0,
        communication: Communication::default(),
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
        a.device_busy_ns = a.device_busy_ns.saturating_add(r.device_busy_ns);
        a.device_idle_ns = a.device_idle_ns.saturating_add(r.device_idle_ns);
        let (c, rc) = (&mut a.communication, &r.communication);
        c.kernel_count += rc.kernel_count;
        c.busy_ns = c.busy_ns.saturating_add(rc.busy_ns);
        c.overlapped_with_compute_ns = c
            .overlapped_with_compute_ns
            .saturating_add(rc.overlapped_with_compute_ns);
        c.exposed_ns = c.exposed_ns.saturating_add(rc.exposed_ns);
    }
    Ok(a)
}
