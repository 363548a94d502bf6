//! An export's launch region computed from its rows in time order, through
//! opguard-model's streaming [`RegionBuilder`], without a model: memory
//! follows the export's threads, streams, distinct kernel names and the
//! range of its correlation ids, never its row count.
//!
//! Three passes over the export, each a prepared statement:
//!
//! 1. by `rowid`: every API call and synchronization into a [`CallIndex`]
//!    (how many runtime rows of a process carry each correlation id — the
//!    model's index of runtime slices), and every kernel's
//!    (process, correlation id) into a second one (which calls a kernel
//!    correlates with: they are launches whatever their name);
//! 2. API calls by `start`: the launches, per thread;
//! 3. kernels, memory copies and sets by `start` (one `UNION ALL` sorted
//!    by SQLite's own bounded sorter): the device activities, each kernel's
//!    launch proven when exactly one runtime row of its process carries its
//!    id.
//!
//! The figures are the model's ([`opguard_model::analysis::launch_region`]
//! of [`crate::read_model`]) to the byte; the tests hold the two equal on
//! every shared export and on exports derived from them. An export whose
//! device rows do not all name their process (`globalPid` NULL), or a
//! provider the caller overrides, is read through the model instead: the
//! model settles those owners by its own rules.

use std::path::Path;

use opguard_model::analysis::{
    launch_region as model_region, DeviceActivity, LaunchEvidence, LaunchRegion, RegionBuilder,
    StreamId, StreamLabels, ThreadId,
};
use opguard_model::{
    classify, ArtifactSpec, LaunchKind, ModelBuilder, ModelOptions, Provider, SliceClass,
};
use rusqlite::types::ValueRef;
use rusqlite::Row;

use crate::correlation::{CallIndex, Calls};
use crate::error::{Error, ErrorKind, Position};
use crate::export::{Export, ReadOptions};
use crate::model::{read_model, summary, RowsRead};
use crate::rows::{api_name, DeviceTrack, GlobalId, MemoryKind, MemoryOp, StringId};
use crate::schema::{self, Schema};

/// The launch region of the export at `path` (see the module docs), with
/// the kernel identities of its `top` kernels by device time.
///
/// ```no_run
/// use opguard_model::ArtifactSpec;
/// use opguard_nsys::{launch_region, ReadOptions};
///
/// let region = launch_region("report1.sqlite", ArtifactSpec::new(), &ReadOptions::new(), 10)?;
/// println!("{} kernels, {} proven", region.kernel_count, region.correlated_kernel_count);
/// # Ok::<(), opguard_nsys::Error>(())
/// ```
pub fn launch_region(
    path: impl AsRef<Path>,
    mut spec: ArtifactSpec,
    read: &ReadOptions,
    top: usize,
) -> Result<LaunchRegion, Error> {
    let path = path.as_ref();
    if spec.source.is_none() {
        spec.source = Some(path.display().to_string());
    }
    if spec.provider.is_some_and(|p| p != Provider::NsightSystems) {
        return through_model(path, spec, read, top);
    }
    let export = Export::open(path, read)?;
    let keys = index_keys(&export)?;
    if keys.unowned_device_rows > 0 {
        drop(export);
        return through_model(path, spec, read, top);
    }
    // The artifact as the model names it (digest, producer, clock domain).
    let artifact = ModelBuilder::new(&ModelOptions::launches_only())
        .finish(summary(&export, RowsRead::default())?, spec)
        .artifact()
        .clone();
    let mut builder = RegionBuilder::new(&artifact);
    feed_launches(&export, &keys, &mut builder)?;
    feed_device_activity(&export, &keys, &mut builder)?;
    Ok(builder.finish(top))
}

fn through_model(
    path: &Path,
    spec: ArtifactSpec,
    read: &ReadOptions,
    top: usize,
) -> Result<LaunchRegion, Error> {
    let model = read_model(path, spec, &ModelOptions::launches_only(), read)?;
    Ok(model_region(&model, top))
}

/// What pass 1 finds.
struct Keys {
    /// Runtime rows (API calls and synchronizations) per (process, id).
    runtime: CallIndex,
    /// Kernels per (process, id).
    kernels: CallIndex,
    /// Kernel and memory rows without `globalPid`.
    unowned_device_rows: u64,
}

