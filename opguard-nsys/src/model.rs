//! An export into the provider-neutral model (`opguard-model`): every row
//! the model keeps becomes one [`SliceRecord`], in the occurrence order
//! [`occurrence`] documents.
//!
//! | table | class | name | category | `pid` / `tid` | `process` | device, context, stream |
//! |---|---|---|---|---|---|---|
//! | `CUPTI_ACTIVITY_KIND_KERNEL` | kernel | the mangled symbol demangled as Kineto demangles it, else Nsight's demangled name, else the short name ([`crate::Strings::kernel_name`]) | `kernel` | OS pid of `globalPid` / `streamId` | `globalPid >> 24` | `deviceId`, `contextId`, `streamId` |
//! | `CUPTI_ACTIVITY_KIND_MEMCPY` | memcpy | Kineto's name for the record (`Memcpy HtoD (Pageable -> Device)`), so both profilers give a copy one identity | `gpu_memcpy` | likewise | likewise | likewise |
//! | `CUPTI_ACTIVITY_KIND_MEMSET` | memset | `Memset (Device)` likewise | `gpu_memset` | likewise | likewise | likewise |
//! | `CUPTI_ACTIVITY_KIND_SYNCHRONIZATION` | runtime | `Stream sync`, `Event sync`... | `cuda_sync` | OS pid of `globalPid` / none (the row names no thread) | `globalPid >> 24` | likewise |
//! | `CUPTI_ACTIVITY_KIND_RUNTIME` | [`classify::runtime_call`] of the name | the API name without nsys' `_vNNNN` suffix ([`crate::api_name`]) | `cuda_runtime`, `cuda_driver` | OS pid / OS tid of `globalTid` | `globalTid >> 24` | — |
//! | `NVTX_EVENTS` (push/pop and start/end ranges) | user annotation | its text, inline or by `textId` | `nvtx` | OS pid / OS tid of `globalTid` (the thread that pushed or started it) | `globalTid >> 24` | — |
//!
//! Not records: the backtrace rows older exports write beside a runtime
//! call ([`crate::ApiCall::is_call`]), NVTX marks and other NVTX rows
//! (domain and thread naming), and NVTX ranges still open when the capture
//! ended (no end was written; counted in the `nvtx_open_range` warning).
//! Processes, thread names, GPUs and the export's metadata go into the
//! model's metadata (`processes`, `threads`, `gpus`, `export`).
//!
//! `process` is the correlation namespace (hardware, VM and process id: a
//! kernel's `globalPid >> 24` against its launch's `globalTid >> 24`), so
//! the model proves a launch only inside (artifact, process,
//! `correlationId`). `pid` and `tid` are the operating system's ids, the
//! ones Nsight Systems and `ps` show, for naming tracks.

use std::path::Path;

use opguard_model::{
    classify, ArtifactSpec, Format, IdValue, Kept, Metadata, ModelBuilder, ModelOptions,
    ModelStorage, Provider, ReadSummary, ReadWarning, Sha256Digest, SliceClass, SliceRecord,
    TraceModel,
};
use serde::Serialize;

use crate::error::{Error, ErrorKind, Position};
use crate::export::{Export, KnownTable, ReadOptions};
use crate::rows::{api_name, DeviceTrack, GlobalId, MemoryKind};

/// Occurrence indexes of one table are `table code * OCCURRENCE_STRIDE +
/// rowid` ([`occurrence`]).
pub const OCCURRENCE_STRIDE: u64 = 1_000_000_000_000;

/// The occurrence index ([`opguard_model::Slice::index`], the `<index>` of
/// an event reference) of row `rowid` of `table`: the table's code (1
/// kernels, 2 memory copies, 3 memory sets, 4 synchronizations, 5 runtime
/// and driver calls, 6 NVTX) times [`OCCURRENCE_STRIDE`], plus the rowid.
/// `None` for a table whose rows are not slices, or a rowid outside
/// `0..OCCURRENCE_STRIDE`.
///
/// ```
/// use opguard_nsys::{occurrence, occurrence_row, KnownTable};
///
/// let index = occurrence(KnownTable::Runtime, 42).unwrap();
/// assert_eq!(index, 5_000_000_000_042);
/// assert_eq!(occurrence_row(index), Some((KnownTable::Runtime, 42)));
/// assert_eq!(occurrence(KnownTable::StringIds, 1), None);
/// ```
pub fn occurrence(table: KnownTable, rowid: i64) -> Option<u64> {
    let code = KnownTable::TIMED.iter().position(|t| *t == table)? as u64 + 1;
    let rowid = u64::try_from(rowid)
        .ok()
        .filter(|r| *r < OCCURRENCE_STRIDE)?;
    Some(code * OCCURRENCE_STRIDE + rowid)
}

