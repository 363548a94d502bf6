//! Profile Top-N: device-time rows that declare what they are
//! (`entity_kind_contract: "v1"`) and the evidence the declaration rests on.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use serde::Serialize;

use opguard_trace::model::{ArtifactSpec, ModelOptions, NameId, SliceClass, TraceModel};

use crate::error::Error;

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
    /// A host dispatcher operator (`cpu_op`) standing for the kernels it
    /// launched. Never a row here: such aggregates are expanded into their
    /// kernels (see [`ProfileDocument::expanded_aggregates`]).
    DispatcherOp,
    /// A Python-level launcher (a `record_function` annotation) standing
    /// for the kernels launched directly under it. Expanded like
    /// [`EntityKind::DispatcherOp`].
    PythonLauncher,
    /// Device activity whose nature the trace does not establish (no
    /// kernel category and no launch edge, or a degenerate name).
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
    pub trace: TraceInfo,
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
}

/// Which trace a document describes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct TraceInfo {
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
    let path = path.as_ref();
    let model = TraceModel::read(
        path,
        ArtifactSpec::new().role("profile"),
        &ModelOptions::new(),
    )
    .map_err(|source| Error::TraceUnreadable {
        path: path.to_path_buf(),
        source,
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
    for (i, s) in slices.iter().enumerate() {
        if !s.class.is_device() {
            continue;
        }
        device_rows += 1;
        device_time = device_time.saturating_add(s.dur_ns);
        let key = (s.name, s.class);
        let e = entities.entry(key).or_default();
        e.cat.get_or_insert(s.cat);
        e.calls += 1;
        e.total = e.total.saturating_add(s.dur_ns);
        let launched = !model.launches_for(i).is_empty();
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
            slot.1 = slot.1.saturating_add(s.dur_ns);
            let a = aggregates.entry(host_key).or_default();
            a.total = a.total.saturating_add(s.dur_ns);
            let k = a.kernels.entry(key).or_default();
            k.0 += 1;
            k.1 = k.1.saturating_add(s.dur_ns);
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
        trace: TraceInfo {
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
