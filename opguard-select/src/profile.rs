//! Profile Top-N: device-time rows that declare what they are
//! (`entity_kind_contract: "v1"`) and the evidence the declaration rests on.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use serde::Serialize;

use opguard_formats::ReadOptions;
use opguard_model::{
    ArtifactSpec, HostKind, ModelOptions, NameId, SliceClass, TraceModel, INDUCTOR_PLACEHOLDER,
};

use crate::error::{Error, ErrorKind};

/// The `format` of a [`ProfileDocument`].
pub const PROFILE_FORMAT: &str = "opguard.select.profile/v1";

/// The entity-kind contract the rows declare.
pub const ENTITY_KIND_CONTRACT: &str = "v1";

/// What a Top-N row is (`entity_kind_contract` v1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum EntityKind {
    /// A device kernel: a `kernel`-category row, or other device activity
    /// proven launched by a host launch call.
    GpuKernel,
    /// A device memory copy or set.
    MemoryOp,
    /// A host dispatcher operator (`cpu_op`, an XLA operation) standing for
    /// the kernels it launched. Never a device row: such aggregates are
    /// expanded into their kernels (see
    /// [`ProfileDocument::expanded_aggregates`]). In a capture without
    /// device activity it is a host row ([`HostProfile::rows`]).
    DispatcherOp,
    /// A Python-level launcher (a `record_function` annotation) standing
    /// for the kernels launched directly under it. Expanded like
    /// [`EntityKind::DispatcherOp`]. In a capture without device activity,
    /// a Python function is a host row of this kind.
    PythonLauncher,
    /// Device activity whose nature the trace does not establish (no
    /// kernel category and no launch edge, or a degenerate name); a host
    /// slice whose name or category identifies nothing.
    Unresolved,
}

impl EntityKind {
    /// The stable name (`gpu_kernel`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            EntityKind::GpuKernel => "gpu_kernel",
            EntityKind::MemoryOp => "memory_op",
            EntityKind::DispatcherOp => "dispatcher_op",
            EntityKind::PythonLauncher => "python_launcher",
            EntityKind::Unresolved => "unresolved",
        }
    }
}

/// A profile: the Top-N device rows of one trace by total device time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ProfileDocument {
    /// [`PROFILE_FORMAT`].
    pub format: &'static str,
    /// [`ENTITY_KIND_CONTRACT`].
    pub entity_kind_contract: &'static str,
    /// The trace.
    pub trace: ProfiledTrace,
    /// How many rows were asked for.
    pub top: usize,
    /// Device rows (kernels, copies, sets, other device activity) in the
    /// trace.
    pub device_rows: u64,
    /// Their total duration, nanoseconds.
    pub device_time_ns: i64,
    /// Distinct (name, kind) device entities.
    pub distinct_entities: usize,
    /// The Top-N rows, by total device time (name breaks ties).
    pub rows: Vec<ProfileRow>,
    /// How many rows of each kind.
    pub entity_kinds: BTreeMap<EntityKind, usize>,
    /// Host aggregates whose device time would have ranked them among the
    /// Top-N, each expanded into the device kernels it launched (through
    /// External-id edges). An aggregate is never a row: it cannot hide the
    /// kernels underneath.
    pub expanded_aggregates: Vec<ExpandedAggregate>,
    /// Device rows whose duration is negative (they end before they start):
    /// each adds 0 ns, the rule every analysis follows
    /// (`Slice::counted_dur_ns`).
    pub negative_duration_rows: u64,
    /// Whether the capture has device activity (any device row).
    pub device_activity: bool,
    /// The host profile, present exactly when the capture has no device
    /// activity: what ran on the host, by self time.
    pub host: Option<HostProfile>,
}