/// The table and rowid of an occurrence index ([`occurrence`]'s inverse).
pub fn occurrence_row(index: u64) -> Option<(KnownTable, i64)> {
    let code = usize::try_from(index / OCCURRENCE_STRIDE).ok()?;
    let table = *KnownTable::TIMED.get(code.checked_sub(1)?)?;
    Some((table, (index % OCCURRENCE_STRIDE) as i64))
}

/// Reads the export at `path` into a model keeping what `options` ask for
/// (the module docs say what each row becomes).
///
/// ```no_run
/// use opguard_model::analysis::launch_region;
/// use opguard_model::{ArtifactSpec, ModelOptions};
/// use opguard_nsys::{read_model, ReadOptions};
///
/// let model = read_model("report1.sqlite", ArtifactSpec::new(), &ModelOptions::launches_only(), &ReadOptions::new())?;
/// let region = launch_region(&model, 10);
/// println!("{} kernels, {} with a proven launch", region.kernel_count, region.correlated_kernel_count);
/// # Ok::<(), opguard_nsys::Error>(())
/// ```
pub fn read_model(
    path: impl AsRef<Path>,
    spec: ArtifactSpec,
    options: &ModelOptions,
    read: &ReadOptions,
) -> Result<TraceModel, Error> {
    read_model_reusing(path, spec, options, read, &mut ModelStorage::new())
}

/// [`read_model`] into the buffers of `storage` (taken out of it:
/// [`TraceModel::into_storage`] gives them back; on an error they are back
/// in `storage`, empty).
pub fn read_model_reusing(
    path: impl AsRef<Path>,
    mut spec: ArtifactSpec,
    options: &ModelOptions,
    read: &ReadOptions,
    storage: &mut ModelStorage,
) -> Result<TraceModel, Error> {
    let path = path.as_ref();
    if spec.source.is_none() {
        spec.source = Some(path.display().to_string());
    }
    let export = Export::open(path, read)?;
    let mut builder = ModelBuilder::reusing(options, std::mem::take(storage));
    match push_rows(&export, &mut builder) {
        Ok(read) => {
            let summary = summary(&export, read)?;
            Ok(builder.finish(summary, spec))
        }
        Err(e) => {
            *storage = builder.into_storage();
            Err(e.with_path(path))
        }
    }
}

/// What pushing the rows found beside the records.
#[derive(Debug, Default)]
pub(crate) struct RowsRead {
    /// Rows read from the tables that hold records.
    rows: u64,
    /// NVTX ranges without an end.
    open_ranges: u64,
}

fn id(v: i64) -> Option<IdValue> {
    Some(IdValue::Int(v))
}

/// The occurrence index of a row, or an error naming it.
fn index_of(table: KnownTable, rowid: i64) -> Result<u64, Error> {
    occurrence(table, rowid).ok_or_else(|| {
        Error::new(ErrorKind::BadValue {
            expected: "a rowid from 0 to 10^12 (the occurrence index's range)",
            found: "one outside it",
        })
        .at(Position {
            table: table.name(),
            rowid: Some(rowid),
            column: Some("rowid"),
        })
    })
}

/// A device row's record: its track, owning process and correlation.
fn device_record<'a>(
    table: KnownTable,
    rowid: i64,
    (start, end): (i64, i64),
    track: DeviceTrack,
    global_pid: Option<GlobalId>,
    correlation_id: Option<i64>,
) -> Result<SliceRecord<'a>, Error> {
    Ok(SliceRecord {
        pid: global_pid.and_then(|g| id(g.pid())),
        tid: id(track.stream),
        process: global_pid.and_then(|g| id(g.process())),
        ts_ns: start,
        dur_ns: end.saturating_sub(start),
        correlation: correlation_id.and_then(id),
        device: id(track.device),
        context: id(track.context),
        stream: id(track.stream),
        ..SliceRecord::new(index_of(table, rowid)?)
    })
}