fn index_keys(export: &Export) -> Result<Keys, Error> {
    let mut keys = Keys {
        runtime: CallIndex::new(),
        kernels: CallIndex::new(),
        unowned_device_rows: 0,
    };
    export.api_calls(|c| {
        if let (true, Some(t), Some(id)) = (c.is_call(), c.global_tid, c.correlation_id) {
            keys.runtime.insert(t.process(), id);
        }
        Ok::<_, Error>(())
    })?;
    export.syncs(|s| {
        if let (Some(p), Some(id)) = (s.global_pid, s.correlation_id) {
            keys.runtime.insert(p.process(), id);
        }
        Ok::<_, Error>(())
    })?;
    export.kernels(|k| {
        match (k.global_pid, k.correlation_id) {
            (Some(p), Some(id)) => keys.kernels.insert(p.process(), id),
            (None, _) => keys.unowned_device_rows += 1,
            _ => {}
        }
        Ok::<_, Error>(())
    })?;
    export.memory_ops(|m| {
        if m.global_pid.is_none() {
            keys.unowned_device_rows += 1;
        }
        Ok::<_, Error>(())
    })?;
    Ok(keys)
}

/// Pass 2: the launches in time order, each on its thread.
fn feed_launches(export: &Export, keys: &Keys, builder: &mut RegionBuilder) -> Result<(), Error> {
    let mut strings = export.strings()?;
    let mut threads: Vec<(GlobalId, ThreadId)> = Vec::new();
    export.api_calls_by_start(|c| {
        if !c.is_call() {
            return Ok::<_, Error>(());
        }
        let name = api_name(strings.get(c.name)?);
        let kind = match classify::runtime_call(name) {
            SliceClass::Launch(kind) => kind,
            // A call a kernel of its own process correlates with.
            _ => match (c.global_tid, c.correlation_id) {
                (Some(t), Some(id)) if keys.kernels.calls(t.process(), id) != Calls::None => {
                    LaunchKind::Direct
                }
                _ => return Ok(()),
            },
        };
        let thread = thread_of(builder, &mut threads, c.global_tid);
        builder
            .launch(thread, kind, c.start, c.end.saturating_sub(c.start))
            .map_err(|e| out_of_order(e, schema::RUNTIME.name, c.rowid))
    })?;
    Ok(())
}

/// The builder's thread of `global_tid`, as the model labels it (OS pid and
/// tid; none for a row without a thread).
fn thread_of(
    builder: &mut RegionBuilder,
    threads: &mut Vec<(GlobalId, ThreadId)>,
    global_tid: Option<GlobalId>,
) -> ThreadId {
    let key = global_tid.unwrap_or(GlobalId(i64::MIN));
    if let Some((_, id)) = threads.iter().find(|(g, _)| *g == key) {
        return *id;
    }
    let id = match global_tid {
        Some(g) => builder.host_thread(&g.pid().to_string(), &g.tid().to_string()),
        None => builder.host_thread("", ""),
    };
    threads.push((key, id));
    id
}

fn out_of_order(e: opguard_model::analysis::OutOfOrder, table: &'static str, rowid: i64) -> Error {
    Error::new(ErrorKind::Sqlite {
        message: format!("rows sorted by start came out of order: {e}"),
    })
    .at(Position {
        table,
        rowid: Some(rowid),
        column: Some("start"),
    })
}

/// Device tables' codes in the union (the model's occurrence codes).
const KERNEL: i64 = 1;
const MEMCPY: i64 = 2;
const MEMSET: i64 = 3;

/// `SELECT` of kernels, copies and sets in one column layout, sorted by
/// start, then table, then rowid (the model's occurrence order):
/// code, rowid, start, end, deviceId, contextId, streamId, correlationId,
/// globalPid, demangledName, shortName, mangledName, copyKind, srcKind,
/// dstKind, memKind.
fn device_union(schema: &Schema) -> Option<String> {
    let mut parts = Vec::new();
    let common = "rowid, start, \"end\", deviceId, contextId, streamId, correlationId, globalPid";
    if let Some(t) = schema.table(&schema::KERNEL) {
        parts.push(format!(
            "SELECT {KERNEL}, {common}, demangledName, shortName, {}, NULL, NULL, NULL, NULL FROM \"{}\"",
            t.column_or_null("mangledName"),
            schema::KERNEL.name
        ));
    }
    if let Some(t) = schema.table(&schema::MEMCPY) {
        parts.push(format!(
            "SELECT {MEMCPY}, {common}, NULL, NULL, NULL, copyKind, {}, {}, NULL FROM \"{}\"",
            t.column_or_null("srcKind"),
            t.column_or_null("dstKind"),
            schema::MEMCPY.name
        ));
    }
    if let Some(t) = schema.table(&schema::MEMSET) {
        parts.push(format!(
            "SELECT {MEMSET}, {common}, NULL, NULL, NULL, NULL, NULL, NULL, {} FROM \"{}\"",
            t.column_or_null("memKind"),
            schema::MEMSET.name
        ));
    }
    (!parts.is_empty()).then(|| format!("{} ORDER BY 3, 1, 2", parts.join(" UNION ALL ")))
}