/// The profile of a capture without device activity: host operations by
/// self time, and the regions that frame them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct HostProfile {
    /// Says plainly that the capture has no device activity.
    pub note: String,
    /// How self time is computed.
    pub self_time_rule: &'static str,
    /// Host operation slices (markers, regions and runtime calls are not
    /// operations).
    pub operations: u64,
    /// Their summed self time, nanoseconds: the host time the rows share.
    pub self_time_ns: i64,
    /// Distinct (name, category, kind, HLO module) operations.
    pub distinct_operations: usize,
    /// The Top-N operations by self time (total time, then name, break
    /// ties).
    pub rows: Vec<HostRow>,
    /// How many rows of each kind.
    pub entity_kinds: BTreeMap<EntityKind, usize>,
    /// Regions (`record_function`/`user_annotation`, `ProfilerStep#N`,
    /// JAX `TraceAnnotation`, the profiler's own span), by name, in the
    /// order they first start; at most Top-N of them.
    pub regions: Vec<RegionRow>,
    /// Distinct region names.
    pub distinct_regions: usize,
    /// Marker events left out (JAX's `end: X`): they close an operation
    /// and are never one.
    pub markers: u64,
    /// Host slices whose duration is negative: each adds 0 ns.
    pub negative_duration_slices: u64,
}

/// One host operation row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct HostRow {
    /// 1-based rank.
    pub rank: usize,
    /// The name as the trace writes it.
    pub name: String,
    /// What it is (`dispatcher_op`, `python_launcher`, `unresolved`).
    pub entity_kind: EntityKind,
    /// Its slices.
    pub calls: u64,
    /// Summed self time, nanoseconds.
    pub self_ns: i64,
    /// Summed duration, nanoseconds (a recursive call counts inside its
    /// caller too, as profilers' totals do).
    pub total_ns: i64,
    /// What the kind rests on.
    pub evidence: HostEvidence,
}

/// The evidence a host row's kind rests on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct HostEvidence {
    /// The trace category of its slices.
    pub category: String,
    /// Why this kind: `cpu_op_category`, `xla_hlo_op`, `python_frame`,
    /// `placeholder_name`, `host_slice_unclassified`.
    pub basis: &'static str,
    /// Why the row is `unresolved`, in words.
    pub reason: Option<String>,
    /// `args.hlo_module` of an XLA operation.
    pub hlo_module: Option<String>,
    /// `args.hlo_op` of an XLA operation.
    pub hlo_op: Option<String>,
    /// Its calls by `args["Input Dims"]` (PyTorch `record_shapes`), by self
    /// time; empty when the trace recorded no shapes.
    pub input_shapes: Vec<ShapeTime>,
}

/// The calls of one operation with one set of input shapes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ShapeTime {
    /// `args["Input Dims"]` as the trace writes it.
    pub input_dims: String,
    /// Calls.
    pub calls: u64,
    /// Their summed self time, nanoseconds.
    pub self_ns: i64,
}

/// One region name: how often it ran and for how long.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct RegionRow {
    /// The name as the trace writes it (`ProfilerStep#3`).
    pub name: String,
    /// The trace category (`user_annotation`, ...).
    pub category: String,
    /// Its slices.
    pub calls: u64,
    /// Summed duration, nanoseconds.
    pub total_ns: i64,
}

/// Which trace a profile describes: its source, SHA-256 and provider, no
/// more. (The facts `opguard trace info` reports about a file are
/// `opguard_trace::TraceInfo`.)
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ProfiledTrace {
    /// Where it was read from.
    pub source: Option<String>,
    /// SHA-256 of its bytes.
    pub sha256: String,
    /// Who wrote it.
    pub provider: &'static str,
}

/// One Top-N row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ProfileRow {
    /// 1-based rank.
    pub rank: usize,
    /// The device row name as the trace writes it.
    pub name: String,
    /// Its short name (`opguard_kernel_name::short_name`).
    pub short_name: String,
    /// What it is.
    pub entity_kind: EntityKind,
    /// Total duration over its device rows, nanoseconds.
    pub total_device_ns: i64,
    /// Its device rows.
    pub calls: u64,
    /// What the kind rests on.
    pub evidence: RowEvidence,
}