fn push_rows(export: &Export, builder: &mut ModelBuilder) -> Result<RowsRead, Error> {
    let mut read = RowsRead::default();
    let mut strings = export.strings()?;
    if builder.keeps(SliceClass::Kernel) != Kept::Nothing {
        read.rows += export.kernels(|k| {
            let record = device_record(
                KnownTable::Kernel,
                k.rowid,
                (k.start, k.end),
                k.track,
                k.global_pid,
                k.correlation_id,
            )?;
            builder.push_slice(&SliceRecord {
                class: SliceClass::Kernel,
                name: strings.kernel_name(k)?,
                category: "kernel",
                ..record
            });
            Ok::<_, Error>(())
        })?;
    }
    if builder.keeps(SliceClass::Memcpy) != Kept::Nothing {
        read.rows += export.memory_ops(|m| {
            let (table, class, category) = match m.kind {
                MemoryKind::Copy { .. } => (KnownTable::Memcpy, SliceClass::Memcpy, "gpu_memcpy"),
                MemoryKind::Set { .. } => (KnownTable::Memset, SliceClass::Memset, "gpu_memset"),
            };
            let record = device_record(
                table,
                m.rowid,
                (m.start, m.end),
                m.track,
                m.global_pid,
                m.correlation_id,
            )?;
            builder.push_slice(&SliceRecord {
                class,
                name: &m.kineto_name(),
                category,
                ..record
            });
            Ok::<_, Error>(())
        })?;
    }
    if builder.keeps(SliceClass::Runtime) != Kept::Nothing {
        read.rows += export.syncs(|s| {
            let record = device_record(
                KnownTable::Sync,
                s.rowid,
                (s.start, s.end),
                s.track,
                s.global_pid,
                s.correlation_id,
            )?;
            // A synchronization is the host waiting in an API call; the row
            // names its process, not its thread.
            builder.push_slice(&SliceRecord {
                class: SliceClass::Runtime,
                name: s.display_name(),
                category: "cuda_sync",
                tid: None,
                ..record
            });
            Ok::<_, Error>(())
        })?;
        read.rows += export.api_calls(|c| {
            if !c.is_call() {
                return Ok::<_, Error>(());
            }
            let name = api_name(strings.get(c.name)?);
            builder.push_slice(&SliceRecord {
                class: classify::runtime_call(name),
                name,
                category: c.api.category(),
                pid: c.global_tid.and_then(|g| id(g.pid())),
                tid: c.global_tid.and_then(|g| id(g.tid())),
                process: c.global_tid.and_then(|g| id(g.process())),
                ts_ns: c.start,
                dur_ns: c.end.saturating_sub(c.start),
                correlation: c.correlation_id.and_then(id),
                ..SliceRecord::new(index_of(KnownTable::Runtime, c.rowid)?)
            });
            Ok(())
        })?;
    }
    if builder.keeps(SliceClass::UserAnnotation) != Kept::Nothing {
        read.rows += export.nvtx(|n| {
            if !n.kind.is_range() {
                return Ok::<_, Error>(());
            }
            let Some(end) = n.end else {
                read.open_ranges += 1;
                return Ok(());
            };
            let index = index_of(KnownTable::Nvtx, n.rowid)?;
            let name = strings.nvtx_text(n)?.unwrap_or("");
            builder.push_slice(&SliceRecord {
                class: SliceClass::UserAnnotation,
                name,
                category: "nvtx",
                pid: n.global_tid.and_then(|g| id(g.pid())),
                tid: n.global_tid.and_then(|g| id(g.tid())),
                process: n.global_tid.and_then(|g| id(g.process())),
                ts_ns: n.start,
                dur_ns: end.saturating_sub(n.start),
                ..SliceRecord::new(index)
            });
            Ok(())
        })?;
    }
    Ok(read)
}

/// A process as the model's metadata lists it.
#[derive(Serialize)]
struct ProcessEntry<'a> {
    pid: i64,
    process: i64,
    name: Option<&'a str>,
}

/// A named thread as the model's metadata lists it.
#[derive(Serialize)]
struct ThreadEntry<'a> {
    pid: i64,
    tid: i64,
    process: i64,
    name: &'a str,
}

fn json<T: Serialize>(value: &T) -> String {
    // Plain strings and integers always serialize.
    serde_json::to_string(value).unwrap_or_else(|_| "null".into())
}

pub(crate) fn summary(export: &Export, read: RowsRead) -> Result<ReadSummary, Error> {
    let meta = export.meta();
    let mut metadata = Metadata::new();
    metadata.push("export", json(meta));
    let mut processes = Vec::new();
    export.processes(|p| {
        processes.push(json(&ProcessEntry {
            pid: p.pid,
            process: p.global_pid.process(),
            name: p.name,
        }));
        Ok::<_, Error>(())
    })?;
    metadata.push("processes", format!("[{}]", processes.join(",")));
    let mut strings = export.strings()?;
    let mut threads = Vec::new();
    export.thread_names(|t| {
        threads.push(json(&ThreadEntry {
            pid: t.global_tid.pid(),
            tid: t.global_tid.tid(),
            process: t.global_tid.process(),
            name: strings.get(t.name)?,
        }));
        Ok::<_, Error>(())
    })?;
    metadata.push("threads", format!("[{}]", threads.join(",")));
    metadata.push("gpus", json(&export.gpus()?));
    let mut warnings = Vec::new();
    if read.open_ranges > 0 {
        warnings.push(ReadWarning::new(
            "nvtx_open_range",
            0,
            read.rows,
            format!(
                "{} NVTX ranges have no end (still open when the capture ended); they are not \
                 host ranges of the model",
                read.open_ranges
            ),
        ));
    }
    Ok(ReadSummary::new(
        Sha256Digest(export.sha256()),
        Format::NsysSqlite,
        Provider::NsightSystems,
    )
    .producer(format!("Nsight Systems {}", meta.product_version))
    .bytes(export.size(), export.size())
    .events(read.rows)
    .metadata(metadata)
    .warnings(warnings))
}