/// Column `i` of a union row: an integer or NULL.
fn int_at(
    row: &Row<'_>,
    i: usize,
    table: &'static str,
    rowid: Option<i64>,
) -> Result<Option<i64>, Error> {
    let bad = |found: &'static str| {
        Error::new(ErrorKind::BadValue {
            expected: "an integer or NULL",
            found,
        })
        .at(Position {
            table,
            rowid,
            column: None,
        })
    };
    match row.get_ref(i).map_err(|e| Error::sqlite(e, Some(table)))? {
        ValueRef::Integer(v) => Ok(Some(v)),
        ValueRef::Null => Ok(None),
        ValueRef::Real(_) => Err(bad("a real")),
        ValueRef::Text(_) => Err(bad("a text")),
        ValueRef::Blob(_) => Err(bad("a blob")),
    }
}

/// Pass 3: kernels, copies and sets in time order.
fn feed_device_activity(
    export: &Export,
    keys: &Keys,
    builder: &mut RegionBuilder,
) -> Result<(), Error> {
    let (conn, schema) = export.parts();
    let Some(sql) = device_union(schema) else {
        return Ok(());
    };
    let table = "device tables (UNION ALL)";
    let fail = |e: rusqlite::Error| Error::sqlite(e, Some(table));
    let mut strings = export.strings()?;
    let mut streams: Vec<((i64, i64, DeviceTrack), StreamId)> = Vec::new();
    let mut statement = conn.prepare(&sql).map_err(fail)?;
    let mut rows = statement.query([]).map_err(fail)?;
    while let Some(row) = rows.next().map_err(fail)? {
        let code = int_at(row, 0, table, None)?.unwrap_or(0);
        let table = match code {
            KERNEL => schema::KERNEL.name,
            MEMCPY => schema::MEMCPY.name,
            _ => schema::MEMSET.name,
        };
        let rowid = int_at(row, 1, table, None)?.unwrap_or(0);
        let at = Some(rowid);
        let required = |i: usize, column: &'static str| -> Result<i64, Error> {
            int_at(row, i, table, at)?.ok_or_else(|| {
                Error::new(ErrorKind::BadValue {
                    expected: "an integer",
                    found: "NULL",
                })
                .at(Position {
                    table,
                    rowid: at,
                    column: Some(column),
                })
            })
        };
        let start = required(2, "start")?;
        let end = required(3, "end")?;
        let track = DeviceTrack {
            device: required(4, "deviceId")?,
            context: required(5, "contextId")?,
            stream: required(6, "streamId")?,
        };
        let correlation = int_at(row, 7, table, at)?;
        // Pass 1 sent exports with device rows lacking globalPid to the model.
        let process = GlobalId(required(8, "globalPid")?);
        let stream_key = (process.process(), process.pid(), track);
        let stream = match streams.iter().find(|(k, _)| *k == stream_key) {
            Some((_, id)) => *id,
            None => {
                let id = builder.device_stream(StreamLabels {
                    process: Some(process.process().to_string()),
                    track: process.pid().to_string(),
                    device: track.device.to_string(),
                    context: Some(track.context.to_string()),
                    stream: track.stream.to_string(),
                });
                streams.push((stream_key, id));
                id
            }
        };
        let launch = match correlation {
            None => LaunchEvidence::NoId,
            Some(id) => match keys.runtime.calls(process.process(), id) {
                Calls::One => LaunchEvidence::Proven,
                Calls::Several => LaunchEvidence::Ambiguous,
                Calls::None => LaunchEvidence::Unproven,
            },
        };
        let memory_name;
        let (class, name) = match code {
            KERNEL => {
                let demangled = StringId(required(9, "demangledName")?);
                let short = StringId(required(10, "shortName")?);
                let mangled = int_at(row, 11, table, at)?.map(StringId);
                (
                    SliceClass::Kernel,
                    strings.kernel_name_of(demangled, short, mangled)?,
                )
            }
            _ => {
                let kind = if code == MEMCPY {
                    MemoryKind::Copy {
                        copy_kind: required(12, "copyKind")?,
                        src_kind: int_at(row, 13, table, at)?,
                        dst_kind: int_at(row, 14, table, at)?,
                    }
                } else {
                    MemoryKind::Set {
                        value: None,
                        memory_kind: int_at(row, 15, table, at)?,
                    }
                };
                let op = MemoryOp {
                    rowid,
                    kind,
                    start,
                    end,
                    track,
                    correlation_id: correlation,
                    global_pid: Some(process),
                    bytes: 0,
                    graph_node_id: None,
                };
                memory_name = op.kineto_name();
                let class = if code == MEMCPY {
                    SliceClass::Memcpy
                } else {
                    SliceClass::Memset
                };
                (class, memory_name.as_str())
            }
        };
        let activity = DeviceActivity {
            class,
            name,
            ts_ns: start,
            dur_ns: end.saturating_sub(start),
            launch,
        };
        builder
            .device_activity(stream, activity)
            .map_err(|e| out_of_order(e, table, rowid))?;
    }
    Ok(())
}