/// The evidence a row's kind rests on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct RowEvidence {
    /// The trace category of its rows (`kernel`, `gpu_memcpy`, ...).
    pub category: String,
    /// Why this kind (`kernel_category`, `memory_category`,
    /// `launch_correlated_device_activity`, `device_activity_without_launch`,
    /// `degenerate_name`).
    pub basis: &'static str,
    /// Rows whose launch is proven by correlation.
    pub launch_correlation_edges: u64,
    /// Rows sharing a qualified External id with a host slice.
    pub external_id_edges: u64,
    /// Rows with neither edge.
    pub rows_without_edges: u64,
    /// Dispatcher operators (`cpu_op`) that launched its rows, by External id.
    pub dispatcher_ops: Vec<NameTime>,
    /// Annotations (`user_annotation`) its rows were launched directly
    /// under, by External id.
    pub python_launchers: Vec<NameTime>,
}

/// A host name with the device rows and time it accounts for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct NameTime {
    /// The host slice name.
    pub name: String,
    /// Device rows.
    pub calls: u64,
    /// Their total duration, nanoseconds.
    pub device_ns: i64,
}

/// A host aggregate, expanded into its kernels.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ExpandedAggregate {
    /// The host slice name (`aten::mm`, `## forward ##`).
    pub name: String,
    /// `dispatcher_op` or `python_launcher`.
    pub entity_kind: EntityKind,
    /// The device time it stands for, nanoseconds.
    pub total_device_ns: i64,
    /// Where it would have ranked among rows and aggregates together.
    pub would_rank: usize,
    /// The device rows it launched, by device time.
    pub kernels: Vec<NameTime>,
}

/// Reads a trace and returns its Top-`top` profile.
pub fn profile(path: impl AsRef<Path>, top: usize) -> Result<ProfileDocument, Error> {
    profile_with(
        path,
        top,
        ArtifactSpec::new(),
        &ReadOptions::new(ModelOptions::new()),
    )
}

/// Reads a trace of any format as `spec` says (e.g. a provider given by the
/// caller) with `options`, and returns its Top-`top` profile. The role is
/// `profile` unless `spec` names one.
pub fn profile_with(
    path: impl AsRef<Path>,
    top: usize,
    mut spec: ArtifactSpec,
    options: &ReadOptions,
) -> Result<ProfileDocument, Error> {
    let path = path.as_ref();
    if spec.role.is_none() {
        spec.role = Some("profile".to_owned());
    }
    let model = opguard_formats::read(path, spec, options).map_err(|source| {
        ErrorKind::TraceUnreadable {
            path: path.to_path_buf(),
            source,
        }
    })?;
    Ok(profile_model(&model, top))
}

#[derive(Default)]
struct Entity {
    cat: Option<NameId>,
    calls: u64,
    total: i64,
    launch_edges: u64,
    external_edges: u64,
    without_edges: u64,
    hosts: HashMap<(NameId, SliceClass), (u64, i64)>,
}

#[derive(Default)]
struct Aggregate {
    total: i64,
    kernels: HashMap<(NameId, SliceClass), (u64, i64)>,
}

/// The Top-`top` profile of a model already read.
pub fn profile_model(model: &TraceModel, top: usize) -> ProfileDocument {
    let slices = model.slices();
    let mut entities: HashMap<(NameId, SliceClass), Entity> = HashMap::new();
    let mut aggregates: HashMap<(NameId, SliceClass), Aggregate> = HashMap::new();
    let mut device_rows = 0u64;
    let mut device_time = 0i64;
    let mut negative_duration_rows = 0u64;
    for (i, s) in slices.iter().enumerate() {
        if !s.class.is_device() {
            continue;
        }
        device_rows += 1;
        negative_duration_rows += u64::from(s.dur_ns < 0);
        let dur = s.counted_dur_ns();
        device_time = device_time.saturating_add(dur);
        let key = (s.name, s.class);
        let e = entities.entry(key).or_default();
        e.cat.get_or_insert(s.cat);
        e.calls += 1;
        e.total = e.total.saturating_add(dur);
        // Launched means proven (seed 002's launch-proof contract): a
        // correlation id that several host launches carry (two processes
        // merged into one file) proves nothing for its rows.
        let launched = model.launch_proof(i).launch().is_some();
        let hosts = model.host_slices_for_external_id(i);
        e.launch_edges += u64::from(launched);
        e.external_edges += u64::from(!hosts.is_empty());
        e.without_edges += u64::from(!launched && hosts.is_empty());
        let mut seen: Vec<(NameId, SliceClass)> = Vec::new();
        for &h in hosts {
            let host = &slices[h];
            let host_key = (host.name, host.class);
            if !matches!(host.class, SliceClass::CpuOp | SliceClass::UserAnnotation)
                || seen.contains(&host_key)
            {
                continue;
            }
            seen.push(host_key);
            let slot = e.hosts.entry(host_key).or_default();
            slot.0 += 1;
            slot.1 = slot.1.saturating_add(dur);
            let a = aggregates.entry(host_key).or_default();
            a.total = a.total.saturating_add(dur);
            let k = a.kernels.entry(key).or_default();
            k.0 += 1;
            k.1 = k.1.saturating_add(dur);
        }
    }

    let mut ranked: Vec<((NameId, SliceClass), Entity)> = entities.into_iter().collect();
    ranked.sort_by(|a, b| {
        b.1.total
            .cmp(&a.1.total)
            .then_with(|| model.name(a.0 .0).cmp(model.name(b.0 .0)))
            .then_with(|| class_name(a.0 .1).cmp(class_name(b.0 .1)))
    });
    let distinct_entities = ranked.len();

    let host_list =
        |hosts: &HashMap<(NameId, SliceClass), (u64, i64)>, class: SliceClass| -> Vec<NameTime> {
            let mut v: Vec<NameTime> = hosts
                .iter()
                .filter(|((_, c), _)| *c == class)
                .map(|((n, _), (calls, ns))| NameTime {
                    name: model.name(*n).to_owned(),
                    calls: *calls,
                    device_ns: *ns,
                })
                .collect();
            sort_name_times(&mut v);
            v
        };
    let rows: Vec<ProfileRow> = ranked
        .iter()
        .take(top)
        .enumerate()
        .map(|(i, ((name, class), e))| {
            let text = model.name(*name);
            let (kind, basis) = entity_kind(text, *class, e.launch_edges);
            ProfileRow {
                rank: i + 1,
                name: text.to_owned(),
                short_name: opguard_kernel_name::short_name(text).into_owned(),
                entity_kind: kind,
                total_device_ns: e.total,
                calls: e.calls,
                evidence: RowEvidence {
                    category: e.cat.map(|c| model.name(c).to_owned()).unwrap_or_default(),
                    basis,
                    launch_correlation_edges: e.launch_edges,
                    external_id_edges: e.external_edges,
                    rows_without_edges: e.without_edges,
                    dispatcher_ops: host_list(&e.hosts, SliceClass::CpuOp),
                    python_launchers: host_list(&e.hosts, SliceClass::UserAnnotation),
                },
            }
        })
        .collect();

    // Where would each aggregate have ranked among rows and aggregates
    // together? Aggregates ranked like rows: total, then name.
    let mut aggs: Vec<(&(NameId, SliceClass), &Aggregate)> = aggregates.iter().collect();
    aggs.sort_by(|a, b| {
        b.1.total
            .cmp(&a.1.total)
            .then_with(|| model.name(a.0 .0).cmp(model.name(b.0 .0)))
            .then_with(|| (a.0 .1 != SliceClass::CpuOp).cmp(&(b.0 .1 != SliceClass::CpuOp)))
    });
    let mut expanded: Vec<ExpandedAggregate> = Vec::new();
    for (j, ((name, class), a)) in aggs.into_iter().enumerate() {
        let above_rows = ranked.partition_point(|r| r.1.total > a.total);
        let would_rank = above_rows + j + 1;
        if would_rank > top {
            break;
        }
        let mut kernels: Vec<NameTime> = a
            .kernels
            .iter()
            .map(|((k, _), (calls, ns))| NameTime {
                name: model.name(*k).to_owned(),
                calls: *calls,
                device_ns: *ns,
            })
            .collect();
        sort_name_times(&mut kernels);
        expanded.push(ExpandedAggregate {
            name: model.name(*name).to_owned(),
            entity_kind: if *class == SliceClass::CpuOp {
                EntityKind::DispatcherOp
            } else {
                EntityKind::PythonLauncher
            },
            total_device_ns: a.total,
            would_rank,
            kernels,
        });
    }
    expanded.sort_by(|a, b| a.would_rank.cmp(&b.would_rank).then(a.name.cmp(&b.name)));

    let mut entity_kinds = BTreeMap::new();
    for r in &rows {
        *entity_kinds.entry(r.entity_kind).or_insert(0) += 1;
    }
    let artifact = model.artifact();
    ProfileDocument {
        format: PROFILE_FORMAT,
        entity_kind_contract: ENTITY_KIND_CONTRACT,
        trace: ProfiledTrace {
            source: artifact.source.clone(),
            sha256: artifact.sha256.to_string(),
            provider: artifact.provider.as_str(),
        },
        top,
        device_rows,
        device_time_ns: device_time,
        distinct_entities,
        rows,
        entity_kinds,
        expanded_aggregates: expanded,
        negative_duration_rows,
        device_activity: device_rows > 0,
        host: (device_rows == 0).then(|| host_profile(model, top)),
    }
}

#[derive(Default)]
struct HostEntity {
    calls: u64,
    self_ns: i64,
    total_ns: i64,
    shapes: HashMap<NameId, (u64, i64)>,
}

#[derive(Default)]
struct Region {
    first: usize,
    calls: u64,
    total_ns: i64,
}

/// A host row's identity: name, category, kind and HLO module (one HLO op
/// name in two modules is two operations).
type HostKey = (NameId, NameId, HostKind, Option<NameId>);

fn host_profile(model: &TraceModel, top: usize) -> HostProfile {
    let slices = model.slices();
    let self_times = model.host_self_times();
    let mut entities: HashMap<HostKey, HostEntity> = HashMap::new();
    let mut regions: HashMap<(NameId, NameId), Region> = HashMap::new();
    let (mut operations, mut self_time, mut markers, mut negative) = (0u64, 0i64, 0u64, 0u64);
    for (i, s) in slices.iter().enumerate() {
        let kind = model.host_kind(i);
        if kind == HostKind::NotHost {
            continue;
        }
        negative += u64::from(s.dur_ns < 0);
        if kind == HostKind::Marker {
            markers += 1;
            continue;
        }
        if kind == HostKind::Region {
            let next = regions.len();
            let r = regions.entry((s.name, s.cat)).or_insert_with(|| Region {
                first: next,
                ..Region::default()
            });
            r.calls += 1;
            r.total_ns = r.total_ns.saturating_add(s.counted_dur_ns());
            continue;
        }
        if !kind.is_operation() {
            continue;
        }
        let detail = model.host_detail(i);
        let own = self_times.get(i).copied().unwrap_or(0);
        operations += 1;
        self_time = self_time.saturating_add(own);
        let key = (s.name, s.cat, kind, detail.and_then(|d| d.hlo_module));
        let e = entities.entry(key).or_default();
        e.calls += 1;
        e.self_ns = e.self_ns.saturating_add(own);
        e.total_ns = e.total_ns.saturating_add(s.counted_dur_ns());
        if let Some(dims) = detail.and_then(|d| d.input_dims) {
            let shape = e.shapes.entry(dims).or_default();
            shape.0 += 1;
            shape.1 = shape.1.saturating_add(own);
        }
    }
    let distinct_operations = entities.len();
    let mut ranked: Vec<(HostKey, HostEntity)> = entities.into_iter().collect();
    ranked.sort_by(|a, b| {
        b.1.self_ns
            .cmp(&a.1.self_ns)
            .then(b.1.total_ns.cmp(&a.1.total_ns))
            .then_with(|| model.name(a.0 .0).cmp(model.name(b.0 .0)))
            .then_with(|| model.name(a.0 .1).cmp(model.name(b.0 .1)))
    });
    let rows: Vec<HostRow> = ranked
        .into_iter()
        .take(top)
        .enumerate()
        .map(|(i, ((name, cat, kind, module), e))| {
            let (entity_kind, basis, reason) = host_entity_kind(kind);
            let mut input_shapes: Vec<ShapeTime> = e
                .shapes
                .iter()
                .map(|(dims, (calls, ns))| ShapeTime {
                    input_dims: model.name(*dims).to_owned(),
                    calls: *calls,
                    self_ns: *ns,
                })
                .collect();
            input_shapes.sort_by(|a, b| {
                b.self_ns
                    .cmp(&a.self_ns)
                    .then(a.input_dims.cmp(&b.input_dims))
            });
            HostRow {
                rank: i + 1,
                name: model.name(name).to_owned(),
                entity_kind,
                calls: e.calls,
                self_ns: e.self_ns,
                total_ns: e.total_ns,
                evidence: HostEvidence {
                    category: model.name(cat).to_owned(),
                    basis,
                    reason,
                    hlo_module: module.map(|m| model.name(m).to_owned()),
                    hlo_op: (kind == HostKind::XlaOp).then(|| model.name(name).to_owned()),
                    input_shapes,
                },
            }
        })
        .collect();
    let mut entity_kinds = BTreeMap::new();
    for r in &rows {
        *entity_kinds.entry(r.entity_kind).or_insert(0) += 1;
    }
    let distinct_regions = regions.len();
    let mut region_list: Vec<((NameId, NameId), Region)> = regions.into_iter().collect();
    region_list.sort_by_key(|(_, r)| r.first);
    let regions = region_list
        .into_iter()
        .take(top)
        .map(|((name, cat), r)| RegionRow {
            name: model.name(name).to_owned(),
            category: model.name(cat).to_owned(),
            calls: r.calls,
            total_ns: r.total_ns,
        })
        .collect();
    HostProfile {
        note: "the capture has no device activity (no kernel, memory copy or set, or other device row): the rows are host operations by self time".to_owned(),
        self_time_rule: SELF_TIME_RULE,
        operations,
        self_time_ns: self_time,
        distinct_operations,
        rows,
        entity_kinds,
        regions,
        distinct_regions,
        markers,
        negative_duration_slices: negative,
    }
}

/// How [`HostRow::self_ns`] is computed, stated in every host profile.
pub const SELF_TIME_RULE: &str = "per (pid, tid): duration minus the measure of the union of the slices that start inside it, clipped to its end; negative durations count 0";

fn host_entity_kind(kind: HostKind) -> (EntityKind, &'static str, Option<String>) {
    match kind {
        HostKind::FrameworkOp => (EntityKind::DispatcherOp, "cpu_op_category", None),
        HostKind::XlaOp => (EntityKind::DispatcherOp, "xla_hlo_op", None),
        HostKind::PythonFunction => (EntityKind::PythonLauncher, "python_frame", None),
        HostKind::Placeholder => (
            EntityKind::Unresolved,
            "placeholder_name",
            Some(format!(
                "{INDUCTOR_PLACEHOLDER:?} is the name inductor gives the call of every generated C++ kernel: it does not say which kernel ran"
            )),
        ),
        _ => (
            EntityKind::Unresolved,
            "host_slice_unclassified",
            Some("the trace's provider does not say what slices of this category are".to_owned()),
        ),
    }
}

fn sort_name_times(v: &mut [NameTime]) {
    v.sort_by(|a, b| b.device_ns.cmp(&a.device_ns).then(a.name.cmp(&b.name)));
}

fn class_name(c: SliceClass) -> &'static str {
    match c {
        SliceClass::Kernel => "kernel",
        SliceClass::Memcpy => "memcpy",
        SliceClass::Memset => "memset",
        _ => "device_other",
    }
}

fn entity_kind(name: &str, class: SliceClass, launch_edges: u64) -> (EntityKind, &'static str) {
    let canonical = opguard_kernel_name::canonicalize(name);
    match class {
        SliceClass::Memcpy | SliceClass::Memset => (EntityKind::MemoryOp, "memory_category"),
        _ if canonical.memory_op().is_some() => (EntityKind::MemoryOp, "memory_name"),
        _ if canonical.is_degenerate() => (EntityKind::Unresolved, "degenerate_name"),
        SliceClass::Kernel => (EntityKind::GpuKernel, "kernel_category"),
        _ if launch_edges > 0 => (EntityKind::GpuKernel, "launch_correlated_device_activity"),
        _ => (EntityKind::Unresolved, "device_activity_without_launch"),
    }
}
